#include "drain_backend.h"

#include "proc.h"

#include <cerrno>
#include <csignal>
#include <ctime>
#include <unistd.h>

namespace kfdmp::sched {

DrainBackend::~DrainBackend()
{
	// Whatever is still stopped runs again (the daemon's shutdown normally
	// resumed it already); then the watchdog sees EOF with nothing recorded.
	for (const auto& s : stopped_)
		cont(s.second);
	std::vector<pid_t> pids;
	for (const auto& s : stopped_)
		pids.push_back(s.first);
	if (!pids.empty())
		wd_.record_resume(pids);
}

CallResult DrainBackend::probe()
{
	CallResult r;
	if (!o_.watchdog || wd_.running())
		return r;
	std::string err = wd_.start(o_.log_fd);
	if (!err.empty()) {
		r.err = EAGAIN;
		r.message = "cannot start the watchdog, so nothing may be stopped: " + err;
	}
	return r;
}

std::string DrainBackend::group_unsafe(pid_t pgid) const
{
	if (pgid <= 1)
		return "no process group";
	if (pgid == getpgrp())
		return "the daemon's own process group";
	if (wd_.pid() > 0 && pgid == wd_.pid())
		return "the watchdog's process group";
	for (pid_t c : protected_)
		if (getpgid(c) == pgid)
			return "a critical tenant's process group (pid " + std::to_string(c) + ")";
	return "";
}

void DrainBackend::cont(const StopRecord& r)
{
	auto st = read_stat(r.pid);
	if (st && st->starttime == r.starttime)
		kill(r.pid, SIGCONT);
	if (r.pgid > 0)
		kill(-r.pgid, SIGCONT);
}

CallResult DrainBackend::suspend(const std::vector<pid_t>& pids, const GpuSel&)
{
	CallResult r;
	r.wait_key = "stopped_us";
	if (pids.empty()) {
		r.err = EINVAL;
		r.message = "no pids";
		return r;
	}
	if (o_.watchdog && !wd_.running()) {
		r.err = EPIPE;
		r.message = "no watchdog: nothing may be stopped";
		return r;
	}
	// Validate every pid before changing anything.
	r.status.assign(pids.size(), 0);
	std::vector<StopRecord> fresh;
	std::vector<std::string> process_only;
	for (size_t i = 0; i < pids.size(); i++) {
		auto st = read_stat(pids[i]);
		if (!st || st->state == 'Z' || st->state == 'X') {
			r.status[i] = ESRCH;
			r.err = ESRCH;
			continue;
		}
		if (stopped_.count(pids[i]))
			continue; // already stopped: a no-op, like a double suspend in the kernel
		StopRecord rec;
		rec.pid = pids[i];
		rec.starttime = st->starttime;
		if (o_.group_scope) {
			std::string why = group_unsafe(st->pgid);
			if (why.empty())
				rec.pgid = st->pgid;
			else
				process_only.push_back(std::to_string(pids[i]) + ": " + why);
		}
		fresh.push_back(rec);
	}
	if (r.err) {
		r.message = "a pid was refused; nothing changed";
		return r;
	}
	if (o_.watchdog && !fresh.empty()) {
		int e = wd_.record_stop(fresh);
		if (e) {
			r.status.clear();
			r.err = EPIPE;
			r.message = "the watchdog is gone (" + errno_text(e) + "): nothing stopped";
			return r;
		}
	}
	std::set<pid_t> groups_sent;
	for (const auto& rec : fresh) {
		int rc = 0;
		if (rec.pgid > 0) {
			if (groups_sent.insert(rec.pgid).second)
				rc = kill(-rec.pgid, SIGSTOP);
		} else {
			rc = kill(rec.pid, SIGSTOP);
		}
		if (rc != 0 && errno == ESRCH) {
			for (size_t i = 0; i < pids.size(); i++)
				if (pids[i] == rec.pid)
					r.status[i] = ESRCH; // exited since validation; the others are stopped
		}
		stopped_[rec.pid] = rec;
	}
	if (!process_only.empty()) {
		r.note = "stopped the process alone, not its group:";
		for (const auto& s : process_only)
			r.note += " " + s + ";";
	}
	// How long until every thread is seen stopped: the stop is asynchronous,
	// and a thread blocked in the kernel (a driver call) stops on its return.
	auto t0 = std::chrono::steady_clock::now();
	auto deadline = t0 + o_.stop_wait_max;
	long sleep_ns = 20000;
	for (;;) {
		bool all = true;
		for (pid_t p : pids)
			if (!all_threads_stopped(p)) {
				all = false;
				break;
			}
		auto now = std::chrono::steady_clock::now();
		if (all) {
			r.has_wait = true;
			r.wait_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(now - t0).count());
			break;
		}
		if (now >= deadline) {
			r.note += std::string(r.note.empty() ? "" : " ") + "not every thread was seen stopped within " +
				  std::to_string(o_.stop_wait_max.count() / 1000000) +
				  " ms (blocked in the kernel?); it stops when the call returns";
			break;
		}
		timespec ts{0, sleep_ns};
		nanosleep(&ts, nullptr);
		sleep_ns = std::min(sleep_ns * 2, 500000L);
	}
	return r;
}

