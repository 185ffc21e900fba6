/* net.c — a stack of `layers` identical models, handled once for every model.
 *
 * Layer 0 maps x[T][B][I] to act[0][T][B][D]; layer l maps act[l-1] to act[l].
 * All layers' parameters sit in one flat buffer (and their gradients in another)
 * so that optimizers and checkpoints see one vector. Backward runs the layers in
 * reverse, passing dL/d(act) between two ping-pong buffers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "model.h"

#ifdef LOGT_HAVE_CUDA
#define BUILT_DEVICES (LOGT_BIT(LOGT_CPU) | LOGT_BIT(LOGT_CUDA))
#else
#define BUILT_DEVICES LOGT_BIT(LOGT_CPU)
#endif

/* A backend this build has: checked after the layout (which needs no device, so that a bad
 * configuration reads the same in every build), before a layer is made. */
static logt_status check_built(const logt_model_ops *ops, const logt_model_cfg *cfg)
{
    if (BUILT_DEVICES & LOGT_BIT(cfg->device)) return LOGT_OK;
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "model %s on %s: this build of logt has no %s backend "
                     "(nvcc was not found when it was built): install the CUDA toolkit and "
                     "rebuild%s", ops->name, logt_device_name(cfg->device), logt_device_name(cfg->device),
                     ops->devices & LOGT_BIT(LOGT_CPU) ? ", or use the cpu backend" : "");
}

const char *const logt_net_knobs[] = {"recompute", "layers_wavefront", NULL};

logt_status logt_net_recompute_of(const logt_model_cfg *cfg, int *out)
{
    const char *v = logt_cfg_knob(cfg, "recompute", "off");
    char *end = NULL;
    *out = 0;
    if (!strcmp(v, "off")) return LOGT_OK;
    if (!strcmp(v, "auto")) return *out = -1, LOGT_OK;
    long k = strtol(v, &end, 10);
    if (end != v && !*end && k >= 1 && k <= (1L << 30)) return *out = (int)k, LOGT_OK;
    return LOGT_FAIL(LOGT_EINVAL, "recompute = '%s' is not a segment length: off, auto (K near "
                     "sqrt(T)) or a whole number of steps K >= 1 (K >= T recomputes nothing)", v);
}

logt_status logt_net_wavefront_of(const logt_model_cfg *cfg, int *out)
{
    const char *v = logt_cfg_knob(cfg, "layers_wavefront", "off");
    *out = !strcmp(v, "on");
    if (*out || !strcmp(v, "off")) return LOGT_OK;
    return LOGT_FAIL(LOGT_EINVAL, "layers_wavefront = '%s': it is off (layer after layer) or on (the "
                     "layers as a wavefront of segments, layers >= 2)", v);
}

/* What the model declares (logt_model_check) and the depth. */
static logt_status check_cfg(const logt_model_ops *ops, const logt_model_cfg *cfg)
{
    LOGT_TRY(logt_model_check(ops, cfg));
    if (cfg->layers < 1 || cfg->layers > LOGT_MAX_LAYERS)
        return LOGT_FAIL(LOGT_EINVAL, "layers = %d: it must be between 1 and %d", cfg->layers,
                         LOGT_MAX_LAYERS);
    return LOGT_OK;
}

