/* scan.cu — the linear scan h_t = a_t ⊙ h_{t-1} + b_t on the GPU (scan.h), f32 or bf16
 * arrays [T][C] (T steps, C channels), fp32 arithmetic, forward or reversed.
 *
 * Bounds. Flops are negligible (one FMA per element); the scan is bound by memory. The
 * least it can move is a, b read once and h written once: 3·T·C·bytes. The routes:
 *   channels  one thread per channel walks T: exactly 3·T·C·bytes.
 *   chunked   pass 1 reads a, b; pass 3 reads them again and writes h: 5·T·C·bytes, plus
 *             2 floats per (chunk, channel) of scratch (about 2·SMs·1024·4 bytes: noise).
 *             So it reaches at best 3/5 = 60% of copy speed; a single pass with decoupled
 *             look-back (Merrill & Garland 2016) is the way past that, not done here.
 * At the H200's ~4.3 TB/s copy bandwidth, (C, T) = (65536, 16384) fp32 is 2^30 elements:
 * 3·2^30·4 B = 12.9 GB, 3.0 ms ideal, and that shape goes channel-parallel (3.0 ms bound);
 * the chunked route would move 21.5 GB, 5.0 ms.
 *
 * Reversed scans use the same kernels with the time index mirrored: step s of the walk
 * reads time t = T-1-s. All offsets are int64 (T·C may exceed 2^31).
 */
#include <cuda_bf16.h>

#include "../core/cuda_check.cuh"
#include "../core/tensor.h"
#include "scan.h"

/* Below this chunk length the chunked route stops splitting: the per-chunk overhead (one
 * carry, a second walk) is paid on too few steps. */
#define MIN_CHUNK 64
/* Steps whose a and b are loaded before the FMA chain uses them: 2·UNROLL loads in flight
 * per thread hide DRAM latency with a few hundred threads per SM. */
#define UNROLL 8
#define BLOCK 256

__device__ __forceinline__ float ld(const float *p) { return *p; }
__device__ __forceinline__ float ld(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
__device__ __forceinline__ void st(float *p, float v) { *p = v; }
__device__ __forceinline__ void st(__nv_bfloat16 *p, float v) { *p = __float2bfloat16(v); }

/* Walk channel c over steps [s0, s1) from state x; step s is time t = reverse ? T-1-s : s.
 * WRITE: store every h_t. Otherwise *prod gets the product of the gates walked (pass 1).
 * Returns the state after the last step. U steps' loads are issued before their FMAs. */
template <int U, bool WRITE, typename E>
__device__ __forceinline__ float walk(int64_t T, int64_t C, int reverse, int64_t c, int64_t s0,
                                      int64_t s1, const E *a, const E *b, E *h, float x,
                                      float *prod)
{
    float p = 1.0f;
    int64_t s = s0;
    for (; s + U <= s1; s += U) {
        float av[U], bv[U];
        int64_t off[U];
#pragma unroll
        for (int k = 0; k < U; k++) {
            off[k] = (reverse ? T - 1 - (s + k) : s + k) * C + c;
            av[k] = ld(a + off[k]);
            bv[k] = ld(b + off[k]);
        }
#pragma unroll
        for (int k = 0; k < U; k++) {
            x = fmaf(av[k], x, bv[k]);
            if (WRITE) st(h + off[k], x);
            else p *= av[k];
        }
    }
    for (; s < s1; s++) {   /* the last s1 - s0 mod U steps */
        int64_t off = (reverse ? T - 1 - s : s) * C + c;
        float av = ld(a + off);
        x = fmaf(av, x, ld(b + off));
        if (WRITE) st(h + off, x);
        else p *= av;
    }
    if (!WRITE) *prod = p;
    return x;
}

/* Channel-parallel (and, with U = 1, the serial baseline): thread c walks all T steps. */
template <int U, typename E>
__global__ void scan_channels_kernel(int64_t T, int64_t C, int reverse, const E *a, const E *b,
                                     const E *h0, E *h)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    walk<U, true>(T, C, reverse, c, 0, T, a, b, h, h0 ? ld(h0 + c) : 0.0f, nullptr);
}

/* Chunked, passes 1 and 3. Item i = (chunk p = i / C, channel c = i % C): consecutive
 * threads take consecutive channels, coalesced when C >= 32. For small C a warp spans
 * several chunks and reads them L steps apart (C = 1: every load its own 32-byte sector,
 * a quarter of each sector used until the neighbouring steps come by): correct, slower. */
