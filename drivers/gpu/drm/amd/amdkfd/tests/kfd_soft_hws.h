/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A software HWS for the device queue manager KUnit tests (kfd_dqm_test.c).
 *
 * It plays the MEC firmware's scheduler: a kthread consumes the PM4
 * packets that the real packet manager writes to the HIQ ring (kernel
 * queue in RAM, the wptr the driver writes, the rptr it reads back) and
 * executes them: SET_RESOURCES, RUN_LIST (it parses the runlist IB:
 * MAP_PROCESS, MAP_QUEUES), UNMAP_QUEUES (after a configurable preemption
 * time) and QUERY_STATUS (it writes the fence). Every RUN_LIST is
 * checked: it follows an UNMAP_QUEUES unless no runlist is active; each
 * packet in its IB has the size and the fields the packet manager must
 * write, and each MAP_QUEUES names an MQD that is allocated at the time
 * of the parse, for the queue and engine it was initialised for (SDMA
 * included). A breach is counted as a violation. It keeps the set of
 * mapped queues, and it can inject a preemption that never completes, a
 * failed preemption that leaves one queue hung (reported through the HIQ
 * MQD as the MEC does, found through hqd_get_pq_addr/hqd_reset), and it
 * counts what it did.
 *
 * It runs the HIQ from the KIQ's load of its MQD (kfd2kgd->hiq_mqd_load,
 * from pm_init() in the dqm's start) to the HIQ's destruction (pm_uninit()
 * in the dqm's stop) or a GPU reset, as the MEC does, so the driver's own
 * stop/start, suspend/resume and pre/post-reset paths re-create the HIQ
 * under it and it follows.
 *
 * Parsing the ring rather than installing a recording packet-manager
 * table keeps the whole packet manager (pm_send_*, pm_create_runlist_ib,
 * the kernel queue's ring, wptr and rptr handling) in the tested path.
 */
#ifndef KFD_SOFT_HWS_H_INCLUDED
#define KFD_SOFT_HWS_H_INCLUDED

#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#define SOFT_HWS_MAX_MAPPED	512

struct kfd_fake_node;

/* one queue of the runlist the HWS runs */
struct soft_hws_queue {
	u64 mqd_addr;
	u32 pasid;
	u32 doorbell_off;
};

enum soft_hws_inject {
	SOFT_HWS_INJECT_NONE,
	/* the next UNMAP_QUEUES never completes: no fence, nothing after it */
	SOFT_HWS_INJECT_HANG,
	/* the next UNMAP_QUEUES leaves the queue with doorbell hung_doorbell */
	SOFT_HWS_INJECT_FAIL_PREEMPT,
};

struct soft_hws {
	struct kfd_fake_node *fake;
	struct task_struct *thread;
	bool stop;			/* the thread is to end */
	struct completion exited;	/* and it has */

	/*
	 * the HIQ ring, its write pointer (the driver's) and read pointer;
	 * set while the HIQ is loaded (soft_hws_load() to soft_hws_stop())
	 */
	u32 *ring;
	u32 ring_dw;
	u64 *wptr64;
	u32 *rptr;
	u64 rd;
	/* the HIQ MQD of XCC 0, where a failed preemption is reported */
	void *hiq_mqd;

	spinlock_t lock;	/* protects everything below */
	struct soft_hws_queue mapped[SOFT_HWS_MAX_MAPPED];
	unsigned int nmapped;
	bool runlist_active;
	/* an UNMAP_QUEUES ran since the last RUN_LIST */
	bool unmapped;
	unsigned int preempt_us;
	enum soft_hws_inject inject;
	bool stalled;
	/*
	 * a GPU reset has begun (kfd_fake_gpu_reset()), from before it waits
	 * for the reset domain until the ASIC reset (soft_hws_reset())
	 */
	bool reset_begun;
	u32 hung_doorbell;
	u64 hung_pq_addr;
	bool hung;		/* hung_pq_addr is still on the HQD */

	/* what it executed */
	unsigned int loads;	/* HIQ loads: dqm starts */
	unsigned int resets;	/* GPU resets */
	unsigned int set_resources;
	unsigned int runlists;
	unsigned int unmaps;
	unsigned int fences;
	unsigned int queue_resets;
	unsigned int fail_preempts;	/* injected failed preemptions taken */
	unsigned int bad_packets;
	unsigned int max_mapped;
	unsigned int max_processes;
	/*
	 * invariant violations seen by the fake node's MQD hooks and by the
	 * runlist parser; the first one's description
	 */
	unsigned int violations;
	char violation[160];
};

#endif
