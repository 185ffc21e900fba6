/* fused_launch.cu — the host side of the fused kernels (the C API of fused.h): the table of
 * instantiated kernels, the knobs' rules, the plan (the tuner fed the kernels' real register
 * counts, clusters checked on the device) and the launch of a pass.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "fused_kernels.cuh"

/* a row of the table: each pass's kernels (fused_kernels.cuh) */
struct Instance { flashrnn_instance id; PassKernels fwd, bwd; };

#define FLASHRNN_ROW(C, T, K) \
    {{C::G, IsSlstm<C>::value, (int)sizeof(T), K, DtypeOf<T>::value}, forward_kernels<C, T, K>(), \
     backward_kernels<C, T, K>()},
static const Instance INSTANCES[] = {FLASHRNN_INSTANCES(FLASHRNN_ROW)};
enum { N_INSTANCES = sizeof INSTANCES / sizeof INSTANCES[0] };

extern "C" const flashrnn_instance *flashrnn_fused_table(int *n)
{
    static flashrnn_instance ids[N_INSTANCES];
    for (int i = 0; i < N_INSTANCES; i++) ids[i] = INSTANCES[i].id;
    *n = N_INSTANCES;
    return ids;
}

/* Whether row id is of a's cell and dtype. */
static bool row_of(const flashrnn_instance &id, int G, int slstm, logt_dtype dtype)
{
    return id.G == G && id.slstm == (slstm != 0) && id.dtype == dtype;
}

extern "C" unsigned flashrnn_fused_k_slices(int G, int slstm, logt_dtype dtype)
{
    unsigned m = 0;
    for (int i = 0; i < N_INSTANCES; i++)
        if (row_of(INSTANCES[i].id, G, slstm, dtype)) m |= 1u << (INSTANCES[i].id.k_slice / 16);
    return m;
}

static const Instance *find(const flashrnn_fused_args *a, int k_slice)
{
    for (int i = 0; i < N_INSTANCES; i++)
        if (row_of(INSTANCES[i].id, a->G, a->slstm, a->dtype) && INSTANCES[i].id.k_slice == k_slice)
            return &INSTANCES[i];
    return NULL;
}

/* The cell's name, for messages. */
static const char *cell_name(const flashrnn_fused_args *a) { return flashrnn_fused_cell_name(a->G, a->slstm); }

/* wgates: 0 or the cell's G every gate a warp, 1 or 2 below G the split forward's gates
 * kernels (the elman's one gate is every gate) */
static kernel_fn kernel_of(const Instance *in, flashrnn_pass pass, int blocks_per_head, int wgates = 0)
{
    const int split = blocks_per_head > 1;
    if (pass == FLASHRNN_FORWARD && split && (wgates == 1 || wgates == 2) && wgates < in->id.G)
        return in->fwd.gates[wgates - 1];
    return pass == FLASHRNN_FORWARD ? in->fwd.head[split] : in->bwd.head[split];
}

static int dtype_bytes(logt_dtype dt) { return dt == LOGT_BF16 || dt == LOGT_F16 ? 2 : 4; }

/* Whether the forward's exchange is in TaggedUnit's 16-bit words: TagOf's choice, on the host,
 * from the same cell trait (the instantiated cells: SlstmCell, LstmCell for G = 4, GruCell for
 * G = 3, ElmanCell for G = 1). */
static bool unit_words(const flashrnn_fused_args *a)
{
    return dtype_bytes(a->dtype) == 2
           && (a->slstm                 ? SlstmCell::H_UNIT
               : a->G == LstmCell::G    ? LstmCell::H_UNIT
               : a->G == GruCell::G     ? GruCell::H_UNIT
                                        : ElmanCell::H_UNIT);
}

extern "C" int flashrnn_fused_poll_delay(const flashrnn_fused_args *a)
{
    if (a->poll_delay >= 0) return a->poll_delay;
    return unit_words(a) ? FLASHRNN_POLL_DELAY_LSTM_BF16 : FLASHRNN_POLL_DELAY_AUTO;
}

