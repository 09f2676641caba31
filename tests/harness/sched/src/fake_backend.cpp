#include "fake_backend.h"

#include <cerrno>

namespace kfdmp::sched {

void FakeBackend::add_process(pid_t pid, bool kfd) { procs_[pid] = kfd; }

void FakeBackend::exit_process(pid_t pid)
{
	procs_.erase(pid);
	suspended_.erase(pid); // the kernel drops the state with the process
	other_.erase(pid);
	reset_.erase(pid);
}

CallResult FakeBackend::probe()
{
	CallResult r;
	if (unsupported) {
		r.err = ENOTSUP;
		r.message = "tenant control not supported by the loaded driver (fake)";
	}
	return r;
}

CallResult FakeBackend::validate(const std::vector<pid_t>& pids, bool suspend) const
{
	CallResult r;
	r.per_target = true;
	if (fail_all) {
		r.err = fail_all;
		r.message = "injected: " + errno_text(fail_all);
		return r;
	}
	if (pids.empty()) {
		r.err = EINVAL;
		r.message = "no pids";
		return r;
	}
	r.status.assign(pids.size(), 0);
	for (size_t i = 0; i < pids.size(); i++) {
		auto p = procs_.find(pids[i]);
		if (p == procs_.end())
			r.status[i] = ESRCH;
		else if (!p->second)
			r.status[i] = ENOENT;
		else if (other_.count(pids[i]))
			r.status[i] = EBUSY;
		else if (!suspend && reset_.count(pids[i]) && suspended_.count(pids[i]))
			r.status[i] = EIO;
		if (r.status[i] && !r.err)
			r.err = r.status[i];
	}
	if (r.err)
		r.message = all_or_nothing ? "a pid was refused; nothing changed"
					   : "a pid was refused; the others were acted on";
	return r;
}

CallResult FakeBackend::suspend(const std::vector<pid_t>& pids, const GpuSel&)
{
	CallResult r = validate(pids, true);
	if (r.status.empty()) {
		calls.push_back({"suspend", pids, r.err});
		return r;
	}
	if (all_or_nothing && !r.ok()) {
		r.per_target = false;
		calls.push_back({"suspend", pids, r.err});
		return r;
	}
	bool changed = false;
	for (size_t i = 0; i < pids.size(); i++)
		if (!r.status[i])
			changed |= suspended_.insert(pids[i]).second;
	if (changed)
		preemption_cycles++;
	r.has_wait = true;
	r.wait_ns = changed ? 250000 : 0;
	if (fail_next_suspend && r.ok()) {
		r.err = fail_next_suspend; // state committed, like the kernel's ETIME
		r.status.clear();
		r.message = "injected: " + errno_text(fail_next_suspend);
		fail_next_suspend = 0;
	}
	calls.push_back({"suspend", pids, r.err});
	return r;
}

CallResult FakeBackend::resume(const std::vector<pid_t>& pids, const GpuSel&)
{
	CallResult r = validate(pids, false);
	for (size_t i = 0; i < r.status.size(); i++) {
		if (r.status[i] == 0 || r.status[i] == EIO)
			suspended_.erase(pids[i]);
		if (r.status[i] == EIO)
			reset_.erase(pids[i]);
	}
	calls.push_back({"resume", pids, r.err});
	return r;
}

Backend::Observed FakeBackend::observe(pid_t pid)
{
	Observed o;
	auto p = procs_.find(pid);
	if (p == procs_.end() || !p->second)
		return o;
	if (suspended_.count(pid))
		o.state = Observed::Suspended;
	else if (other_.count(pid))
		o.state = Observed::SuspendedByOther;
	else
		o.state = Observed::Running;
	return o;
}

} // namespace kfdmp::sched
