// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * KUnit tests for queue-slot ranges, doorbell IDs that follow the queue
 * slot, the per-device process index and doorbell page placement.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/threads.h>

#include "../kfd_mp_slots.c"

/* As in kfd_priv.h and the doorbell code, which this module cannot use. */
#define KFD_MP_TEST_NBITS	1024	/* KFD_MAX_NUM_OF_QUEUES_PER_PROCESS */
#define KFD_MP_TEST_MIRROR	512	/* KFD_QUEUE_DOORBELL_MIRROR_OFFSET */
#define KFD_MP_TEST_RANGE	8	/* kfd_queue_slot_range default */
/* Doorbells reserved for SDMA, IH and VCN on GFX 9.4.3 (doorbell layout 1) */
#define KFD_MP_TEST_NON_CP_START 0x100
#define KFD_MP_TEST_NON_CP_END	 0x1E8

static const char * const kfd_mp_slot_policies_test[] = {
	"default", "first-fit", "pid", "index"
};

static unsigned long *kfd_mp_test_bitmap(struct kunit *test)
{
	unsigned long *b = kunit_kzalloc(test, BITS_TO_LONGS(KFD_MP_TEST_NBITS) *
					 sizeof(long), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
}

/* A process's doorbell bitmap as init_doorbell_bitmap() leaves it. */
static unsigned long *kfd_mp_test_doorbells(struct kunit *test)
{
	unsigned long *b = kfd_mp_test_bitmap(test);
	unsigned int i;

	for (i = KFD_MP_TEST_NON_CP_START; i <= KFD_MP_TEST_NON_CP_END; i++) {
		__set_bit(i, b);
		__set_bit(i + KFD_MP_TEST_MIRROR, b);
	}
	return b;
}

static unsigned int kfd_mp_test_base(struct kunit *test,
				     enum kfd_mp_slot_policy policy,
				     pid_t pid, int index, unsigned int range)
{
	unsigned int base = ~0u;

	KUNIT_EXPECT_EQ(test, kfd_mp_slot_range(policy, pid, index,
						KFD_MP_TEST_NBITS, range,
						&base), 0);
	return base;
}

static void kfd_mp_slot_range_edges(struct kunit *test)
{
	unsigned int base = 77;

	KUNIT_EXPECT_EQ(test, kfd_mp_slot_nranges(1024, 8), 128u);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_nranges(1024, 1), 1024u);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_nranges(1024, 1024), 1u);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_nranges(1024, 0), 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_nranges(1024, 2048), 0u);

	/* pid: (pid mod ranges) x range size */
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_PID, 0, -1, 8), 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_PID, 1, -1, 8), 8u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_PID, 127, -1, 8), 1016u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_PID, 128, -1, 8), 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_PID,
					       PID_MAX_LIMIT, -1, 8), 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_PID,
					       PID_MAX_LIMIT - 1, -1, 8), 1016u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_PID,
					       PID_MAX_LIMIT - 1, -1, 1), 1023u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_PID,
					       PID_MAX_LIMIT - 1, -1, 1024), 0u);
	/* the index of the process is ignored under pid */
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_PID, 3, 9, 8), 24u);

	/* index: index x range size, while ranges remain */
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_INDEX, 4242, 0, 8), 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_base(test, KFD_MP_SLOT_INDEX, 4242, 127, 8), 1016u);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_range(KFD_MP_SLOT_INDEX, 1, 128, 1024, 8,
						&base), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_range(KFD_MP_SLOT_INDEX, 1, -1, 1024, 8,
						&base), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_range(KFD_MP_SLOT_INDEX, 1, -ENOSPC,
						1024, 8, &base), -ENOENT);

	/* no range: stock policies, bad PID, range larger than the bitmap */
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_range(KFD_MP_SLOT_FIRST_FIT, 1, 1, 1024,
						8, &base), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_range(KFD_MP_SLOT_DEFAULT, 1, 1, 1024,
						8, &base), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_range(KFD_MP_SLOT_PID, -1, 1, 1024, 8,
						&base), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_range(KFD_MP_SLOT_PID, 1, 1, 1024, 2048,
						&base), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_slot_range(KFD_MP_SLOT_PID, 1, 1, 1024, 0,
						&base), -ENOENT);
	KUNIT_EXPECT_EQ(test, base, 77u);	/* untouched on failure */
}

/* Allocate @n slots for a process as the driver does, return the first. */
static unsigned int kfd_mp_test_alloc(struct kunit *test, unsigned long *b,
				      unsigned int base, unsigned int size,
				      unsigned int n,
				      enum kfd_mp_slot_outcome expect)
{
	enum kfd_mp_slot_outcome outcome;
	unsigned int i, slot, first = ~0u;

	for (i = 0; i < n; i++) {
		slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, base, size,
					&outcome);
		KUNIT_ASSERT_LT(test, slot, KFD_MP_TEST_NBITS);
		KUNIT_EXPECT_FALSE(test, test_bit(slot, b));
		KUNIT_EXPECT_EQ(test, outcome, expect);
		__set_bit(slot, b);
		if (!i)
			first = slot;
	}
	return first;
}

