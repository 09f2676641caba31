// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A software HWS for the device queue manager KUnit tests; see
 * kfd_soft_hws.h. Included by kfd_dqm_test.c.
 */
#include <linux/delay.h>
#include <linux/kcsan-checks.h>
#include "kfd_pm4_headers_ai.h"
#include "kfd_pm4_headers_aldebaran.h"
#include "kfd_pm4_opcodes.h"
#include "v9_structs.h"

/* a GPU address of the fake GTT as a CPU pointer, NULL if outside */
static void *soft_hws_gtt_cpu(struct soft_hws *hws, u64 gpu, size_t size)
{
	struct kfd_fake_node *fake = hws->fake;

	if (gpu < fake->gtt_gpu || gpu + size > fake->gtt_gpu + KFD_FAKE_GTT_SIZE)
		return NULL;
	return fake->gtt + (gpu - fake->gtt_gpu);
}

/* hws->lock held */
static int soft_hws_find(struct soft_hws *hws, u64 mqd_addr)
{
	unsigned int i;

	for (i = 0; i < hws->nmapped; i++)
		if (hws->mapped[i].mqd_addr == mqd_addr)
			return i;
	return -1;
}

/* hws->lock held: count a broken invariant, describe the first one */
static __printf(2, 3) void soft_hws_fail(struct soft_hws *hws,
					 const char *fmt, ...)
{
	va_list args;

	/* a hung HWS runs nothing any more: the GPU reset cleans up */
	if (hws->stalled)
		return;
	if (hws->violations++)
		return;
	va_start(args, fmt);
	vsnprintf(hws->violation, sizeof(hws->violation), fmt, args);
	va_end(args);
}

/*
 * hws->lock held: an MQD that the HWS maps was touched. Not held against
 * the driver once a GPU reset has begun (reset_begun): from the moment
 * amdgpu_device_lock_reset_domain() waits, every dqm path's
 * down_read_trylock() of the reset domain fails, and the driver lets go
 * of what the reset will clean up (destroy_queue_cpsch() frees the MQD
 * after its -EIO), while the MEC runs on until amdgpu halts it for the
 * ASIC reset.
 */
static void soft_hws_violation(struct soft_hws *hws, const char *what, u64 addr)
{
	if (hws->reset_begun)
		return;
	soft_hws_fail(hws, "%s: MQD 0x%llx is mapped by the HWS", what, addr);
}

/* hws->lock held: the live MQD at @gpu for doorbell @db, or NULL */
static struct kfd_fake_mqd *soft_hws_live_mqd(struct soft_hws *hws, u64 gpu,
					      u32 db)
{
	struct kfd_fake_mqd *m = hws->fake->mqds;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hws->fake->mqds); i++)
		if (m[i].obj && m[i].gpu_addr == gpu && m[i].doorbell_off == db)
			return &m[i];
	return NULL;
}

/*
 * hws->lock held: a MAP_QUEUES of the runlist IB against what
 * pm_map_queues_v9() writes for the MQD it names
 */
