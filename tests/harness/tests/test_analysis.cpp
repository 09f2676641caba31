// Window aggregation and the GPU breakdown on synthetic timelines: exact
// numbers, no timing.
#include "analysis.h"
#include "stats.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kfdmp;

namespace {

constexpr uint64_t ms = 1'000'000;
constexpr uint64_t t0 = 1'000 * ms; // window start

// A closed-loop worker: back-to-back queries of `period` from `from` to `to`.
std::vector<QueryRecord> steady(uint64_t from, uint64_t to, uint64_t period)
{
	std::vector<QueryRecord> v;
	for (uint64_t t = from; t + period <= to; t += period)
		v.push_back({t, t + period, 0, 0});
	return v;
}

} // namespace

// The case of the issue: a 2 s window, N=2, worker 1 blocked for the first
// half. Each worker's rate over its own span says 900 + 900 = 1800 QPS; the
// queries actually completed in the common window are 2700 / 2 s = 1350.
TEST(Window, HalfWindowStarvedWorkerIsNotOverstated)
{
	const uint64_t period = 1'000'000'000 / 900; // ns, 900 QPS
	const uint64_t end = t0 + 2000 * ms;
	const auto a = steady(t0, end + period, period);       // whole window
	const auto b = steady(t0 + 1000 * ms, end + period, period); // second half only
	const WindowMetrics m = window_metrics({a, b}, t0, end, 100 * ms);

	EXPECT_NEAR(m.sum_of_span_qps, 1800, 2);  // what the old aggregation reported
	EXPECT_NEAR(m.aggregate_qps, 1350, 1);    // what completed in the window
	EXPECT_GT(m.sum_of_span_qps / m.aggregate_qps, 1.33);
	EXPECT_NEAR(m.workers[0].qps, 900, 1);
	EXPECT_NEAR(m.workers[1].qps, 450, 1);
	EXPECT_LT(jain_index({m.workers[0].qps, m.workers[1].qps}), 0.91); // 0.9: not "fair"

	ASSERT_EQ(m.total_bins.size(), 20u);
	EXPECT_TRUE(m.judged);
	EXPECT_TRUE(m.workers[0].starved_bins.empty());
	ASSERT_EQ(m.workers[1].starved_bins.size(), 10u); // bins 0..9
	EXPECT_EQ(m.workers[1].starved_bins.front(), 0u);
	EXPECT_EQ(m.workers[1].starved_bins.back(), 9u);
	EXPECT_TRUE(m.any_starved());
	EXPECT_TRUE(m.stalled_bins.empty()); // worker 0 kept the GPU busy
}

TEST(Window, CountsOnlyCompletionsInsideTheWindow)
{
	// One query straddles each edge; only the inside ones count.
	const std::vector<QueryRecord> q = {{t0 - 5 * ms, t0 + 5 * ms, 0, 0}, // ends inside: counts
					    {t0 + 5 * ms, t0 + 50 * ms, 0, 0},
					    {t0 + 90 * ms, t0 + 110 * ms, 0, 0}}; // ends after: does not
	const WindowMetrics m = window_metrics({q}, t0, t0 + 100 * ms, 10 * ms);
	EXPECT_EQ(m.workers[0].completions, 2u);
	EXPECT_DOUBLE_EQ(m.aggregate_qps, 20);
	EXPECT_EQ(m.total_bins.size(), 10u);
	EXPECT_EQ(m.total_bins[0], 1u);
	EXPECT_EQ(m.total_bins[5], 1u);
}

TEST(Window, FlagsAStallOfTheWholeRunAndNotSlowQueries)
{
	const uint64_t end = t0 + 1000 * ms;
	auto a = steady(t0, t0 + 400 * ms, ms);
	const auto rest = steady(t0 + 600 * ms, end, ms);
	a.insert(a.end(), rest.begin(), rest.end());
	const WindowMetrics m = window_metrics({a}, t0, end, 100 * ms);
	EXPECT_EQ(m.stalled_bins, (std::vector<uint32_t>{4, 5}));
	EXPECT_EQ(m.workers[0].starved_bins, (std::vector<uint32_t>{4, 5}));

	// 30 ms queries: 3.3 per bin, below the judging threshold: no flags.
	const WindowMetrics slow = window_metrics({steady(t0, end, 30 * ms)}, t0, end, 100 * ms);
	EXPECT_FALSE(slow.judged);
	EXPECT_TRUE(slow.workers[0].starved_bins.empty());
}

