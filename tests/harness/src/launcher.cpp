#include "launcher.h"

#include "clock.h"
#include "worker.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sched.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kfdmp {
namespace {

volatile sig_atomic_t g_interrupted = 0;

void on_signal(int) { g_interrupted = 1; }

struct Child {
	pid_t pid = 0;
	bool reaped = false;
	bool killed = false; // by the launcher
	int wstatus = 0;
};

// argv and envp of one worker, built before fork().
struct ExecImage {
	std::vector<std::string> args, env;
	std::vector<char*> argv, envp;
	bool pin = false;
	cpu_set_t cpus;

	ExecImage(const LaunchSpec& spec, int fd, uint32_t index)
	{
		const std::string bin = index < spec.worker_bins.size() && !spec.worker_bins[index].empty()
						? spec.worker_bins[index]
						: spec.worker_bin;
		args = {bin, "--shm-fd", std::to_string(fd), "--index", std::to_string(index)};
		CPU_ZERO(&cpus);
		if (index < spec.worker_cpus.size() && !spec.worker_cpus[index].empty()) {
			for (int c : parse_cpu_list(spec.worker_cpus[index]))
				if (c < CPU_SETSIZE) {
					CPU_SET(c, &cpus);
					pin = true;
				}
		}
		std::vector<std::pair<std::string, std::string>> set = spec.env;
		if (!spec.devices.empty())
			for (const auto& var : spec.device_env_vars)
				set.emplace_back(var, spec.devices[index % spec.devices.size()]);
		for (char** e = environ; *e; ++e) {
			std::string_view kv(*e);
			auto overridden = [&](const auto& p) {
				return kv.size() > p.first.size() && kv.compare(0, p.first.size(), p.first) == 0 &&
				       kv[p.first.size()] == '=';
			};
			if (std::none_of(set.begin(), set.end(), overridden))
				env.emplace_back(kv);
		}
		for (const auto& [k, v] : set)
			env.push_back(k + "=" + v);
		for (auto& a : args)
			argv.push_back(a.data());
		argv.push_back(nullptr);
		for (auto& e : env)
			envp.push_back(e.data());
		envp.push_back(nullptr);
	}
};

[[noreturn]] void exec_worker(ExecImage& img, int fd, pid_t pgid, pid_t launcher, WorkerSlot& slot)
{
	setpgid(0, pgid);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != launcher)
		_exit(127); // the launcher died before prctl took effect
	fcntl(fd, F_SETFD, 0); // the one descriptor the worker inherits
	if (img.pin && sched_setaffinity(0, sizeof img.cpus, &img.cpus) != 0) {
		std::snprintf(slot.error, sizeof slot.error, "sched_setaffinity: %s", std::strerror(errno));
		_exit(127);
	}
	execve(img.argv[0], img.argv.data(), img.envp.data());
	std::snprintf(slot.error, sizeof slot.error, "cannot execute %s: %s", img.argv[0], std::strerror(errno));
	_exit(127);
}

void reap(std::vector<Child>& children, bool block)
{
	for (auto& c : children) {
		if (c.reaped)
			continue;
		pid_t r;
		do
			r = waitpid(c.pid, &c.wstatus, block ? 0 : WNOHANG);
		while (r < 0 && errno == EINTR);
		c.reaped = r == c.pid;
	}
}

bool all_reaped(const std::vector<Child>& children)
{
	return std::all_of(children.begin(), children.end(), [](const Child& c) { return c.reaped; });
}

// The process groups of the commands exec workers started (their own
// groups, so a command's children go with it).
void kill_commands(const SharedRegion& region, const std::vector<Child>& children)
{
	for (uint32_t i = 0; i < children.size(); ++i)
		if (const int pg = region.slot(i).child_pgid; pg > 0)
			kill(-pg, SIGKILL);
}

void kill_group(pid_t pgid, std::vector<Child>& children, const SharedRegion& region)
{
	for (auto& c : children)
		c.killed = !c.reaped;
	kill(-pgid, SIGKILL);
	kill_commands(region, children);
	reap(children, true);
}

void sleep_ms(unsigned ms) { usleep(ms * 1000); }