static void soft_hws_check_map_queues(struct soft_hws *hws,
				      struct pm4_mes_map_queues *mq, u64 mqd,
				      u32 len, bool in_process)
{
	u32 db = mq->bitfields3.doorbell_offset;
	u32 eng = mq->bitfields2.engine_sel;
	u32 ext = mq->bitfields2.extended_engine_sel;
	u32 qt = mq->bitfields2.queue_type;
	struct kfd_fake_mqd *m;
	u32 sdma;

	if (len != sizeof(*mq) / 4 || !in_process ||
	    mq->bitfields2.num_queues != 1 ||
	    mq->bitfields2.queue_sel !=
	    queue_sel__mes_map_queues__map_to_hws_determined_queue_slots_vi) {
		soft_hws_fail(hws,
			      "map_queues: MQD 0x%llx: %u dwords, %s a map_process, num_queues %u, queue_sel %u",
			      mqd, len, in_process ? "after" : "without",
			      mq->bitfields2.num_queues,
			      mq->bitfields2.queue_sel);
		return;
	}
	m = soft_hws_live_mqd(hws, mqd, db);
	/* freed after a runlist that was sent before a reset began: as above */
	if (!m && hws->reset_begun)
		return;
	if (!m) {
		soft_hws_fail(hws,
			      "map_queues: MQD 0x%llx (doorbell 0x%x) is not allocated for that queue",
			      mqd, db);
		return;
	}
	if (m->sdma) {
		if (ext == extended_engine_sel__mes_map_queues__legacy_engine_sel)
			sdma = eng - engine_sel__mes_map_queues__sdma0_vi;
		else if (ext == extended_engine_sel__mes_map_queues__sdma0_to_7_sel &&
			 eng < 8)
			sdma = eng;
		else if (ext == extended_engine_sel__mes_map_queues__sdma8_to_15_sel &&
			 eng < 8)
			sdma = 8 + eng;
		else
			sdma = U32_MAX;
		if (sdma != m->sdma_engine_id ||
		    qt != queue_type__mes_map_queues__normal_compute_vi)
			soft_hws_fail(hws,
				      "map_queues: SDMA MQD 0x%llx of engine %u: engine_sel %u, extended %u, queue_type %u",
				      mqd, m->sdma_engine_id, eng, ext, qt);
		return;
	}
	if (eng != engine_sel__mes_map_queues__compute_vi ||
	    ext != extended_engine_sel__mes_map_queues__legacy_engine_sel ||
	    (m->debug ? qt != queue_type__mes_map_queues__debug_interface_queue_vi :
	     qt != queue_type__mes_map_queues__normal_compute_vi &&
	     qt != queue_type__mes_map_queues__normal_latency_static_queue_vi))
		soft_hws_fail(hws,
			      "map_queues: compute MQD 0x%llx: engine_sel %u, extended %u, queue_type %u",
			      mqd, eng, ext, qt);
}

/* hws->lock held: unmap entry @i */
static void soft_hws_drop(struct soft_hws *hws, unsigned int i)
{
	hws->mapped[i] = hws->mapped[--hws->nmapped];
}

static void soft_hws_run_list(struct soft_hws *hws, u64 ib, u32 ib_dw)
{
	u32 *p = soft_hws_gtt_cpu(hws, ib, (size_t)ib_dw * 4);
	unsigned int procs = 0, pos = 0;
	u32 pasid = 0;

	spin_lock(&hws->lock);
	if (!p) {
		hws->bad_packets++;
		goto out;
	}
	/*
	 * The driver unmaps before it sends a new runlist (its
	 * active_runlist); the MEC would otherwise run two at once.
	 */
	if (hws->runlist_active && !hws->unmapped)
		soft_hws_fail(hws,
			      "run_list: sent over a live runlist of %u queues without unmap_queues",
			      hws->nmapped);
	hws->unmapped = false;
	/* a new runlist replaces the old one; a hung queue stays on its HQD */
	hws->nmapped = 0;
	while (pos < ib_dw) {
		union PM4_MES_TYPE_3_HEADER h = { .u32All = p[pos] };
		u32 len = h.count + 2;

		if (!h.u32All)
			break;	/* the rest of the IB is unused */
		if (pos + len > ib_dw) {
			soft_hws_fail(hws,
				      "run_list: a packet of %u dwords at dword %u overruns the IB of %u",
				      len, pos, ib_dw);
			break;
		}
		switch (h.opcode) {
		case IT_MAP_PROCESS: {
			struct pm4_mes_map_process_aldebaran *mp = (void *)&p[pos];

			pasid = mp->bitfields2.pasid;
			if (len != sizeof(*mp) / 4 || !pasid)
				soft_hws_fail(hws, "map_process: %u dwords, pasid %u",
					      len, pasid);
			procs++;
			break;
		}
		case IT_MAP_QUEUES: {
			struct pm4_mes_map_queues *mq = (void *)&p[pos];
			u64 mqd = (u64)mq->mqd_addr_hi << 32 | mq->mqd_addr_lo;

			soft_hws_check_map_queues(hws, mq, mqd, len, procs > 0);
			if (soft_hws_find(hws, mqd) >= 0 ||
			    hws->nmapped >= SOFT_HWS_MAX_MAPPED) {
				hws->bad_packets++;
				break;
			}
			hws->mapped[hws->nmapped].mqd_addr = mqd;
			hws->mapped[hws->nmapped].pasid = pasid;
			hws->mapped[hws->nmapped].doorbell_off =
				mq->bitfields3.doorbell_offset;
			hws->nmapped++;
			break;
		}
		case IT_RUN_LIST:	/* oversubscribed: chained to itself */
			pos = ib_dw;
			continue;
		default:
			hws->bad_packets++;
			break;
		}
		pos += len;
	}
	hws->runlist_active = true;
	hws->runlists++;
	hws->max_mapped = max(hws->max_mapped, hws->nmapped);
	hws->max_processes = max(hws->max_processes, procs);
out:
	spin_unlock(&hws->lock);
}

