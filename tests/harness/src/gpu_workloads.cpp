// All GPU workloads, in HIP; built for CUDA through gpu_compat.h. A query
// always ends with a stream synchronise. Results are exact (integer-valued
// floats, byte patterns), so the CPU check compares for equality.
#include "gpu_compat.h"
#include "gpu_workloads.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace kfdmp {
namespace {

void check(hipError_t e, const char* what)
{
	if (e != hipSuccess)
		throw std::runtime_error(std::string(what) + ": " + hipGetErrorString(e));
}

// x = x * a + b, iters times per element. With a = b = 1 every kernel adds
// exactly iters, which the CPU can check bit for bit.
__global__ void fma_chain(const float* in, float* out, uint32_t n, uint32_t iters, float a, float b)
{
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		float x = in[i];
		for (uint32_t k = 0; k < iters; ++k)
			x = fmaf(x, a, b);
		out[i] = x;
	}
}

float initial_value(uint32_t i) { return float(i % 4096); }

// Device 0 of the visible ones, one non-blocking stream (optionally limited
// to the first `cus` CUs) and the buffers of one workload.
class Gpu {
public:
	explicit Gpu(uint32_t cus)
	{
		int count = 0;
		const hipError_t e = hipGetDeviceCount(&count);
		if (e != hipSuccess || count == 0)
			throw Unavailable(std::string("no GPU visible to " KFDMP_GPU_API ": ") +
					  (e != hipSuccess ? hipGetErrorString(e) : "0 devices"));
		check(hipSetDevice(0), "select device 0");
		hipDeviceProp_t prop;
		check(hipGetDeviceProperties(&prop, 0), "device properties");
		name_ = prop.name;
		sms_ = uint32_t(prop.multiProcessorCount);
		if (cus == 0) {
			check(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking), "create stream");
			return;
		}
#if KFDMP_HAVE_CU_MASK
		if (cus > sms_)
			throw std::invalid_argument("--cus " + std::to_string(cus) + " exceeds the device's " +
						    std::to_string(sms_) + " CUs");
		std::vector<uint32_t> mask((sms_ + 31) / 32, 0);
		for (uint32_t cu = 0; cu < cus; ++cu)
			mask[cu / 32] |= 1u << (cu % 32);
		check(hipExtStreamCreateWithCUMask(&stream_, uint32_t(mask.size()), mask.data()),
		      "create stream with CU mask");
#else
		throw Unavailable("--cus: CU masks are not supported by the " KFDMP_GPU_API " build");
#endif
	}
	~Gpu()
	{
		// A destructor cannot report errors; the process is ending anyway.
		for (void* p : device_)
			(void)hipFree(p);
		for (void* p : host_)
			(void)hipHostFree(p);
		if (stream_)
			(void)hipStreamDestroy(stream_);
	}
	Gpu(const Gpu&) = delete;
	Gpu& operator=(const Gpu&) = delete;

	template <typename T>
	T* device_alloc(size_t n)
	{
		void* p = nullptr;
		check(hipMalloc(&p, n * sizeof(T)), "device allocation");
		device_.push_back(p);
		return static_cast<T*>(p);
	}
	template <typename T>
	T* pinned_alloc(size_t n)
	{
		void* p = nullptr;
		check(hipHostMalloc(&p, n * sizeof(T), hipHostMallocDefault), "pinned host allocation");
		host_.push_back(p);
		return static_cast<T*>(p);
	}

	hipStream_t stream() const { return stream_; }
	uint32_t sms() const { return sms_; }
	void sync() { check(hipStreamSynchronize(stream_), "stream synchronise"); }
	std::string describe() const
	{
		return name_ + " (" + std::to_string(sms_) + (KFDMP_HAVE_CU_MASK ? " CUs, " : " SMs, ") +
		       KFDMP_GPU_API ")";
	}

private:
	std::string name_;
	uint32_t sms_ = 0;
	hipStream_t stream_ = nullptr;
	std::vector<void*> device_, host_;
};

uint32_t or_default(uint32_t v, uint32_t def) { return v ? v : def; }

// Defaults of one kernel-chain workload; blocks = 0 means blocks_per_sm per
// SM (CU), so the kernel fills the whole device.
struct ChainShape {
	uint32_t blocks, blocks_per_sm, iters;
	bool copy_out;
};

// latency, saturate, mixed: a chain of dependent kernels; mixed also copies
// the result back to pinned host memory in every query.
class KernelChain final : public Workload {
public:
	KernelChain(const WorkloadParams& p, ChainShape shape)
	    : gpu_(p.cus), name_(p.name), kernels_(or_default(p.kernels, 8)),
	      iters_(or_default(p.iters, shape.iters)), threads_(or_default(p.threads, 256)),
	      copy_out_(shape.copy_out)
	{
		blocks_ = or_default(p.blocks, or_default(shape.blocks, shape.blocks_per_sm * gpu_.sms()));
		if (uint64_t(kernels_) * iters_ + 4096 >= (1u << 24))
			throw std::invalid_argument("kernels x iters must stay below 2^24 so results are exact floats");
		n_ = blocks_ * threads_;
		in_ = gpu_.device_alloc<float>(n_);
		buf_ = gpu_.device_alloc<float>(n_);
		host_ = gpu_.pinned_alloc<float>(n_);
		for (uint32_t i = 0; i < n_; ++i)
			host_[i] = initial_value(i);
		check(hipMemcpyAsync(in_, host_, n_ * sizeof(float), hipMemcpyHostToDevice, gpu_.stream()), "upload");
		gpu_.sync();
	}

