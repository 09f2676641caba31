// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: queue slots, doorbell IDs, process indices and
 * doorbell page slots; see kfd_mp_slots.h.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include "kfd_mp_slots.h"

/**
 * kfd_mp_slot_nranges - how many whole ranges fit in a bitmap
 * @nbits: bits in the bitmap
 * @range: slots per range
 *
 * Return: @nbits / @range, 0 if @range is 0.
 */
unsigned int kfd_mp_slot_nranges(unsigned int nbits, unsigned int range)
{
	return range ? nbits / range : 0;
}

/*
 * The slot of a process among @n: @pid mod @n under KFD_MP_SLOT_PID,
 * @index under KFD_MP_SLOT_INDEX if it is below @n; -ENOENT otherwise.
 */
static int kfd_mp_slot_pick(enum kfd_mp_slot_policy policy, pid_t pid,
			    int index, unsigned int n, unsigned int *slot)
{
	if (!n)
		return -ENOENT;

	switch (policy) {
	case KFD_MP_SLOT_PID:
		if (pid < 0)
			return -ENOENT;
		*slot = (unsigned int)pid % n;
		return 0;
	case KFD_MP_SLOT_INDEX:
		if (index < 0 || (unsigned int)index >= n)
			return -ENOENT;
		*slot = index;
		return 0;
	default:
		return -ENOENT;
	}
}

/**
 * kfd_mp_slot_range - first slot of a process's range
 * @policy: KFD_MP_SLOT_PID or KFD_MP_SLOT_INDEX; any other has no range
 * @pid: the process's PID, for KFD_MP_SLOT_PID
 * @index: the process's index on the device, for KFD_MP_SLOT_INDEX
 * @nbits: bits in the bitmap
 * @range: slots per range
 * @base: the first slot of the range, on success
 *
 * Under KFD_MP_SLOT_PID the range is (@pid mod ranges) x @range, so two
 * PIDs that are equal modulo the number of ranges share one. Under
 * KFD_MP_SLOT_INDEX it is @index x @range; an index beyond the last range
 * gets none.
 *
 * Return: 0, or -ENOENT if the process has no range.
 */
int kfd_mp_slot_range(enum kfd_mp_slot_policy policy, pid_t pid, int index,
		      unsigned int nbits, unsigned int range,
		      unsigned int *base)
{
	unsigned int r;
	int ret;

	ret = kfd_mp_slot_pick(policy, pid, index,
			       kfd_mp_slot_nranges(nbits, range), &r);
	if (!ret)
		*base = r * range;
	return ret;
}

/**
 * kfd_mp_slot_find - a free slot, in a range first
 * @bitmap: the slots, a set bit is taken; the caller holds its lock
 * @nbits: bits in @bitmap
 * @base: first slot of the range
 * @size: slots in the range, 0 for no range
 * @outcome: how the slot was found
 *
 * Searches [@base, @base + @size) and then, as stock does, the whole
 * bitmap from 0. The bit is not set: the caller does that.
 *
 * Return: the slot, or @nbits if the bitmap is full.
 */
unsigned int kfd_mp_slot_find(const unsigned long *bitmap, unsigned int nbits,
			      unsigned int base, unsigned int size,
			      enum kfd_mp_slot_outcome *outcome)
{
	unsigned int end, slot;

	if (size && base < nbits) {
		end = base + min(size, nbits - base);
		slot = find_next_zero_bit(bitmap, end, base);
		if (slot < end) {
			*outcome = KFD_MP_SLOT_HIT;
			return slot;
		}
		*outcome = KFD_MP_SLOT_COLLISION;
	} else {
		*outcome = KFD_MP_SLOT_NO_RANGE;
	}

	slot = find_first_zero_bit(bitmap, nbits);
	if (slot >= nbits) {
		*outcome = KFD_MP_SLOT_FULL;
		return nbits;
	}
	return slot;
}

/**
 * kfd_mp_slot_follow - the ID @want if it is free, else the first free one
 * @bitmap: the IDs, a set bit is taken or reserved; the caller holds its lock
 * @nbits: bits in @bitmap
 * @want: the ID asked for, e.g. the queue slot for a doorbell ID
 * @followed: set to whether @want was free
 *
 * The bit is not set: the caller does that.
 *
 * Return: the ID, or @nbits if the bitmap is full.
 */
unsigned int kfd_mp_slot_follow(const unsigned long *bitmap,
				unsigned int nbits, unsigned int want,
				bool *followed)
{
	*followed = want < nbits && !test_bit(want, bitmap);
	if (*followed)
		return want;
	return find_first_zero_bit(bitmap, nbits);
}

/**
 * kfd_mp_index_init - set up a device's process index allocator
 * @a: the allocator
 * @size: indices it hands out, at most KFD_MP_INDEX_MAX
 */
void kfd_mp_index_init(struct kfd_mp_index_alloc *a, unsigned int size)
{
	spin_lock_init(&a->lock);
	a->size = min_t(unsigned int, size, KFD_MP_INDEX_MAX);
	bitmap_zero(a->used, KFD_MP_INDEX_MAX);
}

