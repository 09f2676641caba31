// The kernel backend against a model of the kernel's tenant-control
// semantics (FakeKfd below: the ioctl, pidfds, /proc start times, release of
// a /dev/kfd file's suspensions on close), the ABI's layout, and the fake
// backend's model of the same semantics.
#include "decision_log.h"
#include "fake_backend.h"
#include "fakes.h"
#include "kfd_backend.h"
#include "kfd_tenant_uapi.h"
#include "proc.h"
#include "scheduler.h"

#include <cerrno>
#include <cstddef>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace kfdmp::sched;
using std::chrono::milliseconds;

namespace {

// The kernel as docs/tenant-control.md section 3 has it. A process is
// (pid, start time); a pidfd names one process for good, a pid whatever
// process has it now.
class FakeKfd : public KfdSys {
public:
	struct Proc {
		uint64_t start = 0;
		bool kfd = true;    // opened /dev/kfd
		bool exited = false;
	};
	using Id = std::pair<pid_t, uint64_t>;

	std::map<pid_t, Proc> procs;
	std::map<int, Id> pidfds;
	std::set<int> devices;
	std::map<Id, int> owner; // the suspension's /dev/kfd file
	std::set<Id> reset;      // a GPU reset keeps these evicted
	bool has_command = true;
	int unknown_errno = ENOTTY; // upstream; ROCm: EINVAL
	int probe_errno = 0;        // anything else the probe may meet
	bool privileged = true;
	int eintr_next = 0;
	std::function<void(pid_t)> after_pidfd_open; // a race, between open and check
	std::vector<kfd_ioctl_tenant_ctl_args> calls;
	std::vector<std::vector<int>> call_fds;
	int next_fd = 100;

	void spawn(pid_t pid, uint64_t start, bool kfd = true) { procs[pid] = Proc{start, kfd, false}; }
	Id id(pid_t pid) const { return {pid, procs.at(pid).start}; }
	bool suspended(pid_t pid) const { return procs.count(pid) && owner.count(id(pid)); }