// Turns how a worker ended into its status and a readable reason.
void classify(const Child& c, const WorkerSlot& slot, bool timed_out, WorkerOutcome& out)
{
	const WorkerState state = slot.state.load(std::memory_order_acquire);
	const std::string error = slot.error;
	if (c.killed) {
		// A worker waiting at the barrier is a victim of another's problem.
		const bool hung = timed_out && state != WorkerState::ready;
		out.status = hung ? "hung" : "aborted";
		out.detail = std::string(hung ? "did not finish in time" : "stopped because the run failed") +
			     "; killed by the launcher in state " + to_string(state);
		if (slot.activity[0] && state != WorkerState::ready)
			out.detail += std::string(" (") + std::string(slot.activity, strnlen(slot.activity, sizeof slot.activity)) + ")";
	} else if (WIFSIGNALED(c.wstatus)) {
		out.status = "crashed";
		out.detail = "killed by signal " + std::to_string(WTERMSIG(c.wstatus)) + " (" +
			     strsignal(WTERMSIG(c.wstatus)) + ") in state " + to_string(state);
	} else {
		const int code = WEXITSTATUS(c.wstatus);
		switch (code) {
		case worker_ok: out.status = state == WorkerState::done ? "ok" : "failed"; break;
		case worker_unavailable: out.status = "unavailable"; break;
		case worker_wrong: out.status = "wrong"; break;
		case worker_no_start: out.status = "aborted"; break;
		default: out.status = "failed"; break;
		}
		if (out.status != "ok")
			out.detail = "exit " + std::to_string(code) + (error.empty() ? "" : ": " + error);
	}
}

} // namespace

bool LaunchResult::ok() const
{
	return error.empty() && !interrupted &&
	       std::all_of(workers.begin(), workers.end(), [](const WorkerOutcome& w) { return w.status == "ok"; });
}

void install_interrupt_handlers()
{
	struct sigaction sa{};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int sig : {SIGINT, SIGTERM, SIGHUP})
		sigaction(sig, &sa, nullptr);
}

bool interrupt_requested() { return g_interrupted != 0; }

std::vector<int> parse_cpu_list(const std::string& list)
{
	std::vector<int> cpus;
	std::stringstream ss(list);
	for (std::string part; std::getline(ss, part, ',');) {
		while (!part.empty() && (part.back() == '\n' || part.back() == ' '))
			part.pop_back();
		if (part.empty())
			return {};
		const auto dash = part.find('-');
		char* end = nullptr;
		const long a = std::strtol(part.c_str(), &end, 10);
		if (end == part.c_str() || a < 0 || (dash == std::string::npos ? *end != '\0' : size_t(end - part.c_str()) != dash))
			return {};
		long b = a;
		if (dash != std::string::npos) {
			const char* p = part.c_str() + dash + 1;
			b = std::strtol(p, &end, 10);
			if (end == p || *end != '\0' || b < a)
				return {};
		}
		for (long c = a; c <= b; ++c)
			cpus.push_back(int(c));
	}
	return cpus;
}

