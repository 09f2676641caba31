// The tenant-control ioctl on /dev/kfd (kfd_tenant_uapi.h). Opening /dev/kfd
// makes the daemon a KFD process itself (a PASID and a per-GPU entry, no
// queues, no VM); the kernel only accepts the ioctl from the fd's opener.
#pragma once
#include "backend.h"

namespace kfdmp::sched {

class KfdBackend : public Backend {
public:
	explicit KfdBackend(std::string device = "/dev/kfd") : device_(std::move(device)) {}
	~KfdBackend() override;
	KfdBackend(const KfdBackend&) = delete;
	KfdBackend& operator=(const KfdBackend&) = delete;

	std::string name() const override { return "kfd"; }
	// Opens the device and runs OP_QUERY. A driver without the interface
	// answers ENOTTY (upstream kfd_ioctl(): nr outside the table) or EINVAL
	// (ROCm 6.4's kfd_ioctl(): nr outside both ranges); both, and an answer
	// without the magic, give ENOTSUP "not supported by the loaded driver".
	CallResult probe() override;
	CallResult suspend(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	CallResult resume(const std::vector<pid_t>& pids, const GpuSel& gpus) override;
	CallResult set_class(const std::vector<pid_t>& pids, TenantClass c) override;

private:
	CallResult call(unsigned op, const std::vector<pid_t>& pids, const GpuSel& gpus, unsigned cls);
	std::string device_;
	int fd_ = -1;
	bool supported_ = false;
};

} // namespace kfdmp::sched
