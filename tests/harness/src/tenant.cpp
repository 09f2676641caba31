#include "tenant.h"

#include "stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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
	if (in.arm == "sched") {
		r.suspends = in.suspends;
		r.resumes = in.resumes;
		r.decision = percentiles_of(in.decision_ns);
		r.sched_log = in.sched_log;
		r.sched_pid = in.sched_pid;
		r.suspend = transition_of(in.suspend_ns, in.transition_reason);
		r.resume = transition_of(in.resume_ns, in.transition_reason);
	} else {
		r.suspend.reason = r.resume.reason = "no suspends in the " + in.arm + " arm";
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

} // namespace kfdmp
