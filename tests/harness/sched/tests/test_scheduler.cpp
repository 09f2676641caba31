// The decision logic against the fake backend and a fake clock.
#include "fakes.h"
#include "fake_backend.h"
#include "scheduler.h"

#include <cerrno>
#include <gtest/gtest.h>

using namespace kfdmp::sched;
using std::chrono::milliseconds;

namespace {

class SchedulerTest : public ::testing::Test {
protected:
	SchedulerTest() : log(nullptr), s(params(), backend, clock, log)
	{
		log.keep_lines = true;
		backend.add_process(10);
		backend.add_process(11);
	}
	static Params params()
	{
		Params p;
		p.min_run = milliseconds(20);
		p.max_suspend = milliseconds(200);
		p.resume_hold = milliseconds(2);
		return p;
	}
	void busy(pid_t critical = 1) { s.critical_report(critical, true, clock.now()); }
	void idle(pid_t critical = 1) { s.critical_report(critical, false, clock.now()); }
	size_t count(const std::string& op) const
	{
		size_t n = 0;
		for (const auto& c : backend.calls)
			n += c.op == op;
		return n;
	}
	bool logged(const std::string& needle) const
	{
		for (const auto& l : log.lines())
			if (l.find(needle) != std::string::npos)
				return true;
		return false;
	}

	FakeBackend backend;
	FakeClock clock;
	DecisionLog log;
	Scheduler s;
};

} // namespace

TEST_F(SchedulerTest, NothingHappensWithoutCriticalWork)
{
	s.add_best_effort(10);
	for (int i = 0; i < 100; i++) {
		clock.advance(milliseconds(5));
		s.tick();
	}
	EXPECT_TRUE(backend.calls.empty());
	EXPECT_EQ(s.next_deadline(), TimePoint::max());
}

TEST_F(SchedulerTest, SuspendsAllBestEffortInOneCallAndResumesAfterTheHold)
{
	s.add_best_effort(10);
	s.add_best_effort(11);
	busy();
	s.tick();
	ASSERT_EQ(backend.calls.size(), 1u);
	EXPECT_EQ(backend.calls[0].op, "suspend");
	EXPECT_EQ(backend.calls[0].pids, (std::vector<pid_t>{10, 11}));
	EXPECT_EQ(backend.preemption_cycles, 1);
	EXPECT_TRUE(s.suspended(10) && s.suspended(11));

	clock.advance(milliseconds(3));
	idle();
	EXPECT_EQ(s.next_deadline(), clock.now() + milliseconds(2));
	clock.advance(milliseconds(1));
	s.tick(); // inside the hold: still suspended
	EXPECT_EQ(count("resume"), 0u);
	clock.advance(milliseconds(1));
	s.tick();
	ASSERT_EQ(count("resume"), 1u);
	EXPECT_EQ(backend.calls.back().pids, (std::vector<pid_t>{10, 11}));
	EXPECT_TRUE(backend.suspended_set().empty());
	EXPECT_TRUE(logged("\"reason\":\"critical_idle\""));
}

TEST_F(SchedulerTest, HysteresisKeepsTenantsSuspendedThroughShortGaps)
{
	s.add_best_effort(10);
	busy();
	s.tick();
	for (int i = 0; i < 20; i++) { // a burst: 1 ms gaps, shorter than the 2 ms hold
		clock.advance(milliseconds(3));
		idle();
		clock.advance(milliseconds(1));
		s.tick();
		busy();
		s.tick();
	}
	EXPECT_EQ(count("suspend"), 1u);
	EXPECT_EQ(count("resume"), 0u);
	EXPECT_TRUE(s.suspended(10));
}

TEST_F(SchedulerTest, MinimumRunWindowAfterAResume)
{
	s.add_best_effort(10);
	busy();
	s.tick();
	clock.advance(milliseconds(5));
	idle();
	clock.advance(milliseconds(2));
	s.tick();
	ASSERT_FALSE(s.suspended(10));
	TimePoint resumed = clock.now();

	clock.advance(milliseconds(5));
	busy();
	s.tick();
	EXPECT_FALSE(s.suspended(10)) << "suspended inside its minimum run window";
	EXPECT_EQ(s.next_deadline(), resumed + milliseconds(20));
	clock.set(resumed + milliseconds(19));
	s.tick();
	EXPECT_FALSE(s.suspended(10));
	clock.set(resumed + milliseconds(20));
	s.tick();
	EXPECT_TRUE(s.suspended(10));
	// The log line's latency runs from the window's end, when it became due.
	EXPECT_TRUE(logged("\"latency_us\":0.0"));
}

