/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Queued runlist: group commit of runlist changes.
 *
 * Under the HWS every queue change of any process costs a preemption of
 * all user queues, a fence wait and a resend of the whole runlist, one
 * change at a time. Here a change is recorded as a request and one cycle
 * (unmap, apply pending MQD changes, map) serves every request pending
 * when it starts.
 *
 * The owner (the device queue manager) has a lock, the "owner lock"
 * (dqm_lock), under which it changes its state, records requests and runs
 * cycles. A caller:
 *
 *	kfd_mp_rlq_lock(q);		owner lock, announced as arriving
 *	... change the owner's state ...
 *	ret = kfd_mp_rlq_submit_unlock_wait(q, &req);
 *
 * The submitter runs the cycle itself, still holding the owner lock, when
 * nobody else is on the way: no caller is blocked in kfd_mp_rlq_lock()
 * and no caller served by the previous cycle is still leaving. Otherwise
 * it drops the owner lock and sleeps; the last one on the way runs the
 * cycle for all. A sleeping request at the head of the queue takes the
 * owner lock and runs the cycle itself when nobody else is on the way any
 * more, or after leader_timeout, so no request waits for a caller that
 * does not come.
 *
 * Every request gets the result of the cycle that served it; a request
 * lives until it is served (on the caller's stack is fine). Stock paths
 * that talk to the HWS first call kfd_mp_rlq_flush_locked(), which runs
 * a cycle for pending requests; teardown may fail them instead
 * (kfd_mp_rlq_fail_locked()). The queue must outlive its callers: the
 * owner frees it only when no caller can be inside, as after the last
 * process of the device has gone.
 *
 * Locking: owner lock -> q->lock (a spinlock, never held across a
 * callback) -> q->wq's lock. Waiters hold neither while they sleep.
 *
 * No dependency on the rest of amdkfd: KUnit runs it against a fake HWS.
 */
#ifndef KFD_MP_RLQ_H_INCLUDED
#define KFD_MP_RLQ_H_INCLUDED

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

struct kfd_mp_rlq;

/**
 * struct kfd_mp_rlq_req - one recorded change
 * @node: in the pending list, then in the batch of a cycle
 * @apply: optional; called by the cycle while the HWS has no runlist
 *	(between unmap and map) with the unmap result; owner lock held.
 *	A nonzero return becomes the request's result.
 * @complete: optional; called after the cycle with @result set, owner
 *	lock held, before the submitter wakes (e.g. to undo a change whose
 *	cycle failed before anybody else can see it).
 * @ticket: 1, 2, ... in submission order
 * @cycle: number of the cycle that served the request, 0 if failed
 *	without a cycle
 * @submitted: ktime_get() at submission
 * @wait_ns: submission to result
 * @result: 0 or the error of the cycle (or of kfd_mp_rlq_fail_locked())
 * @served: the result is final; the request may be freed
 * @sleeping: the submitter slept for its result
 * @removal: set by the submitter: the change only takes something off
 *	the runlist (a destroy), so it is complete once the preemption
 *	worked. A runlist that then fails to be sent is not blamed on it
 *	while the batch has another request (kfd_mp_rlq_ops.cycle).
 */
struct kfd_mp_rlq_req {
	struct list_head node;
	int (*apply)(struct kfd_mp_rlq_req *req, int err);
	void (*complete)(struct kfd_mp_rlq_req *req);
	u64 ticket;
	u64 cycle;
	ktime_t submitted;
	u64 wait_ns;
	int result;
	bool served;
	bool sleeping;
	bool removal;
};

/**
 * struct kfd_mp_rlq_cycle_info - what one cycle did, for statistics
 * @cycle: its number, 0 for a kfd_mp_rlq_fail_locked()
 * @requests: requests served
 * @first_ticket: lowest ticket served
 * @last_ticket: highest ticket served
 * @failed: requests whose result is an error
 * @result: the cycle's result
 * @flush: run by kfd_mp_rlq_flush_locked() (a stock path)
 * @duration_ns: time in the cycle callback
 * @max_wait_ns: longest wait of a request it served
 */
struct kfd_mp_rlq_cycle_info {
	u64 cycle;
	unsigned int requests;
	u64 first_ticket;
	u64 last_ticket;
	unsigned int failed;
	int result;
	bool flush;
	u64 duration_ns;
	u64 max_wait_ns;
};

/**
 * struct kfd_mp_rlq_ops - what the owner provides
 * @lock: take the owner lock
 * @unlock: release the owner lock
 * @cycle: owner lock held: preempt, call kfd_mp_rlq_apply() once, send
 *	the runlist; @batch lists the requests served. Return 0 or an error
 *	that every request of @batch gets, except when the preemption
 *	passed to kfd_mp_rlq_apply() succeeded: then only the first request
 *	without an error of its own that is not a @removal (or, if all are,
 *	the first) gets it, and the others are served again by a following
 *	cycle (a failed runlist fails one change, as in stock, where each
 *	change has its own cycle).
 * @submitted: optional; owner lock held, after @req was queued
 * @account: optional; owner lock held, after a cycle or a failure, with
 *	@batch still intact and every wait_ns and result set
 */
struct kfd_mp_rlq_ops {
	void (*lock)(struct kfd_mp_rlq *q);
	void (*unlock)(struct kfd_mp_rlq *q);
	int (*cycle)(struct kfd_mp_rlq *q, struct list_head *batch,
		     unsigned int n);
	void (*submitted)(struct kfd_mp_rlq *q, struct kfd_mp_rlq_req *req,
			  unsigned int pending, bool run_now);
	void (*account)(struct kfd_mp_rlq *q,
			const struct kfd_mp_rlq_cycle_info *info,
			struct list_head *batch);
};

/*
 * A sleeping request leads after this long even if others are on the way:
 * only a caller stuck on the owner lock or starved of CPU delays it.
 */
#define KFD_MP_RLQ_LEADER_TIMEOUT_MS	20

/**
 * struct kfd_mp_rlq - the request queue of one owner
 * @ops: the owner's callbacks
 * @lock: protects everything below
 * @wq: requests sleep here for their result or their turn to lead
 * @pending: requests not yet taken by a cycle, in ticket order
 * @npending: length of @pending
 * @arriving: callers blocked in kfd_mp_rlq_lock()
 * @returning: served sleepers that have not left kfd_mp_rlq_wait()
 * @running: a cycle is running (its owner holds the owner lock)
 * @applied: kfd_mp_rlq_apply() ran in the current cycle
 * @apply_err: the preemption result it was given
 * @tickets: last ticket given
 * @cycles: cycles run
 * @leader_timeout: jiffies a sleeper waits before it leads anyway
 */
struct kfd_mp_rlq {
	const struct kfd_mp_rlq_ops *ops;
	spinlock_t lock;			/* protects the fields below */
	wait_queue_head_t wq;
	struct list_head pending;
	unsigned int npending;
	unsigned int arriving;
	unsigned int returning;
	bool running;
	bool applied;
	int apply_err;
	u64 tickets;
	u64 cycles;
	long leader_timeout;
};

void kfd_mp_rlq_init(struct kfd_mp_rlq *q, const struct kfd_mp_rlq_ops *ops);
void kfd_mp_rlq_lock(struct kfd_mp_rlq *q);
int kfd_mp_rlq_submit_unlock_wait(struct kfd_mp_rlq *q,
				  struct kfd_mp_rlq_req *req);
void kfd_mp_rlq_apply(struct kfd_mp_rlq *q, struct list_head *batch,
		      int err);
bool kfd_mp_rlq_flush_locked(struct kfd_mp_rlq *q);
unsigned int kfd_mp_rlq_fail_locked(struct kfd_mp_rlq *q, int err);
bool kfd_mp_rlq_idle(struct kfd_mp_rlq *q);

#endif
