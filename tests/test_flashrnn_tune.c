/* test_flashrnn_tune.c — the tiling solver of the fused head-wise kernels (models/flashrnn/tune.h),
 * CPU only: FlashRNN's head-dimension sweep on the H200 preset gets valid tilings, every
 * constraint re-checked here from the returned numbers against a second, independent reading of
 * the resource model in the header; small heads stay whole, a 768-wide head is split; requests
 * that cannot fit get LOGT_EUNSUPPORTED naming the limit and the largest dh that does fit;
 * the same input gives the same output. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../models/flashrnn/tune.h"

/* FlashRNN's figure: D = 768, B = 16, these head dims. */
static const int DH[] = {16, 32, 64, 128, 256, 768};
enum { N_DH = sizeof DH / sizeof DH[0] };

static flashrnn_problem problem(int B, int H, int dh, int G, int bytes, flashrnn_pass pass)
{
    return (flashrnn_problem){.B = B, .H = H, .dh = dh, .G = G, .dtype_bytes = bytes, .pass = pass};
}

static const char *describe(const flashrnn_problem *p)
{
    static char buf[96];
    snprintf(buf, sizeof buf, "%s %s %s B=%d H=%d dh=%d", p->G == 4 ? "lstm" : "gru",
             p->dtype_bytes == 2 ? "bf16" : "fp32", p->pass ? "backward" : "forward", p->B, p->H,
             p->dh);
    return buf;
}

static long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/* Every constraint of the header, from t's numbers; the registers and shared memory also from
 * the header's model, rewritten here. Fails the test with the tiling line on any mismatch. */
