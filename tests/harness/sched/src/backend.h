// How the scheduler suspends and resumes tenants: one interface, a kernel
// backend (the tenant-control ioctl, kfd_backend.h), a signal backend
// (drain_backend.h) and a fake for tests.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kfdmp::sched {

// Which GPUs a call acts on: every GPU of each pid, or one KFD gpu_id.
struct GpuSel {
	bool all = true;
	uint32_t gpu_id = 0;
	std::string str() const;
};

// The outcome of one backend call. err is 0 or a positive errno: the first
// failing pid's, or the whole call's; status holds 0 or a positive errno per
// pid, in the order given (empty when the call failed before looking at
// pids: nothing changed). per_target says what a status of 0 means in a
// call that failed: true, that pid's change was made (the kfd ioctl takes
// each target on its own); false, nothing changed for any pid (the backend
// validates every pid first). Per pid: ESRCH gone; ENOENT not a KFD process;
// EBUSY another controller holds its suspension; EINVAL not on the GPU
// asked for; EPERM refused for this target; EIO from RESUME: released, but
// a GPU reset keeps the queues evicted. ETIME and EIO from SUSPEND (hung
// preemption, GPU reset): the pids count as suspended and must be resumed.
// wait_ns is the kernel's time in preemption cycles, if known.
struct CallResult {
	int err = 0;
	std::vector<int> status;
	bool per_target = false;
	std::string message;
	bool has_wait = false;
	uint64_t wait_ns = 0;
	// The log key wait_ns goes under: the kernel's fence wait (kfd), or the
	// time until every thread of the tenants was seen stopped (drain).
	const char* wait_key = "kernel_wait_us";
	std::string note; // logged when not empty, also on success
	bool ok() const { return err == 0; }
};

class Backend {
public:
	virtual ~Backend() = default;
	virtual std::string name() const = 0;
	// Whether the backend can work at all (driver support, device present).
	virtual CallResult probe() = 0;
	virtual CallResult suspend(const std::vector<pid_t>& pids, const GpuSel& gpus) = 0;
	virtual CallResult resume(const std::vector<pid_t>& pids, const GpuSel& gpus) = 0;
	// A new tenant, before anything else is asked about it. starttime: its
	// /proc/PID/stat start time when the selection saw it (0: now). The kfd
	// backend opens its pidfd here and checks that the start time is still
	// that one (the pid was not reused in between). 0, or an errno (ESRCH:
	// gone or reused) with `why` set; the tenant is then not taken.
	virtual int track(pid_t, uint64_t /*starttime*/, std::string* /*why*/) { return 0; }
	// What the system says about a tenant before the scheduler decides
	// anything (a restarted daemon).
	struct Observed {
		enum State {
			Unknown,          // the backend cannot tell
			Running,          // not suspended
			Suspended,        // suspended, and this backend may take it over
			SuspendedByOther, // another controller holds its suspension
		} state = Unknown;
		std::string detail; // for the log
	};
	virtual Observed observe(pid_t) { return {}; }
	// Whether a tracked tenant has exited (the kfd backend: its pidfd is
	// readable); nullopt when the backend does not know the pid.
	virtual std::optional<bool> exited(pid_t) { return std::nullopt; }
	// The scheduler forgets a tenant (its process is gone, or no longer
	// selected): anything the backend still holds for it (the drain
	// backend: its stopped process group; the kfd backend: its pidfd) is
	// released.
	virtual void forget(pid_t) {}
};

// "ESRCH (No such process)" style text for logs.
std::string errno_text(int err);

} // namespace kfdmp::sched