template <typename E>
__global__ void scan_chunk_reduce_kernel(int64_t T, int64_t C, int reverse, int64_t L, int64_t P,
                                         const E *a, const E *b, float *A, float *Bc)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= P * C) return;
    int64_t p = i / C, c = i - p * C, s0 = p * L, s1 = min(T, s0 + L);
    float prod;
    Bc[i] = walk<UNROLL, false>(T, C, reverse, c, s0, s1, a, b, (E *)nullptr, 0.0f, &prod);
    A[i] = prod;   /* chunk p maps its carry-in x to A·x + Bc */
}

template <typename E>
__global__ void scan_chunk_apply_kernel(int64_t T, int64_t C, int reverse, int64_t L, int64_t P,
                                        const E *a, const E *b, const float *carry, E *h)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= P * C) return;
    int64_t p = i / C, c = i - p * C, s0 = p * L, s1 = min(T, s0 + L);
    walk<UNROLL, true>(T, C, reverse, c, s0, s1, a, b, h, carry[i], nullptr);
}

/* Chunked, pass 2: one block per channel scans its P chunk maps (A, Bc)[P][C] from h0 and
 * overwrites Bc with each chunk's carry-in. Each thread composes a contiguous run of
 * chunks, the block combines the runs (Hillis–Steele in shared memory, log2(BLOCK)
 * rounds), then each thread rewalks its run from its prefix: depth O(P/BLOCK + log BLOCK).
 * Composition, earlier map (pa, pb) then later (qa, qb): x -> qa·(pa·x + pb) + qb. */
template <typename E>
__global__ void scan_chunk_carry_kernel(int64_t P, int64_t C, const float *A, float *Bc,
                                        const E *h0)
{
    __shared__ float sa[BLOCK], sb[BLOCK];
    int64_t c = blockIdx.x;
    int tid = threadIdx.x;
    int64_t run = (P + BLOCK - 1) / BLOCK, p0 = tid * run, p1 = min(P, p0 + run);
    float ga = 1.0f, gb = 0.0f;   /* identity map */
    for (int64_t p = p0; p < p1; p++) {
        float qa = A[p * C + c];
        gb = fmaf(qa, gb, Bc[p * C + c]);
        ga *= qa;
    }
    sa[tid] = ga, sb[tid] = gb;
    __syncthreads();
    for (int off = 1; off < BLOCK; off *= 2) {   /* inclusive scan of the runs' maps */
        float pa = 1.0f, pb = 0.0f;
        if (tid >= off) pa = sa[tid - off], pb = sb[tid - off];
        __syncthreads();
        if (tid >= off) gb = fmaf(ga, pb, gb), ga *= pa;
        sa[tid] = ga, sb[tid] = gb;
        __syncthreads();
    }
    float x0 = h0 ? ld(h0 + c) : 0.0f;
    float x = tid ? fmaf(sa[tid - 1], x0, sb[tid - 1]) : x0;   /* carry into chunk p0 */
    for (int64_t p = p0; p < p1; p++) {
        float qa = A[p * C + c], qb = Bc[p * C + c];
        Bc[p * C + c] = x;
        x = fmaf(qa, x, qb);
    }
}

/* The route. Channel-parallel needs no second read, so it wins whenever C alone puts
 * enough threads on the GPU: 256 per SM, each with 2·UNROLL loads in flight, is ~2 MB in
 * flight on an H200 — about what ~4 TB/s × ~0.6 µs of DRAM latency asks for. Below that,
 * split T into P chunks so that P·C ≈ 1024 threads per SM (full occupancy), each chunk
 * at least MIN_CHUNK steps; T too short for two such chunks stays channel-parallel. */
static int sm_count(void)
{
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n < 1) {
        cudaGetLastError();   /* scan_cuda's own calls will report a broken device */
        n = 132;
    }
    return n;
}

extern "C" int64_t scan_cuda_channel_threshold(void) { return (int64_t)sm_count() * 256; }

/* Chunk count P (1: channel-parallel) and length L, the last chunk non-empty. */
static void plan(int64_t T, int64_t C, int64_t *P, int64_t *L)
{
    int64_t sms = sm_count();
    *P = 1, *L = T;
    if (C >= sms * 256 || T < 2 * MIN_CHUNK) return;
    int64_t want = (sms * 1024 + C - 1) / C, most = T / MIN_CHUNK;
    int64_t p = want < most ? want : most;   /* >= 2: C < 256·sms and T >= 2·MIN_CHUNK */
    *L = (T + p - 1) / p;
    *P = (T + *L - 1) / *L;
}

