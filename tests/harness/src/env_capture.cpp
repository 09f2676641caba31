#include "env_capture.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/utsname.h>
#include <vector>

namespace kfdmp {
namespace {

std::string trim(std::string s)
{
	const auto b = s.find_first_not_of(" \t\r\n");
	if (b == std::string::npos)
		return "";
	return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

json::Value unavailable(const std::string& why) { return json::Value::Object{{"unavailable", why}}; }

std::vector<std::string> entries(const std::string& dir, const std::string& prefix)
{
	std::vector<std::string> v;
	if (DIR* d = opendir(dir.c_str())) {
		while (dirent* e = readdir(d))
			if (std::string(e->d_name).rfind(prefix, 0) == 0)
				v.push_back(e->d_name);
		closedir(d);
	}
	return v;
}

// Output of a command, or unavailable with its exit status.
json::Value command_output(const std::string& cmd)
{
	FILE* p = popen((cmd + " 2>&1").c_str(), "r");
	if (!p)
		return unavailable("cannot run " + cmd + ": " + std::strerror(errno));
	std::string out;
	char buf[512];
	while (fgets(buf, sizeof buf, p))
		out += buf;
	const int rc = pclose(p);
	if (rc != 0)
		return unavailable(cmd + " failed (status " + std::to_string(rc) + "): " + trim(out));
	return trim(out);
}

} // namespace

EnvPaths EnvPaths::for_kfd(const KfdPaths& k)
{
	EnvPaths p;
	p.kfd_sysfs = k.sysfs;
	return p;
}

json::Value read_value(const std::string& path)
{
	std::ifstream f(path);
	if (!f)
		return unavailable("cannot read " + path + ": " + std::strerror(errno));
	std::stringstream ss;
	ss << f.rdbuf();
	return trim(ss.str());
}

json::Value capture_environment(const EnvPaths& p)
{
	json::Value env;
	utsname u{};
	env.set("kernel_release", uname(&u) == 0 ? json::Value(u.release) : unavailable(std::strerror(errno)));

	// amdgpu
	json::Value amd;
	const std::string mod = p.sys + "/module/amdgpu";
	amd.set("module_version", read_value(mod + "/version"));
	json::Value params;
	for (const char* name : {"mes", "sched_policy", "hws_max_conc_proc", "cwsr_enable", "num_kcq"})
		params.set(name, read_value(mod + "/parameters/" + name));
	amd.set("parameters", std::move(params));
	json::Value parts = json::Value::Array{};
	for (const auto& card : entries(p.sys + "/class/drm", "card")) {
		if (card.find('-') != std::string::npos)
			continue; // connectors (card0-DP-1)
		const std::string dev = p.sys + "/class/drm/" + card + "/device/";
		json::Value c;
		c.set("card", card);
		c.set("compute_partition", read_value(dev + "current_compute_partition"));
		c.set("memory_partition", read_value(dev + "current_memory_partition"));
		parts.push(std::move(c));
	}
	amd.set("partitions", parts.array().empty() ? unavailable("no " + p.sys + "/class/drm/card*") : parts);
	json::Value nodes = json::Value::Array{};
	const std::string topo = p.kfd_sysfs + "/topology/nodes/";
	for (const auto& n : entries(topo, "")) {
		if (n == "." || n == "..")
			continue;
		const json::Value gpu = read_value(topo + n + "/gpu_id");
		if (!gpu.is_string() || gpu.string() == "0")
			continue;
		std::map<std::string, std::string> props;
		for (const auto& [k, v] : parse_properties(read_text(topo + n + "/properties").value_or("")))
			props[k] = v;
		auto prop = [&](const char* k) -> json::Value {
			const auto it = props.find(k);
			if (it == props.end())
				return unavailable(std::string("no ") + k + " in " + topo + n + "/properties");
			return json::Value(std::strtod(it->second.c_str(), nullptr));
		};
		json::Value j;
		j.set("node", n);
		j.set("gpu_id", gpu);
		j.set("gfx_target_version", prop("gfx_target_version"));
		j.set("num_xcc", prop("num_xcc"));
		j.set("num_cp_queues", prop("num_cp_queues"));
		j.set("simd_count", prop("simd_count"));
		j.set("simd_per_cu", prop("simd_per_cu"));
		if (props.count("simd_count") && props.count("simd_per_cu") && std::stod(props["simd_per_cu"]) > 0)
			j.set("cu_count", std::stod(props["simd_count"]) / std::stod(props["simd_per_cu"]));
		else
			j.set("cu_count", unavailable("needs simd_count and simd_per_cu"));
		nodes.push(std::move(j));
	}
	amd.set("kfd_nodes", nodes.array().empty() ? unavailable("no GPU node under " + topo) : nodes);
	amd.set("rocm_version", read_value(p.rocm + "/.info/version"));
	env.set("amd", std::move(amd));

	// NVIDIA
	json::Value nv;
	nv.set("driver", read_value(p.proc + "/driver/nvidia/version"));
	const char* pipe = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
	const std::string pipe_dir = pipe && *pipe ? pipe : "/tmp/nvidia-mps";
	json::Value mps;
	mps.set("pipe_directory", pipe_dir);
	mps.set("control_pipe_present", entries(pipe_dir, "control").empty() ? false : true);
	nv.set("mps", std::move(mps));
	if (p.run_tools) {
		nv.set("gpus", command_output("nvidia-smi --query-gpu=name,driver_version,compute_mode,clocks.sm,"
					      "clocks.max.sm,clocks.mem,clocks.applications.graphics,power.limit "
					      "--format=csv"));
	} else {
		nv.set("gpus", unavailable("tools not run"));
	}
	env.set("nvidia", std::move(nv));
	return env;
}

} // namespace kfdmp
