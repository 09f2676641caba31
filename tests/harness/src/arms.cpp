#include "arms.h"

#include "cu_mask.h"
#include "kfd_probe.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <map>
#include <unistd.h>

namespace kfdmp {
namespace {

std::string trimmed(std::string s)
{
	while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r'))
		s.pop_back();
	return s;
}

std::vector<std::string> dir_entries(const std::string& path)
{
	std::vector<std::string> names;
	if (DIR* d = opendir(path.c_str())) {
		while (dirent* e = readdir(d))
			if (e->d_name[0] != '.')
				names.emplace_back(e->d_name);
		closedir(d);
	}
	return names;
}

// GPU nodes of the KFD topology in node order: their properties.
std::vector<KeyValues> kfd_gpus(const std::string& kfd_sysfs)
{
	const std::string root = kfd_sysfs + "/topology/nodes/";
	std::vector<std::pair<long, KeyValues>> nodes;
	for (const auto& n : dir_entries(root)) {
		char* end = nullptr;
		const long id = std::strtol(n.c_str(), &end, 10);
		if (*end)
			continue;
		const auto gpu_id = read_text(root + n + "/gpu_id");
		if (!gpu_id || std::strtoull(gpu_id->c_str(), nullptr, 10) == 0)
			continue; // a CPU node
		nodes.emplace_back(id, parse_properties(read_text(root + n + "/properties").value_or("")));
	}
	std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
	std::vector<KeyValues> v;
	for (auto& n : nodes)
		v.push_back(std::move(n.second));
	return v;
}

std::string prop(const KeyValues& kv, const std::string& key)
{
	for (const auto& [k, v] : kv)
		if (k == key)
			return v;
	return "";
}

// NVIDIA display/3D controllers (class 0x03xxxx, vendor 0x10de) in BDF order.
std::vector<std::string> nvidia_bdfs(const std::string& sysfs_root)
{
	const std::string root = sysfs_root + "/bus/pci/devices/";
	std::vector<std::string> v;
	for (const auto& bdf : dir_entries(root)) {
		const std::string vendor = trimmed(read_text(root + bdf + "/vendor").value_or(""));
		const std::string cls = trimmed(read_text(root + bdf + "/class").value_or(""));
		if (vendor == "0x10de" && cls.compare(0, 4, "0x03") == 0)
			v.push_back(bdf);
	}
	std::sort(v.begin(), v.end());
	return v;
}

std::string node_cpus(const std::string& sysfs_root, const std::string& numa, const std::string& what, std::string& why)
{
	char* end = nullptr;
	const long node = std::strtol(numa.c_str(), &end, 10);
	if (numa.empty() || *end) {
		why = what + ": no numa_node";
		return "";
	}
	if (node < 0) {
		why = what + ": numa_node is " + numa + " (the platform reports no NUMA node for it)";
		return "";
	}
	const std::string path = sysfs_root + "/devices/system/node/node" + std::to_string(node) + "/cpulist";
	const std::string list = trimmed(read_text(path).value_or(""));
	if (list.empty() || parse_cpu_list(list).empty()) {
		why = path + ": unreadable or empty";
		return "";
	}
	return list;
}

// Ordinal of worker i's GPU: its --devices entry (a number) or 0.
bool gpu_ordinal(const Options& o, uint32_t i, uint32_t& ordinal, std::string& why)
{
	ordinal = 0;
	if (o.devices.empty())
		return true;
	const std::string& d = o.devices[i % o.devices.size()];
	char* end = nullptr;
	const unsigned long v = std::strtoul(d.c_str(), &end, 10);
	if (d.empty() || *end) {
		why = "device \"" + d + "\" is not an index";
		return false;
	}
	ordinal = uint32_t(v);
	return true;
}

std::string join(const std::vector<std::string>& v, const char* sep)
{
	std::string s;
	for (const auto& x : v)
		s += (s.empty() ? "" : sep) + x;
	return s;
}

} // namespace

uint32_t cpu_threads_for(const std::string& mode, uint32_t procs, uint32_t online_cpus)
{
	if (mode == "default" || mode.empty())
		return 0;
	if (mode == "auto")
		return std::max<uint32_t>(1, online_cpus / std::max<uint32_t>(1, procs));
	return uint32_t(std::strtoul(mode.c_str(), nullptr, 10));
}

std::string gpu_numa_cpus(const std::string& sysfs_root, const std::string& kfd_sysfs, uint32_t ordinal, std::string& why)
{
	const std::vector<KeyValues> amd = kfd_gpus(kfd_sysfs);
	if (!amd.empty()) {
		if (ordinal >= amd.size()) {
			why = "GPU " + std::to_string(ordinal) + " is not in the KFD topology (" + std::to_string(amd.size()) +
			      " GPUs)";
			return "";
		}
		const std::string minor = prop(amd[ordinal], "drm_render_minor");
		if (minor.empty()) {
			why = "KFD topology GPU " + std::to_string(ordinal) + " has no drm_render_minor";
			return "";
		}
		const std::string path = sysfs_root + "/class/drm/renderD" + minor + "/device/numa_node";
		return node_cpus(sysfs_root, trimmed(read_text(path).value_or("")), path, why);
	}
	const std::vector<std::string> nv = nvidia_bdfs(sysfs_root);
	if (!nv.empty()) {
		if (ordinal >= nv.size()) {
			why = "GPU " + std::to_string(ordinal) + ": only " + std::to_string(nv.size()) + " NVIDIA GPUs in " +
			      sysfs_root + "/bus/pci/devices";
			return "";
		}
		const std::string path = sysfs_root + "/bus/pci/devices/" + nv[ordinal] + "/numa_node";
		return node_cpus(sysfs_root, trimmed(read_text(path).value_or("")), path, why);
	}
	why = "no GPU in " + kfd_sysfs + "/topology (AMD) or " + sysfs_root + "/bus/pci/devices (NVIDIA)";
	return "";
}

uint32_t gpu_cu_count(const std::string& kfd_sysfs, uint32_t ordinal, std::string& why)
{
	const std::vector<KeyValues> amd = kfd_gpus(kfd_sysfs);
	if (ordinal >= amd.size()) {
		why = amd.empty() ? "no AMD GPU in " + kfd_sysfs + "/topology (HSA_CU_MASK is ROCr's; CUDA has no CU mask)"
				  : "GPU " + std::to_string(ordinal) + " is not in the KFD topology";
		return 0;
	}
	const unsigned long simds = std::strtoul(prop(amd[ordinal], "simd_count").c_str(), nullptr, 10);
	unsigned long per_cu = std::strtoul(prop(amd[ordinal], "simd_per_cu").c_str(), nullptr, 10);
	if (!per_cu)
		per_cu = 4;
	if (!simds) {
		why = "KFD topology GPU " + std::to_string(ordinal) + " has no simd_count";
		return 0;
	}
	return uint32_t(simds / per_cu);
}

std::string hsa_cu_mask_value(uint32_t gpu, const std::vector<uint32_t>& mask)
{
	std::vector<std::string> ranges;
	const uint32_t bits = uint32_t(mask.size() * 32);
	for (uint32_t b = 0; b < bits;) {
		if (!(mask[b / 32] >> (b % 32) & 1)) {
			++b;
			continue;
		}
		uint32_t e = b;
		while (e + 1 < bits && (mask[(e + 1) / 32] >> ((e + 1) % 32) & 1))
			++e;
		ranges.push_back(e == b ? std::to_string(b) : std::to_string(b) + "-" + std::to_string(e));
		b = e + 1;
	}
	return std::to_string(gpu) + ":" + join(ranges, ",");
}

uint32_t mask_cus(const std::vector<uint32_t>& mask)
{
	uint32_t n = 0;
	for (uint32_t w : mask)
		n += uint32_t(__builtin_popcount(w));
	return n;
}

std::string apply_process_arms(const Options& o, uint32_t procs, LaunchSpec& spec, json::Value& record)
{
	const std::string dir = self_dir();
	if (spec.worker_params.empty())
		spec.worker_params.assign(procs, spec.config.params);
	// --idle-procs: K more processes of the built-in idle workload.
	for (uint32_t k = 0; k < o.idle_procs; ++k) {
		WorkloadParams p = spec.config.params;
		std::snprintf(p.name, sizeof p.name, "idle");
		p.rate = 0;
		p.split_index = p.split_count = p.split_xccs = 0;
		p.cus = 0;
		p.graph = 0;
		p.notify_socket[0] = '\0';
		spec.worker_params.push_back(p);
	}
	const uint32_t total = uint32_t(spec.worker_params.size());
	spec.config.workers = total;
	spec.worker_bins.assign(total, "");
	spec.worker_cpus.assign(total, "");
	if (o.idle_procs) {
		const std::string gpu_worker = dir + "/kfdmp-worker";
		if (access(gpu_worker.c_str(), X_OK) != 0)
			return "--idle-procs: " + gpu_worker + " is absent (this build has no GPU workloads, KFDMP_GPU=none)";
		for (uint32_t i = procs; i < total; ++i)
			spec.worker_bins[i] = gpu_worker;
	}

	const uint32_t online = uint32_t(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
	const uint32_t threads = cpu_threads_for(o.cpu_threads, procs, online);
	if (threads)
		spec.env.emplace_back("OMP_NUM_THREADS", std::to_string(threads));

	json::Value per = json::Value::Array{};
	uint32_t cus = 0; // the GPU's CUs, for exec workers' HSA_CU_MASK
	for (uint32_t i = 0; i < total; ++i) {
		WorkloadParams& p = spec.worker_params[i];
		const std::string name = p.name;
		const bool exec = o.is_exec(name);
		json::Value w;
		w.set("index", i);
		w.set("workload", name);
		w.set("counted", i < procs);
		std::vector<std::string> lines;
		if (o.pin == "numa") {
			uint32_t ordinal = 0;
			std::string why;
			std::string cpus;
			if (gpu_ordinal(o, i, ordinal, why))
				cpus = gpu_numa_cpus(o.sysfs_root, o.kfd.sysfs, ordinal, why);
			if (cpus.empty())
				return "--pin numa: process " + std::to_string(i) + ": " + why;
			spec.worker_cpus[i] = cpus;
			w.set("cpus", cpus);
			if (exec)
				lines.push_back("option cpus=" + cpus);
		}
		if (!exec) {
			// Built-in workers mask their own streams (cu_mask.h on the
			// device's CU count); recorded here where the KFD topology
			// gives that count.
			uint32_t ordinal = 0, gpu_cus = 0;
			std::string why;
			if (p.split_count && gpu_ordinal(o, i, ordinal, why) && (gpu_cus = gpu_cu_count(o.kfd.sysfs, ordinal, why))) {
				try {
					const std::vector<uint32_t> mask =
						cu_split_mask(gpu_cus, p.split_index, p.split_count, p.split_xccs);
					w.set("cus", mask_cus(mask));
					w.set("gpu_cus", gpu_cus);
				} catch (const std::exception& e) {
					w.set("cus", std::string("unknown: ") + e.what());
				}
			} else if (p.split_count) {
				w.set("cus", "unknown here: " + why + " (the worker computes its mask from the device)");
			}
			per.push(std::move(w));
			continue;
		}
		if (p.priority)
			return "the priority arm: protocol 1 has no way to set the stream priority inside an exec "
			       "worker's command (" + name + ")";
		const std::string& cmd = o.exec_commands.at(name);
		if (cmd.size() >= sizeof p.command)
			return "--exec: the command of " + name + " is longer than " + std::to_string(sizeof p.command - 1) +
			       " characters";
		std::snprintf(p.command, sizeof p.command, "%s", cmd.c_str());
		spec.worker_bins[i] = dir + "/kfdmp-exec-worker";
		if (access(spec.worker_bins[i].c_str(), X_OK) != 0)
			return "--exec: " + spec.worker_bins[i] + " is absent (build the kfdmp-exec-worker target)";
		w.set("command", cmd);
		if (!o.devices.empty()) {
			const std::string& d = o.devices[i % o.devices.size()];
			for (const auto& var : spec.device_env_vars)
				lines.push_back("env " + var + "=" + d);
		}
		if (o.hw_queues)
			lines.push_back("env GPU_MAX_HW_QUEUES=" + std::to_string(*o.hw_queues));
		if (threads) {
			lines.push_back("env OMP_NUM_THREADS=" + std::to_string(threads));
			lines.push_back("option threads=" + std::to_string(threads));
		}
		if (p.split_count) {
			uint32_t ordinal = 0;
			std::string why;
			if (!gpu_ordinal(o, i, ordinal, why))
				return "--cu-split on exec workers: " + why;
			if (!cus && !(cus = gpu_cu_count(o.kfd.sysfs, ordinal, why)))
				return "--cu-split on exec workers: " + why;
			std::vector<uint32_t> mask;
			try {
				mask = cu_split_mask(cus, p.split_index, p.split_count, p.split_xccs);
			} catch (const std::exception& e) {
				return e.what();
			}
			// HSA_CU_MASK's GPU index counts the GPUs ROCr sees: the
			// device's own index (HIP_VISIBLE_DEVICES hides none from ROCr).
			const std::string value = hsa_cu_mask_value(ordinal, mask);
			lines.push_back("env HSA_CU_MASK=" + value);
			w.set("hsa_cu_mask", value);
			w.set("cus", mask_cus(mask));
			w.set("gpu_cus", cus);
		}
		if (p.cus)
			return "--cus on exec workers: use --cu-split (HSA_CU_MASK) instead";
		if (p.streams > 1)
			return "--streams on exec workers: protocol 1 has no such option (the command chooses its streams)";
		if (p.graph)
			lines.push_back("option graph=1");
		const std::string text = join(lines, "\n");
		if (text.size() >= sizeof p.exec_config)
			return "exec worker " + std::to_string(i) + ": its arm is longer than " +
			       std::to_string(sizeof p.exec_config - 1) + " characters";
		std::snprintf(p.exec_config, sizeof p.exec_config, "%s", text.c_str());
		json::Value jl = json::Value::Array{};
		for (const auto& l : lines)
			jl.push(l);
		w.set("lines", std::move(jl));
		per.push(std::move(w));
	}
	record.set("cpu_threads", threads ? json::Value(threads) : json::Value("default"));
	record.set("pin", o.pin);
	record.set("idle_procs", o.idle_procs);
	record.set("processes", std::move(per));
	return "";
}

void split_idle_workers(LaunchResult& r, uint32_t counted)
{
	if (r.workers.size() <= counted)
		return;
	r.idle.assign(r.workers.begin() + counted, r.workers.end());
	r.workers.resize(counted);
	for (const auto& w : r.idle)
		if (w.status != "ok" && w.status != "aborted" && !r.interrupted) {
			r.error += (r.error.empty() ? "" : "; ") + std::string("idle process ") + std::to_string(w.index) + " " +
				   w.status + ": " + w.detail;
			break;
		}
}

} // namespace kfdmp
