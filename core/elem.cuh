/* elem.cuh — element access for kernels that read and write f32, bf16 or f16 arrays and compute
 * in fp32, the activation every gated cell uses, and the host's step from a logt_dtype to the
 * element type a kernel is instantiated for. One definition for every .cu file. */
#ifndef LOGT_ELEM_CUH
#define LOGT_ELEM_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "tensor.h"

__device__ __forceinline__ float ld(const float *p) { return *p; }
__device__ __forceinline__ float ld(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
__device__ __forceinline__ float ld(const __half *p) { return __half2float(*p); }
__device__ __forceinline__ void st(float *p, float v) { *p = v; }
__device__ __forceinline__ void st(__nv_bfloat16 *p, float v) { *p = __float2bfloat16(v); }
__device__ __forceinline__ void st(__half *p, float v) { *p = __float2half_rn(v); }

/* Eight adjacent 16-bit values of type E held as one 16-byte vector (uint4, the lower address
 * in the lower bits), widened to f32 and narrowed back with round-to-nearest-even: what a
 * kernel that moves 16-bit arrays in 16-byte loads and stores computes on. */
template <typename E> __device__ __forceinline__ float2 widen2(uint32_t u);
template <> __device__ __forceinline__ float2 widen2<__nv_bfloat16>(uint32_t u)
{   /* a bf16 is the upper half of an f32 */
    return make_float2(__uint_as_float(u << 16), __uint_as_float(u & 0xffff0000u));
}
template <> __device__ __forceinline__ float2 widen2<__half>(uint32_t u)
{
    return __half22float2(*reinterpret_cast<const __half2 *>(&u));
}
template <typename E> __device__ __forceinline__ uint32_t narrow2(float lo, float hi);
template <> __device__ __forceinline__ uint32_t narrow2<__nv_bfloat16>(float lo, float hi)
{
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&v);
}
template <> __device__ __forceinline__ uint32_t narrow2<__half>(float lo, float hi)
{
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&v);
}
template <typename E> __device__ __forceinline__ void widen8(uint4 v, float (&f)[8])
{
    float2 p;
    p = widen2<E>(v.x), f[0] = p.x, f[1] = p.y;
    p = widen2<E>(v.y), f[2] = p.x, f[3] = p.y;
    p = widen2<E>(v.z), f[4] = p.x, f[5] = p.y;
    p = widen2<E>(v.w), f[6] = p.x, f[7] = p.y;
}
template <typename E> __device__ __forceinline__ uint4 narrow8(const float (&f)[8])
{
    return make_uint4(narrow2<E>(f[0], f[1]), narrow2<E>(f[2], f[3]), narrow2<E>(f[4], f[5]),
                      narrow2<E>(f[6], f[7]));
}
/* The vector of eight equal values v. */
template <typename E> __device__ __forceinline__ uint4 splat8(float v)
{
    const uint32_t w = narrow2<E>(v, v);
    return make_uint4(w, w, w, w);
}

__device__ __forceinline__ float sigmoid(float a) { return 1.0f / (1.0f + expf(-a)); }

/* The element type of an activation dtype, for host code that launches a kernel template:
 *   return logt_by_dtype(dt, [&](auto e) { typedef typename decltype(e)::type E; ... });
 * calls the lambda with a tag of float (f32), __nv_bfloat16 (bf16) or __half (f16). The caller
 * has checked dt: any other dtype gets float. */
template <typename E> struct logt_elem_tag { typedef E type; };
template <typename F> static inline auto logt_by_dtype(logt_dtype dt, F f)
{
    if (dt == LOGT_BF16) return f(logt_elem_tag<__nv_bfloat16>());
    if (dt == LOGT_F16) return f(logt_elem_tag<__half>());
    return f(logt_elem_tag<float>());
}

#endif