	int open_device(const std::string& path) override
	{
		if (path != "/dev/kfd")
			return -ENOENT;
		devices.insert(next_fd);
		return next_fd++;
	}
	int pidfd_open(pid_t pid) override
	{
		auto p = procs.find(pid);
		if (p == procs.end())
			return -ESRCH;
		pidfds[next_fd] = {pid, p->second.start};
		int fd = next_fd++;
		if (after_pidfd_open)
			after_pidfd_open(pid);
		return fd;
	}
	std::optional<uint64_t> starttime(pid_t pid) override
	{
		auto p = procs.find(pid);
		if (p == procs.end())
			return std::nullopt;
		return p->second.start;
	}
	bool alive(const Id& i) const
	{
		auto p = procs.find(i.first);
		return p != procs.end() && p->second.start == i.second && !p->second.exited;
	}
	bool exited(int pidfd) override { return !alive(pidfds.at(pidfd)); }
	bool cap_sys_admin() override { return privileged; }
	void close_fd(int fd) override
	{
		if (devices.erase(fd)) {
			// release-on-close: every suspension the file made is given back
			for (auto o = owner.begin(); o != owner.end();)
				o = o->second == fd ? owner.erase(o) : std::next(o);
			return;
		}
		EXPECT_EQ(pidfds.erase(fd), 1u) << "closing fd " << fd << " that is no pidfd";
	}
	int tenant_ctl(int fd, kfd_ioctl_tenant_ctl_args* a) override
	{
		calls.push_back(*a);
		call_fds.emplace_back();
		if (!has_command)
			return unknown_errno;
		if (probe_errno)
			return probe_errno;
		if (eintr_next) {
			eintr_next--;
			return EINTR;
		}
		if (a->op < KFD_IOC_TENANT_OP_SUSPEND || a->op > KFD_IOC_TENANT_OP_GET_STATE ||
		    (a->flags & ~KFD_IOC_TENANT_FLAG_ALL_GPUS) ||
		    ((a->flags & KFD_IOC_TENANT_FLAG_ALL_GPUS) && a->gpu_id) ||
		    a->num_targets > KFD_IOC_TENANT_MAX_TARGETS)
			return EINVAL;
		if (!a->num_targets)
			return 0; // the probe needs no privilege
		if (!privileged)
			return EPERM;
		auto* fds = reinterpret_cast<const __s32*>(uintptr_t(a->pidfds_ptr));
		auto* st = reinterpret_cast<__s32*>(uintptr_t(a->status_ptr));
		auto* state = reinterpret_cast<__u32*>(uintptr_t(a->state_ptr));
		int first = 0;
		a->wait_ns = 0;
		for (__u32 i = 0; i < a->num_targets; i++) {
			call_fds.back().push_back(fds[i]);
			int e = 0;
			auto pf = pidfds.find(fds[i]);
			if (pf == pidfds.end()) {
				e = EBADF;
			} else if (!alive(pf->second)) {
				e = ESRCH;
			} else if (!procs.at(pf->second.first).kfd) {
				e = ENOENT;
			} else {
				Id t = pf->second;
				auto o = owner.find(t);
				switch (a->op) {
				case KFD_IOC_TENANT_OP_SUSPEND:
					if (o != owner.end() && o->second != fd)
						e = EBUSY;
					else if (o == owner.end()) {
						owner[t] = fd;
						a->wait_ns += 1000;
					}
					break;
				case KFD_IOC_TENANT_OP_RESUME:
					if (o != owner.end() && o->second != fd) {
						e = EBUSY;
					} else if (o != owner.end()) {
						owner.erase(o);
						if (reset.erase(t))
							e = EIO;
					}
					break;
				case KFD_IOC_TENANT_OP_GET_STATE:
					state[i] = (o != owner.end() ? KFD_IOC_TENANT_STATE_SUSPENDED : 0) |
						   (o != owner.end() && o->second == fd ? KFD_IOC_TENANT_STATE_OWNED : 0) |
						   (reset.count(t) ? KFD_IOC_TENANT_STATE_RESET : 0);
					break;
				}
			}
			st[i] = -e;
			if (e && !first)
				first = e;
		}
		return first;
	}
};

// A KfdBackend on the model, with a scheduler on top where a test wants one.
class KfdTest : public ::testing::Test {
protected:
	KfdTest() : kfd(std::make_shared<FakeKfd>()), log(nullptr)
	{
		log.keep_lines = true;
		kfd->spawn(10, 1000);
		kfd->spawn(11, 1100);
	}
	std::unique_ptr<KfdBackend> backend() { return std::make_unique<KfdBackend>("/dev/kfd", kfd); }
	bool logged(const std::string& needle) const
	{
		for (const auto& l : log.lines())
			if (l.find(needle) != std::string::npos)
				return true;
		return false;
	}
	std::string all_lines() const
	{
		std::string s;
		for (const auto& l : log.lines())
			s += l + "\n";
		return s;
	}
	static Params params()
	{
		Params p;
		p.min_run = milliseconds(20);
		p.max_suspend = milliseconds(200);
		p.resume_hold = milliseconds(2);
		return p;
	}

	std::shared_ptr<FakeKfd> kfd;
	FakeClock clock;
	DecisionLog log;
};

} // namespace

TEST(TenantUapi, LayoutIsFixedAndTheSameOn32And64Bit)
{
	EXPECT_EQ(sizeof(kfd_ioctl_tenant_ctl_args), 48u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, pidfds_ptr), 0u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, status_ptr), 8u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, state_ptr), 16u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, wait_ns), 24u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, op), 32u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, flags), 36u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, gpu_id), 40u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, num_targets), 44u);
	EXPECT_EQ(_IOC_TYPE(AMDKFD_IOC_TENANT_CTL), unsigned('K'));
	EXPECT_EQ(_IOC_SIZE(AMDKFD_IOC_TENANT_CTL), 48u);
	EXPECT_EQ(_IOC_DIR(AMDKFD_IOC_TENANT_CTL), unsigned(_IOC_READ | _IOC_WRITE));
	EXPECT_EQ(KFD_IOC_TENANT_OP_SUSPEND, 1);
	EXPECT_EQ(KFD_IOC_TENANT_OP_RESUME, 2);
	EXPECT_EQ(KFD_IOC_TENANT_OP_GET_STATE, 3);
	EXPECT_EQ(KFD_IOC_TENANT_STATE_OWNED, 2u);
	EXPECT_EQ(KFD_IOC_TENANT_STATE_RESET, 16u);
	EXPECT_EQ(KFD_IOC_TENANT_MAX_TARGETS, 64);
}

