// All GPU workloads, in HIP; built for CUDA through gpu_compat.h. A query
// always ends with a synchronise. Results are exact (integer-valued floats,
// byte patterns), so the CPU check compares for equality.
#include "gpu_compat.h"
#include "gpu_workloads.h"
#include "cu_mask.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>
#include <unistd.h>

#if KFDMP_HAVE_BLAS && defined(__CUDACC__)
#include <cublas_v2.h>
#elif KFDMP_HAVE_BLAS
#include <hipblas/hipblas.h>
#endif

namespace kfdmp {
namespace {

void check(hipError_t e, const char* what)
{
	if (e != hipSuccess)
		throw std::runtime_error(std::string(what) + ": " + hipGetErrorString(e));
}

// --- GPU-side timestamps ------------------------------------------------------
// Every block's thread 0 folds the device clock at its start into start[slot]
// (atomic min) and at its end into end[slot] (atomic max), so a slot holds
// the first start and the last end of one kernel. The clock is common to all
// processes on the device: %globaltimer (ns) on NVIDIA, s_memrealtime
// (wall_clock64, constant rate) on AMD. Direct launches pass the slot base;
// a captured graph cannot, so its kernels read slot = *cursor * per_query +
// index and `advance_cursor`, the last node of the stamped graph, moves the
// cursor on.
struct StampArgs {
	unsigned long long* start = nullptr; // nullptr: stamping off
	unsigned long long* end = nullptr;
	const uint32_t* cursor = nullptr; // graphs; nullptr: slot = base + index
	uint32_t base = 0, per_query = 0, index = 0, capacity = 0;
};

__device__ inline unsigned long long device_clock()
{
#if defined(__CUDACC__)
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
#elif defined(__HIP_DEVICE_COMPILE__)
	return (unsigned long long)wall_clock64();
#else
	return 0; // host pass of hipcc: never called
#endif
}

__device__ inline uint32_t stamp_slot(const StampArgs& s)
{
	return (s.cursor ? *s.cursor * s.per_query : s.base) + s.index;
}

__global__ void advance_cursor(uint32_t* cursor) { ++*cursor; }

// x = x * a + b, iters times per thread, then out[i] = in[i] + x. The chain
// starts from 0 and in[i] (loaded before the chain, so its latency hides
// behind it) is added after it: with a = b = 1 every kernel adds exactly
// iters, which the CPU checks bit for bit, and kernel k + 1 still reads what
// kernel k wrote. One element per thread (KernelChain launches blocks x
// threads = n), the chain in uniform control flow; Whole50 (iters a
// multiple of 50, as the reference and small shapes are) is kfdmp-reference's
// loop exactly, with no scalar remainder loop.
//
// The parameter order matters (issue 12): with a and b adjacent at an
// 8-byte-aligned offset (..., n, iters, a, b) ptxas loads them as one pair
// (LDC.64 R4, R5) and the chain becomes FFMA R8, R8, R4, R5, x and a in
// registers of one bank: the conflict halved the FMA rate (54% of
// kfdmp-reference on the H200). After `iters` (a at +4, b at +8, as in the
// reference's (out, iters, a, b)) a goes to a uniform register: FFMA R11,
// R11, UR6, R.. like the reference's FFMA R7, R7, UR5, R4.
template <bool Whole50>
__global__ void fma_chain(const float* in, float* out, int iters, float a, float b, uint32_t n, StampArgs st)
{
	if (st.start && threadIdx.x == 0) {
		const uint32_t slot = stamp_slot(st);
		if (slot < st.capacity)
			atomicMin(&st.start[slot], device_clock());
	}
	const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	const float v = i < n ? in[i] : 0.0f;
	float x = 0.0f;
	if (Whole50) {
		for (int k = 0; k < iters; k += 50) {
#pragma unroll
			for (int u = 0; u < 50; ++u)
				x = x * a + b;
		}
	} else {
		int k = 0;
		for (; k + 50 <= iters; k += 50) {
#pragma unroll
			for (int u = 0; u < 50; ++u)
				x = x * a + b;
		}
		for (; k < iters; ++k)
			x = x * a + b;
	}
	if (i < n)
		out[i] = v + x;
	if (st.start) {
		__syncthreads();
		if (threadIdx.x == 0) {
			const uint32_t slot = stamp_slot(st);
			if (slot < st.capacity)
				atomicMax(&st.end[slot], device_clock());
		}
	}
}

float initial_value(uint32_t i) { return float(i % 4096); }

// Device 0 of the visible ones, `streams` non-blocking streams (optionally
// limited to a CU range) and the buffers of one workload.
class Gpu {
public:
	Gpu(const WorkloadParams& p, uint32_t streams)
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
		int clock_khz = 0;
#if defined(__CUDACC__)
		check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0), "clock rate");
		// FP32 lanes per SM: sm_70 and sm_80 64; sm_86, sm_89, sm_90 and later 128
		lanes_ = prop.major < 8 || (prop.major == 8 && prop.minor == 0) ? 64 : 128;
		timer_ns_per_tick_ = 1.0; // %globaltimer counts ns
		int drv = 0, rt = 0;
		cudaDriverGetVersion(&drv);
		cudaRuntimeGetVersion(&rt);
		runtime_ = "CUDA runtime " + std::to_string(rt) + ", driver API " + std::to_string(drv);
#else
		clock_khz = prop.clockRate;
		lanes_ = 64; // FP32 lanes per CU without packed math
#if HIP_VERSION_MAJOR >= 6
		int wall_khz = 0;
		if (hipDeviceGetAttribute(&wall_khz, hipDeviceAttributeWallClockRate, 0) == hipSuccess && wall_khz > 0)
			timer_ns_per_tick_ = 1e6 / double(wall_khz);
		else
#endif
			timer_ns_per_tick_ = 10.0; // 100 MHz on MI100/MI200/MI300 (no attribute before ROCm 6)
		int rt = 0;
		(void)hipRuntimeGetVersion(&rt);
		runtime_ = "HIP runtime " + std::to_string(rt);
#endif
		peak_fma_ = double(sms_) * lanes_ * double(clock_khz) * 1e3;
		clock_mhz_ = clock_khz / 1000;

