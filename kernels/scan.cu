/* scan.cu — the linear scan h_t = a_t ⊙ h_{t-1} + b_t on the GPU (scan.h), f32, bf16 or f16
 * arrays [T][C] (T steps, C channels), fp32 arithmetic, forward or reversed. The kernels are
 * in scan_kernels.cuh (a thread per channel) and scan_vec.cuh (16-bit arrays, 8 channels a
 * thread in 16-byte vectors); this file picks the route and launches.
 *
 * Bounds. Flops are negligible (one FMA per element); the scan is bound by memory. The
 * least it can move is a, b read once and h written once: 3·T·C·bytes. At the H200's
 * ~4.3 TB/s copy bandwidth, (C, T) = (65536, 16384) fp32 is 2^30 elements: 12.9 GB, 3.0 ms;
 * (1024, 2^20) the same; (32, 2^22) 1.6 GB, 0.37 ms; in bf16 or f16 half of each. Every route
 * moves 3·T·C·bytes:
 *   channels  one thread per channel walks T (scan_channels_kernel): needs C alone to fill
 *             the GPU.
 *   lookback  one pass with decoupled look-back (scan_lbs_kernel): tiles of steps ×
 *             channels, each read once (part staged in shared memory, part in registers:
 *             "lookback-staged"; or, when too few of those would fill the GPU, tiles half as
 *             long in registers only: "lookback"), carries passed between tiles through one
 *             16-byte status word per (tile, channel), stamped with the call's number
 *             (logt_ctx_tagged), so that no memset of the words runs before each call.
 *   *-vec     16-bit arrays with C a multiple of 8 (C >= 32) and a, b, h 16-byte aligned: the
 *             same routes with 8 channels a thread, every load and store 16 bytes
 *             (scan_wchannels_kernel, scan_vlbs_kernel; scan_vec.cuh says why).
 *   channels-pair  16-bit arrays with C even and C alone filling the GPU, where the vector
 *             channel route does not apply: the channel route with 2 channels a thread,
 *             every access 4 bytes (scan_wchannels_kernel, W = 2).
 *   lookback-*2step-vec  16-bit vectors at C = 32, where a row is half a 128-byte line: the
 *             look-back tiles with each line's two steps loaded by one warp instruction and
 *             swapped between partner threads (scan_plbs_kernel).
 * The workbench kernels/dev/scan.cu times these against the versions that lost (serial,
 * three-pass reduce-then-scan as Martin & Cundy did it, and the look-back's variants);
 * experiments/scan-bandwidth/README.md, "Design notes", records how each did.
 */
#include <atomic>

#include "../core/cuda.h"
#include "../core/cuda_check.cuh"
#include "../core/tensor.h"
#include "scan.h"
#include "scan_kernels.cuh"
#include "scan_vec.cuh"

/* Steps whose a and b are loaded before the FMA chain uses them (channel route); the pair
 * route's threads are half as many for the same C and their loads a quarter the bytes, so they
 * load four times the steps, in blocks of PAIR_BLOCK threads. */
#define UNROLL 8
#define UNROLL_PAIR 32
#define PAIR_BLOCK 128
/* Steps per thread in a look-back tile: VS staged in shared memory, then SCAN_LBS_VR in
 * registers (scan_kernels.cuh); the whole tile read once. f32: VS = SCAN_LBS_VS (32), tiles
 * of 512 steps and 64 KB of shared memory. bf16 and f16 a channel a thread (the arrays the
 * vector tiles below do not take; half the bytes a step, so twice the steps for a tile's fixed
 * cost): VS = 96, tiles of 1024 steps in 96 KB, and h written in 16-byte pieces through shared
 * memory (VST, scan_lbs_out), where a 16-bit thread's own store is 2 bytes. In f32,
 * VST, 640-step tiles (VS = 48) and longer look-back windows in the registers a shorter
 * register part frees (VR = 24 or 16, Q = 12 or 16) all measured slower than VS = VR = 32,
 * Q = 8 (experiments/scan-bandwidth, Design notes). The macros let an A/B build change them;
 * lbs_cfg is the one place that reads them. */
