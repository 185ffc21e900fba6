/* run.c — the sweep: speed runs, training runs, checkpoints, progress, shards.
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
 *
 * Training run: loss, grad_norm, wall_s, newton_iterations grow by one value per step (written in
 * batches: every FLUSH_STEPS steps, every FLUSH_SECONDS, and at each
 * evaluation); eval_step, eval_loss, eval_acc, eval_wall_s by one per
 * evaluation, and eval_bpc (eval_loss in bits: / ln 2) for a task that reports bits
 * per character (charlm), whose last value is also the run's final_eval_bpc. At each
 * evaluation the training state goes to one of two checkpoint slots, checkpoint/0 and
 * checkpoint/1, and only once it is flushed
 * does checkpoint's `latest` attribute point at it: a kill mid-write leaves the
 * previous checkpoint intact. A rerun resumes from `latest`, cutting the
 * per-step datasets back to the checkpoint's step.
 *
 * Shard (--shard I/N): the runs k of the sweep with k mod N = I, in a file whose root
 * says which shard of which sweep it is (shard_index, shard_count, sweep_runs) and whose
 * runs say their k (sweep_index), for merge.c to put them back in sweep order.
 *
 * Test hooks (used by tests/test_runner.c and tests/test_shard.c): LOGT_TEST_DIE_AFTER_RUNS=N makes
 * the process _exit(137) once N runs have finished in it, like a kill -9;
 * LOGT_TEST_DIE_AFTER_STEPS=N the same after training step N;
 * LOGT_TEST_FAIL_AFTER_STEPS=N makes training step N fail (as a NaN would).
 */
#include "run.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/cuda.h"
#include "../core/rng.h"
#include "../datasets/dataset.h"
#include "../train/train.h"
#include "kernels.h"
#include "store.h"

#define FLUSH_STEPS 256
#define FLUSH_SECONDS 5.0
#define FINAL_LOSS_STEPS 10   /* final_loss: mean of the last this many steps */

/* ---- stopping on Ctrl-C --------------------------------------------------------------- */

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : 0;
}

/* ---- the device ------------------------------------------------------------------------ */

static void version3(char *buf, size_t n, long v, long major_div)
{
    snprintf(buf, n, "%ld.%ld.%ld", v / major_div, v % major_div / 100, v % 100);
}

void logt_describe_device(logt_device dev, logt_device_desc *d)
{
    memset(d, 0, sizeof *d);
    char cpu[256];
    logt_cpu_name(cpu, sizeof cpu);
    snprintf(d->device, sizeof d->device, "cpu: %s (%ld cores)", cpu, sysconf(_SC_NPROCESSORS_ONLN));
#ifdef LOGT_HAVE_CUDA
    logt_device_info info;
    if (dev == LOGT_CUDA && logt_cuda_info(&info) == LOGT_OK) {
        logt_strlcpy(d->device, sizeof d->device, info.name);
        snprintf(d->driver, sizeof d->driver, "%d.%d", info.driver_version / 1000,
                 info.driver_version % 1000 / 10);
        snprintf(d->runtime, sizeof d->runtime, "%d.%d", info.runtime_version / 1000,
                 info.runtime_version % 1000 / 10);
        /* cuDNN 9 counts major*10000, earlier major*1000; cuBLAS 12 major*10000 */
        version3(d->cudnn, sizeof d->cudnn, (long)info.cudnn_version,
                 info.cudnn_version >= 90000 ? 10000 : 1000);
        version3(d->cublas, sizeof d->cublas, info.cublas_version,
                 info.cublas_version >= 100000 ? 10000 : 1000);
        d->have_versions = 1;
    }
#else
    (void)dev;
    (void)version3;
#endif
}

void logt_default_out(const char *name, char *buf, size_t n) { snprintf(buf, n, "results/%s.h5", name); }

/* ---- shards ------------------------------------------------------------------------------ */

/* A whole number of at most 9 digits, nothing else (no sign, no blanks). */
static int parse_count(const char *s, size_t len, int *out)
{
    if (len == 0 || len > 9) return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = 10 * v + (s[i] - '0');
    }
    *out = v;
    return 0;
}

logt_status logt_shard_parse(const char *s, int *shard, int *nshards)
{
    const char *slash = strchr(s, '/');
    if (!slash || parse_count(s, (size_t)(slash - s), shard) != 0 ||
        parse_count(slash + 1, strlen(slash + 1), nshards) != 0)
        return LOGT_USER_FAIL(LOGT_EINVAL,
                              "--shard expects I/N, shard I of N counted from 0 (0/4, 1/4, 2/4 and "
                              "3/4 split a sweep in four), got '%s'", s);
    if (*nshards < 1)
        return LOGT_USER_FAIL(LOGT_EINVAL, "--shard %s: N is the number of shards, at least 1 (a "
                              "whole sweep is 0/1)", s);
    if (*shard >= *nshards)
        return LOGT_USER_FAIL(LOGT_EINVAL, "--shard %s: I must be less than N: shards are counted "
                              "from 0, so the %d shards are 0/%d to %d/%d", s, *nshards, *nshards,
                              *nshards - 1, *nshards);
    return LOGT_OK;
}

void logt_shard_path(const char *out, int shard, int nshards, char *buf, size_t n)
{
    size_t len = strlen(out);
    if (len > 3 && !strcmp(out + len - 3, ".h5")) len -= 3;
    snprintf(buf, n, "%.*s.shard-%d-of-%d.h5", (int)len, out, shard, nshards);
}

/* A shard file holds one shard of one sweep, so that its runs' sweep_index mean one
 * thing: an existing file takes runs only from the same shard of the same experiment
 * (experiment_ini, backend, number of runs), and a results file of a whole sweep only
 * from runs without --shard. A file that does not open, or holds another experiment, is
 * left for logt_store_open to refuse with its own message. */