TEST(TenantUapi, NumberIsTheNextCoreNumber)
{
	unsigned nr = _IOC_NR(AMDKFD_IOC_TENANT_CTL);
	// Upstream (7.2): AMDKFD_IOC_PROFILER is 0x28, AMDKFD_COMMAND_END was 0x29.
	EXPECT_EQ(nr, 0x29u);
	// ROCm 6.4 (amdgpu-dkms 6.12.12): AMDKFD_COMMAND_START_2 0x80, _END_2 0x87.
	EXPECT_FALSE(nr >= 0x80 && nr < 0x87);
	// The box owner's private preempt/resume ioctls.
	EXPECT_NE(nr, 0x87u);
	EXPECT_NE(nr, 0x88u);
}

TEST(KfdBackend, MissingDeviceSaysSo)
{
	KfdBackend b("/nonexistent/kfd");
	CallResult r = b.probe();
	EXPECT_EQ(r.err, ENOENT);
	EXPECT_NE(r.message.find("cannot open /nonexistent/kfd"), std::string::npos) << r.message;
	// Every call reports the same instead of pretending to work.
	CallResult s = b.suspend({1}, GpuSel{});
	EXPECT_EQ(s.err, ENOENT);
}

TEST(KfdBackend, DeviceWithoutTheIoctlIsNotSupported)
{
	// /dev/null answers every ioctl with ENOTTY, as upstream kfd_ioctl()
	// does for a number outside its table.
	KfdBackend b("/dev/null");
	CallResult r = b.probe();
	EXPECT_EQ(r.err, ENOTSUP);
	EXPECT_NE(r.message.find("not supported by the loaded driver"), std::string::npos) << r.message;
	EXPECT_NE(r.message.find("ENOTTY"), std::string::npos) << r.message;
	EXPECT_NE(r.message.find("0x29"), std::string::npos) << r.message;
	EXPECT_EQ(b.resume({1}, GpuSel{}).err, ENOTSUP);
}

TEST(KfdBackend, RealPidfdsOfARealProcess)
{
	// The system calls themselves (pidfd_open, /proc start time, poll):
	// no /dev/kfd is needed to track a tenant.
	pid_t child = fork();
	if (child == 0) {
		for (;;)
			pause();
	}
	ASSERT_GT(child, 0);
	auto st = read_stat(child);
	ASSERT_TRUE(st);
	KfdBackend b("/dev/null");
	std::string why;
	EXPECT_EQ(b.track(child, st->starttime + 1, &why), ESRCH) << "another start time: a reused pid";
	EXPECT_EQ(b.tracked(), 0u);
	ASSERT_EQ(b.track(child, st->starttime, &why), 0) << why;
	EXPECT_GE(b.pidfd_of(child), 0);
	EXPECT_EQ(b.exited(child), std::optional<bool>(false));
	kill(child, SIGKILL);
	waitpid(child, nullptr, 0);
	EXPECT_EQ(b.exited(child), std::optional<bool>(true));
	b.forget(child);
	EXPECT_EQ(b.tracked(), 0u);
}

TEST_F(KfdTest, ProbeSendsNoTargetsAndDistinguishesTheAnswers)
{
	auto b = backend();
	ASSERT_TRUE(b->probe().ok());
	ASSERT_EQ(kfd->calls.size(), 1u);
	EXPECT_EQ(kfd->calls[0].num_targets, 0u);
	EXPECT_EQ(kfd->calls[0].op, unsigned(KFD_IOC_TENANT_OP_SUSPEND));
	EXPECT_EQ(kfd->calls[0].flags, KFD_IOC_TENANT_FLAG_ALL_GPUS);
	EXPECT_EQ(kfd->calls[0].gpu_id, 0u);
	EXPECT_EQ(kfd->devices.size(), 1u);

	// ROCm's dispatcher answers an unknown number with EINVAL.
	kfd->has_command = false;
	kfd->unknown_errno = EINVAL;
	CallResult r = backend()->probe();
	EXPECT_EQ(r.err, ENOTSUP);
	EXPECT_NE(r.message.find("not supported by the loaded driver"), std::string::npos) << r.message;
	EXPECT_NE(r.message.find("EINVAL"), std::string::npos) << r.message;

	// The command exists (the probe answers 0 without privilege) but the
	// caller lacks CAP_SYS_ADMIN: said so at start, not "unsupported".
	kfd->has_command = true;
	kfd->privileged = false;
	r = backend()->probe();
	EXPECT_EQ(r.err, EPERM);
	EXPECT_NE(r.message.find("CAP_SYS_ADMIN"), std::string::npos) << r.message;

	// Any other error is given as it is.
	kfd->privileged = true;
	kfd->probe_errno = ENOMEM;
	r = backend()->probe();
	EXPECT_EQ(r.err, ENOMEM);
	EXPECT_EQ(r.message.find("not supported"), std::string::npos) << r.message;
}

