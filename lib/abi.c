/* abi.c — liblogt.so's C ABI (lib/logt.h) over logt_net: handles, caller-owned buffers, streams.
 *
 * A layer is a logt_net with its own context. Handles index a fixed table; each slot has a
 * generation that moves on when its layer is destroyed, so a stale handle never matches. A
 * call holds its slot's mutex (which lives in the table, never freed) for its whole length:
 * one layer's calls run one at a time and destroy waits for a call in flight. The table's
 * own mutex guards the slots' generation and object; lock order is slot, then table.
 *
 * The net keeps its own parameters, output and gradients: a forward copies the caller's w in
 * (and says the parameters were written), copies the output out; a backward copies dw, dh0,
 * dc0 out. x, dy and dx are the caller's buffers, used in place.
 */
#include "logt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ctx.h"
#include "../core/status.h"
#include "../core/tensor.h"
#include "../kernels/scan.h"
#include "../models/model.h"
#include "abi_internal.h"

#define MAX_LAYERS 4096
#define MSG_SIZE 2048

_Static_assert(LOGT_ABI_F64 == LOGT_F64 && LOGT_ABI_F32 == LOGT_F32 && LOGT_ABI_BF16 == LOGT_BF16 &&
                   LOGT_ABI_F16 == LOGT_F16 && LOGT_ABI_CPU == LOGT_CPU && LOGT_ABI_CUDA == LOGT_CUDA,
               "the ABI's dtype and device numbers are logt's");
_Static_assert(LOGT_ABI_EINVAL == LOGT_EINVAL && LOGT_ABI_ENUMERIC == LOGT_ENUMERIC,
               "the ABI's status codes are logt's");

typedef struct abi_layer {
    logt_net *net;
    logt_ctx *ctx;
    int cuda_dev;            /* device ordinal of a cuda layer, else -1              */
    int has_h0, has_c0;      /* the last forward had an initial state                */
    char msg[MSG_SIZE];      /* the last failure of a call on this layer             */
} abi_layer;

typedef struct slot {
    pthread_mutex_t mu;      /* held by a call on the slot's layer                    */
    uint32_t gen;            /* handle = gen << 32 | (index + 1)                      */
    abi_layer *obj;          /* NULL: free                                            */
} slot;

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static slot table[MAX_LAYERS] = {[0 ... MAX_LAYERS - 1] = {PTHREAD_MUTEX_INITIALIZER, 1, NULL}};

#define FAIL_HANDLE(h)                                                                         \
    logt_fail_at((logt_status)LOGT_ABI_EHANDLE, __FILE__, __LINE__,                            \
                 "layer handle %#llx is not a live layer (destroyed, or never made)",         \
                 (unsigned long long)(h))

static int slot_matches(logt_layer h, uint32_t idx)
{
    return table[idx].obj && table[idx].gen == (uint32_t)(h >> 32);
}

/* The slot of live layer h, its mutex held; NULL (and the message) when h is not live. */
static slot *acquire(logt_layer h)
{
    uint64_t lo = h & 0xffffffffu;
    if (lo < 1 || lo > MAX_LAYERS) {
        FAIL_HANDLE(h);
        return NULL;
    }
    uint32_t idx = (uint32_t)(lo - 1);
    pthread_mutex_lock(&table_mu);
    int ok = slot_matches(h, idx);
    pthread_mutex_unlock(&table_mu);
    if (!ok) {
        FAIL_HANDLE(h);
        return NULL;
    }
    pthread_mutex_lock(&table[idx].mu);
    pthread_mutex_lock(&table_mu);   /* destroyed while this call waited for the slot? */
    ok = slot_matches(h, idx);
    pthread_mutex_unlock(&table_mu);
    if (!ok) {
        pthread_mutex_unlock(&table[idx].mu);
        FAIL_HANDLE(h);
        return NULL;
    }
    return &table[idx];
}

