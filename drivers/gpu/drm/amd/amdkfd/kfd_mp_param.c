// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Load-time switches of the multi-process series; see kfd_mp_param.h.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "kfd_mp_param.h"

/**
 * kfd_mp_choice_parse - find @val in @choices
 * @choices: NULL-terminated list of valid words
 * @val: the value given, with or without a trailing newline
 *
 * Return: the index of @val in @choices, or -EINVAL.
 */
int kfd_mp_choice_parse(const char * const *choices, const char *val)
{
	int i;

	for (i = 0; choices[i]; i++)
		if (sysfs_streq(val, choices[i]))
			return i;
	return -EINVAL;
}

/**
 * kfd_mp_uint_check - is @v a valid value of @p
 * @p: the parameter and its range
 * @v: the value given
 *
 * Return: 0 if @v is in [min, max] (and a power of 2 if required),
 * -EINVAL otherwise.
 */
int kfd_mp_uint_check(const struct kfd_mp_uint_param *p, unsigned int v)
{
	if (v < p->min || v > p->max)
		return -EINVAL;
	if (p->power_of_2 && !is_power_of_2(v))
		return -EINVAL;
	return 0;
}

/**
 * kfd_mp_choice_effective - the value a choice parameter stands for
 * @p: the parameter
 * @master: amdgpu.kfd_mp, the switch for the whole series
 * @stock: the index that keeps stock behaviour
 * @enabled: the index that kfd_mp=1 selects
 *
 * Return: the index set explicitly, or for "default" (index 0) @enabled
 * when @master is on and @stock when it is off.
 */
int kfd_mp_choice_effective(const struct kfd_mp_choice_param *p,
			    bool master, int stock, int enabled)
{
	int v = READ_ONCE(p->value);	/* may change at run time (0644) */

	if (v)
		return v;
	return master ? enabled : stock;
}

static int kfd_mp_choice_set(const char *val, const struct kernel_param *kp)
{
	struct kfd_mp_choice_param *p = kp->arg;
	char list[128] = "";
	int i = kfd_mp_choice_parse(p->choices, val);

	if (i >= 0) {
		WRITE_ONCE(p->value, i);
		return 0;
	}
	for (i = 0; p->choices[i]; i++) {
		if (i)
			strlcat(list, ", ", sizeof(list));
		strlcat(list, p->choices[i], sizeof(list));
	}
	pr_err("amdgpu: %s: invalid value '%s'; valid values: %s\n",
	       p->name, val, list);
	return -EINVAL;
}

static int kfd_mp_choice_get(char *buffer, const struct kernel_param *kp)
{
	const struct kfd_mp_choice_param *p = kp->arg;

	return sysfs_emit(buffer, "%s\n", p->choices[READ_ONCE(p->value)]);
}

const struct kernel_param_ops kfd_mp_choice_ops = {
	.set = kfd_mp_choice_set,
	.get = kfd_mp_choice_get,
};

static int kfd_mp_uint_set(const char *val, const struct kernel_param *kp)
{
	struct kfd_mp_uint_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 0, &v) || kfd_mp_uint_check(p, v)) {
		pr_err("amdgpu: %s: invalid value '%s'; valid values: %u..%u%s\n",
		       p->name, val, p->min, p->max,
		       p->power_of_2 ? ", a power of 2" : "");
		return -EINVAL;
	}
	p->value = v;
	return 0;
}

static int kfd_mp_uint_get(char *buffer, const struct kernel_param *kp)
{
	const struct kfd_mp_uint_param *p = kp->arg;

	return sysfs_emit(buffer, "%u\n", p->value);
}

const struct kernel_param_ops kfd_mp_uint_ops = {
	.set = kfd_mp_uint_set,
	.get = kfd_mp_uint_get,
};