extern "C" const char *scan_cuda_route(int64_t T, int64_t C)
{
    int64_t P, L;
    plan(T, C, &P, &L);
    return P > 1 ? "chunked" : "channels";
}

static logt_status check_args(const char *op, int64_t T, int64_t C, logt_dtype dt)
{
    if (T < 1)
        return LOGT_FAIL(LOGT_EINVAL, "%s: T = %lld steps: a scan needs at least one step (T >= 1)",
                         op, (long long)T);
    if (C < 1)
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: C = %lld channels: a scan needs at least one channel (C >= 1)", op,
                         (long long)C);
    if (dt != LOGT_F32 && dt != LOGT_BF16)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "%s: dtype %s: the CUDA scan takes f32 or bf16 arrays. HINT: convert "
                         "with logt_tensor_copy, or use scan_cpu for f64",
                         op, logt_dtype_name(dt));
    return LOGT_OK;
}

static unsigned blocks_for(int64_t n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

template <typename E>
static logt_status scan_typed(logt_ctx *ctx, int reverse, int64_t T, int64_t C, const E *a,
                              const E *b, const E *h0, E *h)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    int64_t P, L;
    plan(T, C, &P, &L);
    if (P == 1) {
        scan_channels_kernel<UNROLL, E><<<blocks_for(C), BLOCK, 0, st>>>(T, C, reverse, a, b, h0, h);
        LAUNCH_TRY();
        return LOGT_OK;
    }
    logt_tensor scratch;   /* A [P][C] then Bc [P][C], fp32 */
    LOGT_TRY(logt_tensor_new1(&scratch, LOGT_CUDA, LOGT_F32, 2 * P * C));
    float *A = (float *)scratch.data, *Bc = A + P * C;
    logt_status s = LOGT_OK;
    scan_chunk_reduce_kernel<E><<<blocks_for(P * C), BLOCK, 0, st>>>(T, C, reverse, L, P, a, b, A, Bc);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) {
        scan_chunk_carry_kernel<E><<<(unsigned)C, BLOCK, 0, st>>>(P, C, A, Bc, h0);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) {
        scan_chunk_apply_kernel<E><<<blocks_for(P * C), BLOCK, 0, st>>>(T, C, reverse, L, P, a, b, Bc, h);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);   /* the kernels are done with scratch */
    if (e != cudaSuccess)
        s = LOGT_FAIL(LOGT_ECUDA, "scan_cuda (chunked, P = %lld chunks of %lld steps) failed: %s (%s). HINT: %s",
                      (long long)P, (long long)L, cudaGetErrorName(e), cudaGetErrorString(e),
                      logt_cuda_hint(e));
    logt_tensor_free(&scratch);
    return s;
}

extern "C" logt_status scan_cuda(logt_ctx *ctx, int reverse, int64_t T, int64_t C, logt_dtype dt,
                                 const void *a, const void *b, const void *h0, void *h)
{
    LOGT_TRY(check_args("scan_cuda", T, C, dt));
    if (dt == LOGT_F32)
        return scan_typed(ctx, reverse, T, C, (const float *)a, (const float *)b,
                          (const float *)h0, (float *)h);
    return scan_typed(ctx, reverse, T, C, (const __nv_bfloat16 *)a, (const __nv_bfloat16 *)b,
                      (const __nv_bfloat16 *)h0, (__nv_bfloat16 *)h);
}

extern "C" logt_status scan_cuda_serial(logt_ctx *ctx, int reverse, int64_t T, int64_t C,
                                        logt_dtype dt, const void *a, const void *b,
                                        const void *h0, void *h)
{
    LOGT_TRY(check_args("scan_cuda_serial", T, C, dt));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (dt == LOGT_F32)
        scan_channels_kernel<1, float><<<blocks_for(C), BLOCK, 0, st>>>(
            T, C, reverse, (const float *)a, (const float *)b, (const float *)h0, (float *)h);
    else
        scan_channels_kernel<1, __nv_bfloat16><<<blocks_for(C), BLOCK, 0, st>>>(
            T, C, reverse, (const __nv_bfloat16 *)a, (const __nv_bfloat16 *)b,
            (const __nv_bfloat16 *)h0, (__nv_bfloat16 *)h);
    LAUNCH_TRY();
    return LOGT_OK;
}