		uint32_t first = 0, n = p.cus;
		std::vector<uint32_t> split_mask;
		if (p.split_count) {
			split_mask = cu_split_mask(sms_, p.split_index, p.split_count, p.split_xccs);
			first = uint32_t(uint64_t(p.split_index) * sms_ / p.split_count);
			n = 0;
			for (uint32_t w : split_mask)
				n += uint32_t(__builtin_popcount(w));
		}
#if !KFDMP_HAVE_CU_MASK
		if (n)
			throw Unavailable(std::string(p.split_count ? "--cu-split" : "--cus") +
					  ": the CUDA build has no per-stream SM mask (MPS's "
					  "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE limits how many SMs a client uses, not which)");
#else
		if (n && first + n > sms_)
			throw std::invalid_argument("--cus " + std::to_string(n) + " exceeds the device's " +
						    std::to_string(sms_) + " CUs");
		cu_first_ = first;
		cu_count_ = n;
		cu_xccs_ = p.split_count ? p.split_xccs : 0;
#endif
		int prio_least = 0, prio_greatest = 0;
		if (p.priority) {
			if (n)
				throw Unavailable("stream priority with a CU mask: the runtime creates a masked stream "
						  "without a priority");
			check(hipDeviceGetStreamPriorityRange(&prio_least, &prio_greatest), "stream priority range");
		}
		for (uint32_t s = 0; s < std::max(streams, 1u); ++s) {
			hipStream_t st = nullptr;
			if (p.priority) {
				check(hipStreamCreateWithPriority(&st, hipStreamNonBlocking,
								  p.priority > 0 ? prio_greatest : prio_least),
				      "create stream with priority");
				streams_.push_back(st);
				continue;
			}
#if KFDMP_HAVE_CU_MASK
			if (n) {
				std::vector<uint32_t> mask = split_mask;
				if (mask.empty()) {
					mask.assign((sms_ + 31) / 32, 0);
					for (uint32_t cu = first; cu < first + n; ++cu)
						mask[cu / 32] |= 1u << (cu % 32);
				}
				check(hipExtStreamCreateWithCUMask(&st, uint32_t(mask.size()), mask.data()),
				      "create stream with CU mask");
				streams_.push_back(st);
				continue;
			}
#endif
			check(hipStreamCreateWithFlags(&st, hipStreamNonBlocking), "create stream");
			streams_.push_back(st);
		}
	}
	~Gpu()
	{
		// A destructor cannot report errors; the process is ending anyway.
		for (void* p : device_)
			(void)hipFree(p);
		for (void* p : host_)
			(void)hipHostFree(p);
		for (auto s : streams_)
			(void)hipStreamDestroy(s);
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

	hipStream_t stream(uint32_t i = 0) const { return streams_[i]; }
	uint32_t streams() const { return uint32_t(streams_.size()); }
	uint32_t sms() const { return sms_; }
	double peak_fma_per_s() const { return peak_fma_; }
	double timer_ns_per_tick() const { return timer_ns_per_tick_; }
	void sync() { check(hipStreamSynchronize(streams_[0]), "stream synchronise"); }
	std::string describe() const
	{
		std::string s = name_ + " (" + std::to_string(sms_) + (KFDMP_HAVE_CU_MASK ? " CUs, " : " SMs, ") +
				std::to_string(clock_mhz_) + " MHz, " + runtime_ + ")";
		if (cu_count_ && cu_xccs_)
			s += " " + std::to_string(cu_count_) + " CUs, " + std::to_string(cu_count_ / cu_xccs_) + " on each of " +
			     std::to_string(cu_xccs_) + " XCCs";
		else if (cu_count_)
			s += " CUs " + std::to_string(cu_first_) + "-" + std::to_string(cu_first_ + cu_count_ - 1);
		return s;
	}

private:
	std::string name_, runtime_;
	uint32_t sms_ = 0, lanes_ = 0, clock_mhz_ = 0, cu_first_ = 0, cu_count_ = 0, cu_xccs_ = 0;
	double peak_fma_ = 0, timer_ns_per_tick_ = 1;
	std::vector<hipStream_t> streams_;
	std::vector<void*> device_, host_;
};