logt_status logt_net_create(const logt_model_cfg *cfg, logt_net **out)
{
    *out = NULL;
    const logt_model_ops *ops = logt_model_find(cfg->model);
    if (!ops) {
        char names[512];
        logt_model_names(names, sizeof names);
        return LOGT_FAIL(LOGT_EINVAL, "unknown model '%s': the models are %s", cfg->model, names);
    }
    LOGT_TRY(check_cfg(ops, cfg));

    logt_net *net = calloc(1, sizeof *net);
    if (!net) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    net->cfg = *cfg;
    net->ops = ops;
    net->L = cfg->layers;
    (void)logt_net_recompute_of(cfg, &net->recompute);   /* both checked by check_cfg */
    (void)logt_net_wavefront_of(cfg, &net->wavefront);
    logt_status s = LOGT_OK;
    int64_t total = 0;
    for (int l = 0; l < net->L && s == LOGT_OK; l++) {
        logt_model_cfg lc = *cfg;
        lc.layers = 1;
        if (l > 0) lc.input_size = cfg->hidden_size;
        memset(&net->layout[l], 0, sizeof net->layout[l]);
        s = ops->layout(&lc, &net->layout[l]);
        if (s == LOGT_OK) s = check_built(ops, &lc);
        if (s == LOGT_OK) s = ops->create(&lc, &net->layer[l]);
        if (s == LOGT_OK) {
            net->layer[l]->ops = ops;
            net->layer[l]->cfg = lc;
            net->layer[l]->layout = net->layout[l];
            net->layer_offset[l] = total;
            total += net->layout[l].numel;
        }
    }
    logt_dtype pdt = logt_param_dtype(cfg->device);
    if (s == LOGT_OK) s = logt_tensor_new1(&net->w, cfg->device, pdt, total);
    if (s == LOGT_OK) s = logt_tensor_new1(&net->dw, cfg->device, pdt, total);
    if (s == LOGT_OK) s = logt_tensor_zero(&net->dw);
    for (int l = 0; l < net->L && s == LOGT_OK; l++) {
        int64_t n = net->layout[l].numel;
        net->layer[l]->w = logt_tensor_view(&net->w, net->layer_offset[l], 1, &n);
        net->layer[l]->dw = logt_tensor_view(&net->dw, net->layer_offset[l], 1, &n);
    }
    if (s == LOGT_OK) s = logt_net_init_params(net);
    if (s != LOGT_OK) {
        logt_net_destroy(net);
        return s;
    }
    *out = net;
    return LOGT_OK;
}

void logt_net_destroy(logt_net *net)
{
    if (!net) return;
    for (int l = 0; l < net->L; l++) {
        if (net->layer[l]) net->ops->destroy(net->layer[l]);
        for (int s = 0; s < LOGT_MAX_SEGMENTS - 1 && net->inst[l][s]; s++) net->ops->destroy(net->inst[l][s]);
        logt_tensor_free(&net->act[l]);
        logt_tensor_free(&net->bh[l]);
        logt_tensor_free(&net->bc[l]);
        logt_tensor_free(&net->seg_out[l]);
        for (int k = 0; k < 4; k++) logt_tensor_free(&net->carry[l][k]);
        logt_tensor_free(&net->dlayer[l]);
        if (l > 0 && net->lane[l] && net->lane[l] != net->lane[0]) logt_ctx_destroy(net->lane[l]);
    }
    logt_tensor_free(&net->dact[0]);
    logt_tensor_free(&net->dact[1]);
    logt_tensor_free(&net->w);
    logt_tensor_free(&net->dw);
    logt_tensor_free(&net->h0);
    logt_tensor_free(&net->c0);
    logt_tensor_free(&net->dh0);
    logt_tensor_free(&net->dc0);
    free(net);
}

/* The knob forget_init (model.h, logt_layout_memory_gate): *mode 0 default, 1 a constant
 * *value, 2 chrono up to *value steps; an error naming the forms when it is none of them, or
 * when the model marked no memory gate. */
static logt_status forget_init_of(const logt_net *net, int *mode, double *value)
{
    const char *v = logt_cfg_knob(&net->cfg, "forget_init", "default");
    char *end = NULL;
    *mode = 0, *value = 0;
    if (!strcmp(v, "default")) return LOGT_OK;
    int gated = 0;
    for (int i = 0; i < net->layout[0].n; i++) gated |= net->layout[0].s[i].nkeep > 0;
    if (!gated)
        return LOGT_FAIL(LOGT_EINVAL, "%s: forget_init = '%s', but this model (cell '%s') has no "
                         "gate that keeps its state: leave forget_init unset", net->cfg.model, v,
                         net->cfg.cell);
    if (!strncmp(v, "chrono:", 7)) {
        *mode = 2, *value = strtod(v + 7, &end);
        if (end != v + 7 && !*end && *value > 2 && isfinite(*value)) return LOGT_OK;
    } else {
        *mode = 1, *value = strtod(v, &end);
        if (end != v && !*end && isfinite(*value)) return LOGT_OK;
    }
    return LOGT_FAIL(LOGT_EINVAL, "%s: forget_init = '%s' is not an initialisation: default, a "
                     "number (the forget gate's bias, e.g. 1), or chrono:TMAX with TMAX > 2 (biases "
                     "log(u), u uniform in [1, TMAX - 1])", net->cfg.model, v);
}

