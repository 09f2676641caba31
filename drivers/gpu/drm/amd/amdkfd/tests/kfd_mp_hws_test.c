// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * KUnit tests for the register values of the carried upstream HWS changes.
 */
#include <kunit/test.h>

#include "../kfd_mp_hws_regs.c"

static bool kfd_mp_test_applies(u32 mj, u32 mn, u32 rv, bool mes)
{
	return kfd_mp_short_dequeue_wait_applies(KFD_MP_GC_VERSION(mj, mn, rv), mes);
}

static void kfd_mp_short_dequeue_wait_gc(struct kunit *test)
{
	/* gfx 9.4.1 up to, not including, gfx 10, and only without MES */
	KUNIT_EXPECT_FALSE(test, kfd_mp_test_applies(9, 0, 1, false));
	KUNIT_EXPECT_FALSE(test, kfd_mp_test_applies(9, 4, 0, false));
	KUNIT_EXPECT_TRUE(test, kfd_mp_test_applies(9, 4, 1, false));
	KUNIT_EXPECT_TRUE(test, kfd_mp_test_applies(9, 4, 2, false));
	KUNIT_EXPECT_TRUE(test, kfd_mp_test_applies(9, 4, 3, false));
	KUNIT_EXPECT_TRUE(test, kfd_mp_test_applies(9, 5, 0, false));
	KUNIT_EXPECT_FALSE(test, kfd_mp_test_applies(9, 4, 3, true));
	KUNIT_EXPECT_FALSE(test, kfd_mp_test_applies(10, 3, 0, false));
	KUNIT_EXPECT_FALSE(test, kfd_mp_test_applies(11, 0, 0, true));
}

static void kfd_mp_short_dequeue_wait_value(struct kunit *test)
{
	/* QUE_SLEEP 0x40 out of reset becomes 0x1 */
	KUNIT_EXPECT_EQ(test, kfd_mp_short_dequeue_wait_times(0x40), 0x1);
	/* SCH_WAVE, SEM_REARM and DEQ_RETRY are kept (the APU grace period) */
	KUNIT_EXPECT_EQ(test, kfd_mp_short_dequeue_wait_times(0x12340140), 0x12340101);
	KUNIT_EXPECT_EQ(test, kfd_mp_short_dequeue_wait_times(0xffffffff), 0xffffff01);
	KUNIT_EXPECT_EQ(test, kfd_mp_short_dequeue_wait_times(0), 0x1);
	/* idempotent: a restarted HWS writes the same value again */
	KUNIT_EXPECT_EQ(test,
			kfd_mp_short_dequeue_wait_times(kfd_mp_short_dequeue_wait_times(0xabcd40)),
			0xabcd01);
}

static struct kunit_case kfd_mp_hws_cases[] = {
	KUNIT_CASE(kfd_mp_short_dequeue_wait_gc),
	KUNIT_CASE(kfd_mp_short_dequeue_wait_value),
	{}
};

static struct kunit_suite kfd_mp_hws_suite = {
	.name = "amdkfd_mp_hws",
	.test_cases = kfd_mp_hws_cases,
};

kunit_test_suite(kfd_mp_hws_suite);
