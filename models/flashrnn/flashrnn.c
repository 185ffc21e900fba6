/* flashrnn.c — the flashrnn model (equations and parameter layout in flashrnn.h): its ops,
 * and the float64 CPU reference of its cells, lstm, gru, slstm and elman.
 *
 * The reference has the shape of the fused kernels it will judge: first the input
 * projection of every step at once (W x + b, one product, kernels/dense_cpu.h), then one
 * loop over time in which each head multiplies its own h_{t-1} [dh] by its own R [dh][G·dh]
 * and the pointwise cell follows. The cells are small functions of one unit, apart from the
 * loop: the lstm's is lstm_cell.h (shared with the `lstm` model), the gru's gru_cell.h (shared
 * with `deer`), the slstm's slstm_cell.h; the elman's tanh is written in place.
 * Backward (BPTT) is the mirror image; the input weights' gradients and dx are again one
 * product each over all steps. Cost O(T·B·G·D·(I + dh)); no attempt at speed.
 */
#include "flashrnn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dense_cpu.h"
#include "fused.h"
#include "../cells/gru_cell.h"
#include "../cells/lstm_cell.h"
#include "../cells/slstm_cell.h"

static const char *const cells[] = {[FLASHRNN_LSTM] = "lstm", [FLASHRNN_GRU] = "gru",
                                    [FLASHRNN_SLSTM] = "slstm", [FLASHRNN_ELMAN] = "elman", NULL};
extern const logt_model_ops logt_flashrnn_ops;
static const char *const knobs[] = {"kernel", "warps_k", "cell_split", "head_sync", "cluster_store", "cell_spread", "grid_share", "grad_overlap", "proj_overlap", "warp_gates", "poll_delay", "forget_init", NULL};

static int ngates(flashrnn_cell cell)
{
    static const int G[] = {[FLASHRNN_LSTM] = 4, [FLASHRNN_GRU] = 3, [FLASHRNN_SLSTM] = 4,
                            [FLASHRNN_ELMAN] = 1};
    return G[cell];
}

/* What forward keeps of each unit's gates for backward ([T][B][nkept·D], flashrnn.h). */
static int nkept(flashrnn_cell cell)
{
    static const int K[] = {[FLASHRNN_LSTM] = 4, [FLASHRNN_GRU] = 4, [FLASHRNN_SLSTM] = 5,
                            [FLASHRNN_ELMAN] = 0};
    return K[cell];
}

/* The fused kernel's choice knobs. A value's index is what the model keeps (flashrnn.h);
 * index 0, the default, leaves the choice to the tuner or the kernel. */
typedef struct { const char *name, *opts[5], *help; } choice_knob;
static const choice_knob CHOICES[] = {
    {"cell_split", {"0", "1", "2", NULL},
     "1 (one warp runs a unit group's cell) or 2 (two warps, 8 units each), 0 or unset for the "
     "tuner's choice"},
    {"head_sync", {"auto", "grid", "cluster", NULL},
     "how the blocks of a head split over several blocks meet every step, grid (through global "
     "memory) or cluster (one thread-block cluster, sm_90 and later), auto or unset for the "
     "tuner's choice"},
    {"cluster_store", {"auto", "cell", "copy", NULL},
     "with head_sync = cluster, cell (the cell stores each value into every block of the "
     "cluster) or copy (each block copies its part to the others after a block barrier), auto "
     "or unset for the kernel's rule"},
    {"cell_spread", {"auto", "off", "on", NULL},
     "where warps_k > 1, off (one warp adds the partial sums and runs a unit group's cell) or "
     "on (the group's first 4 warps, one position a thread; groups of 4 or more warps), auto "
     "or unset for the kernel's rule"},
    {"grid_share", {"auto", "off", "on", NULL},
     "with head_sync = grid, the backward: on (the head's blocks in thread-block clusters "
     "that share the step's reload from L2, multicast by the copy engine; needs warps_k > 1 "
     "and cell_split = 1) or off (every block reloads all of it), auto or unset for on where "
     "it can be"},
    {"grad_overlap", {"auto", "off", NULL},
     "off (the weights' gradients after the fused backward) or auto or unset (beside it, in "
     "chunks of steps, where its blocks count their steps in global memory and share their "
     "reload: head_sync = grid, grid_share, T >= 64)"},
    {"proj_overlap", {"auto", "off", "late", NULL},
     "off (the forward's input projection whole, before the fused kernel) or auto or unset "
     "(its first chunk of steps before the kernel, the rest beside it on a second stream, "
     "where the kernel leaves SMs free, those can make a step's W x about as fast as the "
     "kernel a step, and T splits into chunks of 16 steps or more); late, for tests, as auto "
     "but each chunk made only once the kernel asks for it"},
    {"warp_gates", {"auto", "all", "2", "1", NULL},
     "all (each warp's products cover every gate of its units over a k slice of dh / warps_k), "
     "2 or 1 (that many gates over a slice 2 or 4 times as long: fewer partial sums; the "
     "forward of an lstm in bf16 or f16 whose head is split through global memory into "
     "blocks of 16 units and 8 batch rows, the dense head of 768), auto or unset for the "
     "kernel's rule"},
};
enum { CHOICE_CELL_SPLIT, CHOICE_HEAD_SYNC, CHOICE_CLUSTER_STORE, CHOICE_CELL_SPREAD, CHOICE_GRID_SHARE,
       CHOICE_GRAD_OVERLAP, CHOICE_PROJ_OVERLAP, CHOICE_WARP_GATES };

