// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * KUnit tests for the queued runlist, against a fake HWS whose cycles
 * take a configurable time and fail on request.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "../kfd_mp_rlq.c"

/* The fake device queue manager: its lock, its HWS and what they saw. */
struct fake_hws {
	struct kfd_mp_rlq q;
	struct mutex lock;		/* the owner lock, dqm_lock */
	unsigned int cycle_us;		/* emulated preemption + runlist */
	unsigned int fail_every;	/* cycle N fails if N % fail_every == 0 */
	unsigned int threads;
	unsigned int per_thread;
	/* under lock */
	bool in_cycle;
	u64 cycles;
	u64 served;
	u64 failed;
	u64 flushes;
	unsigned int max_batch;
	unsigned int changes;		/* changes recorded by callers */
	unsigned int changes_seen;	/* changes the last cycle saw */
	int *cycle_result;		/* by cycle number */
	unsigned int max_cycles;
	u8 *seen;			/* per request: times served */
	int *last_seq;			/* per thread: last seq served */
	/* errors found */
	atomic_t overlaps;
	atomic_t dups;
	atomic_t order_errors;
	atomic_t result_errors;
	atomic_t completes;
	atomic_t thread_failures;
	atomic_t running;
	struct completion go;
	struct completion done;
	struct completion left;		/* the leaver thread is gone */
};

struct fake_req {
	struct kfd_mp_rlq_req req;
	struct fake_hws *h;
	unsigned int thread;
	unsigned int seq;
	int apply_ret;
	int completed_result;
};

static struct fake_hws *to_fake(struct kfd_mp_rlq *q)
{
	return container_of(q, struct fake_hws, q);
}

static void fake_lock(struct kfd_mp_rlq *q)
{
	mutex_lock(&to_fake(q)->lock);
}

static void fake_unlock(struct kfd_mp_rlq *q)
{
	mutex_unlock(&to_fake(q)->lock);
}

static int fake_apply(struct kfd_mp_rlq_req *req, int err)
{
	struct fake_req *fr = container_of(req, struct fake_req, req);

	lockdep_assert_held(&fr->h->lock);
	return err ? err : fr->apply_ret;
}

static void fake_complete(struct kfd_mp_rlq_req *req)
{
	struct fake_req *fr = container_of(req, struct fake_req, req);

	lockdep_assert_held(&fr->h->lock);
	fr->completed_result = req->result;
	atomic_inc(&fr->h->completes);
}

/*
 * The fence wait of unmap_queues_cpsch(): other callers run meanwhile.
 * Needs high-resolution timers (see .kunitconfig) to last microseconds.
 */
static void fake_hws_wait(unsigned int us)
{
	fsleep(us);
}

static int fake_cycle(struct kfd_mp_rlq *q, struct list_head *batch,
		      unsigned int n)
{
	struct fake_hws *h = to_fake(q);
	struct kfd_mp_rlq_req *req;
	unsigned int count = 0;
	int ret = 0;

	lockdep_assert_held(&h->lock);
	if (h->in_cycle)
		atomic_inc(&h->overlaps);
	h->in_cycle = true;
	h->cycles++;
	if (h->cycle_us)
		fake_hws_wait(h->cycle_us);
	if (h->fail_every && !(h->cycles % h->fail_every))
		ret = -ETIME;

	kfd_mp_rlq_apply(q, batch, ret);
	list_for_each_entry(req, batch, node) {
		struct fake_req *fr = container_of(req, struct fake_req, req);

		count++;
		if (!h->seen)
			continue;
		if (h->seen[fr->thread * h->per_thread + fr->seq]++)
			atomic_inc(&h->dups);
		if (fr->seq != h->last_seq[fr->thread] + 1)
			atomic_inc(&h->order_errors);
		h->last_seq[fr->thread] = fr->seq;
	}
	if (count != n)
		atomic_inc(&h->order_errors);
	h->served += n;
	h->max_batch = max(h->max_batch, n);
	h->changes_seen = h->changes;
	if (ret)
		h->failed += n;
	if (h->cycle_result && h->cycles < h->max_cycles)
		h->cycle_result[h->cycles] = ret;
	h->in_cycle = false;
	return ret;
}

