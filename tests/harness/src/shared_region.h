// Layout of the memory the launcher shares with its workers, and the RAII
// owner of the mapping. The region is a memfd: it has no name in /dev/shm,
// the workers inherit the descriptor across exec, and it disappears with the
// last process that maps it, so nothing can be left behind.
#pragma once
#include "barrier.h"
#include "workload.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace kfdmp {

enum class WorkerState : uint32_t {
	spawned,      // forked, not yet attached
	initialising, // attached, creating the workload (GPU context)
	ready,        // waiting at the start barrier
	running,      // released, running queries
	verifying,    // measurement over, checking results
	done,         // finished successfully
	failed,       // gave up; error holds the reason
};
const char* to_string(WorkerState s);

struct RunConfig {
	uint32_t workers;
	uint32_t latency_capacity; // query records kept per worker
	uint64_t warmup_ns;
	uint64_t duration_ns;
	uint64_t init_timeout_ns; // workers give up waiting at the barrier after this
	uint64_t bin_ns;          // time-series bin (100 ms)
	uint32_t stamp_every;     // GPU-stamp the queries of every k-th bin (0: none)
	WorkloadParams params;    // default for every worker (WorkerSlot::params)
};

// One query of a worker: host CLOCK_MONOTONIC start (open loop: the
// scheduled arrival) and end, host submission time, and whether its
// kernels were GPU-stamped, and the device time of its work when the
// workload measures it (Workload::gpu_time(), else 0). Recorded for every
// query that ends after the window opened.
struct QueryRecord {
	uint64_t start_ns, end_ns;
	uint32_t submit_ns;
	uint32_t stamped;
	uint64_t gpu_ns = 0;
};

struct WorkerSlot {
	std::atomic<WorkerState> state;
	int32_t pid;
	WorkloadParams params;     // this worker's workload (set by the launcher)
	uint64_t first_query_ns;   // start of the first query after release
	uint64_t measure_begin_ns; // start of the first measured query
	uint64_t measure_end_ns;   // end of the last measured query
	uint64_t queries;          // measured queries (started inside the window)
	uint64_t samples;          // query records (<= latency_capacity)
	uint64_t records_dropped;  // queries not recorded for lack of capacity
	uint64_t stamps;           // kernel stamps (<= params.stamp_capacity)
	double work_per_query, peak_work_rate;
	uint32_t gpu_time;         // 1: records carry gpu_ns
	int32_t child_pgid;        // exec worker: its command's process group (0: none)
	char work_unit[16];
	char device[160];
	char activity[160];        // what the worker waits for (exec: "done 17 from the command")
	char error[512];
};

struct RegionHeader {
	uint64_t magic;
	uint64_t size;
	RunConfig config;
	ShmBarrier barrier; // workers + the launcher
};

class SharedRegion {
public:
	// Creates and initialises a region for config.workers workers.
	static SharedRegion create(const RunConfig& config);
	// Maps the region behind an inherited descriptor (in a worker).
	static SharedRegion attach(int fd);

	SharedRegion(SharedRegion&& other) noexcept;
	SharedRegion& operator=(SharedRegion&&) = delete;
	~SharedRegion();

	int fd() const { return fd_; }
	RegionHeader& header() const { return *static_cast<RegionHeader*>(base_); }
	WorkerSlot& slot(uint32_t i) const;
	QueryRecord* records(uint32_t i) const; // latency_capacity entries
	KernelStamp* stamps(uint32_t i) const;  // params.stamp_capacity entries

private:
	SharedRegion(int fd, void* base, size_t size) : fd_(fd), base_(base), size_(size) {}
	int fd_;
	void* base_;
	size_t size_;
};

} // namespace kfdmp