extern "C" size_t flashrnn_fused_xchg_bytes(const flashrnn_fused_args *a)
{
    /* Tagged<float>, TaggedUnit<T>, Tagged<T> of a 16-bit T */
    const size_t word = dtype_bytes(a->dtype) != 2 ? 8 : unit_words(a) ? 2 : 4;
    return (size_t)2 * a->B * a->H * a->dh * word;
}

/* With clusters, the cell's own stores (one per value and block) while a cell thread makes at
 * most 16 of them a step, else the block's copy after a barrier (unless args.cluster_store
 * says); a spread cell (one position a thread) always stores its own. The rule follows
 * flashrnn-cluster-store's runs (experiments/flashrnn-headdim, Design notes): in f32 the copy
 * wins where a cell thread makes many stores, a spread cell's own stores win every row. */
extern "C" int flashrnn_fused_cluster_copy(const flashrnn_fused_args *a, const flashrnn_tiling *t,
                                           flashrnn_pass pass)
{
    if (!t->cluster) return 0;
    if (a->cluster_store) return a->cluster_store == FLASHRNN_STORE_COPY;
    if (flashrnn_fused_cell_spread(a, t)) return 0;
    const int stores = (4 / t->cell_split) * (pass == FLASHRNN_FORWARD ? 1 : a->G) * (t->blocks_per_head - 1);
    return stores > 16;
}

/* Spread or not (Geo::spread). AUTO spreads from warps_k = 4 up: faster there, slower at
 * warps_k = 2 (experiments/flashrnn-headdim, Design notes). */
extern "C" int flashrnn_fused_cell_spread(const flashrnn_fused_args *a, const flashrnn_tiling *t)
{
    if (t->warps_k < 2 || t->warps_k * t->cell_split < 4) return 0;
    if (a->cell_spread == FLASHRNN_SPREAD_AUTO) return t->warps_k >= 4;
    return a->cell_spread == FLASHRNN_SPREAD_ON;
}

/* Whether tiling t's pass can run with 1 or 2 gates a warp: the forward of an lstm in bf16 or
 * f16 whose head is split through global memory (grid) into blocks of one group of 16 units
 * for 8 batch rows, spread over warps_k = dh / 64 warps, 4, 8 or 12 (the dense head of 768:
 * 12; the kernel's sums are unrolled for at most 12). */
static int warp_gates_fit(const flashrnn_fused_args *a, const flashrnn_tiling *t, flashrnn_pass pass)
{
    return pass == FLASHRNN_FORWARD && dtype_bytes(a->dtype) == 2 && a->G == 4 && !a->slstm && t->blocks_per_head > 1
           && !t->cluster && t->batch_tile == 8 && t->heads_per_block * a->dh == 16 * t->blocks_per_head
           && t->cell_split == 1 && t->warps_k % 4 == 0 && t->warps_k <= 12 && a->dh == 64 * t->warps_k
           && flashrnn_fused_cell_spread(a, t);
}

extern "C" int flashrnn_fused_warp_gates(const flashrnn_fused_args *a, const flashrnn_tiling *t,
                                         flashrnn_pass pass)
{
    if (!warp_gates_fit(a, t, pass)) return a->G;
    /* AUTO: 1, a few percent faster than all at the dense head, forward and fwd+bwd
     * (experiments/flashrnn-headdim, Design notes) */
    switch (a->warp_gates) {
    case FLASHRNN_WARP_GATES_ALL: return a->G;
    case FLASHRNN_WARP_GATES_2: return 2;
    default: return 1;   /* AUTO, 1 */
    }
}

static void problem_of(const flashrnn_fused_args *a, flashrnn_pass pass, flashrnn_problem *p)
{
    memset(p, 0, sizeof *p);
    p->B = a->B, p->H = a->H, p->dh = a->dh, p->G = a->G, p->slstm = a->slstm;
    p->dtype_bytes = dtype_bytes(a->dtype), p->pass = pass;
    p->k_slices = flashrnn_fused_k_slices(a->G, a->slstm, a->dtype);
    p->head_sync = a->head_sync;
}

