// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: the hooks of runlist submission and queue
 * preemption (unmap) in the device queue manager. They feed the statistics
 * (kfd_mp_stats.c) and the trace events; the runlist builder is not touched.
 */
#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_priv.h"
#include "kfd_trace.h"

static void kfd_mp_dqm_load(struct device_queue_manager *dqm,
			    struct kfd_mp_load *load)
{
	load->processes = dqm->processes_count;
	load->max_processes = dqm->dev->max_proc_per_quantum;
	load->active_queues = dqm->active_queue_count;
	load->cp_queues = dqm->active_cp_queue_count;
	load->max_cp_queues = get_cp_queues_num(dqm);
	load->gws_queues = dqm->gws_queue_count;
}

/**
 * kfd_mp_runlist_sent - account a runlist submission
 * @dqm: device queue manager, locked
 * @ret: result of pm_send_runlist()
 * @start: ktime_get() before pm_send_runlist()
 */
void kfd_mp_runlist_sent(struct device_queue_manager *dqm, int ret,
			 ktime_t start)
{
	u64 us = ktime_us_delta(ktime_get(), start);
	struct kfd_mp_load load;
	unsigned int reasons;

	kfd_mp_dqm_load(dqm, &load);
	reasons = kfd_mp_oversub_reasons(&load);
	kfd_mp_stats_runlist(&dqm->mp_stats, &load, reasons, us, ret != 0);
	trace_kfd_runlist_submit(dqm->dev->id, load.processes,
				 load.active_queues, reasons, us, ret);
}

/**
 * kfd_mp_unmap_done - account an unmap (preemption) cycle
 * @dqm: device queue manager, locked
 * @filter: the unmap filter (enum kfd_unmap_queues_filter)
 * @filter_param: PASID or queue, depending on @filter
 * @ret: result of the cycle, 0 when the fence signalled in time
 * @start: ktime_get() before the unmap was sent
 */
void kfd_mp_unmap_done(struct device_queue_manager *dqm, int filter,
		       u32 filter_param, int ret, ktime_t start)
{
	u64 us = ktime_us_delta(ktime_get(), start);

	kfd_mp_stats_unmap(&dqm->mp_stats, us, ret != 0);
	trace_kfd_unmap_queues(dqm->dev->id, filter, filter_param, ret, us);
}
