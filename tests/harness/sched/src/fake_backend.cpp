#include "fake_backend.h"

#include <cerrno>

namespace kfdmp::sched {

void FakeBackend::add_process(pid_t pid, bool has_queues) { procs_[pid] = has_queues; }

void FakeBackend::exit_process(pid_t pid)
{
	procs_.erase(pid);
	suspended_.erase(pid); // the kernel drops the state with the process
	classes_.erase(pid);
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

CallResult FakeBackend::validate(const std::vector<pid_t>& pids, bool need_queues) const
{
	CallResult r;
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
		else if (need_queues && !p->second && !suspended_.count(pids[i]))
			r.status[i] = ENOENT;
		if (r.status[i] && !r.err)
			r.err = r.status[i];
	}
	if (r.err)
		r.message = "a pid was refused; nothing changed";
	return r;
}

CallResult FakeBackend::suspend(const std::vector<pid_t>& pids, const GpuSel&)
{
	CallResult r = validate(pids, true);
	if (!r.ok()) {
		calls.push_back({"suspend", pids, r.err});
		return r;
	}
	bool changed = false;
	for (pid_t p : pids)
		changed |= suspended_.insert(p).second;
	if (changed)
		preemption_cycles++;
	r.has_wait = true;
	r.wait_ns = changed ? 250000 : 0;
	if (fail_next_suspend) {
		r.err = fail_next_suspend; // state committed, like the kernel's ETIME
		r.message = "injected: " + errno_text(fail_next_suspend);
		fail_next_suspend = 0;
	}
	calls.push_back({"suspend", pids, r.err});
	return r;
}

CallResult FakeBackend::resume(const std::vector<pid_t>& pids, const GpuSel&)
{
	CallResult r = validate(pids, false);
	if (r.ok())
		for (pid_t p : pids)
			suspended_.erase(p);
	calls.push_back({"resume", pids, r.err});
	return r;
}

CallResult FakeBackend::set_class(const std::vector<pid_t>& pids, TenantClass c)
{
	CallResult r = validate(pids, false);
	if (r.ok())
		for (pid_t p : pids)
			classes_[p] = c;
	calls.push_back({"set_class", pids, r.err});
	return r;
}

} // namespace kfdmp::sched