TEST_F(KfdTest, TargetsArePidfdsOpenedWhenTracked)
{
	auto b = backend();
	ASSERT_TRUE(b->probe().ok());
	EXPECT_EQ(b->track(10, 1000, nullptr), 0);
	EXPECT_EQ(b->track(11, 0, nullptr), 0); // the start time read now
	int fd10 = b->pidfd_of(10), fd11 = b->pidfd_of(11);
	ASSERT_GE(fd10, 0);
	EXPECT_EQ(kfd->pidfds.at(fd10), FakeKfd::Id(10, 1000));
	CallResult r = b->suspend({10, 11}, GpuSel{});
	ASSERT_TRUE(r.ok()) << r.message;
	EXPECT_EQ(kfd->call_fds.back(), (std::vector<int>{fd10, fd11}));
	EXPECT_TRUE(kfd->suspended(10) && kfd->suspended(11));
	EXPECT_TRUE(r.has_wait);
	EXPECT_EQ(r.wait_ns, 2000u);
	// A gone tenant's pidfd is closed.
	b->forget(10);
	EXPECT_EQ(kfd->pidfds.count(fd10), 0u);
	EXPECT_EQ(b->tracked(), 1u);
	// One GPU: its gpu_id, no flag.
	kfd->calls.clear();
	EXPECT_TRUE(b->resume({11}, GpuSel{false, 0x1234}).ok());
	EXPECT_EQ(kfd->calls.at(0).flags, 0u);
	EXPECT_EQ(kfd->calls.at(0).gpu_id, 0x1234u);
}

TEST_F(KfdTest, APidReusedSinceTheSelectionSawItIsRefused)
{
	auto b = backend();
	std::string why;
	// The selection saw pid 10 start at 999; the process there now started at 1000.
	EXPECT_EQ(b->track(10, 999, &why), ESRCH);
	EXPECT_NE(why.find("pid reused"), std::string::npos) << why;
	EXPECT_TRUE(kfd->pidfds.empty()) << "the pidfd of the wrong process stays open";
	// The process exits and its pid is reused between pidfd_open and the
	// check: the pidfd names the dead process, the start time tells.
	kfd->after_pidfd_open = [this](pid_t p) { kfd->spawn(p, 5000); };
	EXPECT_EQ(b->track(11, 1100, &why), ESRCH);
	EXPECT_TRUE(kfd->pidfds.empty());
	EXPECT_EQ(b->tracked(), 0u);
	// Gone altogether.
	kfd->after_pidfd_open = nullptr;
	EXPECT_EQ(b->track(12, 1200, &why), ESRCH);
	EXPECT_NE(why.find("pidfd_open"), std::string::npos) << why;
}

TEST_F(KfdTest, AnExitedTenantIsSeenByItsPidfdEvenWhenThePidIsReused)
{
	auto b = backend();
	ASSERT_EQ(b->track(10, 1000, nullptr), 0);
	EXPECT_EQ(b->exited(10), std::optional<bool>(false));
	EXPECT_EQ(b->exited(99), std::nullopt);
	kfd->spawn(10, 7000); // exited, and another process got the pid
	EXPECT_EQ(b->exited(10), std::optional<bool>(true));
}

TEST_F(KfdTest, EsrchDropsOnlyTheExitedTenant)
{
	auto b = backend();
	Scheduler s(params(), *b, clock, log);
	ASSERT_TRUE(s.add_best_effort(10, 1000));
	ASSERT_TRUE(s.add_best_effort(11, 1100));
	kfd->procs[11].exited = true; // exiting: the kernel answers ESRCH for it
	s.critical_report(1, true, clock.now());
	s.tick();
	EXPECT_TRUE(s.suspended(10));
	EXPECT_TRUE(kfd->suspended(10));
	EXPECT_FALSE(s.has_best_effort(11));
	EXPECT_EQ(b->tracked(), 1u) << "the gone tenant's pidfd is closed";
	EXPECT_TRUE(logged("\"event\":\"tenant_gone\"")) << all_lines();
	EXPECT_TRUE(logged("11: ESRCH")) << all_lines();
	// One call: the kernel took 10 although 11 failed.
	size_t suspends = 0;
	for (const auto& c : kfd->calls)
		suspends += c.op == KFD_IOC_TENANT_OP_SUSPEND && c.num_targets;
	EXPECT_EQ(suspends, 1u);
}

