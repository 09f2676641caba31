// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Queued runlist: group commit of runlist changes; see kfd_mp_rlq.h.
 */
#include <linux/bug.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/sched.h>

#include "kfd_mp_rlq.h"

/**
 * kfd_mp_rlq_init - set up an empty request queue
 * @q: the queue
 * @ops: the owner's callbacks
 */
void kfd_mp_rlq_init(struct kfd_mp_rlq *q, const struct kfd_mp_rlq_ops *ops)
{
	q->ops = ops;
	spin_lock_init(&q->lock);
	init_waitqueue_head(&q->wq);
	INIT_LIST_HEAD(&q->pending);
	q->npending = 0;
	q->arriving = 0;
	q->returning = 0;
	q->running = false;
	q->applied = false;
	q->tickets = 0;
	q->cycles = 0;
	/* + 1: at least the whole time, not up to the next tick */
	q->leader_timeout = msecs_to_jiffies(KFD_MP_RLQ_LEADER_TIMEOUT_MS) + 1;
}

/* q->lock held: pending requests and nobody left on the way to join them */
static bool kfd_mp_rlq_leader_wanted(struct kfd_mp_rlq *q)
{
	return !q->running && !q->arriving && !q->returning &&
	       !list_empty(&q->pending);
}

/**
 * kfd_mp_rlq_lock - take the owner lock to record a change
 * @q: the queue
 *
 * While the caller is blocked on the owner lock it counts as arriving, and
 * a submitter that finds callers arriving leaves the cycle to them.
 */
void kfd_mp_rlq_lock(struct kfd_mp_rlq *q)
{
	bool kick;

	spin_lock(&q->lock);
	q->arriving++;
	spin_unlock(&q->lock);

	q->ops->lock(q);

	spin_lock(&q->lock);
	q->arriving--;
	kick = kfd_mp_rlq_leader_wanted(q);
	spin_unlock(&q->lock);
	/* in case this caller leaves without submitting */
	if (kick)
		wake_up_all(&q->wq);
}

/**
 * kfd_mp_rlq_apply - apply the MQD changes of a batch
 * @q: the queue
 * @batch: the batch passed to the cycle callback
 * @err: result of the preemption
 *
 * The cycle callback calls this once, after the preemption and before
 * the runlist is sent; if it does not, the queue calls it after the cycle.
 */
void kfd_mp_rlq_apply(struct kfd_mp_rlq *q, struct list_head *batch, int err)
{
	struct kfd_mp_rlq_req *req;
	int r;

	q->applied = true;
	q->apply_err = err;
	list_for_each_entry(req, batch, node) {
		if (!req->apply)
			continue;
		r = req->apply(req, err);
		if (r)
			req->result = r;
	}
}

/* owner lock held: deliver the results of @batch and wake its waiters */
static void kfd_mp_rlq_finish(struct kfd_mp_rlq *q, struct list_head *batch,
			      struct kfd_mp_rlq_cycle_info *info, int err,
			      ktime_t now)
{
	struct kfd_mp_rlq_req *req, *tmp;

	info->result = err;
	list_for_each_entry(req, batch, node) {
		if (!req->result)
			req->result = err;
		req->cycle = info->cycle;
		req->wait_ns = ktime_to_ns(ktime_sub(now, req->submitted));
		info->max_wait_ns = max(info->max_wait_ns, req->wait_ns);
		if (req->result)
			info->failed++;
		if (!info->first_ticket)
			info->first_ticket = req->ticket;
		info->last_ticket = req->ticket;
	}
	list_for_each_entry(req, batch, node)
		if (req->complete)
			req->complete(req);
	if (q->ops->account)
		q->ops->account(q, info, batch);

	/* after this a waiter may return and its request disappear */
	spin_lock(&q->lock);
	list_for_each_entry_safe(req, tmp, batch, node) {
		list_del_init(&req->node);
		req->served = true;
		if (req->sleeping)
			q->returning++;
	}
	q->running = false;
	spin_unlock(&q->lock);
	wake_up_all(&q->wq);
}