TEST_F(SchedulerTest, NoBestEffortTenantIsStarvedBeyondItsWindow)
{
	s.add_best_effort(10);
	s.add_best_effort(11);
	busy(); // critical work never drains
	int64_t run_ms = 0, longest_suspend = 0, shortest_run = 1 << 30, cur = 0;
	bool was = false;
	bool first = true;
	for (int ms = 0; ms < 5000; ms++) {
		s.tick();
		bool now = s.suspended(10);
		if (now != was) {
			if (now && !first)
				shortest_run = std::min(shortest_run, cur);
			first = false;
			cur = 0;
			was = now;
		}
		cur++;
		if (now)
			longest_suspend = std::max(longest_suspend, cur);
		else
			run_ms++;
		EXPECT_EQ(s.suspended(10), s.suspended(11));
		clock.advance(milliseconds(1));
	}
	EXPECT_LE(longest_suspend, 200);
	EXPECT_GE(shortest_run, 20);
	// At least min_run out of every max_suspend + min_run.
	EXPECT_GE(double(run_ms) / 5000, 20.0 / 220 * 0.95);
	EXPECT_TRUE(logged("\"reason\":\"max_suspend\""));
}

TEST_F(SchedulerTest, UnknownPidIsDroppedAndTheOthersAreSuspended)
{
	s.add_best_effort(10);
	s.add_best_effort(99); // not a process the backend knows: ESRCH
	busy();
	s.tick();
	// Each pid on its own (the kfd ioctl): one call, 10 done, 99 refused.
	ASSERT_EQ(count("suspend"), 1u);
	EXPECT_EQ(backend.calls[0].err, ESRCH);
	EXPECT_TRUE(s.suspended(10));
	EXPECT_TRUE(backend.suspended(10));
	EXPECT_EQ(s.best_effort_count(), 1u);
	EXPECT_TRUE(logged("\"event\":\"tenant_gone\""));
	EXPECT_TRUE(logged("\"done\":[10]"));
	EXPECT_EQ(backend.preemption_cycles, 1);
}

TEST_F(SchedulerTest, ABackendThatChangesNothingOnARefusalIsCalledAgainWithoutIt)
{
	backend.all_or_nothing = true; // the drain backend's suspend
	s.add_best_effort(10);
	s.add_best_effort(99);
	busy();
	s.tick();
	ASSERT_EQ(count("suspend"), 2u);
	EXPECT_EQ(backend.calls[0].err, ESRCH);
	EXPECT_EQ(backend.calls[1].pids, (std::vector<pid_t>{10}));
	EXPECT_TRUE(s.suspended(10));
	EXPECT_EQ(s.best_effort_count(), 1u);
	EXPECT_TRUE(logged("retrying without the refused pids"));
	EXPECT_EQ(backend.preemption_cycles, 1) << "the refused call must not have changed anything";
}

TEST_F(SchedulerTest, ATenantHeldByAnotherControllerIsNotFought)
{
	backend.add_process(12);
	backend.hold_by_other(12);
	s.add_best_effort(12);
	EXPECT_TRUE(logged("\"event\":\"suspended_by_other\""));
	EXPECT_FALSE(s.suspended(12));
	busy();
	s.tick();
	EXPECT_EQ(backend.calls.at(0).err, EBUSY);
	EXPECT_FALSE(s.suspended(12));
	clock.advance(milliseconds(10));
	s.tick();
	EXPECT_EQ(backend.calls.size(), 1u) << "retried inside the window";
	backend.release_other(12); // the other controller let go
	clock.advance(milliseconds(10));
	s.tick();
	EXPECT_TRUE(s.suspended(12));
}

TEST_F(SchedulerTest, AResumeAfterAResetReleasesAndSaysSo)
{
	s.add_best_effort(10);
	busy();
	s.tick();
	backend.reset(10);
	clock.advance(milliseconds(5));
	idle();
	clock.advance(milliseconds(2));
	s.tick();
	EXPECT_FALSE(s.suspended(10));
	EXPECT_FALSE(backend.suspended(10));
	EXPECT_TRUE(logged("\"event\":\"reset\""));
	EXPECT_FALSE(s.fatal());
	EXPECT_TRUE(s.shutdown("test"));
}

TEST_F(SchedulerTest, EpermStopsTheSchedulerAndChangesNothing)
{
	s.add_best_effort(10);
	backend.fail_all = EPERM;
	busy();
	s.tick();
	EXPECT_TRUE(s.fatal());
	EXPECT_NE(s.fatal_message().find("EPERM"), std::string::npos);
	EXPECT_FALSE(s.suspended(10));
	EXPECT_TRUE(backend.suspended_set().empty());
	size_t calls = backend.calls.size();
	clock.advance(milliseconds(50));
	s.tick();
	EXPECT_EQ(backend.calls.size(), calls);
	EXPECT_TRUE(logged("\"state\":\"unchanged\""));
}

