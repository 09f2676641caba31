// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: glue between the device queue manager and the
 * statistics, trace events and policies of the multi-process series.
 */
#include <linux/module.h>
#include <linux/seq_file.h>

#include "amdgpu.h"
#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_mp_param.h"
#include "kfd_priv.h"
#include "kfd_trace.h"

static struct kfd_mp_uint_param kfd_mp_master = {
	.name = "kfd_mp", .min = 0, .max = 1,
};
module_param_cb(kfd_mp, &kfd_mp_uint_ops, &kfd_mp_master, 0444);
MODULE_PARM_DESC(kfd_mp,
		 "Multi-process scheduling changes: 0 = stock (default), 1 = turn on every kfd_* multi-process switch left at \"default\"");

/**
 * kfd_mp_enabled - the master switch, amdgpu.kfd_mp
 *
 * Return: true when the switches left at "default" take their non-stock
 * value.
 */
bool kfd_mp_enabled(void)
{
	return kfd_mp_master.value;
}

static void kfd_mp_dqm_load(struct device_queue_manager *dqm,
			    struct kfd_mp_load *load)
{
	load->processes = dqm->processes_count;
	load->max_processes = dqm->dev->max_proc_per_quantum;
	load->active_queues = dqm->active_queue_count;
	load->cp_queues = dqm->active_cp_queue_count;
	load->max_cp_queues = get_cp_queues_num(dqm);
	load->gws_queues = dqm->gws_queue_count;
}

/**
 * kfd_mp_dqm_oversub_reasons - why the next runlist of @dqm is oversubscribed
 * @dqm: device queue manager, locked
 *
 * Return: a mask of KFD_MP_OVERSUB_*_BIT, 0 if the runlist fits the HWS.
 */
unsigned int kfd_mp_dqm_oversub_reasons(struct device_queue_manager *dqm)
{
	struct kfd_mp_load load;

	kfd_mp_dqm_load(dqm, &load);
	return kfd_mp_oversub_reasons(&load);
}

/**
 * kfd_mp_runlist_sent - account a runlist submission
 * @dqm: device queue manager, locked
 * @ret: result of pm_send_runlist()
 * @start: ktime_get() before pm_send_runlist()
 */
void kfd_mp_runlist_sent(struct device_queue_manager *dqm, int ret,
			 ktime_t start)
{
	u64 us = ktime_us_delta(ktime_get(), start);
	struct kfd_mp_load load;
	unsigned int reasons;

	kfd_mp_dqm_load(dqm, &load);
	reasons = kfd_mp_oversub_reasons(&load);
	kfd_mp_stats_runlist(&dqm->mp_stats, &load, reasons, us, ret != 0);
	trace_kfd_runlist_submit(dqm->dev->id, load.processes,
				 load.active_queues, reasons, us, ret);
}

/**
 * kfd_mp_unmap_done - account an unmap (preemption) cycle
 * @dqm: device queue manager, locked
 * @filter: the unmap filter (enum kfd_unmap_queues_filter)
 * @filter_param: PASID or queue, depending on @filter
 * @ret: result of the cycle, 0 when the fence signalled in time
 * @start: ktime_get() before the unmap was sent
 */
void kfd_mp_unmap_done(struct device_queue_manager *dqm, int filter,
		       u32 filter_param, int ret, ktime_t start)
{
	u64 us = ktime_us_delta(ktime_get(), start);

	kfd_mp_stats_unmap(&dqm->mp_stats, us, ret != 0);
	trace_kfd_unmap_queues(dqm->dev->id, filter, filter_param, ret, us);
}

static pid_t kfd_mp_pid(struct kfd_process_device *pdd)
{
	return pdd->process->lead_thread->pid;
}

/**
 * kfd_mp_queue_created - a user queue was created
 * @pdd: the process on the queue's node
 * @q: the queue, with its ID and doorbell assigned
 */
void kfd_mp_queue_created(struct kfd_process_device *pdd, struct queue *q)
{
	trace_kfd_queue_create(kfd_mp_pid(pdd), pdd->process->pasid,
			       pdd->dev->id, q->properties.queue_id,
			       q->properties.type, q->doorbell_id,
			       q->properties.doorbell_off);
}

/**
 * kfd_mp_queue_destroyed - a user queue is being destroyed
 * @pdd: the process on the queue's node
 * @q: the queue, still holding its ID and doorbell
 */
void kfd_mp_queue_destroyed(struct kfd_process_device *pdd, struct queue *q)
{
	trace_kfd_queue_destroy(kfd_mp_pid(pdd), pdd->process->pasid,
				pdd->dev->id, q->properties.queue_id,
				q->properties.type, q->doorbell_id,
				q->properties.doorbell_off);
}

/**
 * kfd_mp_doorbells_allocated - a process got its doorbell BO on a device
 * @pdd: the process on the device
 */
void kfd_mp_doorbells_allocated(struct kfd_process_device *pdd)
{
	struct kfd_dev *kfd = pdd->dev->kfd;
	u32 index;

	if (!trace_kfd_doorbell_bo_alloc_enabled())
		return;
	index = amdgpu_doorbell_index_on_bar(kfd->adev, pdd->qpd.proc_doorbells,
					     0, kfd->device_info.doorbell_size);
	trace_kfd_doorbell_bo_alloc(kfd_mp_pid(pdd), pdd->process->pasid,
				    pdd->dev->id, (u64)index * sizeof(u32),
				    kfd_doorbell_process_slice(kfd));
}

#if defined(CONFIG_DEBUG_FS)

int kfd_debugfs_mp_stats_show(struct seq_file *m, void *data)
{
	struct kfd_mp_stats_snapshot *snap;
	struct kfd_node *node;
	u8 i;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;

	seq_puts(m, "# kfd mp_stats v1: write 0 to reset\n");
	for (i = 0; kfd_topology_enum_kfd_devices(i, &node) == 0; i++) {
		if (!node || !node->dqm)
			continue;
		kfd_mp_stats_read(&node->dqm->mp_stats, snap);
		seq_printf(m, "node %u gpu_id %u:\n", i, node->id);
		kfd_mp_stats_print(m, snap, ktime_get_ns());
	}
	kfree(snap);
	return 0;
}

int kfd_debugfs_mp_stats_reset(const char *buf)
{
	struct kfd_node *node;
	unsigned int val;
	u8 i;

	if (kstrtouint(buf, 0, &val) || val != 0)
		return -EINVAL;

	for (i = 0; kfd_topology_enum_kfd_devices(i, &node) == 0; i++)
		if (node && node->dqm)
			kfd_mp_stats_reset(&node->dqm->mp_stats);
	return 0;
}

#endif