static void fake_account(struct kfd_mp_rlq *q,
			 const struct kfd_mp_rlq_cycle_info *info,
			 struct list_head *batch)
{
	struct fake_hws *h = to_fake(q);

	lockdep_assert_held(&h->lock);
	if (info->flush)
		h->flushes++;
}

static const struct kfd_mp_rlq_ops fake_ops = {
	.lock = fake_lock,
	.unlock = fake_unlock,
	.cycle = fake_cycle,
	.account = fake_account,
};

static struct fake_hws *fake_hws_new(struct kunit *test, unsigned int threads,
				     unsigned int per_thread)
{
	struct fake_hws *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, h);
	mutex_init(&h->lock);
	kfd_mp_rlq_init(&h->q, &fake_ops);
	h->threads = threads;
	h->per_thread = per_thread;
	h->max_cycles = threads * per_thread + 16;
	h->cycle_result = kunit_kcalloc(test, h->max_cycles, sizeof(int),
					GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h->cycle_result);
	if (threads) {
		h->seen = kunit_kzalloc(test, threads * per_thread, GFP_KERNEL);
		h->last_seq = kunit_kcalloc(test, threads, sizeof(int),
					    GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, h->seen);
		KUNIT_ASSERT_NOT_NULL(test, h->last_seq);
		for (i = 0; i < threads; i++)
			h->last_seq[i] = -1;
	}
	init_completion(&h->go);
	init_completion(&h->done);
	init_completion(&h->left);
	return h;
}

/* one caller: record a change, submit it, check what came back */
static int fake_change(struct fake_hws *h, struct fake_req *fr)
{
	int ret;

	fr->h = h;
	fr->completed_result = 1;
	fr->req.apply = fake_apply;
	fr->req.complete = fake_complete;
	kfd_mp_rlq_lock(&h->q);
	h->changes++;
	ret = kfd_mp_rlq_submit_unlock_wait(&h->q, &fr->req);

	if (!fr->req.served || ret != fr->req.result ||
	    fr->completed_result != ret)
		atomic_inc(&h->result_errors);
	if (fr->req.cycle &&
	    (fr->req.cycle >= h->max_cycles ||
	     ret != (h->cycle_result[fr->req.cycle] ?: fr->apply_ret)))
		atomic_inc(&h->result_errors);
	return ret;
}

static int fake_thread(void *arg)
{
	struct fake_req *proto = arg;
	struct fake_hws *h = proto->h;
	u64 last_ticket = 0;
	unsigned int seq;

	wait_for_completion(&h->go);
	for (seq = 0; seq < h->per_thread; seq++) {
		struct fake_req fr = { .thread = proto->thread, .seq = seq };

		if (fake_change(h, &fr))
			atomic_inc(&h->thread_failures);
		if (fr.req.ticket <= last_ticket)
			atomic_inc(&h->order_errors);
		last_ticket = fr.req.ticket;
	}
	if (atomic_dec_and_test(&h->running))
		complete(&h->done);
	return 0;
}

static void fake_start_threads(struct kunit *test, struct fake_hws *h)
{
	struct fake_req *protos;
	struct task_struct *t;
	unsigned int i;

	protos = kunit_kcalloc(test, h->threads, sizeof(*protos), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, protos);
	atomic_set(&h->running, h->threads);
	for (i = 0; i < h->threads; i++) {
		protos[i].h = h;
		protos[i].thread = i;
		t = kthread_run(fake_thread, &protos[i], "kfd_rlq_t%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
}

static void fake_check_clean(struct kunit *test, struct fake_hws *h)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, atomic_read(&h->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->dups), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->order_errors), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->result_errors), 0);
	KUNIT_EXPECT_TRUE(test, kfd_mp_rlq_idle(&h->q));
	KUNIT_EXPECT_EQ(test, h->q.arriving, 0u);
	KUNIT_EXPECT_EQ(test, h->q.returning, 0u);
	KUNIT_EXPECT_EQ(test, h->q.npending, 0u);
	KUNIT_EXPECT_EQ(test, h->q.tickets, (u64)h->threads * h->per_thread);
	if (!h->seen)
		return;
	for (i = 0; i < h->threads * h->per_thread; i++)
		if (h->seen[i] != 1) {
			KUNIT_FAIL(test, "request %u served %u times", i,
				   h->seen[i]);
			break;
		}
}