/* The index of cfg's value of knob c among its options, or -1. */
static int choice_of(const logt_model_cfg *cfg, const choice_knob *c)
{
    const char *v = logt_cfg_knob(cfg, c->name, c->opts[0]);
    for (int i = 0; c->opts[i]; i++)
        if (!strcmp(v, c->opts[i])) return i;
    return -1;
}

/* ---- configuration ------------------------------------------------------------------- */

/* The cuda kernel that runs: the knob's, else fused (every cell has both). */
static const char *kernel_of(const logt_model_cfg *cfg) { return logt_cfg_knob(cfg, "kernel", "fused"); }

/* Check what is flashrnn's own in cfg (its knobs, the cuda tile; logt_model_check did the
 * rest); give its cell, heads H and head dim dh. */
static logt_status check_cfg(const logt_model_cfg *cfg, flashrnn_cell *cell, int64_t *H,
                             int64_t *dh)
{
    const int c = logt_model_cell(&logt_flashrnn_ops, cfg);   /* cells: the enum's order */
    if (c < 0) return logt_model_check(&logt_flashrnn_ops, cfg);   /* names the valid cells */
    *cell = (flashrnn_cell)c;
    const char *k = kernel_of(cfg);
    if (strcmp(k, "fused") && strcmp(k, "alternating"))
        return LOGT_FAIL(LOGT_EINVAL, "%s has no kernel '%s': use kernel = fused (one persistent "
                         "kernel per pass) or alternating (a GEMM and a pointwise kernel per "
                         "step)", cfg->model, k);
    if (cfg->device != LOGT_CUDA && strcmp(k, "fused"))
        return LOGT_FAIL(LOGT_EINVAL, "%s: kernel = %s chooses between the cuda kernels; the "
                         "cpu reference has one loop: leave kernel unset", cfg->model, k);
    int K, wave;
    LOGT_TRY(logt_net_recompute_of(cfg, &K));
    LOGT_TRY(logt_net_wavefront_of(cfg, &wave));
    if ((K || wave) && *cell == FLASHRNN_SLSTM)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "%s: cell slstm cannot %s: its normaliser n and "
                         "stabiliser m are states the net's segments do not carry (only h and c); "
                         "leave %s = off, or use cell lstm, gru or elman", cfg->model,
                         K ? "recompute" : "run as a layers_wavefront",
                         K ? "recompute" : "layers_wavefront");
    const char *wk = logt_cfg_knob(cfg, "warps_k", "0");
    char *end;
    long w = strtol(wk, &end, 10);
    if (*end || w < 0 || w > 64 || (w && (cfg->device != LOGT_CUDA || strcmp(k, "fused"))))
        return LOGT_FAIL(LOGT_EINVAL, "%s: warps_k = '%s': it fixes the fused cuda kernel's warps "
                         "per unit group, 1 to 64 dividing dh / 16 (0 or unset: the tuner "
                         "chooses); only with the cuda backend and kernel = fused", cfg->model, wk);
    const char *pd = logt_cfg_knob(cfg, "poll_delay", "auto");
    long pdv = strcmp(pd, "auto") ? strtol(pd, &end, 10) : 0;
    if (strcmp(pd, "auto") && (*end || !*pd || pdv < 0 || pdv > 100000 || cfg->device != LOGT_CUDA
                               || strcmp(k, "fused")))
        return LOGT_FAIL(LOGT_EINVAL, "%s: poll_delay = '%s': the cycles a block of the fused cuda "
                         "forward waits, its cells done, before it first polls the h of a head "
                         "split through global memory, 0 to 100000, or auto or unset for the "
                         "kernel's (%d for the lstm in bf16 or f16, else %d); only with the cuda "
                         "backend and kernel = fused", cfg->model, pd, FLASHRNN_POLL_DELAY_LSTM_BF16,
                         FLASHRNN_POLL_DELAY_AUTO);
    for (size_t q = 0; q < sizeof CHOICES / sizeof CHOICES[0]; q++) {
        const int i = choice_of(cfg, &CHOICES[q]);
        if (i < 0 || (i && (cfg->device != LOGT_CUDA || strcmp(k, "fused"))))
            return LOGT_FAIL(LOGT_EINVAL, "%s: %s = '%s': %s; only with the cuda backend and "
                             "kernel = fused", cfg->model, CHOICES[q].name,
                             logt_cfg_knob(cfg, CHOICES[q].name, CHOICES[q].opts[0]), CHOICES[q].help);
    }
    const int D = cfg->hidden_size, d = cfg->head_dim ? cfg->head_dim : D;
    if (cfg->device == LOGT_CUDA && d % 16)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "%s on cuda: head dim dh = %d is not a multiple of 16 (the tensor-core "
                         "tile): choose dh in 16, 32, 48, 64, ... dividing D = %d, or the cpu "
                         "backend", cfg->model, d, D);
    *H = D / d, *dh = d;
    return LOGT_OK;
}