/* The launch geometry of tiling t for a's problem and pass, and its kernel (NULL: none). */
static const Instance *geometry(const flashrnn_fused_args *a, const flashrnn_tiling *t,
                                flashrnn_pass pass, Geo *g, flashrnn_smem *s)
{
    flashrnn_problem p;
    problem_of(a, pass, &p);
    flashrnn_smem_layout(&p, t->heads_per_block, t->blocks_per_head, t->batch_tile, t->warps_k, s);
    g->hpb = t->heads_per_block, g->bph = t->blocks_per_head, g->bt = t->batch_tile, g->wk = t->warps_k;
    g->split = t->cell_split, g->cl = t->cluster > 0;
    g->push = flashrnn_fused_cluster_copy(a, t, pass);
    g->spread = flashrnn_fused_cell_spread(a, t);
    g->nbb = t->batch_blocks, g->U = t->heads_per_block * a->dh / t->blocks_per_head, g->gpb = g->U / 16;
    g->oprow = (pass == FLASHRNN_FORWARD ? a->dh : a->G * a->dh) + s->pad;
    g->nf = s->nf, g->nd = s->nd;
    g->op = s->op, g->pff = s->pff, g->pfd = s->pfd, g->state = s->state, g->red = s->red, g->bias = s->bias;
    g->mbar = s->mbar, g->mc = t->share;
    g->wgates = flashrnn_fused_warp_gates(a, t, pass);
    return a->dh % t->warps_k ? NULL : find(a, a->dh / t->warps_k);
}

/* The launch configuration of a cluster tiling (clusters of blocks_per_head blocks), its
 * kernel set up for it (shared memory opt-in, the non-portable cluster size). */
