// kfdmp: the multi-process QPS launcher. It never calls the GPU itself; see
// README.md for the options, the output files and the JSON schema.
#include "arms.h"
#include "clock.h"
#include "env_capture.h"
#include "kfd_probe.h"
#include "kfd_trace.h"
#include "launcher.h"
#include "options.h"
#include "report.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kfdmp;

namespace {

enum Exit { exit_ok = 0, exit_failed = 1, exit_unavailable = 77, exit_interrupted = 130 };

std::string self_exe()
{
	char buf[PATH_MAX];
	const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	return n > 0 ? std::string(buf, size_t(n)) : std::string("kfdmp");
}

// Tenant mode under --trace: rewrites OUT/results.json's tenant section with
// the transition latencies of trace_dir's trace.txt and prints them; false
// when results.json could not be read or written.
bool apply_trace_to_results(const std::string& out_dir, const std::string& trace_dir)
{
	const std::string path = out_dir + "/results.json";
	std::string text;
	if (std::FILE* f = std::fopen(path.c_str(), "r")) {
		char buf[65536];
		for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
			text.append(buf, n);
		std::fclose(f);
	} else {
		std::fprintf(stderr, "kfdmp: cannot read %s for the trace's tenant transitions: %s\n", path.c_str(),
			     std::strerror(errno));
		return false;
	}
	json::Value doc;
	try {
		doc = json::parse(text);
	} catch (const std::exception& e) {
		std::fprintf(stderr, "kfdmp: %s: %s\n", path.c_str(), e.what());
		return false;
	}
	const KfdTrace trace = read_kfd_trace_dir(trace_dir);
	std::vector<std::string> summary;
	doc = apply_kfd_trace(doc, trace, summary);
	std::FILE* f = std::fopen(path.c_str(), "w");
	if (!f) {
		std::fprintf(stderr, "kfdmp: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
		return false;
	}
	std::fprintf(f, "%s\n", json::dump(doc).c_str());
	std::fclose(f);
	std::printf("\ntenant transitions from the kfd trace (%s):\n",
		    trace.available ? trace.file.c_str() : ("unavailable: " + trace.reason).c_str());
	if (trace.malformed)
		std::printf("  %llu malformed kfd event lines skipped, the first: %s\n",
			    (unsigned long long)trace.malformed, trace.first_malformed.c_str());
	if (trace.lost)
		std::printf("  the ring buffer lost events (%llu LOST lines): unpaired transitions may follow\n",
			    (unsigned long long)trace.lost);
	for (const std::string& line : summary)
		std::printf("  %s\n", line.c_str());
	if (summary.empty())
		std::printf("  no sched arm ran\n");
	std::printf("results (with the transitions): %s\n", path.c_str());
	return true;
}

// Re-runs this command under the trace wrapper, without --trace.
int run_traced(const Options& o, int argc, char** argv)
{
	std::vector<std::string> args = {o.trace_script, "record", o.out_dir + "/trace", "--", self_exe()};
	for (int i = 1; i < argc; ++i)
		if (std::string(argv[i]) != "--trace")
			args.emplace_back(argv[i]);
	std::vector<char*> cargv;
	for (auto& a : args)
		cargv.push_back(a.data());
	cargv.push_back(nullptr);
	std::fprintf(stderr, "kfdmp: tracing with %s\n", o.trace_script.c_str());
	const std::string trace_dir = o.out_dir + "/trace";
	const pid_t pid = fork();
	if (pid == 0) {
		// The traced kfdmp says in its report that the trace is read afterwards.
		setenv("KFDMP_TRACE_DIR", trace_dir.c_str(), 1);
		execv(cargv[0], cargv.data());
		std::fprintf(stderr, "kfdmp: cannot execute %s: %s\n", cargv[0], std::strerror(errno));
		_exit(127);
	}
	int status = 0;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	const int rc = pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : exit_failed;
	// trace.sh writes trace.txt only once the command has exited: the
	// tenant section's transition latencies are filled in now.
	if (!o.critical.empty() && !apply_trace_to_results(o.out_dir, trace_dir) && rc == exit_ok)
		return exit_failed;
	return rc;
}

bool make_dirs(const std::string& path)
{
	for (size_t i = 1; i <= path.size(); ++i)
		if (i == path.size() || path[i] == '/')
			if (mkdir(path.substr(0, i).c_str(), 0755) != 0 && errno != EEXIST)
				return false;
	return true;
}

LaunchSpec launch_spec(const Options& o, uint32_t procs, const std::string& workload)
{
	const bool hsa = workload == "hsa";
	LaunchSpec s;
	s.worker_bin = !o.worker_bin.empty() ? o.worker_bin
					      : self_dir() + (hsa ? "/kfdmp-hsa-worker" : "/kfdmp-worker");
	s.config.workers = procs;
	s.config.latency_capacity = o.latency_samples;
	s.config.warmup_ns = seconds_to_ns(o.warmup_s);
	s.config.duration_ns = seconds_to_ns(o.duration_s);
	s.config.init_timeout_ns = seconds_to_ns(o.init_timeout_s);
	// The workers stamp every k-th bin of this length; the analysis bin may differ (auto).
	s.config.bin_ns = o.bin_ms > 0 ? uint64_t(o.bin_ms * 1e6) : auto_min_bin_ns;
	s.config.stamp_every = o.stamp_every;
	{
		const std::string name = workload;
		s.config.params = o.params;
		std::snprintf(s.config.params.name, sizeof s.config.params.name, "%s", name.c_str());
	}
	if (o.stamp_every && !s.config.params.stamp_capacity)
		s.config.params.stamp_capacity = 1u << 17;
	if (o.cu_split)
		for (uint32_t i = 0; i < procs; ++i) {
			WorkloadParams p = s.config.params;
			p.split_index = i;
			p.split_count = procs;
			s.worker_params.push_back(p);
		}
	s.devices = o.devices;
	s.device_env_vars = hsa ? std::vector<std::string>{"ROCR_VISIBLE_DEVICES"}
				: std::vector<std::string>{"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"};
	if (o.hw_queues)
		s.env.emplace_back("GPU_MAX_HW_QUEUES", std::to_string(*o.hw_queues));
	s.grace_ns = seconds_to_ns(o.grace_s);
	return s;
}

// Tenant mode: in an arm run worker 0 is the critical tenant (open loop at
// `rate`: --rate, or its busy fraction's), the others the best-effort tenants
// of --mix (closed loop, saturating); the best-effort-alone run is those
// without worker 0; critical_service is the critical tenant alone, closed
// loop (its mean service time sets the rate of each --critical-busy). In the
// priority arm the critical stream gets the device's highest priority and
// the others its lowest.
std::vector<WorkloadParams> tenant_params(const Options& o, const WorkloadParams& base, const std::string& role,
					  const std::string& arm, const std::string& workload, double rate)
{
	auto make = [&](const std::string& name, bool critical) {
		WorkloadParams p = base;
		std::snprintf(p.name, sizeof p.name, "%s", name.c_str());
		p.rate = critical && role != "critical_service" ? rate : 0;
		p.priority = arm != "priority" ? 0 : critical ? 1 : -1;
		return p;
	};
	(void)workload;
	if (role == "critical_alone" || role == "critical_service")
		return {make(o.critical, true)};
	std::vector<WorkloadParams> v;
	if (role == "arm")
		v.push_back(make(o.critical, true));
	for (const auto& [name, n] : o.tenants)
		for (uint32_t k = 0; k < n; ++k)
			v.push_back(make(name, false));
	return v;
}

std::string sched_bin(const Options& o)
{
	if (!o.sched_bin.empty())
		return o.sched_bin;
	const std::string in_sub = self_dir() + "/sched/kfdmp-sched";
	return access(in_sub.c_str(), X_OK) == 0 ? in_sub : self_dir() + "/kfdmp-sched";
}

// Why a sched arm cannot run here ("" when it can). The daemon itself
// says whether the loaded driver has the interface (its probe). The drain
// backend needs no driver support.
std::string sched_arm_unavailable(const Options& o, const std::string& arm)
{
	const std::string backend = KFDMP_BACKEND;
	if (sched_arm_backend(arm, o.sched_backend) == "kfd") {
		if (backend != "hip")
			return "the tenant-control interface is amdkfd's (ioctl 0x29 on /dev/kfd); this is a " +
			       backend + " build";
		if (access("/dev/kfd", R_OK | W_OK) != 0)
			return std::string("/dev/kfd: ") + std::strerror(errno);
	}
	if (access(sched_bin(o).c_str(), X_OK) != 0)
		return sched_bin(o) + ": " + std::strerror(errno) + " (build kfdmp-sched, or --sched-bin)";
	return "";
}

// kfdmp-sched for one sched-arm run: started with the workers' pids once
// they are ready, stopped with SIGTERM after the window.
struct SchedDaemon {
	std::string bin, backend, socket, log;
	pid_t pid = 0;
	int status = -1; // exit status after stop(); -1: not started or killed

	std::string start(const std::vector<pid_t>& pids)
	{
		std::string be;
		for (size_t i = 1; i < pids.size(); ++i)
			be += (be.empty() ? "" : ",") + std::to_string(pids[i]);
		std::vector<std::string> args = {bin, "--backend", backend, "--best-effort", be, "--critical",
						 std::to_string(pids[0]), "--socket", socket, "--log", log};
		unlink(socket.c_str());
		pid = fork();
		if (pid < 0)
			return std::string("fork kfdmp-sched: ") + std::strerror(errno);
		if (pid == 0) {
			std::vector<char*> argv;
			for (auto& a : args)
				argv.push_back(a.data());
			argv.push_back(nullptr);
			execv(argv[0], argv.data());
			std::fprintf(stderr, "kfdmp: cannot execute %s: %s\n", argv[0], std::strerror(errno));
			_exit(127);
		}
		// Ready when its socket exists (it binds it after the backend's probe).
		for (int i = 0; i < 5000; ++i) {
			struct stat st;
			if (stat(socket.c_str(), &st) == 0)
				return "";
			int ws = 0;
			if (waitpid(pid, &ws, WNOHANG) == pid) {
				pid = 0;
				status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
				return "kfdmp-sched exited with status " + std::to_string(status) +
				       " before its socket appeared: " + last_error();
			}
			usleep(1000);
		}
		return "kfdmp-sched did not create " + socket + " within 5 s";
	}

	// The daemon's last "error" line, if any.
	std::string last_error() const
	{
		std::FILE* f = std::fopen(log.c_str(), "r");
		std::string err = "see " + log;
		if (!f)
			return err;
		char line[4096];
		while (std::fgets(line, sizeof line, f))
			if (std::strstr(line, "\"event\":\"error\""))
				err = line;
		std::fclose(f);
		while (!err.empty() && err.back() == '\n')
			err.pop_back();
		return err;
	}

	void stop()
	{
		if (pid <= 0)
			return;
		kill(pid, SIGTERM);
		int ws = 0;
		while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
		}
		status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
		pid = 0;
	}
};

// One round is every configuration once; the repeats are whole rounds,
// so drift over time spreads over every N instead of falling on a ratio.
struct Step {
	uint32_t procs;
	std::string workload, mix;
	std::string role = "", arm = ""; // tenant mode
	int busy = -1;   // tenant mode: index into --critical-busy (-1: --rate)
	double rate = 0; // tenant mode: the critical tenant's rate (set before the run for a busy fraction)
};

std::vector<Step> plan_round(const Options& o)
{
	std::vector<Step> round;
	if (!o.critical.empty()) {
		// Alone first: the critical tenant, then the best-effort tenants
		// together without it (what the critical tenant costs them).
		uint32_t be = 0;
		for (const auto& t : o.tenants)
			be += t.second;
		if (o.critical_busy.empty()) {
			round.push_back({1, o.critical, "", "critical_alone", "", -1, o.params.rate});
			round.push_back({be, o.tenants.front().first, "", "best_effort_alone"});
			for (const std::string& arm : o.arms)
				round.push_back({be + 1, o.critical, "", "arm", arm, -1, o.params.rate});
		} else {
			// Its service time alone first (closed loop; the first repeat
			// only), then per busy fraction: alone at the rate, the arms.
			round.push_back({1, o.critical, "", "critical_service"});
			round.push_back({be, o.tenants.front().first, "", "best_effort_alone"});
			for (size_t k = 0; k < o.critical_busy.size(); ++k) {
				round.push_back({1, o.critical, "", "critical_alone", "", int(k)});
				for (const std::string& arm : o.arms)
					round.push_back({be + 1, o.critical, "", "arm", arm, int(k)});
			}
		}
	} else if (!o.tenants.empty()) {
		uint32_t total = 0;
		for (const auto& [name, n] : o.tenants) {
			total += n;
			if (std::none_of(round.begin(), round.end(), [&](const Step& s) { return s.workload == name; }))
				round.push_back({1, name, ""});
		}
		round.push_back({total, o.tenants.front().first, o.mix});
	} else {
		for (uint32_t n : o.procs)
			round.push_back({n, o.workload, ""});
	}
	return round;
}

// The per-worker workloads of a --mix run.
std::vector<WorkloadParams> mix_params(const Options& o, const WorkloadParams& base, uint32_t procs)
{
	std::vector<WorkloadParams> v;
	uint32_t idx = 0;
	for (const auto& [name, n] : o.tenants)
		for (uint32_t k = 0; k < n; ++k, ++idx) {
			WorkloadParams p = base;
			std::snprintf(p.name, sizeof p.name, "%s", name.c_str());
			if (o.cu_split) {
				p.split_index = idx;
				p.split_count = procs;
			}
			v.push_back(p);
		}
	return v;
}

// The arm label of CSV rows and runs[].arm: the tenant arm, else the
// process arms that differ from stock.
std::string arm_label(const Options& o, const Step& step)
{
	if (!step.arm.empty())
		return step.arm;
	std::vector<std::string> a;
	if (o.cpu_threads != "default")
		a.push_back("threads=" + o.cpu_threads);
	if (o.pin != "none")
		a.push_back("pin=" + o.pin);
	if (o.idle_procs)
		a.push_back("idle=" + std::to_string(o.idle_procs));
	if (o.cu_split)
		a.push_back(o.params.split_xccs ? "cu-split-xcc=" + std::to_string(o.params.split_xccs) : "cu-split");
	if (o.hw_queues)
		a.push_back("hw-queues=" + std::to_string(*o.hw_queues));
	if (o.params.graph)
		a.push_back("graph");
	std::string s;
	for (const auto& x : a)
		s += (s.empty() ? "" : "+") + x;
	return s.empty() ? "stock" : s;
}

// Runs one step of a round; false when the invocation cannot go on.
bool run_step(const Options& o, const Step& step, uint32_t rep, Run& r)
{
	r.procs = step.procs;
	r.repeat = rep;
	r.tenant_mix = step.mix;
	r.tenant_role = step.role;
	r.tenant_arm = step.arm;
	r.tenant_busy = step.busy >= 0 ? o.critical_busy[size_t(step.busy)] : NAN;
	r.tenant_rate = step.role.empty() || step.role == "best_effort_alone" ? NAN : step.rate;
	r.workload = step.mix.empty() ? step.workload : step.mix;
	r.arm = arm_label(o, step);
	const std::string busy_tag = step.busy >= 0 ? "-busy" + std::to_string(step.busy) : "";
	const std::string tag = !step.role.empty()
		? "tenant-" + (step.arm.empty() ? step.role : step.arm) + busy_tag + "-r" + std::to_string(rep)
		: (step.mix.empty() ? "" : "mix-") + std::string(o.tenants.empty() ? "" : step.workload + "-") + "N" +
			std::to_string(step.procs) + "-r" + std::to_string(rep);
	LaunchSpec spec = launch_spec(o, step.procs, step.workload);
	if (!step.role.empty())
		spec.worker_params = tenant_params(o, spec.config.params, step.role, step.arm, step.workload, step.rate);
	if (!step.mix.empty())
		spec.worker_params = mix_params(o, spec.config.params, step.procs);
	const uint32_t counted = spec.worker_params.empty() ? step.procs : uint32_t(spec.worker_params.size());
	r.arms = json::Value::Object{};
	r.skipped = apply_process_arms(o, counted, spec, r.arms);
	if (!r.skipped.empty())
		return true;
	KfdObserver kfd(o.kfd, o.out_dir, tag);
	spec.mid_window = [&kfd](const std::vector<pid_t>& pids) { kfd.during_window(pids); };
	SchedDaemon daemon;
	if (is_sched_arm(step.arm)) {
		daemon.bin = sched_bin(o);
		daemon.backend = sched_arm_backend(step.arm, o.sched_backend);
		daemon.socket = o.out_dir + "/" + step.arm + busy_tag + "-r" + std::to_string(rep) + ".sock";
		daemon.log = o.out_dir + "/" + step.arm + busy_tag + "-r" + std::to_string(rep) + ".jsonl";
		if (daemon.socket.size() >= sizeof spec.worker_params[0].notify_socket) {
			std::fprintf(stderr, "kfdmp: %s: path too long for a unix socket\n", daemon.socket.c_str());
			return false;
		}
		std::snprintf(spec.worker_params[0].notify_socket, sizeof spec.worker_params[0].notify_socket, "%s",
			      daemon.socket.c_str());
		// The tenants only: --idle-procs processes are not the daemon's to suspend.
		spec.before_release = [&daemon, counted](const std::vector<pid_t>& pids) {
			return daemon.start(std::vector<pid_t>(pids.begin(), pids.begin() + std::min<size_t>(pids.size(), counted)));
		};
		r.sched_log = daemon.log;
	}
	r.launch = launch(spec);
	split_idle_workers(r.launch, counted);
	r.sched_pid = daemon.pid;
	daemon.stop();
	r.sched_status = daemon.status;
	r.kfd = kfd.finish();
	return true;
}

std::string duration_text(double s)
{
	char buf[32];
	const unsigned t = unsigned(s + 0.5);
	std::snprintf(buf, sizeof buf, "%u:%02u:%02u", t / 3600, t / 60 % 60, t % 60);
	return buf;
}

// "run k of M, elapsed, ETA" and the run's outcome, on stderr.
void print_progress(const Options& o, const Step& step, const Run& r, size_t k, size_t total, uint64_t started_ns)
{
	const RunMetrics& m = r.m;
	const std::string what = !step.arm.empty() ? "arm " + step.arm
				 : step.role == "critical_alone" || step.role == "critical_service" ? step.role + " " + step.workload
				 : !step.role.empty() ? step.role + " " + o.mix
				 : step.mix.empty() ? step.workload : step.mix;
	const double elapsed = double(now_ns() - started_ns) / 1e9;
	const double eta = elapsed / double(k) * double(total - k);
	std::fprintf(stderr, "kfdmp: run %zu of %zu (elapsed %s, ETA %s): %s procs=%u repeat=%u %s qps=%.1f%s%s\n", k,
		     total, duration_text(elapsed).c_str(), duration_text(eta).c_str(), what.c_str(), step.procs, r.repeat,
		     m.status.c_str(), m.qps, m.reason.empty() ? "" : " ", m.reason.c_str());
}

bool write_results(const Options& o, const std::string& started_at, const std::vector<Run>& runs,
		   const std::vector<std::pair<uint32_t, TenantArmInput>>& skipped)
{
	print_table(stdout, runs);
	std::vector<TenantReport> tenants;
	const bool tenant_mode = !o.critical.empty();
	if (tenant_mode) {
		const char* traced = std::getenv("KFDMP_TRACE_DIR");
		tenants = tenant_reports(runs, skipped, o.arms,
					 traced ? std::string("read from ") + traced +
							  "/trace.txt once the traced run has ended (see the table after it)"
						: "no kfd trace: run with --trace (scripts/trace.sh records amdkfd:kfd_tenant_ctl)");
		print_tenant_table(stdout, o, tenants);
	}
	const std::string json_path = o.out_dir + "/results.json";
	std::FILE* f = std::fopen(json_path.c_str(), "w");
	if (!f) {
		std::fprintf(stderr, "kfdmp: cannot write %s: %s\n", json_path.c_str(), std::strerror(errno));
		return false;
	}
	json::Value doc = to_json(o, KFDMP_BACKEND, started_at, gpu_topology(o.kfd),
				  capture_environment(EnvPaths::for_kfd(o.kfd)), runs);
	if (tenant_mode)
		doc.set("tenant", tenant_json(o, tenants));
	std::fprintf(f, "%s\n", json::dump(doc).c_str());
	std::fclose(f);
	write_csv(o.out_dir + "/results.csv", runs);
	std::printf("results: %s, %s/results.csv\n", json_path.c_str(), o.out_dir.c_str());
	std::printf("%s\n", write_plot(o.out_dir, o.workload + ": aggregate QPS against processes", runs).c_str());
	return true;
}

int exit_status(const std::vector<Run>& runs)
{
	auto any = [&](const char* status) {
		return std::any_of(runs.begin(), runs.end(), [&](const Run& r) { return r.m.status == status; });
	};
	return any("interrupted") ? exit_interrupted
	       : any("failed")    ? exit_failed
	       : any("unavailable") ? exit_unavailable
				    : exit_ok;
}

} // namespace