/*
 * hws->lock held: the ring address on the HQD of the mapped compute queue
 * @q, from its live MQD (what hqd_get_pq_addr() reads back); the
 * injected address stays if the MQD is not a live compute MQD
 */
static void soft_hws_hung_pq(struct soft_hws *hws, struct soft_hws_queue *q)
{
	struct kfd_fake_mqd *live = soft_hws_live_mqd(hws, q->mqd_addr,
						      q->doorbell_off);
	struct v9_mqd *m;

	if (!live || live->sdma || live->debug || !live->obj->cpu_ptr)
		return;
	m = (struct v9_mqd *)live->obj->cpu_ptr;
	hws->hung_pq_addr = ((u64)m->cp_hqd_pq_base_hi << 32 |
			     m->cp_hqd_pq_base_lo) << 8;
}

/*
 * returns false if the HWS stalls on this packet. The MEC reports in the
 * HIQ MQD, for every UNMAP_QUEUES, the doorbell of a queue it failed to
 * preempt, or none; the driver reads it after the fence
 * (check_preemption_failed()).
 */
static bool soft_hws_unmap(struct soft_hws *hws,
			   struct pm4_mes_unmap_queues *um)
{
	unsigned int i, preempt_us;
	enum soft_hws_inject inject;
	struct v9_mqd *m;
	u32 failed = 0;

	spin_lock(&hws->lock);
	inject = hws->inject;
	hws->inject = SOFT_HWS_INJECT_NONE;
	preempt_us = hws->preempt_us;
	if (inject == SOFT_HWS_INJECT_HANG) {
		hws->stalled = true;
		spin_unlock(&hws->lock);
		return false;
	}
	spin_unlock(&hws->lock);

	if (preempt_us)
		fsleep(preempt_us);

	spin_lock(&hws->lock);
	hws->unmaps++;
	hws->unmapped = true;
	for (i = 0; i < hws->nmapped;) {
		struct soft_hws_queue *q = &hws->mapped[i];
		bool match;

		switch (um->bitfields2.queue_sel) {
		case queue_sel__mes_unmap_queues__perform_request_on_pasid_queues:
			match = q->pasid == um->bitfields3a.pasid;
			break;
		case queue_sel__mes_unmap_queues__unmap_all_queues:
		case queue_sel__mes_unmap_queues__unmap_all_non_static_queues:
			match = true;
			break;
		default:
			match = q->doorbell_off == um->bitfields3b.doorbell_offset0;
			break;
		}
		/* injected now, or still hung on its HQD from before */
		if (match && q->doorbell_off == hws->hung_doorbell &&
		    (inject == SOFT_HWS_INJECT_FAIL_PREEMPT || hws->hung)) {
			/*
			 * the MEC gives up on it and names it in the HIQ MQD;
			 * its HQD keeps the ring address of the queue's MQD
			 */
			failed = q->doorbell_off;
			if (!hws->hung)
				soft_hws_hung_pq(hws, q);
			hws->hung = true;
			i++;
			continue;
		}
		if (match)
			soft_hws_drop(hws, i);
		else
			i++;
	}
	if (!hws->nmapped)
		hws->runlist_active = false;
	if (inject == SOFT_HWS_INJECT_FAIL_PREEMPT && failed)
		hws->fail_preempts++;
	m = hws->hiq_mqd;
	/* written by the device: see soft_hws_query_status() */
	kcsan_disable_current();
	WRITE_ONCE(m->queue_doorbell_id0, failed);
	kcsan_enable_current();
	spin_unlock(&hws->lock);
	return true;
}