TEST(Window, ScalesTheLastPartialBin)
{
	// 250 ms window of 100 ms bins: the last bin is half long and half full.
	const WindowMetrics m = window_metrics({steady(t0, t0 + 260 * ms, ms)}, t0, t0 + 250 * ms, 100 * ms);
	ASSERT_EQ(m.total_bins.size(), 3u);
	EXPECT_TRUE(m.workers[0].starved_bins.empty());
	EXPECT_TRUE(m.stalled_bins.empty());
}

namespace {

// Kernels of `len` back to back with `gap` between them, from `from`, n of them.
std::vector<KernelStamp> kernels(uint64_t from, uint64_t len, uint64_t gap, int n, uint32_t bin = 0)
{
	std::vector<KernelStamp> v;
	for (int i = 0; i < n; ++i)
		v.push_back({from + i * (len + gap), from + i * (len + gap) + len, bin, uint32_t(i)});
	return v;
}

} // namespace

TEST(GpuBreakdown, TimeSlicedKernelsFillTheDeviceWithoutOverlap)
{
	// Two processes alternating 10 us kernels: busy 100%, concurrency 1, and
	// each process sees a 10 us gap between its own kernels.
	const auto a = kernels(t0, 10'000, 10'000, 50);
	const auto b = kernels(t0 + 10'000, 10'000, 10'000, 50);
	const GpuBreakdown g = gpu_breakdown({a, b}, {{}, {}}, t0, t0 + 100 * ms);
	ASSERT_TRUE(g.available) << g.reason;
	EXPECT_NEAR(g.busy_fraction, 1.0, 1e-9);
	EXPECT_NEAR(g.concurrency, 1.0, 1e-9);
	EXPECT_NEAR(g.mean_kernel_us, 10, 1e-9);
	EXPECT_NEAR(g.mean_gap_us, 10, 1e-9);
}

TEST(GpuBreakdown, OverlapAndIdleAreSeparated)
{
	// Two processes whose 10 us kernels run at the same time, then 30 us idle.
	const auto a = kernels(t0, 10'000, 30'000, 20);
	const GpuBreakdown g = gpu_breakdown({a, a}, {{}, {}}, t0, t0 + 100 * ms);
	ASSERT_TRUE(g.available);
	// sampled span: first start to last end = 20 * 40 us - 30 us
	EXPECT_NEAR(g.busy_fraction, 200.0 / 770.0, 1e-9);
	EXPECT_NEAR(g.concurrency, 2.0, 1e-9);
	EXPECT_NEAR(g.mean_gap_us, 30, 1e-9);
}

TEST(GpuBreakdown, HostSideSubmissionAndStampingOverhead)
{
	// 10 queries, the stamped half 2% slower; submission 5 us each.
	std::vector<QueryRecord> r;
	for (int i = 0; i < 10; ++i)
		r.push_back({t0 + i * ms, t0 + i * ms + (i % 2 ? 102'000 : 100'000), 5'000, uint32_t(i % 2)});
	const GpuBreakdown g = gpu_breakdown({{}}, {r}, t0, t0 + 100 * ms);
	EXPECT_FALSE(g.available);
	EXPECT_NE(g.reason.find("no GPU kernel stamps"), std::string::npos);
	EXPECT_NEAR(g.mean_submit_us, 5, 1e-9);
	EXPECT_NEAR(g.stamp_overhead_pct, 1.0, 1e-9); // 2% on half of the queries
	EXPECT_EQ(g.stamped_queries, 5u);
}

TEST(LossSplit, AttributesLostThroughputToIdleGapsOrContention)
{
	GpuBreakdown one;
	one.available = true;
	one.busy_fraction = 0.9;
	one.concurrency = 1;
	one.mean_kernel_us = 100;
	// N: device idle half the time, kernels as fast as alone -> all idle.
	GpuBreakdown idle = one;
	idle.busy_fraction = 0.45;
	LossSplit s = loss_split(one, idle);
	EXPECT_NEAR(s.model_ratio, 0.5, 1e-9);
	EXPECT_NEAR(s.idle_share, 1.0, 1e-9);
	EXPECT_NEAR(s.contention_share, 0.0, 1e-9);
	// N: device fully busy, kernels 25% slower -> mostly contention, busy gained.
	GpuBreakdown cont = one;
	cont.busy_fraction = 0.9;
	cont.mean_kernel_us = 125;
	s = loss_split(one, cont);
	EXPECT_NEAR(s.model_ratio, 0.8, 1e-9);
	EXPECT_NEAR(s.slowdown, 1.25, 1e-9);
	EXPECT_NEAR(s.contention_share, 1.0, 1e-9);
	EXPECT_NEAR(s.idle_share, 0.0, 1e-9);
	// Without a 1-process breakdown there is nothing to compare.
	EXPECT_TRUE(std::isnan(loss_split(GpuBreakdown{}, cont).model_ratio));
}
