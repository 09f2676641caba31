// Command line of kfdmp (the launcher) and kfdmp-bare (the plain loop). One
// table drives the parser, the --help text and the README's option list.
#pragma once
#include "kfd_probe.h"
#include "workload.h"

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kfdmp {

struct Options {
	std::string workload = "latency";
	std::vector<uint32_t> procs = {1, 2, 4, 8};
	uint32_t repeat = 1;
	double duration_s = 3;
	double warmup_s = 1;
	double init_timeout_s = 60;
	double grace_s = 10;
	WorkloadParams params{};
	std::optional<uint32_t> hw_queues; // GPU_MAX_HW_QUEUES for every worker
	std::vector<std::string> devices;
	std::string out_dir = "kfdmp-out";
	bool trace = false;
	std::string trace_script;
	std::string worker_bin; // empty: the worker next to the launcher
	uint32_t latency_samples = 1u << 19;
	KfdPaths kfd;
	std::string mix;            // "latency:4,saturate:4": tenants of one run
	bool cu_split = false;      // disjoint CU ranges, one per process
	double bin_ms = 0;          // time-series bin (0: auto, see auto_min_bin_ns)
	uint32_t stamp_every = 10;  // GPU-stamp every k-th bin (0: never)
	// Tenant mode (issue 18): --critical names the open-loop critical
	// tenant's workload (one process at --rate), --mix the best-effort ones.
	std::string critical;
	// Arms (issue 26): none, priority, sched-drain, sched-kfd ("sched" is sched-kfd).
	std::vector<std::string> arms = {"none", "sched-kfd", "priority"};
	std::string sched_bin;          // empty: sched/kfdmp-sched or kfdmp-sched next to kfdmp
	std::string sched_backend;      // "": each sched arm's own (drain, kfd); kfd|drain|fake: all of them
	// --critical-busy: the critical tenant's busy fractions alone; each gives
	// rate = busy / its mean service time alone (measured first). Empty: --rate.
	std::vector<double> critical_busy;
	// --mix parsed: (workload, processes)
	std::vector<std::pair<std::string, uint32_t>> tenants;
	// Exec workloads (docs/exec-workers.md): workload name -> shell
	// command. --exec CMD defines "exec" (and selects it), --exec-as
	// NAME=CMD the names --mix and --critical can use.
	std::map<std::string, std::string> exec_commands;
	std::string cpu_threads = "default"; // --cpu-threads: N | auto | default
	std::string pin = "none";            // --pin: numa | none
	uint32_t idle_procs = 0;             // --idle-procs: processes that open queues and sit
	std::string sysfs_root = "/sys";     // where --pin reads the NUMA topology (tests: a fake tree)
	// --version / --python-path: print and exit (parse_command_line).
	std::string info_requested;

	bool is_exec(const std::string& workload) const { return exec_commands.count(workload) != 0; }
};

enum class Program { launcher, bare };

struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Throws UsageError with a message naming the bad option. --help is reported
// as help_requested = true.
Options parse_options(Program prog, int argc, char** argv, bool& help_requested);
std::string usage_text(Program prog, const char* argv0);

// parse_options() for main(): prints the help text or the usage error and
// returns nullopt with the exit status in `status` (0 after --help, 64 on a
// usage error).
std::optional<Options> parse_command_line(Program prog, int argc, char** argv, int& status);

// The workloads the shipped worker binaries implement.
bool is_known_workload(const std::string& name);

// "kfdmp <version> (exec protocol 1)".
std::string version_text();
// The directory of the Python helper kfdmp_worker (tests/harness/python,
// next to the binaries, in ../share/kfdmp/python, or in the source tree);
// "" with `why` set when none has it.
std::string python_path(std::string& why);
// The directory of the running executable.
std::string self_dir();

} // namespace kfdmp
