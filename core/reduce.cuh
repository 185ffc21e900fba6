/* reduce.cuh — the residual reductions of the Newton solvers (deer, sru's newton route): a
 * block's maximum of non-negative floats into one device word, NaN the worst. */
#ifndef LOGT_REDUCE_CUH
#define LOGT_REDUCE_CUH

/* The larger of two non-negative floats; NaN wins. */
__device__ __forceinline__ float worse(float a, float b) { return b > a || isnan(b) ? b : a; }

/* The block's maximum of v into *res, kept as the bits of a non-negative float (their order
 * is the floats'; NaN as 0x7fc00000, above +inf): one atomic per block. sh holds blockDim/32
 * floats; every thread of the block calls it. Read back with logt_cuda_read_max (cuda.h). */
__device__ inline void block_max_into(float v, float *sh, unsigned *res)
{
    for (int off = 16; off > 0; off >>= 1) v = worse(v, __shfl_xor_sync(0xffffffffu, v, off));
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x / 32); w++) v = worse(v, sh[w]);
        atomicMax(res, isnan(v) ? 0x7fc00000u : __float_as_uint(v));
    }
}

#endif
