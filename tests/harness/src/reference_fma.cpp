// kfdmp-reference: an independent, textbook FMA-chain QPS loop with none of
// the harness's code (no workload class, no launcher, no stamps). A query is
// K launches of a kernel in which every thread runs one dependent chain of
// ITERS FMAs (x = x * a + b, in unrolled blocks of 50) and stores the
// result, then one stream synchronise. One chain per thread is what "FMA
// chain" means in issue 12: its small shape (4 blocks) is latency-bound, its
// reference shape (4224 blocks) issue-bound. It exists to check that the harness's `saturate`
// kernel, configured to the same shape, does the same work at the same rate
// (issue 12: within 3%).
//
//   kfdmp-reference [--kernels K] [--blocks B] [--threads T] [--iters I]
//                   [--duration S] [--warmup S]
#include "gpu_compat.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

__global__ void fma_chain_ref(float* out, int iters, float a, float b)
{
	float x = threadIdx.x;
	for (int i = 0; i < iters; i += 50) {
#pragma unroll
		for (int u = 0; u < 50; ++u)
			x = x * a + b;
	}
	out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

void check(hipError_t e, const char* what)
{
	if (e != hipSuccess) {
		std::fprintf(stderr, "kfdmp-reference: %s: %s\n", what, hipGetErrorString(e));
		std::exit(1);
	}
}

} // namespace

int main(int argc, char** argv)
{
	int kernels = 8, blocks = 4224, threads = 256, iters = 2000;
	double duration = 3, warmup = 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		const std::string o = argv[i];
		const char* v = argv[i + 1];
		if (o == "--kernels") kernels = std::atoi(v);
		else if (o == "--blocks") blocks = std::atoi(v);
		else if (o == "--threads") threads = std::atoi(v);
		else if (o == "--iters") iters = std::atoi(v);
		else if (o == "--duration") duration = std::atof(v);
		else if (o == "--warmup") warmup = std::atof(v);
		else {
			std::fprintf(stderr, "kfdmp-reference: unknown option %s\n", o.c_str());
			return 64;
		}
	}
	if (argc % 2 == 0 || iters % 50 || kernels < 1 || blocks < 1 || threads < 1) {
		std::fprintf(stderr, "usage: %s [--kernels K] [--blocks B] [--threads T] [--iters I (multiple of 50)] "
				     "[--duration S] [--warmup S]\n", argv[0]);
		return 64;
	}
	int count = 0;
	if (hipGetDeviceCount(&count) != hipSuccess || count == 0) {
		std::fprintf(stderr, "kfdmp-reference: unavailable: no GPU\n");
		return 77;
	}
	hipStream_t s;
	check(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), "stream");
	float* out = nullptr;
	check(hipMalloc(&out, size_t(blocks) * threads * sizeof(float)), "malloc");
	using clk = std::chrono::steady_clock;
	auto query = [&] {
		for (int k = 0; k < kernels; ++k)
			fma_chain_ref<<<blocks, threads, 0, s>>>(out, iters, 1.0f, 1.0f);
		check(hipStreamSynchronize(s), "sync");
	};
	query();
	const auto w_end = clk::now() + std::chrono::duration<double>(warmup);

	while (clk::now() < w_end)
		query();
	long long queries = 0;
	const clk::time_point begin = clk::now();
	const auto end = begin + std::chrono::duration<double>(duration);
	clk::time_point t = begin;
	for (; t < end; t = clk::now(), ++queries)
		query();
	const double secs = std::chrono::duration<double>(t - begin).count();
	float sample = 0;
	check(hipMemcpy(&sample, out, sizeof sample, hipMemcpyDeviceToHost), "read back");
	// thread 0: x = 0 + iters (exact below 2^24)
	const bool ok = sample == float(iters);
	const double fma = double(kernels) * blocks * threads * iters * queries / secs;
	std::printf("reference: kernels=%d blocks=%d threads=%d iters=%d queries=%lld seconds=%.3f qps=%.1f "
		    "fma_per_s=%.4g check=%s\n",
		    kernels, blocks, threads, iters, queries, secs, double(queries) / secs, fma, ok ? "ok" : "WRONG");
	return ok ? 0 : 3;
}