static logt_status check_shard_file(const char *path, const logt_store_meta *m)
{
    logt_store *st;
    struct stat sb;
    if (stat(path, &sb) != 0 || logt_store_open_read(path, &st) != LOGT_OK) {
        logt_errclear();
        return LOGT_OK;
    }
    char name[LOGT_WORD] = "", backend[16] = "", la[200], lb[200];
    char *ini = NULL;
    int64_t i = 0, n = 0, runs = 0;
    int line = 0;
    logt_store_root_str(st, "experiment", name, sizeof name);
    const int shard = logt_store_root_has(st, "shard_count");
    logt_status s = LOGT_OK;
    if (shard) {
        s = logt_store_root_i64(st, "shard_index", &i);
        if (s == LOGT_OK) s = logt_store_root_i64(st, "shard_count", &n);
        if (s == LOGT_OK) s = logt_store_root_i64(st, "sweep_runs", &runs);
        if (s == LOGT_OK) s = logt_store_root_str(st, "backend", backend, sizeof backend);
        if (s == LOGT_OK) s = logt_store_root_text(st, "experiment_ini", &ini);
        if (s == LOGT_OK) line = logt_exp_text_diff(ini, m->experiment_ini, la, lb, sizeof la);
    }
    const long long mi = m->shard_index, mn = m->shard_count;
    if (s != LOGT_OK || strcmp(name, m->experiment)) {
        /* unreadable shard attributes: the message says which */
    } else if (shard && mn == 0) {
        s = LOGT_USER_FAIL(LOGT_EINVAL,
                           "%s is shard %lld/%lld of a sweep of '%s' (written by `logt run --shard`): "
                           "only that shard adds runs to it. HINT: run with --shard %lld/%lld, join "
                           "the shards with `logt merge`, or write the whole sweep elsewhere with "
                           "--out NEW.h5", path, (long long)i, (long long)n, name, (long long)i,
                           (long long)n);
    } else if (!shard && mn > 0) {
        s = LOGT_USER_FAIL(LOGT_EINVAL,
                           "%s holds results of a whole sweep, not a shard: --shard %lld/%lld writes "
                           "a file of its own. HINT: leave out --out (the shard's file is then "
                           "results/NAME.shard-I-of-N.h5) or pass --out NEW.h5", path, mi, mn);
    } else if (shard && (i != mi || n != mn)) {
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s holds shard %lld/%lld of '%s', not %lld/%lld. HINT: "
                           "write this shard elsewhere with --out NEW.h5", path, (long long)i,
                           (long long)n, name, mi, mn);
    } else if (shard && strcmp(backend, m->backend)) {
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s holds shard %lld/%lld of the sweep on %s, not on %s. "
                           "HINT: pass --backend %s, or write elsewhere with --out NEW.h5", path, mi,
                           mn, backend, m->backend, backend);
    } else if (shard && line) {
        s = LOGT_USER_FAIL(LOGT_EINVAL,
                           "%s holds shard %lld/%lld of another version of '%s': line %d of its "
                           "experiment_ini is '%s', here '%s', and a shard file holds one sweep. "
                           "HINT: run the experiment as it was for this file, or write elsewhere "
                           "with --out NEW.h5", path, mi, mn, name, line, la, lb);
    } else if (shard && runs != m->sweep_runs) {
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s holds shard %lld/%lld of a sweep of %lld runs, but the "
                           "same experiment makes %lld runs here (another logt build?). HINT: write "
                           "elsewhere with --out NEW.h5", path, mi, mn, (long long)runs,
                           (long long)m->sweep_runs);
    }
    free(ini);
    logt_store_close(st);
    return s;
}

/* ---- progress ---------------------------------------------------------------------------- */

typedef struct progress {
    int tty, total, index;
    double t0, cost_total, cost_done, last_print;
    char shard[48];          /* "shard I/N" when sharded, else ""                   */
} progress;

static void eta_text(const progress *p, double cost_now, char *buf, size_t n)
{
    char el[32], eta[32];
    double elapsed = logt_now() - p->t0;
    logt_fmt_duration(elapsed, el, sizeof el);
    if (cost_now > 0 && p->cost_total > cost_now) {
        logt_fmt_duration(elapsed * (p->cost_total - cost_now) / cost_now, eta, sizeof eta);
        snprintf(buf, n, "%s elapsed, ETA %s", el, eta);
    } else {
        snprintf(buf, n, "%s elapsed", el);
    }
}

/* tty: rewrite one line in place; otherwise print only when `final`. */
static void progress_line(progress *p, const logt_run_spec *r, const char *what, double cost_now,
                          int final)
{
    char eta[96];
    eta_text(p, cost_now, eta, sizeof eta);
    if (p->tty) {
        fprintf(stderr, "\r\033[K[%d/%d%s%s] %s  %s%s%s", p->index, p->total, *p->shard ? " of " : "",
                p->shard, r->label, what, *what ? "  " : "", eta);
        fflush(stderr);
    } else if (final) {
        fprintf(stderr, "[%d/%d%s%s] %s  %s%s%s\n", p->index, p->total, *p->shard ? " of " : "",
                p->shard, r->label, what, *what ? "  " : "", eta);
    }
    p->last_print = logt_now();
}

/* ---- statistics ---------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile with linear interpolation between order statistics. */
static double quantile(const double *v, int n, double q)
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

/* ---- speed runs ------------------------------------------------------------------------------ */

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

static void inputs_free(void)
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

/* A model's series of its last call (logt_model.trace), kept for the results file. */
typedef struct series {
    char name[32];
    int n;
    double v[1024];
} series;

static logt_status speed_run(logt_ctx *ctx, const logt_run_spec *r, double *ms, int64_t *peak,
                             char *impl, size_t nimpl, char *detail, size_t ndetail, series *tr)
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
    for (int i = 0; s == LOGT_OK && i < r->warmup + r->repeats; i++) {
        const int timed = i >= r->warmup;
        const logt_tensor *h;
        if (timed && r->head_start_us) s = logt_ctx_head_start(ctx, r->head_start_us);
        if (s == LOGT_OK && timed) s = logt_timer_begin(ctx);
        if (s == LOGT_OK) s = logt_net_forward(net, x, &h, ctx);
        if (s == LOGT_OK && fwdbwd) s = logt_net_backward(net, dh, &dx, ctx);
        if (s == LOGT_OK) s = timed ? logt_timer_end(ctx, &ms[i - r->warmup]) : logt_ctx_sync(ctx);
    }
    *peak = (int64_t)logt_mem_peak();
    if (net) logt_strlcpy(impl, nimpl, net->layer[0]->impl);
    if (net) logt_strlcpy(detail, ndetail, net->layer[0]->detail);
    if (net && net->layer[0]->ntrace > 0 && net->layer[0]->trace) {
        const logt_model *l = net->layer[0];
        tr->n = l->ntrace < (int)(sizeof tr->v / sizeof tr->v[0]) ? l->ntrace
                                                                  : (int)(sizeof tr->v / sizeof tr->v[0]);
        memcpy(tr->v, l->trace, (size_t)tr->n * sizeof tr->v[0]);
        logt_strlcpy(tr->name, sizeof tr->name, l->trace_name);
    }
    logt_tensor_free(&dx);
    logt_net_destroy(net);
    return s;
}

/* ---- kernel runs ------------------------------------------------------------------------------ */

/* Time r's kernel: ms[repeats] for the kernel, copy_ms[repeats] for a copy of one
 * [T][C] array right after each call; *bytes the kernel's minimum traffic. */
