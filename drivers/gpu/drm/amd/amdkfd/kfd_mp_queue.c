// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: the hooks of user queue creation and
 * destruction: the queue slot and doorbell ID policy
 * (amdgpu.kfd_queue_slot_policy, kfd_mp_slots.c) and the queue trace events.
 */
#include <linux/module.h>

#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_mp_param.h"
#include "kfd_mp_slots.h"
#include "kfd_priv.h"
#include "kfd_trace.h"

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
	.def = 8, .value = 8,
};
module_param_cb(kfd_queue_slot_range, &kfd_mp_uint_ops,
		&kfd_mp_slot_range_param, 0444);
MODULE_PARM_DESC(kfd_queue_slot_range,
		 "Queue slots per process range for kfd_queue_slot_policy pid and index: a power of 2 in 1..1024 (default 8)");

static enum kfd_mp_slot_policy kfd_mp_slot_policy(void)
{
	return kfd_mp_choice_effective(&kfd_mp_slot_policy_param,
				       kfd_mp_enabled(), KFD_MP_SLOT_FIRST_FIT,
				       KFD_MP_SLOT_INDEX);
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
 *	 the caller (the process's p->mutex, held over create and destroy;
 *	 a queued destroy clears its bit after the cycle while its caller
 *	 still holds p->mutex)
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
