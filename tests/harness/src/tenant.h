// Tenant mode (issues 18, 26): one open-loop latency-critical tenant beside
// saturating best-effort tenants, in up to four arms (none: no control;
// priority: stream priority only; sched-drain: kfdmp-sched's drain backend,
// SIGSTOP/SIGCONT; sched-kfd: kfdmp-sched with the tenant-control ioctl),
// each judged against the tenants alone, and the arms judged over repeats.
// The judging functions are pure; read_sched_log() reads the daemon's log.
#pragma once
#include <cmath>
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

// --- Arms and the critical rate (issue 26) ---

// The canonical arm name for a name given on the command line: none,
// priority, sched-drain, sched-kfd; issue 18's "sched" is sched-kfd, and
// *note then says so. "" for an unknown name.
std::string canonical_arm(const std::string& name, std::string* note = nullptr);
// sched-drain, sched-kfd (and the old "sched"): kfdmp-sched runs in the arm.
bool is_sched_arm(const std::string& arm);
// kfdmp-sched's --backend for a sched arm: drain or kfd, or the override
// ("fake": the harness's own tests) when one is given.
std::string sched_arm_backend(const std::string& arm, const std::string& override_backend = "");
// The critical tenant's open-loop rate for a busy fraction: busy / its mean
// service time alone (ns). NaN when the service time is unknown.
double rate_from_busy(double busy, double mean_service_ns);
// The mean of the samples (ns); NaN without samples.
double mean_ns(const std::vector<uint64_t>& ns);

// What kfdmp-sched's log (JSON lines) says about one arm run whose measured
// window is [begin_ns, end_ns) on CLOCK_MONOTONIC (the daemon's clock).
struct SchedLogSummary {
	std::string backend;               // from the start line ("" without one)
	uint64_t tenants = 0;              // best-effort pids at start
	uint64_t suspends = 0, resumes = 0; // calls with result ok
	std::vector<uint64_t> decision_ns; // every ok suspend/resume: trigger to the call's return
	std::vector<uint64_t> suspend_decision_ns; // ok suspends only
	std::vector<uint64_t> stopped_ns;  // drain: until every thread was seen stopped
	uint64_t suspends_in_window = 0;
	double suspended_share = NAN;      // mean over tenants of the window's share spent suspended
	int64_t left_suspended = -1;       // the shutdown line's; -1: none
	uint64_t watchdog_resumes = 0;     // watchdog_resume lines (the daemon died)
};
SchedLogSummary summarize_sched_log(const std::vector<std::string>& lines, uint64_t begin_ns, uint64_t end_ns);
SchedLogSummary read_sched_log_file(const std::string& path, uint64_t begin_ns, uint64_t end_ns);

// What the runs gave.
struct TenantAlone {
	std::vector<uint64_t> critical_ns;                     // critical latencies alone
	// (workload, mean QPS per process) of the best-effort tenants running
	// together without the critical tenant
	std::vector<std::pair<std::string, double>> be_qps;
};
struct TenantArmInput {
	std::string arm;    // none | priority | sched-drain | sched-kfd
	double busy = NAN, rate = NAN; // the critical tenant's busy fraction alone (NaN: --rate given) and rate
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
	// Issue 26: the daemon's backend, its suspend decisions alone, the drain
	// backend's stop times, and the window's suspensions.
	std::string sched_backend;
	std::vector<uint64_t> suspend_decision_ns, stopped_ns;
	double window_s = 0; // the measured window (suspends per second)
	uint64_t suspends_in_window = 0;
	double suspended_share = NAN;
};

struct BestEffortKept {
	std::string workload;
	double qps = 0, alone_qps = 0, kept = 0; // kept = qps / alone_qps (NaN: no alone figure)
};

struct TenantArmResult {
	std::string arm, status, reason;
	double busy = NAN, rate = NAN;
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
	std::string sched_backend;
	double suspends_per_s = NAN;  // suspend calls in the window per second
	double suspended_share = NAN; // of the window, mean over best-effort tenants
	// The scheduler's decision-to-drained latency: kfd: trigger to the
	// ioctl's return (queues off the hardware, fence signalled); drain: not
	// measurable (reason says why), decision-to-stopped given instead.
	Transition drained, stopped;
	// "pass", "fail: why" or "unavailable: why"
	std::string latency_target; // p99 ratio and best-effort kept together
	std::string suspend_target;
};

// "pass", "fail: why" or "unavailable: why" for suspend-to-unmapped p99.
std::string suspend_target_of(const Transition& suspend, const TenantTargets& t = {});

TenantArmResult judge_tenant_arm(const TenantAlone& alone, const TenantArmInput& in, const TenantTargets& t = {});

// --- Over repeats ---

// Mean and a two-sided 95% Student-t interval of the finite values; n = how
// many. n 0: all NaN; n 1: lo = hi = mean (no interval).
struct Interval {
	double mean = NAN, lo = NAN, hi = NAN;
	uint32_t n = 0;
};
Interval interval_of(const std::vector<double>& xs);

// One arm at one critical rate, over its repeats, with each target checked
// on the interval: pass when the whole interval meets it, fail when none of
// it does, "inconclusive" when it straddles the bound.
struct TenantArmSummary {
	std::string arm;
	double busy = NAN, rate = NAN;
	uint32_t repeats = 0, repeats_ok = 0;
	Interval p99_ratio, be_kept, suspends_per_s, suspended_share, drained_p99_us, stopped_p99_us, suspend_p99_us;
	std::string drained_reason; // why no decision-to-drained figure, when none
	std::string latency_target, throughput_target, suspend_target;
};
// results: one arm's results over its repeats (all of the same arm and rate).
TenantArmSummary summarize_arm(const std::vector<TenantArmResult>& results, double busy, double rate,
			       const TenantTargets& t = {});

} // namespace kfdmp
