/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Multi-process scheduling statistics of one KFD node.
 *
 * Pure bookkeeping with no dependency on the rest of amdkfd, so that the
 * arithmetic can be tested with KUnit without a GPU. The device queue
 * manager feeds it (see kfd_mp.c); debugfs kfd/mp_stats prints it.
 */
#ifndef KFD_MP_STATS_H_INCLUDED
#define KFD_MP_STATS_H_INCLUDED

#include <linux/bits.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct seq_file;

/*
 * log2 histogram: bucket 0 counts the value 0, bucket i (i > 0) counts
 * values in [2^(i-1), 2^i), the last bucket everything from 2^(N-2) up.
 * With 24 buckets and microseconds the last one starts at 4.2 s, below
 * the default queue_preemption_timeout_ms of 9 s.
 */
#define KFD_MP_HIST_BUCKETS	24

enum kfd_mp_counter {
	KFD_MP_RUNLISTS,		/* runlists submitted to the HWS */
	KFD_MP_RUNLIST_FAILURES,	/* runlist submissions that failed */
	KFD_MP_UNMAPS,			/* unmap (preemption) cycles */
	KFD_MP_UNMAP_FAILURES,		/* preemptions that failed or timed out */
	KFD_MP_OVERSUB_RUNLISTS,	/* runlists sent oversubscribed */
	KFD_MP_OVERSUB_PROCESSES,	/* ... processes > max_proc_per_quantum */
	KFD_MP_OVERSUB_QUEUES,		/* ... active CP queues > HW queues */
	KFD_MP_OVERSUB_GWS,		/* ... more than one GWS queue */
	KFD_MP_SLOT_RANGE_HITS,		/* queue slots found in the range */
	KFD_MP_SLOT_COLLISIONS,		/* ... range full (slots taken) */
	KFD_MP_SLOT_FALLBACKS,		/* ... first-fit used instead */
	KFD_MP_DOORBELL_FOLLOWS,	/* doorbell ID = queue slot */
	KFD_MP_DOORBELL_FALLBACKS,	/* ... taken or reserved: first-fit */
	KFD_MP_DOORBELL_BO_PLACED,	/* doorbell pages at their slot */
	KFD_MP_DOORBELL_BO_FALLBACKS,	/* ... no slot or taken: first-fit */
	KFD_MP_RLQ_REQUESTS,		/* queued runlist: changes served */
	KFD_MP_RLQ_CYCLES,		/* ... cycles run */
	KFD_MP_RLQ_FLUSH_CYCLES,	/* ... of which run by stock paths */
	KFD_MP_RLQ_CYCLE_FAILURES,	/* ... cycles that failed */
	KFD_MP_RLQ_FAILED_REQUESTS,	/* ... changes that got an error */
	KFD_MP_NR_COUNTERS
};

enum kfd_mp_hist {
	KFD_MP_HIST_PREEMPT_US,		/* unmap: send to fence, us */
	KFD_MP_HIST_RUNLIST_US,		/* runlist: build and submit, us */
	KFD_MP_HIST_RLQ_BATCH,		/* queued runlist: changes per cycle */
	KFD_MP_HIST_RLQ_WAIT_US,	/* ... change submitted to served, us */
	KFD_MP_NR_HISTS
};

enum kfd_mp_peak {
	KFD_MP_PEAK_PROCESSES,		/* processes in one runlist */
	KFD_MP_PEAK_ACTIVE_QUEUES,	/* active queues in one runlist */
	KFD_MP_NR_PEAKS
};

/* Why the HWS time-slices a runlist (pm_calc_rlib_size()). */
#define KFD_MP_OVERSUB_PROCESSES_BIT	BIT(0)
#define KFD_MP_OVERSUB_QUEUES_BIT	BIT(1)
#define KFD_MP_OVERSUB_GWS_BIT		BIT(2)

/* The load a runlist is built for, and the limits that apply to it. */
struct kfd_mp_load {
	unsigned int processes;
	unsigned int max_processes;	/* max_proc_per_quantum, at least 1 */
	unsigned int active_queues;	/* all active queues, SDMA included */
	unsigned int cp_queues;		/* active compute queues */
	unsigned int max_cp_queues;	/* HW compute queues for the HWS */
	unsigned int gws_queues;
};

struct kfd_mp_hist_data {
	u64 count;
	u64 total;
	u64 max;
	u64 buckets[KFD_MP_HIST_BUCKETS];
};

struct kfd_mp_stats_snapshot {
	u64 counters[KFD_MP_NR_COUNTERS];
	struct kfd_mp_hist_data hists[KFD_MP_NR_HISTS];
	u64 peaks[KFD_MP_NR_PEAKS];
	u64 reset_ns;			/* ktime_get_ns() at the last reset */
};

struct kfd_mp_stats {
	spinlock_t lock;		/* protects snap */
	struct kfd_mp_stats_snapshot snap;
};

unsigned int kfd_mp_oversub_reasons(const struct kfd_mp_load *load);
unsigned int kfd_mp_hist_bucket(u64 value);

void kfd_mp_stats_init(struct kfd_mp_stats *st);
void kfd_mp_stats_reset(struct kfd_mp_stats *st);
void kfd_mp_stats_add(struct kfd_mp_stats *st, enum kfd_mp_counter c, u64 n);
void kfd_mp_stats_sample(struct kfd_mp_stats *st, enum kfd_mp_hist h, u64 v);
void kfd_mp_stats_runlist(struct kfd_mp_stats *st,
			  const struct kfd_mp_load *load,
			  unsigned int oversub_reasons, u64 duration_us,
			  bool failed);
void kfd_mp_stats_unmap(struct kfd_mp_stats *st, u64 wait_us, bool failed);
void kfd_mp_stats_rlq_cycle(struct kfd_mp_stats *st, unsigned int requests,
			    unsigned int failed, bool ran, bool flush,
			    bool cycle_failed);
void kfd_mp_stats_read(struct kfd_mp_stats *st,
		       struct kfd_mp_stats_snapshot *out);
void kfd_mp_stats_print(struct seq_file *m,
			const struct kfd_mp_stats_snapshot *snap, u64 now_ns);

#endif
