#include "kfd_backend.h"

#include "kfd_tenant_uapi.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace kfdmp::sched {

KfdBackend::~KfdBackend()
{
	if (fd_ >= 0)
		close(fd_);
}

CallResult KfdBackend::probe()
{
	CallResult r;
	if (fd_ < 0) {
		fd_ = open(device_.c_str(), O_RDWR | O_CLOEXEC);
		if (fd_ < 0) {
			r.err = errno;
			r.message = "cannot open " + device_ + ": " + errno_text(r.err) +
				    (r.err == ENOENT ? " (amdkfd not loaded?)" : "");
			return r;
		}
	}
	kfd_ioctl_tenant_ctl_args a;
	std::memset(&a, 0, sizeof(a));
	a.op = KFD_IOC_TENANT_OP_QUERY;
	if (ioctl(fd_, AMDKFD_IOC_TENANT_CTL, &a) != 0) {
		int e = errno;
		r.err = (e == ENOTTY || e == EINVAL) ? ENOTSUP : e;
		r.message = "tenant control not supported by the loaded driver: " + device_ +
			    " ioctl nr 0x70 returned " + errno_text(e);
		return r;
	}
	if (a.magic != KFD_IOC_TENANT_MAGIC) {
		r.err = ENOTSUP;
		r.message = "tenant control not supported by the loaded driver: ioctl nr 0x70 on " + device_ +
			    " answered without the tenant-control magic (another driver's command?)";
		return r;
	}
	if (a.version < KFD_IOC_TENANT_VERSION) {
		r.err = ENOTSUP;
		r.message = "tenant control version " + std::to_string(a.version) + " is older than " +
			    std::to_string(KFD_IOC_TENANT_VERSION);
		return r;
	}
	supported_ = true;
	return r;
}

CallResult KfdBackend::call(unsigned op, const std::vector<pid_t>& pids, const GpuSel& gpus, unsigned cls)
{
	CallResult r;
	if (!supported_) {
		r = probe();
		if (!r.ok())
			return r;
	}
	if (pids.empty() || pids.size() > KFD_IOC_TENANT_MAX_PIDS) {
		r.err = EINVAL;
		r.message = "between 1 and " + std::to_string(KFD_IOC_TENANT_MAX_PIDS) + " pids per call";
		return r;
	}
	std::vector<__u32> ids(pids.begin(), pids.end());
	std::vector<__s32> status(pids.size(), 0);
	kfd_ioctl_tenant_ctl_args a;
	std::memset(&a, 0, sizeof(a));
	a.op = op;
	a.pids_ptr = reinterpret_cast<uintptr_t>(ids.data());
	a.status_ptr = reinterpret_cast<uintptr_t>(status.data());
	a.num_pids = __u32(ids.size());
	a.flags = gpus.all ? KFD_IOC_TENANT_FLAG_ALL_GPUS : 0;
	a.gpu_id = gpus.gpu_id;
	a.tenant_class = cls;
	if (ioctl(fd_, AMDKFD_IOC_TENANT_CTL, &a) != 0) {
		r.err = errno;
		r.message = errno_text(r.err);
	}
	r.status.resize(status.size());
	for (size_t i = 0; i < status.size(); i++)
		r.status[i] = status[i] < 0 ? -status[i] : 0;
	if (op == KFD_IOC_TENANT_OP_SUSPEND && (r.ok() || r.err == ETIME || r.err == EIO)) {
		r.has_wait = true;
		r.wait_ns = a.wait_ns;
	}
	return r;
}

CallResult KfdBackend::suspend(const std::vector<pid_t>& pids, const GpuSel& gpus)
{
	return call(KFD_IOC_TENANT_OP_SUSPEND, pids, gpus, 0);
}

CallResult KfdBackend::resume(const std::vector<pid_t>& pids, const GpuSel& gpus)
{
	return call(KFD_IOC_TENANT_OP_RESUME, pids, gpus, 0);
}

CallResult KfdBackend::set_class(const std::vector<pid_t>& pids, TenantClass c)
{
	GpuSel all;
	return call(KFD_IOC_TENANT_OP_SET_CLASS, pids, all,
		    c == TenantClass::LatencyCritical ? KFD_IOC_TENANT_CLASS_LATENCY_CRITICAL
						      : KFD_IOC_TENANT_CLASS_BEST_EFFORT);
}

} // namespace kfdmp::sched
