// kfdmp-sched: suspends best-effort tenants while latency-critical work is
// pending. Usage: kfdmp-sched --help. Decisions go to stdout (or --log) as
// JSON lines; errors that stop it go to stderr with exit status 1, usage
// errors with 2.
#include "daemon.h"
#include "drain_backend.h"
#include "fake_backend.h"
#include "kfd_backend.h"
#include "proc.h"
#include "selector.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

using namespace kfdmp::sched;

namespace {

const char* usage =
	"usage: kfdmp-sched --best-effort SEL[,SEL..] --critical SEL[,SEL..] [options]\n"
	"  SEL: PID | pid:PID | pgid:PGID | cgroup:PATH | container:ID-OR-NAME; followed as processes\n"
	"       come and go (a process selected as both is critical)\n"
	"  --rescan-ms X         how often the selections are resolved again (default 500)\n"
	"  --socket PATH         unix datagram socket the critical tenants send \"busy\"/\"idle\" to\n"
	"                        (default /run/kfdmp-sched.sock)\n"
	"  --socket-mode OCTAL   its file mode (default 600)\n"
	"  --gpu all|GPU_ID      GPUs to suspend the tenants on: every GPU or one KFD gpu_id (default all)\n"
	"  --min-run-ms X        a resumed best-effort tenant runs at least this long (default 20)\n"
	"  --max-suspend-ms X    and is never suspended longer than this (default 200)\n"
	"  --resume-hold-ms X    critical work must be idle this long before a resume (default 2)\n"
	"  --backend kfd|drain|fake  kfd: the tenant-control ioctl (default; tenants as pidfds, and the kernel\n"
	"                        resumes them if the daemon dies); drain: SIGSTOP/SIGCONT of\n"
	"                        the tenant's process group, no driver change (stock amdgpu, NVIDIA), with a\n"
	"                        watchdog that resumes everything if the daemon dies; fake: in memory, for tests\n"
	"  --stop-scope group|process  drain: stop the tenant's process group (default) or the process alone\n"
	"  --stop-wait-ms X      drain: watch at most this long for every thread to stop (default 20)\n"
	"  --device PATH         the KFD device (default /dev/kfd)\n"
	"  --log FILE            JSON lines to FILE instead of stdout\n";

struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

std::vector<Selector> parse_sel(const std::string& opt, const std::string& v)
{
	try {
		return parse_selectors(v);
	} catch (const std::invalid_argument& e) {
		throw UsageError(opt + ": " + e.what());
	}
}

std::set<pid_t> resolve_all(const std::vector<Selector>& sels)
{
	std::set<pid_t> out;
	for (const auto& s : sels)
		for (pid_t p : resolve(s))
			out.insert(p);
	return out;
}

std::vector<std::string> texts(const std::vector<Selector>& sels)
{
	std::vector<std::string> v;
	for (const auto& s : sels)
		v.push_back(s.text);
	return v;
}

Duration parse_ms(const std::string& opt, const std::string& v)
{
	char* end = nullptr;
	double ms = std::strtod(v.c_str(), &end);
	if (v.empty() || *end || !(ms >= 0) || ms > 3600e3)
		throw UsageError(opt + ": '" + v + "' is not a number of milliseconds (0..3600000)");
	return Duration(int64_t(ms * 1e6));
}

} // namespace