logt_status logt_flashrnn_layout(const logt_model_cfg *cfg, logt_layout *out)
{
    flashrnn_cell cell;
    int64_t H, dh;
    LOGT_TRY(check_cfg(cfg, &cell, &H, &dh));
    const int64_t D = cfg->hidden_size, I = cfg->input_size, G = ngates(cell);
    double k = 1.0 / sqrt((double)D), kr = 1.0 / sqrt((double)dh);   /* fan-ins: flashrnn.h */
    logt_layout_add(out, "W", k, 2, G * D, I, 0);
    logt_layout_add(out, "R", kr, 3, H, dh, G * dh);
    logt_layout_add(out, "b", k, 1, G * D, 0, 0);
    if (cell == FLASHRNN_GRU) logt_layout_add(out, "bn", k, 1, D, 0, 0);
    /* the gate that keeps the state: lstm [i f g o] f (i gets -f, chrono); gru [r z n] z;
     * slstm [i f z o] f (its i is an exponential gate, left as initialised); elman none */
    if (cell != FLASHRNN_ELMAN) logt_layout_memory_gate(out, "b", D, D, cell == FLASHRNN_LSTM ? 0 : -1);
    return LOGT_OK;
}

static logt_status flashrnn_create(const logt_model_cfg *cfg, logt_model **out)
{
    flashrnn_cell cell;
    int64_t H, dh;
    LOGT_TRY(check_cfg(cfg, &cell, &H, &dh));
    flashrnn_model *m = calloc(1, sizeof *m);
    if (!m) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    m->cell = cell, m->H = H, m->dh = dh;
    m->base.nslots = cell == FLASHRNN_LSTM || cell == FLASHRNN_SLSTM ? 2 : 1;   /* h, c / h */
    m->alternating = !strcmp(kernel_of(cfg), "alternating");
    m->warps_k = atoi(logt_cfg_knob(cfg, "warps_k", "0"));
    m->cell_split = choice_of(cfg, &CHOICES[CHOICE_CELL_SPLIT]);
    m->head_sync = choice_of(cfg, &CHOICES[CHOICE_HEAD_SYNC]);
    m->cluster_store = choice_of(cfg, &CHOICES[CHOICE_CLUSTER_STORE]);
    m->cell_spread = choice_of(cfg, &CHOICES[CHOICE_CELL_SPREAD]);
    m->grid_share = choice_of(cfg, &CHOICES[CHOICE_GRID_SHARE]);
    m->grad_overlap = choice_of(cfg, &CHOICES[CHOICE_GRAD_OVERLAP]);
    m->proj_overlap = choice_of(cfg, &CHOICES[CHOICE_PROJ_OVERLAP]);
    m->warp_gates = choice_of(cfg, &CHOICES[CHOICE_WARP_GATES]);
    const char *pd = logt_cfg_knob(cfg, "poll_delay", "auto");
    m->poll_delay = strcmp(pd, "auto") ? atoi(pd) : -1;
    if (cfg->device == LOGT_CUDA)
        snprintf(m->base.impl, sizeof m->base.impl,
                 "cuda %s %s, %s cell, %lld head%s of dh = %lld; %s", logt_dtype_name(cfg->dtype),
                 cfg->dtype == LOGT_BF16  ? "(bf16 tensor cores)"
                 : cfg->dtype == LOGT_F16 ? "(f16 tensor cores)"
                                          : "(tf32 tensor cores)",
                 cells[cell], (long long)H, H > 1 ? "s" : "",
                 (long long)dh, m->alternating ? "alternating GEMM + pointwise per step"
                                               : "fused persistent kernel per pass");
    else
        snprintf(m->base.impl, sizeof m->base.impl,
                 "cpu f64 reference, %s cell, %lld head%s of dh = %lld",
                 cells[cell], (long long)H, H > 1 ? "s" : "",
                 (long long)dh);
    *out = &m->base;
    return LOGT_OK;
}