/*
 * Owner lock held, after a cycle that preempted but failed to send the
 * runlist: the first request whose result is not yet set and that is not
 * a removal (else the first removal) keeps the error; the others of
 * @batch that have none of their own go back to the head of the pending
 * list, in ticket order, for the next cycle. A destroy whose queue is
 * already off the HWS is thus not failed for another process's change.
 *
 * Return: the number of requests put back.
 */
static unsigned int kfd_mp_rlq_requeue(struct kfd_mp_rlq *q,
				       struct list_head *batch)
{
	struct kfd_mp_rlq_req *req, *tmp, *kept = NULL;
	LIST_HEAD(retry);
	unsigned int n = 0;

	list_for_each_entry(req, batch, node) {
		if (req->result)
			continue;
		if (!kept || (kept->removal && !req->removal))
			kept = req;
		if (!kept->removal)
			break;
	}
	list_for_each_entry_safe(req, tmp, batch, node) {
		if (req->result || req == kept)
			continue;
		list_move_tail(&req->node, &retry);
		n++;
	}
	if (n) {
		spin_lock(&q->lock);
		list_splice(&retry, &q->pending);
		q->npending += n;
		spin_unlock(&q->lock);
	}
	return n;
}

/* owner lock held: one cycle for everything pending; false if none ran */
static bool kfd_mp_rlq_run_locked(struct kfd_mp_rlq *q, bool flush)
{
	struct kfd_mp_rlq_cycle_info info;
	LIST_HEAD(batch);
	ktime_t start, end;
	unsigned int retried;
	int err;

	spin_lock(&q->lock);
	if (q->running || list_empty(&q->pending)) {
		spin_unlock(&q->lock);
		return false;
	}
	do {
		info = (struct kfd_mp_rlq_cycle_info){ .flush = flush };
		list_splice_init(&q->pending, &batch);
		info.requests = q->npending;
		q->npending = 0;
		q->running = true;
		q->applied = false;
		q->apply_err = 0;
		info.cycle = ++q->cycles;
		spin_unlock(&q->lock);

		start = ktime_get();
		err = q->ops->cycle(q, &batch, info.requests);
		if (!q->applied)
			kfd_mp_rlq_apply(q, &batch, err);
		/*
		 * The preemption worked but the runlist was not sent: it is
		 * one IB for every process, so the failure cannot be pinned
		 * on one request. Fail one, as stock fails the one change
		 * that its cycle served, and run the others again.
		 */
		retried = 0;
		if (err && !q->apply_err && info.requests > 1)
			retried = kfd_mp_rlq_requeue(q, &batch);
		info.requests -= retried;
		end = ktime_get();
		info.duration_ns = ktime_to_ns(ktime_sub(end, start));
		kfd_mp_rlq_finish(q, &batch, &info, err, end);
		spin_lock(&q->lock);
	} while (retried && !q->running && !list_empty(&q->pending));
	spin_unlock(&q->lock);
	return true;
}

/* a sleeping request may run the cycle: it is first and nobody else comes */
static bool kfd_mp_rlq_woken(struct kfd_mp_rlq *q, struct kfd_mp_rlq_req *req)
{
	bool ret;

	spin_lock(&q->lock);
	ret = req->served ||
	      (kfd_mp_rlq_leader_wanted(q) &&
	       list_first_entry(&q->pending, struct kfd_mp_rlq_req, node) == req);
	spin_unlock(&q->lock);
	return ret;
}

