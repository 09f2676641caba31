// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: glue between the device queue manager and the
 * statistics, trace events and policies of the multi-process series.
 */
#include <linux/module.h>
#include <linux/seq_file.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>

#include "amdgpu.h"
#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_mp_param.h"
#include "kfd_mp_rlq.h"
#include "kfd_mp_slots.h"
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

static const char * const kfd_mp_slot_policies[] = {
	[KFD_MP_SLOT_DEFAULT] = "default",
	[KFD_MP_SLOT_FIRST_FIT] = "first-fit",
	[KFD_MP_SLOT_PID] = "pid",
	[KFD_MP_SLOT_INDEX] = "index",
	NULL
};

static struct kfd_mp_choice_param kfd_mp_slot_policy_param = {
	.name = "kfd_queue_slot_policy", .choices = kfd_mp_slot_policies,
};
module_param_cb(kfd_queue_slot_policy, &kfd_mp_choice_ops,
		&kfd_mp_slot_policy_param, 0644);
MODULE_PARM_DESC(kfd_queue_slot_policy,
		 "Queue slots of CP queues: default (first-fit, or index with kfd_mp=1), first-fit (stock), pid (range from PID), index (range from a per-device process index); applies to queues created after a change");

static struct kfd_mp_uint_param kfd_mp_slot_range_param = {
	.name = "kfd_queue_slot_range", .min = 1,
	.max = KFD_MAX_NUM_OF_QUEUES_PER_PROCESS, .power_of_2 = true,
	.value = 8,
};
module_param_cb(kfd_queue_slot_range, &kfd_mp_uint_ops,
		&kfd_mp_slot_range_param, 0444);
MODULE_PARM_DESC(kfd_queue_slot_range,
		 "Queue slots per process range for kfd_queue_slot_policy pid and index: a power of 2 in 1..1024 (default 8)");

static struct kfd_mp_choice_param kfd_mp_db_policy_param = {
	.name = "kfd_doorbell_placement", .choices = kfd_mp_slot_policies,
};
module_param_cb(kfd_doorbell_placement, &kfd_mp_choice_ops,
		&kfd_mp_db_policy_param, 0644);
MODULE_PARM_DESC(kfd_doorbell_placement,
		 "Place of a process's doorbell page on the doorbell BAR: default (first-fit, or index with kfd_mp=1), first-fit (stock), pid (slot from PID), index (slot from the per-device process index); not with MES; applies to processes that open the device after a change");

/* Per-device state of the multi-process policies. */
struct kfd_mp_dev {
	struct kfd_mp_index_alloc index;
	struct kfd_mp_db_layout db;	/* no slots with MES */
};

/* How a process's doorbell page was placed (kfd_doorbell_bo_alloc). */
enum kfd_mp_db_outcome {
	KFD_MP_DB_FIRST_FIT,	/* policy off: stock */
	KFD_MP_DB_PLACED,	/* at its slot */
	KFD_MP_DB_FALLBACK,	/* no slot, or slot taken: first-fit */
};

static enum kfd_mp_slot_policy kfd_mp_slot_policy(void)
{
	return kfd_mp_choice_effective(&kfd_mp_slot_policy_param,
				       kfd_mp_enabled(), KFD_MP_SLOT_FIRST_FIT,
				       KFD_MP_SLOT_INDEX);
}

static enum kfd_mp_slot_policy kfd_mp_db_policy(void)
{
	return kfd_mp_choice_effective(&kfd_mp_db_policy_param,
				       kfd_mp_enabled(), KFD_MP_SLOT_FIRST_FIT,
				       KFD_MP_SLOT_INDEX);
}

/* First byte after a kernel doorbell BO on the doorbell BAR. */
static u64 kfd_mp_db_bo_end(struct amdgpu_bo *bo)
{
	return bo ? amdgpu_bo_gpu_offset_no_check(bo) + amdgpu_bo_size(bo) : 0;
}

/*
 * The slots for process doorbell pages: whole process slices between the
 * doorbells the kernel holds (amdgpu's kernel doorbells, KFD's own page,
 * both allocated by now) and the end of the doorbell BAR.
 */
