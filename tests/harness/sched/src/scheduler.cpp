#include "scheduler.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

namespace kfdmp::sched {

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

bool Scheduler::add_best_effort(pid_t pid, uint64_t starttime)
{
	if (tenants_.count(pid))
		return true;
	// The backend takes the tenant first (the kfd backend: its pidfd, with
	// the start time checked against pid reuse).
	std::string why;
	int e = backend_.track(pid, starttime, &why);
	if (e) {
		log_.write(JsonLine()
				   .integer("t_ns", to_ns(clock_.now()))
				   .str("event", "tenant_refused")
				   .pids("pids", {pid})
				   .str("result", errno_text(e))
				   .str("why", why)
				   .done());
		return false;
	}
	// Eligible for suspension at once: the window protects progress after a resume.
	tenants_[pid] = Tenant{false, clock_.now() - p_.min_run};
	// The real state first (a restarted daemon, or a tenant stopped by one
	// that died): a tenant this backend may take over (drain: stopped by a
	// signal) is taken over as suspended and resumed by this scheduler's
	// rules. One whose suspension another controller holds (kfd: SUSPENDED
	// but not OWNED by this daemon's /dev/kfd file) is reported and left to
	// it: suspending it would be EBUSY, and resuming it is not ours to do.
	Backend::Observed found = backend_.observe(pid);
	if (found.state == Backend::Observed::Suspended) {
		JsonLine l;
		l.integer("t_ns", to_ns(clock_.now()))
			.str("event", "found_suspended")
			.pids("pids", {pid})
			.str("state", "taken over: resumed by this scheduler's rules");
		if (!found.detail.empty())
			l.str("detail", found.detail);
		log_.write(l.done());
		apply(true, {pid}, "found_suspended", clock_.now());
	} else if (found.state == Backend::Observed::SuspendedByOther) {
		JsonLine l;
		l.integer("t_ns", to_ns(clock_.now()))
			.str("event", "suspended_by_other")
			.pids("pids", {pid})
			.str("state", "another controller holds its suspension; left to it");
		if (!found.detail.empty())
			l.str("detail", found.detail);
		log_.write(l.done());
	}
	return true;
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

// One decision: a batched backend call. Each pid's status says what became
// of it: 0 done; ESRCH/EBADF gone (forgotten); ENOENT not a KFD process (yet),
// EBUSY held by another controller, EINVAL not on the GPU, EPERM refused for
// it: each left as it is and tried again after min_run; EIO on a resume:
// released, the queues stay evicted by a GPU reset. A backend whose failed
// call changed nothing (per_target false) is called again at once with the
// pids that were not refused.
void Scheduler::apply(bool suspend, std::vector<pid_t> pids, const char* reason, TimePoint trigger)
{
	const char* op = suspend ? "suspend" : "resume";
	while (!pids.empty()) {
		TimePoint start = clock_.now();
		CallResult r = suspend ? backend_.suspend(pids, p_.gpus) : backend_.resume(pids, p_.gpus);
		TimePoint end = clock_.now();

		// Per pid, when the backend answered per pid.
		std::vector<pid_t> done, gone_pids, held, reset, retry;
		std::vector<std::pair<pid_t, int>> refused;
		bool per_pid = !r.ok() && r.status.size() == pids.size();
		if (per_pid) {
			for (size_t i = 0; i < pids.size(); i++) {
				int st = r.status[i];
				if (st == 0)
					(r.per_target ? done : retry).push_back(pids[i]);
				else if (st == ESRCH || st == EBADF)
					gone_pids.push_back(pids[i]);
				else if (st == EBUSY)
					held.push_back(pids[i]);
				else if (!suspend && st == EIO)
					reset.push_back(pids[i]);
				else if (suspend && (st == ETIME || st == EIO))
					done.push_back(pids[i]); // committed
				else
					refused.push_back({pids[i], st});
			}
		}
		bool committed = r.ok() || (!per_pid && suspend && (r.err == ETIME || r.err == EIO));
		if (committed)
			done = pids;

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
		if (per_pid) {
			line.pids("done", done);
			std::string text;
			for (size_t i = 0; i < pids.size(); i++)
				if (r.status[i])
					text += (text.empty() ? "" : ", ") + std::to_string(pids[i]) + ": " +
						errno_text(r.status[i]);
			line.str("refused", text);
			line.str("state", retry.empty() ? "each pid as its status says"
							: "unchanged; retrying without the refused pids");
		} else if (!r.ok()) {
			line.str("state", committed ? "committed by the kernel: counted as suspended" : "unchanged");
		}
		log_.write(line.done());

		for (pid_t p : done) {
			auto t = tenants_.find(p);
			if (t != tenants_.end())
				t->second = Tenant{suspend, end};
		}
		if (committed)
			return;
		if (!per_pid) {
			// EPIPE: the drain backend's watchdog is gone, so nothing may be stopped.
			if (r.err == EPERM || r.err == EACCES || r.err == ENOTSUP || r.err == EPIPE)
				fatal_ = std::string(op) + ": " + (r.message.empty() ? errno_text(r.err) : r.message);
			return;
		}
		for (pid_t p : gone_pids)
			gone(p, "ESRCH from the backend");
		// Not suspended by us any more (or never): a fresh run window, one log line.
		auto not_ours = [&](pid_t p, const char* event, const char* state) {
			auto t = tenants_.find(p);
			if (t != tenants_.end())
				t->second = Tenant{false, end};
			log_.write(JsonLine()
					   .integer("t_ns", to_ns(end))
					   .str("event", event)
					   .pids("pids", {p})
					   .str("state", state)
					   .done());
		};
		// The suspension is given back; a GPU reset keeps the queues off.
		for (pid_t p : reset)
			not_ours(p, "reset", "RESET: released, the queues stay evicted by a GPU reset");
		// Another /dev/kfd file holds it: not fought. A suspend is tried
		// again after min_run; a resume finds nothing of ours to give back.
		for (pid_t p : held)
			not_ours(p, "suspended_by_other", "another controller holds its suspension; left to it");
		for (auto [p, st] : refused) {
			// A suspend not possible now (not a KFD process yet, not on this
			// GPU, not permitted): counts as a fresh run window, so it is
			// tried again after min_run rather than on every tick. A resume
			// refused so has no suspension of ours to give back.
			auto t = tenants_.find(p);
			if (t != tenants_.end()) {
				if (suspend)
					t->second.since = end;
				else
					t->second = Tenant{false, end};
			}
			log_.write(JsonLine()
					   .integer("t_ns", to_ns(end))
					   .str("event", st == ENOENT ? "not_kfd" : "refused")
					   .str("op", op)
					   .pids("pids", {p})
					   .str("result", errno_text(st))
					   .done());
		}
		if (retry.size() == pids.size())
			return; // nothing refused, yet the call failed: not again at once
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