static void kfd_mp_slot_pids_collide(struct kunit *test)
{
	unsigned long *a = kfd_mp_test_bitmap(test);
	unsigned long *b = kfd_mp_test_bitmap(test);
	unsigned int base_a, base_b;

	/* 100 and 228 are equal modulo 128 ranges: same range under pid */
	base_a = kfd_mp_test_base(test, KFD_MP_SLOT_PID, 100, -1, 8);
	base_b = kfd_mp_test_base(test, KFD_MP_SLOT_PID, 228, -1, 8);
	KUNIT_EXPECT_EQ(test, base_a, 800u);
	KUNIT_EXPECT_EQ(test, base_a, base_b);
	/* each process has its own bitmap, so both get 800..804 */
	KUNIT_EXPECT_EQ(test, kfd_mp_test_alloc(test, a, base_a, 8, 5,
						KFD_MP_SLOT_HIT), 800u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_alloc(test, b, base_b, 8, 5,
						KFD_MP_SLOT_HIT), 800u);
	/* under index the two processes hold different indices */
	KUNIT_EXPECT_NE(test, kfd_mp_test_base(test, KFD_MP_SLOT_INDEX, 100, 0, 8),
			kfd_mp_test_base(test, KFD_MP_SLOT_INDEX, 228, 1, 8));
}

static void kfd_mp_slot_range_exhaustion(struct kunit *test)
{
	unsigned long *b = kfd_mp_test_bitmap(test);
	enum kfd_mp_slot_outcome outcome;
	unsigned int slot;

	/* the range 16..23 fills up, then first-fit from 0 */
	KUNIT_EXPECT_EQ(test, kfd_mp_test_alloc(test, b, 16, 8, 8,
						KFD_MP_SLOT_HIT), 16u);
	KUNIT_EXPECT_EQ(test, bitmap_weight(b, KFD_MP_TEST_NBITS), 8u);
	KUNIT_EXPECT_EQ(test, kfd_mp_test_alloc(test, b, 16, 8, 17,
						KFD_MP_SLOT_COLLISION), 0u);
	/* 0..15 and 24 taken now: the range slot freed first is reused */
	KUNIT_EXPECT_TRUE(test, test_bit(24, b));
	__clear_bit(19, b);
	slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, 16, 8, &outcome);
	KUNIT_EXPECT_EQ(test, slot, 19u);
	KUNIT_EXPECT_EQ(test, outcome, KFD_MP_SLOT_HIT);
	__set_bit(slot, b);

	/* the last range ends at the end of the bitmap */
	KUNIT_EXPECT_EQ(test, kfd_mp_test_alloc(test, b, 1016, 8, 8,
						KFD_MP_SLOT_HIT), 1016u);
	slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, 1016, 8, &outcome);
	KUNIT_EXPECT_EQ(test, slot, 25u);
	KUNIT_EXPECT_EQ(test, outcome, KFD_MP_SLOT_COLLISION);
	/* a range running past the end is cut, never read beyond it */
	slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, 1020, 64, &outcome);
	KUNIT_EXPECT_EQ(test, outcome, KFD_MP_SLOT_COLLISION);
	KUNIT_EXPECT_EQ(test, slot, 25u);

	/* the whole bitmap full: the same failure as stock */
	bitmap_fill(b, KFD_MP_TEST_NBITS);
	slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, 16, 8, &outcome);
	KUNIT_EXPECT_EQ(test, slot, KFD_MP_TEST_NBITS);
	KUNIT_EXPECT_EQ(test, outcome, KFD_MP_SLOT_FULL);
	slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, 0, 0, &outcome);
	KUNIT_EXPECT_EQ(test, slot, KFD_MP_TEST_NBITS);
	KUNIT_EXPECT_EQ(test, outcome, KFD_MP_SLOT_FULL);
	/* one free bit anywhere is found, whatever the range */
	__clear_bit(700, b);
	slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, 16, 8, &outcome);
	KUNIT_EXPECT_EQ(test, slot, 700u);
	KUNIT_EXPECT_EQ(test, outcome, KFD_MP_SLOT_COLLISION);
}

/* A range slot is never refused where stock first-fit would succeed. */
static void kfd_mp_slot_never_worse_than_stock(struct kunit *test)
{
	unsigned long *b = kfd_mp_test_bitmap(test);
	enum kfd_mp_slot_outcome outcome;
	unsigned int n, slot, base;

	/* 255 queues (the GFX 9.4.3 limit) in the last range: all fit */
	for (n = 0; n < 255; n++) {
		base = kfd_mp_test_base(test, KFD_MP_SLOT_INDEX, 1, 127, 8);
		slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, base, 8, &outcome);
		KUNIT_ASSERT_LT(test, slot, KFD_MP_TEST_NBITS);
		__set_bit(slot, b);
	}
	KUNIT_EXPECT_EQ(test, bitmap_weight(b, KFD_MP_TEST_NBITS), 255u);
	/* 1016..1023 then 0..246 */
	KUNIT_EXPECT_EQ(test, find_first_zero_bit(b, KFD_MP_TEST_NBITS), 247ul);
}

static void kfd_mp_slot_fallback(struct kunit *test)
{
	unsigned long *b = kfd_mp_test_bitmap(test);
	enum kfd_mp_slot_outcome outcome;
	unsigned int slot;

	__set_bit(0, b);
	__set_bit(2, b);
	/* no range (first-fit, or index out of ranges): stock's choice */
	slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, 0, 0, &outcome);
	KUNIT_EXPECT_EQ(test, slot, 1u);
	KUNIT_EXPECT_EQ(test, outcome, KFD_MP_SLOT_NO_RANGE);
	/* a base beyond the bitmap is no range either */
	slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, 4096, 8, &outcome);
	KUNIT_EXPECT_EQ(test, slot, 1u);
	KUNIT_EXPECT_EQ(test, outcome, KFD_MP_SLOT_NO_RANGE);
	/* in range: the lowest free slot of the range */
	__set_bit(40, b);
	slot = kfd_mp_slot_find(b, KFD_MP_TEST_NBITS, 40, 8, &outcome);
	KUNIT_EXPECT_EQ(test, slot, 41u);
	KUNIT_EXPECT_EQ(test, outcome, KFD_MP_SLOT_HIT);
	/* nothing was set by the search */
	KUNIT_EXPECT_EQ(test, bitmap_weight(b, KFD_MP_TEST_NBITS), 3u);
}

