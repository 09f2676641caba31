// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * KUnit tests of the amdkfd multi-process logic that needs no GPU.
 */
#include <linux/module.h>

MODULE_DESCRIPTION("KUnit tests for amdkfd multi-process scheduling");
MODULE_LICENSE("GPL and additional rights");
