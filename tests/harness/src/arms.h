// The per-process arms of a run (issue 24): which binary each process runs
// (built-in worker, kfdmp-exec-worker, idle processes), its CPU threads,
// its CPU pinning and, for exec workers, the env/option lines that carry
// every arm to the command (docs/exec-workers.md). An arm a workload cannot
// take makes the run skip with the reason; nothing silently runs as stock.
#pragma once
#include "json.h"
#include "launcher.h"
#include "options.h"

#include <string>
#include <vector>

namespace kfdmp {

// --cpu-threads for `procs` counted processes: the thread count, or 0 for
// "default" (nothing set). auto = online CPUs / processes, at least 1.
uint32_t cpu_threads_for(const std::string& mode, uint32_t procs, uint32_t online_cpus);

// The CPU list (sysfs syntax) of the NUMA node of GPU `ordinal` (the
// ordinal-th GPU of the KFD topology, else of the NVIDIA PCI functions in
// BDF order); "" with `why` set when it cannot be determined.
std::string gpu_numa_cpus(const std::string& sysfs_root, const std::string& kfd_sysfs, uint32_t ordinal,
			  std::string& why);

// CUs of GPU `ordinal` from the KFD topology (simd_count / simd_per_cu);
// 0 with `why` set when unknown.
uint32_t gpu_cu_count(const std::string& kfd_sysfs, uint32_t ordinal, std::string& why);

// ROCr's HSA_CU_MASK value "GPU:LIST" for a mask (cu_split_mask()): the
// CU_list as base-10 ranges (ROCr src/core/util/flag.cpp parse_masks()).
std::string hsa_cu_mask_value(uint32_t gpu, const std::vector<uint32_t>& mask);
// Number of set bits of a mask.
uint32_t mask_cus(const std::vector<uint32_t>& mask);

// Applies the process arms of `o` to a launch of `procs` counted processes
// (spec.worker_params: one per counted worker, or empty = config.params for
// all), appending o.idle_procs idle workers. Returns "" or why the run
// cannot take an arm (the run is skipped with that reason). `record` gets
// what each process got (JSON "arms").
std::string apply_process_arms(const Options& o, uint32_t procs, LaunchSpec& spec, json::Value& record);

// Moves the idle workers (index >= counted) out of r.workers into r.idle;
// a failed idle worker fails the run.
void split_idle_workers(LaunchResult& r, uint32_t counted);

} // namespace kfdmp