/* End a call: keep a failure's message with the layer, give the slot back. */
static int release(slot *s, logt_status st)
{
    if (st != LOGT_OK) snprintf(s->obj->msg, sizeof s->obj->msg, "%s", logt_errmsg());
    pthread_mutex_unlock(&s->mu);
    return (int)st;
}

/* ---- library -------------------------------------------------------------------------- */

int logt_abi_version(void) { return LOGT_ABI_VERSION; }

const char *logt_abi_build(void)
{
#ifdef LOGT_HAVE_CUDA
    return "logt abi 2, backends cpu cuda";
#else
    return "logt abi 2, backends cpu";
#endif
}

const char *logt_abi_status_name(int status)
{
    if (status == LOGT_ABI_EHANDLE) return "bad handle";
    return logt_status_name((logt_status)status);
}

const char *logt_abi_errmsg(void) { return logt_errmsg(); }

size_t logt_abi_models(char *buf, size_t n)
{
    char all[1024];
    logt_model_names(all, sizeof all);
    if (buf && n) snprintf(buf, n, "%s", all);
    return strlen(all);
}

int logt_abi_backend_available(int device)
{
    return (device == LOGT_CPU || device == LOGT_CUDA) && logt_backend_available((logt_device)device);
}

/* ---- buffers -------------------------------------------------------------------------- */

static logt_tensor wrap(const void *p, logt_device dev, logt_dtype dt, int64_t a, int64_t b,
                        int64_t c)
{
    logt_tensor t = {.data = (void *)p, .dtype = dt, .device = dev, .ndim = 3,
                     .shape = {a, b, c}, .numel = a * b * c, .owns = 0};
    return t;
}

/* Copy bytes between buffers of the layer's device, on its stream when cuda. */
static logt_status copy(const abi_layer *L, void *dst, const void *src, size_t bytes)
{
    if (dst == src || !bytes) return LOGT_OK;
#ifdef LOGT_HAVE_CUDA
    if (L->ctx->device == LOGT_CUDA) return abi_cuda_copy(dst, src, bytes, L->ctx->stream);
#else
    (void)L;
#endif
    memcpy(dst, src, bytes);
    return LOGT_OK;
}

/* The caller's pointers (NULL ones skipped) are memory of the layer's device. */
static logt_status check_ptrs(const abi_layer *L, int n, const void *const *p,
                              const char *const *what)
{
#ifdef LOGT_HAVE_CUDA
    if (L->ctx->device == LOGT_CUDA)
        for (int i = 0; i < n; i++)
            if (p[i]) LOGT_TRY(abi_cuda_check_ptr(p[i], L->cuda_dev, what[i]));
#else
    (void)L, (void)n, (void)p, (void)what;
#endif
    return LOGT_OK;
}

/* A call on a cuda layer runs on its device, after what the caller queued on `stream`. */
static logt_status enter(const abi_layer *L, void *stream, int *prev)
{
    *prev = -1;
#ifdef LOGT_HAVE_CUDA
    if (L->ctx->device == LOGT_CUDA) {
        LOGT_TRY(abi_cuda_enter(L->cuda_dev, prev));
        return abi_cuda_join(stream, L->ctx->stream);
    }
#endif
    (void)L, (void)stream;
    return LOGT_OK;
}

/* ... and what the caller queues next on `stream` runs after it. */
static logt_status leave(const abi_layer *L, void *stream, int prev, logt_status st)
{
#ifdef LOGT_HAVE_CUDA
    if (L->ctx->device == LOGT_CUDA && prev >= 0) {
        logt_status j = abi_cuda_join(L->ctx->stream, stream);
        abi_cuda_leave(L->cuda_dev, prev);
        if (st == LOGT_OK) st = j;
    }
#endif
    (void)L, (void)stream, (void)prev;
    return st;
}

/* ---- layers --------------------------------------------------------------------------- */

