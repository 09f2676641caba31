// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Register values of the carried upstream HWS changes; see kfd_mp_hws_regs.h.
 * No GPU needed: KUnit tests this file by including it.
 */
#include <linux/bitfield.h>

#include "kfd_mp_hws_regs.h"

/**
 * kfd_mp_short_dequeue_wait_applies - does a node get the short retry wait
 * @gc_version: the node's GC IP version (KFD_GC_VERSION())
 * @mes: the node schedules through MES instead of the HWS
 *
 * Upstream 6.15 shortens the wait for GC 9.4.1 up to, not including, GC 10
 * (gfx 9.4.x and 9.5.x), which the HWS schedules (no MES).
 *
 * Return: true if the node's CP_IQ_WAIT_TIME2.QUE_SLEEP is to be shortened.
 */
bool kfd_mp_short_dequeue_wait_applies(u32 gc_version, bool mes)
{
	return !mes && gc_version >= KFD_MP_GC_VERSION(9, 4, 1) &&
		gc_version < KFD_MP_GC_VERSION(10, 0, 0);
}

/**
 * kfd_mp_short_dequeue_wait_times - CP_IQ_WAIT_TIME2 with the short wait
 * @wait_times: the register's value (dqm->wait_times)
 *
 * Return: @wait_times with QUE_SLEEP set to KFD_MP_QUE_SLEEP_SHORT and
 * every other field (SCH_WAVE, SEM_REARM, DEQ_RETRY) kept.
 */
u32 kfd_mp_short_dequeue_wait_times(u32 wait_times)
{
	return (wait_times & ~KFD_MP_QUE_SLEEP_MASK) |
		FIELD_PREP(KFD_MP_QUE_SLEEP_MASK, KFD_MP_QUE_SLEEP_SHORT);
}