static void kfd_mp_db_init(struct kfd_dev *kfd)
{
	struct amdgpu_device *adev = kfd->adev;
	struct kfd_mp_db_layout *l = &kfd->mp->db;
	bool on = kfd_mp_db_policy() != KFD_MP_SLOT_FIRST_FIT;
	u64 reserved;

	if (kfd->shared_resources.enable_mes) {
		if (on)
			dev_info(adev->dev,
				 "kfd_doorbell_placement does not apply with MES\n");
		return;
	}
	reserved = max(kfd_mp_db_bo_end(adev->doorbell.kernel_doorbells),
		       kfd_mp_db_bo_end(kfd->doorbells));
	if (kfd_mp_db_layout_init(l, adev->doorbell.size, reserved,
				  kfd_doorbell_process_slice(kfd), PAGE_SIZE))
		dev_warn(adev->dev,
			 "kfd_doorbell_placement: no slots (BAR %llu bytes, kernel doorbells end at %llu)\n",
			 (u64)adev->doorbell.size, reserved);
	else if (on)
		dev_info(adev->dev,
			 "kfd_doorbell_placement: %u slots of %llu bytes from 0x%llx\n",
			 l->nslots, l->slice, l->base);
}

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
	kfd_mp_db_init(kfd);
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
static int kfd_mp_pdd_index(struct kfd_process_device *pdd)
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

/*
 * amdgpu.kfd_queued_runlist: HWS nodes without MES record the runlist
 * changes of these paths and let one cycle serve all changes pending at
 * once (kfd_mp_rlq.h): create_queue_cpsch() and destroy_queue_cpsch() of
 * active queues, update_queue() (its MQD rewritten by the cycle while the
 * HWS has no runlist), evict_process_queues_cpsch() (except for a
 * debugged process) and restore_process_queues_cpsch(). All other paths
 * that preempt (kernel queues, debug trap, suspend/resume of queues,
 * halt/unhalt, start/stop, reset, process termination) stay stock: their
 * unmap_queues_cpsch() first runs a cycle for what is pending, and
 * map_queues_cpsch() resends the runlist instead of skipping it when one
 * is active. Decided per node when it is initialised.
 */
static const char * const kfd_queued_runlist_choices[] = {
	"default", "off", "on", NULL
};

enum { KFD_MP_RLQ_DEFAULT, KFD_MP_RLQ_OFF, KFD_MP_RLQ_ON };

static struct kfd_mp_choice_param kfd_queued_runlist = {
	.name = "kfd_queued_runlist",
	.choices = kfd_queued_runlist_choices,
};
module_param_cb(kfd_queued_runlist, &kfd_mp_choice_ops, &kfd_queued_runlist,
		0444);
MODULE_PARM_DESC(kfd_queued_runlist,
		 "Batch the runlist changes of many processes into one HWS preemption cycle: default (follows kfd_mp: off when 0, on when 1), off = stock, on");

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
 * kfd_mp_queue_slot - choose the queue slot (queue ID) of a new queue
 * @pdd: the process on the queue's node
 * @bitmap: the process's queue slots, KFD_MAX_NUM_OF_QUEUES_PER_PROCESS
 *	    bits, locked by the caller
 *
 * Under kfd_queue_slot_policy pid or index the process's range is searched
 * first, then the whole bitmap as stock does. The bit is not set.
 *
 * Return: the slot, or KFD_MAX_NUM_OF_QUEUES_PER_PROCESS if none is free.
 */
unsigned int kfd_mp_queue_slot(struct kfd_process_device *pdd,
			       const unsigned long *bitmap)
{
	enum kfd_mp_slot_policy policy = kfd_mp_slot_policy();
	struct kfd_mp_stats *st = &pdd->dev->dqm->mp_stats;
	enum kfd_mp_slot_outcome outcome;
	unsigned int base = 0, size = 0, slot;
	int index = KFD_MP_NO_INDEX;

	if (policy == KFD_MP_SLOT_FIRST_FIT)
		return find_first_zero_bit(bitmap,
					   KFD_MAX_NUM_OF_QUEUES_PER_PROCESS);

	if (policy == KFD_MP_SLOT_INDEX)
		index = kfd_mp_pdd_index(pdd);
	if (!kfd_mp_slot_range(policy, kfd_mp_pid(pdd), index,
			       KFD_MAX_NUM_OF_QUEUES_PER_PROCESS,
			       kfd_mp_slot_range_param.value, &base))
		size = kfd_mp_slot_range_param.value;

	slot = kfd_mp_slot_find(bitmap, KFD_MAX_NUM_OF_QUEUES_PER_PROCESS,
				base, size, &outcome);
	switch (outcome) {
	case KFD_MP_SLOT_HIT:
		kfd_mp_stats_add(st, KFD_MP_SLOT_RANGE_HITS, 1);
		break;
	case KFD_MP_SLOT_COLLISION:
		kfd_mp_stats_add(st, KFD_MP_SLOT_COLLISIONS, 1);
		fallthrough;
	case KFD_MP_SLOT_NO_RANGE:
		kfd_mp_stats_add(st, KFD_MP_SLOT_FALLBACKS, 1);
		break;
	case KFD_MP_SLOT_FULL:
		break;
	}
	return slot;
}

