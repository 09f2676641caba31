// Issue 12 scratch (run 4): the FFMA operand forms ptxas picks for variants of
// the harness's fma_chain, each timed back to back at the reference shape
// (8 x 4224 x 256 x 2000). A-D keep the start stamp's divergent
// `if (threadIdx.x == 0)` ahead of the chain (s0); E has no stamps at all; F
// reads the clock in every thread and stamps both ends after the chain (the
// second attempt); H is A with __syncwarp() after s0. Run 4 (H200): every one of them
// got FFMA R,R,R and ran at 930-942 queries/s, E included: the stamps were
// not the cause. The cause was the parameter order (param_order.cu).
#include <cstdio>
#include <cstdint>
struct St { unsigned long long *start, *end; const uint32_t* cursor; uint32_t base, per_query, index, capacity; };
__device__ inline unsigned long long clk() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ inline void s0(const St& s) { if (s.start && threadIdx.x == 0) { uint32_t sl = (s.cursor ? *s.cursor * s.per_query : s.base) + s.index; if (sl < s.capacity) atomicMin(&s.start[sl], clk()); } }
__device__ inline void s1(const St& s) { if (s.start) { __syncthreads(); if (threadIdx.x == 0) { uint32_t sl = (s.cursor ? *s.cursor * s.per_query : s.base) + s.index; if (sl < s.capacity) atomicMax(&s.end[sl], clk()); } } }
__constant__ float ca, cb;
// A: start from in[i], whole-50 loop only
__global__ void vA(const float* in, float* out, uint32_t n, int iters, float a, float b, St st)
{ s0(st); uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; float x = i < n ? in[i] : 0.f;
  for (int k = 0; k < iters; k += 50) {
#pragma unroll
   for (int u = 0; u < 50; ++u) x = x * a + b; }
  if (i < n) out[i] = x; s1(st); }
// B: from 0, add in[i] after; remainder loop kept
__global__ void vB(const float* in, float* out, uint32_t n, int iters, float a, float b, St st)
{ s0(st); float x = 0.f; int k = 0;
  for (; k + 50 <= iters; k += 50) {
#pragma unroll
   for (int u = 0; u < 50; ++u) x = x * a + b; }
  for (; k < iters; ++k) x = x * a + b;
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] + x; s1(st); }
// C: __constant__ a, b, from 0
__global__ void vC(const float* in, float* out, uint32_t n, int iters, St st)
{ s0(st); float x = 0.f; float a = ca, b = cb;
  for (int k = 0; k < iters; k += 50) {
#pragma unroll
   for (int u = 0; u < 50; ++u) x = x * a + b; }
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] + x; s1(st); }
// D: two chains of threadIdx-derived start, a as first param
__global__ void vD(const float* in, float* out, uint32_t n, int iters, float a, float b, St st)
{ s0(st); float x = threadIdx.x;
  for (int k = 0; k < iters; k += 50) {
#pragma unroll
   for (int u = 0; u < 50; ++u) x = x * a + b; }
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] + x - float(threadIdx.x); s1(st); }
// E: no stamps (kfdmp-reference's kernel plus in/out)
__global__ void vE(const float* in, float* out, uint32_t n, int iters, float a, float b, St st)
{ float x = 0.f;
  for (int k = 0; k < iters; k += 50) {
#pragma unroll
   for (int u = 0; u < 50; ++u) x = x * a + b; }
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] + x; }
// F: clock read by every thread first, both stamps after the chain
__global__ void vF(const float* in, float* out, uint32_t n, int iters, float a, float b, St st)
{ const unsigned long long t0 = clk(); float x = 0.f;
  for (int k = 0; k < iters; k += 50) {
#pragma unroll
   for (int u = 0; u < 50; ++u) x = x * a + b; }
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] + x;
  if (st.start) { __syncthreads(); if (threadIdx.x == 0) { uint32_t sl = (st.cursor ? *st.cursor * st.per_query : st.base) + st.index;
    if (sl < st.capacity) { atomicMin(&st.start[sl], t0); atomicMax(&st.end[sl], clk()); } } } }
// H: A with __syncwarp() after the divergent start stamp
__global__ void vH(const float* in, float* out, uint32_t n, int iters, float a, float b, St st)
{ s0(st); __syncwarp(); float x = 0.f;
  for (int k = 0; k < iters; k += 50) {
#pragma unroll
   for (int u = 0; u < 50; ++u) x = x * a + b; }
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] + x; s1(st); }
int main()
{
  const int B = 4224, T = 256, I = 2000, n = B * T; float *in, *out; cudaMalloc(&in, n * 4); cudaMalloc(&out, n * 4);
  cudaMemset(in, 0, n * 4); float one = 1; cudaMemcpyToSymbol(ca, &one, 4); cudaMemcpyToSymbol(cb, &one, 4);
  St st{}; cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int v = 0; v < 7; ++v) {
    auto q = [&] { for (int k = 0; k < 8; ++k) { const float* s = k ? out : in;
      if (v == 0) vA<<<B, T>>>(s, out, n, I, 1, 1, st); else if (v == 1) vB<<<B, T>>>(s, out, n, I, 1, 1, st);
      else if (v == 2) vC<<<B, T>>>(s, out, n, I, st); else if (v == 3) vD<<<B, T>>>(s, out, n, I, 1, 1, st);
      else if (v == 4) vE<<<B, T>>>(s, out, n, I, 1, 1, st); else if (v == 5) vF<<<B, T>>>(s, out, n, I, 1, 1, st);
      else vH<<<B, T>>>(s, out, n, I, 1, 1, st); } };
    for (int w = 0; w < 50; ++w) q();
    cudaEventRecord(e0); for (int r = 0; r < 500; ++r) q(); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); float h; cudaMemcpy(&h, out + 5, 4, cudaMemcpyDeviceToHost);
    printf("variant %c: %.1f queries/s (back-to-back), out[5]=%.0f (want %d) %s\n", "ABCDEFH"[v], 500 / (ms / 1e3), h, 8 * I, cudaGetErrorString(cudaGetLastError()));
  }
}