uint32_t or_default(uint32_t v, uint32_t def) { return v ? v : def; }

// Defaults of one kernel-chain workload; blocks = 0 means blocks_per_sm per
// SM (CU), so the kernel fills the whole device.
struct ChainShape {
	uint32_t blocks, blocks_per_sm, iters;
	bool copy_out;
};

// latency, saturate, mixed: per stream, a chain of dependent kernels on its
// own buffer; mixed also copies stream 0's result back to pinned host memory
// in every query. With several streams the chains run side by side and the
// query ends when all are done (events join them into stream 0).
class KernelChain final : public Workload {
public:
	KernelChain(const WorkloadParams& p, ChainShape shape)
	    : gpu_(p, or_default(p.streams, 1)), name_(p.name), kernels_(or_default(p.kernels, 8)),
	      iters_(or_default(p.iters, shape.iters)), threads_(or_default(p.threads, 256)),
	      copy_out_(shape.copy_out), graph_(p.graph != 0), stamp_capacity_(p.stamp_capacity)
	{
		blocks_ = or_default(p.blocks, or_default(shape.blocks, shape.blocks_per_sm * gpu_.sms()));
		if (uint64_t(kernels_) * iters_ + 4096 >= (1u << 24))
			throw std::invalid_argument("kernels x iters must stay below 2^24 so results are exact floats");
		n_ = blocks_ * threads_;
		host_ = gpu_.pinned_alloc<float>(n_);
		for (uint32_t i = 0; i < n_; ++i)
			host_[i] = initial_value(i);
		for (uint32_t s = 0; s < gpu_.streams(); ++s) {
			in_.push_back(gpu_.device_alloc<float>(n_));
			buf_.push_back(gpu_.device_alloc<float>(n_));
			check(hipMemcpyAsync(in_[s], host_, n_ * sizeof(float), hipMemcpyHostToDevice, gpu_.stream()),
			      "upload");
			hipEvent_t e;
			check(hipEventCreateWithFlags(&e, hipEventDisableTiming), "create event");
			done_.push_back(e);
		}
		check(hipEventCreateWithFlags(&fork_, hipEventDisableTiming), "create event");
		if (stamp_capacity_) {
			st_start_ = gpu_.device_alloc<unsigned long long>(stamp_capacity_);
			st_end_ = gpu_.device_alloc<unsigned long long>(stamp_capacity_);
			cursor_ = gpu_.device_alloc<uint32_t>(1);
			check(hipMemsetAsync(st_start_, 0xff, stamp_capacity_ * 8, gpu_.stream()), "init stamps");
			check(hipMemsetAsync(st_end_, 0, stamp_capacity_ * 8, gpu_.stream()), "init stamps");
			check(hipMemsetAsync(cursor_, 0, 4, gpu_.stream()), "init stamps");
		}
		gpu_.sync();
		if (graph_) {
			plain_ = capture(false);
			if (stamp_capacity_)
				stamped_ = capture(true);
		}
	}

