/* tune.c — the tiling solver for the persistent head-wise LSTM/GRU kernels.
 *
 * A tiny ConstrINT, in four parts a reader can check one at a time:
 *   1. the resource model: derive() turns the decision variables into threads, registers,
 *      shared memory, grid and residency (the kernel's contract, see tune.h);
 *   2. the constraints: one table of named predicates "need <= limit";
 *   3. the objective: one table of integer keys, compared in order, each minimised;
 *   4. the search: nested loops over the variables' domains (divisor sets), every candidate
 *      checked against every constraint; the best feasible one wins, and when none is
 *      feasible the closest one names the constraint that failed.
 * The domains are small (a few thousand candidates at FlashRNN's sizes), so the search is
 * exhaustive and needs no cleverness beyond one bound: r stops where the R fragments alone
 * would exceed the registers a thread may have.
 */
#include "tune.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define FLASHRNN_BASE_REGS 40   /* per thread, besides R, accumulators and biases (estimate) */
#define MMA_M 16                /* gate columns per strip: the mma M tile                  */
#define MMA_N 8                 /* batch rows per mma: the batch tile is padded to this   */
#define SUBPARTITIONS 4         /* tensor-core units per SM (every SM since Volta)        */
#define MAX_DIVISORS 1024       /* > the divisor count of any n <= 2^20 the search meets  */
/* dh comes in multiples of 16: a strip holds 16 units of one gate (the mma M tile), and 16 is
 * also the K tile of bf16 and f16 (tf32's is 8). */
#define DH_QUANTUM 16

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int clamp_int(int64_t x) { return x > INT_MAX ? INT_MAX : (int)x; }
const char *flashrnn_fused_cell_name(int G, int slstm)
{
    return slstm ? "slstm" : G == 4 ? "lstm" : G == 3 ? "gru" : "elman";
}
static const char *dtype_name(int bytes) { return bytes == 2 ? "bf16/f16" : "fp32"; }
static const char *pass_name(flashrnn_pass pass) { return pass == FLASHRNN_FORWARD ? "forward" : "backward"; }

/* The divisors of n in ascending order (n >= 1); returns how many. */
static int divisors(int64_t n, int64_t *out)
{
    int k = 0;
    for (int64_t d = 1; d * d <= n && k < MAX_DIVISORS / 2; d++)
        if (n % d == 0) out[k++] = d;
    int lo = k;
    for (int i = lo - 1; i >= 0; i--)       /* the co-divisors, ascending */
        if (n / out[i] != out[i]) out[k++] = n / out[i];
    return k;
}

/* ---- 1. The resource model -------------------------------------------------------------
 * From the variables (heads_per_block, blocks_per_head, batch_tile, warps_k; warps_n is one
 * warp per unit group and every R strip lives in registers, see tune.h) set
 * everything else in t. Sizes that the constraints reject (a gate tile that is not a whole
 * number of unit groups, ...) still get numbers, so every candidate can be judged and the
 * closest failure reported. */
static int64_t k_slice(const flashrnn_problem *p, const flashrnn_tiling *t)
{
    return p->dh / t->warps_k;
}

