// The GPU workloads (gpu_workloads.cpp, HIP source built by hipcc or nvcc).
#pragma once
#include "workload.h"

#include <memory>
#include <string>

namespace kfdmp {

// latency | saturate | copy | mixed; throws Unavailable without a GPU and
// std::invalid_argument for an unknown name or impossible parameters.
std::unique_ptr<Workload> make_gpu_workload(const WorkloadParams& p);

// "N device(s); device 0: NAME ..." or throws Unavailable.
std::string probe_gpu();

} // namespace kfdmp
