// The drain backend: suspends a best-effort tenant by stopping its processes
// (SIGSTOP), resumes it with SIGCONT. No driver change: it works on a stock
// amdgpu, on NVIDIA (time-sliced or MPS) and on the CPU.
//
// What it does and does not do. A stopped process submits nothing more; the
// work it had already queued on the GPU (kernels launched ahead, a whole
// framework forward pass enqueued asynchronously) is not taken off and runs
// to completion. The critical tenant therefore waits, after a suspend, for
// the tenant's queued work to drain: short for small kernels launched one at
// a time, as long as the whole queue for a framework that launches far ahead.
// The kfd backend's ioctl takes the queues off the hardware instead.
//
// Scope: by default the tenant's whole process group (kill(-pgid)), so the
// helpers a service forks stop with it; the process alone (--stop-scope
// process, or automatically) when its group also holds the daemon, its
// watchdog or a critical tenant (the harness starts all its workers in one
// group). A cgroup v2 freezer (cgroup.freeze) was not chosen as the
// mechanism: it needs a writable cgroup per tenant (root, delegation, or the
// container's cgroup), is absent on cgroup v1, and freezes a tenant that is
// selected by pid in a cgroup it shares with others; tenants selected by
// cgroup or container are resolved to their processes instead (selector.h),
// and each is stopped. SIGSTOP cannot be caught or ignored; the tenant's
// parent sees it only if it waits with WUNTRACED (a job-control shell does).
//
// Every stop is recorded with the watchdog (watchdog.h) before it is sent.
#pragma once
#include "backend.h"
#include "clock.h"
#include "watchdog.h"

#include <map>
#include <set>

namespace kfdmp::sched {

class DrainBackend : public Backend {
public:
	struct Options {
		bool group_scope = true;         // stop the tenant's process group, not only the process
		Duration stop_wait_max = std::chrono::milliseconds(20); // how long to watch for the stop
		int log_fd = -1;                 // the watchdog's line (-1: stderr)
		bool watchdog = true;            // false only in unit tests that need no helper
	};
	explicit DrainBackend(Options o) : o_(o) {}
	~DrainBackend() override;

	std::string name() const override { return "drain"; }
	// Starts the watchdog.
	CallResult probe() override;
	CallResult suspend(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	CallResult resume(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	// Classes are a kernel notion: accepted and ignored (a note says so).
	// A tenant stopped by a signal (state T) is Suspended: taken over.
	Observed observe(pid_t pid) override;
	void forget(pid_t pid) override;

	// The critical tenants: their process groups are never stopped.
	void set_protected(std::set<pid_t> pids) { protected_ = std::move(pids); }
	pid_t watchdog_pid() const { return wd_.pid(); }
	bool stopped(pid_t pid) const { return stopped_.count(pid) != 0; }

private:
	// Why pid's group may not be stopped ("" when it may).
	std::string group_unsafe(pid_t pgid) const;
	void cont(const StopRecord& r);
	// Whether a tenant stopped with group pgid, other than those in except, is still recorded.
	bool group_held(pid_t pgid, const std::set<pid_t>& except) const;
	Options o_;
	Watchdog wd_;
	std::set<pid_t> protected_;
	std::map<pid_t, StopRecord> stopped_;
};

} // namespace kfdmp::sched
