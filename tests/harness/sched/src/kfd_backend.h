// The tenant-control ioctl on /dev/kfd (kfd_tenant_uapi.h). Opening /dev/kfd
// makes the daemon a KFD process itself (a PASID, no queues, no VM); its
// suspensions belong to that open file, and the kernel resumes them when the
// file is released: a daemon that dies, SIGKILL included, leaves nothing
// suspended, so this backend needs no watchdog. Targets are pidfds, opened
// when the tenant is tracked and checked against pid reuse.
#pragma once
#include "backend.h"

#include <linux/types.h>
#include <map>
#include <memory>

struct kfd_ioctl_tenant_ctl_args;

namespace kfdmp::sched {

// The system calls the backend makes; the unit tests replace them with a
// model of the kernel (tests/test_backend.cpp).
class KfdSys {
public:
	virtual ~KfdSys() = default;
	// An fd, or -errno.
	virtual int open_device(const std::string& path);
	// ioctl(fd, AMDKFD_IOC_TENANT_CTL, a): 0 or the errno.
	virtual int tenant_ctl(int fd, kfd_ioctl_tenant_ctl_args* a);
	// pidfd_open(pid, 0): an fd, or -errno.
	virtual int pidfd_open(pid_t pid);
	// /proc/PID/stat's start time; nullopt when there is no such process.
	virtual std::optional<uint64_t> starttime(pid_t pid);
	// Whether the pidfd's process has exited (poll() says POLLIN).
	virtual bool exited(int pidfd);
	virtual void close_fd(int fd);
	// Whether the caller has CAP_SYS_ADMIN (/proc/self/status CapEff).
	virtual bool cap_sys_admin();
};

class KfdBackend : public Backend {
public:
	explicit KfdBackend(std::string device = "/dev/kfd", std::shared_ptr<KfdSys> sys = nullptr);
	// Closes every pidfd and the device: the kernel resumes what is left.
	~KfdBackend() override;
	KfdBackend(const KfdBackend&) = delete;
	KfdBackend& operator=(const KfdBackend&) = delete;

	std::string name() const override { return "kfd"; }
	// Opens the device and probes with num_targets 0. A driver without the
	// command answers ENOTTY (upstream kfd_ioctl(): nr outside the table) or
	// EINVAL (ROCm's dispatcher): ENOTSUP "not supported by the loaded
	// driver". The probe needs no privilege, so CAP_SYS_ADMIN is checked
	// here too: EPERM without it. Anything else as it is.
	CallResult probe() override;
	CallResult suspend(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	CallResult resume(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	// Opens the pidfd; ESRCH when the process is gone or its start time is
	// not `starttime` (0: the one read now) once the pidfd is open.
	int track(pid_t pid, uint64_t starttime, std::string* why) override;
	// GET_STATE: OWNED -> Suspended (this file's), SUSPENDED without OWNED
	// -> SuspendedByOther, else Running; Unknown when refused (not a KFD
	// process yet, no GPU).
	Observed observe(pid_t pid) override;
	std::optional<bool> exited(pid_t pid) override;
	void forget(pid_t pid) override;

	size_t tracked() const { return targets_.size(); }
	int pidfd_of(pid_t pid) const;

private:
	struct Target {
		int pidfd = -1;
		uint64_t starttime = 0;
	};
	// One ioctl for pids (tracked ones; others get ESRCH without a call).
	CallResult call(unsigned op, const std::vector<pid_t>& pids, const GpuSel& gpus,
			std::vector<__u32>* state = nullptr);
	std::string device_;
	std::shared_ptr<KfdSys> sys_;
	int fd_ = -1;
	bool supported_ = false;
	std::map<pid_t, Target> targets_;
};

} // namespace kfdmp::sched
