// The kernel backend without the kernel interface, the ABI's layout, and the
// fake backend's model of the kernel semantics.
#include "decision_log.h"
#include "fake_backend.h"
#include "kfd_backend.h"
#include "kfd_tenant_uapi.h"

#include <cerrno>
#include <cstddef>
#include <gtest/gtest.h>

using namespace kfdmp::sched;

TEST(TenantUapi, LayoutIsFixedAndTheSameOn32And64Bit)
{
	EXPECT_EQ(sizeof(kfd_ioctl_tenant_ctl_args), 56u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, wait_ns), 16u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, op), 24u);
	EXPECT_EQ(offsetof(kfd_ioctl_tenant_ctl_args, version), 52u);
	EXPECT_EQ(_IOC_TYPE(AMDKFD_IOC_TENANT_CTL), unsigned('K'));
	EXPECT_EQ(_IOC_SIZE(AMDKFD_IOC_TENANT_CTL), 56u);
	EXPECT_EQ(_IOC_DIR(AMDKFD_IOC_TENANT_CTL), unsigned(_IOC_READ | _IOC_WRITE));
}

TEST(TenantUapi, NumberIsOutsideEveryKnownRange)
{
	unsigned nr = _IOC_NR(AMDKFD_IOC_TENANT_CTL);
	EXPECT_EQ(nr, 0x70u);
	// Upstream 6.12: AMDKFD_COMMAND_START 0x01, AMDKFD_COMMAND_END 0x27.
	EXPECT_FALSE(nr >= 0x01 && nr < 0x27);
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
	EXPECT_EQ(b.resume({1}, GpuSel{}).err, ENOTSUP);
}

TEST(FakeBackend, ValidatesEveryPidBeforeChangingAnything)
{
	FakeBackend b;
	b.add_process(10);
	b.add_process(11, false);
	CallResult r = b.suspend({10, 11, 12}, GpuSel{});
	EXPECT_FALSE(r.ok());
	EXPECT_EQ(r.status, (std::vector<int>{0, ENOENT, ESRCH}));
	EXPECT_TRUE(b.suspended_set().empty());
	EXPECT_EQ(b.preemption_cycles, 0);
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