static void derive(const flashrnn_device *dev, const flashrnn_problem *p, flashrnn_tiling *t)
{
    const int64_t hpb = t->heads_per_block, bt = t->batch_tile, bytes = p->dtype_bytes;
    const int64_t wk = t->warps_k, warp = dev->warp_size;
    const int64_t B_pad = ceil_div(p->B, MMA_N) * MMA_N;

    t->gate_tile = p->G * p->dh / t->blocks_per_head;
    const int64_t groups = hpb * t->gate_tile / (MMA_M * p->G);
    t->warps_n = clamp_int(groups > 0 ? groups : 1);
    t->reg_strips = p->G;                                  /* a warp's strips: its group's G */
    t->batch_blocks = (int)(B_pad / bt);
    t->threads = clamp_int(t->warps_n * wk * t->cell_split * warp);
    t->grid = clamp_int((int64_t)(p->H / hpb) * t->blocks_per_head * t->batch_blocks);
    if (t->blocks_per_head == 1) t->cluster = 0;   /* nothing to sync */
    t->grid_sync = t->blocks_per_head > 1 && !t->cluster;
    t->r_bytes_regs = hpb * p->dh * t->gate_tile * bytes;
    t->r_bytes_smem = 0;

    /* registers per thread: the kernel's own count when known, else base + R fragments
     * (G strips x k_slice rows, 16 columns each) + fp32 accumulators of one 8-row batch tile
     * (forward G strips, backward one) + the gates' biases */
    const int64_t ks = k_slice(p, t);
    const int in_table = ks % DH_QUANTUM == 0 && ks <= FLASHRNN_MAX_KSLICE;
    const int split_regs = in_table && t->blocks_per_head > 1 ? p->regs_split[ks / DH_QUANTUM] : 0;
    const int known = split_regs > 0 ? split_regs : in_table ? p->regs[ks / DH_QUANTUM] : 0;
    const int64_t r_regs = ceil_div(p->G * MMA_M * ks * bytes, 4 * warp);
    const int64_t acc_regs = 4 * (p->pass == FLASHRNN_FORWARD ? p->G : 1);
    const int64_t rpt = known > 0 ? known : FLASHRNN_BASE_REGS + r_regs + acc_regs + 2 * p->G + 2;
    t->regs_per_thread = clamp_int(rpt);
    t->regs_per_block = ceil_div(rpt, 8) * 8 * t->threads;

    flashrnn_smem s;
    flashrnn_smem_layout(p, (int)hpb, t->blocks_per_head, (int)bt, (int)wk, &s);
    t->smem_per_block = s.total;

    /* residency: the scarcest of registers, shared memory, threads, block slots */
    int64_t per_sm = dev->max_blocks_per_sm;
    per_sm = min64(per_sm, dev->regs_per_sm / t->regs_per_block);
    per_sm = min64(per_sm, dev->smem_per_sm / (s.total + dev->smem_reserved_per_block));
    per_sm = min64(per_sm, dev->max_threads_per_sm / t->threads);
    t->blocks_per_sm = (int)per_sm;
    const int64_t capacity = per_sm * dev->sm_count;
    t->waves = capacity > 0 ? clamp_int(ceil_div(t->grid, capacity)) : INT_MAX;
}

/* ---- 2. The constraints: need <= limit -------------------------------------------------- */
typedef struct amount { int64_t need, limit; } amount;
typedef amount (*constraint_fn)(const flashrnn_device *, const flashrnn_problem *,
                                const flashrnn_tiling *);