#ifndef LOGT_SCAN_VS_F32
#define LOGT_SCAN_VS_F32 SCAN_LBS_VS
#endif
#ifndef LOGT_SCAN_VS_BF16
#define LOGT_SCAN_VS_BF16 96
#endif
#ifndef LOGT_SCAN_VST_BF16
#define LOGT_SCAN_VST_BF16 1
#endif
#ifndef LOGT_SCAN_VR_F32
#define LOGT_SCAN_VR_F32 SCAN_LBS_VR
#endif
#ifndef LOGT_SCAN_Q_F32
#define LOGT_SCAN_Q_F32 SCAN_LB2_Q
#endif
#ifndef LOGT_SCAN_VST_F32
#define LOGT_SCAN_VST_F32 0
#endif
template <typename E> struct lbs_cfg {   /* a staged tile of element type E */
    static constexpr int VS = sizeof(E) == 2 ? LOGT_SCAN_VS_BF16 : LOGT_SCAN_VS_F32;
    static constexpr bool VST = sizeof(E) == 2 ? LOGT_SCAN_VST_BF16 : LOGT_SCAN_VST_F32;
    static constexpr int VR = sizeof(E) == 2 ? SCAN_LBS_VR : LOGT_SCAN_VR_F32;   /* in registers */
    static constexpr int Q = sizeof(E) == 2 ? SCAN_LB2_Q : LOGT_SCAN_Q_F32;       /* look-back words */
    static constexpr int V = VS + VR;   /* steps a thread */
};
/* Steps per thread in a 16-bit vector tile (scan_vec.cuh): VS staged, VR in registers; tiles of
 * 64·(VS + VR) steps, 1024 at VS = VR = 8 (128 KB of a and b, as an f32 tile), and 512 in
 * registers only (VS = 0) where staged tiles would not fill the GPU. */
#ifndef LOGT_SCAN_VEC_VS
#define LOGT_SCAN_VEC_VS 8
#endif
#ifndef LOGT_SCAN_VEC_VR
#define LOGT_SCAN_VEC_VR 8
#endif
/* Channels of a vector tile where C >= 64: 64 (rows of whole 128-byte lines, tiles of 512
 * steps: scan_vec.cuh), or 32; below 64 channels, 32. A 32-channel row is half a line. At
 * C = 32 the paired-step tile takes two rows a line (scan_plbs_kernel); from 40 to 56 channels
 * the 32-channel tile loads with an L2 prefetch hint of LOGT_SCAN_VEC_PF32 bytes, so that the
 * line's other half, the thread's next step, comes in the same request, and takes the
 * direction as a template argument, so the direction's branches and index arithmetic are
 * settled at compile time. */
#ifndef LOGT_SCAN_VEC_CB
#define LOGT_SCAN_VEC_CB 64
#endif
#ifndef LOGT_SCAN_VEC_PF32
#define LOGT_SCAN_VEC_PF32 128
#endif
static int vec_cb(int64_t C) { return LOGT_SCAN_VEC_CB == 64 && C >= 64 ? 64 : 32; }
#define BLOCK 256

/* The look-back tiling of scan_kernels.cuh: Cb channels × lanes·V steps per tile. */
typedef struct lb_plan {
    int Cb, lanes;
    int64_t G, K, ntiles;
    size_t bytes;   /* the status words (logt_ctx_tagged) */
} lb_plan;

static lb_plan lb_make(int64_t T, int64_t C, int V, int Cb = 0)   /* Cb: 0 scan_lb_channels(C) */
{
    lb_plan p;
    p.Cb = Cb ? Cb : scan_lb_channels(C);
    p.lanes = SCAN_LB_THREADS / p.Cb;
    p.G = (C + p.Cb - 1) / p.Cb;
    const int64_t L = (int64_t)p.lanes * V;
    p.K = (T + L - 1) / L;
    p.ntiles = p.G * p.K;
    p.bytes = (size_t)p.ntiles * p.Cb * sizeof(uint4);
    return p;
}

/* The route. Channel-parallel needs no workspace and no look-back, so it wins whenever C
 * alone puts enough threads on the GPU: 256 per SM, each with 2·UNROLL loads in flight, is
 * ~2 MB in flight on an H200 — about what ~4 TB/s × ~0.5 µs of DRAM latency asks for. Below
 * that, tiles over T give the parallelism: the look-back route (unless T is short). */