/*
 * CRIU restore passes the queue ID and the doorbell ID in and the driver
 * sets them without asking these functions; later allocations must work
 * around them and never hand them out again.
 */
static void kfd_mp_slot_restore_ids(struct kunit *test)
{
	unsigned long *q = kfd_mp_test_bitmap(test);
	unsigned long *db = kfd_mp_test_doorbells(test);
	enum kfd_mp_slot_outcome outcome;
	unsigned int slot, id;
	bool followed;

	/* restored queue 17 and doorbell 17, inside the range 16..23 */
	KUNIT_EXPECT_FALSE(test, __test_and_set_bit(17, q));
	KUNIT_EXPECT_FALSE(test, __test_and_set_bit(17, db));
	/* a restored ID already in use is refused by the caller */
	KUNIT_EXPECT_TRUE(test, __test_and_set_bit(17, q));

	slot = kfd_mp_slot_find(q, KFD_MP_TEST_NBITS, 16, 8, &outcome);
	KUNIT_EXPECT_EQ(test, slot, 16u);
	__set_bit(slot, q);
	slot = kfd_mp_slot_find(q, KFD_MP_TEST_NBITS, 16, 8, &outcome);
	KUNIT_EXPECT_EQ(test, slot, 18u);
	__set_bit(slot, q);
	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS, 18, &followed);
	KUNIT_EXPECT_EQ(test, id, 18u);
	KUNIT_EXPECT_TRUE(test, followed);
	/* a queue slot whose doorbell was restored to another queue */
	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS, 17, &followed);
	KUNIT_EXPECT_FALSE(test, followed);
	KUNIT_EXPECT_EQ(test, id, 0u);
}

static void kfd_mp_doorbell_follows_slot(struct kunit *test)
{
	unsigned long *db = kfd_mp_test_doorbells(test);
	unsigned int id;
	bool followed;

	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS, 5, &followed);
	KUNIT_EXPECT_EQ(test, id, 5u);
	KUNIT_EXPECT_TRUE(test, followed);
	__set_bit(id, db);
	/* taken: first-fit */
	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS, 5, &followed);
	KUNIT_EXPECT_EQ(test, id, 0u);
	KUNIT_EXPECT_FALSE(test, followed);
	/* reserved (SDMA/IH/VCN) and its mirror: first-fit */
	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS, KFD_MP_TEST_NON_CP_START,
				&followed);
	KUNIT_EXPECT_EQ(test, id, 0u);
	KUNIT_EXPECT_FALSE(test, followed);
	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS,
				KFD_MP_TEST_NON_CP_END + KFD_MP_TEST_MIRROR,
				&followed);
	KUNIT_EXPECT_EQ(test, id, 0u);
	KUNIT_EXPECT_FALSE(test, followed);
	/* just outside the reserved range and the mirror */
	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS,
				KFD_MP_TEST_NON_CP_START - 1, &followed);
	KUNIT_EXPECT_EQ(test, id, (unsigned int)KFD_MP_TEST_NON_CP_START - 1);
	KUNIT_EXPECT_TRUE(test, followed);
	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS,
				KFD_MP_TEST_NON_CP_END + KFD_MP_TEST_MIRROR + 1,
				&followed);
	KUNIT_EXPECT_EQ(test, id, (unsigned int)KFD_MP_TEST_NON_CP_END +
			KFD_MP_TEST_MIRROR + 1);
	KUNIT_EXPECT_TRUE(test, followed);
	/* out of the bitmap: first-fit */
	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS, KFD_MP_TEST_NBITS,
				&followed);
	KUNIT_EXPECT_EQ(test, id, 0u);
	KUNIT_EXPECT_FALSE(test, followed);
	/* full: nbits, as stock's find_first_zero_bit() */
	bitmap_fill(db, KFD_MP_TEST_NBITS);
	id = kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS, 5, &followed);
	KUNIT_EXPECT_EQ(test, id, KFD_MP_TEST_NBITS);
	KUNIT_EXPECT_FALSE(test, followed);
}

