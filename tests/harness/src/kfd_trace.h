// Tenant mode's transition latencies from the series' amdkfd trace events
// (issue 18 item 5): the text report that scripts/trace.sh writes to
// OUT/trace/trace.txt (raw tracefs `trace`, or `trace-cmd report`), read
// after the traced run, and the results.json tenant section rewritten with
// them. Definitions: docs/tenant-control.md section 6.
#pragma once
#include "json.h"
#include "tenant.h"

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kfdmp {

// One line of amdkfd:kfd_tenant_ctl, kfd_unmap_queues or kfd_runlist_submit.
struct KfdTraceEvent {
	enum Kind { tenant_ctl, unmap_queues, runlist_submit } kind = tenant_ctl;
	pid_t pid = 0;      // the task that hit the tracepoint (TASK-PID)
	uint64_t ts_ns = 0; // the trace timestamp (trace clock), in ns
	uint32_t gpu_id = 0;
	int ret = 0;
	// kfd_tenant_ctl only
	bool suspend = false;
	uint32_t procs = 0;
	uint64_t wait_ns = 0, duration_ns = 0;
};

// Parses one line. nullopt: not one of the three events (headers, other
// events); `malformed` is set when the line names one of them but does not
// read as its TP_printk format.
std::optional<KfdTraceEvent> parse_kfd_trace_line(const std::string& line, bool& malformed);

struct KfdTrace {
	bool available = false;
	std::string reason; // why not, when !available
	std::string file;   // the trace.txt read
	std::vector<KfdTraceEvent> events; // sorted by timestamp
	uint64_t malformed = 0;            // lines of the three events that did not parse (skipped)
	std::string first_malformed;
	uint64_t lost = 0; // "[LOST n EVENTS]" lines: the ring buffer overflowed
};
KfdTrace parse_kfd_trace(std::istream& in);
// DIR is scripts/trace.sh's OUTDIR: trace.env (status=unavailable and
// reason= when it could not trace) and trace.txt.
KfdTrace read_kfd_trace_dir(const std::string& dir);

// The transitions of one caller (kfdmp-sched's pid): every kfd_tenant_ctl
// event of it is one GPU's part of one call.
struct TransitionSamples {
	std::vector<uint64_t> suspend_ns, resume_ns;
	TransitionCounts suspend, resume;
};
TransitionSamples transition_samples(const std::vector<KfdTraceEvent>& events, pid_t caller);

// The results.json document with its tenant section's sched arms given
// their transitions from `trace` (and suspend_target checked again), plus
// a "trace" member saying what was read. `summary` gets one line per arm
// for stdout. A document without a tenant section comes back unchanged.
json::Value apply_kfd_trace(const json::Value& doc, const KfdTrace& trace, std::vector<std::string>& summary,
			    const TenantTargets& t = {});

} // namespace kfdmp
