// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Upstream HWS changes carried as load-time switches; see kfd_mp_hws.h.
 */
#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/module.h>

#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_mp_hws.h"
#include "kfd_mp_hws_regs.h"
#include "kfd_mp_param.h"
#include "kfd_priv.h"
#include "gc/gc_9_0_sh_mask.h"

static_assert(KFD_MP_QUE_SLEEP_MASK == CP_IQ_WAIT_TIME2__QUE_SLEEP_MASK);
static_assert(KFD_MP_GC_VERSION(9, 4, 1) == IP_VERSION(9, 4, 1) &&
	      KFD_MP_GC_VERSION(10, 0, 0) == IP_VERSION(10, 0, 0));

static const char * const kfd_mp_off_on_choices[] = {
	"default", "off", "on", NULL
};

enum { KFD_MP_HWS_DEFAULT, KFD_MP_HWS_OFF, KFD_MP_HWS_ON };

/*
 * amdgpu.kfd_short_dequeue_wait: upstream 6.15's "drm/amdgpu: Reduce
 * dequeue retry timeout for gfx9 family". While a queue is unmapped the CP
 * retries the dequeue, waiting CP_IQ_WAIT_TIME2.QUE_SLEEP (0x40 out of
 * reset) between retries; "on" sets it to 0x1 on gfx 9.4.1 up to gfx 10,
 * so every preemption of such a HWS ends sooner. Decided per node when
 * the HWS starts.
 */
static struct kfd_mp_choice_param kfd_short_dequeue_wait = {
	.name = "kfd_short_dequeue_wait",
	.choices = kfd_mp_off_on_choices,
};
module_param_cb(kfd_short_dequeue_wait, &kfd_mp_choice_ops,
		&kfd_short_dequeue_wait, 0444);
MODULE_PARM_DESC(kfd_short_dequeue_wait,
		 "Dequeue retry wait CP_IQ_WAIT_TIME2.QUE_SLEEP 0x1 on gfx 9.4.1 and later gfx9 (upstream 6.15): default (follows kfd_mp: off when 0, on when 1), off = stock, on");

/*
 * amdgpu.kfd_mqd_queue_priority: whether a compute queue's MQD carries
 * its priority (0-15, from the runtime) in cp_hqd_queue_priority. "on" is
 * stock. "off" is upstream's "drm/amdkfd: Disable MQD queue priority"
 * (February 2026, all generations): the field stays 0, because the
 * runtime's high-priority queues waited for activity on lower-priority
 * ones (priority inversion). cp_hqd_pipe_priority is programmed either
 * way. Read whenever an MQD is initialised or updated.
 */
static struct kfd_mp_choice_param kfd_mqd_queue_priority = {
	.name = "kfd_mqd_queue_priority",
	.choices = kfd_mp_off_on_choices,
};
module_param_cb(kfd_mqd_queue_priority, &kfd_mp_choice_ops,
		&kfd_mqd_queue_priority, 0444);
MODULE_PARM_DESC(kfd_mqd_queue_priority,
		 "Program the queue priority into a compute queue's MQD (cp_hqd_queue_priority): default (follows kfd_mp: on when 0, off when 1, as upstream since February 2026), on = stock, off");

/**
 * kfd_mp_hws_start - program the carried HWS changes of a node
 * @dqm: device queue manager, from start_cpsch() once the HWS runs
 *
 * With amdgpu.kfd_short_dequeue_wait on, sets QUE_SLEEP of the node's
 * CP_IQ_WAIT_TIME2 through the HIQ and keeps the value in dqm->wait_times,
 * which the debugger's grace period changes write back. A HWS started
 * again (resume, GPU reset) gets the value written again, logged only the
 * first time. A failed write is logged and leaves dqm->wait_times as it was.
 */
void kfd_mp_hws_start(struct device_queue_manager *dqm)
{
	struct kfd_node *node = dqm->dev;
	u32 old = dqm->wait_times;

	if (kfd_mp_choice_effective(&kfd_short_dequeue_wait, kfd_mp_enabled(),
				    KFD_MP_HWS_OFF, KFD_MP_HWS_ON) !=
	    KFD_MP_HWS_ON ||
	    !kfd_mp_short_dequeue_wait_applies(KFD_GC_VERSION(node),
					       node->kfd->shared_resources.enable_mes))
		return;

	dqm->wait_times = kfd_mp_short_dequeue_wait_times(old);
	if (pm_update_grace_period(&dqm->packet_mgr,
				   USE_DEFAULT_GRACE_PERIOD)) {
		dev_err(node->adev->dev,
			"kfd: node %u: setting the dequeue retry wait failed\n",
			node->node_id);
		dqm->wait_times = old;
		return;
	}
	if (dqm->wait_times == old)
		return;
	dev_info(node->adev->dev,
		 "kfd: node %u: dequeue retry wait QUE_SLEEP 0x%lx -> 0x%x\n",
		 node->node_id, FIELD_GET(KFD_MP_QUE_SLEEP_MASK, old),
		 KFD_MP_QUE_SLEEP_SHORT);
}

/**
 * kfd_mp_mqd_queue_priority - the MQD's cp_hqd_queue_priority of a queue
 * @priority: the queue's priority (queue_properties.priority)
 *
 * Return: @priority with amdgpu.kfd_mqd_queue_priority on (stock), 0 with
 * it off.
 */
u32 kfd_mp_mqd_queue_priority(u32 priority)
{
	return kfd_mp_choice_effective(&kfd_mqd_queue_priority,
				       kfd_mp_enabled(), KFD_MP_HWS_ON,
				       KFD_MP_HWS_OFF) == KFD_MP_HWS_ON ?
		priority : 0;
}
