#include "tenant.h"

#include "report.h"
#include "stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

namespace kfdmp {
namespace {

std::string fmt(const char* f, double a, double b)
{
	char buf[128];
	std::snprintf(buf, sizeof buf, f, a, b);
	return buf;
}

} // namespace

Percentiles percentiles_of(std::vector<uint64_t> ns)
{
	Percentiles p;
	p.samples = ns.size();
	p.p50_us = percentile(ns, 50) / 1000.0;
	p.p99_us = percentile(ns, 99) / 1000.0;
	p.p999_us = percentile(ns, 99.9) / 1000.0;
	return p;
}

Transition transition_of(std::vector<uint64_t> ns, const std::string& reason_if_none)
{
	Transition t;
	if (ns.empty()) {
		t.reason = reason_if_none.empty() ? "no transitions recorded" : reason_if_none;
		return t;
	}
	t.available = true;
	t.samples = ns.size();
	t.p50_us = percentile(ns, 50) / 1000.0;
	t.p99_us = percentile(ns, 99) / 1000.0;
	return t;
}

TenantArmResult judge_tenant_arm(const TenantAlone& alone, const TenantArmInput& in, const TenantTargets& t)
{
	TenantArmResult r;
	r.arm = in.arm;
	r.status = in.status;
	r.reason = in.reason;
	r.alone = percentiles_of(alone.critical_ns);
	r.critical = percentiles_of(in.critical_ns);
	r.p99_ratio = ratio(r.critical.p99_us, r.alone.p99_us);
	r.critical_qps = in.critical_qps;
	r.be_kept_min = in.be_qps.empty() ? NAN : INFINITY;
	for (const auto& [name, qps] : in.be_qps) {
		BestEffortKept k;
		k.workload = name;
		k.qps = qps;
		k.alone_qps = NAN;
		for (const auto& [aname, aqps] : alone.be_qps)
			if (aname == name)
				k.alone_qps = aqps;
		k.kept = ratio(qps, k.alone_qps);
		r.best_effort.push_back(k);
		r.be_kept_min = std::isnan(k.kept) || std::isnan(r.be_kept_min) ? NAN : std::min(r.be_kept_min, k.kept);
	}
	r.busy = in.busy;
	r.rate = in.rate;
	if (is_sched_arm(in.arm)) {
		r.suspends = in.suspends;
		r.resumes = in.resumes;
		r.decision = percentiles_of(in.decision_ns);
		r.sched_log = in.sched_log;
		r.sched_pid = in.sched_pid;
		r.sched_backend = in.sched_backend;
		r.suspends_per_s = in.window_s > 0 ? double(in.suspends_in_window) / in.window_s : NAN;
		r.suspended_share = in.suspended_share;
		r.suspend = transition_of(in.suspend_ns, in.transition_reason);
		r.resume = transition_of(in.resume_ns, in.transition_reason);
		if (in.sched_backend == "drain") {
			r.suspend.reason = r.resume.reason =
				"the drain backend takes no queue off the GPU (it stops the tenant's processes)";
			r.drained.reason = "not measurable with the drain backend: the GPU work a stopped tenant had "
					   "already queued is invisible to it and runs to completion; decision-to-stopped "
					   "is given instead";
			r.stopped = transition_of(in.stopped_ns, "no suspension completed in the run");
		} else if (in.sched_backend == "fake") {
			r.drained.reason = "the fake backend suspends nothing on a GPU";
			r.stopped.reason = "only the drain backend stops processes";
		} else {
			// The ioctl returns once the queues are off the hardware (the
			// unmap fence signalled): trigger to return is decision-to-drained.
			r.drained = transition_of(in.suspend_decision_ns, "no suspension in the run");
			r.stopped.reason = "only the drain backend stops processes";
		}
	} else {
		r.suspend.reason = r.resume.reason = "no suspends in the " + in.arm + " arm";
		r.drained.reason = r.stopped.reason = "no suspends in the " + in.arm + " arm";
	}

	if (in.status != "ok") {
		r.latency_target = r.suspend_target = "unavailable: arm " + in.status + ": " + in.reason;
		return r;
	}
	if (r.alone.samples == 0)
		r.latency_target = "unavailable: no critical latencies alone";
	else if (r.critical.samples == 0)
		r.latency_target = "unavailable: the critical tenant completed no query in this arm";
	else if (std::isnan(r.be_kept_min))
		r.latency_target = "unavailable: a best-effort tenant has no throughput alone";
	else if (r.p99_ratio > t.p99_ratio_max)
		r.latency_target = fmt("fail: critical p99 %.2fx alone > %.2fx", r.p99_ratio, t.p99_ratio_max);
	else if (r.be_kept_min < t.be_kept_min)
		r.latency_target = fmt("fail: a best-effort tenant keeps %.2f of alone < %.2f", r.be_kept_min,
				       t.be_kept_min);
	else
		r.latency_target = "pass";

	r.suspend_target = suspend_target_of(r.suspend, t);
	return r;
}

std::string suspend_target_of(const Transition& s, const TenantTargets& t)
{
	if (!s.available)
		return "unavailable: " + s.reason;
	if (s.p99_us >= t.suspend_p99_max_us)
		return fmt("fail: suspend-to-unmapped p99 %.0f us >= %.0f us", s.p99_us, t.suspend_p99_max_us);
	return "pass";
}


// --- Arms and the critical rate (issue 26) ---

std::string canonical_arm(const std::string& name, std::string* note)
{
	if (name == "none" || name == "priority" || name == "sched-drain" || name == "sched-kfd")
		return name;
	if (name == "sched") {
		if (note)
			*note = "arm \"sched\" is issue 18's name of sched-kfd (the tenant-control ioctl); running sched-kfd";
		return "sched-kfd";
	}
	return "";
}

bool is_sched_arm(const std::string& arm) { return arm == "sched-drain" || arm == "sched-kfd" || arm == "sched"; }

std::string sched_arm_backend(const std::string& arm, const std::string& override_backend)
{
	if (!override_backend.empty())
		return override_backend;
	return arm == "sched-drain" ? "drain" : "kfd";
}

double rate_from_busy(double busy, double mean_service_ns)
{
	if (!(mean_service_ns > 0) || !std::isfinite(mean_service_ns) || !(busy > 0))
		return NAN;
	return busy / (mean_service_ns / 1e9);
}

double mean_ns(const std::vector<uint64_t>& ns)
{
	if (ns.empty())
		return NAN;
	long double sum = 0;
	for (uint64_t v : ns)
		sum += v;
	return double(sum / ns.size());
}

SchedLogSummary summarize_sched_log(const std::vector<std::string>& lines, uint64_t begin_ns, uint64_t end_ns)
{
	SchedLogSummary s;
	std::map<int64_t, int64_t> since; // pid -> t_ns of its suspend (running: absent)
	std::map<int64_t, long double> suspended_ns;
	auto clip = [&](int64_t a, int64_t b) -> long double {
		int64_t lo = std::max<int64_t>(a, int64_t(begin_ns)), hi = std::min<int64_t>(b, int64_t(end_ns));
		return hi > lo ? (long double)(hi - lo) : 0;
	};
	int64_t last_t = 0;
	for (const std::string& line : lines) {
		json::Value v;
		try {
			v = json::parse(line);
		} catch (const std::exception&) {
			continue;
		}
		const json::Value* ev = v.find("event");
		if (!ev || !ev->is_string())
			continue;
		const std::string& e = ev->string();
		const json::Value* t = v.find("t_ns");
		const int64_t t_ns = t && t->is_number() ? int64_t(t->number()) : 0;
		last_t = std::max(last_t, t_ns);
		std::vector<int64_t> pids;
		if (const json::Value* p = v.find(e == "start" ? "best_effort" : "pids"); p && p->is_array())
			for (const json::Value& x : p->array())
				if (x.is_number())
					pids.push_back(int64_t(x.number()));
		if (e == "start") {
			if (const json::Value* b = v.find("backend"); b && b->is_string())
				s.backend = b->string();
			s.tenants = pids.size();
			continue;
		}
		if (e == "shutdown") {
			const json::Value* l = v.find("left_suspended");
			s.left_suspended = l && l->is_number() ? int64_t(l->number()) : -1;
		}
		if (e == "watchdog_resume")
			++s.watchdog_resumes;
		if (e == "tenant_gone" || e == "watchdog_resume")
			for (int64_t p : pids)
				if (auto it = since.find(p); it != since.end()) {
					suspended_ns[p] += clip(it->second, t_ns);
					since.erase(it);
				}
		if (e != "suspend" && e != "resume")
			continue;
		const json::Value* res = v.find("result");
		if (!res || !res->is_string() || res->string() != "ok")
			continue;
		const bool suspend = e == "suspend";
		++(suspend ? s.suspends : s.resumes);
		const json::Value* lat = v.find("latency_us");
		if (lat && lat->is_number()) {
			s.decision_ns.push_back(uint64_t(lat->number() * 1000));
			if (suspend)
				s.suspend_decision_ns.push_back(uint64_t(lat->number() * 1000));
		}
		if (suspend) {
			if (const json::Value* st = v.find("stopped_us"); st && st->is_number())
				s.stopped_ns.push_back(uint64_t(st->number() * 1000));
			if (t_ns >= int64_t(begin_ns) && t_ns < int64_t(end_ns))
				++s.suspends_in_window;
		}
		for (int64_t p : pids) {
			if (suspend) {
				since.emplace(p, t_ns);
			} else if (auto it = since.find(p); it != since.end()) {
				suspended_ns[p] += clip(it->second, t_ns);
				since.erase(it);
			}
		}
	}
	for (const auto& [p, t0] : since) // still suspended at the log's end
		suspended_ns[p] += clip(t0, std::max<int64_t>(last_t, int64_t(end_ns)));
	if (s.tenants > 0 && end_ns > begin_ns) {
		long double total = 0;
		for (const auto& x : suspended_ns)
			total += x.second;
		s.suspended_share = double(total / ((long double)(end_ns - begin_ns) * s.tenants));
	}
	return s;
}

SchedLogSummary read_sched_log_file(const std::string& path, uint64_t begin_ns, uint64_t end_ns)
{
	std::ifstream f(path);
	std::vector<std::string> lines;
	for (std::string line; std::getline(f, line);)
		lines.push_back(line);
	return summarize_sched_log(lines, begin_ns, end_ns);
}

// --- Over repeats ---

Interval interval_of(const std::vector<double>& xs)
{
	Interval iv;
	std::vector<double> v;
	for (double x : xs)
		if (std::isfinite(x))
			v.push_back(x);
	iv.n = uint32_t(v.size());
	if (v.empty())
		return iv;
	double sum = 0;
	for (double x : v)
		sum += x;
	iv.mean = sum / v.size();
	if (v.size() == 1) {
		iv.lo = iv.hi = iv.mean;
		return iv;
	}
	double ss = 0;
	for (double x : v)
		ss += (x - iv.mean) * (x - iv.mean);
	const double sd = std::sqrt(ss / (v.size() - 1));
	// Two-sided 95% Student-t quantiles for 1..30 degrees of freedom.
	static const double tq[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
				    2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
				    2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
	const size_t df = v.size() - 1;
	const double q = df <= 30 ? tq[df - 1] : 1.96;
	const double half = q * sd / std::sqrt(double(v.size()));
	iv.lo = iv.mean - half;
	iv.hi = iv.mean + half;
	return iv;
}

namespace {

std::string interval_text(const Interval& iv, const char* fmt_one)
{
	char a[64], b[64], c[64];
	std::snprintf(a, sizeof a, fmt_one, iv.mean);
	if (iv.n < 2)
		return std::string(a) + " (" + std::to_string(iv.n) + " repeat, no interval)";
	std::snprintf(b, sizeof b, fmt_one, iv.lo);
	std::snprintf(c, sizeof c, fmt_one, iv.hi);
	return std::string(a) + " [" + b + ", " + c + "] over " + std::to_string(iv.n) + " repeats";
}

// max: the value must stay <= bound (< when strict); otherwise >= bound.
std::string check_interval(const Interval& iv, double bound, bool upper, bool strict, const char* what,
			   const char* fmt_one, const std::string& why_none)
{
	if (iv.n == 0)
		return "unavailable: " + why_none;
	const std::string text = std::string(what) + " " + interval_text(iv, fmt_one);
	char b[64];
	std::snprintf(b, sizeof b, fmt_one, bound);
	const std::string rel = upper ? (strict ? " < " : " <= ") : " >= ";
	auto ok = [&](double x) { return upper ? (strict ? x < bound : x <= bound) : x >= bound; };
	if (ok(iv.hi) && ok(iv.lo))
		return "pass: " + text + rel + b;
	if (!ok(iv.hi) && !ok(iv.lo))
		return "fail: " + text + " not" + rel + b;
	return "inconclusive: " + text + " straddles " + b;
}

} // namespace

TenantArmSummary summarize_arm(const std::vector<TenantArmResult>& results, double busy, double rate,
			       const TenantTargets& t)
{
	TenantArmSummary s;
	s.busy = busy;
	s.rate = rate;
	s.repeats = uint32_t(results.size());
	std::vector<double> ratio, kept, sps, share, drained, stopped, susp;
	std::string why_not_ok = "no repeat ran";
	for (const TenantArmResult& r : results) {
		if (s.arm.empty())
			s.arm = r.arm;
		if (r.status != "ok") {
			why_not_ok = "no repeat ran ok (" + r.status + ": " + r.reason + ")";
			continue;
		}
		++s.repeats_ok;
		ratio.push_back(r.p99_ratio);
		kept.push_back(r.be_kept_min);
		sps.push_back(r.suspends_per_s);
		share.push_back(r.suspended_share);
		drained.push_back(r.drained.available ? r.drained.p99_us : NAN);
		stopped.push_back(r.stopped.available ? r.stopped.p99_us : NAN);
		susp.push_back(r.suspend.available ? r.suspend.p99_us : NAN);
		if (!r.drained.available && s.drained_reason.empty())
			s.drained_reason = r.drained.reason;
	}
	s.p99_ratio = interval_of(ratio);
	s.be_kept = interval_of(kept);
	s.suspends_per_s = interval_of(sps);
	s.suspended_share = interval_of(share);
	s.drained_p99_us = interval_of(drained);
	s.stopped_p99_us = interval_of(stopped);
	s.suspend_p99_us = interval_of(susp);
	if (s.drained_p99_us.n > 0)
		s.drained_reason.clear();
	else if (s.drained_reason.empty())
		s.drained_reason = why_not_ok;
	s.latency_target = check_interval(s.p99_ratio, t.p99_ratio_max, true, false, "critical p99/alone", "%.2f",
					  s.repeats_ok ? "no critical latency ratio (alone or arm)" : why_not_ok);
	s.throughput_target = check_interval(s.be_kept, t.be_kept_min, false, false, "best-effort kept (min)", "%.2f",
					     s.repeats_ok ? "no best-effort throughput alone" : why_not_ok);
	if (!is_sched_arm(s.arm)) {
		s.suspend_target = "unavailable: no suspends in the " + s.arm + " arm";
	} else if (s.suspend_p99_us.n == 0) {
		std::string why = why_not_ok;
		for (const TenantArmResult& r : results)
			if (r.status == "ok") {
				why = r.suspend.reason;
				break;
			}
		s.suspend_target = "unavailable: " + why;
	} else {
		s.suspend_target = check_interval(s.suspend_p99_us, t.suspend_p99_max_us, true, true,
						  "suspend-to-unmapped p99 us", "%.0f", "");
	}
	return s;
}

// --- The harness's tenant report (moved from report.cpp for issue 26) ---

namespace {

// (workload, mean QPS per process) over workers first.. of a run, in the
// order the workloads first appear.
std::vector<std::pair<std::string, double>> mean_qps_per_workload(const Run& r, size_t first)
{
	std::vector<std::pair<std::string, double>> sum;
	std::vector<uint32_t> n;
	for (size_t i = first; i < r.launch.workers.size() && i < r.m.workers.size(); ++i) {
		const std::string& w = r.launch.workers[i].workload;
		size_t k = 0;
		while (k < sum.size() && sum[k].first != w)
			++k;
		if (k == sum.size()) {
			sum.emplace_back(w, 0.0);
			n.push_back(0);
		}
		sum[k].second += r.m.workers[i].qps;
		++n[k];
	}
	for (size_t k = 0; k < sum.size(); ++k)
		sum[k].second /= n[k];
	return sum;
}

bool same_busy(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

} // namespace

std::vector<TenantReport> tenant_reports(const std::vector<Run>& runs,
					 const std::vector<std::pair<uint32_t, TenantArmInput>>& skipped,
					 const std::vector<std::string>& arms, const std::string& transition_reason)
{
	std::vector<TenantReport> out;
	uint32_t repeats = 0;
	std::vector<double> busies; // in the order they ran; NaN: --rate
	auto note_busy = [&](double b) {
		if (std::none_of(busies.begin(), busies.end(), [&](double x) { return same_busy(x, b); }))
			busies.push_back(b);
	};
	for (const Run& r : runs)
		if (!r.tenant_role.empty()) {
			repeats = std::max(repeats, r.repeat + 1);
			if (r.tenant_role == "arm" || r.tenant_role == "critical_alone")
				note_busy(r.tenant_busy);
		}
	for (const auto& [rep, in] : skipped) {
		repeats = std::max(repeats, rep + 1);
		note_busy(in.busy);
	}
	if (busies.empty())
		busies.push_back(NAN);
	// --critical-busy: without the service time alone no rate, so no arm ran.
	std::string not_run = "not run (an earlier run stopped the invocation)";
	for (const Run& r : runs)
		if (r.tenant_role == "critical_service" && r.m.status != "ok")
			not_run = "not run: the critical tenant's service time alone could not be measured (" + r.m.status +
				  (r.m.reason.empty() ? "" : ": " + r.m.reason) + ")";
	for (double busy : busies)
		for (uint32_t rep = 0; rep < repeats; ++rep) {
			TenantAlone alone;
			double rate = NAN;
			for (const Run& r : runs) {
				if (r.repeat != rep || r.m.status != "ok" || r.launch.workers.empty())
					continue;
				if (r.tenant_role == "critical_alone" && same_busy(r.tenant_busy, busy)) {
					alone.critical_ns = r.launch.workers[0].latencies_ns;
					rate = r.tenant_rate;
				} else if (r.tenant_role == "best_effort_alone") {
					alone.be_qps = mean_qps_per_workload(r, 0);
				}
			}
			for (const std::string& arm : arms) {
				TenantArmInput in;
				in.arm = arm;
				in.busy = busy;
				in.rate = rate;
				bool found = false;
				for (const auto& [srep, sk] : skipped)
					if (srep == rep && sk.arm == arm && same_busy(sk.busy, busy)) {
						in = sk;
						found = true;
					}
				for (const Run& r : runs) {
					if (found || r.repeat != rep || r.tenant_role != "arm" || r.tenant_arm != arm ||
					    !same_busy(r.tenant_busy, busy))
						continue;
					found = true;
					in.rate = r.tenant_rate;
					in.status = r.m.status == "ok" ? "ok" : "failed";
					in.reason = r.m.reason;
					// Skipped before its launch (runs[].skipped: the workers cannot take
					// the arm, e.g. priority on an exec worker) or the workload answered
					// unavailable: a skip with its reason, not a failure.
					if (!r.skipped.empty() || r.m.status == "unavailable") {
						in.status = "skipped";
						if (in.reason.empty())
							in.reason = r.skipped;
					}
					if (!r.launch.error.empty() && r.launch.error.find("not supported") != std::string::npos)
						in.status = "skipped"; // the daemon's probe: the driver lacks the interface
					SchedLogSummary log;
					if (is_sched_arm(arm)) {
						log = read_sched_log_file(r.sched_log, r.launch.window_begin_ns,
									  r.launch.window_end_ns);
						in.sched_backend = log.backend;
					}
					if (is_sched_arm(arm) && in.status == "ok") {
						in.sched_log = r.sched_log;
						if (r.sched_status != 0) {
							in.status = "failed";
							in.reason = "kfdmp-sched exited with status " +
								    std::to_string(r.sched_status) + " (" + r.sched_log + ")";
						} else if (log.left_suspended != 0) {
							in.status = "failed";
							in.reason = log.left_suspended < 0
								? "kfdmp-sched wrote no shutdown line (" + r.sched_log + ")"
								: "kfdmp-sched left " + std::to_string(log.left_suspended) +
									  " tenants suspended";
						}
					}
					if (in.status != "ok")
						continue;
					in.critical_ns = r.launch.workers[0].latencies_ns;
					in.critical_qps = r.m.workers.empty() ? NAN : r.m.workers[0].qps;
					in.be_qps = mean_qps_per_workload(r, 1);
					if (is_sched_arm(arm)) {
						in.suspends = log.suspends;
						in.resumes = log.resumes;
						in.decision_ns = log.decision_ns;
						in.suspend_decision_ns = log.suspend_decision_ns;
						in.stopped_ns = log.stopped_ns;
						in.suspends_in_window = log.suspends_in_window;
						in.suspended_share = log.suspended_share;
						in.window_s = r.launch.window_end_ns > r.launch.window_begin_ns
							? double(r.launch.window_end_ns - r.launch.window_begin_ns) / 1e9
							: 0;
						in.transition_reason = transition_reason;
						in.sched_pid = r.sched_pid;
					}
				}
				if (!found) {
					in.status = "failed";
					in.reason = not_run;
				}
				out.push_back({rep, judge_tenant_arm(alone, in)});
			}
		}
	return out;
}

std::vector<TenantArmSummary> tenant_summaries(const std::vector<TenantReport>& reports)
{
	std::vector<TenantArmSummary> out;
	std::vector<std::pair<std::string, double>> keys;
	for (const TenantReport& rep : reports)
		if (std::none_of(keys.begin(), keys.end(), [&](const auto& k) {
			    return k.first == rep.r.arm && same_busy(k.second, rep.r.busy);
		    }))
			keys.emplace_back(rep.r.arm, rep.r.busy);
	for (const auto& [arm, busy] : keys) {
		std::vector<TenantArmResult> rs;
		double rate = NAN;
		for (const TenantReport& rep : reports)
			if (rep.r.arm == arm && same_busy(rep.r.busy, busy)) {
				rs.push_back(rep.r);
				if (std::isnan(rate))
					rate = rep.r.rate;
			}
		out.push_back(summarize_arm(rs, busy, rate));
	}
	return out;
}

namespace {

json::Value percentiles_json(const Percentiles& p)
{
	json::Value v;
	v.set("p50_us", p.p50_us);
	v.set("p99_us", p.p99_us);
	v.set("p999_us", p.p999_us);
	v.set("samples", p.samples);
	return v;
}

json::Value interval_json(const Interval& iv)
{
	json::Value v;
	v.set("mean", iv.mean);
	v.set("lo95", iv.lo);
	v.set("hi95", iv.hi);
	v.set("n", iv.n);
	return v;
}

} // namespace

json::Value transition_json(const Transition& t)
{
	json::Value v;
	if (!t.available) {
		v.set("unavailable", t.reason);
	} else {
		v.set("p50_us", t.p50_us);
		v.set("p99_us", t.p99_us);
		v.set("samples", t.samples);
	}
	if (t.counts.events) {
		v.set("tenant_ctl_events", t.counts.events);
		json::Value left;
		left.set("failed", t.counts.errors);
		left.set("no_cycle", t.counts.no_cycle);
		left.set("unpaired", t.counts.unpaired);
		v.set("left_out", left);
	}
	return v;
}

json::Value tenant_json(const Options& o, const std::vector<TenantReport>& reports)
{
	const TenantTargets t;
	json::Value doc;
	doc.set("critical", o.critical);
	if (o.critical_busy.empty()) {
		doc.set("rate_per_s", o.params.rate);
	} else {
		json::Value b = json::Value::Array{};
		for (double x : o.critical_busy)
			b.push(x);
		doc.set("critical_busy", b);
	}
	doc.set("best_effort", o.mix);
	json::Value targets;
	targets.set("critical_p99_ratio_max", t.p99_ratio_max);
	targets.set("best_effort_kept_min", t.be_kept_min);
	targets.set("suspend_p99_max_us", t.suspend_p99_max_us);
	doc.set("targets", targets);
	json::Value arms = json::Value::Array{};
	for (const TenantReport& rep : reports) {
		const TenantArmResult& r = rep.r;
		json::Value a;
		a.set("arm", r.arm);
		a.set("repeat", rep.repeat);
		a.set("busy_fraction", r.busy);
		a.set("rate_per_s", r.rate);
		a.set("status", r.status);
		if (!r.reason.empty())
			a.set("reason", r.reason);
		a.set("critical_alone", percentiles_json(r.alone));
		a.set("critical", percentiles_json(r.critical));
		a.set("critical_p99_ratio", r.p99_ratio);
		a.set("critical_qps", r.critical_qps);
		json::Value be = json::Value::Array{};
		for (const BestEffortKept& k : r.best_effort) {
			json::Value b;
			b.set("workload", k.workload);
			b.set("qps", k.qps);
			b.set("alone_qps", k.alone_qps);
			b.set("kept", k.kept);
			be.push(b);
		}
		a.set("best_effort", be);
		a.set("best_effort_kept_min", r.be_kept_min);
		if (is_sched_arm(r.arm) && r.status == "ok") {
			json::Value sd;
			sd.set("log", r.sched_log);
			sd.set("backend", r.sched_backend);
			sd.set("daemon_pid", r.sched_pid);
			sd.set("suspends", r.suspends);
			sd.set("resumes", r.resumes);
			sd.set("suspends_per_s", r.suspends_per_s);
			sd.set("suspended_share", r.suspended_share);
			sd.set("decision_latency", percentiles_json(r.decision));
			sd.set("decision_to_drained", transition_json(r.drained));
			sd.set("decision_to_stopped", transition_json(r.stopped));
			a.set("sched", sd);
		}
		a.set("suspend_to_unmapped", transition_json(r.suspend));
		a.set("resume_to_running", transition_json(r.resume));
		a.set("latency_target", r.latency_target);
		a.set("suspend_target", r.suspend_target);
		arms.push(a);
	}
	doc.set("arms", arms);
	json::Value sums = json::Value::Array{};
	for (const TenantArmSummary& s : tenant_summaries(reports)) {
		json::Value a;
		a.set("arm", s.arm);
		a.set("busy_fraction", s.busy);
		a.set("rate_per_s", s.rate);
		a.set("repeats", s.repeats);
		a.set("repeats_ok", s.repeats_ok);
		a.set("critical_p99_ratio", interval_json(s.p99_ratio));
		a.set("best_effort_kept_min", interval_json(s.be_kept));
		if (is_sched_arm(s.arm)) {
			a.set("suspends_per_s", interval_json(s.suspends_per_s));
			a.set("suspended_share", interval_json(s.suspended_share));
			if (s.drained_p99_us.n)
				a.set("decision_to_drained_p99_us", interval_json(s.drained_p99_us));
			else
				a.set("decision_to_drained_p99_us", json::Value::Object{{"unavailable", s.drained_reason}});
			if (s.stopped_p99_us.n)
				a.set("decision_to_stopped_p99_us", interval_json(s.stopped_p99_us));
		}
		a.set("latency_target", s.latency_target);
		a.set("throughput_target", s.throughput_target);
		a.set("suspend_target", s.suspend_target);
		sums.push(a);
	}
	doc.set("summary", sums);
	return doc;
}

namespace {

std::string transition_text(const Transition& t)
{
	if (!t.available)
		return "unavailable: " + t.reason;
	char buf[128];
	std::snprintf(buf, sizeof buf, "p50 %.0f us, p99 %.0f us (%llu samples)", t.p50_us, t.p99_us,
		      (unsigned long long)t.samples);
	return buf;
}

std::string busy_text(double busy, double rate)
{
	char b[96];
	if (std::isnan(busy) && std::isnan(rate))
		std::snprintf(b, sizeof b, "at no known rate");
	else if (std::isnan(busy))
		std::snprintf(b, sizeof b, "at %.1f/s", rate);
	else
		std::snprintf(b, sizeof b, "busy %.2f alone (%.1f/s)", busy, rate);
	return b;
}

} // namespace

void print_tenant_table(std::FILE* out, const Options& o, const std::vector<TenantReport>& reports)
{
	std::fprintf(out, "\ntenant mode: critical %s %s beside %s (targets: p99 <= %.1fx alone, "
			  "best-effort kept >= %.1f, suspend p99 < %.0f us)\n",
		     o.critical.c_str(),
		     o.critical_busy.empty() ? busy_text(NAN, o.params.rate).c_str() : "at its busy fractions",
		     o.mix.c_str(), TenantTargets{}.p99_ratio_max, TenantTargets{}.be_kept_min,
		     TenantTargets{}.suspend_p99_max_us);
	std::fprintf(out, "%-11s %5s %3s %8s %9s %9s %9s %9s %7s %8s  %s\n", "arm", "busy", "rep", "crit_qps",
		     "alone_p99", "p50_us", "p99_us", "p999_us", "p99/alo", "be_kept", "targets");
	for (const TenantReport& rep : reports) {
		const TenantArmResult& r = rep.r;
		char busy[16];
		std::snprintf(busy, sizeof busy, std::isnan(r.busy) ? "-" : "%.2f", r.busy);
		if (r.status != "ok") {
			std::fprintf(out, "%-11s %5s %3u %s: %s\n", r.arm.c_str(), busy, rep.repeat, r.status.c_str(),
				     r.reason.c_str());
			continue;
		}
		std::fprintf(out, "%-11s %5s %3u %8.1f %9.0f %9.0f %9.0f %9.0f %7.2f %8.2f  latency %s; suspend %s\n",
			     r.arm.c_str(), busy, rep.repeat, r.critical_qps, r.alone.p99_us, r.critical.p50_us,
			     r.critical.p99_us, r.critical.p999_us, r.p99_ratio, r.be_kept_min, r.latency_target.c_str(),
			     r.suspend_target.c_str());
		if (!is_sched_arm(r.arm))
			continue;
		std::fprintf(out, "            kfdmp-sched (%s): %llu suspends (%.1f/s), %llu resumes, suspended %.1f%% of "
				  "the window, decision latency p50 %.0f us, p99 %.0f us (%s)\n",
			     r.sched_backend.c_str(), (unsigned long long)r.suspends, r.suspends_per_s,
			     (unsigned long long)r.resumes, r.suspended_share * 100, r.decision.p50_us, r.decision.p99_us,
			     r.sched_log.c_str());
		std::fprintf(out, "            decision-to-drained: %s\n", transition_text(r.drained).c_str());
		if (r.stopped.available)
			std::fprintf(out, "            decision-to-stopped: %s\n", transition_text(r.stopped).c_str());
		if (!r.suspend.available && !r.resume.available && r.suspend.reason == r.resume.reason)
			std::fprintf(out, "            suspend-to-unmapped, resume-to-running: %s\n",
				     transition_text(r.suspend).c_str());
		else
			std::fprintf(out, "            suspend-to-unmapped: %s; resume-to-running: %s\n",
				     transition_text(r.suspend).c_str(), transition_text(r.resume).c_str());
	}
	std::fprintf(out, "\ntenant targets per arm over repeats (mean [95%% interval]):\n");
	for (const TenantArmSummary& s : tenant_summaries(reports)) {
		std::fprintf(out, "  %-11s %s, %u/%u repeats ok\n", s.arm.c_str(), busy_text(s.busy, s.rate).c_str(),
			     s.repeats_ok, s.repeats);
		std::fprintf(out, "    latency:    %s\n    throughput: %s\n    suspend:    %s\n",
			     s.latency_target.c_str(), s.throughput_target.c_str(), s.suspend_target.c_str());
		if (is_sched_arm(s.arm) && s.repeats_ok) {
			std::fprintf(out, "    suspends/s %s; suspended share %s\n",
				     interval_text(s.suspends_per_s, "%.1f").c_str(),
				     interval_text(s.suspended_share, "%.3f").c_str());
			if (s.drained_p99_us.n)
				std::fprintf(out, "    decision-to-drained p99 us %s\n",
					     interval_text(s.drained_p99_us, "%.0f").c_str());
			else
				std::fprintf(out, "    decision-to-drained: unavailable: %s\n", s.drained_reason.c_str());
			if (s.stopped_p99_us.n)
				std::fprintf(out, "    decision-to-stopped p99 us %s\n",
					     interval_text(s.stopped_p99_us, "%.0f").c_str());
		}
	}
}

} // namespace kfdmp
