/* tf32.cuh — TF32 rounding for the 3xTF32 splits (kernels/gemm.h): device code shared by the
 * split kernel (kernels/gemm.cu) and kernels that write split parts themselves. */
#ifndef LOGT_TF32_CUH
#define LOGT_TF32_CUH

/* x rounded to the nearest TF32 value (10 explicit mantissa bits, ties to even); inf and NaN
 * kept. */
__device__ __forceinline__ float tf32_round(float x)
{
    unsigned u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return x;
    u += 0xfffu + ((u >> 13) & 1u);
    return __uint_as_float(u & 0xffffe000u);
}

/* Store v at o, or (lo != 0) its parts as logt_tf32_split lays them out: the high part at o
 * (and at o[hi2] when hi2 != 0), the low part at o[lo]. */
__device__ __forceinline__ void tf32_store(float *o, float v, int64_t lo, int64_t hi2)
{
    if (!lo) {
        *o = v;
        return;
    }
    const float h = tf32_round(v);
    o[0] = h;
    o[lo] = tf32_round(v - h);
    if (hi2) o[hi2] = h;
}
#endif