static void kfd_mp_index_reuse(struct kunit *test)
{
	struct kfd_mp_index_alloc *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	int p[6] = { -1, -1, -1, -1, -1, -1 };
	int i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	kfd_mp_index_init(a, 4);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, kfd_mp_index_get(a, &p[i]), i);
	/* a process keeps its index */
	KUNIT_EXPECT_EQ(test, kfd_mp_index_get(a, &p[2]), 2);
	/* exhausted: refused, the holder stays without one */
	KUNIT_EXPECT_EQ(test, kfd_mp_index_get(a, &p[4]), -ENOSPC);
	KUNIT_EXPECT_EQ(test, p[4], KFD_MP_NO_INDEX);
	KUNIT_EXPECT_EQ(test, kfd_mp_index_used(a), 4u);
	/* released: the lowest free index is taken next */
	kfd_mp_index_put(a, &p[1]);
	kfd_mp_index_put(a, &p[3]);
	KUNIT_EXPECT_EQ(test, p[1], KFD_MP_NO_INDEX);
	KUNIT_EXPECT_EQ(test, kfd_mp_index_used(a), 2u);
	KUNIT_EXPECT_EQ(test, kfd_mp_index_get(a, &p[4]), 1);
	KUNIT_EXPECT_EQ(test, kfd_mp_index_get(a, &p[5]), 3);
	/* giving back no index, or twice, changes nothing */
	kfd_mp_index_put(a, &p[1]);
	kfd_mp_index_put(a, &p[1]);
	KUNIT_EXPECT_EQ(test, kfd_mp_index_used(a), 4u);
	/* the size is capped */
	kfd_mp_index_init(a, KFD_MP_INDEX_MAX + 1);
	KUNIT_EXPECT_EQ(test, a->size, (unsigned int)KFD_MP_INDEX_MAX);
}

/*
 * Many threads at once: processes taking and giving back indices on one
 * device, and queues of one process taking slots under the process lock
 * as pqm_create_queue() does. No ID may be held twice.
 */
#define KFD_MP_TEST_THREADS	8
#define KFD_MP_TEST_ROUNDS	2000
#define KFD_MP_TEST_SLOTS	100	/* per thread; 800 of the 1024 */

struct kfd_mp_slots_race {
	struct kfd_mp_index_alloc index;
	atomic_t owner[KFD_MP_INDEX_MAX];
	atomic_t duplicates;
	atomic_t failures;
	struct mutex lock;		/* the process lock, protects bitmap */
	unsigned long bitmap[BITS_TO_LONGS(KFD_MP_TEST_NBITS)];
	unsigned int slots[KFD_MP_TEST_THREADS][KFD_MP_TEST_SLOTS];
	atomic_t running;
	struct completion done;
};

struct kfd_mp_slots_thread {
	struct kfd_mp_slots_race *r;
	int id;
};