static logt_status cluster_config(kernel_fn k, const flashrnn_tiling *t, int size, size_t smem,
                                  cudaStream_t st, cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr)
{
    CUDA_TRY(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (size > 8)
        CUDA_TRY(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    *cfg = cudaLaunchConfig_t{};
    cfg->gridDim = dim3(t->grid), cfg->blockDim = dim3(t->threads);
    cfg->dynamicSmemBytes = smem, cfg->stream = st;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = size, attr->val.clusterDim.y = 1, attr->val.clusterDim.z = 1;
    cfg->attrs = attr, cfg->numAttrs = 1;
    return LOGT_OK;
}

/* How many clusters of `size` blocks of tiling t the GPU can hold at once
 * (cudaOccupancyMaxActiveClusters; 0 where it refuses the size). */
static logt_status clusters_resident(const flashrnn_fused_args *a, const flashrnn_tiling *t,
                                     flashrnn_pass pass, int size, int *n)
{
    Geo g;
    flashrnn_smem s;
    const Instance *in = geometry(a, t, pass, &g, &s);
    *n = 0;
    if (!in) return LOGT_OK;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    kernel_fn k = kernel_of(in, pass, t->blocks_per_head);
    LOGT_TRY(cluster_config(k, t, size, (size_t)s.total, 0, &cfg, &attr));
    cudaError_t e = cudaOccupancyMaxActiveClusters(n, (const void *)k, &cfg);
    if (e != cudaSuccess) (void)cudaGetLastError(), *n = 0;
    return LOGT_OK;
}

/* With head_sync = grid, the backward's clusters that share its reload (fused.h, grid_share):
 * the largest size of 16, 8, 4, 2 that divides blocks_per_head, with which the GPU holds the
 * whole grid at once (the launch is cooperative as well), where each warp reloads its own k
 * slice (warps_k > 1, no twins). */
static logt_status choose_share(const flashrnn_fused_args *a, flashrnn_pass pass, flashrnn_tiling *t)
{
    t->share = 0;
    if (pass != FLASHRNN_BACKWARD || !t->grid_sync || a->grid_share == FLASHRNN_SHARE_OFF) return LOGT_OK;
    const int own = t->warps_k > 1 && t->cell_split == 1;
    for (int size = 16; own && size >= 2; size /= 2) {
        if (t->blocks_per_head % size) continue;
        int n;
        LOGT_TRY(clusters_resident(a, t, pass, size, &n));
        if ((int64_t)n * size >= t->grid) {
            t->share = size;
            return LOGT_OK;
        }
    }
    if (a->grid_share == FLASHRNN_SHARE_ON)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "flashrnn: grid_share = on, but no cluster of 16, 8, 4 or 2 blocks of the "
                         "backward tiling (%d blocks a head, %d blocks, warps_k %d, cell_split %d) %s: "
                         "use grid_share = auto or off",
                         t->blocks_per_head, t->grid, t->warps_k, t->cell_split,
                         own ? "divides the head and lets the GPU hold the whole grid at once"
                             : "can share its reload (that needs warps_k > 1 and cell_split = 1)");
    return LOGT_OK;
}

extern "C" logt_status flashrnn_fused_plan(const flashrnn_fused_args *a, flashrnn_pass pass,
                                           flashrnn_tiling *t)
{
    if (a->dtype != LOGT_BF16 && a->dtype != LOGT_F16 && a->dtype != LOGT_F32)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "flashrnn fused kernels take bf16, f16 or f32, not %s",
                         logt_dtype_name(a->dtype));
    flashrnn_problem p;
    problem_of(a, pass, &p);
    p.cell_split = a->cell_split;
    if (a->warps_k > 0) {   /* a fixed warps_k: only its k_slice is offered */
        const int ks = a->dh % a->warps_k ? 0 : a->dh / a->warps_k;
        p.k_slices &= ks % 16 == 0 && ks <= FLASHRNN_MAX_KSLICE ? 1u << (ks / 16) : 0u;
        if (!p.k_slices)
            return LOGT_FAIL(LOGT_EUNSUPPORTED,
                             "flashrnn: warps_k = %d with dh = %d gives a k_slice of %d/%d, for "
                             "which no %s %s kernel is compiled: choose warps_k so that dh / "
                             "warps_k is one of the compiled k_slices (multiples of 16 up to %d)",
                             a->warps_k, a->dh, a->dh, a->warps_k, cell_name(a),
                             logt_dtype_name(a->dtype), p.dtype_bytes == 2 ? 64 : 32);
    }
    for (int i = 0; i < N_INSTANCES; i++) {   /* the real register counts (the model caches the plan per B) */
        const Instance *in = &INSTANCES[i];
        if (!row_of(in->id, a->G, a->slstm, a->dtype)) continue;
        for (int k = 0; k < 4; k++) {   /* the largest of the whole-head, split-head and gates kernels', */
            const kernel_fn f = kernel_of(in, pass, k ? 2 : 1, k - 1);   /* and of the split ones */
            if (!f) continue;
            cudaFuncAttributes fa;
            CUDA_TRY(cudaFuncGetAttributes(&fa, (const void *)f));
            int *r = &p.regs[in->id.k_slice / 16], *rs = &p.regs_split[in->id.k_slice / 16];
            if (fa.numRegs > *r) *r = fa.numRegs;
            if (k && fa.numRegs > *rs) *rs = fa.numRegs;
        }
    }
    flashrnn_device dev;
    LOGT_TRY(flashrnn_device_query(&dev));
#if !defined(LOGT_CUDA_ARCH) || LOGT_CUDA_ARCH < 90
    dev.max_cluster = 0;   /* built for a GPU without clusters: the kernels have no cluster path */
#endif
    LOGT_TRY(flashrnn_tune(&dev, &p, t));
    if ((a->warp_gates == FLASHRNN_WARP_GATES_1 || a->warp_gates == FLASHRNN_WARP_GATES_2)
        && pass == FLASHRNN_FORWARD && !warp_gates_fit(a, t, pass))
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "flashrnn: warp_gates = %d, but the forward's tiling (%d blocks a head, batch tile "
                         "%d, warps_k %d, %s) has none: that is an lstm in bf16 or f16 whose head is "
                         "split through global memory into blocks of 16 units, 8 batch rows and dh / 64 "
                         "warps (a multiple of 4). Use warp_gates = auto or all",
                         a->warp_gates == FLASHRNN_WARP_GATES_1 ? 1 : 2, t->blocks_per_head,
                         t->batch_tile, t->warps_k, t->cluster ? "clusters" : "grid");
    if (!t->cluster) return dev.max_cluster ? choose_share(a, pass, t) : LOGT_OK;
    int resident;
    LOGT_TRY(clusters_resident(a, t, pass, t->cluster, &resident));
    if (resident > 0) return LOGT_OK;
    if (a->head_sync == FLASHRNN_SYNC_CLUSTER)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "flashrnn: %s cannot place a cluster of %d blocks of %d threads and %lld "
                         "bytes of shared memory (cudaOccupancyMaxActiveClusters is 0), which the "
                         "%s pass with head_sync = cluster needs: use head_sync = grid or auto",
                         dev.name, t->cluster, t->threads, (long long)t->smem_per_block,
                         pass == FLASHRNN_FORWARD ? "forward" : "backward");
    p.head_sync = FLASHRNN_SYNC_GRID;   /* auto: the global barrier instead */
    LOGT_TRY(flashrnn_tune(&dev, &p, t));
    return choose_share(a, pass, t);
}

