/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Trace events of multi-process scheduling: what the scheduler was asked
 * to do and what it did, per queue, process and runlist. Included by
 * kfd_trace.h inside its TRACE_SYSTEM amdkfd section, so that a tree with
 * a kfd_trace.h of its own takes them with one #include. Enable with
 *   echo 1 > /sys/kernel/tracing/events/amdkfd/enable
 * or scripts/trace.sh of the kfd-mp project.
 */
#if !defined(_KFD_MP_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _KFD_MP_TRACE_H_

#include <linux/tracepoint.h>

#include "kfd_mp_stats.h"
#include "kfd_priv.h"

#define show_kfd_queue_type(type)					\
	__print_symbolic(type,						\
			 { KFD_QUEUE_TYPE_COMPUTE, "compute" },		\
			 { KFD_QUEUE_TYPE_SDMA, "sdma" },		\
			 { KFD_QUEUE_TYPE_HIQ, "hiq" },			\
			 { KFD_QUEUE_TYPE_DIQ, "diq" },			\
			 { KFD_QUEUE_TYPE_SDMA_XGMI, "sdma_xgmi" },	\
			 { KFD_QUEUE_TYPE_SDMA_BY_ENG_ID, "sdma_by_eng_id" })

#define show_kfd_unmap_filter(filter)					\
	__print_symbolic(filter,					\
			 { KFD_UNMAP_QUEUES_FILTER_ALL_QUEUES, "all" },	\
			 { KFD_UNMAP_QUEUES_FILTER_DYNAMIC_QUEUES, "dynamic" }, \
			 { KFD_UNMAP_QUEUES_FILTER_BY_PASID, "by_pasid" })

DECLARE_EVENT_CLASS(kfd_queue,
	TP_PROTO(pid_t pid, u32 pasid, u32 gpu_id, u32 queue_id, int type,
		 u32 doorbell_id, u32 doorbell_off),
	TP_ARGS(pid, pasid, gpu_id, queue_id, type, doorbell_id, doorbell_off),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u32, pasid)
		__field(u32, gpu_id)
		__field(u32, queue_id)
		__field(int, type)
		__field(u32, doorbell_id)
		__field(u32, doorbell_off)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__entry->pasid = pasid;
		__entry->gpu_id = gpu_id;
		__entry->queue_id = queue_id;
		__entry->type = type;
		__entry->doorbell_id = doorbell_id;
		__entry->doorbell_off = doorbell_off;
	),
	TP_printk("pid=%d pasid=0x%x gpu_id=%u queue_id=%u type=%s doorbell_id=%u doorbell_off=0x%x",
		  __entry->pid, __entry->pasid, __entry->gpu_id,
		  __entry->queue_id, show_kfd_queue_type(__entry->type),
		  __entry->doorbell_id, __entry->doorbell_off)
);

/* doorbell_off: dword index of the queue's doorbell on the doorbell BAR */
DEFINE_EVENT(kfd_queue, kfd_queue_create,
	TP_PROTO(pid_t pid, u32 pasid, u32 gpu_id, u32 queue_id, int type,
		 u32 doorbell_id, u32 doorbell_off),
	TP_ARGS(pid, pasid, gpu_id, queue_id, type, doorbell_id, doorbell_off)
);

DEFINE_EVENT(kfd_queue, kfd_queue_destroy,
	TP_PROTO(pid_t pid, u32 pasid, u32 gpu_id, u32 queue_id, int type,
		 u32 doorbell_id, u32 doorbell_off),
	TP_ARGS(pid, pasid, gpu_id, queue_id, type, doorbell_id, doorbell_off)
);

/*
 * offset: byte offset of the process's doorbell BO on the doorbell BAR;
 * slot: its kfd_doorbell_placement slot, -1 if not at one;
 * placement: first-fit (policy off), placed, or fallback (first-fit)
 */
TRACE_EVENT(kfd_doorbell_bo_alloc,
	TP_PROTO(pid_t pid, u32 pasid, u32 gpu_id, u64 offset, u32 size,
		 int slot, int placement),
	TP_ARGS(pid, pasid, gpu_id, offset, size, slot, placement),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u32, pasid)
		__field(u32, gpu_id)
		__field(u64, offset)
		__field(u32, size)
		__field(int, slot)
		__field(int, placement)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__entry->pasid = pasid;
		__entry->gpu_id = gpu_id;
		__entry->offset = offset;
		__entry->size = size;
		__entry->slot = slot;
		__entry->placement = placement;
	),
	TP_printk("pid=%d pasid=0x%x gpu_id=%u offset=0x%llx size=%u slot=%d placement=%s",
		  __entry->pid, __entry->pasid, __entry->gpu_id,
		  __entry->offset, __entry->size, __entry->slot,
		  __print_symbolic(__entry->placement,
				   { 0, "first-fit" }, { 1, "placed" },
				   { 2, "fallback" }))
);

TRACE_EVENT(kfd_runlist_submit,
	TP_PROTO(u32 gpu_id, u32 processes, u32 active_queues,
		 u32 oversub_reasons, u64 duration_us, int ret),
	TP_ARGS(gpu_id, processes, active_queues, oversub_reasons,
		duration_us, ret),
	TP_STRUCT__entry(
		__field(u32, gpu_id)
		__field(u32, processes)
		__field(u32, active_queues)
		__field(u32, oversub_reasons)
		__field(u64, duration_us)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->gpu_id = gpu_id;
		__entry->processes = processes;
		__entry->active_queues = active_queues;
		__entry->oversub_reasons = oversub_reasons;
		__entry->duration_us = duration_us;
		__entry->ret = ret;
	),
	TP_printk("gpu_id=%u processes=%u active_queues=%u oversubscribed=%s reasons=%s duration_us=%llu ret=%d",
		  __entry->gpu_id, __entry->processes, __entry->active_queues,
		  __entry->oversub_reasons ? "yes" : "no",
		  __print_flags(__entry->oversub_reasons, "|",
				{ KFD_MP_OVERSUB_PROCESSES_BIT, "processes" },
				{ KFD_MP_OVERSUB_QUEUES_BIT, "queues" },
				{ KFD_MP_OVERSUB_GWS_BIT, "gws" }),
		  __entry->duration_us, __entry->ret)
);