static void kfd_mp_rlq_single(struct kunit *test)
{
	struct fake_hws *h = fake_hws_new(test, 0, 0);
	struct fake_req fr = {}, fr2 = { .apply_ret = -EACCES };

	KUNIT_EXPECT_TRUE(test, kfd_mp_rlq_idle(&h->q));
	KUNIT_EXPECT_EQ(test, fake_change(h, &fr), 0);
	KUNIT_EXPECT_EQ(test, fr.req.ticket, 1ull);
	KUNIT_EXPECT_EQ(test, fr.req.cycle, 1ull);
	KUNIT_EXPECT_EQ(test, h->cycles, 1ull);
	KUNIT_EXPECT_FALSE(test, fr.req.sleeping);	/* ran its own cycle */

	/* an apply error is the request's own result */
	KUNIT_EXPECT_EQ(test, fake_change(h, &fr2), -EACCES);
	KUNIT_EXPECT_EQ(test, fr2.req.ticket, 2ull);
	KUNIT_EXPECT_EQ(test, h->cycles, 2ull);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->completes), 2);

	/* nothing pending: flush and fail do nothing */
	mutex_lock(&h->lock);
	KUNIT_EXPECT_FALSE(test, kfd_mp_rlq_flush_locked(&h->q));
	KUNIT_EXPECT_EQ(test, kfd_mp_rlq_fail_locked(&h->q, -EIO), 0u);
	mutex_unlock(&h->lock);
	KUNIT_EXPECT_EQ(test, h->cycles, 2ull);
	KUNIT_EXPECT_EQ(test, h->flushes, 0ull);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->result_errors), 0);
	KUNIT_EXPECT_TRUE(test, kfd_mp_rlq_idle(&h->q));
}

static void kfd_mp_rlq_single_failures(struct kunit *test)
{
	struct fake_hws *h = fake_hws_new(test, 0, 0);
	unsigned int i;

	h->fail_every = 2;
	for (i = 1; i <= 6; i++) {
		struct fake_req fr = {};
		int ret = fake_change(h, &fr);

		KUNIT_EXPECT_EQ(test, ret, i % 2 ? 0 : -ETIME);
		KUNIT_EXPECT_EQ(test, fr.completed_result, ret);
	}
	KUNIT_EXPECT_EQ(test, h->failed, 3ull);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->result_errors), 0);
}

static void kfd_mp_rlq_run_threads(struct kunit *test, unsigned int threads,
				   unsigned int per_thread,
				   unsigned int cycle_us,
				   unsigned int fail_every)
{
	struct fake_hws *h = fake_hws_new(test, threads, per_thread);
	u64 n = (u64)threads * per_thread;

	h->cycle_us = cycle_us;
	h->fail_every = fail_every;
	fake_start_threads(test, h);
	complete_all(&h->go);
	wait_for_completion(&h->done);

	fake_check_clean(test, h);
	KUNIT_EXPECT_EQ(test, h->served, n);
	KUNIT_EXPECT_LE(test, h->cycles, n);
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&h->completes), n);
	/* injected failures fail exactly the requests their cycle covered */
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&h->thread_failures), h->failed);
	if (!fail_every)
		KUNIT_EXPECT_EQ(test, h->failed, 0ull);
	kunit_info(test, "%u threads x %u: %llu requests in %llu cycles, largest batch %u, %llu failed\n",
		   threads, per_thread, n, h->cycles, h->max_batch, h->failed);
}

static void kfd_mp_rlq_threads(struct kunit *test)
{
	kfd_mp_rlq_run_threads(test, 8, 50, 0, 0);
}

static void kfd_mp_rlq_threads_slow_hws(struct kunit *test)
{
	kfd_mp_rlq_run_threads(test, 8, 20, 100, 0);
}

static void kfd_mp_rlq_threads_failures(struct kunit *test)
{
	kfd_mp_rlq_run_threads(test, 8, 30, 20, 3);
}

static void kfd_mp_rlq_threads_all_fail(struct kunit *test)
{
	kfd_mp_rlq_run_threads(test, 4, 10, 20, 1);
}