int main(int argc, char** argv)
{
	std::vector<Selector> be_sel, crit_sel;
	Duration rescan_every = std::chrono::milliseconds(500);
	std::string socket_path = "/run/kfdmp-sched.sock", backend_name = "kfd", device = "/dev/kfd", log_path;
	unsigned socket_mode = 0600;
	Params params;
	DrainBackend::Options drain_opts;
	try {
		for (int i = 1; i < argc; i++) {
			std::string a = argv[i];
			auto value = [&]() -> std::string {
				if (i + 1 >= argc)
					throw UsageError(a + " needs a value");
				return argv[++i];
			};
			if (a == "--help" || a == "-h") {
				std::cout << usage;
				return 0;
			} else if (a == "--best-effort") {
				be_sel = parse_sel(a, value());
			} else if (a == "--critical") {
				crit_sel = parse_sel(a, value());
			} else if (a == "--rescan-ms") {
				rescan_every = parse_ms(a, value());
				if (rescan_every.count() <= 0)
					throw UsageError("--rescan-ms: must be > 0");
			} else if (a == "--socket") {
				socket_path = value();
			} else if (a == "--socket-mode") {
				std::string v = value();
				char* end = nullptr;
				unsigned long m = std::strtoul(v.c_str(), &end, 8);
				if (v.empty() || *end || m > 0777)
					throw UsageError(a + ": '" + v + "' is not an octal file mode");
				socket_mode = unsigned(m);
			} else if (a == "--gpu") {
				std::string v = value();
				if (v == "all") {
					params.gpus = GpuSel{};
				} else {
					char* end = nullptr;
					unsigned long g = std::strtoul(v.c_str(), &end, 10);
					if (v.empty() || *end || g == 0 || g > 0xffffffffUL)
						throw UsageError(a + ": '" + v + "' is neither 'all' nor a KFD gpu_id");
					params.gpus = GpuSel{false, uint32_t(g)};
				}
			} else if (a == "--min-run-ms") {
				params.min_run = parse_ms(a, value());
			} else if (a == "--max-suspend-ms") {
				params.max_suspend = parse_ms(a, value());
			} else if (a == "--resume-hold-ms") {
				params.resume_hold = parse_ms(a, value());
			} else if (a == "--backend") {
				backend_name = value();
				if (backend_name != "kfd" && backend_name != "fake" && backend_name != "drain")
					throw UsageError("--backend: '" + backend_name + "' is none of kfd, drain, fake");
			} else if (a == "--stop-scope") {
				std::string v = value();
				if (v != "group" && v != "process")
					throw UsageError("--stop-scope: '" + v + "' is neither group nor process");
				drain_opts.group_scope = v == "group";
			} else if (a == "--stop-wait-ms") {
				drain_opts.stop_wait_max = parse_ms(a, value());
			} else if (a == "--device") {
				device = value();
			} else if (a == "--log") {
				log_path = value();
			} else {
				throw UsageError("unknown option '" + a + "'");
			}
		}
		if (be_sel.empty() || crit_sel.empty())
			throw UsageError("--best-effort and --critical are required");
		if (be_sel.size() > 64)
			throw UsageError("--best-effort: at most 64 tenants (one kernel call)");
		for (const auto& b : be_sel)
			for (const auto& c : crit_sel)
				if (b.kind == Selector::Kind::Pid && c.kind == Selector::Kind::Pid && b.id == c.id)
					throw UsageError("pid " + std::to_string(b.id) + " is both critical and best-effort");
		if (backend_name == "drain" && !params.gpus.all)
			throw UsageError("--gpu: the drain backend stops whole processes; only --gpu all");
		std::string bad = check_params(params);
		if (!bad.empty())
			throw UsageError(bad);
	} catch (const UsageError& e) {
		std::cerr << "kfdmp-sched: " << e.what() << "\n" << usage;
		return 2;
	}

	std::FILE* out = stdout;
	if (!log_path.empty()) {
		out = std::fopen(log_path.c_str(), "a");
		if (!out) {
			std::cerr << "kfdmp-sched: cannot open " << log_path << ": " << std::strerror(errno) << "\n";
			return 1;
		}
	}
	DecisionLog log(out);
	SteadyClock clock;

	// The tenants now; the rescan follows them. A process selected as both
	// is critical; the daemon and its watchdog are never tenants.
	std::set<pid_t> crit_now = resolve_all(crit_sel);
	std::set<pid_t> be_now;
	for (pid_t p : resolve_all(be_sel))
		if (!crit_now.count(p) && p != getpid())
			be_now.insert(p);
	std::vector<pid_t> best_effort(be_now.begin(), be_now.end()), critical(crit_now.begin(), crit_now.end());
	// Each best-effort pid's start time as the selection saw it: the kfd
	// backend checks it once the tenant's pidfd is open (pid reuse), and a
	// rescan that finds another start time under a known pid sees a new
	// process.
	auto start_of = [](pid_t p) -> uint64_t {
		auto st = read_stat(p);
		return st ? st->starttime : 0;
	};
	std::map<pid_t, uint64_t> be_start;
	for (pid_t p : best_effort)
		be_start[p] = start_of(p);
	std::set<pid_t> literal; // best-effort tenants named by pid
	for (const auto& s : be_sel)
		if (s.kind == Selector::Kind::Pid)
			literal.insert(s.id);

	std::unique_ptr<Backend> backend;
	FakeBackend* fake = nullptr;
	DrainBackend* drain = nullptr;
	if (backend_name == "fake") {
		auto f = std::make_unique<FakeBackend>();
		for (pid_t p : best_effort)
			f->add_process(p);
		fake = f.get();
		backend = std::move(f);
	} else if (backend_name == "drain") {
		drain_opts.log_fd = fileno(out);
		auto d = std::make_unique<DrainBackend>(drain_opts);
		d->set_protected(crit_now);
		drain = d.get();
		backend = std::move(d);
	} else {
		backend = std::make_unique<KfdBackend>(device);
	}
	CallResult probe = backend->probe();
	if (!probe.ok()) {
		std::cerr << "kfdmp-sched: " << backend->name() << " backend: " << probe.message << "\n";
		log.write(JsonLine().str("event", "error").str("error", probe.message).done());
		return 1;
	}

	std::unique_ptr<SignalSocket> sock;
	try {
		sock = std::make_unique<SignalSocket>(socket_path, socket_mode);
	} catch (const std::exception& e) {
		std::cerr << "kfdmp-sched: " << e.what() << "\n";
		return 1;
	}

	Scheduler sched(params, *backend, clock, log);
	JsonLine start_line;
	start_line.integer("t_ns", to_ns(clock.now()))
		.str("event", "start")
		.integer("pid", getpid())
		.str("backend", backend->name());
	if (drain)
		start_line.integer("watchdog_pid", drain->watchdog_pid())
			.str("stop_scope", drain_opts.group_scope ? "group" : "process");
	std::string be_text, crit_text;
	for (const auto& t : texts(be_sel))
		be_text += (be_text.empty() ? "" : ",") + t;
	for (const auto& t : texts(crit_sel))
		crit_text += (crit_text.empty() ? "" : ",") + t;
	log.write(start_line
			  .pids("best_effort", best_effort)
			  .pids("critical", critical)
			  .str("best_effort_selected_by", be_text)
			  .str("critical_selected_by", crit_text)
			  .str("gpus", params.gpus.str())
			  .num("min_run_ms", double(params.min_run.count()) / 1e6)
			  .num("max_suspend_ms", double(params.max_suspend.count()) / 1e6)
			  .num("resume_hold_ms", double(params.resume_hold.count()) / 1e6)
			  .num("rescan_ms", double(rescan_every.count()) / 1e6)
			  .str("socket", socket_path)
			  .done());
	for (pid_t p : best_effort)
		sched.add_best_effort(p, be_start[p]);
	for (pid_t p : critical)
		sched.add_critical(p);

	Backend* b = backend.get();
	auto alive = [fake, b](pid_t p) {
		if (fake && fake->known(p)) // fake tenants are not real processes
			return true;
		if (auto e = b->exited(p)) // the kfd backend's pidfd: no pid reuse
			return !*e;
		return process_alive(p);
	};
	Daemon d(sched, *sock, clock, log, crit_now, alive);
	d.rescan_interval = rescan_every;
	// Selections resolved again: new processes join, processes no longer
	// selected leave (a suspended one is resumed first). Exits are the
	// liveness check's (every 100 ms).
	d.rescan = [&]() {
		std::set<pid_t> crit = resolve_all(crit_sel), be;
		for (pid_t p : resolve_all(be_sel))
			if (!crit.count(p) && p != getpid() && (!drain || p != drain->watchdog_pid()))
				be.insert(p);
		std::vector<pid_t> crit_added, crit_left, be_added, be_left, be_reused;
		std::map<pid_t, uint64_t> start;
		for (pid_t p : be) {
			start[p] = start_of(p);
			auto seen = be_start.find(p);
			// A pid whose start time changed names another process now: a
			// new tenant where a group, cgroup or container selects it (a
			// pid named on the command line meant the process that exited).
			if (be_now.count(p) && !literal.count(p) && seen != be_start.end() && seen->second &&
			    start[p] && start[p] != seen->second)
				be_reused.push_back(p);
		}
		for (pid_t p : crit)
			if (!crit_now.count(p))
				crit_added.push_back(p);
		for (pid_t p : crit_now)
			if (!crit.count(p))
				crit_left.push_back(p);
		for (pid_t p : be)
			if (!be_now.count(p))
				be_added.push_back(p);
		for (pid_t p : be_now)
			if (!be.count(p))
				be_left.push_back(p);
		for (pid_t p : be_reused) {
			be_left.push_back(p);
			be_added.push_back(p);
		}
		if (crit_added.empty() && crit_left.empty() && be_added.empty() && be_left.empty())
			return;
		for (pid_t p : be_left)
			be_start.erase(p);
		for (pid_t p : be_added)
			be_start[p] = start[p];
		crit_now = crit;
		be_now = be;
		d.critical() = crit;
		if (drain)
			drain->set_protected(crit);
		for (pid_t p : crit_left)
			sched.remove_critical(p);
		for (pid_t p : crit_added)
			sched.add_critical(p);
		for (pid_t p : be_left)
			sched.remove_best_effort(p, "no longer selected");
		std::vector<pid_t> refused;
		for (pid_t p : be_added) {
			if (backend_name == "kfd" && sched.best_effort_count() >= 64) {
				refused.push_back(p); // one kernel call takes 64 pids
				continue;
			}
			if (fake)
				fake->add_process(p);
			sched.add_best_effort(p, be_start[p]);
		}
		JsonLine l;
		l.integer("t_ns", to_ns(clock.now()))
			.str("event", "selection")
			.pids("critical_added", crit_added)
			.pids("critical_left", crit_left)
			.pids("best_effort_added", be_added)
			.pids("best_effort_left", be_left);
		if (!refused.empty())
			l.pids("not_added", refused).str("why", "the kfd backend suspends at most 64 tenants per call");
		log.write(l.done());
	};
	int rc = d.run();
	if (rc)
		std::cerr << "kfdmp-sched: stopped: " << (sched.fatal() ? sched.fatal_message() : "a resume failed")
			  << "\n";
	return rc;
}