static void layer_free(abi_layer *L)
{
    if (!L) return;
    logt_net_destroy(L->net);
    logt_ctx_destroy(L->ctx);
    free(L);
}

static logt_status make_cfg(logt_model_cfg *cfg, const char *model, int input_size,
                            int hidden_size, int layers, const char *cell, int head_dim,
                            int device, int dtype, uint64_t seed, int nknobs,
                            const char *const *keys, const char *const *vals)
{
    if (!model || !*model) return LOGT_FAIL(LOGT_EINVAL, "no model named: give one of logt's models");
    if (strlen(model) >= sizeof cfg->model)
        return LOGT_FAIL(LOGT_EINVAL, "model name '%s' is too long", model);
    if (device != LOGT_CPU && device != LOGT_CUDA)
        return LOGT_FAIL(LOGT_EINVAL, "device %d: 0 (cpu) or 1 (cuda)", device);
    if (dtype < -1 || dtype >= LOGT_NDTYPES)
        return LOGT_FAIL(LOGT_EINVAL, "dtype %d: -1 (the device's default), 0 f64, 1 f32, 2 bf16, 3 f16",
                         dtype);
    logt_model_cfg_init(cfg, model, (logt_device)device, input_size, hidden_size);
    if (dtype >= 0) cfg->dtype = (logt_dtype)dtype;
    cfg->layers = layers;
    cfg->head_dim = head_dim;
    cfg->seed = seed;
    if (cell && strlen(cell) >= sizeof cfg->cell)
        return LOGT_FAIL(LOGT_EINVAL, "cell name '%s' is too long", cell);
    snprintf(cfg->cell, sizeof cfg->cell, "%s", cell ? cell : "");
    if (nknobs < 0 || nknobs > LOGT_MAX_KNOBS)
        return LOGT_FAIL(LOGT_EINVAL, "%d knobs: at most %d", nknobs, LOGT_MAX_KNOBS);
    for (int i = 0; i < nknobs; i++) {
        if (!keys || !vals || !keys[i] || !vals[i])
            return LOGT_FAIL(LOGT_EINVAL, "knob %d has no key or no value", i);
        LOGT_TRY(logt_cfg_set_knob(cfg, keys[i], vals[i]));
    }
    return LOGT_OK;
}

int logt_layer_create(const char *model, int input_size, int hidden_size, int layers,
                      const char *cell, int head_dim, int device, int dtype, uint64_t seed,
                      int nknobs, const char *const *keys, const char *const *vals,
                      logt_layer *out)
{
    if (!out) return LOGT_FAIL(LOGT_EINVAL, "logt_layer_create: out is NULL");
    *out = 0;
    logt_model_cfg cfg;
    LOGT_TRY(make_cfg(&cfg, model, input_size, hidden_size, layers, cell, head_dim, device, dtype,
                      seed, nknobs, keys, vals));
    abi_layer *L = calloc(1, sizeof *L);
    if (!L) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    L->cuda_dev = -1;
    logt_status s = LOGT_OK;
    if (cfg.device == LOGT_CUDA) {
        /* the configuration first, so that a bad one reads the same with or without a GPU */
        const logt_model_ops *ops = logt_model_find(cfg.model);
        logt_layout lay;
        if (ops) s = logt_model_layout(ops, &cfg, &lay);
#ifdef LOGT_HAVE_CUDA
        if (s == LOGT_OK && logt_backend_available(LOGT_CUDA)) s = abi_cuda_get_device(&L->cuda_dev);
#endif
    }
    if (s == LOGT_OK) s = logt_ctx_create(cfg.device, &L->ctx);
    if (s == LOGT_OK) s = logt_net_create(&cfg, &L->net);
    if (s != LOGT_OK) {
        layer_free(L);
        return s;
    }
    pthread_mutex_lock(&table_mu);
    int idx = -1;
    for (int i = 0; i < MAX_LAYERS && idx < 0; i++)
        if (!table[i].obj) idx = i;
    if (idx >= 0) {
        table[idx].obj = L;
        *out = (uint64_t)table[idx].gen << 32 | (uint64_t)(idx + 1);
    }
    pthread_mutex_unlock(&table_mu);
    if (idx < 0) {
        layer_free(L);
        return LOGT_FAIL(LOGT_ENOMEM, "%d layers are live, the most one process may hold: "
                         "destroy some first", MAX_LAYERS);
    }
    return LOGT_OK;
}

