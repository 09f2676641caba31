// Window aggregation and the GPU breakdown on synthetic timelines: exact
// numbers, no timing.
#include "analysis.h"
#include "report.h"
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
	EXPECT_NEAR(g.any_resident_fraction, 1.0, 1e-9);
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
	EXPECT_NEAR(g.any_resident_fraction, 200.0 / 770.0, 1e-9);
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
	one.any_resident_fraction = 0.9;
	one.concurrency = 1;
	one.mean_kernel_us = 100;
	// N: device idle half the time, kernels as fast as alone -> all idle.
	GpuBreakdown idle = one;
	idle.any_resident_fraction = 0.45;
	LossSplit s = loss_split(one, idle);
	EXPECT_NEAR(s.model_ratio, 0.5, 1e-9);
	EXPECT_NEAR(s.idle_share, 1.0, 1e-9);
	EXPECT_NEAR(s.contention_share, 0.0, 1e-9);
	// N: device fully busy, kernels 25% slower -> mostly contention, busy gained.
	GpuBreakdown cont = one;
	cont.any_resident_fraction = 0.9;
	cont.mean_kernel_us = 125;
	s = loss_split(one, cont);
	EXPECT_NEAR(s.model_ratio, 0.8, 1e-9);
	EXPECT_NEAR(s.slowdown, 1.25, 1e-9);
	EXPECT_NEAR(s.contention_share, 1.0, 1e-9);
	EXPECT_NEAR(s.idle_share, 0.0, 1e-9);
	// Without a 1-process breakdown there is nothing to compare.
	EXPECT_TRUE(std::isnan(loss_split(GpuBreakdown{}, cont).model_ratio));
}

// --- issue 17: attribution where tenants overlap -----------------------------

namespace {

// n queries of k kernels (len each, gap between them) of one process; the
// device clock runs `offset` behind the host clock; each query starts on the
// host `wait` before its first kernel and ends `notify` after its last.
struct Timeline {
	std::vector<QueryRecord> recs;
	std::vector<KernelStamp> st;
};
Timeline queries(uint64_t from, int n, int k, uint64_t len, uint64_t gap, uint64_t wait, uint64_t notify,
		 uint64_t offset, uint64_t every = 0)
{
	Timeline t;
	const uint64_t qlen = wait + k * len + (k - 1) * gap + notify;
	if (every == 0)
		every = qlen;
	for (int q = 0; q < n; ++q) {
		const uint64_t h0 = from + q * every;
		t.recs.push_back({h0, h0 + qlen, 1000, 1});
		for (int i = 0; i < k; ++i) {
			const uint64_t a = h0 + wait + i * (len + gap) - offset;
			t.st.push_back({a, a + len, 0, uint32_t(i), uint32_t(q)});
		}
	}
	return t;
}

} // namespace

