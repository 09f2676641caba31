/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Register values of the upstream HWS changes that kfd_mp_hws.c carries as
 * switches (kfd_mp_hws_regs.c). No GPU and nothing of amdkfd needed: KUnit
 * tests them by including the .c file.
 */
#ifndef KFD_MP_HWS_REGS_H_INCLUDED
#define KFD_MP_HWS_REGS_H_INCLUDED

#include <linux/bits.h>
#include <linux/types.h>

/* A GC IP version as amdgpu encodes it (IP_VERSION(), no variant) */
#define KFD_MP_GC_VERSION(mj, mn, rv)	(((mj) << 24) | ((mn) << 16) | ((rv) << 8))
/* CP_IQ_WAIT_TIME2.QUE_SLEEP on gfx9: the dequeue retry wait count */
#define KFD_MP_QUE_SLEEP_MASK		GENMASK(7, 0)
/* The short retry wait: about 1 us at 1 GHz (upstream 6.15) */
#define KFD_MP_QUE_SLEEP_SHORT		1

bool kfd_mp_short_dequeue_wait_applies(u32 gc_version, bool mes);
u32 kfd_mp_short_dequeue_wait_times(u32 wait_times);

#endif