int logt_layer_destroy(logt_layer h)
{
    slot *s = acquire(h);
    if (!s) return LOGT_ABI_EHANDLE;
    abi_layer *L = s->obj;
    pthread_mutex_lock(&table_mu);
    s->obj = NULL;
    s->gen = s->gen == UINT32_MAX ? 1 : s->gen + 1;   /* every earlier handle is stale now */
    pthread_mutex_unlock(&table_mu);
    pthread_mutex_unlock(&s->mu);
#ifdef LOGT_HAVE_CUDA
    int dev = L->cuda_dev, prev = -1;   /* its device current while its memory is freed */
    if (dev >= 0 && abi_cuda_enter(dev, &prev) != LOGT_OK) prev = -1;
    layer_free(L);
    if (prev >= 0) abi_cuda_leave(dev, prev);
#else
    layer_free(L);
#endif
    return LOGT_ABI_OK;
}

int logt_layer_get(logt_layer h, int what, int64_t *value)
{
    slot *s = acquire(h);
    if (!s) return LOGT_ABI_EHANDLE;
    const logt_net *net = s->obj->net;
    logt_status st = LOGT_OK;
    int64_t v = 0;
    switch (what) {
    case LOGT_LAYER_INPUT_SIZE: v = net->cfg.input_size; break;
    case LOGT_LAYER_HIDDEN_SIZE: v = net->cfg.hidden_size; break;
    case LOGT_LAYER_LAYERS: v = net->L; break;
    case LOGT_LAYER_NSTATE: v = net->ops->nstate; break;
    case LOGT_LAYER_DEVICE: v = net->cfg.device; break;
    case LOGT_LAYER_DTYPE: v = net->cfg.dtype; break;
    case LOGT_LAYER_PARAM_DTYPE: v = net->w.dtype; break;
    case LOGT_LAYER_NPARAMS: v = net->w.numel; break;
    case LOGT_LAYER_NSLICES: v = logt_net_nslices(net); break;
    case LOGT_LAYER_HEAD_DIM: v = net->cfg.head_dim ? net->cfg.head_dim : net->cfg.hidden_size; break;
    case LOGT_LAYER_CUDA_DEVICE: v = s->obj->cuda_dev; break;
    default: st = LOGT_FAIL(LOGT_EINVAL, "logt_layer_get: no property %d", what);
    }
    if (st == LOGT_OK && value) *value = v;
    return release(s, st);
}

int logt_layer_slice(logt_layer h, int i, char *name, size_t name_size, int64_t *offset,
                     int64_t *numel, int *ndim, int64_t shape[3])
{
    slot *s = acquire(h);
    if (!s) return LOGT_ABI_EHANDLE;
    const logt_net *net = s->obj->net;
    int found = 0;
    for (int l = 0, k = i; l < net->L && k >= 0; k -= net->layout[l].n, l++) {
        if (k >= net->layout[l].n) continue;
        const logt_slice *sl = &net->layout[l].s[k];
        if (name && name_size) snprintf(name, name_size, "l%d.%s", l, sl->name);
        if (offset) *offset = net->layer_offset[l] + sl->offset;
        if (numel) *numel = sl->numel;
        if (ndim) *ndim = sl->ndim;
        for (int d = 0; shape && d < 3; d++) shape[d] = d < sl->ndim ? sl->shape[d] : 1;
        found = 1;
        break;
    }
    return release(s, found ? LOGT_OK
                            : LOGT_FAIL(LOGT_EINVAL, "no parameter slice %d: there are %d", i,
                                        logt_net_nslices(net)));
}