static amount dh_mma_granularity(const flashrnn_device *d, const flashrnn_problem *p,
                                 const flashrnn_tiling *t)
{
    (void)d, (void)t;
    return (amount){p->dh % DH_QUANTUM, 0};
}
static amount instantiated_k_slice(const flashrnn_device *d, const flashrnn_problem *p,
                                   const flashrnn_tiling *t)
{
    (void)d;
    const int64_t ks = k_slice(p, t);
    if (!p->k_slices || ks % DH_QUANTUM) return (amount){0, 0};
    return (amount){ks > FLASHRNN_MAX_KSLICE || !(p->k_slices >> (ks / DH_QUANTUM) & 1u), 0};
}
static amount unit_groups_whole(const flashrnn_device *d, const flashrnn_problem *p,
                                const flashrnn_tiling *t)
{
    (void)d;
    return (amount){(p->G * p->dh) % t->blocks_per_head + t->gate_tile % (MMA_M * p->G), 0};
}
static amount split_head_alone(const flashrnn_device *d, const flashrnn_problem *p,
                               const flashrnn_tiling *t)
{
    (void)d, (void)p;
    return (amount){t->blocks_per_head > 1 ? t->heads_per_block - 1 : 0, 0};
}
static amount threads_per_block(const flashrnn_device *d, const flashrnn_problem *p,
                                const flashrnn_tiling *t)
{
    (void)p;
    return (amount){t->threads, d->max_threads_per_block};
}
static amount regs_per_thread(const flashrnn_device *d, const flashrnn_problem *p,
                              const flashrnn_tiling *t)
{
    (void)p;
    return (amount){t->regs_per_thread, d->max_regs_per_thread};
}
static amount regs_per_block(const flashrnn_device *d, const flashrnn_problem *p,
                             const flashrnn_tiling *t)
{
    (void)p;
    return (amount){t->regs_per_block, d->regs_per_sm};
}
static amount smem_per_block(const flashrnn_device *d, const flashrnn_problem *p,
                             const flashrnn_tiling *t)
{
    (void)p;
    return (amount){t->smem_per_block, d->smem_optin_per_block};
}
static amount smem_per_sm(const flashrnn_device *d, const flashrnn_problem *p,
                          const flashrnn_tiling *t)
{
    (void)p;
    return (amount){t->smem_per_block + d->smem_reserved_per_block, d->smem_per_sm};
}
static amount threads_per_sm(const flashrnn_device *d, const flashrnn_problem *p,
                             const flashrnn_tiling *t)
{
    (void)p;
    return (amount){t->threads, d->max_threads_per_sm};
}
/* Judged as if at least one block fitted an SM: when none does, the per-block constraints
 * above have failed already, and this one should say how far the grid is from fitting. */
static amount co_resident_for_grid_sync(const flashrnn_device *d, const flashrnn_problem *p,
                                        const flashrnn_tiling *t)
{
    (void)p;
    if (!t->grid_sync) return (amount){0, 0};
    return (amount){t->grid, (int64_t)(t->blocks_per_sm > 0 ? t->blocks_per_sm : 1) * d->sm_count};
}
static amount cluster_size(const flashrnn_device *d, const flashrnn_problem *p,
                           const flashrnn_tiling *t)
{
    (void)p;
    return (amount){t->cluster, t->cluster ? d->max_cluster : 0};
}

static const struct constraint {
    const char *name;
    constraint_fn check;
    const char *what;   /* "need <= limit" in words */
} CONSTRAINTS[] = {
    {"dh_mma_granularity", dh_mma_granularity,
     "dh mod 16 must be 0 (16 units of a gate per mma M tile; the K tile of bf16 and f16 is 16 too)"},
    {"instantiated_k_slice", instantiated_k_slice,
     "a kernel must be compiled for k_slice = dh / warps_k (the table in models/flashrnn/fused_kernels.cuh)"},
    {"unit_groups_whole", unit_groups_whole,
     "a block's gate columns must be whole groups of 16 units x G gates (gate_tile mod 16*G = 0)"},
    {"split_head_alone", split_head_alone,
     "a head split across blocks leaves no room for other heads in the block (heads_per_block - 1 = 0)"},
    {"threads_per_block", threads_per_block, "threads per block <= the device's maximum"},
    {"regs_per_thread", regs_per_thread, "registers per thread <= the device's maximum"},
    {"regs_per_block", regs_per_block, "registers per block <= registers per SM"},
    {"smem_per_block", smem_per_block, "shared memory per block <= the opt-in maximum"},
    {"smem_per_sm", smem_per_sm, "shared memory per block + the reserved 1 KiB <= shared memory per SM"},
    {"threads_per_sm", threads_per_sm, "threads per block <= threads per SM"},
    {"co_resident_for_grid_sync", co_resident_for_grid_sync,
     "with a grid sync every step, all blocks must be resident at once (grid <= blocks per SM x SMs)"},
    {"cluster_size", cluster_size,
     "a head synced as one thread-block cluster has at most the device's cluster size of blocks "
     "(blocks_per_head <= 16 on sm_90, no clusters before)"},
};
enum { N_CONSTRAINTS = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0] };

