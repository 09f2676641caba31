// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: the queued runlist of a HWS node
 * (amdgpu.kfd_queued_runlist): the request queue of kfd_mp_rlq.c bound to
 * the device queue manager, which accounts each cycle to the statistics
 * through the queue's account callback.
 */
#include <linux/module.h>

#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_mp_param.h"
#include "kfd_mp_rlq.h"
#include "kfd_priv.h"
#include "kfd_trace.h"

/*
 * amdgpu.kfd_queued_runlist: HWS nodes without MES record the runlist
 * changes of these paths and let one cycle serve all changes pending at
 * once (kfd_mp_rlq.h): create_queue_cpsch() and destroy_queue_cpsch() of
 * active queues, update_queue() (its MQD rewritten by the cycle while the
 * HWS has no runlist), evict_process_queues_cpsch() (except for a
 * debugged process) and restore_process_queues_cpsch(). All other paths
 * that preempt (kernel queues, debug trap, suspend/resume of queues,
 * halt/unhalt, start/stop, reset, process termination) stay stock. An
 * unmap serves no request: the stock paths that need the pending changes
 * on the HWS first run a cycle for them (kfd_mp_rlq_flush_locked()), and
 * the others preempt and map what is listed, while every pending request
 * is still served by its own cycle, so no change is left unsubmitted.
 * Decided per node when it is initialised.
 */
static const char * const kfd_queued_runlist_choices[] = {
	"default", "off", "on", NULL
};

enum { KFD_MP_RLQ_DEFAULT, KFD_MP_RLQ_OFF, KFD_MP_RLQ_ON };

static struct kfd_mp_choice_param kfd_queued_runlist = {
	.name = "kfd_queued_runlist",
	.choices = kfd_queued_runlist_choices,
};
module_param_cb(kfd_queued_runlist, &kfd_mp_choice_ops, &kfd_queued_runlist,
		0444);
MODULE_PARM_DESC(kfd_queued_runlist,
		 "Batch the runlist changes of many processes into one HWS preemption cycle: default (follows kfd_mp: off when 0, on when 1), off = stock, on");

static struct device_queue_manager *kfd_mp_rlq_dqm(struct kfd_mp_rlq *q)
{
	return container_of(q, struct device_queue_manager, mp_rlq);
}

static void kfd_mp_rlq_dqm_lock(struct kfd_mp_rlq *q)
{
	dqm_lock(kfd_mp_rlq_dqm(q));
}

static void kfd_mp_rlq_dqm_unlock(struct kfd_mp_rlq *q)
{
	dqm_unlock(kfd_mp_rlq_dqm(q));
}

static void kfd_mp_rlq_dqm_submitted(struct kfd_mp_rlq *q,
				     struct kfd_mp_rlq_req *req,
				     unsigned int pending, bool run_now)
{
	trace_kfd_rlq_request(kfd_mp_rlq_dqm(q)->dev->id, req->ticket, pending,
			      run_now);
}

static void kfd_mp_rlq_dqm_account(struct kfd_mp_rlq *q,
				   const struct kfd_mp_rlq_cycle_info *info,
				   struct list_head *batch)
{
	struct device_queue_manager *dqm = kfd_mp_rlq_dqm(q);
	struct kfd_mp_rlq_req *req;

	kfd_mp_stats_rlq_cycle(&dqm->mp_stats, info->requests, info->failed,
			       info->cycle != 0, info->flush, info->result != 0);
	list_for_each_entry(req, batch, node)
		kfd_mp_stats_sample(&dqm->mp_stats, KFD_MP_HIST_RLQ_WAIT_US,
				    div_u64(req->wait_ns, NSEC_PER_USEC));
	trace_kfd_rlq_cycle(dqm->dev->id, info->cycle, info->requests,
			    info->first_ticket, info->last_ticket, info->failed,
			    info->flush, info->result,
			    div_u64(info->duration_ns, NSEC_PER_USEC),
			    div_u64(info->max_wait_ns, NSEC_PER_USEC));
}

static const struct kfd_mp_rlq_ops kfd_mp_rlq_dqm_ops = {
	.lock = kfd_mp_rlq_dqm_lock,
	.unlock = kfd_mp_rlq_dqm_unlock,
	.cycle = kfd_dqm_rlq_cycle,
	.submitted = kfd_mp_rlq_dqm_submitted,
	.account = kfd_mp_rlq_dqm_account,
};

/**
 * kfd_mp_rlq_dqm_init - set up the queued runlist of a HWS node
 * @dqm: device queue manager, from initialize_cpsch()
 *
 * The queue is on when amdgpu.kfd_queued_runlist says so and the node
 * uses the HWS without MES; otherwise every path stays stock.
 */
void kfd_mp_rlq_dqm_init(struct device_queue_manager *dqm)
{
	kfd_mp_rlq_init(&dqm->mp_rlq, &kfd_mp_rlq_dqm_ops);
	dqm->mp_rlq_on = !dqm->dev->kfd->shared_resources.enable_mes &&
		kfd_mp_choice_effective(&kfd_queued_runlist, kfd_mp_enabled(),
					KFD_MP_RLQ_OFF, KFD_MP_RLQ_ON) ==
		KFD_MP_RLQ_ON;
	if (dqm->mp_rlq_on)
		dev_info(dqm->dev->adev->dev,
			 "kfd: node %u: queued runlist on\n", dqm->dev->node_id);
}

/**
 * kfd_mp_rlq_dqm_fini - fail what is still pending at teardown
 * @dqm: device queue manager, stopped, dqm_lock still usable
 *
 * Stopping flushed the queue (stop_cpsch() serves what is pending);
 * anything submitted since gets -ENODEV. The queue lives in the dqm: a
 * device may be removed only once its processes are gone (upstream
 * waits for them before it frees the nodes; on this base removal with
 * live processes is not supported, stock frees the node under them), so
 * nobody is left in the queue when the dqm is freed.
 */
void kfd_mp_rlq_dqm_fini(struct device_queue_manager *dqm)
{
	unsigned int n;

	if (!dqm->mp_rlq_on)
		return;
	dqm_lock(dqm);
	n = kfd_mp_rlq_fail_locked(&dqm->mp_rlq, -ENODEV);
	dqm_unlock(dqm);
	if (n)
		dev_warn(dqm->dev->adev->dev,
			 "kfd: %u runlist requests failed at teardown\n", n);
}

/**
 * kfd_mp_dqm_lock - dqm_lock() for a path that may queue a runlist change
 * @dqm: device queue manager
 *
 * With the queued runlist on, the caller counts as arriving while it
 * waits for the lock, so that a cycle about to start waits for its change.
 */
void kfd_mp_dqm_lock(struct device_queue_manager *dqm)
{
	if (dqm->mp_rlq_on)
		kfd_mp_rlq_lock(&dqm->mp_rlq);
	else
		dqm_lock(dqm);
}