static int kfd_mp_index_thread(void *arg)
{
	struct kfd_mp_slots_thread *t = arg;
	struct kfd_mp_slots_race *r = t->r;
	int i, idx = KFD_MP_NO_INDEX;

	for (i = 0; i < KFD_MP_TEST_ROUNDS; i++) {
		if (kfd_mp_index_get(&r->index, &idx) < 0) {
			atomic_inc(&r->failures);
			continue;
		}
		if (atomic_cmpxchg(&r->owner[idx], 0, t->id + 1))
			atomic_inc(&r->duplicates);
		if (!(i & 7))
			cond_resched();
		atomic_set(&r->owner[idx], 0);
		kfd_mp_index_put(&r->index, &idx);
	}
	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

static int kfd_mp_slot_thread(void *arg)
{
	struct kfd_mp_slots_thread *t = arg;
	struct kfd_mp_slots_race *r = t->r;
	enum kfd_mp_slot_outcome outcome;
	unsigned int i, slot;

	for (i = 0; i < KFD_MP_TEST_SLOTS; i++) {
		mutex_lock(&r->lock);
		slot = kfd_mp_slot_find(r->bitmap, KFD_MP_TEST_NBITS,
					t->id * 2 * KFD_MP_TEST_RANGE,
					KFD_MP_TEST_RANGE, &outcome);
		if (slot < KFD_MP_TEST_NBITS)
			__set_bit(slot, r->bitmap);
		mutex_unlock(&r->lock);
		r->slots[t->id][i] = slot;
		if (!(i & 7))
			cond_resched();
	}
	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

static struct kfd_mp_slots_race *kfd_mp_race_start(struct kunit *test,
						   int (*fn)(void *))
{
	struct kfd_mp_slots_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct kfd_mp_slots_thread *t;
	struct task_struct *task;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	t = kunit_kcalloc(test, KFD_MP_TEST_THREADS, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	kfd_mp_index_init(&r->index, KFD_MP_TEST_THREADS);
	mutex_init(&r->lock);
	init_completion(&r->done);
	atomic_set(&r->running, KFD_MP_TEST_THREADS);
	for (i = 0; i < KFD_MP_TEST_THREADS; i++) {
		t[i].r = r;
		t[i].id = i;
		task = kthread_run(fn, &t[i], "kfd_mp_s%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	wait_for_completion(&r->done);
	return r;
}

static void kfd_mp_index_concurrent(struct kunit *test)
{
	struct kfd_mp_slots_race *r = kfd_mp_race_start(test,
							kfd_mp_index_thread);

	KUNIT_EXPECT_EQ(test, atomic_read(&r->duplicates), 0);
	/* as many indices as threads: nobody is ever refused */
	KUNIT_EXPECT_EQ(test, atomic_read(&r->failures), 0);
	KUNIT_EXPECT_EQ(test, kfd_mp_index_used(&r->index), 0u);
}

static void kfd_mp_slot_concurrent(struct kunit *test)
{
	struct kfd_mp_slots_race *r = kfd_mp_race_start(test,
							kfd_mp_slot_thread);
	unsigned long *seen = kfd_mp_test_bitmap(test);
	unsigned int i, j, slot, hits = 0;

	for (i = 0; i < KFD_MP_TEST_THREADS; i++) {
		for (j = 0; j < KFD_MP_TEST_SLOTS; j++) {
			slot = r->slots[i][j];
			KUNIT_ASSERT_LT(test, slot, KFD_MP_TEST_NBITS);
			KUNIT_EXPECT_FALSE(test, __test_and_set_bit(slot, seen));
			if (slot / KFD_MP_TEST_RANGE == i * 2)
				hits++;
		}
	}
	KUNIT_EXPECT_TRUE(test, bitmap_equal(seen, r->bitmap,
					     KFD_MP_TEST_NBITS));
	KUNIT_EXPECT_EQ(test, bitmap_weight(seen, KFD_MP_TEST_NBITS),
			KFD_MP_TEST_THREADS * KFD_MP_TEST_SLOTS);
	/* other threads' fallbacks may take part of a range first */
	KUNIT_EXPECT_LE(test, hits, KFD_MP_TEST_THREADS * KFD_MP_TEST_RANGE);
	kunit_info(test, "%u of %u slots in the thread's range\n", hits,
		   KFD_MP_TEST_THREADS * KFD_MP_TEST_SLOTS);
}

/* The doorbell ID a compute queue in @slot gets, as kfd_mp_doorbell_id(). */
static unsigned int kfd_mp_test_doorbell_id(const unsigned long *db,
					    enum kfd_mp_slot_policy policy,
					    unsigned int slot)
{
	bool followed;

	if (policy != KFD_MP_SLOT_PID && policy != KFD_MP_SLOT_INDEX)
		return find_first_zero_bit(db, KFD_MP_TEST_NBITS);
	return kfd_mp_slot_follow(db, KFD_MP_TEST_NBITS, slot, &followed);
}

/*
 * The figures for the commit message: 8 default HIP processes (5 queues
 * each) on one device, queue IDs and doorbell IDs; the doorbell's byte
 * offset in the process's doorbell page is ID x 8 (SOC15 doorbells).
 */
static void kfd_mp_slots_eight_processes(struct kunit *test)
{
	static const pid_t pids[8] = { 4242, 4243, 4370, 5001, 5002, 7800,
				       31000, 4194303 };
	enum kfd_mp_slot_policy policy;
	unsigned int p, i, base, size;
	char line[160];
	int len;

	for (policy = KFD_MP_SLOT_FIRST_FIT; policy <= KFD_MP_SLOT_INDEX;
	     policy++) {
		unsigned long *seen = kfd_mp_test_bitmap(test);
		unsigned int distinct = 0;

		for (p = 0; p < 8; p++) {
			unsigned long *q = kfd_mp_test_bitmap(test);
			unsigned long *db = kfd_mp_test_doorbells(test);
			enum kfd_mp_slot_outcome outcome;
			unsigned int slot, id;

			size = 0;
			base = 0;
			if (!kfd_mp_slot_range(policy, pids[p], p,
					       KFD_MP_TEST_NBITS,
					       KFD_MP_TEST_RANGE, &base))
				size = KFD_MP_TEST_RANGE;
			len = scnprintf(line, sizeof(line), "%-9s pid %7d:",
					kfd_mp_slot_policies_test[policy],
					pids[p]);
			for (i = 0; i < 5; i++) {
				slot = kfd_mp_slot_find(q, KFD_MP_TEST_NBITS,
							base, size, &outcome);
				KUNIT_ASSERT_LT(test, slot, KFD_MP_TEST_NBITS);
				__set_bit(slot, q);
				id = kfd_mp_test_doorbell_id(db, policy, slot);
				KUNIT_ASSERT_LT(test, id, KFD_MP_TEST_NBITS);
				__set_bit(id, db);
				if (!__test_and_set_bit(id, seen))
					distinct++;
				/* index: ranges 0..7, clear of reserved IDs */
				if (policy == KFD_MP_SLOT_INDEX) {
					KUNIT_EXPECT_EQ(test, slot, p * 8 + i);
					KUNIT_EXPECT_EQ(test, id, slot);
				}
				len += scnprintf(line + len, sizeof(line) - len,
						 " q%u/db%u@0x%x", slot, id, id * 8);
			}
			kunit_info(test, "%s\n", line);
		}
		/* doorbell IDs in use by any of the 8 processes */
		kunit_info(test, "%s: %u distinct doorbell IDs\n",
			   kfd_mp_slot_policies_test[policy], distinct);
		if (policy == KFD_MP_SLOT_INDEX)
			KUNIT_EXPECT_EQ(test, distinct, 40u);
		if (policy == KFD_MP_SLOT_FIRST_FIT)
			KUNIT_EXPECT_EQ(test, distinct, 5u);
	}
}

/* Doorbell page placement, with the sizes of a GFX 9.4.3 device without MES */
#define KFD_MP_TEST_PAGE	4096ull
#define KFD_MP_TEST_BAR		(8ull << 20)	/* doorbell BAR */
#define KFD_MP_TEST_KERNEL_END	16384ull	/* kernel doorbells + KFD page */
#define KFD_MP_TEST_SLICE	8192ull		/* 1024 doorbells of 8 bytes */

static void kfd_mp_db_layout_arith(struct kunit *test)
{
	struct kfd_mp_db_layout l;
	u64 off;

	KUNIT_ASSERT_EQ(test, kfd_mp_db_layout_init(&l, KFD_MP_TEST_BAR,
						    KFD_MP_TEST_KERNEL_END,
						    KFD_MP_TEST_SLICE,
						    KFD_MP_TEST_PAGE), 0);
	KUNIT_EXPECT_EQ(test, l.base, 16384ull);
	KUNIT_EXPECT_EQ(test, l.nslots, 1022u);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot_offset(&l, 0, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 16384ull);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot_offset(&l, 1021, &off), 0);
	KUNIT_EXPECT_EQ(test, off + KFD_MP_TEST_SLICE, KFD_MP_TEST_BAR);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot_offset(&l, 1022, &off), -ERANGE);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot_offset(&l, U32_MAX, &off), -ERANGE);

	/* the kernel's doorbells end inside a page: the next page */
	KUNIT_ASSERT_EQ(test, kfd_mp_db_layout_init(&l, KFD_MP_TEST_BAR, 12289,
						    KFD_MP_TEST_SLICE,
						    KFD_MP_TEST_PAGE), 0);
	KUNIT_EXPECT_EQ(test, l.base, 16384ull);
	/* a BAR that ends inside a slot: only whole slots */
	KUNIT_ASSERT_EQ(test, kfd_mp_db_layout_init(&l, KFD_MP_TEST_BAR + 4096,
						    KFD_MP_TEST_KERNEL_END,
						    KFD_MP_TEST_SLICE,
						    KFD_MP_TEST_PAGE), 0);
	KUNIT_EXPECT_EQ(test, l.nslots, 1022u);
	/* nothing, or less than a slice, above the kernel's doorbells */
	KUNIT_EXPECT_EQ(test, kfd_mp_db_layout_init(&l, 16384, 16384, 8192,
						    4096), 0);
	KUNIT_EXPECT_EQ(test, l.nslots, 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_layout_init(&l, 20480, 16384, 8192,
						    4096), 0);
	KUNIT_EXPECT_EQ(test, l.nslots, 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot_offset(&l, 0, &off), -ERANGE);

	/* bad sizes: refused, and no slots */
	KUNIT_EXPECT_EQ(test, kfd_mp_db_layout_init(&l, KFD_MP_TEST_BAR, 0, 0,
						    4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, l.nslots, 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_layout_init(&l, KFD_MP_TEST_BAR, 0, 6000,
						    4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_layout_init(&l, KFD_MP_TEST_BAR, 0, 8192,
						    0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_layout_init(&l, KFD_MP_TEST_BAR, 0, 8192,
						    3), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_layout_init(&l, 4096, 8192, 8192,
						    4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, l.nslots, 0u);

	/* overflow: rounding up wraps, a huge BAR, a corrupt layout */
	KUNIT_EXPECT_EQ(test, kfd_mp_db_layout_init(&l, U64_MAX, U64_MAX - 100,
						    8192, 4096), 0);
	KUNIT_EXPECT_EQ(test, l.nslots, 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_layout_init(&l, U64_MAX, 0, 4096, 4096),
			0);
	KUNIT_EXPECT_EQ(test, l.nslots, U32_MAX);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot_offset(&l, U32_MAX - 1, &off), 0);
	KUNIT_EXPECT_EQ(test, off, (u64)(U32_MAX - 1) * 4096);
	l.slice = 1ull << 40;
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot_offset(&l, 1u << 24, &off),
			-EOVERFLOW);
	l = (struct kfd_mp_db_layout){ .aperture = 16384, .base = 0,
				       .slice = 8192, .nslots = 5 };
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot_offset(&l, 1, &off), 0);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot_offset(&l, 2, &off), -EOVERFLOW);
}

static void kfd_mp_db_slot_choice(struct kunit *test)
{
	struct kfd_mp_db_layout l, none = {};
	u32 slot = 7;

	KUNIT_ASSERT_EQ(test, kfd_mp_db_layout_init(&l, KFD_MP_TEST_BAR,
						    KFD_MP_TEST_KERNEL_END,
						    KFD_MP_TEST_SLICE,
						    KFD_MP_TEST_PAGE), 0);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_PID, 0, -1, &slot), 0);
	KUNIT_EXPECT_EQ(test, slot, 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_PID, 1, -1, &slot), 0);
	KUNIT_EXPECT_EQ(test, slot, 1u);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_PID, 1022, -1,
					     &slot), 0);
	KUNIT_EXPECT_EQ(test, slot, 0u);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_PID, PID_MAX_LIMIT,
					     -1, &slot), 0);
	KUNIT_EXPECT_EQ(test, slot, (u32)(PID_MAX_LIMIT % 1022));
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_INDEX, 5, 1021,
					     &slot), 0);
	KUNIT_EXPECT_EQ(test, slot, 1021u);
	slot = 7;
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_INDEX, 5, 1022,
					     &slot), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_INDEX, 5, -1,
					     &slot), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_PID, -1, 0, &slot),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_FIRST_FIT, 5, 0,
					     &slot), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&l, KFD_MP_SLOT_DEFAULT, 5, 0,
					     &slot), -ENOENT);
	/* MES, or no room: no slot under any policy */
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&none, KFD_MP_SLOT_PID, 5, 0,
					     &slot), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_slot(&none, KFD_MP_SLOT_INDEX, 5, 0,
					     &slot), -ENOENT);
	KUNIT_EXPECT_EQ(test, slot, 7u);
}