#ifdef FLASHRNN_PROBE
/* The probe's cycles per step of the pass's last launch, phase by phase: block 0, and the
 * mean and max over the blocks (at most 256). */
static logt_status probe_print(const flashrnn_fused_args *a, const flashrnn_tiling *t, flashrnn_pass pass,
                               cudaStream_t st)
{
    static long long hp[256][PROBE_PHASES];
    long long ns;
    CUDA_TRY(cudaStreamSynchronize(st));
    CUDA_TRY(pass == FLASHRNN_FORWARD ? forward_probe(hp, &ns) : backward_probe(hp, &ns));
    const int nb = t->grid < 256 ? t->grid : 256;
    fprintf(stderr, "probe %s dh=%d grid=%d cycles/step:", pass == FLASHRNN_FORWARD ? "fwd" : "bwd", a->dh, t->grid);
    long long tot = 0;
    for (int k = 0; k < PROBE_PHASES; k++) {
        double mean = 0, mx = 0;
        for (int b = 0; b < nb; b++) {
            double v = (double)hp[b][k] / a->T;
            mean += v / nb, mx = v > mx ? v : mx;
        }
        tot += hp[0][k];
        fprintf(stderr, " p%d %.0f (mean %.0f max %.0f)", k, (double)hp[0][k] / a->T, mean, mx);
    }
    fprintf(stderr, " total %.0f; block 0's loop %.1f ns/step (%.2f GHz)\n", (double)tot / a->T,
            (double)ns / a->T, (double)tot / (double)ns);
    return LOGT_OK;
}
#endif