const char *const *flashrnn_constraint_names(void)
{
    static const char *names[N_CONSTRAINTS + 1];
    for (int i = 0; i < N_CONSTRAINTS; i++) names[i] = CONSTRAINTS[i].name;
    names[N_CONSTRAINTS] = NULL;
    return names;
}

/* How badly a candidate misses: how many constraints fail, the worst need/limit among them
 * (a failed divisibility, limit 0, counts as 1e9: never "close") and which one that is. */
typedef struct verdict { int failures, worst_i; double worst; } verdict;

static verdict judge(const flashrnn_device *dev, const flashrnn_problem *p, const flashrnn_tiling *t)
{
    verdict v = {0, -1, 0};
    for (int i = 0; i < N_CONSTRAINTS; i++) {
        amount a = CONSTRAINTS[i].check(dev, p, t);
        if (a.need <= a.limit) continue;
        double excess = a.limit > 0 ? (double)a.need / (double)a.limit : 1e9;
        v.failures++;
        if (excess > v.worst) v.worst = excess, v.worst_i = i;
    }
    return v;
}

/* ---- 3. The objective: keys compared in this order, each minimised ------------------------
 * head_sync        0 a head in one block, 1 a head split over a cluster, 2 a head split
 *                  with an exchange through global memory: an exchange costs more than a
 *                  step's math at FlashRNN's sizes, so keep a head in one block whenever it
 *                  fits; the cluster's hardware barrier and shared-memory exchange skip the
 *                  trips to L2 that the global exchange makes (a store, polls of L2);
 * waves            a second wave of blocks repeats the whole T loop;
 * warps_k          fewer warps per unit group: their partial sums meet in shared memory
 *                  behind a barrier, which costs more than the products they split at
 *                  these sizes (flashrnn-warps; experiments/flashrnn-headdim, Design notes);
 * cell             the cell's instructions per warp, 2 with one warp per group and k slice,
 *                  1 with cell_split = 2 (a step is one warp's chain of instructions, one
 *                  warp per scheduler: Nsight Compute and flashrnn-warps, same notes);
 * step_cost        MACs of one step on the busiest SM, divided by the tensor-core units its
 *                  warps can keep busy (at most 4), ×12 to stay an integer: the step's
 *                  critical path, so more SMs and enough warps per SM win;
 * blocks_per_head  fewer blocks exchanging h (or dh partial sums) through L2 each step;
 * r_bytes_smem     R read from registers is cheaper than from shared memory.
 * A tie after all keys goes to the candidate found first: the smallest heads_per_block,
 * blocks_per_head, batch_tile, warps_n, warps_k, reg_strips, in that order. */
typedef int64_t (*objective_fn)(const flashrnn_device *, const flashrnn_problem *,
                                const flashrnn_tiling *);

static int64_t key_head_sync(const flashrnn_device *d, const flashrnn_problem *p,
                             const flashrnn_tiling *t)
{
    (void)d, (void)p;
    return t->blocks_per_head == 1 ? 0 : t->cluster ? 1 : 2;
}
static int64_t key_waves(const flashrnn_device *d, const flashrnn_problem *p,
                         const flashrnn_tiling *t)
{
    (void)d, (void)p;
    return t->waves;
}
static int64_t key_step_cost(const flashrnn_device *d, const flashrnn_problem *p,
                             const flashrnn_tiling *t)
{
    const int64_t busiest = ceil_div(t->grid, d->sm_count);      /* blocks on the busiest SM */
    const int64_t macs = (int64_t)t->heads_per_block * t->batch_tile * p->dh * t->gate_tile;
    const int64_t units = min64(SUBPARTITIONS, busiest * t->warps_n * t->warps_k);
    return busiest * macs * (12 / units);
}
static int64_t key_blocks_per_head(const flashrnn_device *d, const flashrnn_problem *p,
                                   const flashrnn_tiling *t)
{
    (void)d, (void)p;
    return t->blocks_per_head;
}
static int64_t key_r_bytes_smem(const flashrnn_device *d, const flashrnn_problem *p,
                                const flashrnn_tiling *t)
{
    (void)d, (void)p;
    return t->r_bytes_smem;
}
static int64_t key_cell(const flashrnn_device *d, const flashrnn_problem *p,
                        const flashrnn_tiling *t)
{
    (void)d, (void)p;
    return 3 - t->cell_split;
}
static int64_t key_warps_k(const flashrnn_device *d, const flashrnn_problem *p,
                           const flashrnn_tiling *t)
{
    (void)d, (void)p;
    return t->warps_k;
}

