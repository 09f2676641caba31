// What the JSON records about the machine a run was measured on. Every
// value that cannot be read is recorded as {"unavailable": reason}, never as
// 0 or "".
#pragma once
#include "json.h"
#include "kfd_probe.h"

#include <string>

namespace kfdmp {

struct EnvPaths {
	std::string sys = "/sys";   // module parameters, DRM partition modes
	std::string proc = "/proc"; // NVIDIA driver version
	std::string rocm = "/opt/rocm";
	std::string kfd_sysfs = "/sys/class/kfd/kfd";
	bool run_tools = true;      // nvidia-smi for clocks and MPS
	static EnvPaths for_kfd(const KfdPaths& k);
};

// {"value"} or {"unavailable": why} of a one-line file.
json::Value read_value(const std::string& path);

json::Value capture_environment(const EnvPaths& p);

} // namespace kfdmp