/*
 * The steps amdgpu_bo_create_kernel_pref() takes with a doorbell page that
 * first-fit placed, as the model of the doorbell BAR below follows them:
 * keep it if it is at its slot, stay at first-fit if the slot overlaps it,
 * else try to move it there before it is pinned.
 */
enum kfd_mp_db_step {
	KFD_MP_DB_KEEP_PLACED,
	KFD_MP_DB_TRY_MOVE,
	KFD_MP_DB_KEEP_FALLBACK,
};

static enum kfd_mp_db_step kfd_mp_db_step(u64 placed, u64 target, u64 slice)
{
	if (placed == target)
		return KFD_MP_DB_KEEP_PLACED;
	if (placed < target + slice && target < placed + slice)
		return KFD_MP_DB_KEEP_FALLBACK;
	return KFD_MP_DB_TRY_MOVE;
}

static void kfd_mp_db_fallback_decision(struct kunit *test)
{
	const u64 s = KFD_MP_TEST_SLICE, p = KFD_MP_TEST_PAGE, at = 65536;

	KUNIT_EXPECT_EQ(test, kfd_mp_db_step(at, at, s), KFD_MP_DB_KEEP_PLACED);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_step(at, at + s, s), KFD_MP_DB_TRY_MOVE);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_step(at, at - s, s), KFD_MP_DB_TRY_MOVE);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_step(at, 0, s), KFD_MP_DB_TRY_MOVE);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_step(at, at + p, s),
			KFD_MP_DB_KEEP_FALLBACK);
	KUNIT_EXPECT_EQ(test, kfd_mp_db_step(at, at - p, s),
			KFD_MP_DB_KEEP_FALLBACK);
}

