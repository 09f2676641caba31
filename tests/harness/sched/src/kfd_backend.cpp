#include "kfd_backend.h"

#include "kfd_tenant_uapi.h"
#include "proc.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// glibc < 2.31 headers (the box's EL8 has 2.28) lack the number; every
// architecture has it as 434 since Linux 5.3 (the box runs 5.10).
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

namespace kfdmp::sched {

namespace {

const unsigned kNr = _IOC_NR(AMDKFD_IOC_TENANT_CTL);

std::string nr_text()
{
	char b[8];
	std::snprintf(b, sizeof(b), "0x%02x", kNr);
	return b;
}

} // namespace

int KfdSys::open_device(const std::string& path)
{
	int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

int KfdSys::tenant_ctl(int fd, kfd_ioctl_tenant_ctl_args* a)
{
	return ioctl(fd, AMDKFD_IOC_TENANT_CTL, a) ? errno : 0;
}

int KfdSys::pidfd_open(pid_t pid)
{
	long fd = syscall(SYS_pidfd_open, pid, 0); // close-on-exec is set by the kernel
	return fd >= 0 ? int(fd) : -errno;
}

std::optional<uint64_t> KfdSys::starttime(pid_t pid)
{
	auto st = read_stat(pid);
	if (!st)
		return std::nullopt;
	return st->starttime;
}

bool KfdSys::exited(int pidfd)
{
	pollfd p = {pidfd, POLLIN, 0};
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

void KfdSys::close_fd(int fd) { close(fd); }

bool KfdSys::cap_sys_admin()
{
	std::FILE* f = std::fopen("/proc/self/status", "r");
	if (!f)
		return true; // cannot tell: the first call will say
	char line[256];
	unsigned long long eff = ~0ULL;
	while (std::fgets(line, sizeof(line), f))
		if (std::sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	std::fclose(f);
	return eff & (1ULL << 21); // CAP_SYS_ADMIN
}

KfdBackend::KfdBackend(std::string device, std::shared_ptr<KfdSys> sys)
    : device_(std::move(device)), sys_(sys ? std::move(sys) : std::make_shared<KfdSys>())
{
}

KfdBackend::~KfdBackend()
{
	for (const auto& t : targets_)
		sys_->close_fd(t.second.pidfd);
	if (fd_ >= 0)
		sys_->close_fd(fd_);
}

int KfdBackend::pidfd_of(pid_t pid) const
{
	auto t = targets_.find(pid);
	return t == targets_.end() ? -1 : t->second.pidfd;
}

CallResult KfdBackend::probe()
{
	CallResult r;
	if (fd_ < 0) {
		int fd = sys_->open_device(device_);
		if (fd < 0) {
			r.err = -fd;
			r.message = "cannot open " + device_ + ": " + errno_text(r.err) +
				    (r.err == ENOENT ? " (amdkfd not loaded?)" : "");
			return r;
		}
		fd_ = fd;
	}
	// num_targets 0 with a valid op and flags: 0 where the command exists.
	kfd_ioctl_tenant_ctl_args a;
	std::memset(&a, 0, sizeof(a));
	a.op = KFD_IOC_TENANT_OP_SUSPEND;
	a.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS;
	int e = sys_->tenant_ctl(fd_, &a);
	if (e == ENOTTY || e == EINVAL) {
		r.err = ENOTSUP;
		r.message = "tenant control not supported by the loaded driver: " + device_ + " ioctl nr " + nr_text() +
			    " (AMDKFD_IOC_TENANT_CTL) returned " + errno_text(e);
		return r;
	}
	if (e == EPERM || e == EACCES) {
		r.err = e;
		r.message = "tenant control needs CAP_SYS_ADMIN: the probe (ioctl nr " + nr_text() + ") returned " +
			    errno_text(e) + "; run kfdmp-sched as root";
		return r;
	}
	if (e) {
		r.err = e;
		r.message = "tenant control probe (ioctl nr " + nr_text() + " on " + device_ + ") failed: " + errno_text(e);
		return r;
	}
	if (!sys_->cap_sys_admin()) {
		r.err = EPERM;
		r.message = "tenant control needs CAP_SYS_ADMIN, which this process lacks; run kfdmp-sched as root";
		return r;
	}
	supported_ = true;
	return r;
}

int KfdBackend::track(pid_t pid, uint64_t starttime, std::string* why)
{
	auto say = [why](const std::string& s) {
		if (why)
			*why = s;
	};
	if (targets_.count(pid))
		return 0;
	if (!starttime) {
		auto now = sys_->starttime(pid);
		if (!now) {
			say("no such process");
			return ESRCH;
		}
		starttime = *now;
	}
	int fd = sys_->pidfd_open(pid);
	if (fd < 0) {
		say("pidfd_open: " + errno_text(-fd));
		return -fd;
	}
	// The pidfd names whatever process has the pid now; the start time read
	// after it is open proves that is still the one the selection saw.
	auto after = sys_->starttime(pid);
	if (!after || *after != starttime) {
		sys_->close_fd(fd);
		say(after ? "pid reused: start time " + std::to_string(*after) + ", selected with " +
				    std::to_string(starttime)
			  : "exited before its pidfd was checked");
		return ESRCH;
	}
	targets_[pid] = Target{fd, starttime};
	return 0;
}

std::optional<bool> KfdBackend::exited(pid_t pid)
{
	auto t = targets_.find(pid);
	if (t == targets_.end())
		return std::nullopt;
	return sys_->exited(t->second.pidfd);
}

void KfdBackend::forget(pid_t pid)
{
	auto t = targets_.find(pid);
	if (t == targets_.end())
		return;
	sys_->close_fd(t->second.pidfd);
	targets_.erase(t);
}

CallResult KfdBackend::call(unsigned op, const std::vector<pid_t>& pids, const GpuSel& gpus, std::vector<__u32>* state)
{
	CallResult r;
	if (!supported_) {
		r = probe();
		if (!r.ok())
			return r;
	}
	r.per_target = true;
	if (pids.empty() || pids.size() > KFD_IOC_TENANT_MAX_TARGETS) {
		r.err = EINVAL;
		r.message = "between 1 and " + std::to_string(KFD_IOC_TENANT_MAX_TARGETS) + " tenants per call";
		return r;
	}
	r.status.assign(pids.size(), 0);
	if (state)
		state->assign(pids.size(), 0);
	// A pid not tracked yet is tracked now (its start time read now).
	std::vector<__s32> fds;
	std::vector<size_t> at;
	for (size_t i = 0; i < pids.size(); i++) {
		if (!targets_.count(pids[i]) && track(pids[i], 0, nullptr)) {
			r.status[i] = ESRCH;
			continue;
		}
		fds.push_back(targets_[pids[i]].pidfd);
		at.push_back(i);
	}
	if (!fds.empty()) {
		// The kernel writes 0 or -errno per target, or nothing at all for
		// a call-level error: 1 marks an entry it did not write.
		std::vector<__s32> st(fds.size(), 1);
		std::vector<__u32> states(fds.size(), 0);
		kfd_ioctl_tenant_ctl_args a;
		std::memset(&a, 0, sizeof(a));
		a.pidfds_ptr = reinterpret_cast<uintptr_t>(fds.data());
		a.status_ptr = reinterpret_cast<uintptr_t>(st.data());
		if (op == KFD_IOC_TENANT_OP_GET_STATE)
			a.state_ptr = reinterpret_cast<uintptr_t>(states.data());
		a.op = op;
		a.flags = gpus.all ? KFD_IOC_TENANT_FLAG_ALL_GPUS : 0;
		a.gpu_id = gpus.all ? 0 : gpus.gpu_id;
		a.num_targets = __u32(fds.size());
		// SUSPEND and RESUME are idempotent: a call a signal ended (EINTR,
		// a consistent state) is made again.
		int e = 0;
		for (int tries = 0; tries < 3; tries++) {
			e = sys_->tenant_ctl(fd_, &a);
			if (e != EINTR)
				break;
		}
		bool written = false;
		for (__s32 v : st)
			written |= v != 1;
		if (e && !written) {
			r.err = e;
			r.status.clear();
			r.message = errno_text(e) + " for the whole call (nothing changed)";
			return r;
		}
		for (size_t j = 0; j < at.size(); j++) {
			r.status[at[j]] = st[j] < 0 ? -st[j] : 0;
			if (state)
				(*state)[at[j]] = states[j];
		}
		if (op == KFD_IOC_TENANT_OP_SUSPEND) {
			r.has_wait = true;
			r.wait_ns = a.wait_ns;
		}
		if (e && std::find_if(r.status.begin(), r.status.end(), [](int v) { return v != 0; }) == r.status.end())
			r.err = e; // an error the kernel did not put on any target
	}
	std::string refused;
	for (size_t i = 0; i < pids.size(); i++) {
		if (!r.status[i])
			continue;
		if (!r.err)
			r.err = r.status[i];
		refused += (refused.empty() ? "" : ", ") + std::to_string(pids[i]) + ": " + errno_text(r.status[i]);
	}
	if (r.err && r.message.empty())
		r.message = refused.empty() ? errno_text(r.err) : "refused per tenant (" + refused + "); the others done";
	return r;
}

CallResult KfdBackend::suspend(const std::vector<pid_t>& pids, const GpuSel& gpus)
{
	return call(KFD_IOC_TENANT_OP_SUSPEND, pids, gpus);
}

CallResult KfdBackend::resume(const std::vector<pid_t>& pids, const GpuSel& gpus)
{
	return call(KFD_IOC_TENANT_OP_RESUME, pids, gpus);
}

Backend::Observed KfdBackend::observe(pid_t pid)
{
	Observed o;
	std::vector<__u32> state;
	CallResult r = call(KFD_IOC_TENANT_OP_GET_STATE, {pid}, GpuSel{}, &state);
	if (!r.ok()) {
		o.detail = "GET_STATE: " + errno_text(r.err);
		return o;
	}
	__u32 s = state.at(0);
	if (s & KFD_IOC_TENANT_STATE_OWNED)
		o.state = Observed::Suspended;
	else if (s & KFD_IOC_TENANT_STATE_SUSPENDED)
		o.state = Observed::SuspendedByOther;
	else
		o.state = Observed::Running;
	char b[16];
	std::snprintf(b, sizeof(b), "0x%x", s);
	o.detail = std::string("GET_STATE state ") + b;
	if (s & KFD_IOC_TENANT_STATE_RESET)
		o.detail += " (RESET: queues evicted by a GPU reset)";
	return o;
}

} // namespace kfdmp::sched