/*
 * Teardown with work pending: a caller stuck on the way keeps the others
 * from running a cycle, then the owner flushes or fails what is pending.
 */
static void kfd_mp_rlq_teardown(struct kunit *test, bool flush)
{
	const unsigned int threads = 6;
	struct fake_hws *h = fake_hws_new(test, threads, 1);
	unsigned int i, n;

	h->q.leader_timeout = MAX_SCHEDULE_TIMEOUT;
	spin_lock(&h->q.lock);
	h->q.arriving++;		/* somebody on the way who never comes */
	spin_unlock(&h->q.lock);

	fake_start_threads(test, h);
	complete_all(&h->go);
	for (i = 0; i < 5000; i++) {
		spin_lock(&h->q.lock);
		n = h->q.npending;
		spin_unlock(&h->q.lock);
		if (n == threads)
			break;
		usleep_range(1000, 2000);
	}
	KUNIT_ASSERT_EQ(test, n, threads);
	msleep(20);		/* nobody runs a cycle on their own */
	KUNIT_EXPECT_EQ(test, h->cycles, 0ull);
	KUNIT_EXPECT_FALSE(test, kfd_mp_rlq_idle(&h->q));

	mutex_lock(&h->lock);
	if (flush) {
		KUNIT_EXPECT_TRUE(test, kfd_mp_rlq_flush_locked(&h->q));
	} else {
		KUNIT_EXPECT_EQ(test, kfd_mp_rlq_fail_locked(&h->q, -ENODEV),
				threads);
	}
	mutex_unlock(&h->lock);
	wait_for_completion(&h->done);

	spin_lock(&h->q.lock);
	h->q.arriving--;
	spin_unlock(&h->q.lock);

	KUNIT_EXPECT_EQ(test, atomic_read(&h->completes), (int)threads);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->dups), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->result_errors), 0);
	KUNIT_EXPECT_TRUE(test, kfd_mp_rlq_idle(&h->q));
	KUNIT_EXPECT_EQ(test, h->q.returning, 0u);
	if (flush) {
		/* one cycle served everybody */
		KUNIT_EXPECT_EQ(test, h->cycles, 1ull);
		KUNIT_EXPECT_EQ(test, h->flushes, 1ull);
		KUNIT_EXPECT_EQ(test, h->served, (u64)threads);
		KUNIT_EXPECT_EQ(test, h->changes_seen, threads);
		KUNIT_EXPECT_EQ(test, atomic_read(&h->thread_failures), 0);
	} else {
		KUNIT_EXPECT_EQ(test, h->cycles, 0ull);
		KUNIT_EXPECT_EQ(test, atomic_read(&h->thread_failures),
				(int)threads);
	}
}

static void kfd_mp_rlq_teardown_flush(struct kunit *test)
{
	kfd_mp_rlq_teardown(test, true);
}

static void kfd_mp_rlq_teardown_fail(struct kunit *test)
{
	kfd_mp_rlq_teardown(test, false);
}

/* A caller on the way that gives up must not leave the others waiting. */
static int fake_leaver_thread(void *arg)
{
	struct fake_hws *h = arg;

	kfd_mp_rlq_lock(&h->q);
	/* changed its mind: no change, no request */
	fake_unlock(&h->q);
	complete(&h->left);
	return 0;
}

static void fake_wait_arriving(struct fake_hws *h, unsigned int n)
{
	unsigned long end = jiffies + 5 * HZ;

	while (READ_ONCE(h->q.arriving) != n && time_before(jiffies, end))
		usleep_range(1000, 2000);
}

static void kfd_mp_rlq_arriver_leaves(struct kunit *test)
{
	struct fake_hws *h = fake_hws_new(test, 1, 1);
	struct task_struct *t;

	h->q.leader_timeout = MAX_SCHEDULE_TIMEOUT;
	mutex_lock(&h->lock);	/* a stock path holds the owner lock */
	fake_start_threads(test, h);
	complete_all(&h->go);
	fake_wait_arriving(h, 1);	/* the submitter waits for the lock */
	t = kthread_run(fake_leaver_thread, h, "kfd_rlq_leaver");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	fake_wait_arriving(h, 2);	/* and so does the leaver, behind it */
	KUNIT_EXPECT_EQ(test, h->q.arriving, 2u);
	mutex_unlock(&h->lock);

	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&h->done, 10 * HZ),
			0ul);
	wait_for_completion(&h->left);
	fake_check_clean(test, h);
	KUNIT_EXPECT_EQ(test, h->cycles, 1ull);
}