/*
 * A model of the doorbell BAR as TTM's range manager sees it: pages,
 * first-fit allocation, and an allocation restricted to a range that
 * never evicts (TTM_PL_FLAG_DESIRED). Processes come and go; the driver's
 * steps place their pages. Whatever the policy, live pages must never
 * overlap, never touch the kernel's doorbells and never leave the BAR,
 * and a page must be placed whenever first-fit finds room.
 */
#define KFD_MP_TEST_MPAGES	64	/* a 256 KiB BAR */
#define KFD_MP_TEST_MKERNEL	3	/* pages the kernel's doorbells hold */
#define KFD_MP_TEST_MPROCS	40	/* more than the 30 slots */

struct kfd_mp_db_model {
	DECLARE_BITMAP(pages, KFD_MP_TEST_MPAGES);
	struct kfd_mp_db_layout l;
	struct kfd_mp_index_alloc index;
	bool live[KFD_MP_TEST_MPROCS];
	int idx[KFD_MP_TEST_MPROCS];
	u64 off[KFD_MP_TEST_MPROCS];
	unsigned int placed, fallbacks;
};

static bool kfd_mp_model_free(struct kfd_mp_db_model *m, u64 off)
{
	unsigned int pg = off / KFD_MP_TEST_PAGE, n = KFD_MP_TEST_SLICE /
						      KFD_MP_TEST_PAGE;

	return pg + n <= KFD_MP_TEST_MPAGES &&
	       find_next_bit(m->pages, pg + n, pg) >= pg + n;
}

static void kfd_mp_model_set(struct kfd_mp_db_model *m, u64 off, bool on)
{
	unsigned int n = KFD_MP_TEST_SLICE / KFD_MP_TEST_PAGE;

	if (on)
		bitmap_set(m->pages, off / KFD_MP_TEST_PAGE, n);
	else
		bitmap_clear(m->pages, off / KFD_MP_TEST_PAGE, n);
}

static bool kfd_mp_model_arrive(struct kfd_mp_db_model *m,
				enum kfd_mp_slot_policy policy, int p, pid_t pid)
{
	u64 off, target;
	bool placed = false;
	u32 slot;

	/* stock: first-fit */
	for (off = 0; off < KFD_MP_TEST_MPAGES * KFD_MP_TEST_PAGE;
	     off += KFD_MP_TEST_PAGE)
		if (kfd_mp_model_free(m, off))
			break;
	if (!kfd_mp_model_free(m, off))
		return false;
	kfd_mp_model_set(m, off, true);

	if (policy == KFD_MP_SLOT_INDEX)
		kfd_mp_index_get(&m->index, &m->idx[p]);
	if (!kfd_mp_db_slot(&m->l, policy, pid, m->idx[p], &slot) &&
	    !kfd_mp_db_slot_offset(&m->l, slot, &target)) {
		switch (kfd_mp_db_step(off, target, m->l.slice)) {
		case KFD_MP_DB_KEEP_PLACED:
			placed = true;
			break;
		case KFD_MP_DB_TRY_MOVE:
			if (kfd_mp_model_free(m, target)) {
				kfd_mp_model_set(m, target, true);
				kfd_mp_model_set(m, off, false);
				off = target;
				placed = true;
			}
			break;
		case KFD_MP_DB_KEEP_FALLBACK:
			break;
		}
	}
	/* as the driver counts: every allocation under pid or index */
	if (placed)
		m->placed++;
	else if (policy == KFD_MP_SLOT_PID || policy == KFD_MP_SLOT_INDEX)
		m->fallbacks++;
	m->off[p] = off;
	m->live[p] = true;
	return true;
}

/* Live pages inside the BAR, above the kernel's, two by two disjoint. */
static void kfd_mp_model_check(struct kunit *test, struct kfd_mp_db_model *m)
{
	const u64 bar = KFD_MP_TEST_MPAGES * KFD_MP_TEST_PAGE;
	const u64 kend = KFD_MP_TEST_MKERNEL * KFD_MP_TEST_PAGE;
	const u64 s = KFD_MP_TEST_SLICE;
	int i, j;

	for (i = 0; i < KFD_MP_TEST_MPROCS; i++) {
		if (!m->live[i])
			continue;
		KUNIT_EXPECT_GE(test, m->off[i], kend);
		KUNIT_EXPECT_LE(test, m->off[i] + s, bar);
		for (j = i + 1; j < KFD_MP_TEST_MPROCS; j++) {
			if (!m->live[j])
				continue;
			KUNIT_EXPECT_TRUE(test, m->off[i] + s <= m->off[j] ||
					  m->off[j] + s <= m->off[i]);
		}
	}
}

