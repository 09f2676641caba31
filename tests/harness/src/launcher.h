// The launcher side: fork+exec N workers (the launcher itself never touches
// the GPU), start them together on the shared barrier, wait for them with a
// deadline, and collect what they recorded. Workers run in their own process
// group, which is killed on timeout, on a failure before the start and on
// SIGINT/SIGTERM/SIGHUP; PR_SET_PDEATHSIG kills them if the launcher dies.
#pragma once
#include "shared_region.h"

#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace kfdmp {

struct LaunchSpec {
	std::string worker_bin;
	RunConfig config; // config.workers = number of workers
	// Worker i gets devices[i % size] in every variable of device_env_vars
	// (nothing is set when devices is empty).
	std::vector<std::string> devices;
	std::vector<std::string> device_env_vars;
	std::vector<std::pair<std::string, std::string>> env; // set in every worker
	uint64_t grace_ns = 10'000'000'000; // after the window, before "hung"
	// Worker i runs worker_params[i] when given (--mix, --cu-split), else
	// config.params.
	std::vector<WorkloadParams> worker_params;
	// Worker i runs worker_bins[i] when given and not empty (a run that
	// mixes exec and built-in workloads, idle processes), else worker_bin.
	std::vector<std::string> worker_bins;
	// Worker i is pinned to the CPUs of worker_cpus[i] (sysfs list syntax,
	// e.g. "0-15,32-47") before exec when given and not empty (--pin numa).
	std::vector<std::string> worker_cpus;
	// Called once, halfway through the measurement window.
	std::function<void(const std::vector<pid_t>&)> mid_window;
	// Called once every worker is ready, before the release; a non-empty
	// return is the reason the run fails (the workers are not started).
	std::function<std::string(const std::vector<pid_t>&)> before_release;
};

struct WorkerOutcome {
	uint32_t index = 0;
	pid_t pid = 0;
	std::string assigned_device; // from LaunchSpec::devices, "" if none
	// ok | failed | unavailable | wrong | crashed | hung | aborted
	std::string status;
	std::string detail; // human-readable reason when status != ok
	std::string device; // as reported by the workload
	uint64_t queries = 0;
	uint64_t first_query_ns = 0;
	uint64_t measure_begin_ns = 0;
	uint64_t measure_end_ns = 0;
	std::string workload;                // this worker's workload name
	std::vector<uint64_t> latencies_ns;  // queries started in the window
	std::vector<QueryRecord> records;    // queries ended after the window opened
	uint64_t records_dropped = 0;
	std::vector<KernelStamp> stamps;
	double work_per_query = 0, peak_work_rate = 0;
	std::string work_unit;
	bool gpu_time = false; // records carry gpu_ns (exec: `ready gpu_time=1`)
};

struct LaunchResult {
	uint64_t release_ns = 0; // 0: the workers were never started together
	uint64_t window_begin_ns = 0, window_end_ns = 0; // release + warm-up, + duration
	std::string error;       // launcher-level reason for a failed run
	bool interrupted = false;
	std::vector<WorkerOutcome> workers;
	std::vector<WorkerOutcome> idle; // --idle-procs: not counted (split_idle_workers())
	bool ok() const;
};

LaunchResult launch(const LaunchSpec& spec);

// Parses a sysfs CPU list ("0-3,8,10-11"); empty on a syntax error.
std::vector<int> parse_cpu_list(const std::string& list);

// SIGINT/SIGTERM/SIGHUP make a running launch() kill its workers and return
// with interrupted set.
void install_interrupt_handlers();
bool interrupt_requested();

} // namespace kfdmp