TEST_F(KfdTest, EbusyIsLoggedAndNotFought)
{
	auto other = backend(); // another controller's /dev/kfd file
	ASSERT_TRUE(other->suspend({11}, GpuSel{}).ok());
	auto b = backend();
	Scheduler s(params(), *b, clock, log);
	s.add_best_effort(10, 1000);
	s.add_best_effort(11, 1100);
	EXPECT_TRUE(logged("\"event\":\"suspended_by_other\"")) << "reported at start: " << all_lines();
	EXPECT_EQ(s.suspended_count(), 0u);
	s.critical_report(1, true, clock.now());
	s.tick();
	EXPECT_TRUE(s.suspended(10));
	EXPECT_FALSE(s.suspended(11));
	EXPECT_TRUE(logged("11: EBUSY")) << all_lines();
	size_t calls = kfd->calls.size();
	clock.advance(milliseconds(10));
	s.tick();
	EXPECT_EQ(kfd->calls.size(), calls) << "tried again inside min_run";
	// Resuming gives back only this daemon's suspension.
	EXPECT_TRUE(s.shutdown("test"));
	EXPECT_FALSE(kfd->suspended(10));
	EXPECT_TRUE(kfd->suspended(11)) << "another controller's suspension was given back";
}

TEST_F(KfdTest, EioAfterAResetIsLoggedAndTheTenantCountsAsResumed)
{
	auto b = backend();
	Scheduler s(params(), *b, clock, log);
	s.add_best_effort(10, 1000);
	s.critical_report(1, true, clock.now());
	s.tick();
	ASSERT_TRUE(s.suspended(10));
	kfd->reset.insert(kfd->id(10));
	clock.advance(milliseconds(5));
	s.critical_report(1, false, clock.now());
	clock.advance(milliseconds(2));
	s.tick();
	EXPECT_FALSE(s.suspended(10));
	EXPECT_FALSE(kfd->suspended(10)) << "the suspension is released";
	EXPECT_TRUE(logged("\"event\":\"reset\"")) << all_lines();
	EXPECT_TRUE(logged("RESET")) << all_lines();
	EXPECT_FALSE(s.fatal());
	EXPECT_TRUE(s.shutdown("test"));
}

TEST_F(KfdTest, ENoEntIsANonKfdProcessTriedAgainAfterItsWindow)
{
	kfd->spawn(12, 1200, false);
	auto b = backend();
	Scheduler s(params(), *b, clock, log);
	s.add_best_effort(12, 1200);
	s.critical_report(1, true, clock.now());
	s.tick();
	EXPECT_FALSE(s.suspended(12));
	EXPECT_TRUE(logged("\"event\":\"not_kfd\"")) << all_lines();
	kfd->procs[12].kfd = true; // it opened /dev/kfd
	clock.advance(milliseconds(20));
	s.tick();
	EXPECT_TRUE(s.suspended(12));
}

TEST_F(KfdTest, ACallLevelErrorChangesNothingAndEpermIsFatal)
{
	auto b = backend();
	ASSERT_TRUE(b->probe().ok());
	Scheduler s(params(), *b, clock, log);
	s.add_best_effort(10, 1000);
	kfd->privileged = false; // e.g. an LSM refusing the call, after the probe
	s.critical_report(1, true, clock.now());
	s.tick();
	EXPECT_TRUE(s.fatal());
	EXPECT_FALSE(s.suspended(10));
	EXPECT_TRUE(logged("\"state\":\"unchanged\"")) << all_lines();
}

TEST_F(KfdTest, AnInterruptedCallIsMadeAgain)
{
	auto b = backend();
	ASSERT_TRUE(b->probe().ok());
	kfd->eintr_next = 1;
	CallResult r = b->suspend({10}, GpuSel{});
	EXPECT_TRUE(r.ok()) << r.message;
	EXPECT_TRUE(kfd->suspended(10));
}