/**
 * kfd_mp_doorbell_id - choose the doorbell ID of a new SOC15 CP queue
 * @qpd: the process on the queue's node; its doorbell bitmap is locked by
 *	 the caller (dqm_lock)
 * @q: the queue, with its queue ID
 *
 * Under kfd_queue_slot_policy pid or index a compute queue's doorbell ID
 * is its queue ID when that doorbell is neither taken nor reserved (SDMA,
 * IH, VCN: see init_doorbell_bitmap()), so the queue's doorbell offset in
 * the process's doorbell page follows the queue slot. Otherwise, and for
 * other queue types, the first free ID as stock does. The bit is not set.
 *
 * Return: the ID, or KFD_MAX_NUM_OF_QUEUES_PER_PROCESS if none is free.
 */
unsigned int kfd_mp_doorbell_id(struct qcm_process_device *qpd,
				struct queue *q)
{
	enum kfd_mp_slot_policy policy = kfd_mp_slot_policy();
	unsigned int id;
	bool followed;

	if (q->properties.type != KFD_QUEUE_TYPE_COMPUTE ||
	    (policy != KFD_MP_SLOT_PID && policy != KFD_MP_SLOT_INDEX))
		return find_first_zero_bit(qpd->doorbell_bitmap,
					   KFD_MAX_NUM_OF_QUEUES_PER_PROCESS);

	id = kfd_mp_slot_follow(qpd->doorbell_bitmap,
				KFD_MAX_NUM_OF_QUEUES_PER_PROCESS,
				q->properties.queue_id, &followed);
	kfd_mp_stats_add(&qpd->dqm->mp_stats,
			 followed ? KFD_MP_DOORBELL_FOLLOWS :
			 KFD_MP_DOORBELL_FALLBACKS, 1);
	return id;
}

/**
 * kfd_mp_queue_created - a user queue was created
 * @pdd: the process on the queue's node
 * @q: the queue, with its ID and doorbell assigned
 */
