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
	struct kfd_mp_uint_param p = {
		.name = "range", .min = 1, .max = 1024, .power_of_2 = true,
		.def = 8, .value = 8,
	};
	struct kfd_mp_uint_param any = { .name = "any", .min = 0, .max = 1 };

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
	struct kfd_mp_uint_param u = {
		.name = "range", .min = 1, .max = 1024, .power_of_2 = true,
		.def = 8, .value = 8,
	};
	struct kernel_param kc = { .name = "policy", .arg = &c };
	struct kernel_param ku = { .name = "range", .arg = &u };
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);

	KUNIT_EXPECT_EQ(test, kfd_mp_choice_ops.set("index", &kc), 0);
	KUNIT_EXPECT_EQ(test, c.value, 3);
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_ops.get(buf, &kc), 6);
	KUNIT_EXPECT_STREQ(test, buf, "index\n");

	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.set("16", &ku), 0);
	KUNIT_EXPECT_EQ(test, u.value, 16u);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.set("0x20", &ku), 0);
	KUNIT_EXPECT_EQ(test, u.value, 32u);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_ops.get(buf, &ku), 3);
	KUNIT_EXPECT_STREQ(test, buf, "32\n");
}

/*
 * A bad value at load warns and falls back to the default, so that amdgpu
 * still loads; written at run time, it is refused and changes nothing.
 */
static void kfd_mp_param_bad_values(struct kunit *test)
{
	static const char * const bad_words[] = { "fastest", "PID", "", "2" };
	static const char * const bad_uints[] = { "12", "0", "-1", "4096", "eight" };
	struct kfd_mp_choice_param c = { "policy", kfd_mp_test_choices, 0 };
	struct kfd_mp_uint_param u = {
		.name = "range", .min = 1, .max = 1024, .power_of_2 = true,
		.def = 8, .value = 8,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad_words); i++) {
		c.value = 3;
		KUNIT_EXPECT_EQ(test, kfd_mp_choice_store(&c, bad_words[i], false), -EINVAL);
		KUNIT_EXPECT_EQ_MSG(test, c.value, 3, "'%s' at run time", bad_words[i]);
		KUNIT_EXPECT_EQ(test, kfd_mp_choice_store(&c, bad_words[i], true), 0);
		KUNIT_EXPECT_EQ_MSG(test, c.value, 0, "'%s' at load", bad_words[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad_uints); i++) {
		u.value = 32;
		KUNIT_EXPECT_EQ(test, kfd_mp_uint_store(&u, bad_uints[i], false), -EINVAL);
		KUNIT_EXPECT_EQ_MSG(test, u.value, 32u, "'%s' at run time", bad_uints[i]);
		KUNIT_EXPECT_EQ(test, kfd_mp_uint_store(&u, bad_uints[i], true), 0);
		KUNIT_EXPECT_EQ_MSG(test, u.value, 8u, "'%s' at load", bad_uints[i]);
	}
	/* good values are taken either way; a sysfs write ends in a newline */
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_store(&c, "pid\n", false), 0);
	KUNIT_EXPECT_EQ(test, c.value, 2);
	KUNIT_EXPECT_EQ(test, kfd_mp_choice_store(&c, "index", true), 0);
	KUNIT_EXPECT_EQ(test, c.value, 3);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_store(&u, "1024", true), 0);
	KUNIT_EXPECT_EQ(test, u.value, 1024u);
	KUNIT_EXPECT_EQ(test, kfd_mp_uint_store(&u, "0x10", false), 0);
	KUNIT_EXPECT_EQ(test, u.value, 16u);
}

static struct kunit_case kfd_mp_param_cases[] = {
	KUNIT_CASE(kfd_mp_choice_parse_words),
	KUNIT_CASE(kfd_mp_uint_check_range),
	KUNIT_CASE(kfd_mp_choice_effective_master),
	KUNIT_CASE(kfd_mp_param_ops_set_get),
	KUNIT_CASE(kfd_mp_param_bad_values),
	{}
};

static struct kunit_suite kfd_mp_param_suite = {
	.name = "amdkfd_mp_param",
	.test_cases = kfd_mp_param_cases,
};

kunit_test_suite(kfd_mp_param_suite);