CallResult DrainBackend::resume(const std::vector<pid_t>& pids, const GpuSel&)
{
	CallResult r;
	r.per_target = true; // each pid continued on its own
	if (pids.empty()) {
		r.err = EINVAL;
		r.message = "no pids";
		return r;
	}
	r.status.assign(pids.size(), 0);
	std::vector<pid_t> done;
	std::set<pid_t> groups_sent, resuming(pids.begin(), pids.end());
	for (size_t i = 0; i < pids.size(); i++) {
		auto s = stopped_.find(pids[i]);
		if (s != stopped_.end()) {
			// Several tenants of one group: one SIGCONT for the group; none
			// while another tenant of the group stays suspended (the process
			// alone then).
			StopRecord rec = s->second;
			if (rec.pgid > 0 && group_held(rec.pgid, resuming))
				rec.pgid = 0;
			if (rec.pgid <= 0 || groups_sent.insert(rec.pgid).second)
				cont(rec);
			stopped_.erase(s);
			done.push_back(pids[i]);
		}
		auto st = read_stat(pids[i]);
		if (!st || st->state == 'Z' || st->state == 'X') {
			r.status[i] = ESRCH;
			r.err = ESRCH;
		}
	}
	if (o_.watchdog && !done.empty())
		wd_.record_resume(done); // a gone watchdog has nothing to forget
	if (r.err)
		r.message = "a pid is gone (its group, if stopped, was continued)";
	return r;
}

Backend::Observed DrainBackend::observe(pid_t pid)
{
	Observed o;
	auto st = read_stat(pid);
	if (st)
		o.state = st->state == 'T' ? Observed::Suspended : Observed::Running;
	if (o.state == Observed::Suspended)
		o.detail = "stopped by a signal (/proc/PID/stat state T)";
	return o;
}

bool DrainBackend::group_held(pid_t pgid, const std::set<pid_t>& except) const
{
	for (const auto& [p, rec] : stopped_)
		if (rec.pgid == pgid && !except.count(p))
			return true;
	return false;
}

void DrainBackend::forget(pid_t pid)
{
	auto s = stopped_.find(pid);
	if (s == stopped_.end())
		return;
	StopRecord rec = s->second;
	// The group's other processes run again, unless another tenant of the
	// group is still suspended (its resume continues the group).
	if (rec.pgid > 0 && group_held(rec.pgid, {pid}))
		rec.pgid = 0;
	cont(rec);
	stopped_.erase(s);
	if (o_.watchdog)
		wd_.record_resume({pid});
}

} // namespace kfdmp::sched
