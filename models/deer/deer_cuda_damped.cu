/* deer_cuda_damped.cu — the damped (ELK) step of deer's mode = damped on CUDA: for each of C
 * channels, minimise Σ_t (h_t − a_t h_{t-1} − b_t)² + λ Σ_t (h_t − g_t)², h_{-1} = s0, a
 * tridiagonal system in T unknowns, solved in the associative form of deer_damped_chunked
 * (deer.c, the float64 reference it follows step for step):
 *
 *   rows      l_t = −a_t (t > 0), d_t = 1 + λ + a_{t+1}², u_t = −a_{t+1},
 *             rhs_t = b_t + λ g_t − a_{t+1} b_{t+1} (+ a_0 s0 at t = 0), a_T = b_T = 0;
 *   sweep     Thomas's c'_t = u_t / (d_t − l_t c'_{t-1}), c'_{-1} = 0, is a Möbius map of
 *             c'_{t-1}: [c'_t; 1] ∝ [[0, u_t], [−l_t, d_t]] · [c'_{t-1}; 1]. Pass 1 composes
 *             each chunk's 2×2 maps (normalised by their largest entry: only the ratio
 *             matters); pass 2, a block per channel, scans the chunks' maps into the c'
 *             entering every chunk; pass 3 reruns each chunk from its carry, writing the
 *             gates and inputs of two linear recurrences;
 *   scans     r'_t = (−l_t / den_t) r'_{t-1} + rhs_t / den_t forward, then
 *             h_t = −c'_t h_{t+1} + r'_t reversed: two calls of kernels/scan.
 *
 * Bounds, per channel and step: pass 1 reads a, b, g (12 bytes) once, pass 3 reads them again
 * and writes 3 floats, the scans move 3 floats each: about 60 bytes a step-channel, three
 * times an element-wise quasi step's scan. The arithmetic (a 2×2 product and a division a
 * step) is far below the GPU's arithmetic rate: the step is memory-bound. */
#include <math.h>
#include <string.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../kernels/scan.h"
#include "deer_cuda.cuh"

#define DAMPED_CARRY_THREADS 256

/* Row t of channel c's system: l, d, u and the right-hand side. */
struct damped_row {
    float l, d, u, rhs;
};

__device__ __forceinline__ damped_row row_of(int64_t t, int64_t T, int64_t C, int64_t c, float lambda,
                                            const float *a, const float *b, const float *g,
                                            const float *s0)
{
    const int64_t i = t * C + c;
    const float an = t + 1 < T ? a[i + C] : 0.0f, bn = t + 1 < T ? b[i + C] : 0.0f;
    damped_row r;
    r.l = t ? -a[i] : 0.0f;
    r.d = 1.0f + lambda + an * an;
    r.u = -an;
    r.rhs = b[i] + lambda * g[i] - an * bn + (t ? 0.0f : a[i] * (s0 ? s0[c] : 0.0f));
    return r;
}

/* The 2×2 map later · earlier, normalised by its largest entry (x, y, z, w = m00, m01, m10, m11). */
__device__ __forceinline__ float4 mobius_after(float4 earlier, float4 later)
{
    float4 n = make_float4(later.x * earlier.x + later.y * earlier.z, later.x * earlier.y + later.y * earlier.w,
                           later.z * earlier.x + later.w * earlier.z, later.z * earlier.y + later.w * earlier.w);
    const float big = fmaxf(fmaxf(fabsf(n.x), fabsf(n.y)), fmaxf(fabsf(n.z), fabsf(n.w)));
    const float inv = big > 0.0f ? 1.0f / big : 1.0f;
    return make_float4(n.x * inv, n.y * inv, n.z * inv, n.w * inv);
}

/* Pass 1: thread per (channel, chunk), grid-stride: the chunk's composed map into maps [nc][C]. */
__global__ void damped_maps_kernel(int64_t T, int64_t C, int64_t L, int64_t nc, float lambda,
                                   const float *a, const float *b, const float *g, const float *s0,
                                   float4 *maps)
{
    for (int64_t id = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; id < C * nc;
         id += (int64_t)gridDim.x * blockDim.x) {
        const int64_t c = id % C, k = id / C, end = (k + 1) * L < T ? (k + 1) * L : T;
        float4 M = make_float4(1.0f, 0.0f, 0.0f, 1.0f);
        for (int64_t t = k * L; t < end; t++) {
            const damped_row r = row_of(t, T, C, c, lambda, a, b, g, s0);
            M = mobius_after(M, make_float4(0.0f, r.u, -r.l, r.d));
        }
        maps[id] = M;
    }
}

/* Pass 2: a block per channel: the c' entering each chunk, carry [nc][C], from c'_{-1} = 0.
 * Each thread composes a run of consecutive chunks' maps, the block scans the runs' maps
 * (Hillis–Steele in shared memory), and each thread walks its run again from its prefix. */
