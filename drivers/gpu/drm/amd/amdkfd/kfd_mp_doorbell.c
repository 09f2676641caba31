// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: where a process's doorbell page sits on the
 * doorbell BAR (amdgpu.kfd_doorbell_placement, kfd_mp_slots.c) and its
 * trace event.
 */
#include <linux/module.h>

#include "amdgpu.h"
#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_mp_param.h"
#include "kfd_mp_slots.h"
#include "kfd_priv.h"
#include "kfd_trace.h"

static struct kfd_mp_choice_param kfd_mp_db_policy_param = {
	.name = "kfd_doorbell_placement", .choices = kfd_mp_slot_policies,
};
module_param_cb(kfd_doorbell_placement, &kfd_mp_choice_ops,
		&kfd_mp_db_policy_param, 0644);
MODULE_PARM_DESC(kfd_doorbell_placement,
		 "Place of a process's doorbell page on the doorbell BAR: default (first-fit, or index with kfd_mp=1), first-fit (stock), pid (slot from PID), index (slot from the per-device process index); not with MES; applies to processes that open the device after a change");

/* How a process's doorbell page was placed (kfd_doorbell_bo_alloc). */
enum kfd_mp_db_outcome {
	KFD_MP_DB_FIRST_FIT,	/* policy off: stock */
	KFD_MP_DB_PLACED,	/* at its slot */
	KFD_MP_DB_FALLBACK,	/* no slot, or slot taken: first-fit */
};

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

/**
 * kfd_mp_db_init - the slots for process doorbell pages of a device
 * @kfd: the device, after kfd_mp_dev_init()
 *
 * Whole process slices between the doorbells the kernel holds (amdgpu's
 * kernel doorbells, KFD's own page, both allocated by now) and the end of
 * the doorbell BAR. Without kfd_mp_dev_init()'s state, doorbell pages stay
 * first-fit.
 */
void kfd_mp_db_init(struct kfd_dev *kfd)
{
	struct amdgpu_device *adev = kfd->adev;
	bool on = kfd_mp_db_policy() != KFD_MP_SLOT_FIRST_FIT;
	struct kfd_mp_db_layout *l;
	u64 reserved;

	if (!kfd->mp)
		return;
	l = &kfd->mp->db;
	if (kfd->shared_resources.enable_mes) {
		if (on)
			dev_info(adev->dev,
				 "kfd_doorbell_placement does not apply with MES\n");
		return;
	}
	reserved = max(kfd_mp_db_bo_end(adev->doorbell.kernel_doorbells),
		       kfd_mp_db_bo_end(kfd->doorbells));
	/* the layout is set up even when off: the parameter is writable */
	if (kfd_mp_db_layout_init(l, adev->doorbell.size, reserved,
				  kfd_doorbell_process_slice(kfd), PAGE_SIZE)) {
		if (on)
			dev_warn(adev->dev,
				 "kfd_doorbell_placement: no slots (BAR %llu bytes, kernel doorbells end at %llu)\n",
				 (u64)adev->doorbell.size, reserved);
	} else if (on) {
		dev_info(adev->dev,
			 "kfd_doorbell_placement: %u slots of %llu bytes from 0x%llx\n",
			 l->nslots, l->slice, l->base);
	}
}

/*
 * The offset on the doorbell BAR of the slot kfd_doorbell_placement
 * chooses for the doorbell page of @pdd. False when there is none: the
 * page then goes where first-fit puts it.
 */
static bool kfd_mp_db_target(struct kfd_process_device *pdd,
			     enum kfd_mp_slot_policy policy, u32 *slot,
			     u64 *target)
{
	struct kfd_mp_dev *mp = pdd->dev->kfd->mp;
	int index = KFD_MP_NO_INDEX;

	if (!mp)
		return false;
	if (policy == KFD_MP_SLOT_INDEX)
		index = kfd_mp_pdd_index(pdd);
	return !kfd_mp_db_slot(&mp->db, policy, kfd_mp_pid(pdd), index,
			       slot) &&
	       !kfd_mp_db_slot_offset(&mp->db, *slot, target);
}

/**
 * kfd_mp_doorbells_alloc - allocate a process's doorbell BO on a device
 * @pdd: the process on the device
 *
 * Allocates qpd.proc_doorbells, one kfd_doorbell_process_slice(), at the
 * slot kfd_doorbell_placement chooses. amdgpu places it there before it
 * is pinned (amdgpu_bo_create_kernel_pref()); a slot that is taken or out
 * of range leaves it at its first-fit place, so no allocation stock
 * satisfies fails.
 *
 * Return: 0 on success, negative error code otherwise.
 */
int kfd_mp_doorbells_alloc(struct kfd_process_device *pdd)
{
	enum kfd_mp_slot_policy policy = kfd_mp_db_policy();
	enum kfd_mp_db_outcome outcome = KFD_MP_DB_FIRST_FIT;
	struct kfd_dev *kfd = pdd->dev->kfd;
	struct amdgpu_bo **bo = &pdd->qpd.proc_doorbells;
	u64 slice = kfd_doorbell_process_slice(kfd);
	bool want = false;
	u64 target = 0;
	int traced_slot;
	u32 index;
	u32 slot = 0;
	int r;

	if (policy != KFD_MP_SLOT_FIRST_FIT &&
	    !kfd->shared_resources.enable_mes) {
		outcome = KFD_MP_DB_FALLBACK;
		want = kfd_mp_db_target(pdd, policy, &slot, &target);
	}
	if (want)
		r = amdgpu_bo_create_kernel_pref(kfd->adev, slice, PAGE_SIZE,
						 AMDGPU_GEM_DOMAIN_DOORBELL,
						 target, bo, NULL, NULL);
	else
		r = amdgpu_bo_create_kernel(kfd->adev, slice, PAGE_SIZE,
					    AMDGPU_GEM_DOMAIN_DOORBELL, bo,
					    NULL, NULL);
	if (r)
		return r;

	if (want && amdgpu_bo_gpu_offset_no_check(*bo) == target)
		outcome = KFD_MP_DB_PLACED;
	if (outcome != KFD_MP_DB_FIRST_FIT)
		kfd_mp_stats_add(&pdd->dev->dqm->mp_stats,
				 outcome == KFD_MP_DB_PLACED ?
				 KFD_MP_DOORBELL_BO_PLACED :
				 KFD_MP_DOORBELL_BO_FALLBACKS, 1);
	if (!trace_kfd_doorbell_bo_alloc_enabled())
		return 0;
	traced_slot = outcome == KFD_MP_DB_PLACED ? (int)slot : -1;
	index = amdgpu_doorbell_index_on_bar(kfd->adev, *bo, 0,
					     kfd->device_info.doorbell_size);
	trace_kfd_doorbell_bo_alloc(kfd_mp_pid(pdd), kfd_mp_pdd_pasid(pdd),
				    pdd->dev->id, (u64)index * sizeof(u32),
				    slice, traced_slot, outcome);
	return 0;
}