static void soft_hws_query_status(struct soft_hws *hws,
				  struct pm4_mes_query_status *qs)
{
	u64 addr = (u64)qs->addr_hi << 32 | qs->addr_lo;
	u64 *fence = soft_hws_gtt_cpu(hws, addr, sizeof(u64));

	spin_lock(&hws->lock);
	if (!fence) {
		hws->bad_packets++;
	} else {
		smp_wmb();	/* everything before the fence is visible first */
		/*
		 * On hardware the CP writes the fence by DMA, which KCSAN
		 * cannot see, while amdkfd_fence_wait_timeout() polls it with
		 * plain reads. Write it as a device does: unchecked. The KCSAN
		 * configuration of this suite does not report a value that
		 * changes under a watchpoint with no CPU writer (unknown
		 * origin), which is what a device write is.
		 */
		kcsan_disable_current();
		WRITE_ONCE(*fence, (u64)qs->data_hi << 32 | qs->data_lo);
		kcsan_enable_current();
		hws->fences++;
	}
	spin_unlock(&hws->lock);
}

/* execute the packet at hws->rd; false if the HWS stalls on it */
static bool soft_hws_exec(struct soft_hws *hws)
{
	u32 *p = &hws->ring[hws->rd % hws->ring_dw];
	union PM4_MES_TYPE_3_HEADER h = { .u32All = READ_ONCE(*p) };
	u32 len = h.count + 2;

	if (h.opcode == IT_NOP && h.count == 0x3fff)
		len = 1;	/* kq->nop_packet: one dword */
	switch (h.opcode) {
	case IT_NOP:
		break;
	case IT_SET_RESOURCES:
		spin_lock(&hws->lock);
		hws->set_resources++;
		spin_unlock(&hws->lock);
		break;
	case IT_RUN_LIST: {
		struct pm4_mes_runlist *rl = (void *)p;

		soft_hws_run_list(hws, (u64)rl->ib_base_hi << 32 | rl->ordinal2,
				  rl->bitfields4.ib_size);
		break;
	}
	case IT_UNMAP_QUEUES:
		if (!soft_hws_unmap(hws, (void *)p))
			return false;
		break;
	case IT_QUERY_STATUS:
		soft_hws_query_status(hws, (void *)p);
		break;
	default:
		spin_lock(&hws->lock);
		hws->bad_packets++;
		spin_unlock(&hws->lock);
		break;
	}
	WRITE_ONCE(hws->rd, hws->rd + len);
	WRITE_ONCE(*hws->rptr, hws->rd % hws->ring_dw);
	return true;
}

static int soft_hws_thread(void *data)
{
	struct soft_hws *hws = data;

	while (!READ_ONCE(hws->stop)) {
		bool stalled;

		spin_lock(&hws->lock);
		stalled = hws->stalled;
		spin_unlock(&hws->lock);
		if (stalled || hws->rd == READ_ONCE(*hws->wptr64)) {
			usleep_range(20, 40);
			continue;
		}
		smp_rmb();	/* the packet is there before the wptr */
		soft_hws_exec(hws);
	}
	/* the completion lives in the fake node, after the thread */
	complete(&hws->exited);
	return 0;
}

static void soft_hws_stop(struct kfd_fake_node *fake);

/*
 * The KIQ loads the HIQ's MQD (kfd2kgd->hiq_mqd_load, from pm_init() in
 * the dqm's start): the MEC runs the ring that MQD names from then on,
 * until the HIQ is destroyed (pm_uninit() in the dqm's stop) or the GPU is
 * reset. Like the MEC, take the ring, its read pointer report address and
 * its write pointer poll address from the MQD (GPU addresses in the fake
 * GTT), and start executing it.
 */
