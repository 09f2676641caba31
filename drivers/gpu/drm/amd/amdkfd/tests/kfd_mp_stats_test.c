// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * KUnit tests for the multi-process scheduling statistics.
 *
 * The file under test is included so that its static tables are in reach;
 * it has no dependency on the rest of amdkfd.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/slab.h>

#include "../kfd_mp_stats.c"

static void kfd_mp_hist_bucket_edges(struct kunit *test)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, kfd_mp_hist_bucket(0), 0u);
	for (i = 1; i < KFD_MP_HIST_BUCKETS - 1; i++) {
		u64 low = 1ull << (i - 1), high = (1ull << i) - 1;

		KUNIT_EXPECT_EQ(test, kfd_mp_hist_bucket(low), i);
		KUNIT_EXPECT_EQ(test, kfd_mp_hist_bucket(high), i);
	}
	KUNIT_EXPECT_EQ(test,
			kfd_mp_hist_bucket(1ull << (KFD_MP_HIST_BUCKETS - 2)),
			KFD_MP_HIST_BUCKETS - 1);
	KUNIT_EXPECT_EQ(test, kfd_mp_hist_bucket(U64_MAX),
			KFD_MP_HIST_BUCKETS - 1);
}

struct kfd_mp_oversub_case {
	const char *name;
	struct kfd_mp_load load;
	unsigned int reasons;
};

static const struct kfd_mp_oversub_case kfd_mp_oversub_cases[] = {
	{ "fits", { 2, 8, 10, 10, 24, 0 }, 0 },
	{ "at_every_limit", { 8, 8, 24, 24, 24, 1 }, 0 },
	{ "processes", { 9, 8, 9, 9, 24, 0 }, KFD_MP_OVERSUB_PROCESSES_BIT },
	{ "no_quantum_means_one", { 2, 0, 2, 2, 24, 0 },
	  KFD_MP_OVERSUB_PROCESSES_BIT },
	{ "cp_queues", { 8, 8, 40, 40, 24, 0 }, KFD_MP_OVERSUB_QUEUES_BIT },
	{ "sdma_not_counted", { 2, 8, 60, 20, 24, 0 }, 0 },
	{ "gws", { 2, 8, 2, 2, 24, 2 }, KFD_MP_OVERSUB_GWS_BIT },
	{ "all", { 16, 8, 80, 80, 24, 3 },
	  KFD_MP_OVERSUB_PROCESSES_BIT | KFD_MP_OVERSUB_QUEUES_BIT |
	  KFD_MP_OVERSUB_GWS_BIT },
};

static void kfd_mp_oversub_case_desc(const struct kfd_mp_oversub_case *c,
				     char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kfd_mp_oversub, kfd_mp_oversub_cases,
		  kfd_mp_oversub_case_desc);

static void kfd_mp_oversub_reasons_table(struct kunit *test)
{
	const struct kfd_mp_oversub_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, kfd_mp_oversub_reasons(&c->load), c->reasons);
}

static struct kfd_mp_stats *kfd_mp_test_stats(struct kunit *test)
{
	struct kfd_mp_stats *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	kfd_mp_stats_init(st);
	return st;
}

static void kfd_mp_runlist_accounting(struct kunit *test)
{
	struct kfd_mp_stats *st = kfd_mp_test_stats(test);
	struct kfd_mp_load big = { 9, 8, 45, 40, 24, 0 };
	struct kfd_mp_load small = { 1, 8, 5, 5, 24, 0 };
	struct kfd_mp_stats_snapshot s;

	kfd_mp_stats_runlist(st, &big, kfd_mp_oversub_reasons(&big), 100,
			     false);
	kfd_mp_stats_runlist(st, &small, 0, 3, false);
	kfd_mp_stats_runlist(st, &small, 0, 0, true);
	kfd_mp_stats_read(st, &s);

	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_RUNLISTS], 2ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_RUNLIST_FAILURES], 1ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_OVERSUB_RUNLISTS], 1ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_OVERSUB_PROCESSES], 1ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_OVERSUB_QUEUES], 1ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_OVERSUB_GWS], 0ull);
	/* peaks stay at the largest load, a smaller one does not lower them */
	KUNIT_EXPECT_EQ(test, s.peaks[KFD_MP_PEAK_PROCESSES], 9ull);
	KUNIT_EXPECT_EQ(test, s.peaks[KFD_MP_PEAK_ACTIVE_QUEUES], 45ull);
	KUNIT_EXPECT_EQ(test, s.hists[KFD_MP_HIST_RUNLIST_US].count, 3ull);
	KUNIT_EXPECT_EQ(test, s.hists[KFD_MP_HIST_RUNLIST_US].total, 103ull);
	KUNIT_EXPECT_EQ(test, s.hists[KFD_MP_HIST_RUNLIST_US].max, 100ull);
	KUNIT_EXPECT_EQ(test, s.hists[KFD_MP_HIST_RUNLIST_US].buckets[0], 1ull);
	KUNIT_EXPECT_EQ(test, s.hists[KFD_MP_HIST_RUNLIST_US].buckets[2], 1ull);
	KUNIT_EXPECT_EQ(test, s.hists[KFD_MP_HIST_RUNLIST_US].buckets[7], 1ull);
}