TRACE_EVENT(kfd_unmap_queues,
	TP_PROTO(u32 gpu_id, int filter, u32 filter_param, int ret,
		 u64 wait_us),
	TP_ARGS(gpu_id, filter, filter_param, ret, wait_us),
	TP_STRUCT__entry(
		__field(u32, gpu_id)
		__field(int, filter)
		__field(u32, filter_param)
		__field(int, ret)
		__field(u64, wait_us)
	),
	TP_fast_assign(
		__entry->gpu_id = gpu_id;
		__entry->filter = filter;
		__entry->filter_param = filter_param;
		__entry->ret = ret;
		__entry->wait_us = wait_us;
	),
	TP_printk("gpu_id=%u filter=%s filter_param=%u ret=%d wait_us=%llu",
		  __entry->gpu_id, show_kfd_unmap_filter(__entry->filter),
		  __entry->filter_param, __entry->ret, __entry->wait_us)
);

/* queued runlist: a change was recorded; run_now: its submitter runs the cycle */
TRACE_EVENT(kfd_rlq_request,
	TP_PROTO(u32 gpu_id, u64 ticket, u32 pending, bool run_now),
	TP_ARGS(gpu_id, ticket, pending, run_now),
	TP_STRUCT__entry(
		__field(u32, gpu_id)
		__field(u64, ticket)
		__field(u32, pending)
		__field(bool, run_now)
	),
	TP_fast_assign(
		__entry->gpu_id = gpu_id;
		__entry->ticket = ticket;
		__entry->pending = pending;
		__entry->run_now = run_now;
	),
	TP_printk("gpu_id=%u ticket=%llu pending=%u run_now=%d",
		  __entry->gpu_id, __entry->ticket, __entry->pending,
		  __entry->run_now)
);

/* queued runlist: a cycle served changes first..last; cycle=0: failed at teardown */
TRACE_EVENT(kfd_rlq_cycle,
	TP_PROTO(u32 gpu_id, u64 cycle, u32 requests, u64 first_ticket,
		 u64 last_ticket, u32 failed, bool flush, int ret,
		 u64 duration_us, u64 max_wait_us),
	TP_ARGS(gpu_id, cycle, requests, first_ticket, last_ticket, failed,
		flush, ret, duration_us, max_wait_us),
	TP_STRUCT__entry(
		__field(u32, gpu_id)
		__field(u64, cycle)
		__field(u32, requests)
		__field(u64, first_ticket)
		__field(u64, last_ticket)
		__field(u32, failed)
		__field(bool, flush)
		__field(int, ret)
		__field(u64, duration_us)
		__field(u64, max_wait_us)
	),
	TP_fast_assign(
		__entry->gpu_id = gpu_id;
		__entry->cycle = cycle;
		__entry->requests = requests;
		__entry->first_ticket = first_ticket;
		__entry->last_ticket = last_ticket;
		__entry->failed = failed;
		__entry->flush = flush;
		__entry->ret = ret;
		__entry->duration_us = duration_us;
		__entry->max_wait_us = max_wait_us;
	),
	TP_printk("gpu_id=%u cycle=%llu requests=%u tickets=%llu-%llu failed=%u flush=%d ret=%d duration_us=%llu max_wait_us=%llu",
		  __entry->gpu_id, __entry->cycle, __entry->requests,
		  __entry->first_ticket, __entry->last_ticket, __entry->failed,
		  __entry->flush, __entry->ret, __entry->duration_us,
		  __entry->max_wait_us)
);

/*
 * tenant control: one GPU's part of an AMDKFD_IOC_TENANT_CTL call;
 * wait_ns is its preemption cycle (0: no queue changed), duration_ns the
 * whole change from entry, dqm_lock included
 */
TRACE_EVENT(kfd_tenant_ctl,
	TP_PROTO(u32 gpu_id, bool suspend, u32 nprocs, int ret, u64 wait_ns,
		 u64 duration_ns),
	TP_ARGS(gpu_id, suspend, nprocs, ret, wait_ns, duration_ns),
	TP_STRUCT__entry(
		__field(u32, gpu_id)
		__field(bool, suspend)
		__field(u32, nprocs)
		__field(int, ret)
		__field(u64, wait_ns)
		__field(u64, duration_ns)
	),
	TP_fast_assign(
		__entry->gpu_id = gpu_id;
		__entry->suspend = suspend;
		__entry->nprocs = nprocs;
		__entry->ret = ret;
		__entry->wait_ns = wait_ns;
		__entry->duration_ns = duration_ns;
	),
	TP_printk("gpu_id=%u op=%s procs=%u ret=%d wait_ns=%llu duration_ns=%llu",
		  __entry->gpu_id, __entry->suspend ? "suspend" : "resume",
		  __entry->nprocs, __entry->ret, __entry->wait_ns,
		  __entry->duration_ns)
);

#endif /* _KFD_MP_TRACE_H_ */