static void soft_hws_load(struct kfd_fake_node *fake, void *mqd)
{
	struct soft_hws *hws = &fake->hws;
	struct v9_mqd *m = mqd;
	u64 pq = ((u64)m->cp_hqd_pq_base_hi << 32 | m->cp_hqd_pq_base_lo) << 8;
	u64 rptr = (u64)m->cp_hqd_pq_rptr_report_addr_hi << 32 |
		   m->cp_hqd_pq_rptr_report_addr_lo;
	u64 wptr = (u64)m->cp_hqd_pq_wptr_poll_addr_hi << 32 |
		   m->cp_hqd_pq_wptr_poll_addr_lo;
	u32 ring_dw = 2U << (m->cp_hqd_pq_control & 0x3f);
	void *ring = soft_hws_gtt_cpu(hws, pq, ring_dw * 4);
	struct task_struct *t;

	/* a load replaces whatever that HQD ran */
	soft_hws_stop(fake);
	spin_lock(&hws->lock);
	hws->loads++;
	hws->ring = ring;
	hws->ring_dw = ring_dw;
	hws->rptr = soft_hws_gtt_cpu(hws, rptr, sizeof(u32));
	hws->wptr64 = soft_hws_gtt_cpu(hws, wptr, sizeof(u64));
	hws->rd = 0;
	hws->hiq_mqd = mqd;
	if (!hws->ring || !hws->rptr || !hws->wptr64) {
		soft_hws_fail(hws,
			      "hiq_mqd_load: ring 0x%llx, rptr 0x%llx, wptr 0x%llx outside the GTT",
			      pq, rptr, wptr);
		hws->ring = NULL;
		hws->wptr64 = NULL;
		hws->rptr = NULL;
		spin_unlock(&hws->lock);
		return;
	}
	spin_unlock(&hws->lock);
	WRITE_ONCE(hws->stop, false);
	init_completion(&hws->exited);
	t = kthread_run(soft_hws_thread, hws, "kfd_soft_hws");
	if (IS_ERR(t)) {
		spin_lock(&hws->lock);
		soft_hws_fail(hws, "hiq_mqd_load: no HWS thread (%ld)",
			      PTR_ERR(t));
		hws->ring = NULL;
		hws->wptr64 = NULL;
		hws->rptr = NULL;
		spin_unlock(&hws->lock);
		return;
	}
	hws->thread = t;
}

/*
 * Stop executing the HIQ: it was destroyed, or the GPU is being reset.
 * Only the thread (started by soft_hws_load()) reads the ring pointers
 * without hws->lock; once it has stopped, they are cleared under it.
 */
static void soft_hws_stop(struct kfd_fake_node *fake)
{
	struct soft_hws *hws = &fake->hws;

	/*
	 * Not kthread_stop(): the thread would exit while kthread_stop()
	 * still reads its task flags, a race in the kthread core that KCSAN
	 * reports; the thread says it is done instead, and its task is not
	 * touched again.
	 */
	if (!IS_ERR_OR_NULL(hws->thread)) {
		WRITE_ONCE(hws->stop, true);
		wait_for_completion(&hws->exited);
	}
	hws->thread = NULL;
	spin_lock(&hws->lock);
	hws->ring = NULL;
	hws->wptr64 = NULL;
	hws->rptr = NULL;
	spin_unlock(&hws->lock);
}

/* the driver's write pointer, or the read position while nothing runs */
static u64 soft_hws_wptr(struct soft_hws *hws)
{
	u64 wptr;

	spin_lock(&hws->lock);
	wptr = hws->wptr64 ? READ_ONCE(*hws->wptr64) : READ_ONCE(hws->rd);
	spin_unlock(&hws->lock);
	return wptr;
}

/*
 * Wait until the HWS has executed everything the driver submitted (or is
 * stuck): a runlist is sent without waiting for the HWS, as on hardware.
 */
static void soft_hws_sync(struct soft_hws *hws)
{
	unsigned int i;

	for (i = 0; i < 20000; i++) {
		bool stalled;

		spin_lock(&hws->lock);
		stalled = hws->stalled;
		spin_unlock(&hws->lock);
		if (stalled || READ_ONCE(hws->rd) == soft_hws_wptr(hws))
			return;
		usleep_range(50, 100);
	}
}

