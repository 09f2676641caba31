// kfdmp-hsa-worker: raw AQL dispatch through hsa-runtime64, without HIP.
// Each process creates exactly --hsa-queues queues; a query writes one
// kernel dispatch packet into every queue, rings each doorbell and waits for
// all of them on one completion signal.
#include "worker.h"

#include <hsa/hsa.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace kfdmp {
namespace {

std::string status_text(hsa_status_t s)
{
	const char* msg = nullptr;
	hsa_status_string(s, &msg);
	return msg ? msg : "HSA status " + std::to_string(int(s));
}

void check(hsa_status_t s, const char* what)
{
	if (s != HSA_STATUS_SUCCESS)
		throw std::runtime_error(std::string(what) + ": " + status_text(s));
}

// hsa_init/hsa_shut_down, and the first GPU agent.
class Runtime {
public:
	Runtime()
	{
		const hsa_status_t s = hsa_init();
		if (s != HSA_STATUS_SUCCESS)
			throw Unavailable("hsa_init failed (no /dev/kfd access or no AMD GPU): " + status_text(s));
		hsa_iterate_agents(
			[](hsa_agent_t a, void* data) {
				hsa_device_type_t type;
				hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &type);
				if (type != HSA_DEVICE_TYPE_GPU)
					return HSA_STATUS_SUCCESS;
				*static_cast<hsa_agent_t*>(data) = a;
				return HSA_STATUS_INFO_BREAK;
			},
			&gpu_);
		if (gpu_.handle == 0) {
			hsa_shut_down();
			throw Unavailable("no HSA GPU agent found");
		}
		char name[64] = "";
		hsa_agent_get_info(gpu_, HSA_AGENT_INFO_NAME, name);
		name_ = name;
	}
	~Runtime() { hsa_shut_down(); }
	Runtime(const Runtime&) = delete;
	Runtime& operator=(const Runtime&) = delete;

	hsa_agent_t gpu() const { return gpu_; }
	const std::string& name() const { return name_; } // e.g. gfx942

private:
	hsa_agent_t gpu_{};
	std::string name_;
};

std::string exe_dir()
{
	char buf[PATH_MAX];
	const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	const std::string exe = n > 0 ? std::string(buf, size_t(n)) : "";
	return exe.substr(0, exe.rfind('/') + 1);
}

struct KernelArgs {
	uint32_t* out;
	uint32_t value;
};

class HsaDispatch final : public Workload {
public:
	explicit HsaDispatch(const WorkloadParams& p)
	    : workgroups_(p.blocks ? p.blocks : 1), wg_size_(p.threads ? p.threads : 64)
	{
		try {
			load_kernel(p.code_object[0] ? std::string(p.code_object)
						     : exe_dir() + "kfdmp_kernel-" + rt_.name() + ".co");
			create_queues(p.hsa_queues ? p.hsa_queues : 1);
		} catch (...) {
			release();
			throw;
		}
	}
	~HsaDispatch() override { release(); }

	void query() override
	{
		hsa_signal_store_relaxed(done_, hsa_signal_value_t(queues_.size()));
		for (size_t i = 0; i < queues_.size(); ++i)
			dispatch(queues_[i], args(i));
		while (hsa_signal_wait_scacquire(done_, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
						 HSA_WAIT_STATE_ACTIVE) != 0) {
		}
	}

	void verify() override
	{
		++token_;
		for (size_t i = 0; i < queues_.size(); ++i) {
			args(i)->value = token_ + uint32_t(i);
			out_[i] = 0;
		}
		query();
		for (size_t i = 0; i < queues_.size(); ++i)
			if (out_[i] != token_ + uint32_t(i))
				throw VerifyError("queue " + std::to_string(i) + ": kernel wrote " + std::to_string(out_[i]) +
						  ", expected " + std::to_string(token_ + uint32_t(i)));
	}