static const objective_fn OBJECTIVE[] = {
    key_head_sync, key_waves, key_warps_k, key_cell, key_step_cost, key_blocks_per_head,
    key_r_bytes_smem,
};
enum { N_KEYS = sizeof OBJECTIVE / sizeof OBJECTIVE[0] };

/* 1 when a is strictly better than b. */
static int better(const flashrnn_device *dev, const flashrnn_problem *p, const flashrnn_tiling *a,
                  const flashrnn_tiling *b)
{
    for (int i = 0; i < N_KEYS; i++) {
        int64_t ka = OBJECTIVE[i](dev, p, a), kb = OBJECTIVE[i](dev, p, b);
        if (ka != kb) return ka < kb;
    }
    return 0;
}

/* 1 when failing candidate a is closer to fitting than b: the smaller worst excess (how much
 * the scarcest resource would have to grow), then fewer failed constraints. */
static int closer(verdict a, verdict b)
{
    if (a.worst != b.worst) return a.worst < b.worst;
    return a.failures < b.failures;
}

/* ---- 4. The search -----------------------------------------------------------------------
 * Every candidate, every constraint. Returns 1 and the best tiling in *best when one is
 * feasible; otherwise 0, the closest candidate in *closest and its verdict in *why_not. */
typedef struct search {
    const flashrnn_device *dev;
    const flashrnn_problem *p;
    int found;
    flashrnn_tiling best, closest;
    verdict closest_v;
} search;

static void consider(search *s, const flashrnn_tiling *cand)
{
    verdict v = judge(s->dev, s->p, cand);
    if (v.failures == 0) {
        if (!s->found || better(s->dev, s->p, cand, &s->best)) s->best = *cand;
        s->found = 1;
    } else if (!s->found && (s->closest_v.worst_i < 0 || closer(v, s->closest_v))) {
        s->closest = *cand;
        s->closest_v = v;
    }
}

static int solve(const flashrnn_device *dev, const flashrnn_problem *p, flashrnn_tiling *best,
                 flashrnn_tiling *closest, verdict *why_not)
{
    int64_t hpb_dom[MAX_DIVISORS], bph_dom[MAX_DIVISORS], wk_dom[MAX_DIVISORS];
    search s = {.dev = dev, .p = p, .closest_v = {0, -1, 0}};
    const int q = DH_QUANTUM;
    const int64_t B_pad = ceil_div(p->B, MMA_N) * MMA_N;

    const int n_hpb = divisors(p->H, hpb_dom);                       /* hpb | H         */
    const int n_bph = divisors((int64_t)p->G * p->dh, bph_dom);      /* bph | G·dh      */
    const int n_wk = divisors(p->dh / q > 0 ? p->dh / q : 1, wk_dom); /* wk | dh/16     */
    for (int i = 0; i < n_hpb; i++)
        for (int j = 0; j < n_bph; j++)
            for (int64_t bt = MMA_N; bt <= B_pad; bt += MMA_N) {     /* 8 | bt | B_pad  */
                if (B_pad % bt) continue;
                for (int b = 0; b < n_wk; b++)
                    for (int cs = 1; cs <= 2; cs++)
                        for (int hs = FLASHRNN_SYNC_GRID; hs <= FLASHRNN_SYNC_CLUSTER; hs++) {
                            if (p->cell_split && cs != p->cell_split) continue;
                            const int bph = (int)bph_dom[j];
                            if (bph == 1 && hs == FLASHRNN_SYNC_CLUSTER) continue;   /* one candidate */
                            if (bph > 1 && p->head_sync && (int)p->head_sync != hs) continue;
                            flashrnn_tiling c = {.heads_per_block = (int)hpb_dom[i],
                                                 .blocks_per_head = bph,
                                                 .batch_tile = (int)bt, .warps_k = (int)wk_dom[b],
                                                 .cell_split = cs,
                                                 .cluster = hs == FLASHRNN_SYNC_CLUSTER ? bph : 0};
                            derive(dev, p, &c);
                            consider(&s, &c);
                        }
            }
    if (s.found) *best = s.best;
    if (!s.found && closest) *closest = s.closest, *why_not = s.closest_v;
    return s.found;
}