	~KernelChain() override
	{
		if (plain_)
			(void)hipGraphExecDestroy(plain_);
		if (stamped_)
			(void)hipGraphExecDestroy(stamped_);
	}

	void query() override
	{
		const uint64_t t0 = host_ns();
		const bool stamp = stamping_ && stamped_queries_ < max_stamped_queries();
		if (graph_) {
			check(hipGraphLaunch(stamp ? stamped_ : plain_, gpu_.stream()), "graph launch");
		} else {
			enqueue(stamp);
		}
		submit_ns_ = host_ns() - t0;
		gpu_.sync();
		if (stamp) {
			stamped_bins_.push_back(uint32_t(stamp_bin_));
			++stamped_queries_;
		}
	}

	void verify() override
	{
		std::memset(host_, 0xff, n_ * sizeof(float)); // NaN everywhere
		for (uint32_t s = 0; s < gpu_.streams(); ++s)
			check(hipMemsetAsync(buf_[s], 0xff, n_ * sizeof(float), gpu_.stream()), "poison");
		gpu_.sync();
		stamping_ = false;
		query();
		for (uint32_t s = 0; s < gpu_.streams(); ++s) {
			if (!copy_out_ || s > 0) {
				check(hipMemcpyAsync(host_, buf_[s], n_ * sizeof(float), hipMemcpyDeviceToHost, gpu_.stream()),
				      "read back");
				gpu_.sync();
			}
			uint32_t wrong = 0, first = 0;
			for (uint32_t i = 0; i < n_; ++i)
				if (host_[i] != initial_value(i) + float(kernels_) * float(iters_) && wrong++ == 0)
					first = i;
			if (wrong)
				throw VerifyError("stream " + std::to_string(s) + ": " + std::to_string(wrong) + " of " +
						  std::to_string(n_) + " elements wrong; element " + std::to_string(first) +
						  " is " + std::to_string(host_[first]) + ", expected " +
						  std::to_string(initial_value(first) + float(kernels_) * float(iters_)));
		}
	}

	std::string device() const override
	{
		return gpu_.describe() + "; " + name_ + ": " + std::to_string(kernels_) + " kernels x " +
		       std::to_string(blocks_) + "x" + std::to_string(threads_) + " threads x " +
		       std::to_string(iters_) + " FMA" + (copy_out_ ? " + D2H copy" : "") +
		       (gpu_.streams() > 1 ? " on " + std::to_string(gpu_.streams()) + " streams" : "") +
		       (graph_ ? " (graph)" : "");
	}