/* ---- the block-diagonal recurrent product ---------------------------------------------- */

/* rh[q·D + k·dh + j] = Σ_m hp[k·dh + m] R[k][m][q·dh + j]: every head's h_{t-1} times its own
 * R, written into the gate-major [G][D] order of W x (rh is G·D long, overwritten). */
static void heads_forward(int64_t H, int64_t dh, int G, const double *R, const double *hp,
                          double *rh)
{
    const int64_t D = H * dh;
    memset(rh, 0, (size_t)(G * D) * sizeof *rh);
    for (int64_t k = 0; k < H; k++)
        for (int64_t m = 0; m < dh; m++) {
            const double hm = hp[k * dh + m], *Rrow = R + (k * dh + m) * G * dh;
            for (int q = 0; q < G; q++)
                for (int64_t j = 0; j < dh; j++) rh[q * D + k * dh + j] += hm * Rrow[q * dh + j];
        }
}

/* Backward of heads_forward given drh = dL/drh [G·D]: dR += hp ⊗ drh per head (unless hp is
 * NULL, i.e. zeros), and dhp[k·dh + m] += Σ_{q,j} R[k][m][q·dh + j] drh[q·D + k·dh + j]. */
static void heads_backward(int64_t H, int64_t dh, int G, const double *R, const double *hp,
                           const double *drh, double *dR, double *dhp)
{
    const int64_t D = H * dh;
    for (int64_t k = 0; k < H; k++)
        for (int64_t m = 0; m < dh; m++) {
            const double *Rrow = R + (k * dh + m) * G * dh;
            double *dRrow = dR + (k * dh + m) * G * dh, s = 0.0;
            for (int q = 0; q < G; q++)
                for (int64_t j = 0; j < dh; j++) {
                    double d = drh[q * D + k * dh + j];
                    if (hp) dRrow[q * dh + j] += hp[k * dh + m] * d;
                    s += Rrow[q * dh + j] * d;
                }
            dhp[k * dh + m] += s;
        }
}

/* ---- initial states -------------------------------------------------------------------- */

logt_status flashrnn_check_states(const flashrnn_model *m, int64_t B)
{
    if (m->base.c0.data && m->cell != FLASHRNN_LSTM && m->cell != FLASHRNN_SLSTM)
        return LOGT_FAIL(LOGT_EINVAL, "%s with cell %s has no cell state c0: set only h0",
                         m->base.cfg.model, cells[m->cell]);
    const logt_tensor *nm[2] = {&m->n0, &m->m0};
    for (int k = 0; k < 2; k++)
        if (nm[k]->data && nm[k]->shape[0] != B)
            return LOGT_FAIL(LOGT_EINVAL, "%s: the initial state %s has batch %lld but x has B = %lld",
                             m->base.cfg.model, k ? "m0" : "n0", (long long)nm[k]->shape[0],
                             (long long)B);
    return LOGT_OK;
}

/* One state's values [L][B][D] for flashrnn_set_slstm_state: cpu f64 of the net's shape, finite,
 * and for n0 (is_n) 0 or at least 1. */
static logt_status check_slstm_state(const logt_net *net, const logt_tensor *s, int is_n)
{
    const char *name = is_n ? "n0" : "m0";
    const int64_t D = net->cfg.hidden_size;
    if (s->device != LOGT_CPU || s->dtype != LOGT_F64 || s->ndim != 3 || s->shape[0] != net->L
        || s->shape[1] < 1 || s->shape[2] != D)
        return LOGT_FAIL(LOGT_EINVAL, "the slstm's initial state %s must be a cpu f64 tensor "
                         "[layers=%d][B][D=%lld]", name, net->L, (long long)D);
    const double *v = s->data;
    for (int64_t e = 0; e < s->numel; e++)
        if (!isfinite(v[e]) || (is_n && v[e] != 0.0 && v[e] < 1.0))
            return LOGT_FAIL(LOGT_EINVAL, "the slstm's initial state %s has %g at [%lld][%lld][%lld]: "
                             "%s", name, v[e], (long long)(e / (s->shape[1] * D)),
                             (long long)(e / D % s->shape[1]), (long long)(e % D),
                             is_n ? "a normaliser n is 0 (a fresh state) or at least 1 (every "
                                    "state an sLSTM reaches)" : "it must be finite");
    return LOGT_OK;
}

