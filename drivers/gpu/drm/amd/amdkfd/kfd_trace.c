// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Trace event definitions of amdkfd; see kfd_trace.h.
 */
#define CREATE_TRACE_POINTS
#include "kfd_trace.h"