	std::string device() const override
	{
		return rt_.name() + " (HSA); hsa: " + std::to_string(queues_.size()) + " AQL queues x " +
		       std::to_string(workgroups_) + "x" + std::to_string(wg_size_) + " dispatch";
	}

private:
	void load_kernel(const std::string& path)
	{
		fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
		if (fd_ < 0)
			throw std::runtime_error("no code object for " + rt_.name() + " at " + path +
						 " (add the target to KFDMP_HIP_ARCHS or pass --hsa-code-object)");
		check(hsa_code_object_reader_create_from_file(fd_, &reader_), "read code object");
		check(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
						&exe_),
		      "create executable");
		check(hsa_executable_load_agent_code_object(exe_, rt_.gpu(), reader_, nullptr, nullptr),
		      "load code object");
		check(hsa_executable_freeze(exe_, nullptr), "freeze executable");
		hsa_executable_symbol_t sym;
		hsa_agent_t gpu = rt_.gpu();
		check(hsa_executable_get_symbol_by_name(exe_, "kfdmp_mark.kd", &gpu, &sym), "find kfdmp_mark");
		check(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object_),
		      "kernel object");
		check(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
						     &kernarg_size_),
		      "kernarg size");
		check(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
						     &group_size_),
		      "group segment size");
		check(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
						     &private_size_),
		      "private segment size");
	}

	void create_queues(uint32_t count)
	{
		hsa_region_t kernarg{};
		hsa_agent_iterate_regions(
			rt_.gpu(),
			[](hsa_region_t r, void* data) {
				hsa_region_segment_t seg;
				uint32_t flags = 0;
				hsa_region_get_info(r, HSA_REGION_INFO_SEGMENT, &seg);
				hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &flags);
				if (seg != HSA_REGION_SEGMENT_GLOBAL || !(flags & HSA_REGION_GLOBAL_FLAG_KERNARG))
					return HSA_STATUS_SUCCESS;
				*static_cast<hsa_region_t*>(data) = r;
				return HSA_STATUS_INFO_BREAK;
			},
			&kernarg);
		if (kernarg.handle == 0)
			throw std::runtime_error("the GPU agent has no kernarg region");
		// Kernarg memory is host-visible and fine-grained: it holds the
		// arguments (one block per queue, hidden arguments zeroed) and the
		// words the kernel writes.
		stride_ = (std::max<uint32_t>(kernarg_size_, sizeof(KernelArgs)) + 63) & ~63u;
		check(hsa_memory_allocate(kernarg, stride_ * count + count * sizeof(uint32_t), &mem_),
		      "allocate kernarg memory");
		std::memset(mem_, 0, stride_ * count + count * sizeof(uint32_t));
		out_ = reinterpret_cast<uint32_t*>(static_cast<char*>(mem_) + stride_ * count);
		check(hsa_signal_create(0, 0, nullptr, &done_), "create completion signal");
		uint32_t max_size = 0;
		hsa_agent_get_info(rt_.gpu(), HSA_AGENT_INFO_QUEUE_MAX_SIZE, &max_size);
		for (uint32_t i = 0; i < count; ++i) {
			hsa_queue_t* q = nullptr;
			check(hsa_queue_create(rt_.gpu(), std::min<uint32_t>(max_size, 1024), HSA_QUEUE_TYPE_SINGLE,
					       nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q),
			      ("create AQL queue " + std::to_string(i)).c_str());
			queues_.push_back(q);
			*args(i) = KernelArgs{out_ + i, 0};
		}
	}

	KernelArgs* args(size_t queue) const
	{
		return reinterpret_cast<KernelArgs*>(static_cast<char*>(mem_) + queue * stride_);
	}

	void dispatch(hsa_queue_t* q, KernelArgs* args)
	{
		const uint64_t index = hsa_queue_add_write_index_relaxed(q, 1);
		while (index - hsa_queue_load_read_index_scacquire(q) >= q->size) {
		}
		auto* pkt = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address) + (index & (q->size - 1));
		std::memset(reinterpret_cast<char*>(pkt) + 4, 0, sizeof *pkt - 4);
		pkt->workgroup_size_x = uint16_t(wg_size_);
		pkt->workgroup_size_y = pkt->workgroup_size_z = 1;
		pkt->grid_size_x = workgroups_ * wg_size_;
		pkt->grid_size_y = pkt->grid_size_z = 1;
		pkt->private_segment_size = private_size_;
		pkt->group_segment_size = group_size_;
		pkt->kernel_object = kernel_object_;
		pkt->kernarg_address = args;
		pkt->completion_signal = done_;
		const uint16_t header = HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
					HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
					HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE;
		const uint16_t setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
		__atomic_store_n(reinterpret_cast<uint32_t*>(pkt), uint32_t(header) | uint32_t(setup) << 16,
				 __ATOMIC_RELEASE);
		hsa_signal_store_screlease(q->doorbell_signal, hsa_signal_value_t(index));
	}

	void release()
	{
		for (hsa_queue_t* q : queues_)
			hsa_queue_destroy(q);
		queues_.clear();
		if (done_.handle)
			hsa_signal_destroy(done_);
		if (mem_)
			hsa_memory_free(mem_);
		if (exe_.handle)
			hsa_executable_destroy(exe_);
		if (reader_.handle)
			hsa_code_object_reader_destroy(reader_);
		if (fd_ >= 0)
			close(fd_);
		done_.handle = exe_.handle = reader_.handle = 0;
		mem_ = nullptr;
		fd_ = -1;
	}

	Runtime rt_;
	uint32_t workgroups_, wg_size_;
	int fd_ = -1;
	hsa_code_object_reader_t reader_{};
	hsa_executable_t exe_{};
	uint64_t kernel_object_ = 0;
	uint32_t kernarg_size_ = 0, group_size_ = 0, private_size_ = 0, stride_ = 0;
	void* mem_ = nullptr;
	uint32_t* out_ = nullptr;
	hsa_signal_t done_{};
	std::vector<hsa_queue_t*> queues_;
	uint32_t token_ = 0x6b66d000;
};

std::unique_ptr<Workload> make_hsa_workload(const WorkloadParams& p)
{
	if (std::string(p.name) != "hsa")
		throw std::invalid_argument(std::string("kfdmp-hsa-worker runs only the hsa workload, not ") + p.name);
	return std::make_unique<HsaDispatch>(p);
}

std::string probe_hsa() { return "HSA GPU agent " + Runtime().name(); }

} // namespace
} // namespace kfdmp

int main(int argc, char** argv) { return kfdmp::worker_main(argc, argv, kfdmp::make_hsa_workload, kfdmp::probe_hsa); }