static void recheck(const flashrnn_device *d, const flashrnn_problem *p, const flashrnn_tiling *t)
{
    char line[1024];
    flashrnn_tiling_format(t, line, sizeof line);
    const char *what = describe(p);
    const long long hpb = t->heads_per_block, bph = t->blocks_per_head, bt = t->batch_tile;
    const long long wn = t->warps_n, wk = t->warps_k, r = t->reg_strips, bytes = p->dtype_bytes;
    const long long q = 16, B_pad = ceil_div(p->B, 8) * 8;

    /* the variables lie in their domains */
    cr_assert(hpb >= 1 && p->H % hpb == 0, "%s: heads_per_block must divide H: %s", what, line);
    cr_assert(bph >= 1 && (p->G * p->dh) % bph == 0, "%s: blocks_per_head | G*dh: %s", what, line);
    cr_assert(bt >= 8 && bt % 8 == 0 && B_pad % bt == 0, "%s: batch tile: %s", what, line);
    cr_assert(p->dh % q == 0 && wk >= 1 && (p->dh / q) % wk == 0, "%s: warps_k: %s", what, line);
    const long long ks = p->dh / wk;
    if (p->k_slices) cr_assert(p->k_slices >> (ks / 16) & 1, "%s: k_slice %lld not compiled: %s", what, ks, line);
    /* tensor-core granularity and whole unit groups, one warp per group and k slice */
    cr_assert_eq(t->gate_tile, p->G * p->dh / bph, "%s: gate tile: %s", what, line);
    cr_assert_eq(t->gate_tile % (16 * p->G), 0, "%s: gate tile not whole groups: %s", what, line);
    const long long groups = hpb * t->gate_tile / (16 * p->G);
    cr_assert_eq(wn, groups, "%s: warps_n is one per group: %s", what, line);
    cr_assert_eq(r, p->G, "%s: reg_strips: all G strips in registers: %s", what, line);
    cr_assert(bph == 1 || hpb == 1, "%s: a split head shares its block: %s", what, line);

    /* the derived sizes */
    cr_assert(t->cell_split == 1 || t->cell_split == 2, "%s: cell_split: %s", what, line);
    cr_assert_eq(t->threads, wn * wk * t->cell_split * 32, "%s: threads: %s", what, line);
    cr_assert_eq(t->batch_blocks, B_pad / bt, "%s: batch blocks: %s", what, line);
    cr_assert_eq(t->grid, (p->H / hpb) * bph * (B_pad / bt), "%s: grid: %s", what, line);
    /* a split head syncs one way: a cluster of all its blocks, or the exchange through global memory */
    cr_assert(t->cluster == 0 || t->cluster == bph, "%s: cluster: %s", what, line);
    cr_assert(bph > 1 || t->cluster == 0, "%s: a whole head needs no cluster: %s", what, line);
    cr_assert_eq(t->grid_sync, bph > 1 && !t->cluster, "%s: grid_sync: %s", what, line);
    if (p->head_sync == FLASHRNN_SYNC_GRID) cr_assert_eq(t->cluster, 0, "%s: %s", what, line);
    if (p->head_sync == FLASHRNN_SYNC_CLUSTER) cr_assert(!t->grid_sync, "%s: %s", what, line);
    cr_assert_eq(t->r_bytes_regs, hpb * p->dh * t->gate_tile * bytes, "%s: R in regs: %s", what, line);
    cr_assert_eq(t->r_bytes_smem, 0, "%s: %s", what, line);

    /* the header's model of registers per thread and shared memory per block */
    const long long known = bph > 1 && p->regs_split[ks / 16] ? p->regs_split[ks / 16] : p->regs[ks / 16];
    const long long rpt = known ? known
                                : 40 + p->G * 16 * ks * bytes / 128
                                      + (p->pass == FLASHRNN_FORWARD ? 4 * p->G : 4) + 2 * p->G + 2;
    cr_assert_eq(t->regs_per_thread, rpt, "%s: registers per thread %d, model %lld: %s", what,
                 t->regs_per_thread, rpt, line);
    cr_assert_eq(t->regs_per_block, ceil_div(rpt, 8) * 8 * t->threads, "%s: %s", what, line);
    /* shared memory, summed here part by part (flashrnn_smem_layout rounds each to 16 bytes) */
    const long long U = hpb * p->dh / bph, fwd = p->pass == FLASHRNN_FORWARD, lstm = p->G == 4;
    const long long pad = 16 / bytes, row = (fwd ? p->dh : p->G * p->dh) + pad, sl = p->slstm;
    /* backward fp32 planes: saved values and the states of t and t - 1 (lstm c; slstm c, n) */
    const long long nf = sl ? 5 + 4 : p->G == 1 ? 1 : 4 + 2 * lstm;
    const long long parts[] = {
        2 * hpb * bt * row * bytes,                                  /* mma operand     */
        4 * (fwd ? p->G : nf) * bt * (U + 4) * 4,                    /* fp32 prefetch   */
        fwd ? 0 : 4 * (1 + (p->G == 3)) * bt * (U + pad) * bytes,    /* dtype prefetch  */
        (sl ? 3 : fwd ? lstm : 2) * bt * (U + 4) * 4,                /* state           */
        wk > 1 ? 2 * (U / 16) * wk * (fwd ? 4 : 1) * 640 : 0,        /* partial sums    */
        fwd ? (p->G + 1) * U * 4 : 0,                                /* biases          */
        !fwd && wk > 1 ? 8 * wk : 0,                                 /* mbarriers       */
    };
    long long smem = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) smem += ceil_div(parts[i], 16) * 16;
    cr_assert_eq(t->smem_per_block, smem, "%s: smem %lld, model %lld: %s", what,
                 (long long)t->smem_per_block, smem, line);

    /* the device's limits */
    cr_assert_leq(t->threads, d->max_threads_per_block, "%s: %s", what, line);
    cr_assert_leq(t->regs_per_thread, d->max_regs_per_thread, "%s: %s", what, line);
    cr_assert_leq(t->regs_per_block, d->regs_per_sm, "%s: %s", what, line);
    cr_assert_leq(t->smem_per_block, d->smem_optin_per_block, "%s: %s", what, line);
    long long per_sm = d->max_blocks_per_sm;
    if (d->regs_per_sm / t->regs_per_block < per_sm) per_sm = d->regs_per_sm / t->regs_per_block;
    if (d->smem_per_sm / (t->smem_per_block + d->smem_reserved_per_block) < per_sm)
        per_sm = d->smem_per_sm / (t->smem_per_block + d->smem_reserved_per_block);
    if (d->max_threads_per_sm / t->threads < per_sm) per_sm = d->max_threads_per_sm / t->threads;
    cr_assert(per_sm >= 1, "%s: no block fits an SM: %s", what, line);
    cr_assert_eq(t->blocks_per_sm, per_sm, "%s: blocks per SM: %s", what, line);
    cr_assert_eq(t->waves, ceil_div(t->grid, per_sm * d->sm_count), "%s: waves: %s", what, line);
    if (t->grid_sync)   /* a block polling for one not resident waits forever */
        cr_assert_leq(t->grid, per_sm * d->sm_count, "%s: grid sync would deadlock: %s", what, line);
    if (t->cluster) cr_assert_leq(t->cluster, d->max_cluster, "%s: cluster too large: %s", what, line);

    cr_assert(t->why[0] != '\0' && t->failed == NULL, "%s: %s", what, line);
}