static logt_status kernel_run(logt_ctx *ctx, const logt_run_spec *r, double *ms, double *copy_ms,
                              double *bytes, int64_t *peak, char *impl, size_t nimpl)
{
    const logt_model_cfg *c = &r->cfg;
    const logt_kernel *k = logt_kernel_find(c->model);
    if (!k) {   /* the config checks the names: only a caller of run.c gets here */
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

/* ---- training runs ----------------------------------------------------------------------------- */

/* Results-file errors stop the sweep; everything else fails only the run. */
#define STORE(call)                     \
    do {                                \
        logt_status st_s_ = (call);     \
        if (st_s_ != LOGT_OK) {         \
            *fatal = 1;                 \
            s = st_s_;                  \
            goto done;                  \
        }                               \
    } while (0)

static logt_tensor host_view(double *p, int64_t n)
{
    logt_tensor t;
    memset(&t, 0, sizeof t);
    t.data = p;
    t.dtype = LOGT_F64;
    t.device = LOGT_CPU;
    t.ndim = 1;
    t.shape[0] = t.numel = n;
    return t;
}

typedef struct ckpt_part {
    const char *name;
    logt_tensor *t;
} ckpt_part;

static int ckpt_parts(logt_trainer *tr, ckpt_part *p)
{
    p[0] = (ckpt_part){"w", &tr->net->w};
    p[1] = (ckpt_part){"ro_w", &tr->ro.w};
    p[2] = (ckpt_part){"adam_net_m", &tr->adam_net.m};
    p[3] = (ckpt_part){"adam_net_v", &tr->adam_net.v};
    p[4] = (ckpt_part){"adam_ro_m", &tr->adam_ro.m};
    p[5] = (ckpt_part){"adam_ro_v", &tr->adam_ro.v};
    return 6;
}

/* newton_iterations: the first layer's solver iterations in the step's forward (its trace's
 * length − 1: deer, sru route = newton), NaN for a model without a solver */
#define NSTEP_SETS 4
static const char *const step_sets[NSTEP_SETS] = {"loss", "grad_norm", "wall_s", "newton_iterations"};
#define NEVAL_SETS 5   /* eval_bpc only for a task that reports bits per character */
static const char *const eval_sets[NEVAL_SETS] = {"eval_step", "eval_loss", "eval_acc", "eval_wall_s",
                                                  "eval_bpc"};

static logt_status ckpt_save(logt_store *st, int64_t id, logt_trainer *tr, double wall,
                             int64_t neval, int stage, int *fatal)
{
    logt_status s = LOGT_OK;
    ckpt_part parts[8];
    int np = ckpt_parts(tr, parts);
    int64_t latest = -1;
    double *host = NULL;
    if (logt_store_has(st, id, "checkpoint", "latest"))
        STORE(logt_store_get_i64(st, id, "checkpoint", "latest", &latest));
    const int slot = latest == 0 ? 1 : 0;
    char obj[64], path[96];
    snprintf(obj, sizeof obj, "checkpoint/%d", slot);
    for (int i = 0; i < np; i++) {
        double *grown = realloc(host, (size_t)(parts[i].t->numel + 1) * sizeof *host);
        if (!grown) {
            s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory for a checkpoint");
            goto done;
        }
        host = grown;
        if ((s = logt_tensor_to_f64(parts[i].t, host)) != LOGT_OK) goto done;
        snprintf(path, sizeof path, "%s/%s", obj, parts[i].name);
        STORE(logt_store_write(st, id, path, host, parts[i].t->numel));
    }
    STORE(logt_store_set_i64(st, id, obj, "step", tr->step));
    STORE(logt_store_set_i64(st, id, obj, "adam_net_t", tr->adam_net.t));
    STORE(logt_store_set_i64(st, id, obj, "adam_ro_t", tr->adam_ro.t));
    STORE(logt_store_set_i64(st, id, obj, "n_eval", neval));
    STORE(logt_store_set_f64(st, id, obj, "wall_s", wall));
    STORE(logt_store_set_i64(st, id, obj, "stage", stage));
    STORE(logt_store_flush(st));
    STORE(logt_store_set_i64(st, id, "checkpoint", "latest", slot));
    STORE(logt_store_flush(st));
done:
    free(host);
    return s;
}

/* Restore the latest checkpoint into tr; *wall and *neval from it. */
static logt_status ckpt_load(logt_store *st, int64_t id, logt_trainer *tr, double *wall,
                             int64_t *neval, int *fatal)
{
    logt_status s = LOGT_OK;
    ckpt_part parts[8];
    int np = ckpt_parts(tr, parts);
    int64_t latest, step, t_net, t_ro;
    double *host = NULL;
    STORE(logt_store_get_i64(st, id, "checkpoint", "latest", &latest));
    char obj[64], path[96];
    snprintf(obj, sizeof obj, "checkpoint/%d", (int)latest);
    STORE(logt_store_get_i64(st, id, obj, "step", &step));
    STORE(logt_store_get_i64(st, id, obj, "adam_net_t", &t_net));
    STORE(logt_store_get_i64(st, id, obj, "adam_ro_t", &t_ro));
    STORE(logt_store_get_i64(st, id, obj, "n_eval", neval));
    STORE(logt_store_get_f64(st, id, obj, "wall_s", wall));
    for (int i = 0; i < np; i++) {
        int64_t n;
        free(host);
        snprintf(path, sizeof path, "%s/%s", obj, parts[i].name);
        STORE(logt_store_read(st, id, path, &host, &n));
        if (n != parts[i].t->numel) {
            s = LOGT_FAIL(LOGT_EINVAL, "the checkpoint's %s has %lld values but the model has %lld",
                          parts[i].name, (long long)n, (long long)parts[i].t->numel);
            goto done;
        }
        logt_tensor src = host_view(host, n);
        if ((s = logt_tensor_copy(parts[i].t, &src)) != LOGT_OK) goto done;
    }
    tr->step = step;
    tr->adam_net.t = t_net;
    tr->adam_ro.t = t_ro;
done:
    free(host);
    return s;
}

/* The stage of a curriculum run (r->curriculum: shorter lengths trained first, each until it
 * solves) that the latest checkpoint is in; 0 for every other run. */
static logt_status ckpt_stage(logt_store *st, int64_t id, int *stage, int *fatal)
{
    logt_status s = LOGT_OK;
    int64_t latest, k = 0;
    char obj[64];
    STORE(logt_store_get_i64(st, id, "checkpoint", "latest", &latest));
    snprintf(obj, sizeof obj, "checkpoint/%d", (int)latest);
    if (logt_store_has(st, id, obj, "stage")) STORE(logt_store_get_i64(st, id, obj, "stage", &k));
done:
    *stage = (int)k;
    return s;
}

/* One length of a training run: its dataset, a net and the net's trainer. A run without a
 * curriculum has one; a curriculum run makes one per stage in turn, each loading the
 * checkpoint the one before saved as it ended (the nets' buffers are sized by T, their
 * weights not): a stage starts as a resumed run would. */
typedef struct stage {
    logt_dataset ds;
    logt_net *net;
    logt_trainer *tr;
} stage;

static void stage_close(stage *g)
{
    logt_trainer_destroy(g->tr);
    logt_net_destroy(g->net);
    logt_dataset_close(&g->ds);
    memset(g, 0, sizeof *g);
}

static logt_status stage_open(logt_ctx *ctx, const logt_run_spec *r, int T, stage *g)
{
    memset(g, 0, sizeof *g);
    logt_status s = logt_dataset_open(r->task, T, r->cfg.seed, &g->ds);
    logt_model_cfg cfg = r->cfg;
    cfg.input_size = g->ds.input_size;
    if (s == LOGT_OK) s = logt_net_create(&cfg, &g->net);
    logt_train_cfg tc = {.batch = r->B, .lr = r->lr, .clip = r->clip};
    if (s == LOGT_OK) s = logt_trainer_create(g->net, &g->ds, &tc, ctx, &g->tr);
    if (s == LOGT_OK) g->tr->device_readout = r->gpu_readout;
    if (s != LOGT_OK) stage_close(g);
    return s;
}

/* The length of stage k of r: its curriculum's, then (k = ncurriculum) the run's own. */
static int stage_T(const logt_run_spec *r, int k) { return k < r->ncurriculum ? r->curriculum[k] : r->T; }

typedef struct train_result {
    double final_loss, final_eval_loss, final_eval_acc, final_eval_bpc, test_loss, test_acc;
    double solve_s;          /* solve_acc: the training time at the evaluation that reached it */
    int64_t solve_step;      /* and its step; -1 not solved (or solve_acc off)               */
    int64_t budget_step;     /* max_train_s: the step at which the budget stopped it; -1 not */
    int64_t input_size, peak;
    char impl[160];
    int interrupted, resumed_at;
    int stopped_short;       /* a curriculum run that ended before its own T: the length it was at */
} train_result;

static logt_status flush_steps(logt_store *st, int64_t id, double *buf[NSTEP_SETS], int *nbuf)
{
    for (int k = 0; k < NSTEP_SETS; k++) LOGT_TRY(logt_store_append(st, id, step_sets[k], buf[k], *nbuf));
    *nbuf = 0;
    return logt_store_flush(st);
}

/* max_train_s: a run stops once its training time (its wall_s, resumes included) reaches it */
static int over_budget(const logt_run_spec *r, double wall)
{
    return r->max_train_s > 0 && wall >= r->max_train_s;
}

static logt_status train_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                             int resume, progress *pr, train_result *res, int *fatal)
{
    logt_status s = LOGT_OK;
    stage g;
    double *buf[NSTEP_SETS] = {NULL};
    int nbuf = 0;
    double *v = NULL;
    const int die_at = env_int("LOGT_TEST_DIE_AFTER_STEPS");
    const int fail_at = env_int("LOGT_TEST_FAIL_AFTER_STEPS");
    const int nstage = r->ncurriculum;   /* stages before the run's own T */
    logt_mem_reset_peak();
    memset(&g, 0, sizeof g);   /* closed at done whatever happens */

    double wall = 0;
    int64_t neval = 0;
    int64_t latest = -1;   /* -1: a run started afresh and killed before its first checkpoint */
    int k = 0;             /* the stage: the run trains at stage_T(r, k) */
    if (logt_store_has(st, id, "checkpoint", "latest"))
        STORE(logt_store_get_i64(st, id, "checkpoint", "latest", &latest));
    if (resume && latest >= 0) {
        if ((s = ckpt_stage(st, id, &k, fatal)) != LOGT_OK) goto done;
        if (k > nstage) {
            s = LOGT_FAIL(LOGT_EINVAL, "the checkpoint is at curriculum stage %d, but this run has %d "
                          "stages before its T = %d", k, nstage, r->T);
            goto done;
        }
    }
    if ((s = stage_open(ctx, r, stage_T(r, k), &g)) != LOGT_OK) goto done;
    if (nstage && g.ds.loss != LOGT_LOSS_XENT) {
        s = LOGT_FAIL(LOGT_EINVAL, "[train] curriculum: a stage ends when its validation accuracy reaches "
                      "solve_acc, and task '%s' has no accuracy (a regression, MSE): use a classification "
                      "task of any length (2b, selcopy, parity, modsum, charlm) or no curriculum", r->task);
        goto done;
    }
    res->input_size = g.ds.input_size;
    STORE(logt_store_set_i64(st, id, "", "input_size", g.ds.input_size));
    STORE(logt_store_set_i64(st, id, "", "parameters", g.net->w.numel + g.tr->ro.w.numel));
    if (resume && latest >= 0) {
        if ((s = ckpt_load(st, id, g.tr, &wall, &neval, fatal)) != LOGT_OK) goto done;
        res->resumed_at = (int)g.tr->step;
    }
    if (!resume && logt_store_has(st, id, "checkpoint", "latest"))
        STORE(logt_store_set_i64(st, id, "checkpoint", "latest", -1));   /* start afresh */
    for (int j = 0; j < NSTEP_SETS; j++) STORE(logt_store_truncate(st, id, step_sets[j], g.tr->step));
    for (int j = 0; j < NEVAL_SETS; j++) STORE(logt_store_truncate(st, id, eval_sets[j], neval));
    if (nstage) STORE(logt_store_truncate(st, id, "eval_T", neval));
    STORE(logt_store_flush(st));

    for (int j = 0; j < NSTEP_SETS; j++)
        if (!(buf[j] = malloc(FLUSH_STEPS * sizeof(double)))) {
            s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
            goto done;
        }
    double last_flush = logt_now(), loss = NAN;
    char what[160];
    /* solve_acc: a run stops at the first evaluation that reaches it (also one resumed after
     * reaching it: its evaluations so far are in the file); a curriculum run, at the first one
     * at its own T (eval_T says where each was) */
    res->solve_step = -1, res->solve_s = NAN;
    if (r->solve_acc > 0 && neval > 0) {
        double *acc = NULL, *at = NULL, *when = NULL, *evT = NULL;
        int64_t na, nt, nw, nT = 0;
        STORE(logt_store_read(st, id, "eval_acc", &acc, &na));
        s = logt_store_read(st, id, "eval_step", &at, &nt);
        if (s == LOGT_OK) s = logt_store_read(st, id, "eval_wall_s", &when, &nw);
        if (s == LOGT_OK && nstage) s = logt_store_read(st, id, "eval_T", &evT, &nT);
        for (int64_t j = 0; s == LOGT_OK && res->solve_step < 0 && j < na && j < nt && j < nw; j++)
            if (acc[j] >= r->solve_acc && (!nstage || (j < nT && evT[j] == r->T)))
                res->solve_step = (int64_t)at[j], res->solve_s = when[j];
        free(acc), free(at), free(when), free(evT);
        if (s != LOGT_OK) {
            *fatal = 1;
            goto done;
        }
    }
    res->budget_step = -1;
    while (g.tr->step < r->steps && res->solve_step < 0 && !over_budget(r, wall)) {
        if (stop_requested) {
            res->interrupted = 1;
            break;
        }
        double gn, t0 = logt_now();
        s = logt_trainer_step(g.tr, &loss, &gn);
        if (s == LOGT_OK && fail_at > 0 && g.tr->step == fail_at)
            s = LOGT_FAIL(LOGT_ENUMERIC, "step %d failed: injected by LOGT_TEST_FAIL_AFTER_STEPS",
                          fail_at);
        if (s != LOGT_OK) {
            char msg[2048];   /* keep the losses so far, and the run's error message */
            logt_strlcpy(msg, sizeof msg, logt_errmsg());
            STORE(flush_steps(st, id, buf, &nbuf));
            logt_fail_at(s, "", 0, "%s", msg);
            goto done;
        }
        wall += logt_now() - t0;
        const int ntrace = g.net->layer[0]->ntrace;
        buf[0][nbuf] = loss, buf[1][nbuf] = gn, buf[2][nbuf] = wall;
        buf[3][nbuf] = ntrace > 0 ? ntrace - 1 : NAN;
        nbuf++;
        const int64_t step = g.tr->step;
        /* evaluated (and checkpointed) also where the budget stops it: its last point is known */
        const int eval_now = step % r->eval_every == 0 || step == r->steps || over_budget(r, wall);
        if (eval_now || nbuf == FLUSH_STEPS || logt_now() - last_flush > FLUSH_SECONDS) {
            STORE(flush_steps(st, id, buf, &nbuf));
            last_flush = logt_now();
        }
        double cost_now = pr->cost_done + r->cost * (double)step / r->steps;
        if (eval_now) {
            double el, ea, ev_step = (double)step, ev_T = stage_T(r, k);
            if ((s = logt_trainer_eval(g.tr, LOGT_SPLIT_VALID, r->eval_batches, &el, &ea)) != LOGT_OK)
                goto done;
            STORE(logt_store_append(st, id, "eval_step", &ev_step, 1));
            STORE(logt_store_append(st, id, "eval_loss", &el, 1));
            STORE(logt_store_append(st, id, "eval_acc", &ea, 1));
            STORE(logt_store_append(st, id, "eval_wall_s", &wall, 1));
            if (nstage) STORE(logt_store_append(st, id, "eval_T", &ev_T, 1));
            const double bpc = el / log(2.0);
            if (g.ds.report_bpc) STORE(logt_store_append(st, id, "eval_bpc", &bpc, 1));
            neval++;
            /* a stage solved: its checkpoint already belongs to the next length, so that a run
             * killed or failing from here on resumes there; the next length starts from it now,
             * unless the run ends with this evaluation (a continued run takes it up) */
            const int stage_solved = k < nstage && ea >= r->solve_acc;
            if (r->solve_acc > 0 && res->solve_step < 0 && k == nstage && ea >= r->solve_acc)
                res->solve_step = step, res->solve_s = wall;
            if ((s = ckpt_save(st, id, g.tr, wall, neval, k + stage_solved, fatal)) != LOGT_OK) goto done;
            char staged[64] = "";
            if (stage_solved && step < r->steps && !over_budget(r, wall)) {
                stage_close(&g);
                if ((s = stage_open(ctx, r, stage_T(r, k + 1), &g)) != LOGT_OK) goto done;
                if ((s = ckpt_load(st, id, g.tr, &wall, &neval, fatal)) != LOGT_OK) goto done;
                k++;
                snprintf(staged, sizeof staged, "  (T = %d solved: now T = %d)", (int)ev_T, stage_T(r, k));
            } else if (stage_solved) {
                snprintf(staged, sizeof staged, "  (T = %d solved: T = %d when continued)", (int)ev_T,
                         stage_T(r, k + 1));
            }
            if (g.ds.report_bpc) snprintf(what, sizeof what, "step %lld/%d  loss %.4g  valid %.4g bpc",
                                          (long long)step, r->steps, loss, bpc);
            else if (isnan(ea)) snprintf(what, sizeof what, "step %lld/%d  loss %.4g  valid %.4g",
                                         (long long)step, r->steps, loss, el);
            else snprintf(what, sizeof what, "step %lld/%d  loss %.4g  valid %.4g acc %.3f%s",
                          (long long)step, r->steps, loss, el, ea, staged);
            if (!pr->tty && step < r->steps)
                fprintf(stderr, "        %s%s%s%s\n", what, *pr->shard ? "  (" : "", pr->shard,
                        *pr->shard ? ")" : "");
            else if (pr->tty) progress_line(pr, r, what, cost_now, 0);
        } else if (pr->tty && logt_now() - pr->last_print > 0.5) {
            snprintf(what, sizeof what, "step %lld/%d  loss %.4g", (long long)step, r->steps, loss);
            progress_line(pr, r, what, cost_now, 0);
        }
        if (die_at > 0 && step == die_at) _exit(137);
    }
    if (nbuf) STORE(flush_steps(st, id, buf, &nbuf));
    if (!res->interrupted && g.tr->step < r->steps && res->solve_step < 0 && over_budget(r, wall))
        res->budget_step = g.tr->step;
    /* finished: the test split, at the run's own T (a curriculum run that stopped short of it
     * has no test and no final values: they would be a shorter length's, in a row saying T) */
    if (k < nstage) res->stopped_short = stage_T(r, k);
    if (!res->interrupted && !res->stopped_short &&
        (g.tr->step >= r->steps || res->solve_step >= 0 || res->budget_step >= 0) &&
        (s = logt_trainer_eval(g.tr, LOGT_SPLIT_TEST, r->test_batches, &res->test_loss, &res->test_acc)) != LOGT_OK)
        goto done;
    if (nstage && !res->interrupted) STORE(logt_store_set_i64(st, id, "", "curriculum_T", stage_T(r, k)));
    res->peak = (int64_t)logt_mem_peak();
    logt_strlcpy(res->impl, sizeof res->impl, g.net->layer[0]->impl);

    /* final values, over the whole run (earlier sessions included) */
    int64_t n;
    STORE(logt_store_read(st, id, "loss", &v, &n));
    double sum = 0;
    int64_t from = n > FINAL_LOSS_STEPS ? n - FINAL_LOSS_STEPS : 0;
    for (int64_t i = from; i < n; i++) sum += v[i];
    res->final_loss = n > from ? sum / (double)(n - from) : NAN;
    free(v), v = NULL;
    STORE(logt_store_read(st, id, "eval_loss", &v, &n));
    res->final_eval_loss = n && !res->stopped_short ? v[n - 1] : NAN;
    free(v), v = NULL;
    STORE(logt_store_read(st, id, "eval_acc", &v, &n));
    res->final_eval_acc = n && !res->stopped_short ? v[n - 1] : NAN;
    if (g.ds.report_bpc && n && !res->stopped_short) {
        res->final_eval_bpc = res->final_eval_loss / log(2.0);
        STORE(logt_store_set_f64(st, id, "", "final_eval_bpc", res->final_eval_bpc));
    }
done:
    free(v);
    for (int j = 0; j < NSTEP_SETS; j++) free(buf[j]);
    stage_close(&g);
    return s;
}

/* ---- the sweep ------------------------------------------------------------------------------------ */

static void row_init(logt_summary_row *row, const logt_run_spec *r, int64_t id)
{
    memset(row, 0, sizeof *row);
    row->run = id;
    logt_strlcpy(row->kind, sizeof row->kind, logt_kind_names[r->kind]);
    logt_strlcpy(row->model, sizeof row->model, r->cfg.model);
    logt_strlcpy(row->backend, sizeof row->backend, logt_device_name(r->cfg.device));
    logt_strlcpy(row->pass, sizeof row->pass, r->pass);
    logt_strlcpy(row->dtype, sizeof row->dtype, logt_dtype_name(r->cfg.dtype));
    logt_strlcpy(row->cell, sizeof row->cell, r->cfg.cell);
    logt_strlcpy(row->task, sizeof row->task, r->task);
    logt_strlcpy(row->knobs, sizeof row->knobs, r->knobs);
    row->T = r->T;
    row->B = r->B;
    row->D = r->cfg.hidden_size;
    row->input_size = r->cfg.input_size;
    row->head_dim = r->cfg.head_dim;
    row->layers = r->cfg.layers;
    row->seed = r->cfg.seed;
    row->median_ms = row->p10_ms = row->p90_ms = row->tokens_per_s = NAN;
    row->final_loss = row->final_eval_loss = row->final_eval_acc = NAN;
    row->bytes = row->gbps = row->copy_gbps = row->pct_of_copy = row->iterations = NAN;
    row->test_loss = row->test_acc = row->solve_s = NAN;
}

/* The attributes a run group carries from its start; in a shard file also sweep_index,
 * the run's place in the whole sweep (-1: not a shard). */
static logt_status run_attrs(logt_store *st, int64_t id, const logt_run_spec *r, int64_t sweep_index,
                             const logt_device_desc *dd, const char *commit, const char *host)
{
    char now[64];
    logt_iso8601(now, sizeof now);
    const logt_model_cfg *c = &r->cfg;
    const char *strs[][2] = {
        {"kind", logt_kind_names[r->kind]},
        {"model", c->model},
        {"backend", logt_device_name(c->device)},
        {"cell", c->cell},
        {"dtype", logt_dtype_name(c->dtype)},
        {"pass", r->pass},
        {"knobs", r->knobs},
        {"label", r->label},
        {"started", now},
        {"host", host},
        {"device", dd->device},
        {"git_commit", commit},
        {"logt_version", LOGT_VERSION},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        LOGT_TRY(logt_store_set_str(st, id, "", strs[i][0], strs[i][1]));
    const struct { const char *name; int64_t v; } ints[] = {
        {"T", r->T}, {"B", r->B}, {"D", c->hidden_size}, {"input_size", c->input_size},
        {"head_dim", c->head_dim}, {"layers", c->layers}, {"seed", (int64_t)c->seed},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        LOGT_TRY(logt_store_set_i64(st, id, "", ints[i].name, ints[i].v));
    if (r->kind == LOGT_KIND_SPEED || r->kind == LOGT_KIND_KERNEL) {
        LOGT_TRY(logt_store_set_i64(st, id, "", "warmup", r->warmup));
        LOGT_TRY(logt_store_set_i64(st, id, "", "repeats", r->repeats));
    }
    if (r->kind == LOGT_KIND_SPEED) LOGT_TRY(logt_store_set_i64(st, id, "", "head_start_us", r->head_start_us));
    if (r->kind == LOGT_KIND_KERNEL) {
        LOGT_TRY(logt_store_set_i64(st, id, "", "C", (int64_t)r->B * c->hidden_size));
    } else if (r->kind == LOGT_KIND_TRAIN) {
        LOGT_TRY(logt_store_set_str(st, id, "", "task", r->task));
        LOGT_TRY(logt_store_set_i64(st, id, "", "steps", r->steps));
        LOGT_TRY(logt_store_set_i64(st, id, "", "eval_every", r->eval_every));
        LOGT_TRY(logt_store_set_i64(st, id, "", "eval_batches", r->eval_batches));
        LOGT_TRY(logt_store_set_i64(st, id, "", "test_batches", r->test_batches));
        LOGT_TRY(logt_store_set_f64(st, id, "", "lr", r->lr));
        LOGT_TRY(logt_store_set_f64(st, id, "", "clip", r->clip));
    }
    if (sweep_index >= 0) LOGT_TRY(logt_store_set_i64(st, id, "", "sweep_index", sweep_index));
    return logt_store_flush(st);
}

/* Run one point; returns a fatal (results file) error, else OK with the row filled. */
static logt_status one_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                           int resume, progress *pr, logt_summary_row *row, char *err, size_t nerr,
                           int *interrupted)
{
    logt_status s = LOGT_OK;
    int fatal = 0;
    char what[160] = "", detail[sizeof ((logt_model *)0)->detail] = "";
    int budget_stopped = 0;
    row_init(row, r, id);
    err[0] = '\0';
    if (r->kind == LOGT_KIND_SPEED) {
        double *ms = calloc((size_t)r->repeats, sizeof *ms);
        if (!ms) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        series *tr = calloc(1, sizeof *tr);
        if (!tr) {
            free(ms);
            return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        }
        s = speed_run(ctx, r, ms, &row->peak_mem_bytes, row->impl, sizeof row->impl, detail,
                      sizeof detail, tr);
        if (s == LOGT_OK) {
            row->median_ms = quantile(ms, r->repeats, 0.5);
            row->p10_ms = quantile(ms, r->repeats, 0.1);
            row->p90_ms = quantile(ms, r->repeats, 0.9);
            row->tokens_per_s = (double)r->T * r->B / (row->median_ms * 1e-3);
            snprintf(what, sizeof what, "median %.4g ms (p10 %.4g, p90 %.4g)", row->median_ms,
                     row->p10_ms, row->p90_ms);
            logt_status w = logt_store_write(st, id, "time_ms", ms, r->repeats);
            if (w == LOGT_OK && tr->n > 0 && tr->name[0]) w = logt_store_write(st, id, tr->name, tr->v, tr->n);
            if (tr->n > 0) row->iterations = tr->n - 1;
            if (w != LOGT_OK) fatal = 1, s = w;
        }
        free(ms), free(tr);
    } else if (r->kind == LOGT_KIND_KERNEL) {
        double *ms = calloc(2 * (size_t)r->repeats, sizeof *ms), bytes = 0;
        if (!ms) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        double *copy_ms = ms + r->repeats;
        s = kernel_run(ctx, r, ms, copy_ms, &bytes, &row->peak_mem_bytes, row->impl, sizeof row->impl);
        if (s == LOGT_OK) {
            /* GB/s = bytes / (ms * 1e-3) / 1e9; the copy reads N bytes and writes N */
            const double n = (double)r->T * r->B * r->cfg.hidden_size * logt_dtype_size(r->cfg.dtype);
            const double copy_median = quantile(copy_ms, r->repeats, 0.5);
            row->median_ms = quantile(ms, r->repeats, 0.5);
            row->p10_ms = quantile(ms, r->repeats, 0.1);
            row->p90_ms = quantile(ms, r->repeats, 0.9);
            row->bytes = bytes;
            row->gbps = row->median_ms > 0 ? bytes / row->median_ms * 1e-6 : NAN;
            row->copy_gbps = copy_median > 0 ? 2 * n / copy_median * 1e-6 : NAN;
            row->pct_of_copy = 100 * row->gbps / row->copy_gbps;
            snprintf(what, sizeof what, "median %.4g ms, %.4g GB/s = %.1f%% of copy (%.4g GB/s)",
                     row->median_ms, row->gbps, row->pct_of_copy, row->copy_gbps);
            logt_status w = logt_store_write(st, id, "time_ms", ms, r->repeats);
            if (w == LOGT_OK) w = logt_store_write(st, id, "copy_ms", copy_ms, r->repeats);
            if (w == LOGT_OK) w = logt_store_set_f64(st, id, "", "copy_median_ms", copy_median);
            if (w != LOGT_OK) fatal = 1, s = w;
        }
        free(ms);
    } else {
        inputs_free();   /* the training run's peak memory is its own */
        train_result tr = {.final_loss = NAN, .final_eval_bpc = NAN, .test_loss = NAN, .test_acc = NAN,
                           .solve_s = NAN, .solve_step = -1, .budget_step = -1};
        s = train_run(ctx, r, st, id, resume, pr, &tr, &fatal);
        row->peak_mem_bytes = tr.peak;
        row->input_size = tr.input_size ? tr.input_size : row->input_size;
        logt_strlcpy(row->impl, sizeof row->impl, tr.impl);
        row->final_loss = tr.final_loss;
        row->final_eval_loss = tr.final_eval_loss;
        row->final_eval_acc = tr.final_eval_acc;
        row->test_loss = tr.test_loss;
        row->test_acc = tr.test_acc;
        row->solve_s = tr.solve_s;
        if (r->solve_acc > 0 && !tr.interrupted)
            LOGT_TRY(logt_store_set_i64(st, id, "", "solve_step", tr.solve_step));
        /* the budget, and where it stopped the run (-1: it did not); written also when a run
         * stopped by an earlier budget is continued without one */
        if (!tr.interrupted && (r->max_train_s > 0 || logt_store_has(st, id, "", "budget_stop_step"))) {
            LOGT_TRY(logt_store_set_f64(st, id, "", "max_train_s", r->max_train_s));
            LOGT_TRY(logt_store_set_i64(st, id, "", "budget_stop_step", tr.budget_step));
        }
        budget_stopped = tr.budget_step >= 0;
        if (tr.interrupted) {
            *interrupted = 1;
            return LOGT_OK;
        }
        if (s == LOGT_OK && !isnan(tr.final_eval_bpc))
            snprintf(what, sizeof what, "loss %.4g  valid %.4g bpc  test %.4g bpc%s", row->final_loss,
                     tr.final_eval_bpc, row->test_loss / log(2.0), tr.resumed_at ? "  (resumed)" : "");
        else if (s == LOGT_OK)
            snprintf(what, sizeof what, "loss %.4g  valid %.4g  test %.4g%s", row->final_loss,
                     row->final_eval_loss, row->test_loss, tr.resumed_at ? "  (resumed)" : "");
        if (s == LOGT_OK && tr.solve_step >= 0) {
            const size_t len = strlen(what);
            snprintf(what + len, sizeof what - len, "  solved at step %lld (%.3g s)", (long long)tr.solve_step,
                     tr.solve_s);
        }
        if (s == LOGT_OK && tr.budget_step >= 0) {
            const size_t len = strlen(what);
            snprintf(what + len, sizeof what - len, "  stopped by max_train_s = %g s at step %lld",
                     r->max_train_s, (long long)tr.budget_step);
        }
        if (s == LOGT_OK && tr.stopped_short) {
            const size_t len = strlen(what);
            snprintf(what + len, sizeof what - len, "  (curriculum at T = %d: no test)", tr.stopped_short);
        }
    }
    if (fatal) return s;
    logt_strlcpy(row->status, sizeof row->status, s == LOGT_OK ? "ok" : "failed");
    if (s != LOGT_OK) logt_strlcpy(err, nerr, logt_user_msg());
    const struct { const char *name; double v; } vals[] = {
        {"median_ms", row->median_ms}, {"p10_ms", row->p10_ms}, {"p90_ms", row->p90_ms},
        {"tokens_per_s", row->tokens_per_s}, {"final_loss", row->final_loss},
        {"final_eval_loss", row->final_eval_loss}, {"final_eval_acc", row->final_eval_acc},
        {"bytes", row->bytes}, {"gbps", row->gbps}, {"copy_gbps", row->copy_gbps},
        {"pct_of_copy", row->pct_of_copy}, {"iterations", row->iterations},
        {"test_loss", row->test_loss}, {"test_acc", row->test_acc}, {"solve_s", row->solve_s},
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        if (!isnan(vals[i].v)) LOGT_TRY(logt_store_set_f64(st, id, "", vals[i].name, vals[i].v));
    LOGT_TRY(logt_store_set_i64(st, id, "", "peak_mem_bytes", row->peak_mem_bytes));
    LOGT_TRY(logt_store_set_str(st, id, "", "impl", row->impl));
    if (detail[0]) LOGT_TRY(logt_store_set_str(st, id, "", "detail", detail));
    /* a training run finished ok is not resumed (unless its time budget stopped it: a larger
     * budget continues it, when keep_checkpoint is on): its checkpoint, weights and Adam's
     * moments twice, would only make the file several times larger than its results. Removed
     * before the status is written and flushed, so that both last; the file gets the space
     * back when the sweep ends (logt_store_compact). */
    if (r->kind == LOGT_KIND_TRAIN && s == LOGT_OK && (!budget_stopped || !r->keep_checkpoint))
        LOGT_TRY(logt_store_remove(st, id, "checkpoint"));
    LOGT_TRY(logt_store_run_finish(st, row, err));
    pr->cost_done += r->cost;
    if (s == LOGT_OK) {
        progress_line(pr, r, what, pr->cost_done, 1);
    } else {
        if (pr->tty) fprintf(stderr, "\r\033[K");
        fprintf(stderr, "[%d/%d%s%s] %s  FAILED: %s\n", pr->index, pr->total,
                *pr->shard ? " of " : "", pr->shard, r->label, err);
    }
    return LOGT_OK;
}

/* A training run finished ok because its time budget stopped it, checkpoint kept, continues
 * under a larger budget or none (max_train_s is not part of the key): time-limited sessions
 * can train one run in turns. */
static int extendable(logt_store *st, int64_t id, const logt_run_spec *r)
{
    int64_t at;
    double was;
    if (r->kind != LOGT_KIND_TRAIN || id < 0 || !logt_store_has(st, id, "", "budget_stop_step") ||
        !logt_store_has(st, id, "checkpoint", "latest"))
        return 0;
    if (logt_store_get_i64(st, id, "", "budget_stop_step", &at) != LOGT_OK || at < 0 ||
        logt_store_get_f64(st, id, "", "max_train_s", &was) != LOGT_OK)
        return 0;
    return r->max_train_s <= 0 || r->max_train_s > was;
}

/* HDF5 does not give back the space of deleted objects: a sweep that removed checkpoints
 * (weights and Adam's moments, often most of a training file) rewrites the file without them.
 * A failure leaves the file as it was, whole, and is only a warning. */
static void compact(const char *path, int removed)
{
    int64_t before, after;
    char b[32], a[32];
    if (logt_store_compact(path, &before, &after) != LOGT_OK) {
        fprintf(stderr, "logt: warning: %s keeps the space of %d removed checkpoint%s: %s "
                "(h5repack gives it back)\n", path, removed, removed == 1 ? "" : "s", logt_errmsg());
        return;
    }
    logt_fmt_bytes((double)before, b, sizeof b);
    logt_fmt_bytes((double)after, a, sizeof a);
    fprintf(stderr, "logt: %s compacted, %s -> %s (the space of %d removed checkpoint%s)\n", path, b, a,
            removed, removed == 1 ? "" : "s");
}

logt_status logt_run_experiment(const logt_experiment *e, logt_ctx *ctx, const logt_run_opts *opts,
                                logt_run_report *rep)
{
    memset(rep, 0, sizeof *rep);
    logt_run_spec *runs = NULL;
    int nruns = 0;
    LOGT_TRY(logt_exp_runs(e, &runs, &nruns));
    rep->sweep_total = nruns;
    /* a shard keeps runs k = shard, shard + nshards, ...: place[j] is run j's k */
    const int sharded = opts->nshards > 0;
    int *place = malloc((size_t)(nruns > 0 ? nruns : 1) * sizeof *place);
    if (!place) {
        free(runs);
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    int kept = 0;
    for (int k = 0; k < nruns; k++)
        if (!sharded || k % opts->nshards == opts->shard) {
            runs[kept] = runs[k];
            place[kept++] = k;
        }
    nruns = kept;
    rep->total = nruns;
    if (opts->out) logt_strlcpy(rep->out, sizeof rep->out, opts->out);
    else logt_default_out(e->name, rep->out, sizeof rep->out);
    if (sharded && !opts->out) {
        char whole[sizeof rep->out];
        logt_strlcpy(whole, sizeof whole, rep->out);
        logt_shard_path(whole, opts->shard, opts->nshards, rep->out, sizeof rep->out);
    }

    char commit[128], host[256];
    logt_git_commit(commit, sizeof commit);
    logt_hostname(host, sizeof host);
    logt_device_desc dd;
    logt_describe_device(ctx->device, &dd);
    char *text = logt_exp_text(e);
    logt_store_meta meta = {
        .experiment = e->name, .experiment_ini = text, .backend = e->backend,
        .git_commit = commit, .host = host, .device = dd.device,
        .driver_version = dd.have_versions ? dd.driver : NULL,
        .cuda_runtime_version = dd.have_versions ? dd.runtime : NULL,
        .cudnn_version = dd.have_versions ? dd.cudnn : NULL,
        .cublas_version = dd.have_versions ? dd.cublas : NULL,
        .shard_index = sharded ? opts->shard : 0, .shard_count = sharded ? opts->nshards : 0,
        .sweep_runs = sharded ? rep->sweep_total : 0,
    };
    logt_store *st = NULL;
    logt_status s = text ? check_shard_file(rep->out, &meta)
                         : LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    if (s == LOGT_OK) s = logt_store_open(rep->out, &meta, &st);
    free(text);
    for (int k = 0; s == LOGT_OK && k < e->nkinds; k++)
        if (e->kinds[k] == LOGT_KIND_KERNEL && !logt_store_summary_has(st, "gbps")) {
            s = LOGT_USER_FAIL(LOGT_EINVAL,
                               "%s was written by an older logt: its /summary has no columns for "
                               "kernel runs (bytes, gbps, copy_gbps, pct_of_copy). HINT: write them "
                               "to a new file with --out NEW.h5", rep->out);
            logt_store_close(st);
        }
    if (s != LOGT_OK) {
        free(place);
        free(runs);
        return s;
    }

    /* what is left to do, and its cost for the ETA */
    progress pr = {.tty = isatty(2), .t0 = logt_now()};
    if (sharded) snprintf(pr.shard, sizeof pr.shard, "shard %d/%d", opts->shard, opts->nshards);
    int *todo = malloc((size_t)(nruns > 0 ? nruns : 1) * sizeof *todo), ntodo = 0;
    if (!todo) s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    for (int i = 0; s == LOGT_OK && i < nruns; i++) {
        int64_t id;
        logt_run_state state;
        logt_store_find(st, runs[i].key, &id, &state);
        if ((state == LOGT_RUN_OK && !extendable(st, id, &runs[i])) ||
            (state == LOGT_RUN_FAILED && !opts->retry_failed)) {
            rep->skipped++;
            if (state == LOGT_RUN_FAILED) rep->failed++;
            continue;
        }
        todo[ntodo++] = i;
        pr.cost_total += runs[i].cost;
    }
    pr.total = ntodo;
    if (s == LOGT_OK) {
        if (sharded)
            fprintf(stderr, "logt: %s on %s: shard %d/%d: %d of the sweep's %d runs", e->name,
                    e->backend, opts->shard, opts->nshards, nruns, rep->sweep_total);
        else
            fprintf(stderr, "logt: %s on %s: %d runs", e->name, e->backend, nruns);
        if (rep->skipped)
            fprintf(stderr, ", %d already in %s (skipped%s)", rep->skipped, rep->out,
                    rep->failed ? "; --retry-failed redoes the failed ones" : "");
        fprintf(stderr, ", %d to run -> %s\n", ntodo, rep->out);
    }

    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sa.sa_flags = (int)SA_RESETHAND;   /* a second Ctrl-C kills at once */
    sigemptyset(&sa.sa_mask);
    stop_requested = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    const int die_after = env_int("LOGT_TEST_DIE_AFTER_RUNS");
    for (int k = 0; s == LOGT_OK && k < ntodo; k++) {
        if (stop_requested) {
            rep->interrupted = 1;
            break;
        }
        const logt_run_spec *r = &runs[todo[k]];
        int64_t id;
        logt_run_state state;
        logt_store_find(st, r->key, &id, &state);
        /* an interrupted run resumes from its checkpoint, and so does one its time budget
         * stopped when the budget grew; a failed one starts over; one finished meanwhile (the
         * same key twice in the sweep) is not run again */
        if (state == LOGT_RUN_OK && !extendable(st, id, r)) {
            rep->skipped++;
            continue;
        }
        int resume = state == LOGT_RUN_INTERRUPTED || state == LOGT_RUN_OK;
        if (id >= 0) s = logt_store_run_reset(st, id);
        else s = logt_store_run_new(st, r->key, &id);
        if (s == LOGT_OK) s = run_attrs(st, id, r, sharded ? place[todo[k]] : -1, &dd, commit, host);
        if (s != LOGT_OK) break;
        pr.index = k + 1;
        progress_line(&pr, r, "", pr.cost_done, 0);
        logt_summary_row row;
        char err[2048];
        int interrupted = 0;
        s = one_run(ctx, r, st, id, resume, &pr, &row, err, sizeof err, &interrupted);
        if (s != LOGT_OK) break;
        if (interrupted || stop_requested) {
            rep->interrupted = 1;
            if (!interrupted) {   /* the run finished before the signal was seen */
                rep->ran++;
                rep->ok += !strcmp(row.status, "ok");
                rep->failed += strcmp(row.status, "ok") != 0;
            }
            break;
        }
        rep->ran++;
        if (!strcmp(row.status, "ok")) rep->ok++;
        else rep->failed++;
        if (die_after > 0 && rep->ran == die_after) _exit(137);
    }
    inputs_free();
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (pr.tty && ntodo) fprintf(stderr, "\r\033[K");
    if (s == LOGT_OK) {
        char el[32];
        logt_fmt_duration(logt_now() - pr.t0, el, sizeof el);
        fprintf(stderr, "logt: %s%s%s: ran %d of %d runs in %s (%d ok, %d failed) -> %s\n", e->name,
                sharded ? ", " : "", pr.shard, rep->ran, ntodo, el, rep->ok, rep->ran - rep->ok, rep->out);
    }
    free(todo);
    free(place);
    free(runs);
    char msg[2048];
    logt_strlcpy(msg, sizeof msg, logt_errmsg());
    const int removed = st ? logt_store_removed(st) : 0;
    logt_status c = logt_store_close(st);
    if (s == LOGT_OK && c == LOGT_OK && removed > 0 && !rep->interrupted) compact(rep->out, removed);
    if (s != LOGT_OK) logt_fail_at(s, "", 0, "%s", strncmp(msg, ":0: ", 4) ? msg : msg + 4);
    return s != LOGT_OK ? s : c;
}
