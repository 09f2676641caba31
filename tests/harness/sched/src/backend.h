// How the scheduler suspends and resumes tenants: one interface, a kernel
// backend (the tenant-control ioctl, kfd_backend.h) and a fake for tests.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kfdmp::sched {

enum class TenantClass { LatencyCritical, BestEffort };
const char* class_name(TenantClass c);

// Which GPUs a call acts on: every GPU of each pid, or one KFD gpu_id.
struct GpuSel {
	bool all = true;
	uint32_t gpu_id = 0;
	std::string str() const;
};

// The outcome of one backend call. err is 0 or a positive errno for the whole
// call; status holds 0 or a positive errno per pid, in the order given (empty
// when the call failed before looking at pids). For ESRCH, ENOENT, EINVAL and
// EPERM nothing changed for any pid. For ETIME and EIO (hung preemption, GPU
// reset) the kernel has committed the suspended state: the pids count as
// suspended and must be resumed. wait_ns is the kernel's fence wait, if known.
struct CallResult {
	int err = 0;
	std::vector<int> status;
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
	virtual CallResult set_class(const std::vector<pid_t>& pids, TenantClass c) = 0;
	// What the system says about a tenant before the scheduler decides
	// anything (a restarted daemon): true when it is suspended now (the drain
	// backend: stopped by a signal), false when not, nullopt when the backend
	// cannot tell.
	virtual std::optional<bool> observed_suspended(pid_t) { return std::nullopt; }
	// The scheduler forgets a tenant (its process is gone): anything the
	// backend still holds for it (the drain backend: its stopped process
	// group) is released.
	virtual void forget(pid_t) {}
};

// "ESRCH (No such process)" style text for logs.
std::string errno_text(int err);

} // namespace kfdmp::sched