LaunchResult launch(const LaunchSpec& spec)
{
	const RunConfig& cfg = spec.config;
	SharedRegion region = SharedRegion::create(cfg);
	LaunchResult result;
	for (uint32_t i = 0; i < cfg.workers && i < spec.worker_params.size(); ++i)
		region.slot(i).params = spec.worker_params[i];

	std::vector<ExecImage> images;
	for (uint32_t i = 0; i < cfg.workers; ++i)
		images.emplace_back(spec, region.fd(), i);

	std::vector<Child> children;
	pid_t pgid = 0;
	const pid_t self = getpid();
	for (uint32_t i = 0; i < cfg.workers; ++i) {
		const pid_t pid = fork();
		if (pid < 0) {
			result.error = std::string("fork: ") + std::strerror(errno);
			break;
		}
		if (pid == 0)
			exec_worker(images[i], region.fd(), pgid, self, region.slot(i));
		if (pgid == 0)
			pgid = pid;
		setpgid(pid, pgid); // the child does the same: whichever runs first wins
		region.slot(i).pid = pid;
		children.push_back({pid});
	}

	// Phase 1: every worker initialises its workload and arrives.
	bool timed_out = false;
	ShmBarrier& barrier = region.header().barrier;
	const uint64_t ready_deadline = now_ns() + cfg.init_timeout_ns;
	while (result.error.empty() && barrier.arrived() < cfg.workers) {
		reap(children, false);
		auto gone = std::find_if(children.begin(), children.end(), [](const Child& c) { return c.reaped; });
		if (gone != children.end()) {
			result.error = "worker " + std::to_string(gone - children.begin()) + " ended before the start";
		} else if (interrupt_requested()) {
			result.interrupted = true;
			result.error = "interrupted";
		} else if (now_ns() >= ready_deadline) {
			timed_out = true;
			std::string late;
			for (uint32_t i = 0; i < children.size(); ++i) {
				const WorkerSlot& sl = region.slot(i);
				const WorkerState st = sl.state.load(std::memory_order_acquire);
				if (st == WorkerState::spawned || st == WorkerState::initialising)
					late += (late.empty() ? "" : ", ") + std::to_string(i) +
						(sl.activity[0] ? std::string(" (") + sl.activity + ")" : std::string());
			}
			result.error = "worker" + std::string(late.find(',') != std::string::npos ? "s " : " ") + late +
				       " not ready within the init timeout (" +
				       std::to_string(cfg.init_timeout_ns / 1000000000) + " s)";
		} else {
			sleep_ms(1);
		}
	}

	if (result.error.empty() && spec.before_release) {
		std::vector<pid_t> pids;
		for (const auto& c : children)
			pids.push_back(c.pid);
		result.error = spec.before_release(pids);
	}

	// Phase 2: the launcher arrives last and so releases everyone at once.
	if (result.error.empty() && barrier.arrive_and_wait(ready_deadline) == ShmBarrier::Result::released) {
		result.release_ns = barrier.release_ns();
		result.window_begin_ns = result.release_ns + cfg.warmup_ns;
		result.window_end_ns = result.window_begin_ns + cfg.duration_ns;
		const uint64_t window_end = result.window_end_ns;
		const uint64_t mid = window_end - cfg.duration_ns / 2;
		bool mid_done = !spec.mid_window;
		for (reap(children, false); !all_reaped(children); reap(children, false)) {
			const uint64_t now = now_ns();
			if (!mid_done && now >= mid) {
				std::vector<pid_t> pids;
				for (const auto& c : children)
					pids.push_back(c.pid);
				spec.mid_window(pids);
				mid_done = true;
			}
			if (interrupt_requested()) {
				result.interrupted = true;
				result.error = "interrupted";
				break;
			}
			if (now >= window_end + spec.grace_ns) {
				timed_out = true;
				result.error = "workers still running " + std::to_string(spec.grace_ns / 1000000) +
					       " ms after the measurement window";
				break;
			}
			sleep_ms(5);
		}
	} else {
		barrier.break_barrier();
		if (result.error.empty())
			result.error = "start barrier failed";
	}
	if (!all_reaped(children))
		kill_group(pgid, children, region);
	// A worker that crashed or was killed leaves its command behind.
	kill_commands(region, children);

	for (uint32_t i = 0; i < children.size(); ++i) {
		const WorkerSlot& slot = region.slot(i);
		WorkerOutcome w;
		w.index = i;
		w.pid = children[i].pid;
		if (!spec.devices.empty())
			w.assigned_device = spec.devices[i % spec.devices.size()];
		classify(children[i], slot, timed_out, w);
		w.device = slot.device;
		w.queries = slot.queries;
		w.first_query_ns = slot.first_query_ns;
		w.measure_begin_ns = slot.measure_begin_ns;
		w.measure_end_ns = slot.measure_end_ns;
		w.workload = slot.params.name;
		const QueryRecord* rec = region.records(i);
		w.records.assign(rec, rec + std::min<uint64_t>(slot.samples, cfg.latency_capacity));
		for (const auto& q : w.records)
			if (q.start_ns >= result.window_begin_ns && q.start_ns < result.window_end_ns)
				w.latencies_ns.push_back(q.end_ns - q.start_ns);
		w.records_dropped = slot.records_dropped;
		const KernelStamp* st = region.stamps(i);
		w.stamps.assign(st, st + std::min<uint64_t>(slot.stamps, slot.params.stamp_capacity));
		w.work_per_query = slot.work_per_query;
		w.peak_work_rate = slot.peak_work_rate;
		w.work_unit = std::string(slot.work_unit, strnlen(slot.work_unit, sizeof slot.work_unit));
		w.gpu_time = slot.gpu_time != 0;
		result.workers.push_back(std::move(w));
	}
	return result;
}

} // namespace kfdmp
