// Tenant mode's statistics and target checks (issue 18) on synthetic data.
#include "tenant.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kfdmp;

namespace {

// n samples, each `us` microseconds, plus `tail` samples of `tail_us`.
std::vector<uint64_t> lat(size_t n, double us, size_t tail = 0, double tail_us = 0)
{
	std::vector<uint64_t> v(n, uint64_t(us * 1000));
	v.insert(v.end(), tail, uint64_t(tail_us * 1000));
	return v;
}

TenantAlone alone()
{
	return {lat(1000, 6400), {{"saturate", 100.0}, {"gemm", 50.0}}};
}

TenantArmInput arm(const std::string& name, std::vector<uint64_t> crit, double sat_qps, double gemm_qps)
{
	TenantArmInput in;
	in.arm = name;
	in.status = "ok";
	in.critical_ns = std::move(crit);
	in.be_qps = {{"saturate", sat_qps}, {"gemm", gemm_qps}};
	return in;
}

} // namespace

TEST(Tenant, PassesWithinBothTargets)
{
	const auto r = judge_tenant_arm(alone(), arm("priority", lat(1000, 8000), 60, 30));
	EXPECT_NEAR(r.p99_ratio, 8000.0 / 6400.0, 1e-9);
	ASSERT_EQ(r.best_effort.size(), 2u);
	EXPECT_NEAR(r.best_effort[0].kept, 0.6, 1e-9);
	EXPECT_NEAR(r.be_kept_min, 0.6, 1e-9);
	EXPECT_EQ(r.latency_target, "pass");
	EXPECT_EQ(r.suspend_target, "unavailable: no suspends in the priority arm");
}

TEST(Tenant, FailsOnTheCriticalTail)
{
	// 2% of queries at 30 ms puts p99 at 30 ms: 4.7x alone.
	const auto r = judge_tenant_arm(alone(), arm("none", lat(980, 6400, 20, 30000), 90, 45));
	EXPECT_NEAR(r.critical.p50_us, 6400, 1e-6);
	EXPECT_NEAR(r.critical.p99_us, 30000, 1e-6);
	EXPECT_EQ(r.latency_target.rfind("fail: critical p99 4.69x", 0), 0u) << r.latency_target;
}

TEST(Tenant, FailsWhenOneBestEffortTenantStarves)
{
	const auto r = judge_tenant_arm(alone(), arm("sched", lat(1000, 6400), 90, 20));
	EXPECT_NEAR(r.be_kept_min, 0.4, 1e-9);
	EXPECT_EQ(r.latency_target.rfind("fail: a best-effort tenant keeps 0.40", 0), 0u) << r.latency_target;
}

TEST(Tenant, BoundaryValuesPass)
{
	// Exactly 1.5x and exactly 0.5 meet the targets (<= and >=).
	const auto r = judge_tenant_arm(alone(), arm("priority", lat(1000, 9600), 50, 25));
	EXPECT_EQ(r.latency_target, "pass");
}

TEST(Tenant, MissingAloneFiguresAreUnavailableNotZero)
{
	TenantAlone a = alone();
	a.be_qps.pop_back(); // gemm never ran alone
	auto r = judge_tenant_arm(a, arm("none", lat(100, 7000), 60, 30));
	EXPECT_TRUE(std::isnan(r.best_effort[1].kept));
	EXPECT_TRUE(std::isnan(r.be_kept_min));
	EXPECT_EQ(r.latency_target, "unavailable: a best-effort tenant has no throughput alone");

	r = judge_tenant_arm({{}, alone().be_qps}, arm("none", lat(100, 7000), 60, 30));
	EXPECT_TRUE(std::isnan(r.p99_ratio));
	EXPECT_EQ(r.latency_target, "unavailable: no critical latencies alone");

	r = judge_tenant_arm(alone(), arm("none", {}, 60, 30));
	EXPECT_EQ(r.latency_target, "unavailable: the critical tenant completed no query in this arm");
}

TEST(Tenant, SkippedArmSaysWhy)
{
	TenantArmInput in;
	in.arm = "sched";
	in.status = "skipped";
	in.reason = "no /dev/kfd";
	const auto r = judge_tenant_arm(alone(), in);
	EXPECT_EQ(r.latency_target, "unavailable: arm skipped: no /dev/kfd");
	EXPECT_EQ(r.suspend_target, "unavailable: arm skipped: no /dev/kfd");
}

TEST(Tenant, SuspendTargetFromTransitions)
{
	auto in = arm("sched", lat(1000, 6400), 60, 30);
	in.suspend_ns = lat(990, 300, 10, 900);  // p99 between 300 and 900 us: under 1 ms
	in.resume_ns = lat(100, 150);
	auto r = judge_tenant_arm(alone(), in);
	ASSERT_TRUE(r.suspend.available);
	EXPECT_EQ(r.suspend.samples, 1000u);
	EXPECT_NEAR(r.suspend.p50_us, 300, 1e-6);
	EXPECT_LT(r.suspend.p99_us, 1000);
	EXPECT_NEAR(r.resume.p99_us, 150, 1e-6);
	EXPECT_EQ(r.suspend_target, "pass");

	in.suspend_ns = lat(900, 300, 100, 2500);
	r = judge_tenant_arm(alone(), in);
	EXPECT_EQ(r.suspend_target, "fail: suspend-to-unmapped p99 2500 us >= 1000 us");

	in.suspend_ns.clear();
	in.resume_ns.clear();
	in.transition_reason = "no amdkfd kfd_tenant_ctl trace event";
	r = judge_tenant_arm(alone(), in);
	EXPECT_FALSE(r.suspend.available);
	EXPECT_FALSE(r.resume.available);
	EXPECT_EQ(r.suspend_target, "unavailable: no amdkfd kfd_tenant_ctl trace event");
}