static void kfd_mp_db_never_overlap(struct kunit *test)
{
	struct kfd_mp_db_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	enum kfd_mp_slot_policy policy;
	const u64 bar = KFD_MP_TEST_MPAGES * KFD_MP_TEST_PAGE;
	const u64 kend = KFD_MP_TEST_MKERNEL * KFD_MP_TEST_PAGE;
	u32 rnd = 12345;
	int p, op;

	KUNIT_ASSERT_NOT_NULL(test, m);
	for (policy = KFD_MP_SLOT_FIRST_FIT; policy <= KFD_MP_SLOT_INDEX;
	     policy++) {
		memset(m, 0, sizeof(*m));
		KUNIT_ASSERT_EQ(test, kfd_mp_db_layout_init(&m->l, bar, kend,
							    KFD_MP_TEST_SLICE,
							    KFD_MP_TEST_PAGE), 0);
		KUNIT_ASSERT_EQ(test, m->l.nslots, 30u);
		kfd_mp_index_init(&m->index, KFD_MP_INDEX_MAX);
		bitmap_set(m->pages, 0, KFD_MP_TEST_MKERNEL);
		for (p = 0; p < KFD_MP_TEST_MPROCS; p++)
			m->idx[p] = KFD_MP_NO_INDEX;

		for (op = 0; op < 4000; op++) {
			rnd = rnd * 1103515245 + 12345;
			p = (rnd >> 16) % KFD_MP_TEST_MPROCS;
			if (m->live[p]) {
				kfd_mp_model_set(m, m->off[p], false);
				kfd_mp_index_put(&m->index, &m->idx[p]);
				m->live[p] = false;
				continue;
			}
			/* refused only when first-fit finds no room */
			if (!kfd_mp_model_arrive(m, policy, p, rnd % 100000))
				KUNIT_EXPECT_EQ(test, m->live[p], false);
			kfd_mp_model_check(test, m);
		}
		kunit_info(test, "%s: %u placed, %u fallbacks\n",
			   kfd_mp_slot_policies_test[policy], m->placed,
			   m->fallbacks);
		if (policy == KFD_MP_SLOT_FIRST_FIT)
			KUNIT_EXPECT_EQ(test, m->placed + m->fallbacks, 0u);
		else
			KUNIT_EXPECT_GT(test, m->placed, 0u);
	}
}

/* The figures for the commit message: doorbell pages of 8 processes. */
static void kfd_mp_db_eight_processes(struct kunit *test)
{
	static const pid_t pids[8] = { 4242, 4243, 4370, 5001, 5002, 7800,
				       31000, 4194303 };
	struct kfd_mp_db_layout l;
	enum kfd_mp_slot_policy policy;
	u64 off;
	u32 slot;
	int p;

	KUNIT_ASSERT_EQ(test, kfd_mp_db_layout_init(&l, KFD_MP_TEST_BAR,
						    KFD_MP_TEST_KERNEL_END,
						    KFD_MP_TEST_SLICE,
						    KFD_MP_TEST_PAGE), 0);
	for (policy = KFD_MP_SLOT_PID; policy <= KFD_MP_SLOT_INDEX; policy++) {
		for (p = 0; p < 8; p++) {
			KUNIT_ASSERT_EQ(test, kfd_mp_db_slot(&l, policy, pids[p],
							     p, &slot), 0);
			KUNIT_ASSERT_EQ(test, kfd_mp_db_slot_offset(&l, slot,
								    &off), 0);
			if (policy == KFD_MP_SLOT_INDEX)
				KUNIT_EXPECT_EQ(test, off, 16384ull + p * 8192);
			kunit_info(test, "%-5s pid %7d: slot %4u page 0x%06llx\n",
				   kfd_mp_slot_policies_test[policy], pids[p],
				   slot, off);
		}
	}
}

static struct kunit_case kfd_mp_slots_cases[] = {
	KUNIT_CASE(kfd_mp_slot_range_edges),
	KUNIT_CASE(kfd_mp_slot_pids_collide),
	KUNIT_CASE(kfd_mp_slot_range_exhaustion),
	KUNIT_CASE(kfd_mp_slot_never_worse_than_stock),
	KUNIT_CASE(kfd_mp_slot_fallback),
	KUNIT_CASE(kfd_mp_slot_restore_ids),
	KUNIT_CASE(kfd_mp_doorbell_follows_slot),
	KUNIT_CASE(kfd_mp_index_reuse),
	KUNIT_CASE_SLOW(kfd_mp_index_concurrent),
	KUNIT_CASE_SLOW(kfd_mp_slot_concurrent),
	KUNIT_CASE(kfd_mp_slots_eight_processes),
	KUNIT_CASE(kfd_mp_db_layout_arith),
	KUNIT_CASE(kfd_mp_db_slot_choice),
	KUNIT_CASE(kfd_mp_db_fallback_decision),
	KUNIT_CASE_SLOW(kfd_mp_db_never_overlap),
	KUNIT_CASE(kfd_mp_db_eight_processes),
	{}
};

static struct kunit_suite kfd_mp_slots_suite = {
	.name = "amdkfd_mp_slots",
	.test_cases = kfd_mp_slots_cases,
};

kunit_test_suite(kfd_mp_slots_suite);
