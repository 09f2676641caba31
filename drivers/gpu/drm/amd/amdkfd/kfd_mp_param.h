/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Load-time switches of the multi-process series.
 *
 * Each behaviour change has its own module parameter, and the master
 * switch amdgpu.kfd_mp=1 turns on every one that is left at "default".
 * A bad value given at load does not keep amdgpu from loading, as for
 * amdgpu's own parameters (amdgpu_device_check_arguments()): it is logged
 * with the parameter's valid values and the default it falls back to, and
 * the parameter then reads back that default from
 * /sys/module/amdgpu/parameters, where a test box sees that it did not
 * get the configuration it asked for. A bad value written there at run
 * time is refused.
 */
#ifndef KFD_MP_PARAM_H_INCLUDED
#define KFD_MP_PARAM_H_INCLUDED

#include <linux/moduleparam.h>
#include <linux/types.h>

/* A parameter that takes one of a list of words; index 0 is "default". */
struct kfd_mp_choice_param {
	const char *name;
	const char * const *choices;	/* NULL-terminated */
	int value;			/* index into choices */
};

/* An unsigned parameter with a valid range; @value starts as @def. */
struct kfd_mp_uint_param {
	const char *name;
	unsigned int min;
	unsigned int max;
	bool power_of_2;
	unsigned int def;
	unsigned int value;
};

int kfd_mp_choice_parse(const char * const *choices, const char *val);
int kfd_mp_uint_check(const struct kfd_mp_uint_param *p, unsigned int v);
int kfd_mp_choice_effective(const struct kfd_mp_choice_param *p,
			    bool master, int stock, int enabled);

extern const struct kernel_param_ops kfd_mp_choice_ops;
extern const struct kernel_param_ops kfd_mp_uint_ops;

#endif