logt_status flashrnn_set_slstm_state(logt_net *net, const logt_tensor *n0, const logt_tensor *m0)
{
    if (net->ops != &logt_flashrnn_ops || ((flashrnn_model *)net->layer[0])->cell != FLASHRNN_SLSTM)
        return LOGT_FAIL(LOGT_EINVAL, "n0 and m0 are initial states of flashrnn's slstm cell, and "
                         "this net is %s%s%s: give h0 (and c0) by logt_net_set_state", net->ops->name,
                         net->cfg.cell[0] ? " cell " : "", net->cfg.cell);
    const logt_tensor *src[2] = {n0 && n0->data ? n0 : NULL, m0 && m0->data ? m0 : NULL};
    for (int k = 0; k < 2; k++)
        if (src[k]) LOGT_TRY(check_slstm_state(net, src[k], k == 0));
    if (src[1]) {   /* a fresh unit (n0 = 0) takes m = i at its first step: no m0 to carry */
        const double *m0v = src[1]->data, *n0v = src[0] ? src[0]->data : NULL;
        const int64_t Bm = src[1]->shape[1], D = net->cfg.hidden_size;
        if (src[0] && src[0]->shape[1] != Bm)
            return LOGT_FAIL(LOGT_EINVAL, "the slstm's n0 and m0 have batches %lld and %lld: give them "
                             "of one shape", (long long)src[0]->shape[1], (long long)Bm);
        for (int64_t e = 0; e < src[1]->numel; e++)
            if (m0v[e] != 0.0 && (!n0v || n0v[e] == 0.0))
                return LOGT_FAIL(LOGT_EINVAL, "the slstm's initial state m0 has %g at [%lld][%lld][%lld] "
                                 "where n0 is 0: a fresh unit has no stabiliser yet, so m0 is 0 there",
                                 m0v[e], (long long)(e / (Bm * D)), (long long)(e / D % Bm),
                                 (long long)(e % D));
    }
    for (int l = 0; l < net->L; l++) {
        flashrnn_model *m = (flashrnn_model *)net->layer[l];
        logt_tensor *own[2] = {&m->n0, &m->m0}, *grad[2] = {&m->dn0, &m->dm0};
        for (int k = 0; k < 2; k++) {
            logt_tensor_free(own[k]), logt_tensor_free(grad[k]);
            if (!src[k]) continue;
            const int64_t B = src[k]->shape[1], D = net->cfg.hidden_size;
            LOGT_TRY(logt_tensor_new2(own[k], LOGT_CPU, LOGT_F64, B, D));
            LOGT_TRY(logt_tensor_new2(grad[k], LOGT_CPU, LOGT_F64, B, D));
            memcpy(own[k]->data, (const double *)src[k]->data + l * B * D, (size_t)(B * D) * sizeof(double));
            LOGT_TRY(logt_tensor_zero(grad[k]));
        }
    }
    return LOGT_OK;
}

/* ---- the pointwise cells ------------------------------------------------------------------ */

/* The states a row (t, b) starts from, [D] each: step t-1's, or the initial state; NULL: zeros. */
typedef struct prev_states { const double *h, *c, *n, *m; } prev_states;

static const double *row_or_null(const logt_tensor *t, int64_t offset)
{
    return t->data ? (const double *)t->data + offset : NULL;
}

static prev_states prev_of(const flashrnn_model *m, int64_t t, int64_t b, int64_t B)
{
    const int64_t D = m->base.cfg.hidden_size;
    if (t) {
        const int64_t r = ((t - 1) * B + b) * D;
        return (prev_states){row_or_null(&m->h, r), row_or_null(&m->c, r), row_or_null(&m->n, r),
                             row_or_null(&m->stab, r)};
    }
    return (prev_states){row_or_null(&m->base.h0, b * D), row_or_null(&m->base.c0, b * D),
                         row_or_null(&m->n0, b * D), row_or_null(&m->m0, b * D)};
}

static double at(const double *v, int64_t j) { return v ? v[j] : 0.0; }

/* The cell of row n = t·B + b: xa = W x_t + b [G·D], rh = R h_{t-1} [G·D] (the gru adds bn to
 * its n part), p the states of t-1. Writes h_t [D], the kept gates q and the row's states. */