extern "C" int64_t scan_cuda_channel_threshold(void) { return (int64_t)logt_cuda_sm_count() * 256; }

/* Below SHORT_T steps the look-back's fixed costs (the status words, a tile of 8·V steps
 * mostly empty) outweigh walking T: the channel route, whatever C. (Set with 256-step tiles:
 * experiments/scan-table1, Design notes.) */
#define SHORT_T 128

static int use_channels(int64_t T, int64_t C)
{
    return C >= scan_cuda_channel_threshold() || T < SHORT_T;
}

/* Staged tiles (VS + VR steps a thread) while they fill the GPU's resident slots (two blocks
 * an SM); fewer, and the scan is latency-bound: register-only tiles of VR steps, twice as many
 * tiles and half the serial work a thread (experiments/scan-table1, Design notes). */
static int use_staged(int64_t T, int64_t C, int V, int Cb = 0)
{
    return lb_make(T, C, V, Cb).ntiles >= 2 * (int64_t)logt_cuda_sm_count();
}

/* A vector tile as lb_make counts it: the steps of a scalar lane, which composes `per` vector
 * lanes of VS + VR steps (8 at either width: scan_vec.cuh). */
static constexpr int vec_V(int VS, int VR) { return scan_vec_tile<32>::per * (VS + VR); }

/* 16-bit arrays go in 16-byte vectors where C is a multiple of 8 and fills a 32-channel tile, and
 * every array is 16-byte aligned (ptrs: the arrays' addresses or-ed; NULL counts as aligned). */
static int vec_ok(int bits16, int64_t C, uintptr_t ptrs)
{
    return bits16 && C % SCAN_VEC_W == 0 && C >= 32 && (ptrs & 15) == 0;
}

/* 16-bit arrays go in pairs of channels where C is even and every array 4-byte aligned. */
static int pair_ok(int bits16, int64_t C, uintptr_t ptrs)
{
    return bits16 && C % 2 == 0 && (ptrs & 3) == 0;
}

enum route {
    R_CHANNELS, R_LOOKBACK, R_STAGED, R_VCHANNELS, R_VLOOKBACK, R_VSTAGED, R_PCHANNELS, R_2LOOKBACK, R_2STAGED
};
static const char *const route_name[] = {"channels",      "lookback",           "lookback-staged",
                                         "channels-vec",  "lookback-vec",       "lookback-staged-vec",
                                         "channels-pair", "lookback-2step-vec", "lookback-staged-2step-vec"};

/* The route of a shape; vec: vec_ok, pair: pair_ok. In vectors a thread takes 8 channels, so the
 * vector channel route needs 8 times the channels; from the scalar route's threshold up to that,
 * pairs of channels; below it the vector tiles (at C = 32 the paired-step tiles, whose warp loads
 * are whole lines: scan_vec.cuh), unless T is short (the scalar channel route, as for every
 * dtype). */
static route pick_route(int64_t T, int64_t C, logt_dtype dt, int vec, int pair)
{
    if (vec && C / SCAN_VEC_W >= scan_cuda_channel_threshold()) return R_VCHANNELS;
    if (pair && C >= scan_cuda_channel_threshold()) return R_PCHANNELS;
    if (vec && T >= SHORT_T) {
        const int staged = use_staged(T, C, vec_V(LOGT_SCAN_VEC_VS, LOGT_SCAN_VEC_VR), vec_cb(C));
        if (C == 32) return staged ? R_2STAGED : R_2LOOKBACK;
        return staged ? R_VSTAGED : R_VLOOKBACK;
    }
    if (use_channels(T, C)) return R_CHANNELS;
    const int V = dt == LOGT_F32 ? lbs_cfg<float>::V : lbs_cfg<__nv_bfloat16>::V;
    return use_staged(T, C, V) ? R_STAGED : R_LOOKBACK;
}

extern "C" const char *scan_cuda_route(int64_t T, int64_t C, logt_dtype dt)
{
    return route_name[pick_route(T, C, dt, vec_ok(dt != LOGT_F32, C, 0), pair_ok(dt != LOGT_F32, C, 0))];
}