static flashrnn_tiling tune_ok(const flashrnn_device *d, const flashrnn_problem *p)
{
    flashrnn_tiling t;
    logt_status s = flashrnn_tune(d, p, &t);
    cr_assert_eq(s, LOGT_OK, "%s on %s: %s", describe(p), d->name, logt_errmsg());
    recheck(d, p, &t);
    return t;
}

static void expect_no_fit(const flashrnn_device *d, const flashrnn_problem *p, const char *limit);

Test(flashrnn_tune, headdim_sweep_on_h200_is_valid)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    for (int pass = FLASHRNN_FORWARD; pass <= FLASHRNN_BACKWARD; pass++)
        for (int G = 3; G <= 4; G++)
            for (int bytes = 2; bytes <= 4; bytes += 2)
                for (int i = 0; i < N_DH; i++) {
                    flashrnn_problem p = problem(16, 768 / DH[i], DH[i], G, bytes, pass);
                    if (G == 4 && bytes == 4 && DH[i] == 768 && pass == FLASHRNN_FORWARD) {
                        /* one unit group's R, 16·4·768·4 = 192 KiB, is 48 K registers, spread
                         * over the group's warps_k warps: with every other register they need,
                         * no block of at most 64 K registers holds a group, and R lives in
                         * registers only */
                        expect_no_fit(&d, &p, "regs_per_block");
                        continue;
                    }
                    flashrnn_tiling t = tune_ok(&d, &p);
                    /* R per head <= 128 KiB, half a register file: one block holds it */
                    if ((long long)G * DH[i] * DH[i] * bytes <= 128 * 1024)
                        cr_assert_eq(t.blocks_per_head, 1, "%s: small heads stay whole: %s",
                                     describe(&p), t.why);
                    if (DH[i] == 768)   /* 4.5 MiB (bf16 lstm) is beyond one SM and a cluster of 16 */
                        cr_assert(t.blocks_per_head > 16 && t.grid_sync, "%s: %s", describe(&p), t.why);
                    if ((DH[i] == 128 || DH[i] == 256) && t.blocks_per_head > 1)   /* few enough blocks for a cluster */
                        cr_assert(t.cluster == t.blocks_per_head && !t.grid_sync, "%s: %s", describe(&p), t.why);
                }
}

Test(flashrnn_tune, awkward_shapes_are_valid)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    /* B = 1 and odd B (padded to 8), one head, many heads, a large batch */
    const int shapes[][3] = {{1, 1, 64}, {3, 12, 64}, {17, 48, 16}, {256, 12, 64}, {5, 1, 768},
                             {16, 6, 96}, {64, 3, 256}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int pass = FLASHRNN_FORWARD; pass <= FLASHRNN_BACKWARD; pass++) {
            flashrnn_problem p = problem(shapes[i][0], shapes[i][1], shapes[i][2], 4, 2, pass);
            tune_ok(&d, &p);
        }
}