/* ---- The public face ---------------------------------------------------------------------- */
static logt_status check_inputs(const flashrnn_device *dev, const flashrnn_problem *p)
{
    if (!dev || !p) return LOGT_FAIL(LOGT_EINVAL, "flashrnn_tune: NULL device or problem");
    if (dev->sm_count < 1 || dev->regs_per_sm < 1 || dev->max_regs_per_thread <= FLASHRNN_BASE_REGS
        || dev->max_threads_per_block < 1 || dev->max_threads_per_sm < 1
        || dev->max_blocks_per_sm < 1 || dev->warp_size < 1 || dev->smem_optin_per_block < 0
        || dev->smem_per_sm < 0 || dev->smem_reserved_per_block < 0 || dev->max_cluster < 0)
        return LOGT_FAIL(LOGT_EINVAL,
                         "flashrnn_tune: device '%s' has a zero or negative limit (SMs %d, "
                         "registers/SM %d, registers/thread %d, threads/block %d, warp %d)\n"
                         "HINT: fill it with flashrnn_device_h200 or flashrnn_device_from_info",
                         dev->name, dev->sm_count, dev->regs_per_sm, dev->max_regs_per_thread,
                         dev->max_threads_per_block, dev->warp_size);
    if (p->B < 1 || p->B > (1 << 20) || p->H < 1 || p->H > (1 << 16) || p->dh < 1
        || p->dh > (1 << 16) || (int64_t)p->H * p->dh > (1 << 24)
        || (p->G != 1 && p->G != 3 && p->G != 4) || (p->slstm && p->G != 4)
        || (p->dtype_bytes != 2 && p->dtype_bytes != 4)
        || (p->pass != FLASHRNN_FORWARD && p->pass != FLASHRNN_BACKWARD)
        || (unsigned)p->head_sync > FLASHRNN_SYNC_CLUSTER)
        return LOGT_FAIL(LOGT_EINVAL,
                         "flashrnn_tune: bad problem B=%d H=%d dh=%d G=%d slstm=%d dtype_bytes=%d "
                         "pass=%d head_sync=%d: need 1 <= B <= 2^20, 1 <= H, dh <= 2^16, H*dh <= 2^24, "
                         "G 1 (elman), 3 (gru) or 4 (lstm, or slstm = 1), dtype_bytes 2 (bf16, f16) or "
                         "4 (fp32), pass forward or backward, head_sync 0 (any), 1 (grid) or 2 (cluster)",
                         p->B, p->H, p->dh, p->G, p->slstm, p->dtype_bytes, (int)p->pass,
                         (int)p->head_sync);
    return LOGT_OK;
}

int flashrnn_max_dh(const flashrnn_device *dev, const flashrnn_problem *p)
{
    if (check_inputs(dev, p) != LOGT_OK) return 0;
    const int q = DH_QUANTUM;
    flashrnn_problem smaller = *p;
    flashrnn_tiling t;
    for (smaller.dh = p->dh / q * q; smaller.dh >= q; smaller.dh -= q)
        if (solve(dev, &smaller, &t, NULL, NULL)) return smaller.dh;
    return 0;
}

