// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * KUnit tests for the load-time switches of the multi-process series.
 */
#include <kunit/test.h>

#include "../kfd_mp_param.c"

static const char * const kfd_mp_test_choices[] = {
	"default", "first-fit", "pid", "index", NULL
};

static void kfd_mp_choice_parse_words(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_parse(kfd_mp_test_choices, "default"), 0);
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_parse(kfd_mp_test_choices, "pid"), 2);
	/* sysfs writes end in a newline */
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_parse(kfd_mp_test_choices, "index\n"), 3);
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_parse(kfd_mp_test_choices, "PID"), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_parse(kfd_mp_test_choices, "pi"), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_parse(kfd_mp_test_choices, ""), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_parse(kfd_mp_test_choices, "2"), -EINVAL);
}

static void kfd_mp_uint_check_range(struct kunit *test)
{
	struct kfd_mp_uint_param p = { "range", 1, 1024, true, 8 };
	struct kfd_mp_uint_param any = { "any", 0, 1, false, 0 };

	KUNIT_EXPECT_EQ(test, kfd_mp_uint_check(&p, 1), 0);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_check(&p, 8), 0);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_check(&p, 1024), 0);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_check(&p, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_check(&p, 6), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_check(&p, 2048), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_check(&any, 0), 0);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_check(&any, 2), -EINVAL);
}

static void kfd_mp_choice_effective_master(struct kunit *test)
{
	struct kfd_mp_choice_param p = { "policy", kfd_mp_test_choices, 0 };

	/* "default" follows the master switch */
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_effective(&p, false, 1, 3), 1);
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_effective(&p, true, 1, 3), 3);
	/* an explicit value wins over the master switch, both ways */
	p.value = 2;
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_effective(&p, false, 1, 3), 2);
	p.value = 1;
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_effective(&p, true, 1, 3), 1);
}

static void kfd_mp_param_ops_set_get(struct kunit *test)
{
	struct kfd_mp_choice_param c = { "policy", kfd_mp_test_choices, 0 };
	struct kfd_mp_uint_param u = { "range", 1, 1024, true, 8 };
	struct kernel_param kc = { .name = "policy", .arg = &c };
	struct kernel_param ku = { .name = "range", .arg = &u };
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);

	KUNIT_EXPECT_EQ(test, kfd_mp_choice_ops.set("index", &kc), 0);
	KUNIT_EXPECT_EQ(test, c.value, 3);
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_ops.get(buf, &kc), 6);
	KUNIT_EXPECT_STREQ(test, buf, "index\n");
	/* a refused value leaves the old one in place */
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_ops.set("fastest", &kc), -EINVAL);
	KUNIT_EXPECT_EQ(test, c.value, 3);

	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.set("16", &ku), 0);
	KUNIT_EXPECT_EQ(test, u.value, 16u);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.set("0x20", &ku), 0);
	KUNIT_EXPECT_EQ(test, u.value, 32u);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.set("12", &ku), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.set("-1", &ku), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.set("4096", &ku), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.set("eight", &ku), -EINVAL);
	KUNIT_EXPECT_EQ(test, u.value, 32u);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.get(buf, &ku), 3);
	KUNIT_EXPECT_STREQ(test, buf, "32\n");
}

static struct kunit_case kfd_mp_param_cases[] = {
	KUNIT_CASE(kfd_mp_choice_parse_words),
	KUNIT_CASE(kfd_mp_uint_check_range),
	KUNIT_CASE(kfd_mp_choice_effective_master),
	KUNIT_CASE(kfd_mp_param_ops_set_get),
	{}
};

static struct kunit_suite kfd_mp_param_suite = {
	.name = "amdkfd_mp_param",
	.test_cases = kfd_mp_param_cases,
};

kunit_test_suite(kfd_mp_param_suite);