logt_status logt_net_init_params(logt_net *net)
{
    int mode;
    double value;
    LOGT_TRY(forget_init_of(net, &mode, &value));
    double *host = malloc((size_t)(net->w.numel ? net->w.numel : 1) * sizeof *host);
    if (!host) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory for parameters");
    for (int l = 0; l < net->L; l++)
        for (int i = 0; i < net->layout[l].n; i++) {
            const logt_slice *sl = &net->layout[l].s[i];
            double *p = host + net->layer_offset[l] + sl->offset;
            uint64_t stream = (uint64_t)l * LOGT_MAX_SLICES + (uint64_t)i;
            logt_uniform_fill(net->cfg.seed, stream, p, sl->numel, -sl->init_bound, sl->init_bound);
            for (int64_t e = 0; mode && e < sl->nkeep; e++) {   /* forget_init: the memory gate */
                const double u = 1 + (value - 2) * logt_uniform(net->cfg.seed, stream + 1000 * LOGT_MAX_SLICES, (uint64_t)e);
                const double b = mode == 1 ? value : log(u);
                p[sl->keep + e] = b;
                if (sl->neg >= 0 && mode == 2) p[sl->neg + e] = -b;
            }
        }
    logt_net_params_written(net);
    logt_status s = logt_tensor_from_f64(&net->w, host);
    free(host);
    return s;
}

void logt_net_params_written(logt_net *net)
{
    for (int l = 0; l < net->L; l++) {
        if (net->layer[l]) net->layer[l]->wversion++;
        for (int s = 0; s < LOGT_MAX_SEGMENTS - 1 && net->inst[l][s]; s++) net->inst[l][s]->wversion++;
    }
}

static logt_status check_seq(const logt_net *net, const logt_tensor *x, int64_t width,
                             const char *what)
{
    if (x->device != net->cfg.device || x->dtype != net->cfg.dtype)
        return LOGT_FAIL(LOGT_EINVAL, "%s is %s %s but the model is %s %s", what,
                         logt_device_name(x->device), logt_dtype_name(x->dtype),
                         logt_device_name(net->cfg.device), logt_dtype_name(net->cfg.dtype));
    if (x->ndim != 3)
        return LOGT_FAIL(LOGT_EINVAL, "%s must be [T][B][%lld], got rank %d", what,
                         (long long)width, x->ndim);
    if (x->shape[0] < 1)
        return LOGT_FAIL(LOGT_EINVAL, "T = %lld: a sequence needs at least one step (T >= 1)",
                         (long long)x->shape[0]);
    if (x->shape[1] < 1)
        return LOGT_FAIL(LOGT_EINVAL, "B = %lld: the batch needs at least one sequence (B >= 1)",
                         (long long)x->shape[1]);
    if (x->shape[2] != width)
        return LOGT_FAIL(LOGT_EINVAL, "%s has width %lld but the model expects %lld", what,
                         (long long)x->shape[2], (long long)width);
    return LOGT_OK;
}

/* ---- segments: recompute = K, layers_wavefront ----------------------------------------------
 * With segments of K steps, a layer's forward runs segment after segment, each from the state
 * the one before handed it (bh, bc: the state at every segment's start), and the model keeps
 * the activations of the last segment only. The backward walks the segments from the last: it
 * runs the segment's forward again from its saved start (the last segment's activations are
 * still there), then its backward, which takes dL/d(final state) from the segment after it
 * and gives dL/d(initial state) to the one before (carry), adding to the weights' gradients.
 * The layers run one after another, or as a wavefront: segment s of layer l on layer l's own
 * stream (lane) once segment s of layer l - 1 is done (forward; l + 1 in the backward). */

/* Rows [t0, t0 + n) of a [T][B][W] tensor. */
static logt_tensor rows_of(const logt_tensor *t, int64_t t0, int64_t n)
{
    const int64_t shape[3] = {n, t->shape[1], t->shape[2]};
    return logt_tensor_view(t, t0 * t->shape[1] * t->shape[2], 3, shape);
}

