// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: the master switch amdgpu.kfd_mp, the per-device
 * state of the policies and debugfs kfd/mp_stats. The hooks the rest of
 * amdkfd calls are in one file per concern: kfd_mp_sched.c (runlists and
 * preemptions), kfd_mp_queue.c (queues), kfd_mp_doorbell.c (doorbell
 * pages), kfd_mp_rlq_dqm.c (queued runlist).
 */
#include <linux/module.h>
#include <linux/seq_file.h>

#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_mp_param.h"
#include "kfd_priv.h"

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

const char * const kfd_mp_slot_policies[] = {
	[KFD_MP_SLOT_DEFAULT] = "default",
	[KFD_MP_SLOT_FIRST_FIT] = "first-fit",
	[KFD_MP_SLOT_PID] = "pid",
	[KFD_MP_SLOT_INDEX] = "index",
	NULL
};

/**
 * kfd_mp_dev_init - set up the multi-process state of a device
 * @kfd: the device, its doorbells initialised
 *
 * Without memory for it the policies of this device stay first-fit.
 */
void kfd_mp_dev_init(struct kfd_dev *kfd)
{
	BUILD_BUG_ON(KFD_MP_INDEX_MAX < KFD_MAX_NUM_OF_QUEUES_PER_PROCESS);

	kfd->mp = kzalloc(sizeof(*kfd->mp), GFP_KERNEL);
	if (!kfd->mp)
		return;
	kfd_mp_index_init(&kfd->mp->index, KFD_MP_INDEX_MAX);
}

/**
 * kfd_mp_dev_fini - free the multi-process state of a device
 * @kfd: the device; no process holds an index on it any more
 */
void kfd_mp_dev_fini(struct kfd_dev *kfd)
{
	kfree(kfd->mp);
	kfd->mp = NULL;
}

/* The process's index on the device of @pdd, taken on first use. */
int kfd_mp_pdd_index(struct kfd_process_device *pdd)
{
	struct kfd_mp_dev *mp = pdd->dev->kfd->mp;

	if (!mp)
		return -ENODEV;
	return kfd_mp_index_get(&mp->index, &pdd->mp_index);
}

/**
 * kfd_mp_pdd_release - the process leaves the device: give its index back
 * @pdd: the process on the device, its queues and doorbells freed
 */
void kfd_mp_pdd_release(struct kfd_process_device *pdd)
{
	struct kfd_mp_dev *mp = pdd->dev->kfd->mp;

	if (mp)
		kfd_mp_index_put(&mp->index, &pdd->mp_index);
}

pid_t kfd_mp_pid(struct kfd_process_device *pdd)
{
	return pdd->process->lead_thread->pid;
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
