/* speed.c — the timed runs of a sweep: speed runs (a model's passes) and kernel runs (one
 * library kernel against a copy).
 *
 * Speed run: x[T][B][I] and dh[T][B][D] uniform in [-1, 1] from the seed, then
 * `warmup` untimed and `repeats` timed passes (forward, or forward + backward
 * with dx), each timed by logt_timer_* (CUDA events on the GPU, the monotonic
 * clock on the CPU).
 *
 * Kernel run (kernels.c): the kernel's input arrays [T][C] (C = B·D) filled once per
 * shape from the seed, then `warmup` untimed and `repeats` timed calls, each followed
 * by a device-to-device copy of one array (T·C elements) timed the same way: the
 * kernel's effective bandwidth (its minimum traffic over its median time) is set
 * against the copy's (2·T·C·bytes over its median) measured in the same run.
 */
#include "run_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/rng.h"
#include "../models/kernels.h"

/* ---- statistics ---------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double run_quantile(const double *v, int n, double q)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s || n == 0) {
        free(s);
        return NAN;
    }
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double pos = q * (n - 1);
    int lo = (int)floor(pos);
    int hi = lo + 1 < n ? lo + 1 : lo;
    double out = s[lo] + (pos - lo) * (s[hi] - s[lo]);
    free(s);
    return out;
}

/* ---- speed runs ---------------------------------------------------------------------- */

/* x and dh depend only on shape, dtype, device, seed: each is made once and
 * kept for the following runs of the same shape (the sweep nests the pass and
 * the knobs innermost), because making T·B·D random numbers on the host costs
 * more than the passes being timed at large sizes. They are made in parallel,
 * directly in the tensor's dtype, and copied to the device once. */
typedef struct input {
    logt_tensor t;
    logt_device dev;
    logt_dtype dt;
    int64_t T, B, W, gates;
    uint64_t seed, stream;
} input;
enum { IN_X, IN_DH, IN_KERNEL, NINPUTS };
static input inputs[NINPUTS];   /* x, dh of speed runs; a kernel's input block */
static logt_tensor kernel_out;  /* a kernel's output block, kept while the shape stays */

void run_inputs_free(void)
{
    logt_tensor_free(&kernel_out);
    for (int k = 0; k < NINPUTS; k++) {
        logt_tensor_free(&inputs[k].t);
        memset(&inputs[k], 0, sizeof inputs[k]);
    }
}

typedef struct fill_job {
    void *p;
    logt_dtype dt;
    int64_t lo, hi, gates;
    uint64_t seed, stream;
} fill_job;

/* Elements [lo, hi) uniform in [-1, 1], those below `gates` in [0.5, 1) instead:
 * element i is a hash of (seed, stream, i). */
static void *fill_uniform(void *arg)
{
    const fill_job *j = arg;
    for (int64_t i = j->lo; i < j->hi; i++) {
        double u = logt_uniform(j->seed, j->stream, (uint64_t)i);
        double v = i < j->gates ? 0.5 + 0.5 * u : 2.0 * u - 1.0;
        if (j->dt == LOGT_F64) ((double *)j->p)[i] = v;
        else if (j->dt == LOGT_F32) ((float *)j->p)[i] = (float)v;
        else if (j->dt == LOGT_F16) ((uint16_t *)j->p)[i] = logt_f32_to_f16((float)v);
        else ((uint16_t *)j->p)[i] = logt_f32_to_bf16((float)v);
    }
    return NULL;
}

