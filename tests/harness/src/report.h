// Turns launcher results into metrics and writes them: the stdout table, the
// JSON document (schema in README.md), CSV and a gnuplot plot.
#pragma once
#include "analysis.h"
#include "json.h"
#include "launcher.h"
#include "options.h"
#include "tenant.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace kfdmp {

constexpr int schema_version = 3; // 3: the "tenant" section (issue 18)

struct Latency {
	double p50_us, p99_us, p999_us, max_us;
};

struct WorkerMetrics {
	double qps;      // queries completed in the common window / window length
	Latency lat;
	double start_offset_us; // first query start - release
};

// Workers of one workload in a --mix run.
struct TenantMetrics {
	std::string workload;
	uint32_t procs = 0;
	double qps = 0, qps_per_proc = 0, jain = 0;
	Latency lat{};
	double solo_qps = 0; // ok 1-process runs of this workload alone (--mix runs them first)
	double ratio = 0;    // qps_per_proc / solo_qps
	double kernel_inflation = 0; // kernel-weighted mean over its processes, against solo (NaN: unknown)
};

// Per-query device time reported by the workload (exec: `done SEQ gpu_ns=N`),
// over the queries started in the window: kernel-time inflation against the
// same workload's 1-process runs and host-side wait (latency - gpu time).
struct GpuTimeMetrics {
	bool available = false;
	std::string reason; // why not, when !available
	uint64_t queries = 0;
	double mean_gpu_us = NAN;
	double inflation = NAN; // mean_gpu_us / the 1-process runs' mean (NaN: none)
	double host_wait_mean_us = NAN, host_wait_p50_us = NAN, host_wait_p99_us = NAN;
};

struct RunMetrics {
	std::string status; // ok | failed | unavailable | interrupted
	std::string reason; // why, when not ok
	double qps;         // queries completed in the common window / window length
	double ratio;       // qps / mean qps of this invocation's ok 1-process runs
	double jain;        // fairness of the workers' QPS
	double skew_us;     // spread of the workers' first-query start times
	Latency lat;        // over all workers' samples
	std::vector<WorkerMetrics> workers;
	WindowMetrics win;
	GpuBreakdown gpu;
	LossSplit loss;     // against the mean of the 1-process runs' breakdowns
	double work_rate;   // achieved work per second (unit: work_unit)
	double peak_rate;   // the device's peak of the same unit (0: unknown)
	std::string work_unit;
	std::vector<TenantMetrics> tenants; // --mix only
	GpuTimeMetrics gpu_time;
};

struct Run {
	uint32_t procs = 0;
	uint32_t repeat = 0;
	std::string tenant_mix; // --mix spec of this run; "" otherwise
	// Tenant mode: critical_alone | best_effort_alone | arm ("" otherwise),
	// and the arm (none | sched | priority) of an arm run.
	std::string tenant_role, tenant_arm;
	double tenant_busy = NAN, tenant_rate = NAN; // the critical tenant's busy fraction (NaN: --rate) and rate
	std::string sched_log; // the sched arm: kfdmp-sched's decision log
	int sched_status = -1; // and its exit status (-1: not started, or killed)
	int64_t sched_pid = 0; // and its pid (0: not started)
	std::string workload; // what ran: the workload, or the --mix spec
	std::string arm;      // the process arms (arm_label()), or the tenant arm
	json::Value arms;     // what each process got (apply_process_arms())
	std::string skipped;  // non-empty: the run was not started, why (status unavailable)
	LaunchResult launch;
	json::Value kfd;
	RunMetrics m{};
};

// Fills Run::m for every run (the ratio needs all of them).
void compute_metrics(std::vector<Run>& runs, uint64_t bin_ns);

// started_at: when the invocation started (UTC ISO 8601).
json::Value to_json(const Options& o, const std::string& backend, const std::string& started_at,
		    const json::Value& topology, const json::Value& environment, const std::vector<Run>& runs);
std::string utc_timestamp();
void print_table(std::FILE* out, const std::vector<Run>& runs);
void write_csv(const std::string& path, const std::vector<Run>& runs);
// Writes qps.dat and qps.gp into dir and runs gnuplot when it is on PATH;
// returns a line saying what happened.
std::string write_plot(const std::string& dir, const std::string& title, const std::vector<Run>& runs);

// Tenant mode: one result per arm and repeat (tenant.h), with its repeat.
struct TenantReport {
	uint32_t repeat = 0;
	TenantArmResult r;
};
// The arm runs judged against the alone runs of the same repeat; skipped
// arms come in `skipped` (arm, status and reason set).
// `transition_reason`: why the sched arms have no transition latency yet
// (they come from the kfd trace, read after the run: kfd_trace.h).
std::vector<TenantReport> tenant_reports(const std::vector<Run>& runs,
					 const std::vector<std::pair<uint32_t, TenantArmInput>>& skipped,
					 const std::vector<std::string>& arms,
					 const std::string& transition_reason = "no kfd trace: run with --trace");
// {"p50_us", "p99_us", "samples"} or {"unavailable": reason}, with the
// trace's counts ("tenant_ctl_events", "left_out") when it had events.
json::Value transition_json(const Transition& t);
// Each arm at each critical rate over its repeats, targets checked on intervals (tenant.h).
std::vector<TenantArmSummary> tenant_summaries(const std::vector<TenantReport>& reports);
json::Value tenant_json(const Options& o, const std::vector<TenantReport>& reports);
void print_tenant_table(std::FILE* out, const Options& o, const std::vector<TenantReport>& reports);

} // namespace kfdmp