/* The objective's documented preferences, where the answer is known. */
Test(flashrnn_tune, objective_prefers_whole_heads_many_sms_and_registers)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    /* dh = 64 bf16 lstm: 12 heads of 32 KiB; one head per block, the batch split in two to
     * busy 24 SMs, no grid sync, R all in registers, at least 4 warps for the 4 tensor units */
    flashrnn_problem p = problem(16, 12, 64, 4, 2, FLASHRNN_FORWARD);
    flashrnn_tiling t = tune_ok(&d, &p);
    cr_assert_eq(t.heads_per_block, 1, "%s", t.why);
    cr_assert_eq(t.batch_tile, 8, "%s", t.why);
    cr_assert_eq(t.grid, 24, "%s", t.why);
    cr_assert_eq(t.r_bytes_smem, 0, "%s", t.why);
    cr_assert_geq(t.warps_n * t.warps_k, 4, "%s", t.why);
    /* dh = 32: one warp per group, although two would busy more tensor units (measured faster) */
    p = problem(16, 24, 32, 4, 2, FLASHRNN_FORWARD);
    cr_assert_eq(tune_ok(&d, &p).warps_k, 1);
    /* dh = 768: the split uses many SMs, all resident */
    p = problem(16, 1, 768, 4, 2, FLASHRNN_FORWARD);
    t = tune_ok(&d, &p);
    cr_assert_geq(t.grid, 64, "%s", t.why);
    cr_assert_eq(t.waves, 1, "%s", t.why);
}

/* head_sync: a split head is a cluster where it fits one, the global exchange where asked for,
 * where the head needs more blocks than a cluster holds, or where the GPU has no clusters. */
Test(flashrnn_tune, split_heads_sync_as_clusters_when_they_can)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    for (int pass = FLASHRNN_FORWARD; pass <= FLASHRNN_BACKWARD; pass++) {
        flashrnn_problem p = problem(16, 3, 256, 4, 2, (flashrnn_pass)pass);
        flashrnn_tiling t = tune_ok(&d, &p);
        cr_assert(t.cluster > 1 && t.cluster == t.blocks_per_head && !t.grid_sync, "%s", t.why);
        cr_assert(strstr(t.why, "cluster"), "%s", t.why);
        p.head_sync = FLASHRNN_SYNC_GRID;
        t = tune_ok(&d, &p);
        cr_assert(t.blocks_per_head > 1 && t.grid_sync && !t.cluster, "%s", t.why);
        p.head_sync = FLASHRNN_SYNC_CLUSTER;   /* a head that fits one block stays whole */
        p.H = 12, p.dh = 64;
        t = tune_ok(&d, &p);
        cr_assert(t.blocks_per_head == 1 && !t.cluster && !t.grid_sync, "%s", t.why);
        flashrnn_device old = d;   /* before sm_90: no clusters, the global exchange instead */
        old.max_cluster = 0;
        p = problem(16, 3, 256, 4, 2, (flashrnn_pass)pass);
        t = tune_ok(&old, &p);
        cr_assert(t.grid_sync && !t.cluster, "%s", t.why);
        p.head_sync = FLASHRNN_SYNC_CLUSTER;
        cr_assert_eq(flashrnn_tune(&old, &p, &t), LOGT_EUNSUPPORTED, "%s", t.why);
        cr_assert(strstr(logt_errmsg(), "head_sync = grid"), "%s", logt_errmsg());
    }
    /* one dense head of 768 needs 48 blocks: more than a cluster of 16 */
    flashrnn_problem p = problem(16, 1, 768, 4, 2, FLASHRNN_FORWARD);
    p.head_sync = FLASHRNN_SYNC_CLUSTER;
    flashrnn_tiling t;
    cr_assert_eq(flashrnn_tune(&d, &p, &t), LOGT_EUNSUPPORTED, "%s", t.why);
    cr_assert(strstr(logt_errmsg(), "head_sync = grid"), "%s", logt_errmsg());
    p.head_sync = 3;
    cr_assert_eq(flashrnn_tune(&d, &p, &t), LOGT_EINVAL);
}

