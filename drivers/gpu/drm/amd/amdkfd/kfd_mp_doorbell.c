// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: where a process's doorbell page sits on the
 * doorbell BAR (amdgpu.kfd_doorbell_placement, kfd_mp_slots.c) and its
 * trace event.
 */
#include <linux/module.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>

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

/*
 * The slots for process doorbell pages: whole process slices between the
 * doorbells the kernel holds (amdgpu's kernel doorbells, KFD's own page,
 * both allocated by now) and the end of the doorbell BAR.
 */
void kfd_mp_db_init(struct kfd_dev *kfd)
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
