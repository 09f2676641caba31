/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Upstream changes to how the CP runs user queues, carried as load-time
 * switches (stock by default, upstream's behaviour with amdgpu.kfd_mp=1):
 * the hooks amdkfd calls (kfd_mp_hws.c). The register values they compute
 * need no GPU: kfd_mp_hws_regs.[ch].
 */
#ifndef KFD_MP_HWS_H_INCLUDED
#define KFD_MP_HWS_H_INCLUDED

#include <linux/types.h>

struct device_queue_manager;

void kfd_mp_hws_start(struct device_queue_manager *dqm);
u32 kfd_mp_mqd_queue_priority(u32 priority);

#endif