/* Row s of an [S][B][D] tensor as [B][D]; none (data NULL) where t has none. */
static logt_tensor state_of(const logt_tensor *t, int64_t s)
{
    if (!t->data) return (logt_tensor){0};
    const int64_t shape[2] = {t->shape[1], t->shape[2]};
    return logt_tensor_view(t, s * t->shape[1] * t->shape[2], 2, shape);
}

/* recompute = auto's K for T steps of B rows: near sqrt(T), which makes the saved states (T / K)
 * and one segment's activations (K) least together; but no shorter than the model's
 * segment_min elements, where each segment's launches cost what they cost at any length and
 * sqrt(T) steps would leave the pass bound by them. */
static int64_t auto_segment(const logt_net *net, int64_t T, int64_t B)
{
    int64_t K = (int64_t)ceil(sqrt((double)T));
    const int64_t rows = B * net->cfg.hidden_size, floor = net->ops->segment_min;
    if (floor > 0 && rows > 0 && K * rows < floor) K = (floor + rows - 1) / rows;
    return K;
}

/* recompute's own K for T steps (0: the sequence whole). */
static int64_t recompute_length(const logt_net *net, int64_t T, int64_t B)
{
    const int64_t K = net->recompute > 0 ? net->recompute : net->recompute < 0 ? auto_segment(net, T, B) : 0;
    return K > 0 && K < T ? K : 0;
}

int64_t logt_net_segment_length(const logt_net *net, int64_t T, int64_t B)
{
    int64_t K = recompute_length(net, T, B);
    /* the wavefront needs segments: its own where recompute leaves the sequence whole, at
     * most LOGT_MAX_SEGMENTS of them (4 a layer) */
    if (!K && net->wavefront && net->L > 1) K = (T + 4 * net->L - 1) / (4 * net->L);
    return K > 0 && K < T ? K : 0;
}

/* The state slots a layer hands from segment to segment: 1 (h0) or 2 (h0 and c0). */
static int slots(const logt_net *net)
{
    const int n = net->layer[0]->nslots ? net->layer[0]->nslots : net->ops->nstate;
    return n > 1 ? 2 : 1;
}

static int64_t nsegments(const logt_net *net, int64_t T) { return (T + net->K - 1) / net->K; }

/* The layer that runs segment s of layer l: the layer itself, or where the segments are kept
 * (a wavefront without recomputation) segment s's own instance of it. */
static logt_model *seg_layer(const logt_net *net, int l, int64_t s)
{
    return net->keep && s > 0 ? net->inst[l][s - 1] : net->layer[l];
}

/* The kept segments' instances for S segments: each layer's 1 .. S - 1, made where missing,
 * sharing the layer's parameters and their gradients (views of the net's buffers). */
static logt_status ensure_instances(logt_net *net, int64_t S)
{
    if (S > LOGT_MAX_SEGMENTS)
        return LOGT_FAIL(LOGT_EINVAL, "a wavefront of %lld kept segments: at most %d", (long long)S,
                         LOGT_MAX_SEGMENTS);
    for (int l = 0; l < net->L; l++)
        for (int64_t s = 1; s < S; s++) {
            if (net->inst[l][s - 1]) continue;
            const logt_model *base = net->layer[l];
            logt_model *m = NULL;
            LOGT_TRY(net->ops->create(&base->cfg, &m));
            m->ops = base->ops, m->cfg = base->cfg, m->layout = base->layout;
            m->w = base->w, m->dw = base->dw, m->wversion = base->wversion;
            m->origin = net->layer[l];
            net->inst[l][s - 1] = m;
        }
    return LOGT_OK;
}

/* Layer l's own views of the net's state tensors (set_one), as they are between calls, into
 * m: the layer or an instance of it. */
static void plain_views_of(logt_net *net, int l, logt_model *m)
{
    m->h0 = state_of(&net->h0, l), m->c0 = state_of(&net->c0, l);
    m->dh0 = state_of(&net->dh0, l), m->dc0 = state_of(&net->dc0, l);
    memset(&m->hT, 0, sizeof m->hT), memset(&m->cT, 0, sizeof m->cT);
    memset(&m->dhT, 0, sizeof m->dhT), memset(&m->dcT, 0, sizeof m->dcT);
    m->dw_add = 0;
}

/* Segment s's initial state into the layer that runs it: the saved one, or for s = 0 the
 * net's. */
