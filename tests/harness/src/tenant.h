// Tenant mode (issue 18): one open-loop latency-critical tenant beside
// saturating best-effort tenants, in up to three arms (no control, the
// scheduler with the tenant-control interface, stream priority only), each
// judged against the tenants alone. Pure functions, no I/O.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kfdmp {

// The box targets of docs/tenant-control.md section 6.
struct TenantTargets {
	double p99_ratio_max = 1.5;       // critical p99 <= 1.5 x its p99 alone
	double be_kept_min = 0.5;         // every best-effort workload keeps >= 0.5 of its QPS alone
	double suspend_p99_max_us = 1000; // suspend-to-unmapped p99 < 1 ms
};

struct Percentiles {
	double p50_us, p99_us, p999_us; // NaN without samples
	uint64_t samples;
};
Percentiles percentiles_of(std::vector<uint64_t> ns);

// What the trace held for one op (SUSPEND or RESUME) of one caller: its
// kfd_tenant_ctl events, and those left out of the samples, by cause.
struct TransitionCounts {
	uint64_t events = 0;   // kfd_tenant_ctl events of the op (one per GPU and call)
	uint64_t errors = 0;   // ret != 0, or the paired unmap/runlist event failed
	uint64_t no_cycle = 0; // wait_ns 0: nothing changed, no preemption cycle ran
	uint64_t unpaired = 0; // no kfd_unmap_queues / kfd_runlist_submit on its GPU in its window
};

// A transition latency (suspend-to-unmapped, resume-to-running) taken from
// the kfd trace events, or why it could not be taken (never zero).
struct Transition {
	bool available = false;
	std::string reason; // when !available
	double p50_us = 0, p99_us = 0;
	uint64_t samples = 0;
	TransitionCounts counts; // from the trace (all 0 without one)
};
// Empty samples give unavailable with `reason_if_none`.
Transition transition_of(std::vector<uint64_t> ns, const std::string& reason_if_none);

// What the runs gave.
struct TenantAlone {
	std::vector<uint64_t> critical_ns;                     // critical latencies alone
	// (workload, mean QPS per process) of the best-effort tenants running
	// together without the critical tenant
	std::vector<std::pair<std::string, double>> be_qps;
};
struct TenantArmInput {
	std::string arm;    // none | sched | priority
	std::string status; // ok, or skipped/failed
	std::string reason; // why, when not ok
	std::vector<uint64_t> critical_ns;
	double critical_qps = 0; // completed; below the arrival rate: arrivals queue up (overload)
	std::vector<std::pair<std::string, double>> be_qps; // (workload, mean QPS per process)
	std::vector<uint64_t> suspend_ns, resume_ns;
	std::string transition_reason; // why there are no transition samples
	// The sched arm: kfdmp-sched's decisions (its log).
	uint64_t suspends = 0, resumes = 0;
	std::vector<uint64_t> decision_ns; // each suspend/resume decision's latency_us, in ns
	std::string sched_log;
	int64_t sched_pid = 0; // the daemon's pid: the task of its kfd_tenant_ctl events
};

struct BestEffortKept {
	std::string workload;
	double qps = 0, alone_qps = 0, kept = 0; // kept = qps / alone_qps (NaN: no alone figure)
};

struct TenantArmResult {
	std::string arm, status, reason;
	Percentiles alone{}, critical{};
	double p99_ratio = 0;     // critical p99 / alone p99 (NaN when either is missing)
	double critical_qps = 0;
	std::vector<BestEffortKept> best_effort;
	double be_kept_min = 0;   // NaN when any is missing
	Transition suspend, resume;
	uint64_t suspends = 0, resumes = 0;
	Percentiles decision{};
	std::string sched_log;
	int64_t sched_pid = 0;
	// "pass", "fail: why" or "unavailable: why"
	std::string latency_target; // p99 ratio and best-effort kept together
	std::string suspend_target;
};

// "pass", "fail: why" or "unavailable: why" for suspend-to-unmapped p99.
std::string suspend_target_of(const Transition& suspend, const TenantTargets& t = {});

TenantArmResult judge_tenant_arm(const TenantAlone& alone, const TenantArmInput& in, const TenantTargets& t = {});

} // namespace kfdmp
