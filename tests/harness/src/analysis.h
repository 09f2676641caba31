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

// --bin auto: the bin is long enough for a worker's fair share of it to be
// min_expected_per_bin queries at the run's own rate (at least auto_min_bin_ns),
// so starvation is judged at low rates too (about 11 QPS per process: 364 ms).
constexpr uint64_t auto_min_bin_ns = 100'000'000;
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
	bool judged = false;               // expected_per_bin >= min_expected_per_bin and >= 3 bins
	bool auto_bin = false;             // bin_ns was chosen from the query rate
	uint64_t unrecorded = 0;           // queries the workers ran but could not record (record buffer full)
	std::vector<uint32_t> total_bins;
	std::vector<uint32_t> stalled_bins;
	std::vector<WorkerWindow> workers;
	bool any_starved() const;
};

// records[w]: worker w's queries; [begin, end): the common window; bin_ns 0:
// auto (see auto_min_bin_ns). unrecorded: queries the workers ran and could
// not record; they are not in aggregate_qps (a lower bound then) and counted.
WindowMetrics window_metrics(const std::vector<std::vector<QueryRecord>>& records, uint64_t begin_ns,
			     uint64_t end_ns, uint64_t bin_ns, uint64_t unrecorded = 0);

// Where one process's query time goes, from its stamped queries. The host
// clock (CLOCK_MONOTONIC) and the device clock are aligned per process at its
// quickest completion: offset = min over its stamped queries of (host end -
// device end of the last kernel). Each query's latency then splits exactly
// into submit_to_start (host start to the first kernel's start on the
// device: launch calls, doorbell, waiting for the hardware to pick the
// queue up), resident (union of its kernels), in-query gaps (between its
// kernels, none of them resident) and end_to_host (last kernel end to the
// host seeing it). The alignment makes the fastest end_to_host 0, so
// submit_to_start is an upper bound by that fastest notification latency.
struct ProcessAttribution {
	uint64_t kernels = 0, queries = 0;   // stamped kernels, stamped queries matched to records
	double mean_kernel_us = 0;           // this process's kernels, first block start to last block end
	double kernel_inflation = 0;         // mean_kernel_us / the same workload alone (set by the report; NaN: no solo run)
	double query_us = 0;                 // mean host latency of the matched queries
	double submit_to_start_us = 0;       // mean; see above
	double resident_us = 0;              // mean union of the query's kernels
	double in_query_gap_us = 0;          // mean time inside the query with none of its kernels resident
	double end_to_host_us = 0;           // mean last kernel end to host completion
	double not_resident_fraction = 0;    // sampled time with no kernel of this process resident
};

struct GpuBreakdown {
	bool available = false;
	std::string reason;                // why not, when !available
	uint64_t kernels = 0;              // stamped kernels
	uint64_t stamped_queries = 0, queries = 0;
	double sampled_s = 0;              // device time covered by every active worker's stamps
	// Union of all processes' kernel intervals / sampled time: "some kernel of
	// some process is resident". With time slicing this is how busy the device
	// is; where tenants overlap (AMD) it stays near 1 even when every kernel
	// runs at half speed, which is why the per-process figures below exist.
	double any_resident_fraction = 0;
	double concurrency = 0;            // sum of kernel durations / union (1 = no overlap)
	double mean_kernel_us = 0;
	double mean_gap_us = 0;            // idle gap between consecutive kernels of one process
	double mean_submit_us = 0;         // host time in the launch calls per query
	double stamp_overhead_pct = 0;     // latency cost of stamping, over the whole window
	std::vector<ProcessAttribution> procs; // one per worker (same order)
	// Over all processes: kernel-weighted mean inflation (set by the report),
	// query-weighted mean submit-to-start and in-query gap, mean
	// not-resident fraction.
	double kernel_inflation = 0;
	double submit_to_start_us = 0, in_query_gap_us = 0, not_resident_fraction = 0;
};

// Sets every process's kernel_inflation against solo_kernel_us[i] (the mean
// kernel time of worker i's workload run alone; <= 0 or NaN: unknown) and
// the kernel-weighted total.
void set_kernel_inflation(GpuBreakdown& g, const std::vector<double>& solo_kernel_us);

// stamps[w] and records[w] of every worker; bins are the window's bins.
GpuBreakdown gpu_breakdown(const std::vector<std::vector<KernelStamp>>& stamps,
			   const std::vector<std::vector<QueryRecord>>& records, uint64_t begin_ns, uint64_t end_ns);

// How the throughput of N processes relates to 1 process, from the two
// breakdowns: QPS is proportional to any_resident_fraction * concurrency /
// (kernels per query * mean kernel time), so
// ratio = idle_factor * overlap_factor / slowdown.
struct LossSplit {
	double idle_factor = 0;      // any_resident_N / any_resident_1 (< 1: the device sat idle more)
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