void kfd_mp_queue_created(struct kfd_process_device *pdd, struct queue *q)
{
	trace_kfd_queue_create(kfd_mp_pid(pdd), kfd_mp_pdd_pasid(pdd),
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
	trace_kfd_queue_destroy(kfd_mp_pid(pdd), kfd_mp_pdd_pasid(pdd),
				pdd->dev->id, q->properties.queue_id,
				q->properties.type, q->doorbell_id,
				q->properties.doorbell_off);
}

/*
 * Move a pinned doorbell BO, reserved by the caller, to @offset on the
 * doorbell BAR if that range is free. TTM_PL_FLAG_DESIRED keeps
 * ttm_bo_mem_space() from evicting anything for it: a taken range fails
 * with -ENOSPC and the BO stays where it is. Doorbell BOs hold no data,
 * so the move only swaps the resource (as amdgpu_bo_move() does for
 * AMDGPU_PL_DOORBELL); the new resource goes on the pinned list since
 * the BO is pinned.
 */
static int kfd_mp_db_move(struct amdgpu_bo *bo, u64 offset)
{
	struct ttm_operation_ctx ctx = { .no_wait_gpu = true };
	struct ttm_place place = {
		.fpfn = offset >> PAGE_SHIFT,
		.lpfn = (offset + amdgpu_bo_size(bo)) >> PAGE_SHIFT,
		.mem_type = AMDGPU_PL_DOORBELL,
		.flags = TTM_PL_FLAG_DESIRED,
	};
	struct ttm_placement placement = {
		.num_placement = 1, .placement = &place,
	};
	struct ttm_resource *res;
	int r;

	r = ttm_bo_mem_space(&bo->tbo, &placement, &res, &ctx);
	if (r)
		return r;
	ttm_bo_move_null(&bo->tbo, res);
	return 0;
}

/*
 * Put the doorbell BO of @pdd, just allocated first-fit and not mapped
 * yet, at the slot kfd_doorbell_placement chooses. A BO that cannot move
 * stays at its first-fit place, so no allocation stock satisfies fails.
 */
static enum kfd_mp_db_outcome kfd_mp_db_place(struct kfd_process_device *pdd,
					      int *slot_out)
{
	enum kfd_mp_slot_policy policy = kfd_mp_db_policy();
	enum kfd_mp_db_outcome outcome = KFD_MP_DB_FALLBACK;
	struct amdgpu_bo *bo = pdd->qpd.proc_doorbells;
	struct kfd_dev *kfd = pdd->dev->kfd;
	struct kfd_mp_dev *mp = kfd->mp;
	int index = KFD_MP_NO_INDEX;
	u64 target;
	u32 slot = 0;

	*slot_out = -1;
	if (policy == KFD_MP_SLOT_FIRST_FIT || kfd->shared_resources.enable_mes)
		return KFD_MP_DB_FIRST_FIT;

	if (policy == KFD_MP_SLOT_INDEX)
		index = kfd_mp_pdd_index(pdd);
	if (mp && !kfd_mp_db_slot(&mp->db, policy, kfd_mp_pid(pdd), index,
				  &slot) &&
	    !kfd_mp_db_slot_offset(&mp->db, slot, &target) &&
	    !amdgpu_bo_reserve(bo, true)) {
		switch (kfd_mp_db_step(amdgpu_bo_gpu_offset_no_check(bo),
				       target, mp->db.slice)) {
		case KFD_MP_DB_KEEP_PLACED:
			outcome = KFD_MP_DB_PLACED;
			break;
		case KFD_MP_DB_TRY_MOVE:
			if (!kfd_mp_db_move(bo, target))
				outcome = KFD_MP_DB_PLACED;
			break;
		case KFD_MP_DB_KEEP_FALLBACK:
			break;
		}
		amdgpu_bo_unreserve(bo);
	}

	if (outcome == KFD_MP_DB_PLACED)
		*slot_out = slot;
	kfd_mp_stats_add(&pdd->dev->dqm->mp_stats,
			 outcome == KFD_MP_DB_PLACED ?
			 KFD_MP_DOORBELL_BO_PLACED : KFD_MP_DOORBELL_BO_FALLBACKS,
			 1);
	return outcome;
}

/**
 * kfd_mp_doorbells_allocated - a process got its doorbell BO on a device
 * @pdd: the process on the device
 *
 * Places the BO as kfd_doorbell_placement asks, before it is mapped.
 */
void kfd_mp_doorbells_allocated(struct kfd_process_device *pdd)
{
	struct kfd_dev *kfd = pdd->dev->kfd;
	enum kfd_mp_db_outcome outcome;
	u32 index;
	int slot;

	outcome = kfd_mp_db_place(pdd, &slot);
	if (!trace_kfd_doorbell_bo_alloc_enabled())
		return;
	index = amdgpu_doorbell_index_on_bar(kfd->adev, pdd->qpd.proc_doorbells,
					     0, kfd->device_info.doorbell_size);
	trace_kfd_doorbell_bo_alloc(kfd_mp_pid(pdd), kfd_mp_pdd_pasid(pdd),
				    pdd->dev->id, (u64)index * sizeof(u32),
				    kfd_doorbell_process_slice(kfd), slot,
				    outcome);
}

static struct device_queue_manager *kfd_mp_rlq_dqm(struct kfd_mp_rlq *q)
{
	return container_of(q, struct device_queue_manager, mp_rlq);
}

static void kfd_mp_rlq_dqm_lock(struct kfd_mp_rlq *q)
{
	dqm_lock(kfd_mp_rlq_dqm(q));
}

static void kfd_mp_rlq_dqm_unlock(struct kfd_mp_rlq *q)
{
	dqm_unlock(kfd_mp_rlq_dqm(q));
}

static void kfd_mp_rlq_dqm_submitted(struct kfd_mp_rlq *q,
				     struct kfd_mp_rlq_req *req,
				     unsigned int pending, bool run_now)
{
	trace_kfd_rlq_request(kfd_mp_rlq_dqm(q)->dev->id, req->ticket, pending,
			      run_now);
}

static void kfd_mp_rlq_dqm_account(struct kfd_mp_rlq *q,
				   const struct kfd_mp_rlq_cycle_info *info,
				   struct list_head *batch)
{
	struct device_queue_manager *dqm = kfd_mp_rlq_dqm(q);
	struct kfd_mp_rlq_req *req;

	kfd_mp_stats_rlq_cycle(&dqm->mp_stats, info->requests, info->failed,
			       info->cycle != 0, info->flush, info->result != 0);
	list_for_each_entry(req, batch, node)
		kfd_mp_stats_sample(&dqm->mp_stats, KFD_MP_HIST_RLQ_WAIT_US,
				    div_u64(req->wait_ns, NSEC_PER_USEC));
	trace_kfd_rlq_cycle(dqm->dev->id, info->cycle, info->requests,
			    info->first_ticket, info->last_ticket, info->failed,
			    info->flush, info->result,
			    div_u64(info->duration_ns, NSEC_PER_USEC),
			    div_u64(info->max_wait_ns, NSEC_PER_USEC));
}

static const struct kfd_mp_rlq_ops kfd_mp_rlq_dqm_ops = {
	.lock = kfd_mp_rlq_dqm_lock,
	.unlock = kfd_mp_rlq_dqm_unlock,
	.cycle = kfd_dqm_rlq_cycle,
	.submitted = kfd_mp_rlq_dqm_submitted,
	.account = kfd_mp_rlq_dqm_account,
};

/**
 * kfd_mp_rlq_dqm_init - set up the queued runlist of a HWS node
 * @dqm: device queue manager, from initialize_cpsch()
 *
 * The queue is on when amdgpu.kfd_queued_runlist says so and the node
 * uses the HWS without MES; otherwise every path stays stock.
 */
void kfd_mp_rlq_dqm_init(struct device_queue_manager *dqm)
{
	kfd_mp_rlq_init(&dqm->mp_rlq, &kfd_mp_rlq_dqm_ops);
	dqm->mp_rlq_on = !dqm->dev->kfd->shared_resources.enable_mes &&
		kfd_mp_choice_effective(&kfd_queued_runlist, kfd_mp_enabled(),
					KFD_MP_RLQ_OFF, KFD_MP_RLQ_ON) ==
		KFD_MP_RLQ_ON;
	if (dqm->mp_rlq_on)
		dev_info(dqm->dev->adev->dev,
			 "kfd: node %u: queued runlist on\n", dqm->dev->node_id);
}

/**
 * kfd_mp_rlq_dqm_fini - fail what is still pending at teardown
 * @dqm: device queue manager, stopped, dqm_lock still usable
 *
 * Stopping flushed the queue (stop_cpsch() preempts through
 * unmap_queues_cpsch()); anything submitted since gets -ENODEV.
 */
void kfd_mp_rlq_dqm_fini(struct device_queue_manager *dqm)
{
	unsigned int n;

	if (!dqm->mp_rlq_on)
		return;
	dqm_lock(dqm);
	n = kfd_mp_rlq_fail_locked(&dqm->mp_rlq, -ENODEV);
	dqm_unlock(dqm);
	if (n)
		dev_warn(dqm->dev->adev->dev,
			 "kfd: %u runlist requests failed at teardown\n", n);
}

/**
 * kfd_mp_dqm_lock - dqm_lock() for a path that may queue a runlist change
 * @dqm: device queue manager
 *
 * With the queued runlist on, the caller counts as arriving while it
 * waits for the lock, so that a cycle about to start waits for its change.
 */
void kfd_mp_dqm_lock(struct device_queue_manager *dqm)
{
	if (dqm->mp_rlq_on)
		kfd_mp_rlq_lock(&dqm->mp_rlq);
	else
		dqm_lock(dqm);
}

/**
 * kfd_mp_rlq_dqm_execute - queued execute_queues_cpsch() and dqm_unlock()
 * @dqm: device queue manager, locked; unlocked on return
 *
 * Return: the result of the cycle that served the change.
 */
int kfd_mp_rlq_dqm_execute(struct device_queue_manager *dqm)
{
	struct kfd_mp_rlq_req req = {};

	return kfd_mp_rlq_submit_unlock_wait(&dqm->mp_rlq, &req);
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
