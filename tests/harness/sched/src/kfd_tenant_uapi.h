// The tenant-control ioctl on /dev/kfd as proposed in docs/tenant-control.md.
//
// The kernel side is not in the series yet. When it lands, its
// include/uapi/linux/kfd_ioctl.h is the source of truth and this header must
// be replaced by an include of it (a unit test pins the layout below so a
// mismatch is caught). Linux uapi types only: C and C++ can include it.
#pragma once
#include <linux/ioctl.h>
#include <linux/types.h>

// Outside both dispatch ranges that exist today: upstream 6.12's core range
// is 0x01..0x26 (AMDKFD_COMMAND_END 0x27) and grows upward; ROCm 6.4's vendor
// range is 0x80..0x86 (AMDKFD_COMMAND_END_2 0x87) and grows upward. The series
// reserves 0x70..0x7f for its own commands; tenant control is the first.
#define KFD_TENANT_IOCTL_BASE 'K' /* AMDKFD_IOCTL_BASE */
#define KFD_TENANT_IOCTL_NR 0x70

#define KFD_IOC_TENANT_OP_QUERY 0     /* version and magic; no privilege, no pids */
#define KFD_IOC_TENANT_OP_SUSPEND 1   /* take the pids' user queues off the HWS */
#define KFD_IOC_TENANT_OP_RESUME 2    /* put them back */
#define KFD_IOC_TENANT_OP_SET_CLASS 3 /* tenant_class of every pid */
#define KFD_IOC_TENANT_OP_GET_STATE 4 /* state and tenant_class of pids[0] */

#define KFD_IOC_TENANT_FLAG_ALL_GPUS (1u << 0) /* every GPU of each pid; gpu_id ignored */

#define KFD_IOC_TENANT_CLASS_DEFAULT 0          /* not managed (stock) */
#define KFD_IOC_TENANT_CLASS_LATENCY_CRITICAL 1
#define KFD_IOC_TENANT_CLASS_BEST_EFFORT 2

#define KFD_IOC_TENANT_STATE_SUSPENDED (1u << 0) /* tenant-suspended on a selected GPU */
#define KFD_IOC_TENANT_STATE_EVICTED (1u << 1)   /* evicted for another reason too */
#define KFD_IOC_TENANT_STATE_HAS_QUEUES (1u << 2)

#define KFD_IOC_TENANT_MAX_PIDS 64
#define KFD_IOC_TENANT_MAGIC 0x4b464454u /* "KFDT": proves the number is ours */
#define KFD_IOC_TENANT_VERSION 1

struct kfd_ioctl_tenant_ctl_args {
	__u64 pids_ptr;     /* to KFD: __u32[num_pids], pids in the caller's pid namespace */
	__u64 status_ptr;   /* to KFD, may be 0: __s32[num_pids] from KFD, 0 or -errno per pid */
	__u64 wait_ns;      /* from KFD: SUSPEND: time spent waiting for the preemption fence */
	__u32 op;           /* to KFD: KFD_IOC_TENANT_OP_* */
	__u32 flags;        /* to KFD: KFD_IOC_TENANT_FLAG_* */
	__u32 gpu_id;       /* to KFD: one GPU unless KFD_IOC_TENANT_FLAG_ALL_GPUS */
	__u32 num_pids;     /* to KFD: 1..KFD_IOC_TENANT_MAX_PIDS (0 for QUERY) */
	__u32 tenant_class; /* to KFD for SET_CLASS, from KFD for GET_STATE */
	__u32 state;        /* from KFD: GET_STATE: KFD_IOC_TENANT_STATE_* */
	__u32 magic;        /* from KFD: KFD_IOC_TENANT_MAGIC on success */
	__u32 version;      /* from KFD: KFD_IOC_TENANT_VERSION on success */
};

#define AMDKFD_IOC_TENANT_CTL \
	_IOWR(KFD_TENANT_IOCTL_BASE, KFD_TENANT_IOCTL_NR, struct kfd_ioctl_tenant_ctl_args)