	bool stamps() const override { return stamp_capacity_ > 0; }
	void stamp_queries(int64_t bin) override
	{
		stamping_ = bin >= 0;
		stamp_bin_ = bin;
	}
	size_t collect_stamps(KernelStamp* out, size_t capacity) override
	{
		const uint32_t per = kernels_ * gpu_.streams();
		const size_t n = std::min<size_t>({size_t(stamped_queries_) * per, capacity, stamp_capacity_});
		if (n == 0)
			return 0;
		std::vector<unsigned long long> a(n), b(n);
		check(hipMemcpy(a.data(), st_start_, n * 8, hipMemcpyDeviceToHost), "read stamps");
		check(hipMemcpy(b.data(), st_end_, n * 8, hipMemcpyDeviceToHost), "read stamps");
		const double k = gpu_.timer_ns_per_tick();
		for (size_t i = 0; i < n; ++i) {
			const bool ok = a[i] != ~0ull && b[i] >= a[i];
			out[i] = {ok ? uint64_t(double(a[i]) * k) : 0, ok ? uint64_t(double(b[i]) * k) : 0,
				  stamped_bins_[i / per], uint32_t(i % per), uint32_t(i / per)};
		}
		return n;
	}
	double work_per_query() const override
	{
		return double(kernels_) * gpu_.streams() * double(n_) * double(iters_);
	}
	double peak_work_rate() const override { return gpu_.peak_fma_per_s(); }
	const char* work_unit() const override { return "FMA"; }
	uint64_t last_submit_ns() const override { return submit_ns_; }

private:
	static uint64_t host_ns()
	{
		timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
	}
	uint32_t max_stamped_queries() const { return stamp_capacity_ / (kernels_ * gpu_.streams()); }

	// The launches of one query onto the streams (stream 0 forks and joins).
	void enqueue(bool stamp)
	{
		const uint32_t ns = gpu_.streams();
		if (ns > 1) {
			check(hipEventRecord(fork_, gpu_.stream()), "record fork");
			for (uint32_t s = 1; s < ns; ++s)
				check(hipStreamWaitEvent(gpu_.stream(s), fork_, 0), "wait fork");
		}
		for (uint32_t s = 0; s < ns; ++s)
			for (uint32_t k = 0; k < kernels_; ++k) {
				StampArgs st;
				if (stamp)
					st = {st_start_, st_end_, graph_ ? cursor_ : nullptr, stamped_queries_ * kernels_ * ns,
					      kernels_ * ns, s * kernels_ + k, stamp_capacity_};
				const float* src = k ? buf_[s] : in_[s];
				if (iters_ % 50 == 0)
					fma_chain<true><<<blocks_, threads_, 0, gpu_.stream(s)>>>(src, buf_[s], int(iters_), 1.0f,
												  1.0f, n_, st);
				else
					fma_chain<false><<<blocks_, threads_, 0, gpu_.stream(s)>>>(src, buf_[s], int(iters_), 1.0f,
												   1.0f, n_, st);
			}
		check(hipGetLastError(), "kernel launch");
		for (uint32_t s = 1; s < ns; ++s) {
			check(hipEventRecord(done_[s], gpu_.stream(s)), "record join");
			check(hipStreamWaitEvent(gpu_.stream(), done_[s], 0), "wait join");
		}
		if (stamp && graph_)
			advance_cursor<<<1, 1, 0, gpu_.stream()>>>(cursor_);
		if (copy_out_)
			check(hipMemcpyAsync(host_, buf_[0], n_ * sizeof(float), hipMemcpyDeviceToHost, gpu_.stream()),
			      "copy result");
	}

	hipGraphExec_t capture(bool stamp)
	{
		hipGraph_t g;
		hipGraphExec_t exec;
		check(hipStreamBeginCapture(gpu_.stream(), hipStreamCaptureModeThreadLocal), "begin capture");
		enqueue(stamp);
		check(hipStreamEndCapture(gpu_.stream(), &g), "end capture");
		check(hipGraphInstantiateWithFlags(&exec, g, 0), "instantiate graph");
		check(hipGraphDestroy(g), "destroy graph");
		return exec;
	}

