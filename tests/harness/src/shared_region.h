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
	uint32_t latency_capacity; // latency samples kept per worker
	uint64_t warmup_ns;
	uint64_t duration_ns;
	uint64_t init_timeout_ns; // workers give up waiting at the barrier after this
	WorkloadParams params;
};

struct WorkerSlot {
	std::atomic<WorkerState> state;
	int32_t pid;
	uint64_t first_query_ns;   // start of the first query after release
	uint64_t measure_begin_ns; // start of the first measured query
	uint64_t measure_end_ns;   // end of the last measured query
	uint64_t queries;          // measured queries
	uint64_t samples;          // latencies recorded (<= latency_capacity)
	char device[96];
	char error[256];
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
	uint64_t* latencies(uint32_t i) const; // latency_capacity entries, ns

private:
	SharedRegion(int fd, void* base, size_t size) : fd_(fd), base_(base), size_(size) {}
	int fd_;
	void* base_;
	size_t size_;
};

} // namespace kfdmp