static logt_status random_input(int which, logt_device dev, logt_dtype dt, int64_t T, int64_t B,
                                int64_t W, int64_t gates, uint64_t seed, uint64_t stream,
                                const logt_tensor **out)
{
    input *in = &inputs[which];
    *out = &in->t;
    if (in->t.data && in->dev == dev && in->dt == dt && in->T == T && in->B == B && in->W == W &&
        in->gates == gates && in->seed == seed && in->stream == stream)
        return LOGT_OK;
    logt_tensor_free(&in->t);
    memset(in, 0, sizeof *in);
    logt_tensor host;
    memset(&host, 0, sizeof host);
    LOGT_TRY(logt_tensor_new3(&host, LOGT_CPU, dt, T, B, W));
    enum { MAX_THREADS = 32 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = host.numel < (1 << 20) ? 1 : cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
    pthread_t th[MAX_THREADS];
    fill_job job[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int k = 0; k < nt; k++) {
        job[k] = (fill_job){host.data, dt, host.numel * k / nt, host.numel * (k + 1) / nt, gates, seed,
                            stream};
        started[k] = k > 0 && pthread_create(&th[k], NULL, fill_uniform, &job[k]) == 0;
        if (k > 0 && !started[k]) fill_uniform(&job[k]);
    }
    fill_uniform(&job[0]);
    for (int k = 1; k < nt; k++)
        if (started[k]) pthread_join(th[k], NULL);
    logt_status s = LOGT_OK;
    if (dev == LOGT_CPU) {
        in->t = host;
    } else {
        s = logt_tensor_new3(&in->t, dev, dt, T, B, W);
        if (s == LOGT_OK) s = logt_tensor_copy(&in->t, &host);
        logt_tensor_free(&host);
    }
    if (s != LOGT_OK) {
        logt_tensor_free(&in->t);
        memset(in, 0, sizeof *in);
        return s;
    }
    in->dev = dev, in->dt = dt, in->T = T, in->B = B, in->W = W, in->gates = gates;
    in->seed = seed, in->stream = stream;
    return LOGT_OK;
}

/* A model's series of its last call (logt_model.trace), kept for the results file, and the
 * entries its layers clamped in that call (logt_model.clamped; -1: none clamps). */
typedef struct series {
    char name[32];
    int n;
    double v[1024];
    int64_t clamped;
} series;

/* The CRC-32 (zlib's: reflected polynomial 0xedb88320) of t's bytes as stored, read back to
 * the host: equal checksums mean bit-equal tensors (a binding's output set against the
 * runner's, one build's against another's), and any program can compute it (Python:
 * zlib.crc32 of the array's bytes). */
static uint32_t crc_table[256];

static void crc_table_make(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static logt_status crc32_of(const logt_tensor *t, uint32_t *out)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, crc_table_make);
    logt_tensor host = {0};
    LOGT_TRY(logt_tensor_new(&host, LOGT_CPU, t->dtype, t->ndim, t->shape));
    logt_status s = logt_tensor_copy(&host, t);
    uint32_t c = 0xffffffffu;
    const unsigned char *p = host.data;
    for (size_t i = 0, n = logt_tensor_bytes(&host); s == LOGT_OK && i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    logt_tensor_free(&host);
    *out = c ^ 0xffffffffu;
    return s;
}

/* The checksums of the last pass's y, and of dx and dw after a backward. */
typedef struct checksums { uint32_t y, dx, dw; int backward; } checksums;

static logt_status speed_run(logt_ctx *ctx, const logt_run_spec *r, double *ms, int64_t *peak,
                             char *impl, size_t nimpl, char *detail, size_t ndetail, series *tr,
                             checksums *ck)
{
    logt_net *net = NULL;
    logt_tensor dx = {0};
    const logt_tensor *x = NULL, *dh = NULL;
    const int fwdbwd = !strcmp(r->pass, "fwdbwd");
    const logt_model_cfg *c = &r->cfg;
    logt_status s = random_input(IN_X, c->device, c->dtype, r->T, r->B, c->input_size, 0, c->seed,
                                 0x78, &x);
    if (s == LOGT_OK && fwdbwd)
        s = random_input(IN_DH, c->device, c->dtype, r->T, r->B, c->hidden_size, 0, c->seed, 0x6468,
                         &dh);
    if (!fwdbwd) {   /* a forward run's peak must not count an earlier run's dh */
        logt_tensor_free(&inputs[IN_DH].t);
        memset(&inputs[IN_DH], 0, sizeof inputs[IN_DH]);
    }
    logt_mem_reset_peak();   /* the peak counts the inputs (still allocated) and all the run adds */
    if (s == LOGT_OK) s = logt_net_create(c, &net);
    if (s == LOGT_OK && fwdbwd) s = logt_tensor_new3(&dx, c->device, c->dtype, r->T, r->B, c->input_size);
    ctx->inference = !fwdbwd;   /* pass = forward: no backward follows (core/ctx.h) */
    const logt_tensor *h = NULL;
    for (int i = 0; s == LOGT_OK && i < r->warmup + r->repeats; i++) {
        const int timed = i >= r->warmup;
        if (timed && r->head_start_us) s = logt_ctx_head_start(ctx, r->head_start_us);
        if (s == LOGT_OK && timed) s = logt_timer_begin(ctx);
        if (s == LOGT_OK) s = logt_net_forward(net, x, &h, ctx);
        if (s == LOGT_OK && fwdbwd) s = logt_net_backward(net, dh, &dx, ctx);
        if (s == LOGT_OK) s = timed ? logt_timer_end(ctx, &ms[i - r->warmup]) : logt_ctx_sync(ctx);
    }
    ctx->inference = 0;
    *peak = (int64_t)logt_mem_peak();
    if (s == LOGT_OK && r->checksum && h) s = crc32_of(h, &ck->y);
    if (s == LOGT_OK && r->checksum && fwdbwd) s = crc32_of(&dx, &ck->dx);
    if (s == LOGT_OK && r->checksum && fwdbwd) s = crc32_of(&net->dw, &ck->dw), ck->backward = 1;
    if (net) logt_strlcpy(impl, nimpl, net->layer[0]->impl);
    if (net) logt_strlcpy(detail, ndetail, net->layer[0]->detail);
    if (net && net->layer[0]->ntrace > 0 && net->layer[0]->trace) {
        const logt_model *l = net->layer[0];
        tr->n = l->ntrace < (int)(sizeof tr->v / sizeof tr->v[0]) ? l->ntrace
                                                                  : (int)(sizeof tr->v / sizeof tr->v[0]);
        memcpy(tr->v, l->trace, (size_t)tr->n * sizeof tr->v[0]);
        logt_strlcpy(tr->name, sizeof tr->name, l->trace_name);
    }
    tr->clamped = -1;
    for (int l = 0; net && l < net->L; l++) {
        const int64_t c = net->layer[l]->clamped;
        if (net->layer[l]->clamping) tr->clamped = tr->clamped < 0 ? c : tr->clamped + c;
    }
    logt_tensor_free(&dx);
    logt_net_destroy(net);
    return s;
}

/* ---- kernel runs --------------------------------------------------------------------- */

/* Time r's kernel: ms[repeats] for the kernel, copy_ms[repeats] for a copy of one
 * [T][C] array right after each call; *bytes the kernel's minimum traffic. */
static logt_status kernel_run(logt_ctx *ctx, const logt_run_spec *r, double *ms, double *copy_ms,
                              double *bytes, int64_t *peak, char *impl, size_t nimpl)
{
    const logt_model_cfg *c = &r->cfg;
    const logt_kernel *k = logt_kernel_find(c->model);
    if (!k) {   /* the config checks the names: only a caller of speed.c gets here */
        char known[512];
        logt_kernel_names(known, sizeof known);
        return LOGT_USER_FAIL(LOGT_EINVAL, "unknown kernel '%s' (known kernels: %s)", c->model, known);
    }
    if (!(k->devices & (1u << c->device)))
        return LOGT_USER_FAIL(LOGT_EUNSUPPORTED, "kernel %s does not run on %s", k->name,
                              logt_device_name(c->device));
    if (c->device == LOGT_CPU && c->dtype != LOGT_F64)
        return LOGT_USER_FAIL(LOGT_EUNSUPPORTED,
                              "kernel %s on the cpu is the float64 reference, not %s: set dtype = f64 "
                              "for the cpu ([kernel.cpu] or [sweep.cpu])",
                              k->name, logt_dtype_name(c->dtype));
    const int64_t T = r->T, C = (int64_t)r->B * c->hidden_size;
    const logt_device dev = c->device;
    const logt_dtype dt = c->dtype;
    /* nothing of another shape may stay allocated while this one's buffers are made */
    for (int i = IN_X; i <= IN_DH; i++) {
        logt_tensor_free(&inputs[i].t);
        memset(&inputs[i], 0, sizeof inputs[i]);
    }
    if (!(kernel_out.device == dev && kernel_out.dtype == dt && kernel_out.ndim == 3 &&
          kernel_out.shape[0] == k->nout && kernel_out.shape[1] == T && kernel_out.shape[2] == C))
        logt_tensor_free(&kernel_out);
    const logt_tensor *in;
    logt_status s = random_input(IN_KERNEL, dev, dt, k->nin, T, C, T * C, c->seed, 0x6b65726e, &in);
    logt_mem_reset_peak();   /* the peak counts the inputs and the outputs */
    if (s == LOGT_OK) s = logt_tensor_ensure3(&kernel_out, dev, dt, k->nout, T, C);
    if (s != LOGT_OK) return s;
    const logt_kernel_args a = {dev, dt, T, r->B, c->hidden_size, C, in->data, kernel_out.data};
    const size_t n_bytes = (size_t)T * (size_t)C * logt_dtype_size(dt);
    *bytes = logt_kernel_bytes(k, &a);
    for (int i = 0; s == LOGT_OK && i < r->warmup + r->repeats; i++) {
        const int timed = i >= r->warmup;
        if (timed) s = logt_timer_begin(ctx);
        if (s == LOGT_OK) s = k->run(ctx, &a, i == 0 ? impl : NULL, nimpl);
        if (s == LOGT_OK) s = timed ? logt_timer_end(ctx, &ms[i - r->warmup]) : logt_ctx_sync(ctx);
        /* the yardstick, under the same conditions: one input array copied to the outputs */
        if (s == LOGT_OK && timed) s = logt_timer_begin(ctx);
        if (s == LOGT_OK) s = logt_kernel_copy(ctx, kernel_out.data, in->data, n_bytes);
        if (s == LOGT_OK) s = timed ? logt_timer_end(ctx, &copy_ms[i - r->warmup]) : logt_ctx_sync(ctx);
    }
    *peak = (int64_t)logt_mem_peak();
    return s;
}

/* ---- their part of a run of the sweep ------------------------------------------------ */

logt_status one_speed_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                          logt_summary_row *row, char *what, size_t nwhat, char *detail,
                          size_t ndetail, int *fatal)
{
    logt_status s;
    double *ms = calloc((size_t)r->repeats, sizeof *ms);
    if (!ms) {
        *fatal = 1;
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    series *tr = calloc(1, sizeof *tr);
    if (!tr) {
        free(ms);
        *fatal = 1;
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    checksums ck = {0};
    s = speed_run(ctx, r, ms, &row->peak_mem_bytes, row->impl, sizeof row->impl, detail, ndetail, tr,
                  &ck);
    if (s == LOGT_OK) {
        row->median_ms = run_quantile(ms, r->repeats, 0.5);
        row->p10_ms = run_quantile(ms, r->repeats, 0.1);
        row->p90_ms = run_quantile(ms, r->repeats, 0.9);
        row->tokens_per_s = (double)r->T * r->B / (row->median_ms * 1e-3);
        snprintf(what, nwhat, "median %.4g ms (p10 %.4g, p90 %.4g)", row->median_ms, row->p10_ms,
                 row->p90_ms);
        logt_status w = logt_store_write(st, id, "time_ms", ms, r->repeats);
        if (w == LOGT_OK && tr->n > 0 && tr->name[0]) w = logt_store_write(st, id, tr->name, tr->v, tr->n);
        if (tr->n > 0) row->iterations = tr->n - 1;
        if (w == LOGT_OK && tr->clamped >= 0) w = logt_store_set_i64(st, id, "", "jacobian_clamps", tr->clamped);
        const struct { const char *name; uint32_t v; } d[] = {
            {"crc32_y", ck.y}, {"crc32_dx", ck.dx}, {"crc32_dw", ck.dw}};
        for (size_t k = 0; w == LOGT_OK && r->checksum && k < (ck.backward ? 3u : 1u); k++)
            w = logt_store_set_i64(st, id, "", d[k].name, d[k].v);
        if (w != LOGT_OK) *fatal = 1, s = w;
    }
    free(ms), free(tr);
    return s;
}

logt_status one_kernel_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                           logt_summary_row *row, char *what, size_t nwhat, int *fatal)
{
    logt_status s;
    double *ms = calloc(2 * (size_t)r->repeats, sizeof *ms), bytes = 0;
    if (!ms) {
        *fatal = 1;
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    double *copy_ms = ms + r->repeats;
    s = kernel_run(ctx, r, ms, copy_ms, &bytes, &row->peak_mem_bytes, row->impl, sizeof row->impl);
    if (s == LOGT_OK) {
        /* GB/s = bytes / (ms * 1e-3) / 1e9; the copy reads N bytes and writes N */
        const double n = (double)r->T * r->B * r->cfg.hidden_size * logt_dtype_size(r->cfg.dtype);
        const double copy_median = run_quantile(copy_ms, r->repeats, 0.5);
        row->median_ms = run_quantile(ms, r->repeats, 0.5);
        row->p10_ms = run_quantile(ms, r->repeats, 0.1);
        row->p90_ms = run_quantile(ms, r->repeats, 0.9);
        row->bytes = bytes;
        row->gbps = row->median_ms > 0 ? bytes / row->median_ms * 1e-6 : NAN;
        row->copy_gbps = copy_median > 0 ? 2 * n / copy_median * 1e-6 : NAN;
        row->pct_of_copy = 100 * row->gbps / row->copy_gbps;
        snprintf(what, nwhat, "median %.4g ms, %.4g GB/s = %.1f%% of copy (%.4g GB/s)", row->median_ms,
                 row->gbps, row->pct_of_copy, row->copy_gbps);
        logt_status w = logt_store_write(st, id, "time_ms", ms, r->repeats);
        if (w == LOGT_OK) w = logt_store_write(st, id, "copy_ms", copy_ms, r->repeats);
        if (w == LOGT_OK) w = logt_store_set_f64(st, id, "", "copy_median_ms", copy_median);
        if (w != LOGT_OK) *fatal = 1, s = w;
    }
    free(ms);
    return s;
}