int logt_layer_params(logt_layer h, void *w, void *stream)
{
    slot *s = acquire(h);
    if (!s) return LOGT_ABI_EHANDLE;
    abi_layer *L = s->obj;
    if (!w) return release(s, LOGT_FAIL(LOGT_EINVAL, "logt_layer_params: w is NULL"));
    int prev;
    logt_status st = check_ptrs(L, 1, (const void *[]){w}, (const char *[]){"w"});
    if (st != LOGT_OK) return release(s, st);
    st = enter(L, stream, &prev);
    if (st == LOGT_OK) st = copy(L, w, L->net->w.data, logt_tensor_bytes(&L->net->w));
    return release(s, leave(L, stream, prev, st));
}

static logt_status sizes_ok(int64_t T, int64_t B)
{
    if (T < 1 || B < 1)
        return LOGT_FAIL(LOGT_EINVAL, "T = %lld, B = %lld: both must be at least 1", (long long)T,
                         (long long)B);
    return LOGT_OK;
}

static logt_status forward(abi_layer *L, const void *w, int64_t T, int64_t B, const void *x,
                           const void *h0, const void *c0, void *y)
{
    logt_net *net = L->net;
    const logt_model_cfg *c = &net->cfg;
    if (w) {
        LOGT_TRY(copy(L, net->w.data, w, logt_tensor_bytes(&net->w)));
        logt_net_params_written(net);
    }
    logt_tensor th0 = wrap(h0, c->device, c->dtype, net->L, B, c->hidden_size);
    logt_tensor tc0 = wrap(c0, c->device, c->dtype, net->L, B, c->hidden_size);
    LOGT_TRY(logt_net_set_state(net, h0 ? &th0 : NULL, c0 ? &tc0 : NULL));
    L->has_h0 = h0 != NULL, L->has_c0 = c0 != NULL;
    logt_tensor tx = wrap(x, c->device, c->dtype, T, B, c->input_size);
    const logt_tensor *out;
    LOGT_TRY(logt_net_forward(net, &tx, &out, L->ctx));
    return copy(L, y, out->data, logt_tensor_bytes(out));
}

int logt_layer_forward(logt_layer h, const void *w, int64_t T, int64_t B, const void *x,
                       const void *h0, const void *c0, void *y, void *stream)
{
    slot *s = acquire(h);
    if (!s) return LOGT_ABI_EHANDLE;
    abi_layer *L = s->obj;
    logt_status st = sizes_ok(T, B);
    if (st == LOGT_OK && (!x || !y))
        st = LOGT_FAIL(LOGT_EINVAL, "logt_layer_forward: x and y must be given");
    if (st == LOGT_OK)
        st = check_ptrs(L, 5, (const void *[]){w, x, h0, c0, y},
                        (const char *[]){"w", "x", "h0", "c0", "y"});
    if (st != LOGT_OK) return release(s, st);
    int prev;
    st = enter(L, stream, &prev);
    if (st == LOGT_OK) st = forward(L, w, T, B, x, h0, c0, y);
    /* a forward that failed leaves nothing a backward may use (the net says so once its layers
     * have started; the weights and states set here change before) */
    if (st != LOGT_OK) L->net->T = 0, L->has_h0 = L->has_c0 = 0;
    return release(s, leave(L, stream, prev, st));
}