/* The checks every entry point makes: a cuda context, sizes, dtype, and the arrays that must
 * be there (x, y, z: the inputs and the output it names in the message). */
static logt_status check_args(const char *op, logt_ctx *ctx, int64_t T, int64_t C, logt_dtype dt,
                              const void *x, const void *y, const void *z, const char *names)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, op));
    if (T < 1)
        return LOGT_FAIL(LOGT_EINVAL, "%s: T = %lld steps: a scan needs at least one step (T >= 1)",
                         op, (long long)T);
    if (C < 1)
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: C = %lld channels: a scan needs at least one channel (C >= 1)", op,
                         (long long)C);
    if (dt != LOGT_F32 && dt != LOGT_BF16 && dt != LOGT_F16)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "%s: dtype %s: the CUDA scan takes f32, bf16 or f16 arrays. HINT: "
                         "convert with logt_tensor_copy, or use scan_cpu for f64",
                         op, logt_dtype_name(dt));
    if (!x || !y || !z)
        return LOGT_FAIL(LOGT_EINVAL, "%s: %s must be device arrays of T·C elements, and one is "
                         "NULL", op, names);
    return LOGT_OK;
}

/* Blocks of `block` threads for n threads, one each (the channel kernels are not grid-stride). */
static unsigned blocks_for(int64_t n, int block = BLOCK) { return (unsigned)((n + block - 1) / block); }

static logt_status cuda_fail(const char *what, cudaError_t e)
{
    return LOGT_FAIL(LOGT_ECUDA, "%s failed: %s (%s). HINT: %s", what, cudaGetErrorName(e),
                     cudaGetErrorString(e), logt_cuda_hint(e));
}

/* Shared memory past 48 KB is opted in per kernel and per device, once: the driver call costs
 * microseconds, which a short scan would otherwise wait for on every launch. ready[d] is set
 * once device d has it (threads that race both make the call, which is harmless). A
 * cudaDeviceReset would drop the opt-in behind the flag's back; nothing here calls one, and
 * the launch after it would fail loudly (LAUNCH_TRY), not compute wrong. A flag per kernel:
 * GOFF, E, H, the direction and VEC (0 a channel a thread, 1 and 2 the vector tiles of 32 and
 * 64 channels, 3 the paired-step tile). */
#define OPT_IN_DEVICES 64
template <int GOFF, typename E, typename H, int REV, int VEC> static std::atomic<int> *ready_on(void)
{
    static std::atomic<int> ready[OPT_IN_DEVICES];
    return ready;
}

static logt_status opt_in_smem(const void *kernel, int smem, std::atomic<int> *ready)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return cuda_fail("scan_cuda: cudaGetDevice", e);
    if (dev < OPT_IN_DEVICES && ready[dev].load(std::memory_order_relaxed)) return LOGT_OK;
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) return cuda_fail("scan_cuda: opting the look-back kernel in to its shared memory", e);
    if (dev < OPT_IN_DEVICES) ready[dev].store(1, std::memory_order_relaxed);
    return LOGT_OK;
}

/* The look-back's plan for tiles of V steps a lane, and its status words, stamped with this
 * call's number: the previous calls' read EMPTY, so no memset runs before the kernel (tile ids
 * are blockIdx: no counter to zero either). They start the buffer, so a tile's 32 words are
 * four 128-byte lines (16 bytes in, five: measured slower, experiments/scan-bandwidth, Design
 * notes). */
static logt_status lb_begin(logt_ctx *ctx, int64_t T, int64_t C, int V, lb_plan *p, scan_lb2_status *status,
                            int Cb = 0)
{
    *p = lb_make(T, C, V, Cb);
    if (p->ntiles > 0x7fffffffLL)
        return LOGT_FAIL(LOGT_EINVAL, "scan_cuda: T = %lld, C = %lld makes %lld tiles, more than a "
                         "grid holds (2^31 - 1)", (long long)T, (long long)C, (long long)p->ntiles);
    void *words;
    uint32_t tag;
    LOGT_TRY(logt_ctx_tagged(ctx, p->bytes, &words, &tag));
    *status = scan_lb2_status{NULL, words, tag};
    return LOGT_OK;
}

