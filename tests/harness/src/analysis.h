// What a run's raw records mean: queries completed in the common window,
// per-bin time series with starved and stalled intervals, and the GPU-side
// breakdown (busy fraction, overlap, kernel time, idle gaps) from the kernel
// stamps. Pure functions of the records, so they are unit-tested with
// synthetic timelines.
#pragma once
#include "shared_region.h"
#include "workload.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kfdmp {

// A bin is judged only when a worker's fair share of it is at least this
// many queries; below that an empty bin is ordinary, not starvation.
constexpr double min_expected_per_bin = 4;
// A worker is starved in a bin when it completed less than this fraction
// of its fair share (all workers' completions / workers / bins, scaled to
// the bin's length); the run is stalled in a bin when all workers together
// completed less than this fraction of the mean per bin.
constexpr double starve_fraction = 0.25;

struct WorkerWindow {
	uint64_t completions = 0;          // queries that ended inside the window
	double qps = 0;                    // completions / window length
	double span_qps = 0;               // the old figure: queries started in the window / own span
	std::vector<uint32_t> bins;        // completions per bin
	std::vector<uint32_t> starved_bins;
};

struct WindowMetrics {
	double window_s = 0;
	uint64_t bin_ns = 0;
	double aggregate_qps = 0;          // all completions inside the window / window length
	double sum_of_span_qps = 0;        // sum of the workers' own-span rates (overstates; for comparison)
	double expected_per_bin = 0;       // a worker's fair share of a full bin
	bool judged = false;               // expected_per_bin >= min_expected_per_bin
	std::vector<uint32_t> total_bins;
	std::vector<uint32_t> stalled_bins;
	std::vector<WorkerWindow> workers;
	bool any_starved() const;
};

// records[w]: worker w's queries; [begin, end): the common window.
WindowMetrics window_metrics(const std::vector<std::vector<QueryRecord>>& records, uint64_t begin_ns,
			     uint64_t end_ns, uint64_t bin_ns);

struct GpuBreakdown {
	bool available = false;
	std::string reason;                // why not, when !available
	uint64_t kernels = 0;              // stamped kernels
	uint64_t stamped_queries = 0, queries = 0;
	double sampled_s = 0;              // device time covered by every active worker's stamps
	double busy_fraction = 0;          // union of kernel intervals / sampled time
	double concurrency = 0;            // sum of kernel durations / union (1 = no overlap)
	double mean_kernel_us = 0;
	double mean_gap_us = 0;            // idle gap between consecutive kernels of one process
	double mean_submit_us = 0;         // host time in the launch calls per query
	double stamp_overhead_pct = 0;     // latency cost of stamping, over the whole window
};

// stamps[w] and records[w] of every worker; bins are the window's bins.
GpuBreakdown gpu_breakdown(const std::vector<std::vector<KernelStamp>>& stamps,
			   const std::vector<std::vector<QueryRecord>>& records, uint64_t begin_ns, uint64_t end_ns);

// How the throughput of N processes relates to 1 process, from the two
// breakdowns: QPS is proportional to busy_fraction * concurrency /
// (kernels per query * mean kernel time), so
// ratio = idle_factor * overlap_factor / slowdown.
struct LossSplit {
	double idle_factor = 0;      // busy_N / busy_1 (< 1: the device sat idle more)
	double overlap_factor = 0;   // concurrency_N / concurrency_1
	double slowdown = 0;         // mean kernel time N / 1 (> 1: contention)
	double model_ratio = 0;      // idle_factor * overlap_factor / slowdown
	// Shares of the lost (or gained) throughput, ln(factor) / ln(model_ratio):
	// idle gaps versus contention (slowdown net of overlap). NaN when the
	// model ratio is 1.
	double idle_share = 0, contention_share = 0;
};
LossSplit loss_split(const GpuBreakdown& n1, const GpuBreakdown& n);

} // namespace kfdmp