static void enter_segment(logt_net *net, int l, int64_t s)
{
    logt_model *m = seg_layer(net, l, s);
    plain_views_of(net, l, m);
    if (s) {
        m->h0 = state_of(&net->bh[l], s);
        if (slots(net) > 1) m->c0 = state_of(&net->bc[l], s);
    }
}

/* Segment s of T steps: its steps, from step s·K (the last segment may be shorter). */
static int64_t segment_steps(const logt_net *net, int64_t T, int64_t s)
{
    const int64_t t0 = s * net->K;
    return T - t0 < net->K ? T - t0 : net->K;
}

static logt_status forward_segment(logt_net *net, int l, int64_t s, const logt_tensor *in, logt_ctx *ctx)
{
    logt_model *m = seg_layer(net, l, s);
    const int64_t T = in->shape[0], S = nsegments(net, T), t0 = s * net->K, n = segment_steps(net, T, s);
    enter_segment(net, l, s);
    if (s + 1 < S) {   /* its final state starts the next */
        m->hT = state_of(&net->bh[l], s + 1);
        if (slots(net) > 1) m->cT = state_of(&net->bc[l], s + 1);
    }
    logt_tensor xs = rows_of(in, t0, n), hs = rows_of(&net->act[l], t0, n);
    logt_status st = net->ops->forward(m, &xs, &hs, ctx);
    plain_views_of(net, l, m);
    return st;
}

/* Segment s of layer l's backward: dout's rows into din's (din NULL: no dx). */
static logt_status backward_segment(logt_net *net, int l, int64_t s, const logt_tensor *in,
                                    const logt_tensor *dout, logt_tensor *din, logt_ctx *ctx)
{
    logt_model *m = seg_layer(net, l, s);
    const int64_t T = net->T, S = nsegments(net, T), t0 = s * net->K, n = segment_steps(net, T, s);
    const logt_tensor xs = rows_of(in, t0, n);
    logt_status st = LOGT_OK;
    enter_segment(net, l, s);
    if (s + 1 < S && !net->keep) {   /* the last segment's activations are the forward's own */
        int done = 0;
        if (net->ops->restore) {   /* the states from the forward's output, where they are all of them */
            const logt_tensor known = rows_of(&net->act[l], t0, n);
            st = net->ops->restore(m, &xs, &known, ctx, &done);
            net->restored += st == LOGT_OK && done;
        }
        if (st == LOGT_OK && !done) {
            logt_tensor hs = rows_of(&net->seg_out[l], 0, n);
            st = net->ops->forward(m, &xs, &hs, ctx);
            net->recomputed++;
        }
    }
    if (st == LOGT_OK) {
        /* segment s writes dL/d(its initial state) to carry[w] (and [2 + w]), which segment
         * s - 1 reads as dL/d(its final state) */
        logt_tensor *carry = net->carry[l];
        const int w = (int)(s & 1), r = w ^ 1, two = slots(net) > 1;
        if (s + 1 < S) {
            m->dhT = state_of(&carry[r], 0);
            if (two) m->dcT = state_of(&carry[2 + r], 0);
            m->dw_add = 1;
        }
        if (s) {
            m->dh0 = state_of(&carry[w], 0);
            if (two) m->dc0 = state_of(&carry[2 + w], 0);
        }
        const logt_tensor dhs = rows_of(dout, t0, n);
        logt_tensor dxs = din ? rows_of(din, t0, n) : (logt_tensor){0};
        st = net->ops->backward(m, &dhs, din ? &dxs : NULL, ctx);
    }
    plain_views_of(net, l, m);
    return st;
}

/* The buffers of segments: the saved starts (forward), or the backward's scratch. */
static logt_status segment_buffers(logt_net *net, int backward)
{
    const int64_t B = net->B, D = net->cfg.hidden_size, S = nsegments(net, net->T);
    const logt_device dev = net->cfg.device;
    const logt_dtype dt = net->cfg.dtype;
    for (int l = 0; l < net->L; l++) {
        if (!backward) {
            LOGT_TRY(logt_tensor_ensure3(&net->bh[l], dev, dt, S, B, D));
            if (slots(net) > 1) LOGT_TRY(logt_tensor_ensure3(&net->bc[l], dev, dt, S, B, D));
            continue;
        }
        if (!net->keep) LOGT_TRY(logt_tensor_ensure3(&net->seg_out[l], dev, dt, net->K, B, D));
        for (int k = 0; k < 2 * slots(net); k++)
            LOGT_TRY(logt_tensor_ensure3(&net->carry[l][k], dev, dt, 1, B, D));
        if (net->wavefront && l > 0) LOGT_TRY(logt_tensor_ensure3(&net->dlayer[l], dev, dt, net->T, B, D));
    }
    return LOGT_OK;
}