/* A caller that never comes delays the others by leader_timeout, no more. */
static void kfd_mp_rlq_leader_timeout(struct kunit *test)
{
	struct fake_hws *h = fake_hws_new(test, 3, 2);

	spin_lock(&h->q.lock);
	h->q.arriving++;		/* stuck on the owner lock, forever */
	spin_unlock(&h->q.lock);
	fake_start_threads(test, h);
	complete_all(&h->go);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&h->done, 10 * HZ),
			0ul);
	spin_lock(&h->q.lock);
	h->q.arriving--;
	spin_unlock(&h->q.lock);

	fake_check_clean(test, h);
	KUNIT_EXPECT_EQ(test, h->served, 6ull);
	KUNIT_EXPECT_EQ(test, h->failed, 0ull);
}

/* Stock paths flushing under the owner lock race with submitters. */
struct fake_flusher {
	struct fake_hws *h;
	atomic_t stop;
	unsigned int flushes;
	struct completion done;
};

static int fake_flusher_thread(void *arg)
{
	struct fake_flusher *f = arg;

	while (!atomic_read(&f->stop)) {
		mutex_lock(&f->h->lock);
		if (kfd_mp_rlq_flush_locked(&f->h->q))
			f->flushes++;
		mutex_unlock(&f->h->lock);
		fake_hws_wait(30);
	}
	complete(&f->done);
	return 0;
}

static void kfd_mp_rlq_concurrent_flush(struct kunit *test)
{
	struct fake_hws *h = fake_hws_new(test, 6, 40);
	struct fake_flusher *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->h = h;
	init_completion(&f->done);
	h->cycle_us = 20;
	t = kthread_run(fake_flusher_thread, f, "kfd_rlq_flush");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	fake_start_threads(test, h);
	complete_all(&h->go);
	wait_for_completion(&h->done);
	atomic_set(&f->stop, 1);
	wait_for_completion(&f->done);

	fake_check_clean(test, h);
	KUNIT_EXPECT_EQ(test, h->served, 240ull);
	KUNIT_EXPECT_EQ(test, h->flushes, (u64)f->flushes);
	kunit_info(test, "240 requests, %llu cycles, %u by flushes\n",
		   h->cycles, f->flushes);
}

/*
 * Benchmark: 8 threads, each creating then destroying 5 queues, against
 * a 200 us emulated preemption. Stock runs one cycle per change under the
 * owner lock; the queued runlist batches.
 */
#define BENCH_THREADS	8
#define BENCH_QUEUES	5
#define BENCH_CYCLE_US	200

struct bench {
	struct fake_hws *h;
	bool queued;
	atomic_t running;
	struct completion go;
	struct completion done;
};

static int bench_thread(void *arg)
{
	struct bench *b = arg;
	struct fake_hws *h = b->h;
	unsigned int i;

	wait_for_completion(&b->go);
	for (i = 0; i < 2 * BENCH_QUEUES; i++) {
		/* i < BENCH_QUEUES: create queue i, then destroy them */
		if (b->queued) {
			struct kfd_mp_rlq_req req = {};

			kfd_mp_rlq_lock(&h->q);
			h->changes++;
			if (kfd_mp_rlq_submit_unlock_wait(&h->q, &req))
				atomic_inc(&h->result_errors);
		} else {
			/* stock: execute_queues_cpsch() under dqm_lock */
			LIST_HEAD(none);

			mutex_lock(&h->lock);
			h->changes++;
			fake_cycle(&h->q, &none, 0);
			h->served++;
			mutex_unlock(&h->lock);
		}
	}
	if (atomic_dec_and_test(&b->running))
		complete(&b->done);
	return 0;
}

