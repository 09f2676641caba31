// The tenant-control ioctl on /dev/kfd: AMDKFD_IOC_TENANT_CTL of the series'
// include/uapi/linux/kfd_ioctl.h (docs/tenant-control.md, section 2).
//
// A copy, so that kfdmp-sched builds without the patched header (the box's
// /usr/include has the stock one, and a static build for the QEMU load test
// takes no kernel tree). The names are those of the kernel header, each
// under #ifndef, so a file that includes both gets one definition; the unit
// test pins the number and the layout, and the load test builds
// tests/kernel/tenant-probe.c against the real header, so a mismatch fails
// there. Linux uapi types only: C and C++ can include it.
#pragma once
#include <linux/ioctl.h>
#include <linux/types.h>

#ifndef AMDKFD_IOC_TENANT_CTL

// The next core number after upstream's AMDKFD_IOC_PROFILER (0x28), the same
// on every base: the series moves AMDKFD_COMMAND_END to 0x2A (on 6.12 and
// ROCm 6.4 the empty 0x27/0x28 slots answer as any unknown number does).
#define KFD_TENANT_IOCTL_BASE 'K' /* AMDKFD_IOCTL_BASE */
#define KFD_TENANT_IOCTL_NR 0x29

enum kfd_tenant_ctl_op {
	KFD_IOC_TENANT_OP_SUSPEND = 1,   /* take the targets' queues off the HWS */
	KFD_IOC_TENANT_OP_RESUME = 2,    /* give back this file's suspension */
	KFD_IOC_TENANT_OP_GET_STATE = 3, /* state of each target */
};
#define KFD_IOC_TENANT_FLAG_ALL_GPUS (1u << 0) /* gpu_id must be 0 */

#define KFD_IOC_TENANT_STATE_SUSPENDED (1u << 0)  /* by any controller */
#define KFD_IOC_TENANT_STATE_OWNED (1u << 1)      /* by the caller's /dev/kfd file */
#define KFD_IOC_TENANT_STATE_EVICTED (1u << 2)    /* evicted for another reason */
#define KFD_IOC_TENANT_STATE_HAS_QUEUES (1u << 3)
#define KFD_IOC_TENANT_STATE_RESET (1u << 4)      /* queues stay evicted by a GPU reset */

#define KFD_IOC_TENANT_MAX_TARGETS 64

struct kfd_ioctl_tenant_ctl_args {
	__u64 pidfds_ptr;  /* to KFD: __s32[num_targets], pidfds of the targets */
	__u64 status_ptr;  /* from KFD: __s32[num_targets], 0 or -errno each */
	__u64 state_ptr;   /* from KFD, GET_STATE: __u32[num_targets]; else 0 */
	__u64 wait_ns;     /* from KFD: time in preemption cycles */
	__u32 op;          /* enum kfd_tenant_ctl_op */
	__u32 flags;       /* KFD_IOC_TENANT_FLAG_* */
	__u32 gpu_id;      /* the GPU, unless FLAG_ALL_GPUS */
	__u32 num_targets; /* 0..MAX_TARGETS; 0 is a probe and returns 0 */
};

#define AMDKFD_IOC_TENANT_CTL \
	_IOWR(KFD_TENANT_IOCTL_BASE, KFD_TENANT_IOCTL_NR, struct kfd_ioctl_tenant_ctl_args)

#endif