/**
 * kfd_mp_index_get - the index of a process, taken on first use
 * @a: the device's allocator
 * @index: the process's index on the device, KFD_MP_NO_INDEX if none yet;
 *	   read and written under the allocator's lock
 *
 * Return: the index (>= 0), or -ENOSPC when every index is held.
 */
int kfd_mp_index_get(struct kfd_mp_index_alloc *a, int *index)
{
	unsigned int i;
	int ret;

	spin_lock(&a->lock);
	if (*index >= 0) {
		ret = *index;
		goto out;
	}
	i = find_first_zero_bit(a->used, a->size);
	if (i >= a->size) {
		ret = -ENOSPC;
		goto out;
	}
	__set_bit(i, a->used);
	*index = i;
	ret = i;
out:
	spin_unlock(&a->lock);
	return ret;
}

/**
 * kfd_mp_index_put - give a process's index back
 * @a: the device's allocator
 * @index: the process's index, set to KFD_MP_NO_INDEX; nothing is done
 *	   if it holds none
 */
void kfd_mp_index_put(struct kfd_mp_index_alloc *a, int *index)
{
	spin_lock(&a->lock);
	if (*index >= 0 && (unsigned int)*index < a->size)
		__clear_bit(*index, a->used);
	*index = KFD_MP_NO_INDEX;
	spin_unlock(&a->lock);
}

/**
 * kfd_mp_index_used - how many indices are held
 * @a: the allocator
 *
 * Return: the number of indices held now.
 */
unsigned int kfd_mp_index_used(struct kfd_mp_index_alloc *a)
{
	unsigned int n;

	spin_lock(&a->lock);
	n = bitmap_weight(a->used, a->size);
	spin_unlock(&a->lock);
	return n;
}

/**
 * kfd_mp_db_layout_init - slots for process doorbell pages on a BAR
 * @l: the layout to fill in
 * @aperture: bytes of the doorbell BAR (its TTM domain)
 * @reserved_end: first byte after the doorbells the kernel driver holds
 * @slice: bytes of one process's doorbells
 * @align: alignment of a slot, a power of 2 (PAGE_SIZE)
 *
 * Slot k covers [base + k x @slice, base + (k + 1) x @slice), base being
 * @reserved_end rounded up to @align; only whole slots inside @aperture
 * count. @l->nslots may be 0: then no process is placed.
 *
 * Return: 0, or -EINVAL for a zero or misaligned @slice, a bad @align or
 * @reserved_end beyond @aperture (@l then has no slots).
 */
int kfd_mp_db_layout_init(struct kfd_mp_db_layout *l, u64 aperture,
			  u64 reserved_end, u64 slice, u64 align)
{
	u64 n;

	memset(l, 0, sizeof(*l));
	if (!slice || !align || !is_power_of_2(align) ||
	    !IS_ALIGNED(slice, align) || reserved_end > aperture)
		return -EINVAL;

	l->aperture = aperture;
	l->slice = slice;
	l->base = round_up(reserved_end, align);
	if (l->base < reserved_end || l->base >= aperture) {
		/* rounding wrapped, or nothing left above the kernel's */
		l->base = aperture;
		return 0;
	}
	n = div64_u64(aperture - l->base, slice);
	l->nslots = min_t(u64, n, U32_MAX);
	return 0;
}

/**
 * kfd_mp_db_slot - the slot of a process's doorbell page
 * @l: the device's layout
 * @policy: KFD_MP_SLOT_PID or KFD_MP_SLOT_INDEX; any other has no slot
 * @pid: the process's PID, for KFD_MP_SLOT_PID: slot = @pid mod slots
 * @index: the process's index on the device, for KFD_MP_SLOT_INDEX
 * @slot: the slot, on success
 *
 * Return: 0, or -ENOENT if the process has no slot.
 */
int kfd_mp_db_slot(const struct kfd_mp_db_layout *l,
		   enum kfd_mp_slot_policy policy, pid_t pid, int index,
		   u32 *slot)
{
	return kfd_mp_slot_pick(policy, pid, index, l->nslots, slot);
}

/**
 * kfd_mp_db_slot_offset - byte offset of a slot on the doorbell BAR
 * @l: the device's layout
 * @slot: the slot
 * @offset: its first byte, on success
 *
 * Return: 0, -ERANGE for a slot beyond the last one, -EOVERFLOW if the
 * slot would not fit in the aperture (a corrupt layout).
 */
int kfd_mp_db_slot_offset(const struct kfd_mp_db_layout *l, u32 slot,
			  u64 *offset)
{
	u64 off, end;

	if (slot >= l->nslots)
		return -ERANGE;
	if (check_mul_overflow((u64)slot, l->slice, &off) ||
	    check_add_overflow(off, l->base, &off) ||
	    check_add_overflow(off, l->slice, &end) || end > l->aperture)
		return -EOVERFLOW;
	*offset = off;
	return 0;
}
