// The interface every workload implements, and the parameters the launcher
// passes to the workers through shared memory (hence plain fixed-size data).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace kfdmp {

// Zero means "the workload's default" for every numeric field.
struct WorkloadParams {
	char name[32];
	uint32_t kernels;    // kernels per query (latency, saturate, mixed)
	uint32_t iters;      // FMA iterations per thread and kernel
	uint32_t blocks;     // blocks per kernel; hsa: workgroups per dispatch
	uint32_t threads;    // threads per block
	uint64_t bytes;      // copy: bytes per direction
	uint32_t cus;        // restrict the stream to the first N CUs (HIP only)
	uint32_t split_index, split_count; // --cu-split: CU range index of split_count
	uint32_t split_xccs; // --cu-split-xcc: XCCs to balance over (0: contiguous range)
	uint32_t hsa_queues; // hsa: AQL queues per process
	uint32_t streams;    // streams per process; each runs its own kernel chain
	uint32_t graph;      // 1: replay the query as a captured graph
	uint32_t gemm_m, gemm_n, gemm_k; // gemm: matrix sizes
	uint32_t stamp_capacity; // GPU-stamped kernels kept per worker (0: none)
	double rate;         // open-loop Poisson arrivals per second (0: closed loop)
	int32_t priority;    // stream priority: > 0 the device's highest, < 0 its lowest, 0 default
	char code_object[256]; // hsa: code object path, empty = next to the worker
	char notify_socket[108]; // open loop: send busy/idle here (kfdmp-sched), empty = none
	// exec workloads (kfdmp-exec-worker, docs/exec-workers.md): the shell
	// command, and this process's arm as protocol lines ("env K=V" and
	// "option K=V", newline-separated) computed by the launcher.
	char command[1024];
	char exec_config[1024];
};

// Start and end of one kernel on the device clock (ns, common to every
// process on the device), and the 100 ms bin of the query it belongs to.
struct KernelStamp {
	uint64_t start_ns, end_ns;
	uint32_t bin;
	uint32_t kernel; // index in its query
	uint32_t query = 0; // index of its query among the worker's stamped queries
	uint32_t reserved = 0;
};

class Workload {
public:
	virtual ~Workload() = default;
	// One unit of work, ended by a synchronise. Throws on a GPU error.
	virtual void query() = 0;
	// Runs one more query on fresh (poisoned) outputs and checks every
	// result on the CPU; throws VerifyError on a mismatch.
	virtual void verify() = 0;
	// The device the workload runs on, for the report.
	virtual std::string device() const = 0;

	// GPU-side timestamps. When stamps() returns true, the workload records
	// the device-clock start and end of every kernel of the queries run
	// between stamp_queries(bin) and stamp_queries(-1); collect_stamps()
	// copies them out after the window. Workloads without them keep the
	// defaults.
	virtual bool stamps() const { return false; }
	virtual void stamp_queries(int64_t /*bin*/) {}
	virtual size_t collect_stamps(KernelStamp* /*out*/, size_t /*capacity*/) { return 0; }
	// Work of one query, for the achieved-rate figure: FMA operations (or
	// bytes moved) and the device's peak rate of the same unit; 0 = unknown.
	virtual double work_per_query() const { return 0; }
	virtual double peak_work_rate() const { return 0; }
	virtual const char* work_unit() const { return ""; }
	// Host time spent submitting the last query (launch calls up to the
	// synchronise), ns; 0 = not measured.
	virtual uint64_t last_submit_ns() const { return 0; }
	// Device time of the last query's work (ns), when gpu_time() is true
	// (exec workers whose command answers `ready gpu_time=1`).
	virtual bool gpu_time() const { return false; }
	virtual uint64_t last_gpu_ns() const { return 0; }
};

struct VerifyError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// The workload could not start because what it needs is absent (no GPU, no
// HSA agent, unsupported option): reported as a skip reason, not a crash.
struct Unavailable : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Implemented once per worker binary (GPU, HSA, test).
using WorkloadFactory = std::unique_ptr<Workload> (*)(const WorkloadParams&);

} // namespace kfdmp