__global__ void __launch_bounds__(DAMPED_CARRY_THREADS)
damped_carry_kernel(int64_t C, int64_t nc, const float4 *maps, float *carry)
{
    __shared__ float4 sh[DAMPED_CARRY_THREADS];
    const int64_t c = blockIdx.x, per = (nc + blockDim.x - 1) / blockDim.x;
    const int64_t k0 = threadIdx.x * per, k1 = k0 + per < nc ? k0 + per : nc;
    float4 M = make_float4(1.0f, 0.0f, 0.0f, 1.0f);
    for (int64_t k = k0; k < k1; k++) M = mobius_after(M, maps[k * C + c]);
    sh[threadIdx.x] = M;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off *= 2) {   /* inclusive: runs 0..i composed */
        float4 v = sh[threadIdx.x];
        if (threadIdx.x >= off) v = mobius_after(sh[threadIdx.x - off], v);
        __syncthreads();
        sh[threadIdx.x] = v;
        __syncthreads();
    }
    /* the c' entering run i: the composed map of runs before it applied to 0, i.e. m01 / m11 */
    float x = 0.0f;
    if (threadIdx.x > 0) {
        const float4 P = sh[threadIdx.x - 1];
        x = P.y / P.w;
    }
    for (int64_t k = k0; k < k1; k++) {
        carry[k * C + c] = x;
        const float4 Mk = maps[k * C + c];
        x = (Mk.x * x + Mk.y) / (Mk.z * x + Mk.w);
    }
}

/* Pass 3: thread per (channel, chunk), grid-stride: the chunk's sweep from its carry; writes the forward
 * recurrence's gates (fa) and inputs (fb) and the reversed one's gates (−c'_t, into ra). */
__global__ void damped_sweep_kernel(int64_t T, int64_t C, int64_t L, int64_t nc, float lambda,
                                    const float *a, const float *b, const float *g, const float *s0,
                                    const float *carry, float *fa, float *fb, float *ra)
{
    for (int64_t id = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; id < C * nc;
         id += (int64_t)gridDim.x * blockDim.x) {
        const int64_t c = id % C, k = id / C, end = (k + 1) * L < T ? (k + 1) * L : T;
        float x = carry[id];
        for (int64_t t = k * L; t < end; t++) {
            const damped_row r = row_of(t, T, C, c, lambda, a, b, g, s0);
            const float den = r.d - r.l * x;
            x = r.u / den;
            const int64_t i = t * C + c;
            fa[i] = -r.l / den, fb[i] = r.rhs / den, ra[i] = -x;
        }
    }
}

/* The chunk length: about 8 threads per SM slot of 256 for the maps and sweeps, at least one
 * step a chunk. */
static int64_t chunk_length(int64_t T, int64_t C)
{
    const int64_t want = 8LL * 256 * logt_cuda_sm_count();
    int64_t nc = (want + C - 1) / C;
    nc = nc < 1 ? 1 : nc > T ? T : nc;
    return (T + nc - 1) / nc;
}

logt_status deer_damped_cuda(logt_ctx *ctx, deer_cuda_scratch *sc, int64_t T, int64_t C, float lambda,
                             const float *a, const float *b, const float *g, const float *s0, float *out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const int64_t L = chunk_length(T, C), nc = (T + L - 1) / L;
    LOGT_TRY(logt_tensor_reserve(&sc->dmaps, LOGT_CUDA, LOGT_F32, 4 * nc * C, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->dcarry, LOGT_CUDA, LOGT_F32, nc * C, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->dfb, LOGT_CUDA, LOGT_F32, T * C, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->dnc, LOGT_CUDA, LOGT_F32, T * C, NULL));
    float4 *maps = (float4 *)sc->dmaps.data;
    float *carry = (float *)sc->dcarry.data, *fb = (float *)sc->dfb.data, *ra = (float *)sc->dnc.data;
    float *fa = out;   /* the forward gates live in out until the reversed scan overwrites it */
    const unsigned grid = logt_cuda_grid(nc * C, BLOCK);
    damped_maps_kernel<<<grid, BLOCK, 0, st>>>(T, C, L, nc, lambda, a, b, g, s0, maps);
    LAUNCH_TRY();
    damped_carry_kernel<<<(unsigned)C, DAMPED_CARRY_THREADS, 0, st>>>(C, nc, maps, carry);
    LAUNCH_TRY();
    damped_sweep_kernel<<<grid, BLOCK, 0, st>>>(T, C, L, nc, lambda, a, b, g, s0, carry, fa, fb, ra);
    LAUNCH_TRY();
    LOGT_TRY(scan_cuda(ctx, 0, T, C, LOGT_F32, fa, fb, NULL, fb));    /* r'  */
    LOGT_TRY(scan_cuda(ctx, 1, T, C, LOGT_F32, ra, fb, NULL, out));   /* h   */
    return LOGT_OK;
}

extern "C" logt_status deer_damped_step_cuda(logt_ctx *ctx, int64_t T, int64_t C, double lambda,
                                             const float *a, const float *b, const float *g,
                                             const float *s0, float *out)
{
    if (T < 1 || C < 1)
        return LOGT_FAIL(LOGT_EINVAL, "deer_damped_step_cuda: T = %lld, C = %lld must both be at least 1",
                         (long long)T, (long long)C);
    deer_cuda_scratch sc;
    memset(&sc, 0, sizeof sc);
    logt_status s = deer_damped_cuda(ctx, &sc, T, C, (float)lambda, a, b, g, s0, out);
    if (s == LOGT_OK) s = logt_ctx_sync(ctx);
    logt_tensor_free(&sc.dmaps), logt_tensor_free(&sc.dcarry), logt_tensor_free(&sc.dfb);
    logt_tensor_free(&sc.dnc);
    return s;
}
