/* elem.cuh — element access for kernels that read and write f32 or bf16 arrays and compute
 * in fp32, and the activation every gated cell uses. One definition for every .cu file. */
#ifndef LOGT_ELEM_CUH
#define LOGT_ELEM_CUH

#include <cuda_bf16.h>

__device__ __forceinline__ float ld(const float *p) { return *p; }
__device__ __forceinline__ float ld(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
__device__ __forceinline__ void st(float *p, float v) { *p = v; }
__device__ __forceinline__ void st(__nv_bfloat16 *p, float v) { *p = __float2bfloat16(v); }

__device__ __forceinline__ float sigmoid(float a) { return 1.0f / (1.0f + expf(-a)); }

#endif