/* Forward staged tiles of the plain scan take the direction as a template argument (REV,
 * scan_kernels.cuh); reversed ones (the backward's among them) and register-only tiles as an
 * argument: fixed, the reversed f32 scan measured slower, bf16's reversed no faster, and the
 * register-only forward kernels spill (experiments/scan-bandwidth, Design notes). The
 * 64-channel vector tiles follow the same rule; the 32-channel ones fix the direction both ways
 * (LOGT_SCAN_VEC_CB above). */
template <int GOFF> struct fwd_rev {
    static constexpr int FWD = GOFF == 0 ? 0 : -1;   /* GOFF = 1 is only ever reversed */
};

/* The look-back route, a channel a thread (scan_lbs_kernel). */
template <int GOFF, typename E, typename H>
static logt_status scan_lookback(logt_ctx *ctx, int reverse, int staged, int64_t T, int64_t C, const E *a,
                                 const E *b, const H *h0, E *h)
{
    constexpr int VS = lbs_cfg<E>::VS, FWD = fwd_rev<GOFF>::FWD;
    constexpr bool VST = lbs_cfg<E>::VST;
    lb_plan p;
    scan_lb2_status status;
    LOGT_TRY(lb_begin(ctx, T, C, staged ? lbs_cfg<E>::V : SCAN_LBS_VR, &p, &status));
    const int smem = staged ? SCAN_LB_THREADS * VS * 2 * (int)sizeof(E) : 0;
    typedef void (*lbs_fn)(int64_t, int64_t, int, int, int, int64_t, const E *, const E *, const H *, E *,
                           scan_lb2_status);
    const lbs_fn kernel = !staged ? scan_lbs_kernel<0, SCAN_LBS_VR, GOFF, E, H>
                          : reverse ? scan_lbs_kernel<VS, lbs_cfg<E>::VR, GOFF, E, H, -1, lbs_cfg<E>::Q, true, true,
                                                      false, 2, VST>
                                    : scan_lbs_kernel<VS, lbs_cfg<E>::VR, GOFF, E, H, FWD, lbs_cfg<E>::Q, true, true,
                                                      false, 2, VST>;
    if (staged)
        LOGT_TRY(opt_in_smem((const void *)kernel, smem,
                             reverse ? ready_on<GOFF, E, H, -1, 0>() : ready_on<GOFF, E, H, FWD, 0>()));
    kernel<<<(unsigned)p.ntiles, SCAN_LB_THREADS, smem, (cudaStream_t)ctx->stream>>>(
        T, C, reverse, p.Cb, p.lanes, p.G, a, b, h0, h, status);
    LAUNCH_TRY();
    return LOGT_OK;
}

/* The look-back route in 16-byte vectors (scan_vlbs_kernel), 16-bit E, tiles of CB channels. */
template <int GOFF, int CB, typename E, typename H>
static logt_status scan_vec_lookback_cb(logt_ctx *ctx, int reverse, int staged, int64_t T, int64_t C, const E *a,
                                        const E *b, const H *h0, E *h)
{
    constexpr int VS = LOGT_SCAN_VEC_VS, VR = LOGT_SCAN_VEC_VR, FWD = fwd_rev<GOFF>::FWD;
    constexpr int REV = CB == 32 ? 1 : -1, PF = CB == 32 ? LOGT_SCAN_VEC_PF32 : 0;
    lb_plan p;
    scan_lb2_status status;
    LOGT_TRY(lb_begin(ctx, T, C, staged ? vec_V(VS, VR) : vec_V(0, VR), &p, &status, CB));
    const int smem = staged ? SCAN_LB_THREADS * VS * 2 * (int)sizeof(uint4) : 0;
    typedef void (*vlbs_fn)(int64_t, int64_t, int, int64_t, const E *, const E *, const H *, E *, scan_lb2_status);
    const vlbs_fn kernel = !staged ? scan_vlbs_kernel<0, VR, GOFF, E, H, -1, 0, CB>
                           : reverse ? scan_vlbs_kernel<VS, VR, GOFF, E, H, REV, PF, CB>
                                     : scan_vlbs_kernel<VS, VR, GOFF, E, H, FWD, PF, CB>;
    if (staged)
        LOGT_TRY(opt_in_smem((const void *)kernel, smem,
                             reverse ? ready_on<GOFF, E, H, REV, CB / 32>() : ready_on<GOFF, E, H, FWD, CB / 32>()));
    kernel<<<(unsigned)p.ntiles, SCAN_LB_THREADS, smem, (cudaStream_t)ctx->stream>>>(T, C, reverse, p.G, a, b,
                                                                                      h0, h, status);
    LAUNCH_TRY();
    return LOGT_OK;
}