	void query() override
	{
		for (uint32_t k = 0; k < kernels_; ++k)
			fma_chain<<<blocks_, threads_, 0, gpu_.stream()>>>(k ? buf_ : in_, buf_, n_, iters_, 1.0f, 1.0f);
		check(hipGetLastError(), "kernel launch");
		if (copy_out_)
			check(hipMemcpyAsync(host_, buf_, n_ * sizeof(float), hipMemcpyDeviceToHost, gpu_.stream()),
			      "copy result");
		gpu_.sync();
	}

	void verify() override
	{
		std::memset(host_, 0xff, n_ * sizeof(float)); // NaN everywhere
		check(hipMemsetAsync(buf_, 0xff, n_ * sizeof(float), gpu_.stream()), "poison");
		query();
		if (!copy_out_) {
			check(hipMemcpyAsync(host_, buf_, n_ * sizeof(float), hipMemcpyDeviceToHost, gpu_.stream()),
			      "read back");
			gpu_.sync();
		}
		uint32_t wrong = 0, first = 0;
		for (uint32_t i = 0; i < n_; ++i)
			if (host_[i] != initial_value(i) + float(kernels_) * float(iters_) && wrong++ == 0)
				first = i;
		if (wrong)
			throw VerifyError(std::to_string(wrong) + " of " + std::to_string(n_) + " elements wrong; element " +
					  std::to_string(first) + " is " + std::to_string(host_[first]) + ", expected " +
					  std::to_string(initial_value(first) + float(kernels_) * float(iters_)));
	}

	std::string device() const override
	{
		return gpu_.describe() + "; " + name_ + ": " + std::to_string(kernels_) + " kernels x " +
		       std::to_string(blocks_) + "x" + std::to_string(threads_) + " threads x " +
		       std::to_string(iters_) + " FMA" + (copy_out_ ? " + D2H copy" : "");
	}

private:
	Gpu gpu_;
	std::string name_;
	uint32_t kernels_, iters_, threads_, blocks_ = 0, n_ = 0;
	bool copy_out_;
	float *in_ = nullptr, *buf_ = nullptr, *host_ = nullptr;
};

// copy: host -> device -> host through pinned buffers (SDMA engines on AMD).
class Copy final : public Workload {
public:
	explicit Copy(const WorkloadParams& p) : gpu_(p.cus), words_((p.bytes ? p.bytes : 8u << 20) / 4)
	{
		src_ = gpu_.pinned_alloc<uint32_t>(words_);
		dst_ = gpu_.pinned_alloc<uint32_t>(words_);
		dev_ = gpu_.device_alloc<uint32_t>(words_);
		fill(src_);
	}

	void query() override
	{
		check(hipMemcpyAsync(dev_, src_, words_ * 4, hipMemcpyHostToDevice, gpu_.stream()), "copy to device");
		check(hipMemcpyAsync(dst_, dev_, words_ * 4, hipMemcpyDeviceToHost, gpu_.stream()), "copy to host");
		gpu_.sync();
	}

	void verify() override
	{
		++seed_; // data no query has moved yet
		fill(src_);
		std::memset(dst_, 0, words_ * 4);
		query();
		for (size_t i = 0; i < words_; ++i)
			if (dst_[i] != src_[i])
				throw VerifyError("word " + std::to_string(i) + " is " + std::to_string(dst_[i]) +
						  ", expected " + std::to_string(src_[i]));
	}

	std::string device() const override
	{
		return gpu_.describe() + "; copy: " + std::to_string(words_ * 4) + " bytes each way";
	}

private:
	void fill(uint32_t* p)
	{
		for (size_t i = 0; i < words_; ++i)
			p[i] = uint32_t(i) * 2654435761u + seed_;
	}
	Gpu gpu_;
	size_t words_;
	uint32_t seed_ = 1;
	uint32_t *src_ = nullptr, *dst_ = nullptr, *dev_ = nullptr;
};

} // namespace

std::unique_ptr<Workload> make_gpu_workload(const WorkloadParams& p)
{
	const std::string name = p.name;
	if (name == "latency")
		return std::make_unique<KernelChain>(p, ChainShape{4, 0, 256, false});
	if (name == "saturate")
		return std::make_unique<KernelChain>(p, ChainShape{0, 8, 8192, false});
	if (name == "mixed")
		return std::make_unique<KernelChain>(p, ChainShape{0, 1, 1024, true});
	if (name == "copy")
		return std::make_unique<Copy>(p);
	throw std::invalid_argument("unknown GPU workload \"" + name + "\"");
}

std::string probe_gpu()
{
	Gpu gpu(0);
	int count = 0;
	check(hipGetDeviceCount(&count), "device count");
	return std::to_string(count) + " device(s); device 0: " + gpu.describe();
}

} // namespace kfdmp
