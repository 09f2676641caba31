// A backend that models the tenant-control semantics of docs/tenant-control.md
// in memory: all pids are validated before anything changes, double suspend
// and resume without suspend are no-ops, a process without queues gets
// ENOENT on suspend, an unknown or exited pid gets ESRCH. Used by the unit
// tests and by `kfdmp-sched --backend fake` (for the daemon's own tests).
#pragma once
#include "backend.h"

#include <map>
#include <set>

namespace kfdmp::sched {

class FakeBackend : public Backend {
public:
	struct Call {
		std::string op; // "suspend", "resume", "set_class"
		std::vector<pid_t> pids;
		int err;
	};

	std::string name() const override { return "fake"; }
	CallResult probe() override;
	CallResult suspend(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	CallResult resume(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	CallResult set_class(const std::vector<pid_t>& pids, TenantClass c) override;

	// The simulated processes.
	void add_process(pid_t pid, bool has_queues = true);
	void exit_process(pid_t pid);
	bool known(pid_t pid) const { return procs_.count(pid) != 0; }
	bool suspended(pid_t pid) const { return suspended_.count(pid) != 0; }
	const std::set<pid_t>& suspended_set() const { return suspended_; }

	// Failure injection: every call fails with err (EPERM: an unprivileged
	// caller; ENOTSUP from probe: a driver without the interface), or only the
	// next suspend (ETIME: a hung preemption; the state is committed).
	int fail_all = 0;
	int fail_next_suspend = 0;
	bool unsupported = false;

	std::vector<Call> calls;
	int preemption_cycles = 0; // suspend calls that took at least one queue off

private:
	CallResult validate(const std::vector<pid_t>& pids, bool need_queues) const;
	std::map<pid_t, bool> procs_; // pid -> has queues
	std::set<pid_t> suspended_;
	std::map<pid_t, TenantClass> classes_;
};

} // namespace kfdmp::sched
