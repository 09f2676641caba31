// A backend that models the tenant-control semantics of docs/tenant-control.md
// in memory, as the kfd ioctl has them: each pid on its own (per_target), an
// unknown or exited pid gets ESRCH, a process that is not a KFD process
// ENOENT, one whose suspension another controller holds EBUSY; double
// suspend and resume without suspend are no-ops; a KFD process without
// queues can be suspended. Used by the unit tests and by `kfdmp-sched
// --backend fake` (for the daemon's own tests).
#pragma once
#include "backend.h"

#include <map>
#include <set>

namespace kfdmp::sched {

class FakeBackend : public Backend {
public:
	struct Call {
		std::string op; // "suspend", "resume"
		std::vector<pid_t> pids;
		int err;
	};

	std::string name() const override { return "fake"; }
	CallResult probe() override;
	CallResult suspend(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	CallResult resume(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	// GET_STATE's answer: ours (Suspended), another controller's, running.
	Observed observe(pid_t pid) override;

	// The simulated processes; kfd false: a process that never opened /dev/kfd.
	void add_process(pid_t pid, bool kfd = true);
	void exit_process(pid_t pid);
	bool known(pid_t pid) const { return procs_.count(pid) != 0; }
	bool suspended(pid_t pid) const { return suspended_.count(pid) != 0; }
	const std::set<pid_t>& suspended_set() const { return suspended_; }
	// Another controller (another /dev/kfd file) holds pid's suspension:
	// EBUSY for this one until release_other().
	void hold_by_other(pid_t pid) { other_.insert(pid); }
	void release_other(pid_t pid) { other_.erase(pid); }
	// A GPU reset: pid's next RESUME answers EIO (released, queues stay evicted).
	void reset(pid_t pid) { reset_.insert(pid); }

	// Failure injection: every call fails with err before looking at any pid
	// (EPERM: an unprivileged caller), or only the next suspend (ETIME: a
	// hung preemption; the state is committed); probe answers ENOTSUP (a
	// driver without the interface).
	int fail_all = 0;
	// A refusal changes nothing for any pid (per_target false), as the
	// drain backend's suspend validates every pid first.
	bool all_or_nothing = false;
	int fail_next_suspend = 0;
	bool unsupported = false;

	std::vector<Call> calls;
	int preemption_cycles = 0; // suspend calls that took at least one queue off

private:
	// status per pid (0 for the ones the op may act on); r.err the first.
	CallResult validate(const std::vector<pid_t>& pids, bool suspend) const;
	std::map<pid_t, bool> procs_; // pid -> a KFD process
	std::set<pid_t> suspended_, other_, reset_;
};

} // namespace kfdmp::sched
