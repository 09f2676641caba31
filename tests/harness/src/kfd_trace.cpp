#include "kfd_trace.h"

#include "report.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace kfdmp {
namespace {

// The three events and the TP_printk keys the harness needs of each
// (kfd_mp_trace.h of the series' trace-event and tenant-control patches;
// the same file in the rocm-6.4 series). kfd_tenant_ctl fires once per GPU
// of a SUSPEND/RESUME call (kfd_tenant_step(), duration_ns: that GPU's
// part) and once per target GPU when a released /dev/kfd file's
// suspensions are given back (kfd_tenant_release(), op=resume procs=1
// duration_ns=0):
//   kfd_tenant_ctl: "gpu_id=%u op=%s procs=%u ret=%d wait_ns=%llu duration_ns=%llu"
//   kfd_unmap_queues: "gpu_id=%u filter=%s filter_param=%u ret=%d wait_us=%llu"
//   kfd_runlist_submit: "gpu_id=%u processes=%u active_queues=%u oversubscribed=%s
//                        reasons=%s duration_us=%llu ret=%d"
struct EventName {
	const char* name;
	KfdTraceEvent::Kind kind;
};
constexpr EventName event_names[] = {
	{"kfd_tenant_ctl", KfdTraceEvent::tenant_ctl},
	{"kfd_unmap_queues", KfdTraceEvent::unmap_queues},
	{"kfd_runlist_submit", KfdTraceEvent::runlist_submit},
};

// ftrace prints microseconds; a paired event may read up to this much
// before the entry computed from the tenant event's own timestamp.
constexpr uint64_t ts_slack_ns = 1000;

bool parse_u64(const std::string& s, uint64_t& v)
{
	if (s.empty() || s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	char* end = nullptr;
	v = std::strtoull(s.c_str(), &end, 10);
	return errno == 0 && *end == '\0';
}

bool parse_int(const std::string& s, int& v)
{
	if (s.empty())
		return false;
	errno = 0;
	char* end = nullptr;
	const long l = std::strtol(s.c_str(), &end, 10);
	if (errno != 0 || *end != '\0' || l < INT32_MIN || l > INT32_MAX)
		return false;
	v = int(l);
	return true;
}

bool parse_u32(const std::string& s, uint32_t& v)
{
	uint64_t u;
	if (!parse_u64(s, u) || u > UINT32_MAX)
		return false;
	v = uint32_t(u);
	return true;
}

// "SECONDS.FRACTION" (ftrace and trace-cmd print 6 digits, trace-cmd -t 9).
bool parse_timestamp(const std::string& s, uint64_t& ns)
{
	const auto dot = s.find('.');
	if (dot == std::string::npos || dot == 0)
		return false;
	const std::string frac = s.substr(dot + 1);
	uint64_t sec, f;
	if (frac.empty() || frac.size() > 9 || !parse_u64(s.substr(0, dot), sec) || !parse_u64(frac, f))
		return false;
	for (size_t i = frac.size(); i < 9; ++i)
		f *= 10;
	ns = sec * 1'000'000'000ull + f;
	return true;
}

std::string trim(const std::string& s)
{
	const auto b = s.find_first_not_of(" \t\r\n");
	if (b == std::string::npos)
		return "";
	return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// "TASK-PID [CPU] FLAGS TIMESTAMP:" (no FLAGS in trace-cmd's default
// report): the pid and the timestamp.
bool parse_prefix(const std::string& prefix, pid_t& pid, uint64_t& ts_ns)
{
	std::string p = trim(prefix);
	if (p.empty() || p.back() != ':')
		return false;
	p.pop_back();
	const auto sp = p.find_last_of(" \t");
	if (sp == std::string::npos || !parse_timestamp(p.substr(sp + 1), ts_ns))
		return false;
	p = p.substr(0, sp);
	// the CPU field: the last "[digits]"
	const auto open = p.rfind('[');
	const auto close = open == std::string::npos ? std::string::npos : p.find(']', open);
	uint64_t cpu;
	if (close == std::string::npos || !parse_u64(p.substr(open + 1, close - open - 1), cpu))
		return false;
	const std::string task = trim(p.substr(0, open));
	const auto dash = task.rfind('-');
	uint64_t v;
	if (dash == std::string::npos || !parse_u64(task.substr(dash + 1), v) || v > INT32_MAX)
		return false;
	pid = pid_t(v);
	return true;
}

} // namespace

std::optional<KfdTraceEvent> parse_kfd_trace_line(const std::string& line, bool& malformed)
{
	malformed = false;
	size_t at = std::string::npos, name_len = 0;
	KfdTraceEvent e;
	for (const EventName& n : event_names) {
		const std::string key = std::string(n.name) + ":";
		for (size_t pos = line.find(key); pos != std::string::npos; pos = line.find(key, pos + 1))
			if (pos > 0 && (line[pos - 1] == ' ' || line[pos - 1] == '\t' || line[pos - 1] == ':')) {
				at = pos;
				name_len = key.size();
				e.kind = n.kind;
				break;
			}
		if (at != std::string::npos)
			break;
	}
	if (at == std::string::npos)
		return std::nullopt;
	malformed = true;
	std::string prefix = line.substr(0, at);
	// trace-cmd can print the system: "amdkfd:kfd_tenant_ctl:"
	if (prefix.size() >= 7 && prefix.compare(prefix.size() - 7, 7, "amdkfd:") == 0)
		prefix.resize(prefix.size() - 7);
	if (!parse_prefix(prefix, e.pid, e.ts_ns))
		return std::nullopt;
	std::map<std::string, std::string> f;
	std::istringstream fields(line.substr(at + name_len));
	for (std::string tok; fields >> tok;) {
		const auto eq = tok.find('=');
		if (eq == std::string::npos || eq == 0)
			return std::nullopt;
		f[tok.substr(0, eq)] = tok.substr(eq + 1);
	}
	auto has = [&](std::initializer_list<const char*> keys) {
		return std::all_of(keys.begin(), keys.end(), [&](const char* k) { return f.count(k) != 0; });
	};
	if (!parse_u32(f["gpu_id"], e.gpu_id) || !parse_int(f["ret"], e.ret))
		return std::nullopt;
	uint64_t u;
	switch (e.kind) {
	case KfdTraceEvent::tenant_ctl:
		if (f["op"] != "suspend" && f["op"] != "resume")
			return std::nullopt;
		e.suspend = f["op"] == "suspend";
		if (!parse_u32(f["procs"], e.procs) || !parse_u64(f["wait_ns"], e.wait_ns) ||
		    !parse_u64(f["duration_ns"], e.duration_ns))
			return std::nullopt;
		break;
	case KfdTraceEvent::unmap_queues:
		if (!has({"filter", "filter_param"}) || !parse_u64(f["wait_us"], u))
			return std::nullopt;
		break;
	case KfdTraceEvent::runlist_submit:
		if (!has({"processes", "active_queues", "oversubscribed", "reasons"}) || !parse_u64(f["duration_us"], u))
			return std::nullopt;
		break;
	}
	malformed = false;
	return e;
}

KfdTrace parse_kfd_trace(std::istream& in)
{
	KfdTrace t;
	t.available = true;
	for (std::string line; std::getline(in, line);) {
		if (line.find("[LOST ") != std::string::npos || line.find("EVENTS DROPPED]") != std::string::npos) {
			++t.lost;
			continue;
		}
		bool bad = false;
		if (auto e = parse_kfd_trace_line(line, bad))
			t.events.push_back(*e);
		else if (bad && t.malformed++ == 0)
			t.first_malformed = line;
	}
	std::stable_sort(t.events.begin(), t.events.end(),
			 [](const KfdTraceEvent& a, const KfdTraceEvent& b) { return a.ts_ns < b.ts_ns; });
	return t;
}

KfdTrace read_kfd_trace_dir(const std::string& dir)
{
	KfdTrace t;
	std::map<std::string, std::string> env;
	std::ifstream envf(dir + "/trace.env");
	const bool have_env = envf.is_open();
	for (std::string line; std::getline(envf, line);) {
		const auto eq = line.find('=');
		if (eq != std::string::npos)
			env[line.substr(0, eq)] = line.substr(eq + 1);
	}
	if (env["status"] == "unavailable") {
		t.reason = "the trace was not taken: " + (env["reason"].empty() ? "see " + dir + "/trace.env" : env["reason"]);
		return t;
	}
	const std::string file = dir + "/trace.txt";
	std::ifstream f(file);
	if (!f) {
		t.reason = have_env ? "no " + file + " (the trace wrapper wrote none)" : "no trace in " + dir + " (no trace.env, no trace.txt)";
		return t;
	}
	t = parse_kfd_trace(f);
	t.file = file;
	return t;
}

TransitionSamples transition_samples(const std::vector<KfdTraceEvent>& events, pid_t caller)
{
	TransitionSamples s;
	auto by_ts = [](const KfdTraceEvent& a, uint64_t ts) { return a.ts_ns <= ts; };
	for (const KfdTraceEvent& t : events) {
		if (t.kind != KfdTraceEvent::tenant_ctl || t.pid != caller)
			continue;
		TransitionCounts& c = t.suspend ? s.suspend : s.resume;
		++c.events;
		if (t.ret != 0) {
			++c.errors;
			continue;
		}
		if (t.wait_ns == 0) {
			++c.no_cycle;
			continue;
		}
		// duration_ns 0 on a resume: the kernel giving back the
		// suspensions of a released /dev/kfd file (the daemon exited or
		// was killed; kfd_tenant_release()), not a call with a window of
		// its own. Its runlist submit came before the event, so within the
		// slack it could pair as a latency of about 0: left out, unpaired.
		if (!t.suspend && t.duration_ns == 0) {
			++c.unpaired;
			continue;
		}
		// The GPU's part of the call started duration_ns before the event.
		const uint64_t entry = t.ts_ns - std::min(t.duration_ns, t.ts_ns);
		const uint64_t from = entry - std::min(ts_slack_ns, entry);
		const auto want = t.suspend ? KfdTraceEvent::unmap_queues : KfdTraceEvent::runlist_submit;
		// The last such event on the GPU between the entry and the event.
		auto it = std::partition_point(events.begin(), events.end(), [&](const KfdTraceEvent& a) { return by_ts(a, t.ts_ns); });
		const KfdTraceEvent* match = nullptr;
		while (it != events.begin()) {
			--it;
			if (it->ts_ns < from)
				break;
			if (it->kind == want && it->gpu_id == t.gpu_id) {
				match = &*it;
				break;
			}
		}
		if (!match) {
			++c.unpaired;
			continue;
		}
		if (match->ret != 0) {
			++c.errors;
			continue;
		}
		(t.suspend ? s.suspend_ns : s.resume_ns).push_back(match->ts_ns > entry ? match->ts_ns - entry : 0);
	}
	return s;
}

namespace {

std::string none_usable(const TransitionCounts& c, bool suspend, int64_t pid, const KfdTrace& trace)
{
	const std::string op = suspend ? "suspend" : "resume";
	if (c.events == 0) {
		size_t all = 0;
		for (const auto& e : trace.events)
			all += e.kind == KfdTraceEvent::tenant_ctl;
		return "no kfd_tenant_ctl op=" + op + " event of kfdmp-sched (pid " + std::to_string(pid) + ") in " +
		       trace.file + " (" + std::to_string(all) + " kfd_tenant_ctl events in all)";
	}
	return "none of the " + std::to_string(c.events) + " kfd_tenant_ctl op=" + op + " events of kfdmp-sched (pid " +
	       std::to_string(pid) + ") is usable: " + std::to_string(c.errors) + " failed, " +
	       std::to_string(c.no_cycle) + " ran no preemption cycle, " + std::to_string(c.unpaired) + " had no " +
	       (suspend ? "kfd_unmap_queues" : "kfd_runlist_submit") + " on their GPU between their entry and the event";
}

std::string summary_of(const char* what, const Transition& t)
{
	char buf[256];
	if (!t.available)
		return std::string(what) + " unavailable: " + t.reason;
	std::snprintf(buf, sizeof buf, "%s p50 %.0f us p99 %.0f us (%llu samples; left out: %llu failed, %llu no cycle, %llu unpaired)",
		      what, t.p50_us, t.p99_us, (unsigned long long)t.samples, (unsigned long long)t.counts.errors,
		      (unsigned long long)t.counts.no_cycle, (unsigned long long)t.counts.unpaired);
	return buf;
}

} // namespace

json::Value apply_kfd_trace(const json::Value& doc, const KfdTrace& trace, std::vector<std::string>& summary,
			    const TenantTargets& targets)
{
	const json::Value* tenant = doc.find("tenant");
	if (!tenant || !tenant->is_object())
		return doc;
	const json::Value* arms = tenant->find("arms");
	json::Value new_arms = json::Value::Array{};
	std::set<int64_t> daemons;
	for (const json::Value& arm : arms && arms->is_array() ? arms->array() : json::Value::Array{}) {
		json::Value a = arm;
		const json::Value* name = arm.find("arm");
		const json::Value* status = arm.find("status");
		const json::Value* repeat = arm.find("repeat");
		if (!name || !name->is_string() || (name->string() != "sched" && name->string() != "sched-kfd") ||
		    !status || !status->is_string() ||
		    status->string() != "ok") {
			new_arms.push(std::move(a));
			continue;
		}
		Transition sus, res;
		const json::Value* sd = arm.find("sched");
		const json::Value* pidv = sd ? sd->find("daemon_pid") : nullptr;
		if (!trace.available) {
			sus.reason = res.reason = trace.reason;
		} else if (!pidv || !pidv->is_number() || pidv->number() <= 0) {
			sus.reason = res.reason = "results.json names no kfdmp-sched pid (sched.daemon_pid) to find its events by";
		} else {
			const int64_t pid = int64_t(pidv->number());
			daemons.insert(pid);
			TransitionSamples s = transition_samples(trace.events, pid_t(pid));
			sus = transition_of(s.suspend_ns, none_usable(s.suspend, true, pid, trace));
			res = transition_of(s.resume_ns, none_usable(s.resume, false, pid, trace));
			sus.counts = s.suspend;
			res.counts = s.resume;
		}
		a.set("suspend_to_unmapped", transition_json(sus));
		a.set("resume_to_running", transition_json(res));
		a.set("suspend_target", suspend_target_of(sus, targets));
		summary.push_back("sched r" + std::to_string(repeat && repeat->is_number() ? int(repeat->number()) : 0) +
				  ": " + summary_of("suspend-to-unmapped", sus) + "; " + summary_of("resume-to-running", res) +
				  "; suspend target " + suspend_target_of(sus, targets));
		new_arms.push(std::move(a));
	}
	json::Value tr;
	tr.set("status", trace.available ? "read" : "unavailable");
	if (!trace.available) {
		tr.set("reason", trace.reason);
	} else {
		tr.set("file", trace.file);
		uint64_t n[3] = {0, 0, 0}, other = 0;
		for (const auto& e : trace.events) {
			++n[e.kind];
			other += e.kind == KfdTraceEvent::tenant_ctl && !daemons.count(e.pid);
		}
		json::Value ev;
		ev.set("kfd_tenant_ctl", n[KfdTraceEvent::tenant_ctl]);
		ev.set("kfd_unmap_queues", n[KfdTraceEvent::unmap_queues]);
		ev.set("kfd_runlist_submit", n[KfdTraceEvent::runlist_submit]);
		tr.set("events", ev);
		tr.set("tenant_ctl_of_other_callers", other);
		tr.set("malformed_lines", trace.malformed);
		if (trace.malformed)
			tr.set("first_malformed", trace.first_malformed);
		tr.set("lost_markers", trace.lost);
	}
	json::Value t = *tenant;
	t.set("arms", std::move(new_arms));
	t.set("trace", std::move(tr));
	json::Value out = doc;
	out.set("tenant", std::move(t));
	return out;
}

} // namespace kfdmp
