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

/* hws->lock held */
static void soft_hws_violation(struct soft_hws *hws, const char *what, u64 addr)
{
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

/* returns false if the HWS stalls on this packet */
static bool soft_hws_unmap(struct soft_hws *hws,
			   struct pm4_mes_unmap_queues *um)
{
	unsigned int i, preempt_us;
	enum soft_hws_inject inject;

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
		if (match && inject == SOFT_HWS_INJECT_FAIL_PREEMPT &&
		    q->doorbell_off == hws->hung_doorbell) {
			/* the MEC gives up on it and names it in the HIQ MQD */
			struct v9_mqd *m = hws->hiq_mqd;

			m->queue_doorbell_id0 = q->doorbell_off;
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

	while (!kthread_should_stop()) {
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
	return 0;
}

/* start executing the HIQ of the fake node's started dqm */
static void soft_hws_start(struct kfd_fake_node *fake)
{
	struct soft_hws *hws = &fake->hws;
	struct kernel_queue *kq = fake->dqm->packet_mgr.priv_queue;

	hws->ring = kq->pq_kernel_addr;
	hws->ring_dw = kq->queue->properties.queue_size / 4;
	hws->wptr64 = kq->wptr64_kernel;
	hws->rptr = kq->rptr_kernel;
	hws->rd = 0;
	hws->hiq_mqd = kq->queue->mqd;
	hws->thread = kthread_run(soft_hws_thread, hws, "kfd_soft_hws");
}

static void soft_hws_stop(struct kfd_fake_node *fake)
{
	if (!IS_ERR_OR_NULL(fake->hws.thread))
		kthread_stop(fake->hws.thread);
	fake->hws.thread = NULL;
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
		if (stalled || READ_ONCE(hws->rd) == READ_ONCE(*hws->wptr64))
			return;
		usleep_range(50, 100);
	}
}

/* UNMAP_QUEUES packets submitted but not executed (the HWS is stuck) */
static unsigned int soft_hws_pending_unmaps(struct soft_hws *hws)
{
	u64 pos = READ_ONCE(hws->rd), end = READ_ONCE(*hws->wptr64);
	unsigned int n = 0;

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

/* a GPU reset: the HWS drops its runlist and what it was stuck on */
static void soft_hws_reset(struct soft_hws *hws)
{
	spin_lock(&hws->lock);
	hws->nmapped = 0;
	hws->runlist_active = false;
	hws->unmapped = false;
	hws->stalled = false;
	hws->hung = false;
	hws->rd = READ_ONCE(*hws->wptr64);
	WRITE_ONCE(*hws->rptr, hws->rd % hws->ring_dw);
	spin_unlock(&hws->lock);
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
