/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Load-time switches of the multi-process series.
 *
 * Each behaviour change has its own module parameter, and the master
 * switch amdgpu.kfd_mp=1 turns on every one that is left at "default".
 * A bad value is refused when the module loads, with a message that names
 * the parameter and the valid values, so a test box never runs a
 * configuration it did not ask for.
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

/* An unsigned parameter with a valid range. */
struct kfd_mp_uint_param {
	const char *name;
	unsigned int min;
	unsigned int max;
	bool power_of_2;
	unsigned int value;
};

int kfd_mp_choice_parse(const char * const *choices, const char *val);
int kfd_mp_uint_check(const struct kfd_mp_uint_param *p, unsigned int v);
int kfd_mp_choice_effective(const struct kfd_mp_choice_param *p,
			    bool master, int stock, int enabled);

extern const struct kernel_param_ops kfd_mp_choice_ops;
extern const struct kernel_param_ops kfd_mp_uint_ops;

#endif