/* The wavefront's lanes: layer 0 on the caller's context, each other layer on its own
 * (a stream of its own on CUDA), each first waiting for what the caller queued so far. */
static logt_status lanes(logt_net *net, logt_ctx *ctx)
{
    net->lane[0] = ctx;
    for (int l = 1; l < net->L; l++) {
        if (!ctx || ctx->device != LOGT_CUDA) {
            net->lane[l] = ctx;
            continue;
        }
        if (!net->lane[l] || net->lane[l] == ctx) {
            net->lane[l] = NULL;
            LOGT_TRY(logt_ctx_create(LOGT_CUDA, &net->lane[l]));
        }
        net->lane[l]->inference = ctx->inference;
        net->lane[l]->step = ctx->step;
        net->lane[l]->relax = ctx->relax;
        net->lane[l]->concurrent = 1;
        LOGT_TRY(logt_ctx_wait_for(net->lane[l], ctx));
    }
    if (ctx && net->L > 1) ctx->concurrent = 1;   /* until join_lanes */
    return LOGT_OK;
}

/* The caller's context waits for every lane. */
static logt_status join_lanes(logt_net *net, logt_ctx *ctx)
{
    if (ctx) ctx->concurrent = 0;
    for (int l = 1; l < net->L; l++)
        if (net->lane[l] != ctx) LOGT_TRY(logt_ctx_wait_for(ctx, net->lane[l]));
    return LOGT_OK;
}

static const logt_tensor *layer_input(const logt_net *net, int l) { return l ? &net->act[l - 1] : &net->x; }

/* Every layer's forward in segments: layer after layer, or as a wavefront (in each wave the
 * layers from the top down, so that layer l's wait on layer l - 1 covers segment s only). */
static logt_status forward_segmented(logt_net *net, logt_ctx *ctx)
{
    const int64_t S = nsegments(net, net->T);
    LOGT_TRY(segment_buffers(net, 0));
    if (!net->wavefront) {
        for (int l = 0; l < net->L; l++)
            for (int64_t s = 0; s < S; s++) {
                logt_status st = forward_segment(net, l, s, layer_input(net, l), ctx);
                if (st != LOGT_OK) return logt_errctx("%s layer %d segment %lld forward", net->ops->name, l, (long long)s), st;
            }
        return LOGT_OK;
    }
    LOGT_TRY(lanes(net, ctx));
    logt_status st = LOGT_OK;
    for (int64_t w = 0; w < S + net->L - 1 && st == LOGT_OK; w++)
        for (int l = net->L - 1; l >= 0 && st == LOGT_OK; l--) {
            const int64_t s = w - l;
            if (s < 0 || s >= S) continue;
            if (l && net->lane[l] != net->lane[l - 1]) st = logt_ctx_wait_for(net->lane[l], net->lane[l - 1]);
            if (st == LOGT_OK) st = forward_segment(net, l, s, layer_input(net, l), net->lane[l]);
            if (st != LOGT_OK) logt_errctx("%s layer %d segment %lld forward", net->ops->name, l, (long long)s);
        }
    logt_status j = join_lanes(net, ctx);
    return st != LOGT_OK ? st : j;
}

/* Every layer's backward in segments, from the last; as a wavefront, in each wave the layers
 * from the bottom up (layer l waits on layer l + 1's segment s only). */
