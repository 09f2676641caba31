// The kernel the hsa workload dispatches; built per GPU target into a plain
// code object (hipcc --genco --no-gpu-bundle-output) that ROCr loads.
#include <hip/hip_runtime.h>

#include <cstdint>

extern "C" __global__ void kfdmp_mark(uint32_t* out, uint32_t value)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		*out = value;
}