static void cell_forward(flashrnn_model *m, const prev_states *p, const double *xa, double *rh,
                         const double *bn, int64_t n, double *q, double *ht)
{
    const int64_t D = m->base.cfg.hidden_size;
    double *C = m->c.data, *N = m->n.data, *M = m->stab.data;
    switch (m->cell) {
    case FLASHRNN_LSTM:
        for (int64_t r = 0; r < 4 * D; r++) q[r] = xa[r] + rh[r];
        for (int64_t j = 0; j < D; j++) C[n * D + j] = lstm_cell_forward(q + j, D, at(p->c, j), &ht[j]);
        break;
    case FLASHRNN_GRU:
        for (int64_t j = 0; j < D; j++) rh[2 * D + j] += bn[j];
        for (int64_t j = 0; j < D; j++) ht[j] = gru_cell_forward(xa + j, rh + j, at(p->h, j), D, q + j);
        break;
    case FLASHRNN_SLSTM:
        for (int64_t r = 0; r < 4 * D; r++) q[r] = xa[r] + rh[r];
        for (int64_t j = 0; j < D; j++)
            ht[j] = slstm_cell_forward(q + j, D, at(p->c, j), at(p->n, j), at(p->m, j),
                                       &C[n * D + j], &N[n * D + j], &M[n * D + j]);
        break;
    case FLASHRNN_ELMAN:
        for (int64_t j = 0; j < D; j++) ht[j] = tanh(xa[j] + rh[j]);
        break;
    }
}

/* Backward of cell_forward for row n, given dht = all of dL/dh_t. Writes dxa = dL/d(W x + b)
 * and dra = dL/d(R h_{t-1}) [G·D] each (they differ only in the gru's n), and dhn [D], the part
 * of dL/dh_{t-1} that bypasses R (the gru's z; else 0). dcn, dnn [D]: dL/dc, dL/dn carried
 * between steps, in for step t and out for t-1. dmp: NULL, or [D] for dL/dm_{t-1} (slstm). */
static void cell_backward(const flashrnn_model *m, const prev_states *p, int64_t n, const double *dht,
                          double *dxa, double *dra, double *dhn, double *dcn, double *dnn, double *dmp)
{
    const int64_t D = m->base.cfg.hidden_size, G = ngates(m->cell);
    const double *C = m->c.data, *N = m->n.data, *Hs = m->h.data;
    const double *q = row_or_null(&m->gates, n * nkept(m->cell) * D);   /* NULL: elman */
    switch (m->cell) {
    case FLASHRNN_LSTM:   /* dcn becomes dc_next for step t-1; W x and R h get the same dL/da */
        for (int64_t j = 0; j < D; j++)
            dcn[j] = lstm_cell_backward(q + j, D, at(p->c, j), C[n * D + j], dht[j], dcn[j], dxa + j);
        break;
    case FLASHRNN_GRU:
        for (int64_t j = 0; j < D; j++) dhn[j] = gru_cell_backward(q + j, D, at(p->h, j), dht[j], dxa + j, dra + j);
        return;
    case FLASHRNN_SLSTM:
        for (int64_t j = 0; j < D; j++) {
            double dm = slstm_cell_backward(q + j, D, at(p->c, j), at(p->n, j), C[n * D + j],
                                            N[n * D + j], dht[j], &dcn[j], &dnn[j], dxa + j);
            if (dmp) dmp[j] = dm;
        }
        break;
    case FLASHRNN_ELMAN:
        for (int64_t j = 0; j < D; j++) dxa[j] = dht[j] * (1.0 - Hs[n * D + j] * Hs[n * D + j]);
        break;
    }
    memset(dhn, 0, (size_t)D * sizeof *dhn);
    memcpy(dra, dxa, (size_t)(G * D) * sizeof *dra);
}

/* ---- forward and backward ---------------------------------------------------------------- */