TEST_F(KfdTest, ClosingTheDeviceResumesEverythingAndClosesThePidfds)
{
	{
		auto b = backend();
		Scheduler s(params(), *b, clock, log);
		s.add_best_effort(10, 1000);
		s.add_best_effort(11, 1100);
		s.critical_report(1, true, clock.now());
		s.tick();
		ASSERT_TRUE(kfd->suspended(10) && kfd->suspended(11));
		// The daemon dies here without resuming (SIGKILL): no shutdown().
	}
	EXPECT_FALSE(kfd->suspended(10));
	EXPECT_FALSE(kfd->suspended(11));
	EXPECT_TRUE(kfd->pidfds.empty());
	EXPECT_TRUE(kfd->devices.empty());
}

TEST_F(KfdTest, ARestartedDaemonOwnsNothingAndReportsOthersSuspensions)
{
	auto other = backend(); // a controller still running (another daemon)
	ASSERT_TRUE(other->suspend({11}, GpuSel{}).ok());
	{
		auto first = backend();
		ASSERT_TRUE(first->suspend({10}, GpuSel{}).ok());
		// The first daemon is killed: its file is released.
	}
	auto b = backend();
	EXPECT_EQ(b->observe(10).state, Backend::Observed::Running);
	Backend::Observed o = b->observe(11);
	EXPECT_EQ(o.state, Backend::Observed::SuspendedByOther);
	EXPECT_NE(o.detail.find("0x1"), std::string::npos) << o.detail;
	// A suspension of its own file is OWNED: taken over.
	ASSERT_TRUE(b->suspend({10}, GpuSel{}).ok());
	EXPECT_EQ(b->observe(10).state, Backend::Observed::Suspended);
	EXPECT_EQ(kfd->calls.back().op, unsigned(KFD_IOC_TENANT_OP_GET_STATE));
	EXPECT_NE(kfd->calls.back().state_ptr, 0u);

	Scheduler s(params(), *b, clock, log);
	b->resume({10}, GpuSel{});
	s.add_best_effort(10, 1000);
	s.add_best_effort(11, 1100);
	EXPECT_EQ(s.suspended_count(), 0u);
	EXPECT_TRUE(logged("\"event\":\"suspended_by_other\",\"pids\":[11]")) << all_lines();
	EXPECT_FALSE(logged("found_suspended")) << all_lines();
}

TEST(FakeBackend, EachPidOnItsOwn)
{
	FakeBackend b;
	b.add_process(10);
	b.add_process(11, false);
	b.add_process(13);
	b.hold_by_other(13);
	CallResult r = b.suspend({10, 11, 12, 13}, GpuSel{});
	EXPECT_FALSE(r.ok());
	EXPECT_TRUE(r.per_target);
	EXPECT_EQ(r.status, (std::vector<int>{0, ENOENT, ESRCH, EBUSY}));
	EXPECT_EQ(b.suspended_set(), (std::set<pid_t>{10}));
	EXPECT_EQ(b.preemption_cycles, 1);
	EXPECT_EQ(b.observe(13).state, Backend::Observed::SuspendedByOther);
	EXPECT_EQ(b.observe(10).state, Backend::Observed::Suspended);
}

TEST(FakeBackend, DoubleSuspendAndResumeWithoutSuspendAreNoOps)
{
	FakeBackend b;
	b.add_process(10);
	EXPECT_TRUE(b.resume({10}, GpuSel{}).ok());
	EXPECT_TRUE(b.suspend({10}, GpuSel{}).ok());
	EXPECT_TRUE(b.suspend({10}, GpuSel{}).ok());
	EXPECT_EQ(b.preemption_cycles, 1);
	EXPECT_TRUE(b.resume({10}, GpuSel{}).ok());
	EXPECT_FALSE(b.suspended(10));
}

TEST(DecisionLog, JsonEscapesAndFormats)
{
	std::string l = JsonLine()
				.str("s", "a\"b\\c\n")
				.integer("i", -3)
				.num("d", 1.5)
				.pids("p", {1, 2})
				.done();
	EXPECT_EQ(l, "{\"s\":\"a\\\"b\\\\c\\u000a\",\"i\":-3,\"d\":1.5,\"p\":[1,2]}");
}
