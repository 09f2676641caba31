// The decision logic: suspend best-effort tenants while latency-critical work
// is pending, resume them when it drains. Single-threaded; the daemon (or a
// test) feeds it reports and calls tick() at next_deadline().
//
// Rules, for each best-effort tenant:
//  - suspend when critical work is pending and the tenant has run at least
//    min_run since it was last resumed (or registered: a new tenant may be
//    suspended at once);
//  - resume when critical work has been idle for resume_hold (hysteresis: a
//    burst with short gaps keeps the tenant suspended, and no resume/suspend
//    pair is paid per gap), or when it has been suspended for max_suspend,
//    whatever the critical tenant does (no best-effort tenant is starved: it
//    runs at least min_run out of every max_suspend + min_run).
// All tenants due in one tick go into one backend call (one preemption cycle).
#pragma once
#include "backend.h"
#include "clock.h"
#include "decision_log.h"

#include <functional>
#include <map>

namespace kfdmp::sched {

struct Params {
	Duration min_run = std::chrono::milliseconds(20);
	Duration max_suspend = std::chrono::milliseconds(200);
	Duration resume_hold = std::chrono::milliseconds(2);
	GpuSel gpus;
};

// The parameters' consistency; "" when fine.
std::string check_params(const Params& p);

class Scheduler {
public:
	Scheduler(Params p, Backend& backend, const Clock& clock, DecisionLog& log);

	// A new best-effort tenant (again: a no-op). starttime: its start time
	// when the selection saw it (0: unknown), for the backend's check against
	// pid reuse. False when the backend refused it (gone, reused). Asks the
	// backend for its real state: one found suspended is taken over as
	// suspended; one another controller holds is reported and left to it.
	bool add_best_effort(pid_t pid, uint64_t starttime = 0);
	bool has_best_effort(pid_t pid) const;
	std::vector<pid_t> best_effort_pids() const;
	// A tenant no longer selected (or gone): forgotten, and whatever the
	// backend still holds for it released (not resumed through the kernel).
	void remove_best_effort(pid_t pid, const char* how);
	// A critical tenant known before its first report (idle until then).
	void add_critical(pid_t pid);
	// One no longer selected: its pending work no longer counts.
	void remove_critical(pid_t pid);
	// A critical tenant reports that it has work pending (busy) or none;
	// at: when the report arrived (the latency's start).
	void critical_report(pid_t pid, bool busy, TimePoint at);
	bool critical_pending() const;

	// Makes the calls that are due now: at most one resume and one suspend.
	void tick();
	// When tick() next has something to do; TimePoint::max() when nothing.
	TimePoint next_deadline() const;
	// Forgets tenants whose process is gone. The kernel drops a process's
	// suspended state with it, so nothing is resumed for them.
	void reap(const std::function<bool(pid_t)>& alive);
	// Resumes every tenant this scheduler suspended; false if one failed.
	bool shutdown(const char* reason);

	bool suspended(pid_t pid) const;
	size_t best_effort_count() const { return tenants_.size(); }
	size_t suspended_count() const;
	// A backend error that no retry can fix (EPERM, ENOTSUP): stop.
	bool fatal() const { return !fatal_.empty(); }
	const std::string& fatal_message() const { return fatal_; }

private:
	struct Tenant {
		bool suspended = false;
		TimePoint since; // last resume (running) or suspend (suspended)
	};
	struct Critical {
		bool busy = false;
	};
	void apply(bool suspend, std::vector<pid_t> pids, const char* reason, TimePoint trigger);
	bool idle_long_enough(TimePoint now) const;
	void gone(pid_t pid, const char* how);

	Params p_;
	Backend& backend_;
	const Clock& clock_;
	DecisionLog& log_;
	std::map<pid_t, Tenant> tenants_;
	std::map<pid_t, Critical> critical_;
	TimePoint pending_since_{};
	TimePoint idle_since_{};
	std::string fatal_;
};

} // namespace kfdmp::sched