static void kfd_mp_unmap_accounting(struct kunit *test)
{
	struct kfd_mp_stats *st = kfd_mp_test_stats(test);
	const struct kfd_mp_hist_data *h;
	struct kfd_mp_stats_snapshot s;

	kfd_mp_stats_unmap(st, 200, false);
	kfd_mp_stats_unmap(st, 9000000, true);
	kfd_mp_stats_read(st, &s);
	h = &s.hists[KFD_MP_HIST_PREEMPT_US];

	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_UNMAPS], 2ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_UNMAP_FAILURES], 1ull);
	KUNIT_EXPECT_EQ(test, h->count, 2ull);
	KUNIT_EXPECT_EQ(test, h->total, 9000200ull);
	KUNIT_EXPECT_EQ(test, h->max, 9000000ull);
	KUNIT_EXPECT_EQ(test, h->buckets[8], 1ull);	/* 128..255 */
	KUNIT_EXPECT_EQ(test, h->buckets[KFD_MP_HIST_BUCKETS - 1], 1ull);
}

static void kfd_mp_rlq_accounting(struct kunit *test)
{
	struct kfd_mp_stats *st = kfd_mp_test_stats(test);
	const struct kfd_mp_hist_data *h;
	struct kfd_mp_stats_snapshot s;

	kfd_mp_stats_rlq_cycle(st, 8, 0, true, false, false);
	kfd_mp_stats_rlq_cycle(st, 1, 0, true, true, false);
	kfd_mp_stats_rlq_cycle(st, 3, 3, true, false, true);
	kfd_mp_stats_rlq_cycle(st, 2, 2, false, false, true);	/* teardown */
	kfd_mp_stats_read(st, &s);
	h = &s.hists[KFD_MP_HIST_RLQ_BATCH];

	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_RLQ_REQUESTS], 14ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_RLQ_CYCLES], 3ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_RLQ_FLUSH_CYCLES], 1ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_RLQ_CYCLE_FAILURES], 1ull);
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_RLQ_FAILED_REQUESTS], 5ull);
	KUNIT_EXPECT_EQ(test, h->count, 3ull);
	KUNIT_EXPECT_EQ(test, h->total, 12ull);
	KUNIT_EXPECT_EQ(test, h->max, 8ull);
	KUNIT_EXPECT_EQ(test, h->buckets[1], 1ull);	/* 1 */
	KUNIT_EXPECT_EQ(test, h->buckets[2], 1ull);	/* 2..3 */
	KUNIT_EXPECT_EQ(test, h->buckets[4], 1ull);	/* 8..15 */
}

