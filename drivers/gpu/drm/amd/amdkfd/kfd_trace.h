/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Trace events of amdkfd (TRACE_SYSTEM amdkfd). The events of
 * multi-process scheduling are in kfd_mp_trace.h.
 */
#if !defined(_KFD_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _KFD_TRACE_H_

#include <linux/tracepoint.h>

#undef TRACE_SYSTEM
#define TRACE_SYSTEM amdkfd
#define TRACE_INCLUDE_FILE kfd_trace

#include "kfd_mp_trace.h"

#endif /* _KFD_TRACE_H_ */

/* This part must be outside protection */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#include <trace/define_trace.h>