static logt_status backward_segmented(logt_net *net, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx)
{
    const int64_t S = nsegments(net, net->T);
    const int L = net->L;
    LOGT_TRY(segment_buffers(net, 1));
    if (!net->wavefront) {
        const logt_tensor *dout = dh;
        for (int l = L - 1; l >= 0; l--) {
            logt_tensor *din = l == 0 ? dx : &net->dact[l & 1];
            for (int64_t s = S - 1; s >= 0; s--) {
                logt_status st = backward_segment(net, l, s, layer_input(net, l), dout, din, ctx);
                if (st != LOGT_OK) return logt_errctx("%s layer %d segment %lld backward", net->ops->name, l, (long long)s), st;
            }
            dout = din;
        }
        return LOGT_OK;
    }
    LOGT_TRY(lanes(net, ctx));
    logt_status st = LOGT_OK;
    for (int64_t w = 0; w < S + L - 1 && st == LOGT_OK; w++)
        for (int l = 0; l < L && st == LOGT_OK; l++) {
            const int64_t j = w - (L - 1 - l), s = S - 1 - j;
            if (j < 0 || j >= S) continue;
            if (l + 1 < L && net->lane[l] != net->lane[l + 1]) st = logt_ctx_wait_for(net->lane[l], net->lane[l + 1]);
            const logt_tensor *dout = l + 1 < L ? &net->dlayer[l + 1] : dh;
            logt_tensor *din = l ? &net->dlayer[l] : dx;
            if (st == LOGT_OK) st = backward_segment(net, l, s, layer_input(net, l), dout, din, net->lane[l]);
            if (st != LOGT_OK) logt_errctx("%s layer %d segment %lld backward", net->ops->name, l, (long long)s);
        }
    logt_status jn = join_lanes(net, ctx);
    return st != LOGT_OK ? st : jn;
}

logt_status logt_net_forward(logt_net *net, const logt_tensor *x, const logt_tensor **h,
                             logt_ctx *ctx)
{
    LOGT_TRY(check_seq(net, x, net->cfg.input_size, "the input x"));
    int64_t T = x->shape[0], B = x->shape[1], D = net->cfg.hidden_size;
    const logt_tensor *state[2] = {&net->h0, &net->c0};
    for (int k = 0; k < 2; k++)
        if (state[k]->data && state[k]->shape[1] != B)
            return LOGT_FAIL(LOGT_EINVAL, "the initial state %s has batch %lld but x has B = %lld",
                             k ? "c0" : "h0", (long long)state[k]->shape[1], (long long)B);
    net->T = 0;   /* the layers' saved state changes from here: a failure leaves no backward */
    net->K = logt_net_segment_length(net, T, B);
    /* the wavefront's own segments keep their activations for a backward; a forward that no
     * backward follows (ctx->inference) runs them all on the layer itself */
    net->keep = net->K && !recompute_length(net, T, B) && !(ctx && ctx->inference);
    if (net->keep) LOGT_TRY(ensure_instances(net, nsegments(net, T)));
    net->x = *x;   /* a view: the backward's recomputation reads it again */
    net->x.owns = 0;
    for (int l = 0; l < net->L; l++)
        LOGT_TRY(logt_tensor_ensure3(&net->act[l], net->cfg.device, net->cfg.dtype, T, B, D));
    if (net->K) {
        net->T = T, net->B = B;   /* the segments' sizes */
        logt_status s = forward_segmented(net, ctx);
        if (s != LOGT_OK) return net->T = 0, s;
    } else {
        for (int l = 0; l < net->L; l++) {
            logt_status s = net->ops->forward(net->layer[l], layer_input(net, l), &net->act[l], ctx);
            if (s != LOGT_OK) {
                logt_errctx("%s layer %d forward", net->ops->name, l);
                return s;
            }
        }
    }
    net->T = T;
    net->B = B;
    *h = &net->act[net->L - 1];
    return LOGT_OK;
}