/* The paired-step tiles (scan_plbs_kernel), C = 32: as many steps a tile as the vector tile's, the
 * direction a template argument both ways. */
template <int GOFF, typename E, typename H>
static logt_status scan_2step_lookback(logt_ctx *ctx, int reverse, int staged, int64_t T, const E *a, const E *b,
                                       const H *h0, E *h)
{
    constexpr int VS = LOGT_SCAN_VEC_VS, VR = LOGT_SCAN_VEC_VR;
    lb_plan p;
    scan_lb2_status status;
    LOGT_TRY(lb_begin(ctx, T, 32, staged ? vec_V(VS, VR) : vec_V(0, VR), &p, &status, 32));
    const int smem = staged ? SCAN_LB_THREADS * VS * 2 * (int)sizeof(uint4) : 0;
    typedef void (*plbs_fn)(int64_t, const E *, const E *, const H *, E *, scan_lb2_status);
    const plbs_fn kernel = staged ? reverse ? scan_plbs_kernel<VS, VR, GOFF, E, H, 1>
                                            : scan_plbs_kernel<VS, VR, GOFF, E, H, 0>
                                  : reverse ? scan_plbs_kernel<0, VR, GOFF, E, H, 1>
                                            : scan_plbs_kernel<0, VR, GOFF, E, H, 0>;
    if (staged)
        LOGT_TRY(opt_in_smem((const void *)kernel, smem,
                             reverse ? ready_on<GOFF, E, H, 1, 3>() : ready_on<GOFF, E, H, 0, 3>()));
    kernel<<<(unsigned)p.ntiles, SCAN_LB_THREADS, smem, (cudaStream_t)ctx->stream>>>(T, a, b, h0, h, status);
    LAUNCH_TRY();
    return LOGT_OK;
}

template <int GOFF, typename E, typename H>
static logt_status scan_vec_lookback(logt_ctx *ctx, int reverse, int staged, int64_t T, int64_t C, const E *a,
                                     const E *b, const H *h0, E *h)
{
    if constexpr (LOGT_SCAN_VEC_CB == 64)
        if (vec_cb(C) == 64) return scan_vec_lookback_cb<GOFF, 64>(ctx, reverse, staged, T, C, a, b, h0, h);
    return scan_vec_lookback_cb<GOFF, 32>(ctx, reverse, staged, T, C, a, b, h0, h);
}

template <int GOFF, typename E, typename H = E>
static logt_status scan_typed(logt_ctx *ctx, int reverse, int64_t T, int64_t C, const E *a,
                              const E *b, const H *h0, E *h)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const uintptr_t ptrs = (uintptr_t)a | (uintptr_t)b | (uintptr_t)h;
    const int vec = vec_ok(sizeof(E) == 2, C, ptrs), pair = pair_ok(sizeof(E) == 2, C, ptrs);
    const route r = pick_route(T, C, sizeof(E) == 2 ? LOGT_BF16 : LOGT_F32, vec, pair);
    if (r == R_CHANNELS) {
        scan_channels_kernel<UNROLL, GOFF, E, H><<<blocks_for(C), BLOCK, 0, st>>>(T, C, reverse, a,
                                                                                  b, h0, h);
        LAUNCH_TRY();
        return LOGT_OK;
    }
    if constexpr (sizeof(E) == 2) {
        if (r == R_VCHANNELS) {
            scan_wchannels_kernel<SCAN_VEC_W, UNROLL, GOFF, E, H><<<blocks_for(C / SCAN_VEC_W), BLOCK, 0, st>>>(
                T, C, reverse, a, b, h0, h);
            LAUNCH_TRY();
            return LOGT_OK;
        }
        if (r == R_PCHANNELS) {
            scan_wchannels_kernel<2, UNROLL_PAIR, GOFF, E, H><<<blocks_for(C / 2, PAIR_BLOCK), PAIR_BLOCK, 0, st>>>(
                T, C, reverse, a, b, h0, h);
            LAUNCH_TRY();
            return LOGT_OK;
        }
        if (r == R_VSTAGED || r == R_VLOOKBACK)
            return scan_vec_lookback<GOFF>(ctx, reverse, r == R_VSTAGED, T, C, a, b, h0, h);
        if (r == R_2STAGED || r == R_2LOOKBACK)
            return scan_2step_lookback<GOFF>(ctx, reverse, r == R_2STAGED, T, a, b, h0, h);
    }
    return scan_lookback<GOFF>(ctx, reverse, r == R_STAGED, T, C, a, b, h0, h);
}