static int kfd_mp_rlq_wait(struct kfd_mp_rlq *q, struct kfd_mp_rlq_req *req)
{
	bool served, kick;
	int ret;

	for (;;) {
		spin_lock(&q->lock);
		if (req->served) {
			kick = false;
			if (req->sleeping) {
				q->returning--;
				kick = kfd_mp_rlq_leader_wanted(q);
			}
			ret = req->result;
			spin_unlock(&q->lock);
			if (kick)
				wake_up_all(&q->wq);
			return ret;
		}
		req->sleeping = true;
		spin_unlock(&q->lock);

		wait_event_timeout(q->wq, kfd_mp_rlq_woken(q, req),
				   q->leader_timeout);

		spin_lock(&q->lock);
		served = req->served;
		spin_unlock(&q->lock);
		if (served)
			continue;

		/* our turn to lead, or nobody came in time: run it ourselves */
		q->ops->lock(q);
		kfd_mp_rlq_run_locked(q, false);
		q->ops->unlock(q);
	}
}

/**
 * kfd_mp_rlq_submit_unlock_wait - record a change and wait for its cycle
 * @q: the queue
 * @req: the request; its @apply and @complete set or NULL, @removal
 *	set, the rest is initialised here. It must stay valid until this
 *	returns.
 *
 * Called with the owner lock held, after the owner's state reflects the
 * change; returns with it released. Must not be called from a cycle.
 *
 * Return: the result of the cycle that served @req.
 */
int kfd_mp_rlq_submit_unlock_wait(struct kfd_mp_rlq *q,
				  struct kfd_mp_rlq_req *req)
{
	unsigned int pending;
	bool run_now;

	INIT_LIST_HEAD(&req->node);
	req->cycle = 0;
	req->wait_ns = 0;
	req->result = 0;
	req->served = false;
	req->sleeping = false;
	req->submitted = ktime_get();

	spin_lock(&q->lock);
	WARN_ON_ONCE(q->running);
	req->ticket = ++q->tickets;
	list_add_tail(&req->node, &q->pending);
	pending = ++q->npending;
	run_now = !q->arriving && !q->returning;
	spin_unlock(&q->lock);

	if (q->ops->submitted)
		q->ops->submitted(q, req, pending, run_now);
	if (run_now)
		kfd_mp_rlq_run_locked(q, false);
	q->ops->unlock(q);

	return kfd_mp_rlq_wait(q, req);
}

/**
 * kfd_mp_rlq_flush_locked - serve pending requests now
 * @q: the queue
 *
 * For stock paths that talk to the HWS themselves: with the owner lock
 * held, run one cycle for the pending requests, so that afterwards the
 * HWS has seen every recorded change. A no-op from inside a cycle or with
 * nothing pending.
 *
 * Return: true if a cycle ran.
 */
bool kfd_mp_rlq_flush_locked(struct kfd_mp_rlq *q)
{
	return kfd_mp_rlq_run_locked(q, true);
}

/**
 * kfd_mp_rlq_fail_locked - fail pending requests without a cycle
 * @q: the queue
 * @err: the result they get
 *
 * With the owner lock held, for teardown when the HWS cannot be used.
 *
 * Return: the number of requests failed.
 */
unsigned int kfd_mp_rlq_fail_locked(struct kfd_mp_rlq *q, int err)
{
	struct kfd_mp_rlq_cycle_info info = {};
	struct kfd_mp_rlq_req *req;
	LIST_HEAD(batch);

	spin_lock(&q->lock);
	if (q->running || list_empty(&q->pending)) {
		spin_unlock(&q->lock);
		return 0;
	}
	list_splice_init(&q->pending, &batch);
	info.requests = q->npending;
	q->npending = 0;
	spin_unlock(&q->lock);

	list_for_each_entry(req, &batch, node)
		req->result = err;
	kfd_mp_rlq_finish(q, &batch, &info, err, ktime_get());
	return info.requests;
}

/**
 * kfd_mp_rlq_idle - no request pending and no cycle running
 * @q: the queue
 *
 * Return: true if idle.
 */
bool kfd_mp_rlq_idle(struct kfd_mp_rlq *q)
{
	bool idle;

	spin_lock(&q->lock);
	idle = !q->running && list_empty(&q->pending);
	spin_unlock(&q->lock);
	return idle;
}