logt_status logt_net_backward(logt_net *net, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx)
{
    if (!net->T) return LOGT_FAIL(LOGT_EINVAL, "backward called before forward");
    LOGT_TRY(check_seq(net, dh, net->cfg.hidden_size, "the gradient dh"));
    if (dh->shape[0] != net->T || dh->shape[1] != net->B)
        return LOGT_FAIL(LOGT_EINVAL, "dh is [%lld][%lld] but the last forward was [%lld][%lld]",
                         (long long)dh->shape[0], (long long)dh->shape[1], (long long)net->T,
                         (long long)net->B);
    if (dx) {
        LOGT_TRY(check_seq(net, dx, net->cfg.input_size, "the gradient dx"));
        if (dx->shape[0] != net->T || dx->shape[1] != net->B)
            return LOGT_FAIL(LOGT_EINVAL, "dx is [%lld][%lld] but the last forward was [%lld][%lld]",
                             (long long)dx->shape[0], (long long)dx->shape[1], (long long)net->T,
                             (long long)net->B);
    }
    int64_t D = net->cfg.hidden_size;
    if (net->L > 1 && !(net->K && net->wavefront)) {
        LOGT_TRY(logt_tensor_ensure3(&net->dact[0], net->cfg.device, net->cfg.dtype, net->T, net->B, D));
        LOGT_TRY(logt_tensor_ensure3(&net->dact[1], net->cfg.device, net->cfg.dtype, net->T, net->B, D));
    }
    net->recomputed = net->restored = 0;
    if (net->K) return backward_segmented(net, dh, dx, ctx);
    const logt_tensor *dout = dh;
    for (int l = net->L - 1; l >= 0; l--) {
        logt_tensor *din = l == 0 ? dx : &net->dact[l & 1];
        logt_status s = net->ops->backward(net->layer[l], dout, din, ctx);
        if (s != LOGT_OK) {
            logt_errctx("%s layer %d backward", net->ops->name, l);
            return s;
        }
        dout = din;
    }
    return LOGT_OK;
}

static logt_status set_one(logt_net *net, logt_tensor *own, logt_tensor *down, const logt_tensor *src,
                           int which)
{
    logt_tensor_free(own);
    logt_tensor_free(down);
    for (int l = 0; l < net->L; l++) {
        logt_tensor *mv = which ? &net->layer[l]->c0 : &net->layer[l]->h0;
        logt_tensor *mg = which ? &net->layer[l]->dc0 : &net->layer[l]->dh0;
        memset(mv, 0, sizeof *mv);
        memset(mg, 0, sizeof *mg);
    }
    if (!src || !src->data) return LOGT_OK;
    int64_t D = net->cfg.hidden_size;
    if (src->ndim != 3 || src->shape[0] != net->L || src->shape[2] != D)
        return LOGT_FAIL(LOGT_EINVAL, "an initial state must be [layers=%d][B][D=%lld]", net->L,
                         (long long)D);
    int64_t B = src->shape[1];
    LOGT_TRY(logt_tensor_new3(own, net->cfg.device, net->cfg.dtype, net->L, B, D));
    LOGT_TRY(logt_tensor_copy(own, src));
    LOGT_TRY(logt_tensor_new3(down, net->cfg.device, net->cfg.dtype, net->L, B, D));
    LOGT_TRY(logt_tensor_zero(down));
    for (int l = 0; l < net->L; l++) {
        int64_t shape[2] = {B, D};
        logt_tensor *mv = which ? &net->layer[l]->c0 : &net->layer[l]->h0;
        logt_tensor *mg = which ? &net->layer[l]->dc0 : &net->layer[l]->dh0;
        *mv = logt_tensor_view(own, l * B * D, 2, shape);
        *mg = logt_tensor_view(down, l * B * D, 2, shape);
    }
    return LOGT_OK;
}

logt_status logt_net_set_state(logt_net *net, const logt_tensor *h0, const logt_tensor *c0)
{
    if (c0 && c0->data && net->ops->nstate < 2)
        return LOGT_FAIL(LOGT_EINVAL, "model %s has no cell state c0", net->ops->name);
    LOGT_TRY(set_one(net, &net->h0, &net->dh0, h0, 0));
    return set_one(net, &net->c0, &net->dc0, c0, 1);
}

int logt_net_nslices(const logt_net *net)
{
    int n = 0;
    for (int l = 0; l < net->L; l++) n += net->layout[l].n;
    return n;
}

logt_status logt_net_slice(const logt_net *net, int i, char *name, size_t n, int64_t *offset,
                           int64_t *numel)
{
    for (int l = 0; l < net->L; l++) {
        if (i < net->layout[l].n) {
            const logt_slice *s = &net->layout[l].s[i];
            snprintf(name, n, "l%d.%s", l, s->name);
            *offset = net->layer_offset[l] + s->offset;
            *numel = s->numel;
            return LOGT_OK;
        }
        i -= net->layout[l].n;
    }
    return LOGT_FAIL(LOGT_EINVAL, "no parameter slice %d", i);
}