static logt_status launch(logt_ctx *ctx, const flashrnn_fused_args *a, const flashrnn_tiling *t,
                          flashrnn_pass pass)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, "flashrnn fused kernel"));
    if (a->slstm && !a->st0)
        return LOGT_FAIL(LOGT_EINVAL, "flashrnn: the slstm's fused kernels start from args.st0, the "
                         "states c, n, m before step 0 ([B][3·D] fp32; zeros for a fresh state)");
    Geo g;
    flashrnn_smem s;
    const Instance *in = geometry(a, t, pass, &g, &s);
    if (!in)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "flashrnn: no fused kernel for %s %s with k_slice dh/warps_k = %d/%d; the "
                         "instantiated ones are in models/flashrnn/fused_kernels.cuh",
                         cell_name(a), logt_dtype_name(a->dtype), a->dh, t->warps_k);
    if (t->cluster && t->cluster != t->blocks_per_head)
        return LOGT_FAIL(LOGT_EINVAL, "flashrnn: a cluster of %d blocks for a head split over %d: "
                         "plan the tiling with flashrnn_fused_plan", t->cluster, t->blocks_per_head);
    kernel_fn k = kernel_of(in, pass, t->blocks_per_head, g.wgates);
    const int threads = g.gpb * g.wk * g.split * 32;
    if (threads != t->threads || (int64_t)t->grid != (int64_t)(a->H / g.hpb) * g.bph * g.nbb)
        return LOGT_FAIL(LOGT_EINVAL, "flashrnn: the tiling does not match the problem (threads %d "
                         "vs %d, grid %d): plan it with flashrnn_fused_plan", threads, t->threads, t->grid);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (g.cl) {   /* one cluster per split head and batch tile: no grid-wide residency needed */
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        LOGT_TRY(cluster_config(k, t, t->cluster, (size_t)s.total, st, &cfg, &attr));
        CUDA_TRY(cudaLaunchKernelEx(&cfg, k, *a, g));
        return LOGT_OK;
    }
    CUDA_TRY(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)s.total));
    if (g.bph > 1) {
        if (pass == FLASHRNN_FORWARD ? !a->xchg : !a->sync)
            return LOGT_FAIL(LOGT_EINVAL, "flashrnn: a split head needs the exchange words (args.xchg) "
                             "forward and the counters (args.sync) backward");
        if (pass == FLASHRNN_BACKWARD && (uint64_t)g.bph * (uint64_t)a->T >= ((uint64_t)1 << 32))
            return LOGT_FAIL(LOGT_EUNSUPPORTED,
                             "flashrnn: a head split over %d blocks counts %d·T steps in 32 bits in the "
                             "backward: T = %d is too long for it (at most %llu)", g.bph, g.bph, a->T,
                             (unsigned long long)((((uint64_t)1 << 32) - 1) / g.bph));
        if ((int64_t)a->B * a->H * a->dh >= INT32_MAX)
            return LOGT_FAIL(LOGT_EUNSUPPORTED,
                             "flashrnn: a split head's exchange indexes B·D = %lld words in 32 bits: "
                             "B = %d is too large for it (at most %lld)", (long long)a->B * a->H * a->dh,
                             a->B, (long long)(INT32_MAX - 1) / ((int64_t)a->H * a->dh));
        if (pass == FLASHRNN_FORWARD) CUDA_TRY(cudaMemsetAsync(a->xchg, 0, flashrnn_fused_xchg_bytes(a), st));
        else CUDA_TRY(cudaMemsetAsync(a->sync, 0, (size_t)t->grid / g.bph * sizeof(unsigned), st));
        cudaError_t e;
        if (g.mc > 1) {   /* cooperative, in clusters of mc sharing the step's reads */
            if (g.bph % g.mc)
                return LOGT_FAIL(LOGT_EINVAL, "flashrnn: clusters of %d for a head split over %d blocks: "
                                 "plan the tiling with flashrnn_fused_plan", g.mc, g.bph);
            cudaLaunchConfig_t cfg;
            cudaLaunchAttribute attr[2];
            LOGT_TRY(cluster_config(k, t, g.mc, (size_t)s.total, st, &cfg, &attr[0]));
            attr[1].id = cudaLaunchAttributeCooperative, attr[1].val.cooperative = 1;
            cfg.attrs = attr, cfg.numAttrs = 2;
            e = cudaLaunchKernelEx(&cfg, k, *a, g);
        } else {
            void *params[] = {(void *)a, (void *)&g};
            e = cudaLaunchCooperativeKernel((const void *)k, dim3(t->grid), dim3(threads), params,
                                            (size_t)s.total, st);
        }
        if (e == cudaErrorCooperativeLaunchTooLarge) {
            (void)cudaGetLastError();
            return LOGT_FAIL(LOGT_EUNSUPPORTED,
                             "flashrnn: the %d blocks of a split-head tiling are not all resident "
                             "at once on this GPU (the tuner counted %d per SM)",
                             t->grid, t->blocks_per_sm);
        }
        CUDA_TRY(e);
#ifdef FLASHRNN_PROBE
        LOGT_TRY(probe_print(a, t, pass, st));
#endif
    } else {
        k<<<t->grid, threads, (size_t)s.total, st>>>(*a, g);
        LAUNCH_TRY();
    }
    return LOGT_OK;
}

extern "C" logt_status flashrnn_fused_forward(logt_ctx *ctx, const flashrnn_fused_args *a,
                                              const flashrnn_tiling *t)
{
    flashrnn_fused_args ar = *a;   /* the kernel spins poll_delay cycles: never a negative (auto) */
    ar.poll_delay = flashrnn_fused_poll_delay(a);
    return launch(ctx, &ar, t, FLASHRNN_FORWARD);
}

extern "C" logt_status flashrnn_fused_backward(logt_ctx *ctx, const flashrnn_fused_args *a,
                                               const flashrnn_tiling *t)
{
    return launch(ctx, a, t, FLASHRNN_BACKWARD);
}
