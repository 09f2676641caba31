// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling statistics of one KFD node; see kfd_mp_stats.h.
 */
#include <linux/bitops.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "kfd_mp_stats.h"

static const char * const kfd_mp_counter_names[KFD_MP_NR_COUNTERS] = {
	[KFD_MP_RUNLISTS] = "runlists",
	[KFD_MP_RUNLIST_FAILURES] = "runlist_failures",
	[KFD_MP_UNMAPS] = "unmaps",
	[KFD_MP_UNMAP_FAILURES] = "unmap_failures",
	[KFD_MP_OVERSUB_RUNLISTS] = "oversub_runlists",
	[KFD_MP_OVERSUB_PROCESSES] = "oversub_processes",
	[KFD_MP_OVERSUB_QUEUES] = "oversub_queues",
	[KFD_MP_OVERSUB_GWS] = "oversub_gws",
	[KFD_MP_SLOT_RANGE_HITS] = "slot_range_hits",
	[KFD_MP_SLOT_COLLISIONS] = "slot_collisions",
	[KFD_MP_SLOT_FALLBACKS] = "slot_fallbacks",
	[KFD_MP_DOORBELL_FOLLOWS] = "doorbell_id_follows",
	[KFD_MP_DOORBELL_FALLBACKS] = "doorbell_id_fallbacks",
	[KFD_MP_DOORBELL_BO_PLACED] = "doorbell_bo_placed",
	[KFD_MP_DOORBELL_BO_FALLBACKS] = "doorbell_bo_fallbacks",
	[KFD_MP_RLQ_REQUESTS] = "rlq_requests",
	[KFD_MP_RLQ_CYCLES] = "rlq_cycles",
	[KFD_MP_RLQ_FLUSH_CYCLES] = "rlq_flush_cycles",
	[KFD_MP_RLQ_CYCLE_FAILURES] = "rlq_cycle_failures",
	[KFD_MP_RLQ_FAILED_REQUESTS] = "rlq_failed_requests",
};

static const char * const kfd_mp_hist_names[KFD_MP_NR_HISTS] = {
	[KFD_MP_HIST_PREEMPT_US] = "preempt_us",
	[KFD_MP_HIST_RUNLIST_US] = "runlist_us",
	[KFD_MP_HIST_RLQ_BATCH] = "rlq_batch",
	[KFD_MP_HIST_RLQ_WAIT_US] = "rlq_wait_us",
};

static const char * const kfd_mp_peak_names[KFD_MP_NR_PEAKS] = {
	[KFD_MP_PEAK_PROCESSES] = "peak_processes",
	[KFD_MP_PEAK_ACTIVE_QUEUES] = "peak_active_queues",
};

/**
 * kfd_mp_oversub_reasons - why a runlist for @load must be time-sliced
 * @load: processes and queues of the runlist and the limits of the node
 *
 * Same rule as the HWS runlist builder: more processes than fit in one
 * quantum, more active compute queues than hardware queues, or more than
 * one GWS queue.
 *
 * Return: a mask of KFD_MP_OVERSUB_*_BIT, 0 if the runlist fits.
 */
unsigned int kfd_mp_oversub_reasons(const struct kfd_mp_load *load)
{
	unsigned int reasons = 0;

	if (load->processes > max(load->max_processes, 1u))
		reasons |= KFD_MP_OVERSUB_PROCESSES_BIT;
	if (load->cp_queues > load->max_cp_queues)
		reasons |= KFD_MP_OVERSUB_QUEUES_BIT;
	if (load->gws_queues > 1)
		reasons |= KFD_MP_OVERSUB_GWS_BIT;
	return reasons;
}

/**
 * kfd_mp_hist_bucket - histogram bucket of @value
 * @value: the sample
 *
 * Return: 0 for 0, else fls64(@value) capped at the last bucket.
 */
unsigned int kfd_mp_hist_bucket(u64 value)
{
	return min_t(unsigned int, fls64(value), KFD_MP_HIST_BUCKETS - 1);
}

void kfd_mp_stats_init(struct kfd_mp_stats *st)
{
	spin_lock_init(&st->lock);
	kfd_mp_stats_reset(st);
}

void kfd_mp_stats_reset(struct kfd_mp_stats *st)
{
	spin_lock(&st->lock);
	memset(&st->snap, 0, sizeof(st->snap));
	st->snap.reset_ns = ktime_get_ns();
	spin_unlock(&st->lock);
}

static void kfd_mp_hist_add(struct kfd_mp_hist_data *h, u64 v)
{
	h->count++;
	h->total += v;
	h->max = max(h->max, v);
	h->buckets[kfd_mp_hist_bucket(v)]++;
}

void kfd_mp_stats_add(struct kfd_mp_stats *st, enum kfd_mp_counter c, u64 n)
{
	spin_lock(&st->lock);
	st->snap.counters[c] += n;
	spin_unlock(&st->lock);
}

void kfd_mp_stats_sample(struct kfd_mp_stats *st, enum kfd_mp_hist h, u64 v)
{
	spin_lock(&st->lock);
	kfd_mp_hist_add(&st->snap.hists[h], v);
	spin_unlock(&st->lock);
}

/**
 * kfd_mp_stats_runlist - account one runlist submission
 * @st: statistics of the node
 * @load: what the runlist held
 * @oversub_reasons: kfd_mp_oversub_reasons() of @load
 * @duration_us: time to build and submit the runlist
 * @failed: the submission failed
 *
 * Updates counters, oversubscription reasons, the duration histogram and
 * the peaks in one critical section, so a reader never sees half of it.
 */