/* goff: the gates' offset, 0 (scan) or +1 (the backward's shifted gates), see scan_kernels.cuh */
static logt_status scan_dispatch(logt_ctx *ctx, int reverse, int goff, int64_t T, int64_t C,
                                 logt_dtype dt, const void *a, const void *b, const void *h0,
                                 void *h)
{
    return logt_by_dtype(dt, [&](auto e) {
        typedef typename decltype(e)::type E;
        return goff == 0 ? scan_typed<0>(ctx, reverse, T, C, (const E *)a, (const E *)b, (const E *)h0, (E *)h)
                         : scan_typed<1>(ctx, reverse, T, C, (const E *)a, (const E *)b, (const E *)h0, (E *)h);
    });
}

extern "C" logt_status scan_cuda(logt_ctx *ctx, int reverse, int64_t T, int64_t C, logt_dtype dt,
                                 const void *a, const void *b, const void *h0, void *h)
{
    LOGT_TRY(check_args("scan_cuda", ctx, T, C, dt, a, b, h, "a, b and h"));
    return scan_dispatch(ctx, reverse, 0, T, C, dt, a, b, h0, h);
}

extern "C" logt_status scan_cuda_f32_state(logt_ctx *ctx, int reverse, int64_t T, int64_t C,
                                           logt_dtype dt, const void *a, const void *b,
                                           const float *h0, void *h)
{
    LOGT_TRY(check_args("scan_cuda_f32_state", ctx, T, C, dt, a, b, h, "a, b and h"));
    return logt_by_dtype(dt, [&](auto e) {
        typedef typename decltype(e)::type E;
        return scan_typed<0>(ctx, reverse, T, C, (const E *)a, (const E *)b, h0, (E *)h);
    });
}