static logt_status backward(abi_layer *L, int64_t T, int64_t B, const void *dy, void *dx,
                            void *dw, void *dh0, void *dc0)
{
    logt_net *net = L->net;
    const logt_model_cfg *c = &net->cfg;
    logt_tensor tdy = wrap(dy, c->device, c->dtype, T, B, c->hidden_size);
    logt_tensor tdx = wrap(dx, c->device, c->dtype, T, B, c->input_size);
    LOGT_TRY(logt_net_backward(net, &tdy, dx ? &tdx : NULL, L->ctx));
    if (dw) LOGT_TRY(copy(L, dw, net->dw.data, logt_tensor_bytes(&net->dw)));
    if (dh0) LOGT_TRY(copy(L, dh0, net->dh0.data, logt_tensor_bytes(&net->dh0)));
    if (dc0) LOGT_TRY(copy(L, dc0, net->dc0.data, logt_tensor_bytes(&net->dc0)));
    return LOGT_OK;
}

int logt_layer_backward(logt_layer h, int64_t T, int64_t B, const void *dy, void *dx, void *dw,
                        void *dh0, void *dc0, void *stream)
{
    slot *s = acquire(h);
    if (!s) return LOGT_ABI_EHANDLE;
    abi_layer *L = s->obj;
    logt_status st = sizes_ok(T, B);
    if (st == LOGT_OK && !dy) st = LOGT_FAIL(LOGT_EINVAL, "logt_layer_backward: dy must be given");
    if (st == LOGT_OK && !L->net->T)
        st = LOGT_FAIL(LOGT_EINVAL, "backward called before forward");
    if (st == LOGT_OK && dh0 && !L->has_h0)
        st = LOGT_FAIL(LOGT_EINVAL, "dh0 asked for, but the last forward had no h0 (zeros)");
    if (st == LOGT_OK && dc0 && !L->has_c0)
        st = LOGT_FAIL(LOGT_EINVAL, "dc0 asked for, but the last forward had no c0 (zeros)");
    if (st == LOGT_OK)
        st = check_ptrs(L, 5, (const void *[]){dy, dx, dw, dh0, dc0},
                        (const char *[]){"dy", "dx", "dw", "dh0", "dc0"});
    if (st != LOGT_OK) return release(s, st);
    int prev;
    st = enter(L, stream, &prev);
    if (st == LOGT_OK) st = backward(L, T, B, dy, dx, dw, dh0, dc0);
    return release(s, leave(L, stream, prev, st));
}

size_t logt_layer_errmsg(logt_layer h, char *buf, size_t n)
{
    slot *s = acquire(h);
    const char *m = s ? s->obj->msg : logt_errmsg();
    size_t len = strlen(m);
    if (buf && n) snprintf(buf, n, "%s", m);
    if (s) pthread_mutex_unlock(&s->mu);
    return len;
}

/* ---- the linear scan ------------------------------------------------------------------ */

#ifdef LOGT_HAVE_CUDA
/* A context per thread and device for the scan's cuda calls: no state shared between
 * threads, and no context made per call (a cuBLAS handle is slow to make). */
#define MAX_DEVICES 64
typedef struct scan_ctxs { logt_ctx *ctx[MAX_DEVICES]; } scan_ctxs;
static pthread_key_t scan_key;
static pthread_once_t scan_once = PTHREAD_ONCE_INIT;

static void scan_ctxs_free(void *p)
{
    scan_ctxs *c = p;
    for (int i = 0; i < MAX_DEVICES; i++) logt_ctx_destroy(c->ctx[i]);
    free(c);
}
static void scan_key_make(void) { pthread_key_create(&scan_key, scan_ctxs_free); }

static logt_status scan_ctx(int dev, logt_ctx **out)
{
    pthread_once(&scan_once, scan_key_make);
    scan_ctxs *c = pthread_getspecific(scan_key);
    if (!c) {
        if (!(c = calloc(1, sizeof *c))) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        pthread_setspecific(scan_key, c);
    }
    if (dev < 0 || dev >= MAX_DEVICES)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "cuda:%d: the scan serves devices 0..%d", dev, MAX_DEVICES - 1);
    if (!c->ctx[dev]) LOGT_TRY(logt_ctx_create(LOGT_CUDA, &c->ctx[dev]));
    *out = c->ctx[dev];
    return LOGT_OK;
}
#endif

