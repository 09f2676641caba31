// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Load-time switches of the multi-process series; see kfd_mp_param.h.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
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

/*
 * Whether @kp is set from the module's parameters (insmod, modprobe.d, or
 * the kernel command line for a built-in amdgpu), not by a write to
 * /sys/module/amdgpu/parameters at run time.
 */
static bool kfd_mp_param_loading(const struct kernel_param *kp)
{
#ifdef CONFIG_MODULES
	if (kp->mod)
		return kp->mod->state != MODULE_STATE_LIVE;
#endif
	return system_state < SYSTEM_RUNNING;
}

/* the length of @val without the newline of a sysfs write */
static int kfd_mp_param_len(const char *val)
{
	return strcspn(val, "\n");
}

/**
 * kfd_mp_choice_store - set a choice parameter
 * @p: the parameter
 * @val: the value given
 * @loading: @val comes from the module's parameters, not from a write at
 *	     run time
 *
 * A value that is not one of @p->choices is logged with the valid values.
 * At load it falls back to the default, as amdgpu_device_check_arguments()
 * does for amdgpu's own parameters, so that a typo does not keep amdgpu
 * from loading; a write at run time is refused and changes nothing.
 *
 * Return: 0, or -EINVAL for a bad value written at run time.
 */
static int kfd_mp_choice_store(struct kfd_mp_choice_param *p,
			       const char *val, bool loading)
{
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
	if (!loading) {
		pr_warn("amdgpu: %s: invalid value '%.*s'; valid values: %s; left at '%s'\n",
			p->name, kfd_mp_param_len(val), val, list,
			p->choices[READ_ONCE(p->value)]);
		return -EINVAL;
	}
	pr_warn("amdgpu: %s: invalid value '%.*s'; valid values: %s; using the default '%s'\n",
		p->name, kfd_mp_param_len(val), val, list, p->choices[0]);
	WRITE_ONCE(p->value, 0);
	return 0;
}

static int kfd_mp_choice_set(const char *val, const struct kernel_param *kp)
{
	return kfd_mp_choice_store(kp->arg, val, kfd_mp_param_loading(kp));
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

/**
 * kfd_mp_uint_store - set an unsigned parameter
 * @p: the parameter
 * @val: the value given
 * @loading: as for kfd_mp_choice_store()
 *
 * As kfd_mp_choice_store(), for a value out of @p's range (or not a power
 * of 2 where one is required); the default is @p->def.
 *
 * Return: 0, or -EINVAL for a bad value written at run time.
 */
static int kfd_mp_uint_store(struct kfd_mp_uint_param *p, const char *val,
			     bool loading)
{
	unsigned int v;

	if (!kstrtouint(val, 0, &v) && !kfd_mp_uint_check(p, v)) {
		p->value = v;
		return 0;
	}
	if (!loading) {
		pr_warn("amdgpu: %s: invalid value '%.*s'; valid values: %u..%u%s; left at %u\n",
			p->name, kfd_mp_param_len(val), val, p->min, p->max,
			p->power_of_2 ? ", a power of 2" : "", p->value);
		return -EINVAL;
	}
	pr_warn("amdgpu: %s: invalid value '%.*s'; valid values: %u..%u%s; using the default %u\n",
		p->name, kfd_mp_param_len(val), val, p->min, p->max,
		p->power_of_2 ? ", a power of 2" : "", p->def);
	p->value = p->def;
	return 0;
}

static int kfd_mp_uint_set(const char *val, const struct kernel_param *kp)
{
	return kfd_mp_uint_store(kp->arg, val, kfd_mp_param_loading(kp));
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