/* UNMAP_QUEUES packets submitted but not executed (the HWS is stuck) */
static unsigned int soft_hws_pending_unmaps(struct soft_hws *hws)
{
	u64 pos = READ_ONCE(hws->rd), end = soft_hws_wptr(hws);
	unsigned int n = 0;

	if (!hws->ring)
		return 0;
	while (pos < end) {
		union PM4_MES_TYPE_3_HEADER h = {
			.u32All = hws->ring[pos % hws->ring_dw],
		};

		if (h.opcode == IT_UNMAP_QUEUES)
			n++;
		pos += (h.opcode == IT_NOP && h.count == 0x3fff) ? 1 :
		       h.count + 2;
	}
	return n;
}

/*
 * A GPU reset: the HWS drops its runlist and what it was stuck on; what
 * the driver had submitted and the HWS had not executed is lost. If the
 * HIQ is still loaded (a case that resets by hand), the HWS goes on at
 * the driver's write pointer; after the driver's own reset path
 * (kfd_fake_gpu_reset()) the HIQ is gone and the next soft_hws_load()
 * starts on the new one.
 */
static void soft_hws_reset(struct soft_hws *hws)
{
	spin_lock(&hws->lock);
	hws->nmapped = 0;
	hws->runlist_active = false;
	hws->unmapped = false;
	hws->stalled = false;
	hws->reset_begun = false;
	hws->hung = false;
	hws->inject = SOFT_HWS_INJECT_NONE;
	hws->resets++;
	if (hws->wptr64) {
		hws->rd = READ_ONCE(*hws->wptr64);
		WRITE_ONCE(*hws->rptr, hws->rd % hws->ring_dw);
	}
	spin_unlock(&hws->lock);
}

/* the preemption time of the UNMAP_QUEUES packets from now on */
static void soft_hws_set_preempt(struct soft_hws *hws, unsigned int preempt_us)
{
	spin_lock(&hws->lock);
	hws->preempt_us = preempt_us;
	spin_unlock(&hws->lock);
}

/* inject @inject into the next UNMAP_QUEUES */
static void soft_hws_inject(struct soft_hws *hws, enum soft_hws_inject inject,
			    u32 hung_doorbell, u64 hung_pq_addr)
{
	spin_lock(&hws->lock);
	hws->inject = inject;
	hws->hung_doorbell = hung_doorbell;
	hws->hung_pq_addr = hung_pq_addr;
	spin_unlock(&hws->lock);
}

/* no UNMAP_QUEUES has taken the injection yet */
static bool soft_hws_pending(struct soft_hws *hws)
{
	bool pending;

	spin_lock(&hws->lock);
	pending = hws->inject != SOFT_HWS_INJECT_NONE;
	spin_unlock(&hws->lock);
	return pending;
}

/*
 * Take an injection back if no UNMAP_QUEUES has taken it yet; true if
 * it was taken back
 */
static bool soft_hws_withdraw(struct soft_hws *hws)
{
	bool pending;

	spin_lock(&hws->lock);
	pending = hws->inject != SOFT_HWS_INJECT_NONE;
	hws->inject = SOFT_HWS_INJECT_NONE;
	spin_unlock(&hws->lock);
	return pending;
}

/* the HWS is stuck on an UNMAP_QUEUES (a hang) or held in a GPU reset */
static bool soft_hws_stalled(struct soft_hws *hws)
{
	bool stalled;

	spin_lock(&hws->lock);
	stalled = hws->stalled;
	spin_unlock(&hws->lock);
	return stalled;
}

/* a queue that failed its preemption is still on its HQD */
static bool soft_hws_queue_hung(struct soft_hws *hws)
{
	bool hung;

	spin_lock(&hws->lock);
	hung = hws->hung;
	spin_unlock(&hws->lock);
	return hung;
}

static void soft_hws_set(struct soft_hws *hws, unsigned int preempt_us,
			 enum soft_hws_inject inject, u32 hung_doorbell,
			 u64 hung_pq_addr)
{
	spin_lock(&hws->lock);
	hws->preempt_us = preempt_us;
	hws->inject = inject;
	hws->hung_doorbell = hung_doorbell;
	hws->hung_pq_addr = hung_pq_addr;
	spin_unlock(&hws->lock);
}