static void kfd_mp_reset_clears_everything(struct kunit *test)
{
	struct kfd_mp_stats *st = kfd_mp_test_stats(test);
	struct kfd_mp_load load = { 3, 8, 3, 3, 24, 2 };
	/* on the heap: two snapshots are too big for a kernel stack frame */
	struct kfd_mp_stats_snapshot *zero = kunit_kzalloc(test, sizeof(*zero),
							   GFP_KERNEL);
	struct kfd_mp_stats_snapshot s;
	u64 before;

	KUNIT_ASSERT_NOT_NULL(test, zero);
	kfd_mp_stats_runlist(st, &load, kfd_mp_oversub_reasons(&load), 7,
			     false);
	kfd_mp_stats_unmap(st, 5, false);
	kfd_mp_stats_add(st, KFD_MP_RUNLISTS, 4);
	kfd_mp_stats_sample(st, KFD_MP_HIST_PREEMPT_US, 1);
	kfd_mp_stats_read(st, &s);
	before = s.reset_ns;
	KUNIT_EXPECT_EQ(test, s.counters[KFD_MP_RUNLISTS], 5ull);

	kfd_mp_stats_reset(st);
	kfd_mp_stats_read(st, &s);
	KUNIT_EXPECT_GE(test, s.reset_ns, before);
	zero->reset_ns = s.reset_ns;
	KUNIT_EXPECT_MEMEQ(test, &s, zero, sizeof(s));
}

static void kfd_mp_names_complete(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < KFD_MP_NR_COUNTERS; i++)
		KUNIT_EXPECT_NOT_NULL(test, kfd_mp_counter_names[i]);
	for (i = 0; i < KFD_MP_NR_HISTS; i++)
		KUNIT_EXPECT_NOT_NULL(test, kfd_mp_hist_names[i]);
	for (i = 0; i < KFD_MP_NR_PEAKS; i++)
		KUNIT_EXPECT_NOT_NULL(test, kfd_mp_peak_names[i]);
}