logt_status flashrnn_forward_cpu(flashrnn_model *m, const logt_tensor *x, logt_tensor *h)
{
    m->h = *h;   /* the recurrence reads h_{t-1} back from it (prev_of) */
    m->h.owns = 0;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int G = ngates(m->cell), K = nkept(m->cell);
    const int cstate = m->cell == FLASHRNN_LSTM || m->cell == FLASHRNN_SLSTM;
    LOGT_TRY(flashrnn_check_states(m, B));
    LOGT_TRY(logt_tensor_ensure3(&m->wx, LOGT_CPU, LOGT_F64, T, B, G * D));
    if (K) LOGT_TRY(logt_tensor_ensure3(&m->gates, LOGT_CPU, LOGT_F64, T, B, K * D));
    if (cstate) LOGT_TRY(logt_tensor_ensure3(&m->c, LOGT_CPU, LOGT_F64, T, B, D));
    if (m->cell == FLASHRNN_SLSTM) {
        LOGT_TRY(logt_tensor_ensure3(&m->n, LOGT_CPU, LOGT_F64, T, B, D));
        LOGT_TRY(logt_tensor_ensure3(&m->stab, LOGT_CPU, LOGT_F64, T, B, D));
    }
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;     /* [G·D][I]        */
    const double *R = logt_model_param(&m->base, &m->base.w, "R").data;     /* [H][dh][G·dh]   */
    const double *bias = logt_model_param(&m->base, &m->base.w, "b").data;  /* [G·D]           */
    const double *bn = logt_model_param(&m->base, &m->base.w, "bn").data;   /* gru: [D]        */
    double *Hs = h->data, *Q = m->gates.data, *WX = m->wx.data;
    double *rh = malloc((size_t)(G * D) * sizeof *rh);   /* R h_{t-1} of one (t, b) */
    if (!rh) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");

    /* 1. the input projection of every step at once: WX = W x + b */
    dense_set_rows_cpu(T * B, G * D, bias, WX);
    dense_add_cpu(T * B, G * D, I, W, x->data, WX);

    /* 2. the recurrence: per step, every head's h_{t-1} R, then the pointwise cell */
    for (int64_t t = 0; t < T; t++)
        for (int64_t b = 0; b < B; b++) {
            const int64_t n = t * B + b;   /* row of (t, b) */
            const prev_states p = prev_of(m, t, b, B);
            if (p.h) heads_forward(m->H, m->dh, G, R, p.h, rh);
            else memset(rh, 0, (size_t)(G * D) * sizeof *rh);
            cell_forward(m, &p, WX + n * G * D, rh, bn, n, K ? Q + n * K * D : NULL, Hs + n * D);
        }
    free(rh);
    /* the final state, for the next segment (a gru or elman keeps nothing in c) */
    const size_t state = (size_t)(B * D) * sizeof(double);
    if (m->base.hT.data) memcpy(m->base.hT.data, Hs + (T - 1) * B * D, state);
    if (m->base.cT.data && m->cell == FLASHRNN_LSTM)
        memcpy(m->base.cT.data, (const double *)m->c.data + (T - 1) * B * D, state);
    return LOGT_OK;
}