void kfd_mp_stats_runlist(struct kfd_mp_stats *st,
			  const struct kfd_mp_load *load,
			  unsigned int oversub_reasons, u64 duration_us,
			  bool failed)
{
	struct kfd_mp_stats_snapshot *s = &st->snap;

	spin_lock(&st->lock);
	s->counters[failed ? KFD_MP_RUNLIST_FAILURES : KFD_MP_RUNLISTS]++;
	if (oversub_reasons)
		s->counters[KFD_MP_OVERSUB_RUNLISTS]++;
	if (oversub_reasons & KFD_MP_OVERSUB_PROCESSES_BIT)
		s->counters[KFD_MP_OVERSUB_PROCESSES]++;
	if (oversub_reasons & KFD_MP_OVERSUB_QUEUES_BIT)
		s->counters[KFD_MP_OVERSUB_QUEUES]++;
	if (oversub_reasons & KFD_MP_OVERSUB_GWS_BIT)
		s->counters[KFD_MP_OVERSUB_GWS]++;
	kfd_mp_hist_add(&s->hists[KFD_MP_HIST_RUNLIST_US], duration_us);
	s->peaks[KFD_MP_PEAK_PROCESSES] =
		max_t(u64, s->peaks[KFD_MP_PEAK_PROCESSES], load->processes);
	s->peaks[KFD_MP_PEAK_ACTIVE_QUEUES] =
		max_t(u64, s->peaks[KFD_MP_PEAK_ACTIVE_QUEUES],
		      load->active_queues);
	spin_unlock(&st->lock);
}

/**
 * kfd_mp_stats_unmap - account one unmap (preemption) cycle
 * @st: statistics of the node
 * @wait_us: time from sending the unmap to the fence (or the failure)
 * @failed: the preemption failed or timed out
 */
void kfd_mp_stats_unmap(struct kfd_mp_stats *st, u64 wait_us, bool failed)
{
	spin_lock(&st->lock);
	st->snap.counters[KFD_MP_UNMAPS]++;
	if (failed)
		st->snap.counters[KFD_MP_UNMAP_FAILURES]++;
	kfd_mp_hist_add(&st->snap.hists[KFD_MP_HIST_PREEMPT_US], wait_us);
	spin_unlock(&st->lock);
}

/**
 * kfd_mp_stats_rlq_cycle - account one cycle of the queued runlist
 * @st: statistics of the node
 * @requests: changes it served
 * @failed: of which got an error
 * @ran: a cycle ran; false when pending changes were failed at teardown
 * @flush: the cycle was run by a stock path before its own preemption
 * @cycle_failed: the cycle returned an error
 *
 * The time each change waited is sampled separately, into
 * KFD_MP_HIST_RLQ_WAIT_US.
 */
void kfd_mp_stats_rlq_cycle(struct kfd_mp_stats *st, unsigned int requests,
			    unsigned int failed, bool ran, bool flush,
			    bool cycle_failed)
{
	u64 *c = st->snap.counters;

	spin_lock(&st->lock);
	c[KFD_MP_RLQ_REQUESTS] += requests;
	c[KFD_MP_RLQ_FAILED_REQUESTS] += failed;
	if (ran) {
		c[KFD_MP_RLQ_CYCLES]++;
		if (flush)
			c[KFD_MP_RLQ_FLUSH_CYCLES]++;
		if (cycle_failed)
			c[KFD_MP_RLQ_CYCLE_FAILURES]++;
		kfd_mp_hist_add(&st->snap.hists[KFD_MP_HIST_RLQ_BATCH],
				requests);
	}
	spin_unlock(&st->lock);
}

/**
 * kfd_mp_stats_read - take a consistent copy of the statistics
 * @st: statistics of the node
 * @out: where to copy them
 */
void kfd_mp_stats_read(struct kfd_mp_stats *st,
		       struct kfd_mp_stats_snapshot *out)
{
	spin_lock(&st->lock);
	*out = st->snap;
	spin_unlock(&st->lock);
}

/**
 * kfd_mp_stats_print - print a snapshot as "name: value" lines
 * @m: the seq_file of debugfs kfd/mp_stats
 * @snap: a snapshot from kfd_mp_stats_read()
 * @now_ns: ktime_get_ns() of the read, for the age of the statistics
 */
void kfd_mp_stats_print(struct seq_file *m,
			const struct kfd_mp_stats_snapshot *snap, u64 now_ns)
{
	unsigned int i, b;

	seq_printf(m, "  since_reset_ms: %llu\n",
		   (now_ns - snap->reset_ns) / NSEC_PER_MSEC);
	for (i = 0; i < KFD_MP_NR_COUNTERS; i++)
		seq_printf(m, "  %s: %llu\n", kfd_mp_counter_names[i],
			   snap->counters[i]);
	for (i = 0; i < KFD_MP_NR_PEAKS; i++)
		seq_printf(m, "  %s: %llu\n", kfd_mp_peak_names[i],
			   snap->peaks[i]);
	for (i = 0; i < KFD_MP_NR_HISTS; i++) {
		const struct kfd_mp_hist_data *h = &snap->hists[i];
		const char *name = kfd_mp_hist_names[i];

		seq_printf(m, "  %s_count: %llu\n", name, h->count);
		seq_printf(m, "  %s_total: %llu\n", name, h->total);
		seq_printf(m, "  %s_max: %llu\n", name, h->max);
		seq_printf(m, "  %s_log2_hist:", name);
		for (b = 0; b < KFD_MP_HIST_BUCKETS; b++)
			seq_printf(m, " %llu", h->buckets[b]);
		seq_puts(m, "\n");
	}
}