static void kfd_mp_print_format(struct kunit *test)
{
	struct kfd_mp_stats *st = kfd_mp_test_stats(test);
	struct kfd_mp_load load = { 2, 8, 6, 6, 24, 0 };
	struct kfd_mp_stats_snapshot s;
	struct seq_file m = { .size = PAGE_SIZE };

	m.buf = kunit_kzalloc(test, m.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);

	kfd_mp_stats_runlist(st, &load, 0, 3, false);
	kfd_mp_stats_unmap(st, 1, false);
	kfd_mp_stats_read(st, &s);
	kfd_mp_stats_print(&m, &s, s.reset_ns + 5 * NSEC_PER_MSEC);

	KUNIT_EXPECT_FALSE(test, seq_has_overflowed(&m));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "  since_reset_ms: 5\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "  runlists: 1\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "  peak_processes: 2\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "  peak_active_queues: 6\n"));
	KUNIT_EXPECT_NOT_NULL(test,
			      strstr(m.buf, "  preempt_us_log2_hist: 0 1 0 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "  runlist_us_total: 3\n"));
}

/*
 * Writers, a resetter and a reader race; every snapshot must be
 * internally consistent (each update is one critical section) and, with
 * no reset, the totals must add up exactly, to the updates made.
 *
 * Each writer makes KFD_MP_TEST_UPDATES updates, or stops after
 * KFD_MP_TEST_SECONDS: in a QEMU TCG guest on a loaded host (four vCPUs
 * time-sliced on two cores, lockdep and KASAN on every lock) the five
 * threads on one spinlock made from 6656 to 49408 of the 80000 updates
 * in 60 s (5.10 guest), and the resetting variant once ran past KUnit's
 * 300 s. Where the writers finish in time nothing changes; the race must
 * have run (KFD_MP_TEST_MIN_UPDATES each).
 */
#define KFD_MP_TEST_THREADS	4
#define KFD_MP_TEST_UPDATES	20000
#define KFD_MP_TEST_MIN_UPDATES	256
#define KFD_MP_TEST_SECONDS	60

struct kfd_mp_race {
	struct kfd_mp_stats *st;
	atomic_t running;
	struct completion done;
	bool resetting;
	unsigned long deadline;		/* jiffies: the writers stop */
	atomic_t updates;		/* made by all writers */
	atomic_t bad_snapshots;
};

static int kfd_mp_race_writer(void *arg)
{
	struct kfd_mp_race *r = arg;
	struct kfd_mp_load load = { 9, 8, 30, 30, 24, 0 };
	unsigned int reasons = kfd_mp_oversub_reasons(&load);
	int i;

	for (i = 0; i < KFD_MP_TEST_UPDATES;) {
		kfd_mp_stats_runlist(r->st, &load, reasons, i & 1023, false);
		kfd_mp_stats_unmap(r->st, i & 15, false);
		if (!(++i & 255)) {
			if (time_after(jiffies, r->deadline))
				break;
			cond_resched();
		}
	}
	atomic_add(i, &r->updates);
	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

static bool kfd_mp_snapshot_consistent(const struct kfd_mp_stats_snapshot *s)
{
	const struct kfd_mp_hist_data *rl = &s->hists[KFD_MP_HIST_RUNLIST_US];
	u64 sum = 0;
	unsigned int b;

	for (b = 0; b < KFD_MP_HIST_BUCKETS; b++)
		sum += rl->buckets[b];
	return sum == rl->count &&
	       rl->count == s->counters[KFD_MP_RUNLISTS] &&
	       s->counters[KFD_MP_OVERSUB_RUNLISTS] ==
			s->counters[KFD_MP_RUNLISTS] &&
	       s->counters[KFD_MP_OVERSUB_PROCESSES] ==
			s->counters[KFD_MP_RUNLISTS];
}

static void kfd_mp_race_run(struct kunit *test, bool resetting)
{
	struct kfd_mp_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct kfd_mp_stats_snapshot *s;
	struct task_struct *t;
	u64 n;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	r->st = kfd_mp_test_stats(test);
	r->resetting = resetting;
	init_completion(&r->done);
	atomic_set(&r->running, KFD_MP_TEST_THREADS);
	r->deadline = jiffies + KFD_MP_TEST_SECONDS * HZ;

	for (i = 0; i < KFD_MP_TEST_THREADS; i++) {
		t = kthread_run(kfd_mp_race_writer, r, "kfd_mp_w%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	while (!completion_done(&r->done)) {
		kfd_mp_stats_read(r->st, s);
		if (!kfd_mp_snapshot_consistent(s))
			atomic_inc(&r->bad_snapshots);
		if (resetting)
			kfd_mp_stats_reset(r->st);
		cond_resched();
	}
	wait_for_completion(&r->done);

	kfd_mp_stats_read(r->st, s);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->bad_snapshots), 0);
	KUNIT_EXPECT_TRUE(test, kfd_mp_snapshot_consistent(s));
	n = atomic_read(&r->updates);
	if (n < (u64)KFD_MP_TEST_THREADS * KFD_MP_TEST_UPDATES)
		kunit_info(test, "%llu of %llu updates in %d s (a slow machine)\n",
			   n, (u64)KFD_MP_TEST_THREADS * KFD_MP_TEST_UPDATES,
			   KFD_MP_TEST_SECONDS);
	KUNIT_EXPECT_GE(test, n,
			(u64)KFD_MP_TEST_THREADS * KFD_MP_TEST_MIN_UPDATES);
	if (!resetting) {
		KUNIT_EXPECT_EQ(test, s->counters[KFD_MP_RUNLISTS], n);
		KUNIT_EXPECT_EQ(test, s->counters[KFD_MP_UNMAPS], n);
		KUNIT_EXPECT_EQ(test, s->hists[KFD_MP_HIST_PREEMPT_US].count,
				n);
	}
}

static void kfd_mp_concurrent_updates(struct kunit *test)
{
	kfd_mp_race_run(test, false);
}

static void kfd_mp_concurrent_updates_and_resets(struct kunit *test)
{
	kfd_mp_race_run(test, true);
}

static struct kunit_case kfd_mp_stats_cases[] = {
	KUNIT_CASE(kfd_mp_hist_bucket_edges),
	KUNIT_CASE_PARAM(kfd_mp_oversub_reasons_table, kfd_mp_oversub_gen_params),
	KUNIT_CASE(kfd_mp_runlist_accounting),
	KUNIT_CASE(kfd_mp_unmap_accounting),
	KUNIT_CASE(kfd_mp_rlq_accounting),
	KUNIT_CASE(kfd_mp_reset_clears_everything),
	KUNIT_CASE(kfd_mp_names_complete),
	KUNIT_CASE(kfd_mp_print_format),
	KUNIT_CASE_SLOW(kfd_mp_concurrent_updates),
	KUNIT_CASE_SLOW(kfd_mp_concurrent_updates_and_resets),
	{}
};

static struct kunit_suite kfd_mp_stats_suite = {
	.name = "amdkfd_mp_stats",
	.test_cases = kfd_mp_stats_cases,
};

kunit_test_suite(kfd_mp_stats_suite);