logt_status flashrnn_backward_cpu(flashrnn_model *m, const logt_tensor *dh, logt_tensor *dx)
{
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int G = ngates(m->cell);
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;
    const double *R = logt_model_param(&m->base, &m->base.w, "R").data;
    double *dW = logt_model_param(&m->base, &m->base.dw, "W").data;
    double *dR = logt_model_param(&m->base, &m->base.dw, "R").data;
    double *db = logt_model_param(&m->base, &m->base.dw, "b").data;
    double *dbn = logt_model_param(&m->base, &m->base.dw, "bn").data;   /* gru only */
    const double *dH = dh->data;

    if (!m->base.dw_add) {   /* a segment adds to the gradients of the segments after it */
        memset(dW, 0, (size_t)(G * D * I) * sizeof *dW);
        memset(dR, 0, (size_t)(G * D * m->dh) * sizeof *dR);
        memset(db, 0, (size_t)(G * D) * sizeof *db);
        if (dbn) memset(dbn, 0, (size_t)D * sizeof *dbn);
    }
    /* dXA: dL/d(W x + b) of every step, [T][B][G·D]; dh_next, dc_next, dn_next: what reaches
     * step t from step t+1, [B][D] each, at the last step that of the final state (dhT, dcT: a
     * segment's, from the steps after it); dra: dL/d(R h_{t-1}) of one (t, b), [G·D]. */
    double *dXA = malloc((size_t)(T * B * G * D) * sizeof *dXA);
    double *dh_next = calloc((size_t)(B * D), sizeof *dh_next);
    double *dc_next = calloc((size_t)(B * D), sizeof *dc_next);
    double *dn_next = calloc((size_t)(B * D), sizeof *dn_next);
    double *dht = malloc((size_t)D * sizeof *dht);
    double *dra = malloc((size_t)(G * D) * sizeof *dra);
    if (!dXA || !dh_next || !dc_next || !dn_next || !dht || !dra) {
        free(dXA), free(dh_next), free(dc_next), free(dn_next), free(dht), free(dra);
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    const size_t state = (size_t)(B * D) * sizeof(double);
    if (m->base.dhT.data) memcpy(dh_next, m->base.dhT.data, state);
    if (m->base.dcT.data && m->cell == FLASHRNN_LSTM) memcpy(dc_next, m->base.dcT.data, state);

    /* 1. back through time: the cell, then the heads' R */
    for (int64_t t = T - 1; t >= 0; t--)
        for (int64_t b = 0; b < B; b++) {
            const int64_t n = t * B + b;
            const prev_states p = prev_of(m, t, b, B);
            double *dxa = dXA + n * G * D, *dhn = dh_next + b * D;
            double *dmp = !t && m->dm0.data ? (double *)m->dm0.data + b * D : NULL;
            for (int64_t j = 0; j < D; j++) dht[j] = dH[n * D + j] + dhn[j];
            cell_backward(m, &p, n, dht, dxa, dra, dhn, dc_next + b * D, dn_next + b * D, dmp);
            if (dbn)
                for (int64_t j = 0; j < D; j++) dbn[j] += dra[2 * D + j];
            heads_backward(m->H, m->dh, G, R, p.h, dra, dR, dhn);   /* dhn: dL/dh_{t-1} */
        }

    /* 2. the input projection's gradients, every step at once (dense_add_dw_cpu sums from the
     * last row to the first, and dR, dbn add up from the last step: segments run from the last
     * give the same bits) */
    dense_add_dw_cpu(T * B, G * D, I, dXA, x->data, dW, db);
    if (dx) {
        memset(dx->data, 0, (size_t)(T * B * I) * sizeof(double));
        dense_add_dx_cpu(T * B, G * D, I, W, dXA, dx->data);
    }
    if (m->base.dh0.data) memcpy(m->base.dh0.data, dh_next, state);
    if (m->base.dc0.data && m->c.data) memcpy(m->base.dc0.data, dc_next, state);
    if (m->dn0.data) memcpy(m->dn0.data, dn_next, state);
    free(dXA), free(dh_next), free(dc_next), free(dn_next), free(dht), free(dra);
    return LOGT_OK;
}

/* ---- ops ------------------------------------------------------------------------------- */

static logt_status flashrnn_forward(logt_model *base, const logt_tensor *x, logt_tensor *h,
                                    logt_ctx *ctx)
{
    flashrnn_model *m = (flashrnn_model *)base;
    m->x = *x;
    m->h = *h;
    m->x.owns = m->h.owns = 0;
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return flashrnn_forward_cuda(m, x, h, ctx);
#endif
    (void)ctx;
    return flashrnn_forward_cpu(m, x, h);
}

static logt_status flashrnn_backward(logt_model *base, const logt_tensor *dh, logt_tensor *dx,
                                     logt_ctx *ctx)
{
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return flashrnn_backward_cuda((flashrnn_model *)base, dh, dx, ctx);
#endif
    (void)ctx;
    return flashrnn_backward_cpu((flashrnn_model *)base, dh, dx);
}

static void flashrnn_destroy(logt_model *base)
{
    flashrnn_model *m = (flashrnn_model *)base;
    logt_tensor_free(&m->wx);
    logt_tensor_free(&m->gates);
    logt_tensor_free(&m->c);
    logt_tensor_free(&m->n), logt_tensor_free(&m->stab);
    logt_tensor_free(&m->n0), logt_tensor_free(&m->m0);
    logt_tensor_free(&m->dn0), logt_tensor_free(&m->dm0);
#ifdef LOGT_HAVE_CUDA
    flashrnn_free_cuda(m);
#endif
    free(m);
}

const logt_model_ops logt_flashrnn_ops = {
    .name = "flashrnn",
    .summary = "head-wise LSTM, GRU, sLSTM or Elman RNN (block-diagonal R); cpu f64 reference; "
               "cuda fused persistent kernels or alternating GEMM + pointwise per step",
    .devices = LOGT_BIT(LOGT_CPU) | LOGT_BIT(LOGT_CUDA),
    .dtypes = {[LOGT_CPU] = LOGT_BIT(LOGT_F64),
               [LOGT_CUDA] = LOGT_BIT(LOGT_F32) | LOGT_BIT(LOGT_BF16) | LOGT_BIT(LOGT_F16)},
    .heads = 1,
    .cells = cells,
    .nstate = 2,   /* h0, and c0 for lstm and slstm (slstm's n0, m0: flashrnn_set_slstm_state) */
    .segments = 1, /* lstm, gru, elman (check_cfg refuses segments for the slstm) */
    .knobs = knobs,
    .layout = logt_flashrnn_layout,
    .create = flashrnn_create,
    .forward = flashrnn_forward,
    .backward = flashrnn_backward,
    .destroy = flashrnn_destroy,
};
