#include "scheduler.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

namespace kfdmp::sched {

const char* class_name(TenantClass c)
{
	return c == TenantClass::LatencyCritical ? "latency-critical" : "best-effort";
}

std::string GpuSel::str() const { return all ? "all" : std::to_string(gpu_id); }

std::string errno_text(int err)
{
	const char* name = nullptr;
	switch (err) {
	case EPERM: name = "EPERM"; break;
	case ESRCH: name = "ESRCH"; break;
	case ENOENT: name = "ENOENT"; break;
	case EINVAL: name = "EINVAL"; break;
	case EIO: name = "EIO"; break;
	case ETIME: name = "ETIME"; break;
	case ENOTTY: name = "ENOTTY"; break;
	case ENOTSUP: name = "ENOTSUP"; break;
	case EACCES: name = "EACCES"; break;
	case EFAULT: name = "EFAULT"; break;
	case EBUSY: name = "EBUSY"; break;
	}
	std::string s = name ? name : "errno " + std::to_string(err);
	return s + " (" + std::strerror(err) + ")";
}

std::string check_params(const Params& p)
{
	if (p.min_run.count() <= 0)
		return "min_run must be > 0, or a best-effort tenant can be suspended the moment it resumes";
	if (p.max_suspend.count() <= 0)
		return "max_suspend must be > 0";
	if (p.resume_hold.count() < 0)
		return "resume_hold must be >= 0";
	return "";
}

Scheduler::Scheduler(Params p, Backend& backend, const Clock& clock, DecisionLog& log)
    : p_(p), backend_(backend), clock_(clock), log_(log)
{
}

void Scheduler::add_best_effort(pid_t pid)
{
	if (tenants_.count(pid))
		return;
	// Eligible for suspension at once: the window protects progress after a resume.
	tenants_[pid] = Tenant{false, clock_.now() - p_.min_run};
	// The real state first (a restarted daemon, or a tenant stopped by one
	// that died): a tenant found suspended is taken over as suspended by this
	// scheduler (the backend records it as its own) and resumed by its rules.
	std::optional<bool> found = backend_.observed_suspended(pid);
	if (found && *found) {
		log_.write(JsonLine()
				   .integer("t_ns", to_ns(clock_.now()))
				   .str("event", "found_suspended")
				   .pids("pids", {pid})
				   .str("state", "taken over: resumed by this scheduler's rules")
				   .done());
		apply(true, {pid}, "found_suspended", clock_.now());
	}
}

bool Scheduler::has_best_effort(pid_t pid) const { return tenants_.count(pid) != 0; }

std::vector<pid_t> Scheduler::best_effort_pids() const
{
	std::vector<pid_t> v;
	for (const auto& t : tenants_)
		v.push_back(t.first);
	return v;
}

void Scheduler::remove_best_effort(pid_t pid, const char* how)
{
	auto t = tenants_.find(pid);
	if (t == tenants_.end())
		return;
	if (t->second.suspended)
		apply(false, {pid}, "deselected", clock_.now());
	gone(pid, how);
}

void Scheduler::add_critical(pid_t pid)
{
	critical_.emplace(pid, Critical{});
}

void Scheduler::remove_critical(pid_t pid)
{
	if (!critical_.count(pid))
		return;
	critical_report(pid, false, clock_.now());
	critical_.erase(pid);
}

bool Scheduler::critical_pending() const
{
	for (const auto& c : critical_)
		if (c.second.busy)
			return true;
	return false;
}

void Scheduler::critical_report(pid_t pid, bool busy, TimePoint at)
{
	bool before = critical_pending();
	critical_[pid].busy = busy;
	bool after = critical_pending();
	if (!before && after)
		pending_since_ = at;
	else if (before && !after)
		idle_since_ = at;
}

bool Scheduler::suspended(pid_t pid) const
{
	auto t = tenants_.find(pid);
	return t != tenants_.end() && t->second.suspended;
}

size_t Scheduler::suspended_count() const
{
	return size_t(std::count_if(tenants_.begin(), tenants_.end(),
				    [](const auto& t) { return t.second.suspended; }));
}

bool Scheduler::idle_long_enough(TimePoint now) const
{
	return !critical_pending() && now - idle_since_ >= p_.resume_hold;
}

TimePoint Scheduler::next_deadline() const
{
	TimePoint d = TimePoint::max();
	bool pending = critical_pending();
	for (const auto& [pid, t] : tenants_) {
		(void)pid;
		if (t.suspended) {
			d = std::min(d, t.since + p_.max_suspend);
			if (!pending)
				d = std::min(d, idle_since_ + p_.resume_hold);
		} else if (pending) {
			d = std::min(d, t.since + p_.min_run);
		}
	}
	return d;
}

void Scheduler::tick()
{
	if (fatal())
		return;
	TimePoint now = clock_.now();
	bool pending = critical_pending();
	bool idle = idle_long_enough(now);

	std::vector<pid_t> resume, suspend;
	TimePoint resume_trigger = TimePoint::max(), suspend_trigger = TimePoint::max();
	for (const auto& [pid, t] : tenants_) {
		if (t.suspended) {
			TimePoint due = TimePoint::max();
			if (idle)
				due = idle_since_ + p_.resume_hold;
			if (now - t.since >= p_.max_suspend)
				due = std::min(due, t.since + p_.max_suspend);
			if (due != TimePoint::max()) {
				resume.push_back(pid);
				resume_trigger = std::min(resume_trigger, due);
			}
		} else if (pending && now - t.since >= p_.min_run) {
			suspend.push_back(pid);
			suspend_trigger = std::min(suspend_trigger, std::max(pending_since_, t.since + p_.min_run));
		}
	}
	// Resume first: a tenant whose window came due must not wait on a suspend.
	if (!resume.empty())
		apply(false, resume, idle ? "critical_idle" : "max_suspend", resume_trigger);
	if (!suspend.empty() && !fatal())
		apply(true, suspend, "critical_pending", suspend_trigger);
}

void Scheduler::gone(pid_t pid, const char* how)
{
	auto t = tenants_.find(pid);
	if (t == tenants_.end())
		return;
	log_.write(JsonLine()
			   .integer("t_ns", to_ns(clock_.now()))
			   .str("event", "tenant_gone")
			   .str("how", how)
			   .pids("pids", {pid})
			   .str("was", t->second.suspended ? "suspended" : "running")
			   .done());
	tenants_.erase(t);
	backend_.forget(pid);
}

void Scheduler::reap(const std::function<bool(pid_t)>& alive)
{
	std::vector<pid_t> dead;
	for (const auto& t : tenants_)
		if (!alive(t.first))
			dead.push_back(t.first);
	for (pid_t p : dead)
		gone(p, "exited");
	std::vector<pid_t> dead_critical;
	for (const auto& c : critical_)
		if (!alive(c.first))
			dead_critical.push_back(c.first);
	for (pid_t p : dead_critical) {
		critical_report(p, false, clock_.now());
		critical_.erase(p);
		log_.write(JsonLine()
				   .integer("t_ns", to_ns(clock_.now()))
				   .str("event", "critical_gone")
				   .pids("pids", {p})
				   .done());
	}
}

// One decision: a batched backend call, retried without the pids the kernel
// refused (ESRCH: gone; ENOENT: no queues yet) since such a refusal changes
// nothing for any pid.
void Scheduler::apply(bool suspend, std::vector<pid_t> pids, const char* reason, TimePoint trigger)
{
	const char* op = suspend ? "suspend" : "resume";
	while (!pids.empty()) {
		TimePoint start = clock_.now();
		CallResult r = suspend ? backend_.suspend(pids, p_.gpus) : backend_.resume(pids, p_.gpus);
		TimePoint end = clock_.now();

		std::vector<pid_t> refused_gone, refused_no_queues, retry;
		if (r.status.size() == pids.size()) {
			for (size_t i = 0; i < pids.size(); i++) {
				if (r.status[i] == ESRCH)
					refused_gone.push_back(pids[i]);
				else if (r.status[i] == ENOENT)
					refused_no_queues.push_back(pids[i]);
				else
					retry.push_back(pids[i]);
			}
		}
		bool refused = !r.ok() && (!refused_gone.empty() || !refused_no_queues.empty()) &&
			       refused_gone.size() + refused_no_queues.size() + retry.size() == pids.size();
		bool committed = r.ok() || (suspend && (r.err == ETIME || r.err == EIO));

		JsonLine line;
		line.integer("t_ns", to_ns(end))
			.str("event", op)
			.str("reason", reason)
			.pids("pids", pids)
			.str("gpus", p_.gpus.str())
			.str("result", r.ok() ? "ok" : errno_text(r.err))
			.num("latency_us", to_us(end - std::min(trigger, start)))
			.num("call_us", to_us(end - start));
		if (r.has_wait)
			line.num(r.wait_key, double(r.wait_ns) / 1e3);
		if (!r.note.empty())
			line.str("note", r.note);
		if (!r.ok())
			line.str("error", r.message.empty() ? errno_text(r.err) : r.message);
		if (refused)
			line.str("state", "unchanged; retrying without the refused pids");
		else if (!r.ok())
			line.str("state", committed ? "committed by the kernel: counted as suspended" : "unchanged");
		log_.write(line.done());

		if (committed) {
			for (pid_t p : pids) {
				auto t = tenants_.find(p);
				if (t != tenants_.end())
					t->second = Tenant{suspend, end};
			}
			return;
		}
		if (!refused) {
			// EPIPE: the drain backend's watchdog is gone, so nothing may be stopped.
			if (r.err == EPERM || r.err == EACCES || r.err == ENOTSUP || r.err == EPIPE)
				fatal_ = std::string(op) + ": " + (r.message.empty() ? errno_text(r.err) : r.message);
			return;
		}
		for (pid_t p : refused_gone)
			gone(p, "ESRCH from the backend");
		for (pid_t p : refused_no_queues) {
			// No queues to take off yet: counts as a fresh run window, so it
			// is tried again after min_run rather than on every tick.
			auto t = tenants_.find(p);
			if (t != tenants_.end())
				t->second.since = end;
			log_.write(JsonLine()
					   .integer("t_ns", to_ns(end))
					   .str("event", "no_queues")
					   .pids("pids", {p})
					   .done());
		}
		pids = retry;
	}
}

bool Scheduler::shutdown(const char* reason)
{
	std::vector<pid_t> pids;
	for (const auto& t : tenants_)
		if (t.second.suspended)
			pids.push_back(t.first);
	std::string saved = fatal_;
	fatal_.clear();
	if (!pids.empty())
		apply(false, pids, reason, clock_.now());
	bool ok = suspended_count() == 0;
	if (fatal_.empty())
		fatal_ = saved;
	log_.write(JsonLine()
			   .integer("t_ns", to_ns(clock_.now()))
			   .str("event", "shutdown")
			   .str("reason", reason)
			   .integer("left_suspended", int64_t(suspended_count()))
			   .done());
	return ok;
}

} // namespace kfdmp::sched
