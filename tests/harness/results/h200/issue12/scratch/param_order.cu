// Issue 12 scratch (after run 4): the same chain under six parameter orders,
// compiled with nvcc -O2 -arch=sm_90 -cubin and read with ffma_forms.py.
// CUDA 13.0 ptxas: p4 (a, b at 0x228/0x22c, after the struct) and p5
// (b, a adjacent, 8-byte aligned) load the pair with one LDC.64 and give
// FFMA R,R,R; p1, p2, p3, p6 (a not the first of an aligned pair) give
// FFMA Rx, Rx, URy, Rz like kfdmp-reference. The harness's fma_chain uses p1's order.
#include <cstdint>
struct St { unsigned long long *start, *end; const uint32_t* cursor; uint32_t base, per_query, index, capacity; };
#define BODY float x = 0.f; for (int k = 0; k < iters; k += 50) { _Pragma("unroll") for (int u = 0; u < 50; ++u) x = x * a + b; } \
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] + x; if (st.start && threadIdx.x == 0) st.start[0] = 1;
__global__ void p1(const float* in, float* out, int iters, float a, float b, uint32_t n, St st) { BODY }
__global__ void p2(const float* in, float* out, uint32_t n, float a, int iters, float b, St st) { BODY }
__global__ void p3(const float* in, float* out, float a, uint32_t n, int iters, float b, St st) { BODY }
__global__ void p4(St st, const float* in, float* out, uint32_t n, int iters, float a, float b) { BODY }
__global__ void p5(const float* in, float* out, uint32_t n, int iters, float b, float a, St st) { BODY }
__global__ void p6(float a, const float* in, float* out, uint32_t n, int iters, float b, St st) { BODY }