	Gpu gpu_;
	std::string name_;
	uint32_t kernels_, iters_, threads_, blocks_ = 0, n_ = 0;
	bool copy_out_, graph_;
	uint32_t stamp_capacity_;
	std::vector<float*> in_, buf_;
	float* host_ = nullptr;
	std::vector<hipEvent_t> done_;
	hipEvent_t fork_{};
	hipGraphExec_t plain_ = nullptr, stamped_ = nullptr;
	unsigned long long *st_start_ = nullptr, *st_end_ = nullptr;
	uint32_t* cursor_ = nullptr;
	bool stamping_ = false;
	int64_t stamp_bin_ = -1;
	uint32_t stamped_queries_ = 0;
	std::vector<uint32_t> stamped_bins_;
	uint64_t submit_ns_ = 0;
};

// copy: host -> device -> host through pinned buffers (SDMA engines on AMD).
class Copy final : public Workload {
public:
	explicit Copy(const WorkloadParams& p) : gpu_(p, 1), words_((p.bytes ? p.bytes : 8u << 20) / 4)
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
	double work_per_query() const override { return 2.0 * double(words_) * 4; }
	const char* work_unit() const override { return "bytes"; }

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

#if KFDMP_HAVE_BLAS
#if defined(__CUDACC__)
using blas_handle = cublasHandle_t;
#define BLAS_OK CUBLAS_STATUS_SUCCESS
#define blas_create cublasCreate
#define blas_destroy cublasDestroy
#define blas_set_stream cublasSetStream
#define blas_sgemm cublasSgemm
#define BLAS_OP_N CUBLAS_OP_N
#define BLAS_NAME "cuBLAS"
#else
using blas_handle = hipblasHandle_t;
#define BLAS_OK HIPBLAS_STATUS_SUCCESS
#define blas_create hipblasCreate
#define blas_destroy hipblasDestroy
#define blas_set_stream hipblasSetStream
#define blas_sgemm hipblasSgemm
#define BLAS_OP_N HIPBLAS_OP_N
#define BLAS_NAME "hipBLAS"
#endif

// gemm: C = A * B in FP32 through the vendor BLAS. A and B hold small
// integers, so every product and sum is exact and the check compares a
// sample of C's entries with the CPU for equality.
class Gemm final : public Workload {
public:
	explicit Gemm(const WorkloadParams& p)
	    : gpu_(p, 1), m_(or_default(p.gemm_m, 2048)), n_(or_default(p.gemm_n, 2048)), k_(or_default(p.gemm_k, 2048))
	{
		if (uint64_t(k_) * 9 >= (1u << 24))
			throw std::invalid_argument("gemm: K must stay below 2^24/9 so the check is exact");
		a_ = gpu_.device_alloc<float>(size_t(m_) * k_);
		b_ = gpu_.device_alloc<float>(size_t(k_) * n_);
		c_ = gpu_.device_alloc<float>(size_t(m_) * n_);
		ha_.resize(size_t(m_) * k_);
		hb_.resize(size_t(k_) * n_);
		for (size_t i = 0; i < ha_.size(); ++i)
			ha_[i] = float((i * 7 + 3) % 4);
		for (size_t i = 0; i < hb_.size(); ++i)
			hb_[i] = float((i * 5 + 1) % 4);
		check(hipMemcpy(a_, ha_.data(), ha_.size() * 4, hipMemcpyHostToDevice), "upload A");
		check(hipMemcpy(b_, hb_.data(), hb_.size() * 4, hipMemcpyHostToDevice), "upload B");
		if (blas_create(&h_) != BLAS_OK)
			throw Unavailable(BLAS_NAME " handle creation failed");
		blas_set_stream(h_, gpu_.stream());
	}
	~Gemm() override { blas_destroy(h_); }