static u64 bench_run(struct kunit *test, bool queued, u64 *cycles)
{
	struct bench *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct task_struct *t;
	ktime_t start;
	u64 ns;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->h = fake_hws_new(test, 0, 0);
	b->h->cycle_us = BENCH_CYCLE_US;
	b->queued = queued;
	init_completion(&b->go);
	init_completion(&b->done);
	atomic_set(&b->running, BENCH_THREADS);
	for (i = 0; i < BENCH_THREADS; i++) {
		t = kthread_run(bench_thread, b, "kfd_rlq_b%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	msleep(20);		/* let every thread reach the start line */
	start = ktime_get();
	complete_all(&b->go);
	wait_for_completion(&b->done);
	ns = ktime_to_ns(ktime_sub(ktime_get(), start));

	KUNIT_EXPECT_EQ(test, atomic_read(&b->h->result_errors), 0);
	KUNIT_EXPECT_EQ(test, b->h->served,
			(u64)BENCH_THREADS * 2 * BENCH_QUEUES);
	KUNIT_EXPECT_EQ(test, b->h->changes, BENCH_THREADS * 2 * BENCH_QUEUES);
	*cycles = b->h->cycles;
	return ns;
}

static void kfd_mp_rlq_benchmark(struct kunit *test)
{
	const u64 requests = BENCH_THREADS * 2 * BENCH_QUEUES;
	u64 stock_cycles, queued_cycles, stock_ns, queued_ns;

	stock_ns = bench_run(test, false, &stock_cycles);
	queued_ns = bench_run(test, true, &queued_cycles);

	kunit_info(test, "benchmark: %d threads x (%d creates + %d destroys), %d us per preemption cycle\n",
		   BENCH_THREADS, BENCH_QUEUES, BENCH_QUEUES, BENCH_CYCLE_US);
	kunit_info(test, "stock:  requests %llu cycles %llu total_us %llu\n",
		   requests, stock_cycles, stock_ns / NSEC_PER_USEC);
	kunit_info(test, "queued: requests %llu cycles %llu total_us %llu\n",
		   requests, queued_cycles, queued_ns / NSEC_PER_USEC);
	kunit_info(test, "ratio: cycles %llu.%02llux time %llu.%02llux\n",
		   stock_cycles / max(queued_cycles, 1ull),
		   stock_cycles * 100 / max(queued_cycles, 1ull) % 100,
		   stock_ns / max(queued_ns, 1ull),
		   stock_ns * 100 / max(queued_ns, 1ull) % 100);

	KUNIT_EXPECT_EQ(test, stock_cycles, requests);
	/*
	 * How many requests share a cycle depends on how the callers are
	 * scheduled (under an emulator, 43 cycles for 80 requests was seen):
	 * a figure to read, not to assert. What holds on any schedule: at
	 * least one cycle, and never more than one per request.
	 */
	kunit_info(test, "queued: %llu.%02llu requests per cycle\n",
		   requests / max(queued_cycles, 1ull),
		   requests * 100 / max(queued_cycles, 1ull) % 100);
	KUNIT_EXPECT_GE(test, queued_cycles, 1);
	KUNIT_EXPECT_LE(test, queued_cycles, requests);
}

static struct kunit_case kfd_mp_rlq_cases[] = {
	KUNIT_CASE(kfd_mp_rlq_single),
	KUNIT_CASE(kfd_mp_rlq_single_failures),
	KUNIT_CASE(kfd_mp_rlq_threads),
	KUNIT_CASE(kfd_mp_rlq_threads_slow_hws),
	KUNIT_CASE(kfd_mp_rlq_threads_failures),
	KUNIT_CASE(kfd_mp_rlq_threads_all_fail),
	KUNIT_CASE(kfd_mp_rlq_teardown_flush),
	KUNIT_CASE(kfd_mp_rlq_teardown_fail),
	KUNIT_CASE(kfd_mp_rlq_arriver_leaves),
	KUNIT_CASE(kfd_mp_rlq_leader_timeout),
	KUNIT_CASE(kfd_mp_rlq_concurrent_flush),
	KUNIT_CASE_SLOW(kfd_mp_rlq_benchmark),
	{}
};

static struct kunit_suite kfd_mp_rlq_suite = {
	.name = "amdkfd_mp_rlq",
	.test_cases = kfd_mp_rlq_cases,
};

kunit_test_suite(kfd_mp_rlq_suite);