static void kib(char *buf, size_t n, int64_t bytes)
{
    if (bytes >= (int64_t)1 << 20) snprintf(buf, n, "%.1f MiB", (double)bytes / (1 << 20));
    else snprintf(buf, n, "%.1f KiB", (double)bytes / 1024);
}

logt_status flashrnn_tune(const flashrnn_device *dev, const flashrnn_problem *p, flashrnn_tiling *t)
{
    LOGT_TRY(check_inputs(dev, p));
    memset(t, 0, sizeof *t);
    flashrnn_tiling closest;
    verdict v;
    char head_r[32], smem[32];
    kib(head_r, sizeof head_r, (int64_t)p->dh * p->G * p->dh * p->dtype_bytes);
    if (solve(dev, p, t, &closest, &v)) {
        kib(smem, sizeof smem, t->smem_per_block);
        const int64_t r_block = t->r_bytes_regs + t->r_bytes_smem;
        const int in_regs = r_block > 0 ? (int)(100 * t->r_bytes_regs / r_block) : 0;
        if (t->cluster)
            snprintf(t->why, sizeof t->why,
                     "a head's R (%s) fits no single block: split over a cluster of %d blocks "
                     "that exchange through distributed shared memory every step; %d blocks, "
                     "R %d%% in registers, smem %s",
                     head_r, t->cluster, t->grid, in_regs, smem);
        else if (t->grid_sync)
            snprintf(t->why, sizeof t->why,
                     "a head's R (%s) fits no single block: split over %d blocks that "
                     "exchange through global memory every step; %d blocks resident at "
                     "once (capacity %d), R %d%% "
                     "in registers, smem %s",
                     head_r, t->blocks_per_head, t->grid, t->blocks_per_sm * dev->sm_count,
                     in_regs, smem);
        else
            snprintf(t->why, sizeof t->why,
                     "no grid sync: %d whole head(s) of R (%s each) per block; %d blocks on %d "
                     "SMs in %d wave(s), R %d%% in registers, smem %s",
                     t->heads_per_block, head_r, t->grid, dev->sm_count, t->waves, in_regs, smem);
        return LOGT_OK;
    }

    /* nothing fits: name the closest candidate's worst failed constraint, and the largest dh */
    const struct constraint *c = &CONSTRAINTS[v.worst_i];
    amount a = c->check(dev, p, &closest);
    t->failed = c->name;
    t->max_dh = flashrnn_max_dh(dev, p);
    snprintf(t->why, sizeof t->why, "%s: needs %lld, limit %lld (%s)", c->name, (long long)a.need,
             (long long)a.limit, c->what);
    char all_r[32], chip[32];
    kib(all_r, sizeof all_r, (int64_t)p->H * p->dh * p->G * p->dh * p->dtype_bytes);
    kib(chip, sizeof chip, (int64_t)dev->sm_count * ((int64_t)dev->regs_per_sm * 4 + dev->smem_per_sm));
    char fits[96];
    if (t->max_dh > 0)
        snprintf(fits, sizeof fits, "the largest dh that fits is %d (D = %lld)", t->max_dh,
                 (long long)t->max_dh * p->H);
    else
        snprintf(fits, sizeof fits, "no dh fits");
    return LOGT_FAIL(LOGT_EUNSUPPORTED,
                     "flashrnn: no tiling fits %s %s %s B=%d H=%d dh=%d (R %s per head, %s in all; %s "
                     "has %s of registers and shared memory). "
                     "The closest candidate (heads_per_block=%d blocks_per_head=%d batch_tile=%d "
                     "warps=%dx%d reg_strips=%d) breaks %s: needs %lld, limit %lld (%s); %d "
                     "constraint(s) fail. For this B, H, cell, dtype and pass on this device %s.\n"
                     "HINT: use more heads of a smaller dh, or bf16 or f16 instead of fp32%s",
                     flashrnn_fused_cell_name(p->G, p->slstm), dtype_name(p->dtype_bytes), pass_name(p->pass),
                     p->B, p->H,
                     p->dh, head_r, all_r, dev->name, chip, closest.heads_per_block, closest.blocks_per_head,
                     closest.batch_tile, closest.warps_n, closest.warps_k, closest.reg_strips,
                     c->name, (long long)a.need, (long long)a.limit, c->what, v.failures, fits,
                     p->head_sync == FLASHRNN_SYNC_CLUSTER
                         ? ", or head_sync = grid (an exchange through global memory: no cluster-size limit)"
                         : "");
}