TEST(Attribution, TimeSlicedProcessesAreEachAbsentHalfTheTime)
{
	// Two processes alternating: some kernel is always resident (the old
	// "busy fraction" says 1), but each process has none resident half the time.
	const auto a = kernels(t0, 10'000, 10'000, 50);
	const auto b = kernels(t0 + 10'000, 10'000, 10'000, 50);
	GpuBreakdown g = gpu_breakdown({a, b}, {{}, {}}, t0, t0 + 100 * ms);
	ASSERT_TRUE(g.available);
	EXPECT_NEAR(g.any_resident_fraction, 1.0, 1e-9);
	ASSERT_EQ(g.procs.size(), 2u);
	EXPECT_NEAR(g.procs[0].not_resident_fraction, 0.5, 0.01);
	EXPECT_NEAR(g.procs[1].not_resident_fraction, 0.5, 0.01);
	EXPECT_NEAR(g.not_resident_fraction, 0.5, 0.01);
	set_kernel_inflation(g, {10, 10});
	EXPECT_NEAR(g.kernel_inflation, 1.0, 1e-9); // time slicing: kernels as fast as alone
}

TEST(Attribution, OverlappingTenantsShowInflationNotIdleness)
{
	// Two processes whose kernels overlap and take 20 us instead of 10 alone:
	// resident all the time, inflation 2 (the AMD case the old figure hid).
	const auto a = kernels(t0, 20'000, 0, 50);
	GpuBreakdown g = gpu_breakdown({a, a}, {{}, {}}, t0, t0 + 100 * ms);
	ASSERT_TRUE(g.available);
	EXPECT_NEAR(g.any_resident_fraction, 1.0, 1e-9);
	EXPECT_NEAR(g.procs[0].not_resident_fraction, 0.0, 1e-9);
	set_kernel_inflation(g, {10, 10});
	EXPECT_NEAR(g.procs[0].kernel_inflation, 2.0, 1e-9);
	EXPECT_NEAR(g.kernel_inflation, 2.0, 1e-9);
	// Unknown solo time: no inflation figure rather than a wrong one.
	set_kernel_inflation(g, {NAN, 0});
	EXPECT_TRUE(std::isnan(g.kernel_inflation));
}

TEST(Attribution, QueryLatencySplitsIntoWaitResidentGapsAndNotification)
{
	// 3 kernels of 10 us with 5 us gaps; the host starts 40 us before the
	// first kernel on most queries (20 us on none: the wait varies), the
	// completion is seen 4 us after the last kernel; device clock 1 s behind.
	Timeline t = queries(t0, 20, 3, 10'000, 5'000, 40'000, 4'000, 1000 * ms, 200'000);
	GpuBreakdown g = gpu_breakdown({t.st}, {t.recs}, t0, t0 + 100 * ms);
	const ProcessAttribution& p = g.procs.at(0);
	EXPECT_EQ(p.queries, 20u);
	EXPECT_NEAR(p.query_us, 84, 1e-6);
	EXPECT_NEAR(p.resident_us, 30, 1e-6);
	EXPECT_NEAR(p.in_query_gap_us, 10, 1e-6);
	// Aligned at the quickest completion (4 us, the same for all): the wait
	// is overstated by exactly that 4 us and the notification reads 0.
	EXPECT_NEAR(p.submit_to_start_us, 44, 1e-6);
	EXPECT_NEAR(p.end_to_host_us, 0, 1e-6);
	EXPECT_NEAR(p.submit_to_start_us + p.resident_us + p.in_query_gap_us + p.end_to_host_us, p.query_us, 1e-6);
	EXPECT_NEAR(g.submit_to_start_us, 44, 1e-6);
}

TEST(Attribution, StampedQueriesBeyondTheStampCapacityAreNotMatched)
{
	// Records marked stamped past the last stamped query (capacity reached)
	// have no stamps and are left out instead of being paired wrongly.
	Timeline t = queries(t0, 5, 2, 10'000, 0, 10'000, 2'000, 0, 100'000);
	for (int q = 0; q < 3; ++q)
		t.recs.push_back({t0 + (5 + q) * 100'000, t0 + (5 + q) * 100'000 + 50'000, 1000, 1});
	GpuBreakdown g = gpu_breakdown({t.st}, {t.recs}, t0, t0 + 100 * ms);
	EXPECT_EQ(g.procs.at(0).queries, 5u);
	EXPECT_NEAR(g.procs[0].query_us, 32, 1e-6);
}

TEST(Window, AutoBinJudgesStarvationAtTheBoxRate)
{
	// 8 workers at 11 QPS for 3 s: a 100 ms bin holds 1.1 queries per worker,
	// too few to judge; the automatic bin is long enough for 4.
	const uint64_t period = 1'000'000'000 / 11;
	std::vector<std::vector<QueryRecord>> r;
	for (int w = 0; w < 8; ++w)
		r.push_back(steady(t0 + w * ms, t0 + 3000 * ms + period, period));
	// worker 7 gets nothing in the first second
	r[7] = steady(t0 + 1000 * ms, t0 + 3000 * ms + period, period);
	const WindowMetrics fixed = window_metrics(r, t0, t0 + 3000 * ms, 100 * ms);
	EXPECT_FALSE(fixed.judged);
	EXPECT_FALSE(fixed.any_starved());
	const WindowMetrics m = window_metrics(r, t0, t0 + 3000 * ms, 0);
	EXPECT_TRUE(m.auto_bin);
	EXPECT_GE(m.bin_ns, 360 * ms);
	EXPECT_LE(m.bin_ns, 400 * ms);
	EXPECT_TRUE(m.judged);
	EXPECT_FALSE(m.workers[7].starved_bins.empty());
	EXPECT_EQ(m.workers[7].starved_bins.front(), 0u);
	for (int w = 0; w < 7; ++w)
		EXPECT_TRUE(m.workers[w].starved_bins.empty()) << w;
	// A fast run keeps the 100 ms floor.
	const WindowMetrics fast = window_metrics({steady(t0, t0 + 1000 * ms, ms)}, t0, t0 + 1000 * ms, 0);
	EXPECT_EQ(fast.bin_ns, 100 * ms);
}

TEST(Window, UnrecordedQueriesAreCounted)
{
	const WindowMetrics m = window_metrics({steady(t0, t0 + 100 * ms, ms)}, t0, t0 + 100 * ms, 10 * ms, 7);
	EXPECT_EQ(m.unrecorded, 7u);
	EXPECT_NEAR(m.aggregate_qps, 990, 1e-6); // 99 end inside [t0, t0 + 100 ms) // recorded only: a lower bound, flagged by unrecorded
}

namespace {

kfdmp::Run solo_or_mix(std::vector<std::pair<std::string, uint64_t>> workers, const std::string& mix)
{
	// Each worker: 50 back-to-back queries of one kernel of the given length.
	kfdmp::Run r;
	r.procs = uint32_t(workers.size());
	r.tenant_mix = mix;
	r.launch.release_ns = t0 - ms;
	r.launch.window_begin_ns = t0;
	r.launch.window_end_ns = t0 + 100 * ms;
	for (size_t i = 0; i < workers.size(); ++i) {
		WorkerOutcome w;
		w.index = uint32_t(i);
		w.status = "ok";
		w.workload = workers[i].first;
		const uint64_t len = workers[i].second;
		for (int q = 0; q < 50; ++q) {
			const uint64_t a = t0 + q * (len + 1000);
			w.records.push_back({a, a + len + 1000, 500, 1});
			w.stamps.push_back({a + 500, a + 500 + len, 0, 0, uint32_t(q)});
		}
		r.launch.workers.push_back(w);
	}
	return r;
}

} // namespace

// The H200 printed kernel slowdowns of 0.022 and 1.978 for the solo runs of
// `--mix latency:1,saturate:3`: the 1-process baseline was the mean over both
// workloads. Each workload alone is now 1, and tenants have their own inflation.
TEST(MixBaselines, AProcessAloneIsOne)
{
	std::vector<kfdmp::Run> runs;
	runs.push_back(solo_or_mix({{"latency", 10'000}}, ""));
	runs.push_back(solo_or_mix({{"saturate", 900'000}}, ""));
	runs.push_back(solo_or_mix({{"latency", 20'000}, {"saturate", 900'000}, {"saturate", 900'000}},
				   "latency:1,saturate:2"));
	compute_metrics(runs, 10 * ms);
	for (int i = 0; i < 2; ++i) {
		EXPECT_NEAR(runs[i].m.ratio, 1.0, 1e-9) << i;
		EXPECT_NEAR(runs[i].m.loss.slowdown, 1.0, 1e-9) << i;
		EXPECT_NEAR(runs[i].m.gpu.kernel_inflation, 1.0, 1e-9) << i;
	}
	const RunMetrics& mix = runs[2].m;
	EXPECT_TRUE(std::isnan(mix.loss.slowdown)); // no single workload to compare with
	ASSERT_EQ(mix.tenants.size(), 2u);
	EXPECT_EQ(mix.tenants[0].workload, "latency");
	EXPECT_NEAR(mix.tenants[0].kernel_inflation, 2.0, 1e-9);
	EXPECT_NEAR(mix.tenants[1].kernel_inflation, 1.0, 1e-9);
	EXPECT_NEAR(mix.gpu.procs.at(0).kernel_inflation, 2.0, 1e-9);
}

#include "cu_mask.h"

// MI308X SPX: 80 CUs, 4 XCCs, bit i on XCC i % 4 (mqd_symmetrically_map_cu_mask()).
TEST(CuMask, XccBalancedSplitGivesEveryProcessAnEqualShareOfEveryXcc)
{
	for (uint32_t n : {1u, 2u, 4u, 8u}) {
		std::vector<uint32_t> used(3, 0);
		for (uint32_t i = 0; i < n; ++i) {
			const auto m = cu_split_mask(80, i, n, 4);
			uint32_t per_xcc[4] = {};
			for (uint32_t bit = 0; bit < 80; ++bit)
				if (m[bit / 32] >> (bit % 32) & 1) {
					++per_xcc[bit % 4];
					EXPECT_FALSE(used[bit / 32] >> (bit % 32) & 1) << "CU " << bit << " given twice";
					used[bit / 32] |= 1u << (bit % 32);
				}
			for (int x = 1; x < 4; ++x)
				EXPECT_EQ(per_xcc[x], per_xcc[0]) << "N=" << n << " process " << i;
			EXPECT_GE(per_xcc[0], 20 / n);
		}
	}
	// The contiguous split of 80 CUs into 8: 10 bits, on XCCs 0,1,2,3,0,1,...: 3/3/2/2 CUs, unbalanced.
	const auto c = cu_split_mask(80, 0, 8, 0);
	EXPECT_EQ(c[0], 0x3ffu);
	EXPECT_THROW(cu_split_mask(80, 0, 21, 4), std::invalid_argument); // 20 CUs per XCC
	EXPECT_THROW(cu_split_mask(78, 0, 2, 4), std::invalid_argument);
}