TEST_F(SchedulerTest, ANonKfdProcessIsRetriedAfterItsWindow)
{
	backend.add_process(12, false);
	s.add_best_effort(12);
	busy();
	s.tick();
	EXPECT_EQ(backend.calls.at(0).err, ENOENT);
	EXPECT_FALSE(s.suspended(12));
	EXPECT_TRUE(logged("\"event\":\"not_kfd\""));
	clock.advance(milliseconds(10));
	s.tick();
	EXPECT_EQ(backend.calls.size(), 1u) << "retried inside the window";
	backend.add_process(12, true); // it opened /dev/kfd
	clock.advance(milliseconds(10));
	s.tick();
	EXPECT_TRUE(s.suspended(12));
}

TEST_F(SchedulerTest, TenantExitingWhileSuspendedIsForgotten)
{
	s.add_best_effort(10);
	s.add_best_effort(11);
	busy();
	s.tick();
	backend.exit_process(10); // the kernel drops its state at exit
	clock.advance(milliseconds(5));
	idle();
	clock.advance(milliseconds(2));
	s.tick();
	EXPECT_FALSE(s.suspended(11));
	EXPECT_TRUE(backend.suspended_set().empty());
	EXPECT_EQ(s.best_effort_count(), 1u);
	EXPECT_TRUE(logged("\"was\":\"suspended\""));
	EXPECT_TRUE(s.shutdown("test"));
}

TEST_F(SchedulerTest, ReapForgetsDeadTenantsWithoutACall)
{
	s.add_best_effort(10);
	s.add_best_effort(11);
	busy(7);
	s.tick();
	size_t calls = backend.calls.size();
	s.reap([](pid_t p) { return p != 11 && p != 7; }); // 11 and the critical tenant died
	EXPECT_EQ(backend.calls.size(), calls);
	EXPECT_EQ(s.best_effort_count(), 1u);
	EXPECT_FALSE(s.critical_pending()) << "a dead critical tenant is idle";
	EXPECT_TRUE(logged("\"event\":\"critical_gone\""));
}

TEST_F(SchedulerTest, HungPreemptionCountsAsSuspendedAndIsResumedAtShutdown)
{
	s.add_best_effort(10);
	backend.fail_next_suspend = ETIME;
	busy();
	s.tick();
	EXPECT_TRUE(s.suspended(10));
	EXPECT_FALSE(s.fatal());
	EXPECT_TRUE(logged("ETIME"));
	EXPECT_TRUE(logged("committed by the kernel"));
	EXPECT_TRUE(s.shutdown("test"));
	EXPECT_TRUE(backend.suspended_set().empty());
}

TEST_F(SchedulerTest, ShutdownResumesEverythingItSuspended)
{
	s.add_best_effort(10);
	s.add_best_effort(11);
	busy();
	s.tick();
	ASSERT_EQ(backend.suspended_set().size(), 2u);
	EXPECT_TRUE(s.shutdown("SIGTERM"));
	EXPECT_TRUE(backend.suspended_set().empty());
	EXPECT_EQ(backend.calls.back().op, "resume");
	EXPECT_EQ(backend.calls.back().pids.size(), 2u);
	EXPECT_NE(log.lines().back().find("\"left_suspended\":0"), std::string::npos);
}

TEST_F(SchedulerTest, ShutdownAfterEpermStillTriesToResume)
{
	s.add_best_effort(10);
	busy();
	s.tick();
	backend.fail_all = EPERM;
	EXPECT_FALSE(s.shutdown("SIGINT"));
	EXPECT_NE(log.lines().back().find("\"left_suspended\":1"), std::string::npos);
}

TEST_F(SchedulerTest, DecisionLineCarriesItsLatency)
{
	s.add_best_effort(10);
	busy();
	clock.advance(milliseconds(3)); // the daemon woke 3 ms after the report
	s.tick();
	const std::string& l = log.lines().back();
	EXPECT_NE(l.find("\"event\":\"suspend\""), std::string::npos) << l;
	EXPECT_NE(l.find("\"latency_us\":3000.0"), std::string::npos) << l;
	EXPECT_NE(l.find("\"call_us\":0.0"), std::string::npos) << l;
	EXPECT_NE(l.find("\"kernel_wait_us\":250.0"), std::string::npos) << l;
	EXPECT_NE(l.find("\"result\":\"ok\""), std::string::npos) << l;
}

TEST_F(SchedulerTest, CriticalPendingWhileAnyCriticalTenantIsBusy)
{
	busy(1);
	busy(2);
	idle(1);
	EXPECT_TRUE(s.critical_pending());
	idle(2);
	EXPECT_FALSE(s.critical_pending());
}

TEST(Params, RejectsAZeroRunWindow)
{
	Params p;
	p.min_run = Duration(0);
	EXPECT_NE(check_params(p), "");
	EXPECT_EQ(check_params(Params{}), "");
}