int flashrnn_tiling_format(const flashrnn_tiling *t, char *buf, size_t n)
{
    return snprintf(buf, n,
                    "heads_per_block=%d blocks_per_head=%d batch_tile=%d gate_tile=%d warps_n=%d "
                    "warps_k=%d cell_split=%d threads=%d reg_strips=%d r_bytes_regs=%lld r_bytes_smem=%lld "
                    "regs_per_thread=%d regs_per_block=%lld smem_per_block=%lld grid=%d "
                    "batch_blocks=%d blocks_per_sm=%d waves=%d grid_sync=%d cluster=%d share=%d why=\"%s\"",
                    t->heads_per_block, t->blocks_per_head, t->batch_tile, t->gate_tile,
                    t->warps_n, t->warps_k, t->cell_split, t->threads, t->reg_strips,
                    (long long)t->r_bytes_regs, (long long)t->r_bytes_smem, t->regs_per_thread,
                    (long long)t->regs_per_block, (long long)t->smem_per_block, t->grid,
                    t->batch_blocks, t->blocks_per_sm, t->waves, t->grid_sync, t->cluster, t->share, t->why);
}

/* ---- Devices ------------------------------------------------------------------------------ */
void flashrnn_device_h200(flashrnn_device *dev)
{
    *dev = (flashrnn_device){
        .name = "H200 (preset)",
        .sm_count = 132,
        .regs_per_sm = 65536,
        .max_regs_per_thread = 255,
        .max_threads_per_block = 1024,
        .max_threads_per_sm = 2048,
        .max_blocks_per_sm = 32,
        .warp_size = 32,
        .smem_optin_per_block = 227 * 1024,
        .smem_per_sm = 228 * 1024,
        .smem_reserved_per_block = 1024,
        .max_cluster = 16,
    };
}

void flashrnn_device_from_info(const logt_device_info *info, flashrnn_device *dev)
{
    const int cc = 10 * info->cc_major + info->cc_minor;
    const int small_sm = cc == 75 || cc == 86 || cc == 89;     /* fewer threads and blocks */
    *dev = (flashrnn_device){
        .sm_count = info->sm_count,
        .regs_per_sm = info->regs_per_sm,
        .max_regs_per_thread = 255,
        .max_threads_per_block = 1024,
        .max_threads_per_sm = cc == 75 ? 1024 : small_sm ? 1536 : 2048,
        .max_blocks_per_sm = small_sm ? 16 : 32,
        .warp_size = 32,
        .smem_optin_per_block = (int)info->smem_optin_per_block,
        .smem_per_sm = (int)info->smem_optin_per_block + 1024,
        .smem_reserved_per_block = 1024,
        .max_cluster = cc >= 90 ? 16 : 0,
    };
    snprintf(dev->name, sizeof dev->name, "%.*s", (int)sizeof dev->name - 1, info->name);
}

#ifdef LOGT_HAVE_CUDA
logt_status flashrnn_device_query(flashrnn_device *dev)
{
    logt_device_info info;
    LOGT_TRY(logt_cuda_info(&info));
    flashrnn_device_from_info(&info, dev);
    return LOGT_OK;
}
#endif