/* Martin & Cundy's serial kernel: one thread per channel, one step at a time. */
static logt_status scan_serial(logt_ctx *ctx, int reverse, int goff, int64_t T, int64_t C, logt_dtype dt,
                               const void *a, const void *b, const void *h0, void *h)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    logt_by_dtype(dt, [&](auto e) {
        typedef typename decltype(e)::type E;
        if (goff == 0)
            scan_channels_kernel<1, 0, E><<<blocks_for(C), BLOCK, 0, st>>>(T, C, reverse, (const E *)a,
                                                                           (const E *)b, (const E *)h0, (E *)h);
        else
            scan_channels_kernel<1, 1, E><<<blocks_for(C), BLOCK, 0, st>>>(T, C, reverse, (const E *)a,
                                                                           (const E *)b, (const E *)h0, (E *)h);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}

/* The shifted reversed scan of the backward, parallel (the routes above) or serial. */
static logt_status scan_backward_g(logt_ctx *ctx, int serial, int64_t T, int64_t C, logt_dtype dt,
                                   const void *a, const void *dh, void *db)
{
    return serial ? scan_serial(ctx, 1, +1, T, C, dt, a, dh, NULL, db)
                  : scan_dispatch(ctx, 1, +1, T, C, dt, a, dh, NULL, db);
}

/* da and dh0 from g (in db): a thread an element, or for 16-bit arrays with C a multiple of 8
 * and every array 16-byte aligned, 8 elements a thread in 16-byte vectors. */
static logt_status scan_backward_rest(logt_ctx *ctx, int64_t T, int64_t C, logt_dtype dt, const void *a,
                                      const void *h0, const void *h, const void *db, void *da, void *dh0)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const uintptr_t ptrs = (uintptr_t)a | (uintptr_t)h0 | (uintptr_t)h | (uintptr_t)db | (uintptr_t)da |
                           (uintptr_t)dh0;
    const int vec = dt != LOGT_F32 && C % SCAN_VEC_W == 0 && (ptrs & 15) == 0;
    const int64_t n = vec ? T * C / SCAN_VEC_W : T * C, nb = (n + BLOCK - 1) / BLOCK;
    const unsigned grid = (unsigned)(nb < 65536 ? nb : 65536);
    logt_by_dtype(dt, [&](auto e) {
        typedef typename decltype(e)::type E;
        if constexpr (sizeof(E) == 2)
            if (vec) {
                scan_backward_rest_vec_kernel<E><<<grid, BLOCK, 0, st>>>(
                    T, C, (const E *)a, (const E *)h0, (const E *)h, (const E *)db, (E *)da, (E *)dh0);
                return 0;
            }
        scan_backward_rest_kernel<E><<<grid, BLOCK, 0, st>>>(T, C, (const E *)a, (const E *)h0, (const E *)h,
                                                             (const E *)db, (E *)da, (E *)dh0);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}

static logt_status scan_backward_impl(logt_ctx *ctx, int serial, int64_t T, int64_t C,
                                      logt_dtype dt, const void *a, const void *h0, const void *h,
                                      const void *dh, void *da, void *db, void *dh0)
{
    const char *op = serial ? "scan_backward_cuda_serial" : "scan_backward_cuda";
    LOGT_TRY(check_args(op, ctx, T, C, dt, a, dh, db, "a, dh and db"));
    if (da && !h)
        return LOGT_FAIL(LOGT_EINVAL, "%s: da needs the forward's output h, and h is NULL", op);
    /* g_t = dh_t + a_{t+1} ⊙ g_{t+1}: reversed, gates one step later, g_{T-1} = dh_{T-1} */
    LOGT_TRY(scan_backward_g(ctx, serial, T, C, dt, a, dh, db));
    if (!da && !dh0) return LOGT_OK;
    return scan_backward_rest(ctx, T, C, dt, a, h0, h, db, da, dh0);
}

extern "C" logt_status scan_backward_cuda(logt_ctx *ctx, int64_t T, int64_t C, logt_dtype dt,
                                          const void *a, const void *h0, const void *h,
                                          const void *dh, void *da, void *db, void *dh0)
{
    return scan_backward_impl(ctx, 0, T, C, dt, a, h0, h, dh, da, db, dh0);
}

extern "C" logt_status scan_backward_cuda_serial(logt_ctx *ctx, int64_t T, int64_t C,
                                                 logt_dtype dt, const void *a, const void *h0,
                                                 const void *h, const void *dh, void *da,
                                                 void *db, void *dh0)
{
    return scan_backward_impl(ctx, 1, T, C, dt, a, h0, h, dh, da, db, dh0);
}

extern "C" logt_status scan_cuda_serial(logt_ctx *ctx, int reverse, int64_t T, int64_t C,
                                        logt_dtype dt, const void *a, const void *b,
                                        const void *h0, void *h)
{
    LOGT_TRY(check_args("scan_cuda_serial", ctx, T, C, dt, a, b, h, "a, b and h"));
    return scan_serial(ctx, reverse, 0, T, C, dt, a, b, h0, h);
}

extern "C" logt_status scan_cuda_serial_unrolled(logt_ctx *ctx, int reverse, int64_t T, int64_t C,
                                                 logt_dtype dt, const void *a, const void *b,
                                                 const void *h0, void *h)
{
    LOGT_TRY(check_args("scan_cuda_serial_unrolled", ctx, T, C, dt, a, b, h, "a, b and h"));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    logt_by_dtype(dt, [&](auto e) {
        typedef typename decltype(e)::type E;
        scan_channels_kernel<UNROLL, 0, E><<<blocks_for(C), BLOCK, 0, st>>>(T, C, reverse, (const E *)a,
                                                                            (const E *)b, (const E *)h0, (E *)h);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}
