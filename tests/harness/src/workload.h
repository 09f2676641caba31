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
	uint32_t hsa_queues; // hsa: AQL queues per process
	char code_object[256]; // hsa: code object path, empty = next to the worker
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