static logt_status scan_check(int device, int dtype)
{
    if (device == LOGT_CPU && dtype != LOGT_F64)
        return LOGT_FAIL(LOGT_EINVAL, "the cpu scan takes f64 arrays, not %s",
                         dtype >= 0 && dtype < LOGT_NDTYPES ? logt_dtype_name((logt_dtype)dtype) : "?");
    if (device == LOGT_CUDA && dtype != LOGT_F32 && dtype != LOGT_BF16 && dtype != LOGT_F16)
        return LOGT_FAIL(LOGT_EINVAL, "the cuda scan takes f32, bf16 or f16 arrays");
    if (device != LOGT_CPU && device != LOGT_CUDA)
        return LOGT_FAIL(LOGT_EINVAL, "device %d: 0 (cpu) or 1 (cuda)", device);
#ifndef LOGT_HAVE_CUDA
    if (device == LOGT_CUDA)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "this build of logt has no cuda backend");
#endif
    return LOGT_OK;
}

int logt_scan(int device, int dtype, int reverse, int64_t T, int64_t C, const void *a,
              const void *b, const void *h0, void *h, void *stream)
{
    LOGT_TRY(scan_check(device, dtype));
    if (!a || !b || !h) return LOGT_FAIL(LOGT_EINVAL, "logt_scan: a, b and h must be given");
    if (device == LOGT_CPU)
        return (reverse ? scan_reverse_cpu : scan_cpu)(T, C, a, b, h0, h);
#ifdef LOGT_HAVE_CUDA
    int dev;
    logt_ctx *ctx;
    LOGT_TRY(abi_cuda_get_device(&dev));
    const void *p[] = {a, b, h0, h};
    const char *what[] = {"a", "b", "h0", "h"};
    for (int i = 0; i < 4; i++)
        if (p[i]) LOGT_TRY(abi_cuda_check_ptr(p[i], dev, what[i]));
    LOGT_TRY(scan_ctx(dev, &ctx));
    LOGT_TRY(abi_cuda_join(stream, ctx->stream));
    logt_status st = scan_cuda(ctx, reverse, T, C, (logt_dtype)dtype, a, b, h0, h);
    logt_status j = abi_cuda_join(ctx->stream, stream);
    return st != LOGT_OK ? st : j;
#else
    (void)stream;
    return LOGT_EUNSUPPORTED;
#endif
}

int logt_scan_backward(int device, int dtype, int64_t T, int64_t C, const void *a,
                       const void *h0, const void *h, const void *dh, void *da, void *db,
                       void *dh0, void *stream)
{
    LOGT_TRY(scan_check(device, dtype));
    if (!a || !h || !dh || !db)
        return LOGT_FAIL(LOGT_EINVAL, "logt_scan_backward: a, h, dh and db must be given");
    if (device == LOGT_CPU) return scan_backward_cpu(T, C, a, h0, h, dh, da, db, dh0);
#ifdef LOGT_HAVE_CUDA
    int dev;
    logt_ctx *ctx;
    LOGT_TRY(abi_cuda_get_device(&dev));
    const void *p[] = {a, h0, h, dh, da, db, dh0};
    const char *what[] = {"a", "h0", "h", "dh", "da", "db", "dh0"};
    for (int i = 0; i < 7; i++)
        if (p[i]) LOGT_TRY(abi_cuda_check_ptr(p[i], dev, what[i]));
    LOGT_TRY(scan_ctx(dev, &ctx));
    LOGT_TRY(abi_cuda_join(stream, ctx->stream));
    logt_status st = scan_backward_cuda(ctx, T, C, (logt_dtype)dtype, a, h0, h, dh, da, db, dh0);
    logt_status j = abi_cuda_join(ctx->stream, stream);
    return st != LOGT_OK ? st : j;
#else
    (void)stream;
    return LOGT_EUNSUPPORTED;
#endif
}
