#include "barrier.h"
#include "clock.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using kfdmp::now_ns;
using kfdmp::ShmBarrier;

namespace {

constexpr uint64_t ten_seconds = 10'000'000'000;

// A barrier in a MAP_SHARED anonymous mapping, inherited by fork().
class BarrierTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		void* p = mmap(nullptr, sizeof(ShmBarrier), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(p, MAP_FAILED);
		barrier = static_cast<ShmBarrier*>(p);
	}
	void TearDown() override { munmap(barrier, sizeof(ShmBarrier)); }

	// A child that arrives and exits with the Result as its status.
	pid_t spawn_waiter()
	{
		const pid_t pid = fork();
		if (pid == 0)
			_exit(int(barrier->arrive_and_wait(now_ns() + ten_seconds)));
		return pid;
	}

	static ShmBarrier::Result result_of(pid_t pid)
	{
		int status = 0;
		EXPECT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_TRUE(WIFEXITED(status));
		return ShmBarrier::Result(WEXITSTATUS(status));
	}

	ShmBarrier* barrier = nullptr;
};

TEST_F(BarrierTest, ReleasesAllProcessesOnceAllArrive)
{
	barrier->init(4);
	std::vector<pid_t> pids;
	for (int i = 0; i < 3; ++i)
		pids.push_back(spawn_waiter());
	EXPECT_EQ(barrier->arrive_and_wait(now_ns() + ten_seconds), ShmBarrier::Result::released);
	for (pid_t pid : pids)
		EXPECT_EQ(result_of(pid), ShmBarrier::Result::released);
	EXPECT_EQ(barrier->arrived(), 4u);
	EXPECT_NE(barrier->release_ns(), 0u);
}

TEST_F(BarrierTest, TimesOutWhenAPartyNeverArrives)
{
	barrier->init(2);
	EXPECT_EQ(barrier->arrive_and_wait(now_ns() + 1'000'000), ShmBarrier::Result::timed_out);
	EXPECT_EQ(barrier->release_ns(), 0u);
}

TEST_F(BarrierTest, BreakingReleasesWaitersWithFailure)
{
	barrier->init(3);
	const pid_t pid = spawn_waiter();
	while (barrier->arrived() < 1)
		usleep(100);
	barrier->break_barrier();
	EXPECT_EQ(result_of(pid), ShmBarrier::Result::broken);
	EXPECT_EQ(barrier->arrive_and_wait(now_ns() + ten_seconds), ShmBarrier::Result::broken);
}

TEST_F(BarrierTest, BreakingAfterReleaseChangesNothing)
{
	barrier->init(1);
	EXPECT_EQ(barrier->arrive_and_wait(now_ns() + ten_seconds), ShmBarrier::Result::released);
	barrier->break_barrier();
	EXPECT_EQ(barrier->arrive_and_wait(now_ns() + ten_seconds), ShmBarrier::Result::released);
}

} // namespace