int main(int argc, char** argv)
{
	int status = exit_ok;
	std::optional<Options> parsed = parse_command_line(Program::launcher, argc, argv, status);
	if (!parsed)
		return status;
	Options& o = *parsed;
	if (!make_dirs(o.out_dir)) {
		std::fprintf(stderr, "kfdmp: cannot create %s: %s\n", o.out_dir.c_str(), std::strerror(errno));
		return exit_failed;
	}
	if (o.trace) {
		if (access(o.trace_script.c_str(), X_OK) == 0)
			return run_traced(o, argc, argv);
		std::fprintf(stderr, "kfdmp: --trace: %s not found or not executable; running without a trace\n",
			     o.trace_script.c_str());
	}
	const std::string started_at = utc_timestamp();
	const uint64_t started_ns = now_ns();
	if (std::find(o.procs.begin(), o.procs.end(), 1u) == o.procs.end())
		o.procs.insert(o.procs.begin(), 1); // scaling ratios need the 1-process run
	install_interrupt_handlers();

	const std::vector<Step> round = plan_round(o);
	std::vector<Run> runs;
	std::vector<std::pair<uint32_t, TenantArmInput>> skipped;
	double service_ns = NAN; // --critical-busy: the critical tenant's mean service time alone
	bool stop = false;
	for (uint32_t rep = 0; rep < o.repeat && !stop; ++rep) {
		for (size_t i = 0; i < round.size() && !stop; ++i) {
			Step step = round[i];
			if (step.role == "critical_service" && rep > 0)
				continue; // one rate for every repeat
			if (step.busy >= 0)
				step.rate = rate_from_busy(o.critical_busy[size_t(step.busy)], service_ns);
			const std::string sched_unavailable =
				is_sched_arm(step.arm) ? sched_arm_unavailable(o, step.arm) : "";
			if (!sched_unavailable.empty()) {
				TenantArmInput in;
				in.arm = step.arm;
				in.busy = step.busy >= 0 ? o.critical_busy[size_t(step.busy)] : NAN;
				in.rate = step.rate;
				in.status = "skipped";
				in.reason = sched_unavailable;
				skipped.emplace_back(rep, in);
				std::fprintf(stderr, "kfdmp: arm %s repeat=%u skipped: %s\n", step.arm.c_str(), rep,
					     sched_unavailable.c_str());
				continue;
			}
			Run r;
			if (!run_step(o, step, rep, r))
				return exit_failed;
			runs.push_back(std::move(r));
			compute_metrics(runs, uint64_t(o.bin_ms * 1e6));
			print_progress(o, step, runs.back(), rep * round.size() + i + 1, o.repeat * round.size(), started_ns);
			// Nothing later can succeed without a device, or after Ctrl-C
			// (an arm skipped before its launch, runs[].skipped, stops nothing).
			stop = (runs.back().m.status == "unavailable" && runs.back().skipped.empty()) ||
			       runs.back().m.status == "interrupted";
			if (step.role == "critical_service") {
				const Run& cal = runs.back();
				if (cal.m.status == "ok" && !cal.launch.workers.empty())
					service_ns = mean_ns(cal.launch.workers[0].latencies_ns);
				if (!(service_ns > 0)) {
					std::fprintf(stderr, "kfdmp: --critical-busy: the critical tenant's service time alone "
							     "could not be measured (%s%s%s); no rate, stopping\n",
						     cal.m.status.c_str(), cal.m.reason.empty() ? "" : ": ", cal.m.reason.c_str());
					stop = true;
				} else {
					std::fprintf(stderr, "kfdmp: critical %s alone: mean service time %.1f us; rates:",
						     o.critical.c_str(), service_ns / 1e3);
					for (double b : o.critical_busy)
						std::fprintf(stderr, " busy %.2f -> %.1f/s", b, rate_from_busy(b, service_ns));
					std::fprintf(stderr, "\n");
				}
			}
		}
	}
	compute_metrics(runs, uint64_t(o.bin_ms * 1e6));
	if (!write_results(o, started_at, runs, skipped))
		return exit_failed;
	return exit_status(runs);
}
