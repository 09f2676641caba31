/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Multi-process scheduling: where a process's queues and doorbells go.
 *
 * Stock amdkfd gives every process queue IDs and doorbell IDs from 0 up,
 * first-fit in per-process bitmaps. The policies here give each process
 * its own range of queue slots instead, chosen from its PID or from a
 * per-device process index, and let a compute queue's doorbell ID follow
 * its queue slot. A range that is full, or a process without a range,
 * falls back to first-fit over the whole bitmap, so no queue that stock
 * would create is refused. In the same way a process's doorbell page can
 * be placed at a slot of the doorbell BAR chosen from its PID or index.
 *
 * Pure logic with no dependency on the rest of amdkfd, so that it can be
 * tested with KUnit without a GPU; kfd_mp.c applies it.
 */
#ifndef KFD_MP_SLOTS_H_INCLUDED
#define KFD_MP_SLOTS_H_INCLUDED

#include <linux/bitmap.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* Most process indices a device hands out; one per queue-slot range of 1. */
#define KFD_MP_INDEX_MAX	1024
#define KFD_MP_NO_INDEX		(-1)

/* Values of amdgpu.kfd_queue_slot_policy; index 0 is "default". */
enum kfd_mp_slot_policy {
	KFD_MP_SLOT_DEFAULT,
	KFD_MP_SLOT_FIRST_FIT,
	KFD_MP_SLOT_PID,
	KFD_MP_SLOT_INDEX,
};

/* How a slot was found. */
enum kfd_mp_slot_outcome {
	KFD_MP_SLOT_HIT,	/* inside the process's range */
	KFD_MP_SLOT_COLLISION,	/* range full: first-fit over the bitmap */
	KFD_MP_SLOT_NO_RANGE,	/* no range to search: first-fit */
	KFD_MP_SLOT_FULL,	/* no free slot at all */
};

/*
 * Per-device process index: the lowest free index is taken for a process
 * on a device and given back when the process leaves the device, so two
 * live processes never hold the same index.
 */
struct kfd_mp_index_alloc {
	spinlock_t lock;		/* protects used and the holders' index */
	unsigned int size;
	DECLARE_BITMAP(used, KFD_MP_INDEX_MAX);
};

unsigned int kfd_mp_slot_nranges(unsigned int nbits, unsigned int range);
int kfd_mp_slot_range(enum kfd_mp_slot_policy policy, pid_t pid, int index,
		      unsigned int nbits, unsigned int range,
		      unsigned int *base);
unsigned int kfd_mp_slot_find(const unsigned long *bitmap, unsigned int nbits,
			      unsigned int base, unsigned int size,
			      enum kfd_mp_slot_outcome *outcome);
unsigned int kfd_mp_slot_follow(const unsigned long *bitmap,
				unsigned int nbits, unsigned int want,
				bool *followed);

void kfd_mp_index_init(struct kfd_mp_index_alloc *a, unsigned int size);
int kfd_mp_index_get(struct kfd_mp_index_alloc *a, int *index);
void kfd_mp_index_put(struct kfd_mp_index_alloc *a, int *index);
unsigned int kfd_mp_index_used(struct kfd_mp_index_alloc *a);

/*
 * The part of a device's doorbell BAR where process doorbell pages may be
 * placed: above the kernel's doorbells, in slots of one process slice.
 */
struct kfd_mp_db_layout {
	u64 aperture;		/* bytes of the doorbell BAR */
	u64 base;		/* first byte of slot 0 */
	u64 slice;		/* bytes of one process's doorbells */
	u32 nslots;
};

int kfd_mp_db_layout_init(struct kfd_mp_db_layout *l, u64 aperture,
			  u64 reserved_end, u64 slice, u64 align);
int kfd_mp_db_slot(const struct kfd_mp_db_layout *l,
		   enum kfd_mp_slot_policy policy, pid_t pid, int index,
		   u32 *slot);
int kfd_mp_db_slot_offset(const struct kfd_mp_db_layout *l, u32 slot,
			  u64 *offset);

#endif