Test(flashrnn_tune, same_input_same_output)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    for (int i = 0; i < N_DH; i++) {
        flashrnn_problem p = problem(16, 768 / DH[i], DH[i], 4, 2, FLASHRNN_BACKWARD);
        flashrnn_tiling a, b, other;
        cr_assert_eq(flashrnn_tune(&d, &p, &a), LOGT_OK);
        flashrnn_problem q = problem(7, 3, 32, 3, 4, FLASHRNN_FORWARD);   /* something between */
        cr_assert_eq(flashrnn_tune(&d, &q, &other), LOGT_OK);
        cr_assert_eq(flashrnn_tune(&d, &p, &b), LOGT_OK);
        cr_assert(memcmp(&a, &b, sizeof a) == 0, "dh=%d: two answers:\n%s\n%s", DH[i], a.why, b.why);
    }
}

/* A failed request: the named constraint is a real one and in the message, and the largest dh
 * offered fits while the next sizes up do not. */
static void expect_no_fit(const flashrnn_device *d, const flashrnn_problem *p, const char *limit)
{
    flashrnn_tiling t;
    logt_status s = flashrnn_tune(d, p, &t);
    cr_assert_eq(s, LOGT_EUNSUPPORTED, "%s on %s fitted: %s", describe(p), d->name, t.why);
    const char *msg = logt_errmsg();
    cr_assert(t.failed != NULL, "%s", msg);
    if (limit) cr_assert_str_eq(t.failed, limit, "%s", msg);
    int known = 0;
    for (const char *const *n = flashrnn_constraint_names(); *n; n++) known |= strcmp(*n, t.failed) == 0;
    cr_assert(known, "unknown constraint %s", t.failed);
    cr_assert(strstr(msg, t.failed), "the message does not name %s: %s", t.failed, msg);
    cr_assert(strstr(msg, "largest dh"), "%s", msg);

    const int q = 16;
    cr_assert_eq(t.max_dh, flashrnn_max_dh(d, p));
    cr_assert(t.max_dh > 0 && t.max_dh % q == 0 && t.max_dh < p->dh, "max_dh %d: %s", t.max_dh, msg);
    char num[32];
    snprintf(num, sizeof num, "is %d ", t.max_dh);
    cr_assert(strstr(msg, num), "the message does not give dh %d: %s", t.max_dh, msg);
    flashrnn_problem fits = *p, bigger = *p;
    fits.dh = t.max_dh;
    tune_ok(d, &fits);
    bigger.dh = t.max_dh + q;
    if (bigger.dh <= p->dh) {
        flashrnn_tiling u;
        cr_assert_eq(flashrnn_tune(d, &bigger, &u), LOGT_EUNSUPPORTED, "dh=%d fits: %s", bigger.dh, u.why);
    }
}

Test(flashrnn_tune, dh_4096_fp32_lstm_does_not_fit_an_h200)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    /* R = 16·dh² bytes = 256 MiB against 132 × (256 + 228) KiB on chip */
    flashrnn_problem p = problem(16, 1, 4096, 4, 4, FLASHRNN_FORWARD);
    expect_no_fit(&d, &p, NULL);
}

Test(flashrnn_tune, tiny_device_gets_a_named_limit)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    snprintf(d.name, sizeof d.name, "tiny");
    d.sm_count = 2;
    d.regs_per_sm = 8192;
    d.smem_optin_per_block = 16 * 1024;
    d.smem_per_sm = 17 * 1024;
    flashrnn_problem p = problem(16, 1, 4096, 4, 4, FLASHRNN_FORWARD);
    expect_no_fit(&d, &p, NULL);
    p = problem(16, 1, 4096, 3, 2, FLASHRNN_BACKWARD);
    expect_no_fit(&d, &p, NULL);
}

