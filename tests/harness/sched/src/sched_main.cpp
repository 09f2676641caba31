// kfdmp-sched: suspends best-effort tenants while latency-critical work is
// pending. Usage: kfdmp-sched --help. Decisions go to stdout (or --log) as
// JSON lines; errors that stop it go to stderr with exit status 1, usage
// errors with 2.
#include "daemon.h"
#include "drain_backend.h"
#include "fake_backend.h"
#include "kfd_backend.h"

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
	"usage: kfdmp-sched --best-effort PID[,PID..] --critical PID[,PID..] [options]\n"
	"  --socket PATH         unix datagram socket the critical tenants send \"busy\"/\"idle\" to\n"
	"                        (default /run/kfdmp-sched.sock)\n"
	"  --socket-mode OCTAL   its file mode (default 600)\n"
	"  --gpu all|GPU_ID      GPUs to suspend the tenants on: every GPU or one KFD gpu_id (default all)\n"
	"  --min-run-ms X        a resumed best-effort tenant runs at least this long (default 20)\n"
	"  --max-suspend-ms X    and is never suspended longer than this (default 200)\n"
	"  --resume-hold-ms X    critical work must be idle this long before a resume (default 2)\n"
	"  --set-class           tell the kernel each tenant's class at start\n"
	"  --backend kfd|drain|fake  kfd: the tenant-control ioctl (default); drain: SIGSTOP/SIGCONT of\n"
	"                        the tenant's process group, no driver change (stock amdgpu, NVIDIA), with a\n"
	"                        watchdog that resumes everything if the daemon dies; fake: in memory, for tests\n"
	"  --stop-scope group|process  drain: stop the tenant's process group (default) or the process alone\n"
	"  --stop-wait-ms X      drain: watch at most this long for every thread to stop (default 20)\n"
	"  --device PATH         the KFD device (default /dev/kfd)\n"
	"  --log FILE            JSON lines to FILE instead of stdout\n";

struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

std::vector<pid_t> parse_pids(const std::string& opt, const std::string& v)
{
	std::vector<pid_t> out;
	std::stringstream ss(v);
	std::string item;
	while (std::getline(ss, item, ',')) {
		char* end = nullptr;
		errno = 0;
		long p = std::strtol(item.c_str(), &end, 10);
		if (item.empty() || *end || errno || p <= 0 || p > 0x3fffffff)
			throw UsageError(opt + ": '" + item + "' is not a pid");
		out.push_back(pid_t(p));
	}
	if (out.empty())
		throw UsageError(opt + ": no pid given");
	return out;
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
	std::vector<pid_t> best_effort, critical;
	std::string socket_path = "/run/kfdmp-sched.sock", backend_name = "kfd", device = "/dev/kfd", log_path;
	unsigned socket_mode = 0600;
	bool set_class = false;
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
				best_effort = parse_pids(a, value());
			} else if (a == "--critical") {
				critical = parse_pids(a, value());
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
			} else if (a == "--set-class") {
				set_class = true;
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
		if (best_effort.empty() || critical.empty())
			throw UsageError("--best-effort and --critical are required");
		if (best_effort.size() > 64)
			throw UsageError("--best-effort: at most 64 tenants (one kernel call)");
		for (pid_t p : best_effort)
			for (pid_t c : critical)
				if (p == c)
					throw UsageError("pid " + std::to_string(p) + " is both critical and best-effort");
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

	std::unique_ptr<Backend> backend;
	FakeBackend* fake = nullptr;
	if (backend_name == "fake") {
		auto f = std::make_unique<FakeBackend>();
		for (pid_t p : best_effort)
			f->add_process(p);
		fake = f.get();
		backend = std::move(f);
	} else if (backend_name == "drain") {
		drain_opts.log_fd = fileno(out);
		auto d = std::make_unique<DrainBackend>(drain_opts);
		d->set_protected(std::set<pid_t>(critical.begin(), critical.end()));
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
	if (auto* d = dynamic_cast<DrainBackend*>(backend.get()))
		start_line.integer("watchdog_pid", d->watchdog_pid()).str("stop_scope", drain_opts.group_scope ? "group" : "process");
	log.write(start_line
			  .pids("best_effort", best_effort)
			  .pids("critical", critical)
			  .str("gpus", params.gpus.str())
			  .num("min_run_ms", double(params.min_run.count()) / 1e6)
			  .num("max_suspend_ms", double(params.max_suspend.count()) / 1e6)
			  .num("resume_hold_ms", double(params.resume_hold.count()) / 1e6)
			  .str("socket", socket_path)
			  .done());
	for (pid_t p : best_effort)
		sched.add_best_effort(p);
	for (pid_t p : critical)
		sched.add_critical(p);
	if (set_class) {
		for (auto [pids, cls] : {std::make_pair(best_effort, TenantClass::BestEffort),
					 std::make_pair(critical, TenantClass::LatencyCritical)}) {
			CallResult r = backend->set_class(pids, cls);
			log.write(JsonLine()
					  .integer("t_ns", to_ns(clock.now()))
					  .str("event", "set_class")
					  .str("class", class_name(cls))
					  .pids("pids", pids)
					  .str("result", r.ok() ? "ok" : errno_text(r.err))
					  .done());
		}
	}

	std::set<pid_t> be_set(best_effort.begin(), best_effort.end());
	auto alive = [fake, be_set](pid_t p) {
		if (fake && be_set.count(p)) // fake tenants are not real processes
			return true;
		return process_alive(p);
	};
	Daemon d(sched, *sock, clock, log, std::set<pid_t>(critical.begin(), critical.end()), alive);
	int rc = d.run();
	if (rc)
		std::cerr << "kfdmp-sched: stopped: " << (sched.fatal() ? sched.fatal_message() : "a resume failed")
			  << "\n";
	return rc;
}
