#include "options.h"

#include "tenant.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>
#include <sstream>
#include <string_view>

namespace kfdmp {
namespace {

uint64_t to_uint(const std::string& opt, const std::string& v, uint64_t min = 0)
{
	char* end = nullptr;
	errno = 0;
	const unsigned long long x = std::strtoull(v.c_str(), &end, 0);
	if (v.empty() || v[0] == '-' || errno || *end || x < min)
		throw UsageError(opt + ": expected an integer >= " + std::to_string(min) + ", got \"" + v + "\"");
	return x;
}

uint32_t to_u32(const std::string& opt, const std::string& v, uint32_t min = 0)
{
	const uint64_t x = to_uint(opt, v, min);
	if (x > UINT32_MAX)
		throw UsageError(opt + ": " + v + " is too large");
	return uint32_t(x);
}

double to_seconds(const std::string& opt, const std::string& v)
{
	char* end = nullptr;
	const double x = std::strtod(v.c_str(), &end);
	if (v.empty() || *end || !std::isfinite(x) || x < 0)
		throw UsageError(opt + ": expected seconds >= 0, got \"" + v + "\"");
	return x;
}

std::vector<std::string> split(const std::string& v)
{
	std::vector<std::string> parts;
	std::stringstream ss(v);
	for (std::string p; std::getline(ss, p, ',');)
		parts.push_back(p);
	return parts;
}

void copy_text(char* dst, size_t cap, const std::string& opt, const std::string& v)
{
	if (v.size() >= cap)
		throw UsageError(opt + ": value longer than " + std::to_string(cap - 1) + " characters");
	std::snprintf(dst, cap, "%s", v.c_str());
}

struct Spec {
	const char* name;
	const char* arg; // nullptr: a flag
	const char* help;
	bool bare;       // also accepted by kfdmp-bare
	std::function<void(Options&, const std::string& opt, const std::string& value)> apply;
};

const std::vector<Spec>& specs()
{
	static const std::vector<Spec> table = {
		{"--workload", "NAME", "latency | saturate | copy | mixed | gemm | hsa | idle, or a name of --exec-as "
				       "(default latency)", true,
		 [](Options& o, auto&, auto& v) { o.workload = v; }},
		{"--exec", "CMD", "run CMD (/bin/sh -c) as every process, over the line protocol of docs/exec-workers.md "
				  "(workload exec); e.g. 'docker exec -i svc python3 bench.py'", false,
		 [](Options& o, auto& opt, auto& v) {
			 if (v.empty())
				 throw UsageError(opt + ": empty command");
			 o.exec_commands["exec"] = v;
			 o.workload = "exec";
		 }},
		{"--exec-as", "NAME=CMD", "define exec workload NAME running CMD, for --workload, --mix and --critical "
					  "(repeatable)", false,
		 [](Options& o, auto& opt, auto& v) {
			 const auto eq = v.find('=');
			 if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
				 throw UsageError(opt + ": expected NAME=CMD, got \"" + v + "\"");
			 const std::string name = v.substr(0, eq);
			 if (name.size() >= sizeof o.params.name || is_known_workload(name) ||
			     name.find_first_of(":, ") != std::string::npos)
				 throw UsageError(opt + ": \"" + name + "\" cannot name an exec workload (a built-in name, "
							"31 characters at most, no ':', ',' or space)");
			 o.exec_commands[name] = v.substr(eq + 1);
		 }},
		{"--cpu-threads", "N|auto|default", "intra-op CPU threads per process: OMP_NUM_THREADS=N (exec: also "
						    "`option threads=N`); auto = online CPUs / processes (default: unset)",
		 false,
		 [](Options& o, auto& opt, auto& v) {
			 if (v != "auto" && v != "default")
				 to_u32(opt, v, 1);
			 o.cpu_threads = v;
		 }},
		{"--pin", "numa|none", "numa: pin each process to the CPUs of its GPU's NUMA node (sysfs; exec: "
				       "`option cpus=LIST`); default none", false,
		 [](Options& o, auto& opt, auto& v) {
			 if (v != "numa" && v != "none")
				 throw UsageError(opt + ": expected numa or none, got \"" + v + "\"");
			 o.pin = v;
		 }},
		{"--idle-procs", "K", "K extra processes (built-in workload idle) that open GPU queues and sit, as a "
				      "monitor does; not counted in QPS (default 0)", false,
		 [](Options& o, auto& opt, auto& v) { o.idle_procs = to_u32(opt, v); }},
		{"--procs", "LIST", "process counts, e.g. 1,2,4,8 (default); 1 is added if missing", false,
		 [](Options& o, auto& opt, auto& v) {
			 o.procs.clear();
			 for (const auto& p : split(v))
				 o.procs.push_back(to_u32(opt, p, 1));
		 }},
		{"--repeat", "R", "runs per process count (default 1)", false,
		 [](Options& o, auto& opt, auto& v) { o.repeat = to_u32(opt, v, 1); }},
		{"--duration", "SEC", "measurement window (default 3)", true,
		 [](Options& o, auto& opt, auto& v) { o.duration_s = to_seconds(opt, v); }},
		{"--warmup", "SEC", "warm-up before the window (default 1)", true,
		 [](Options& o, auto& opt, auto& v) { o.warmup_s = to_seconds(opt, v); }},
		{"--kernels", "K", "kernels per query (latency/saturate/mixed; default 8)", true,
		 [](Options& o, auto& opt, auto& v) { o.params.kernels = to_u32(opt, v, 1); }},
		{"--iters", "I", "FMA iterations per thread and kernel (default: per workload)", true,
		 [](Options& o, auto& opt, auto& v) { o.params.iters = to_u32(opt, v, 1); }},
		{"--blocks", "B", "blocks per kernel (default: per workload; hsa: workgroups, 1)", true,
		 [](Options& o, auto& opt, auto& v) { o.params.blocks = to_u32(opt, v, 1); }},
		{"--threads", "T", "threads per block (default 256; hsa 64)", true,
		 [](Options& o, auto& opt, auto& v) { o.params.threads = to_u32(opt, v, 1); }},
		{"--bytes", "N", "copy: bytes per direction (default 8 MiB)", true,
		 [](Options& o, auto& opt, auto& v) { o.params.bytes = to_uint(opt, v, 4); }},
		{"--cus", "N", "restrict each process's stream to the first N CUs (HIP only)", true,
		 [](Options& o, auto& opt, auto& v) { o.params.cus = to_u32(opt, v, 1); }},
		{"--cu-split", nullptr, "give each process a disjoint range of CUs (HIP; CUDA: unsupported)", false,
		 [](Options& o, auto&, auto&) { o.cu_split = true; }},
		{"--cu-split-xcc", "X", "like --cu-split, but each process gets an equal share of every one of X XCCs "
					"(gfx 9.4.3 hands mask bit i to XCC i mod X; MI308X SPX: 4)", false,
		 [](Options& o, auto& opt, auto& v) {
			 o.cu_split = true;
			 o.params.split_xccs = to_u32(opt, v, 1);
		 }},
		{"--streams", "S", "streams per process, each running the query's kernel chain (default 1)", true,
		 [](Options& o, auto& opt, auto& v) { o.params.streams = to_u32(opt, v, 1); }},
		{"--graph", nullptr, "replay the query as a captured HIP/CUDA graph", true,
		 [](Options& o, auto&, auto&) { o.params.graph = 1; }},
		{"--gemm", "MxNxK", "gemm: matrix sizes (default 2048x2048x2048)", true,
		 [](Options& o, auto& opt, auto& v) {
			 std::vector<std::string> d;
			 std::stringstream ss(v);
			 for (std::string p; std::getline(ss, p, 'x');)
				 d.push_back(p);
			 if (d.size() != 3)
				 throw UsageError(opt + ": expected MxNxK, got \"" + v + "\"");
			 o.params.gemm_m = to_u32(opt, d[0], 1);
			 o.params.gemm_n = to_u32(opt, d[1], 1);
			 o.params.gemm_k = to_u32(opt, d[2], 1);
		 }},
		{"--rate", "QPS", "open loop: Poisson arrivals at QPS per process; latency from arrival", true,
		 [](Options& o, auto& opt, auto& v) {
			 char* end = nullptr;
			 const double x = std::strtod(v.c_str(), &end);
			 if (v.empty() || *end || !std::isfinite(x) || x <= 0)
				 throw UsageError(opt + ": expected a rate > 0, got \"" + v + "\"");
			 o.params.rate = x;
		 }},
		{"--mix", "LIST", "tenants of one run, e.g. latency:4,saturate:4 (each also runs alone at 1 process)",
		 false, [](Options& o, auto& opt, auto& v) {
			 o.mix = v;
			 o.tenants.clear();
			 for (const auto& part : split(v)) {
				 const auto colon = part.find(':');
				 if (colon == std::string::npos || colon == 0)
					 throw UsageError(opt + ": expected WORKLOAD:PROCS, got \"" + part + "\"");
				 const std::string name = part.substr(0, colon);
				 if (name == "hsa" || name == "idle" || name.size() >= sizeof o.params.name)
					 throw UsageError(opt + ": workload \"" + name + "\" cannot be a tenant");
				 o.tenants.emplace_back(name, to_u32(opt, part.substr(colon + 1), 1));
			 }
			 if (o.tenants.empty())
				 throw UsageError(opt + ": empty");
		 }},
		{"--critical", "WORKLOAD", "tenant mode: one latency-critical process of WORKLOAD, open loop at --rate, "
					   "beside the saturating best-effort tenants of --mix", false,
		 [](Options& o, auto&, auto& v) { o.critical = v; }},
		{"--arms", "LIST", "tenant mode: arms to run, of none,priority,sched-drain,sched-kfd (sched = sched-kfd; "
				   "default none,sched-kfd,priority)", false,
		 [](Options& o, auto& opt, auto& v) {
			 o.arms.clear();
			 for (const auto& given : split(v)) {
				 std::string note;
				 const std::string a = canonical_arm(given, &note);
				 if (a.empty())
					 throw UsageError(opt + ": unknown arm \"" + given +
							  "\" (none, priority, sched-drain, sched-kfd)");
				 if (!note.empty())
					 std::fprintf(stderr, "kfdmp: %s: %s\n", opt.c_str(), note.c_str());
				 if (std::find(o.arms.begin(), o.arms.end(), a) == o.arms.end())
					 o.arms.push_back(a);
			 }
			 if (o.arms.empty())
				 throw UsageError(opt + ": empty");
		 }},
		{"--critical-busy", "LIST", "tenant mode: the critical tenant's busy fractions alone, e.g. 0.1,0.3,0.5 "
					    "(instead of --rate: rate = busy / its mean service time alone, measured first)",
		 false, [](Options& o, auto& opt, auto& v) {
			 o.critical_busy.clear();
			 for (const auto& b : split(v)) {
				 char* end = nullptr;
				 const double x = std::strtod(b.c_str(), &end);
				 if (b.empty() || *end || !(x > 0) || !(x < 1))
					 throw UsageError(opt + ": expected fractions between 0 and 1 (exclusive), got \"" + b + "\"");
				 o.critical_busy.push_back(x);
			 }
			 if (o.critical_busy.empty())
				 throw UsageError(opt + ": empty");
		 }},
		{"--sched-bin", "PATH", "tenant mode: kfdmp-sched (default: sched/kfdmp-sched or kfdmp-sched next to kfdmp)",
		 false, [](Options& o, auto&, auto& v) { o.sched_bin = v; }},
		{"--sched-backend", "kfd|drain|fake", "tenant mode: kfdmp-sched's backend in every sched arm (default: the "
						      "arm's own, sched-drain drain, sched-kfd kfd; fake: in memory, for tests)",
		 false, [](Options& o, auto& opt, auto& v) {
			 if (v != "kfd" && v != "drain" && v != "fake")
				 throw UsageError(opt + ": expected kfd, drain or fake, got \"" + v + "\"");
			 o.sched_backend = v;
		 }},
		{"--bin", "MS|auto", "time-series bin in milliseconds (default auto: >= 100, long enough for 4 queries per process)",
		 false,
		 [](Options& o, auto& opt, auto& v) {
			 if (v == "auto") {
				 o.bin_ms = 0;
				 return;
			 }
			 o.bin_ms = to_seconds(opt, v);
			 if (o.bin_ms < 1)
				 throw UsageError(opt + ": at least 1 ms");
		 }},
		{"--stamp-every", "K", "GPU-stamp the kernels of every K-th bin's queries (default 10; 0 = off)", false,
		 [](Options& o, auto& opt, auto& v) { o.stamp_every = to_u32(opt, v); }},
		{"--hsa-queues", "Q", "hsa: AQL queues each process creates (default 1)", true,
		 [](Options& o, auto& opt, auto& v) { o.params.hsa_queues = to_u32(opt, v, 1); }},
		{"--hsa-code-object", "PATH", "hsa: kernel code object (default: next to the worker)", true,
		 [](Options& o, auto& opt, auto& v) {
			 copy_text(o.params.code_object, sizeof o.params.code_object, opt, v);
		 }},
		{"--hw-queues", "N", "set GPU_MAX_HW_QUEUES=N in every worker", false,
		 [](Options& o, auto& opt, auto& v) { o.hw_queues = to_u32(opt, v, 1); }},
		{"--devices", "LIST", "visible device per worker, round-robin (e.g. 0,1)", false,
		 [](Options& o, auto&, auto& v) { o.devices = split(v); }},
		{"--out", "DIR", "output directory (default kfdmp-out)", false,
		 [](Options& o, auto&, auto& v) { o.out_dir = v; }},
		{"--init-timeout", "SEC", "time allowed for workers to reach the start barrier (default 60)", false,
		 [](Options& o, auto& opt, auto& v) { o.init_timeout_s = to_seconds(opt, v); }},
		{"--grace", "SEC", "time after the window before a worker counts as hung (default 10)", false,
		 [](Options& o, auto& opt, auto& v) { o.grace_s = to_seconds(opt, v); }},
		{"--latency-samples", "N", "latency samples kept per worker (default 524288)", false,
		 [](Options& o, auto& opt, auto& v) { o.latency_samples = to_u32(opt, v, 1); }},
		{"--trace", nullptr, "run under `TRACE-SCRIPT record OUT/trace -- ...` if the script exists", false,
		 [](Options& o, auto&, auto&) { o.trace = true; }},
		{"--trace-script", "PATH", "trace wrapper (default: the repository's scripts/trace.sh)", false,
		 [](Options& o, auto&, auto& v) { o.trace_script = v; }},
		{"--worker-bin", "PATH", "worker executable (default: kfdmp-worker or kfdmp-hsa-worker next to kfdmp)",
		 false, [](Options& o, auto&, auto& v) { o.worker_bin = v; }},
		{"--kfd-sysfs", "DIR", "KFD sysfs root (default /sys/class/kfd/kfd)", false,
		 [](Options& o, auto&, auto& v) { o.kfd.sysfs = v; }},
		{"--kfd-debugfs", "DIR", "KFD debugfs root (default /sys/kernel/debug/kfd)", false,
		 [](Options& o, auto&, auto& v) { o.kfd.debugfs = v; }},
		{"--kmsg", "PATH", "kernel log device (default /dev/kmsg)", false,
		 [](Options& o, auto&, auto& v) { o.kfd.kmsg = v; }},
		{"--sysfs", "DIR", "sysfs root for --pin's NUMA lookup (default /sys; tests use a fake tree)", false,
		 [](Options& o, auto&, auto& v) { o.sysfs_root = v; }},
		{"--version", nullptr, "print the version and exit", true,
		 [](Options& o, auto&, auto&) { o.info_requested = "version"; }},
		{"--python-path", nullptr, "print the directory of the Python helper kfdmp_worker (for PYTHONPATH) and exit",
		 false, [](Options& o, auto&, auto&) { o.info_requested = "python-path"; }},
	};
	return table;
}

} // namespace

bool is_known_workload(const std::string& name)
{
	for (const char* w : {"latency", "saturate", "copy", "mixed", "gemm", "hsa", "idle"})
		if (name == w)
			return true;
	return false;
}

Options parse_options(Program prog, int argc, char** argv, bool& help_requested)
{
	Options o;
	o.trace_script = KFDMP_DEFAULT_TRACE_SCRIPT;
	help_requested = false;
	for (int i = 1; i < argc; ++i) {
		std::string opt = argv[i], value;
		if (opt == "--help" || opt == "-h") {
			help_requested = true;
			return o;
		}
		const auto eq = opt.find('=');
		const bool inline_value = eq != std::string::npos;
		if (inline_value) {
			value = opt.substr(eq + 1);
			opt.resize(eq);
		}
		const Spec* spec = nullptr;
		for (const auto& s : specs())
			if (opt == s.name && (prog == Program::launcher || s.bare))
				spec = &s;
		if (!spec)
			throw UsageError("unknown option " + opt);
		if (spec->arg && !inline_value) {
			if (i + 1 >= argc)
				throw UsageError(opt + " needs a value (" + spec->arg + ")");
			value = argv[++i];
		} else if (!spec->arg && inline_value) {
			throw UsageError(opt + " takes no value");
		}
		spec->apply(o, opt, value);
		if (!o.info_requested.empty())
			return o;
	}
	if (o.workload.empty() || o.workload.size() >= sizeof o.params.name)
		throw UsageError("--workload: bad name \"" + o.workload + "\"");
	if (o.workload == "exec" && !o.is_exec("exec"))
		throw UsageError("--workload exec needs the command (--exec CMD)");
	if (o.worker_bin.empty() && !is_known_workload(o.workload) && !o.is_exec(o.workload))
		throw UsageError("--workload: unknown workload \"" + o.workload + "\" (built-in, or define it with --exec-as)");
	for (const auto& t : o.tenants)
		if (o.worker_bin.empty() && !is_known_workload(t.first) && !o.is_exec(t.first))
			throw UsageError("--mix: unknown workload \"" + t.first + "\" (built-in, or define it with --exec-as)");
	std::snprintf(o.params.name, sizeof o.params.name, "%s", o.workload.c_str());
	if (o.duration_s <= 0)
		throw UsageError("--duration must be > 0");
	if (!o.critical.empty()) {
		if (o.critical.size() >= sizeof o.params.name || o.critical == "hsa" ||
		    (o.worker_bin.empty() && !is_known_workload(o.critical) && !o.is_exec(o.critical)))
			throw UsageError("--critical: workload \"" + o.critical + "\" cannot be the critical tenant");
		if (o.tenants.empty())
			throw UsageError("--critical needs the best-effort tenants (--mix)");
		if (o.params.rate <= 0 && o.critical_busy.empty())
			throw UsageError("--critical needs the critical tenant's arrival rate (--rate or --critical-busy)");
		if (o.params.rate > 0 && !o.critical_busy.empty())
			throw UsageError("--rate and --critical-busy exclude each other (the busy fraction sets the rate)");
	}
	if (o.cu_split && o.params.cus)
		throw UsageError("--cu-split and --cus exclude each other");

	return o;
}

std::string usage_text(Program prog, const char* argv0)
{
	std::string s = std::string("usage: ") + argv0 + " [options]\n";
	for (const auto& spec : specs()) {
		if (prog == Program::bare && !spec.bare)
			continue;
		std::string lhs = std::string("  ") + spec.name + (spec.arg ? std::string(" ") + spec.arg : "");
		lhs.resize(std::max<size_t>(lhs.size() + 1, 28), ' ');
		s += lhs + spec.help + "\n";
	}
	return s;
}

std::optional<Options> parse_command_line(Program prog, int argc, char** argv, int& status)
{
	try {
		bool help = false;
		Options o = parse_options(prog, argc, argv, help);
		if (o.info_requested == "version") {
			std::printf("%s\n", version_text().c_str());
			status = 0;
			return std::nullopt;
		}
		if (o.info_requested == "python-path") {
			std::string why;
			const std::string dir = python_path(why);
			if (dir.empty()) {
				std::fprintf(stderr, "%s: --python-path: %s\n", argv[0], why.c_str());
				status = 1;
			} else {
				std::printf("%s\n", dir.c_str());
				status = 0;
			}
			return std::nullopt;
		}
		if (!help)
			return o;
		std::printf("%s", usage_text(prog, argv[0]).c_str());
		status = 0;
	} catch (const UsageError& e) {
		// One line naming the option, not the whole help.
		std::fprintf(stderr, "%s: %s (see --help)\n", argv[0], e.what());
		status = 64;
	}
	return std::nullopt;
}

// Set by CMake; a build without it (scripts/run-scaling.sh's cmake-less
// one) still compiles.
#ifndef KFDMP_VERSION
#define KFDMP_VERSION "unknown"
#endif

namespace {

// tests/harness of the source tree: CMake's definition, else this file's path.
std::string source_dir()
{
#ifdef KFDMP_SOURCE_DIR
	return KFDMP_SOURCE_DIR;
#else
	const std::string f = __FILE__;
	const auto cut = f.rfind("/src/options.cpp");
	return cut == std::string::npos ? std::string(".") : f.substr(0, cut);
#endif
}

} // namespace

std::string version_text()
{
	return std::string("kfdmp ") + KFDMP_VERSION + " (exec protocol 1)";
}

std::string self_dir()
{
	char buf[PATH_MAX];
	const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	const std::string exe = n > 0 ? std::string(buf, size_t(n)) : std::string(".");
	const auto slash = exe.rfind('/');
	return slash == std::string::npos ? "." : exe.substr(0, slash);
}

std::string python_path(std::string& why)
{
	const std::string dir = self_dir();
	why = "no kfdmp_worker in";
	for (const std::string& cand : {dir + "/python", dir + "/../share/kfdmp/python", source_dir() + "/python"}) {
		struct stat st;
		if (stat((cand + "/kfdmp_worker").c_str(), &st) == 0 || stat((cand + "/kfdmp_worker.py").c_str(), &st) == 0) {
			char real[PATH_MAX];
			return realpath(cand.c_str(), real) ? std::string(real) : cand;
		}
		why += " " + cand;
	}
	return "";
}

} // namespace kfdmp