Test(flashrnn_tune, starved_shared_memory_is_the_named_limit)
{
    /* everything of an H200 but 6 KiB of shared memory per block. The smallest block, one unit
     * group of 16 (bph = dh/16) and 8 batch rows, needs the h_{t-1} buffer, 2·8·(dh + 8)·2
     * bytes, the fp32 W x prefetch of 4 stages with rows of 16 + 4, 4·4·8·20·4 = 10240, c,
     * 8·20·4 = 640, and the biases, (4 + 1)·16·4 = 320: 12480 bytes at dh = 32, 12992 at
     * dh = 48: with 12800 nothing beyond dh = 32 fits */
    flashrnn_device d;
    flashrnn_device_h200(&d);
    snprintf(d.name, sizeof d.name, "no-smem");
    d.smem_optin_per_block = 12800;
    d.smem_per_sm = 14 * 1024;
    flashrnn_problem p = problem(16, 1, 64, 4, 2, FLASHRNN_FORWARD);
    expect_no_fit(&d, &p, "smem_per_block");
    flashrnn_tiling t;
    flashrnn_tune(&d, &p, &t);
    cr_assert_eq(t.max_dh, 32);
}

Test(flashrnn_tune, dh_off_the_mma_grid_is_the_named_limit)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    for (int bytes = 2; bytes <= 4; bytes += 2) {
        flashrnn_problem p = problem(16, 4, 40, 4, bytes, FLASHRNN_FORWARD);   /* 16 ∤ 40 */
        expect_no_fit(&d, &p, "dh_mma_granularity");
        flashrnn_tiling t;
        flashrnn_tune(&d, &p, &t);
        cr_assert_eq(t.max_dh, 32);
    }
}

/* Only the compiled k_slices are offered: with k_slice 64 alone, dh = 64 gets warps_k = 1 and
 * dh = 128 warps_k = 2, and dh = 32 (which no warps_k turns into 64) is refused by name. */
Test(flashrnn_tune, only_instantiated_k_slices)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    flashrnn_problem p = problem(16, 12, 64, 4, 2, FLASHRNN_FORWARD);
    p.k_slices = 1u << 4;
    cr_assert_eq(tune_ok(&d, &p).warps_k, 1);
    p = problem(16, 6, 128, 4, 2, FLASHRNN_BACKWARD);
    p.k_slices = 1u << 4;
    cr_assert_eq(tune_ok(&d, &p).warps_k, 2);
    p = problem(16, 24, 32, 3, 2, FLASHRNN_FORWARD);
    p.k_slices = 1u << 4;
    flashrnn_tiling t;
    cr_assert_eq(flashrnn_tune(&d, &p, &t), LOGT_EUNSUPPORTED);
    cr_assert_str_eq(t.failed, "instantiated_k_slice", "%s", logt_errmsg());
    /* the kernel's real register count replaces the estimate */
    p = problem(16, 12, 64, 4, 2, FLASHRNN_FORWARD);
    p.regs[4] = 200;
    t = tune_ok(&d, &p);
    cr_assert_eq(t.regs_per_thread, 200);
}

/* A split tiling takes the split-head kernels' register count where it is given: the slstm's
 * dense head of 768 (k_slice 64, 12 warps of 32 lanes a block) fits no block at its
 * whole-head kernel's 212 registers (82,944 a block), and does at the split kernels' 168. */
Test(flashrnn_tune, split_tilings_take_the_split_kernels_registers)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    flashrnn_problem p = problem(9, 1, 768, 4, 2, FLASHRNN_FORWARD);
    p.slstm = 1;
    p.k_slices = 1u << 4;
    p.regs[4] = 212;
    flashrnn_tiling t;
    cr_assert_eq(flashrnn_tune(&d, &p, &t), LOGT_EUNSUPPORTED);
    cr_assert_str_eq(t.failed, "regs_per_block", "%s", logt_errmsg());
    cr_assert(strstr(logt_errmsg(), "slstm"), "%s", logt_errmsg());
    p.regs_split[4] = 168;
    t = tune_ok(&d, &p);
    cr_assert_gt(t.blocks_per_head, 1);
    cr_assert_eq(t.regs_per_thread, 168);
    /* a whole head keeps regs: dh = 64 at k_slice 64 is one warp a group, whole */
    p = problem(16, 12, 64, 4, 2, FLASHRNN_FORWARD);
    p.slstm = 1, p.k_slices = 1u << 4, p.regs[4] = 212, p.regs_split[4] = 168;
    t = tune_ok(&d, &p);
    cr_assert_eq(t.blocks_per_head, 1);
    cr_assert_eq(t.regs_per_thread, 212);
}