	void query() override
	{
		const float one = 1, zero = 0;
		// Column-major: C (m x n) = A (m x k) * B (k x n)
		if (blas_sgemm(h_, BLAS_OP_N, BLAS_OP_N, int(m_), int(n_), int(k_), &one, a_, int(m_), b_, int(k_), &zero,
			       c_, int(m_)) != BLAS_OK)
			throw std::runtime_error(BLAS_NAME " sgemm failed");
		gpu_.sync();
	}

	void verify() override
	{
		check(hipMemsetAsync(c_, 0xff, size_t(m_) * n_ * 4, gpu_.stream()), "poison");
		gpu_.sync();
		query();
		std::vector<float> c(size_t(m_) * n_);
		check(hipMemcpy(c.data(), c_, c.size() * 4, hipMemcpyDeviceToHost), "read back");
		for (uint32_t s = 0; s < 4096; ++s) {
			const uint32_t i = uint32_t((uint64_t(s) * 2654435761u) % m_), j = uint32_t((uint64_t(s) * 40503u + 7) % n_);
			float want = 0;
			for (uint32_t k = 0; k < k_; ++k)
				want += ha_[size_t(k) * m_ + i] * hb_[size_t(j) * k_ + k];
			if (c[size_t(j) * m_ + i] != want)
				throw VerifyError("C(" + std::to_string(i) + "," + std::to_string(j) + ") is " +
						  std::to_string(c[size_t(j) * m_ + i]) + ", expected " + std::to_string(want));
		}
	}

	std::string device() const override
	{
		return gpu_.describe() + "; gemm (" BLAS_NAME " sgemm): " + std::to_string(m_) + "x" + std::to_string(n_) +
		       "x" + std::to_string(k_);
	}
	double work_per_query() const override { return double(m_) * n_ * k_; }
	double peak_work_rate() const override { return gpu_.peak_fma_per_s(); }
	const char* work_unit() const override { return "FMA"; }

private:
	Gpu gpu_;
	uint32_t m_, n_, k_;
	float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
	std::vector<float> ha_, hb_;
	blas_handle h_{};
};
#endif

// idle (--idle-procs): opens its streams (GPU queues) like a monitor does,
// runs one tiny kernel so they are live, then sits: each query sleeps and
// touches nothing on the GPU. Not counted in QPS; the idle-queue tax.
class Idle final : public Workload {
public:
	explicit Idle(const WorkloadParams& p) : gpu_(p, std::max(p.streams, 1u))
	{
		const uint32_t streams = std::max(p.streams, 1u);
		cursor_ = gpu_.device_alloc<uint32_t>(streams);
		for (uint32_t s = 0; s < streams; ++s) {
			check(hipMemsetAsync(cursor_ + s, 0, 4, gpu_.stream(s)), "clear");
			advance_cursor<<<1, 1, 0, gpu_.stream(s)>>>(cursor_ + s);
			check(hipStreamSynchronize(gpu_.stream(s)), "stream synchronise");
		}
	}

	void query() override { usleep(20000); }
	void verify() override {}
	std::string device() const override { return gpu_.describe() + "; idle (queues open, no work)"; }

private:
	Gpu gpu_;
	uint32_t* cursor_ = nullptr;
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
	if (name == "idle")
		return std::make_unique<Idle>(p);
	if (name == "gemm") {
#if KFDMP_HAVE_BLAS
		return std::make_unique<Gemm>(p);
#else
		throw Unavailable("gemm: this build has no BLAS (cuBLAS, or hipBLAS on AMD, was not found at build time)");
#endif
	}
	throw std::invalid_argument("unknown GPU workload \"" + name + "\"");
}

std::string probe_gpu()
{
	WorkloadParams p{};
	Gpu gpu(p, 1);
	int count = 0;
	check(hipGetDeviceCount(&count), "device count");
	return std::to_string(count) + " device(s); device 0: " + gpu.describe();
}

} // namespace kfdmp