Test(flashrnn_tune, bad_requests_are_einval)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    flashrnn_tiling t;
    const flashrnn_problem bad[] = {
        problem(0, 1, 64, 4, 2, 0), problem(16, 0, 64, 4, 2, 0), problem(16, 1, 0, 4, 2, 0),
        problem(16, 1, 64, 5, 2, 0), problem(16, 1, 64, 4, 3, 0), problem(16, 1, 64, 4, 2, 2),
        problem(16, 1, 64, 2, 2, 0),
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(flashrnn_tune(&d, &bad[i], &t), LOGT_EINVAL, "case %zu", i);
    flashrnn_problem p = problem(16, 12, 64, 3, 2, FLASHRNN_FORWARD);   /* an slstm has 4 gates */
    p.slstm = 1;
    cr_assert_eq(flashrnn_tune(&d, &p, &t), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "slstm = 1"), "%s", logt_errmsg());
    for (int G = 1; G <= 4; G += G == 1 ? 2 : 1) {   /* elman, gru, lstm */
        p = problem(16, 12, 64, G, 2, FLASHRNN_FORWARD);
        cr_assert_eq(flashrnn_tune(&d, &p, &t), LOGT_OK, "G = %d: %s", G, logt_errmsg());
    }
    p = problem(16, 12, 64, 4, 2, FLASHRNN_FORWARD);
    d.sm_count = 0;
    cr_assert_eq(flashrnn_tune(&d, &p, &t), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "HINT"), "%s", logt_errmsg());
}

Test(flashrnn_tune, device_from_info_matches_the_preset)
{
    logt_device_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.name, sizeof info.name, "NVIDIA H200");
    info.sm_count = 132, info.cc_major = 9, info.cc_minor = 0;
    info.regs_per_sm = 65536, info.smem_optin_per_block = 227 * 1024;
    flashrnn_device a, b;
    flashrnn_device_from_info(&info, &a);
    flashrnn_device_h200(&b);
    cr_assert_str_eq(a.name, "NVIDIA H200");
    memcpy(a.name, b.name, sizeof a.name);
    cr_assert(memcmp(&a, &b, sizeof a) == 0, "from_info differs from the H200 preset");
    info.cc_major = 8, info.cc_minor = 6;   /* consumer Ampere: 1536 threads, 16 blocks per SM */
    flashrnn_device_from_info(&info, &a);
    cr_assert_eq(a.max_threads_per_sm, 1536);
    cr_assert_eq(a.max_blocks_per_sm, 16);
    cr_assert_eq(a.max_cluster, 0, "no thread-block clusters before sm_90");
}

Test(flashrnn_tune, format_is_one_line_of_the_numbers)
{
    flashrnn_device d;
    flashrnn_device_h200(&d);
    flashrnn_problem p = problem(16, 1, 768, 4, 2, FLASHRNN_FORWARD);
    flashrnn_tiling t = tune_ok(&d, &p);
    char line[1024];
    int n = flashrnn_tiling_format(&t, line, sizeof line);
    cr_assert(n > 0 && n < (int)sizeof line);
    cr_assert_null(strchr(line, '\n'), "%s", line);
    int hpb, bph, bt, grid;
    cr_assert_eq(sscanf(line, "heads_per_block=%d blocks_per_head=%d batch_tile=%d", &hpb, &bph, &bt), 3, "%s", line);
    cr_assert(hpb == t.heads_per_block && bph == t.blocks_per_head && bt == t.batch_tile, "%s", line);
    const char *g = strstr(line, " grid=");
    cr_assert(g && sscanf(g, " grid=%d", &grid) == 1 && grid == t.grid, "%s", line);
    cr_assert(strstr(line, "why=\"") && line[n - 1] == '"', "%s", line);
}
