/* dataset.c — the tasks of dataset.h: the synthetic generators, the table of every
 * task, and the calls that dispatch through it (the loaded sets live in digits.c and
 * charlm.c).
 *
 * Synthetic: sequence n of split s is drawn from its own counter-based stream,
 *     stream = s * 2^40 + n,        n = index * B + b,
 * so batch `index` is the same data every time it is asked for, whatever order
 * batches are made in, and the three splits never share a sequence. Shapes:
 *     x      [T][B][I]                    host f64
 *     target [out_steps][B][O] (MSE)  or  [out_steps][B] class ids (xent)
 * Cost O(T·B·I) per batch: writing x dominates (one draw per step at most).
 */
#include "dataset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../core/tensor.h"
#include "internal.h"

/* ---- adding problem ---------------------------------------------------------- */

/* x_t = (value_t, marker_t); one marker in [0, T/2), one in [T/2, T). */
static void adding_seq(const logt_dataset *ds, logt_rng *r, int64_t B, int64_t b, double *x,
                       double *target)
{
    const int T = ds->T, I = 2;
    const int half = T / 2;
    int p1 = (int)logt_rng_below(r, (uint64_t)half);
    int p2 = half + (int)logt_rng_below(r, (uint64_t)(T - half));
    double sum = 0;
    for (int t = 0; t < T; t++) {
        double *xt = x + ((int64_t)t * B + b) * I;
        xt[0] = logt_rng_uniform(r);
        xt[1] = (t == p1 || t == p2) ? 1.0 : 0.0;
        if (xt[1] != 0.0) sum += xt[0];
    }
    target[b] = sum;   /* [1][B][1] */
}

/* ---- selective copying ------------------------------------------------------- */

/* Symbols 0..V-1 are tokens, V is blank, V+1 is "go". The K token positions are
 * chosen by selection sampling (Knuth's algorithm S), which yields them sorted. */
static void selcopy_seq(const logt_dataset *ds, logt_rng *r, int64_t B, int64_t b, int32_t *code,
                        double *target)
{
    const int T = ds->T, K = ds->K, V = ds->V;
    const int n = T - K;   /* steps that hold data tokens and blanks */
    int chosen = 0;
    for (int t = 0; t < T; t++) {
        int sym;
        if (t >= n) {
            sym = V + 1;
        } else if (logt_rng_below(r, (uint64_t)(n - t)) < (uint64_t)(K - chosen)) {
            sym = (int)logt_rng_below(r, (uint64_t)V);
            target[(int64_t)chosen * B + b] = sym;   /* [K][B] */
            chosen++;
        } else {
            sym = V;
        }
        code[(int64_t)t * B + b] = sym;
    }
}

/* ---- problem 2b -------------------------------------------------------------- */

/* x_0 = +e_0 (class 0) or -e_0 (class 1); every later step is e_k with k uniform in
 * [0, p), e_0 included, as Martin & Cundy draw them. One draw per step. */
static void seq_2b(const logt_dataset *ds, logt_rng *r, int64_t B, int64_t b, int32_t *code,
                   double *target)
{
    const int T = ds->T, p = ds->V;
    const int cls = (int)logt_rng_below(r, 2);
    code[b] = cls ? ~0 : 0;   /* -e_0 or +e_0 */
    for (int t = 1; t < T; t++) code[(int64_t)t * B + b] = (int32_t)logt_rng_below(r, (uint64_t)p);
    target[b] = cls;   /* [1][B] */
}

/* ---- parity and modular sum -------------------------------------------------- */

/* x_t one-hot of a symbol k_t uniform in [0, m); target (sum_t k_t) mod m. */
static void modsum_seq(const logt_dataset *ds, logt_rng *r, int64_t B, int64_t b, int32_t *code,
                       double *target)
{
    const int T = ds->T, m = ds->V;
    int sum = 0;   /* kept reduced: no overflow at any T */
    for (int t = 0; t < T; t++) {
        int k = (int)logt_rng_below(r, (uint64_t)m);
        code[(int64_t)t * B + b] = k;
        sum = (sum + k) % m;
    }
    target[b] = sum;   /* [1][B] */
}

/* ---- opening by name --------------------------------------------------------- */

static void init(logt_dataset *out, const char *name, int T, uint64_t seed)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->T = T;
    out->seed = seed;
}

/* A classification with its target at the last step only. */
static void last_step_classes(logt_dataset *out, int I, int classes)
{
    out->input_size = I;
    out->output_size = classes;
    out->out_steps = 1;
    out->loss = LOGT_LOSS_XENT;
}

static logt_status open_adding(int T, uint64_t seed, logt_dataset *out)
{
    memset(out, 0, sizeof *out);
    if (T < 2)
        return LOGT_FAIL(LOGT_EINVAL,
                         "adding needs T >= 2 (one marker in each half), got T = %d", T);
    init(out, "adding", T, seed);
    out->input_size = 2;
    out->output_size = 1;
    out->out_steps = 1;
    out->loss = LOGT_LOSS_MSE;
    return LOGT_OK;
}

logt_status logt_dataset_selcopy(int T, int K, int V, uint64_t seed, logt_dataset *out)
{
    memset(out, 0, sizeof *out);
    if (K < 1) return LOGT_FAIL(LOGT_EINVAL, "selcopy: K = %d tokens to copy; it must be at least 1", K);
    if (V < 1) return LOGT_FAIL(LOGT_EINVAL, "selcopy: vocabulary V = %d; it must be at least 1", V);
    if (T < 2 * K || T < 1)
        return LOGT_FAIL(LOGT_EINVAL,
                         "selcopy with K = %d tokens needs T >= 2K = %d (K data steps and K go "
                         "steps), got T = %d",
                         K, 2 * K, T);
    init(out, "selcopy", T, seed);
    out->K = K;
    out->V = V;
    out->input_size = V + 2;
    out->output_size = V;
    out->out_steps = K;
    out->loss = LOGT_LOSS_XENT;
    out->onehot = 1;
    return LOGT_OK;
}

logt_status logt_dataset_2b(int T, int p, uint64_t seed, logt_dataset *out)
{
    memset(out, 0, sizeof *out);
    if (p < 1) return LOGT_FAIL(LOGT_EINVAL, "2b: input dimension p = %d; it must be at least 1", p);
    if (T < 2)
        return LOGT_FAIL(LOGT_EINVAL,
                         "2b needs T >= 2 (the signed first element and at least one "
                         "distractor), got T = %d", T);
    init(out, "2b", T, seed);
    out->V = p;
    out->onehot = 1;
    last_step_classes(out, p, 2);
    return LOGT_OK;
}

logt_status logt_dataset_modsum(int T, int m, uint64_t seed, logt_dataset *out)
{
    memset(out, 0, sizeof *out);
    if (m < 2) return LOGT_FAIL(LOGT_EINVAL, "modsum: modulus m = %d; it must be at least 2", m);
    if (T < 1) return LOGT_FAIL(LOGT_EINVAL, "%s needs T >= 1, got T = %d", m == 2 ? "parity" : "modsum", T);
    init(out, m == 2 ? "parity" : "modsum", T, seed);
    out->V = m;
    out->onehot = 1;
    last_step_classes(out, m, m);
    return LOGT_OK;
}

static logt_status open_selcopy(int T, uint64_t seed, logt_dataset *out)
{
    return logt_dataset_selcopy(T, LOGT_SELCOPY_K, LOGT_SELCOPY_V, seed, out);
}
static logt_status open_2b(int T, uint64_t seed, logt_dataset *out)
{
    return logt_dataset_2b(T, LOGT_2B_P, seed, out);
}
static logt_status open_parity(int T, uint64_t seed, logt_dataset *out)
{
    return logt_dataset_modsum(T, 2, seed, out);
}
static logt_status open_modsum(int T, uint64_t seed, logt_dataset *out)
{
    return logt_dataset_modsum(T, LOGT_MODSUM_M, seed, out);
}

/* The digits are 8x8 images: one pixel a step, so T is 64 and nothing else. */
static logt_status open_digits_as(const char *name, int T, int permuted, uint64_t seed,
                                  logt_dataset *out)
{
    memset(out, 0, sizeof *out);
    if (T != 64)
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s shows an 8x8 image one pixel a step: T must be 64, got T = %d", name, T);
    char path[4096];
    logt_data_path(path, sizeof path, "digits.csv");
    return logt_dataset_digits(path, permuted, seed, out);
}
static logt_status open_digits(int T, uint64_t seed, logt_dataset *out)
{
    return open_digits_as("digits", T, 0, seed, out);
}
static logt_status open_digits_perm(int T, uint64_t seed, logt_dataset *out)
{
    return open_digits_as("digits-perm", T, 1, seed, out);
}
static logt_status open_charlm(int T, uint64_t seed, logt_dataset *out)
{
    char path[4096];
    logt_data_path(path, sizeof path, "fortunes.txt");
    return logt_dataset_charlm(path, T, seed, out);
}

/* ---- the table --------------------------------------------------------------- */

typedef void seq_fn(const logt_dataset *, logt_rng *, int64_t B, int64_t b, double *x, double *target);
typedef void code_seq_fn(const logt_dataset *, logt_rng *, int64_t B, int64_t b, int32_t *code,
                         double *target);
typedef logt_status batch_fn(const logt_dataset *, int split, uint64_t index, int B, double *x,
                             double *target);
typedef logt_status code_batch_fn(const logt_dataset *, int split, uint64_t index, int B, int32_t *code,
                                  double *target);

/* One of the four makers is set: synthetic (one sequence from its own stream) or loaded
 * (a whole batch from what the file held), dense x or one-hot codes. */
typedef struct task {
    const char *name;
    logt_status (*open)(int T, uint64_t seed, logt_dataset *out);
    seq_fn *seq;
    code_seq_fn *code_seq;
    batch_fn *batch;
    code_batch_fn *code_batch;
} task;

static const task tasks[] = {
    {"adding", open_adding, adding_seq, NULL, NULL, NULL},
    {"selcopy", open_selcopy, NULL, selcopy_seq, NULL, NULL},
    {"2b", open_2b, NULL, seq_2b, NULL, NULL},
    {"parity", open_parity, NULL, modsum_seq, NULL, NULL},
    {"modsum", open_modsum, NULL, modsum_seq, NULL, NULL},
    {"digits", open_digits, NULL, NULL, logt_digits_batch, NULL},
    {"digits-perm", open_digits_perm, NULL, NULL, logt_digits_batch, NULL},
    {"charlm", open_charlm, NULL, NULL, NULL, logt_charlm_codes},
};
#define NTASKS (int)(sizeof tasks / sizeof tasks[0])

static const task *find_task(const char *name)
{
    for (int i = 0; i < NTASKS; i++)
        if (!strcmp(tasks[i].name, name)) return &tasks[i];
    return NULL;
}

logt_status logt_dataset_open(const char *name, int T, uint64_t seed, logt_dataset *out)
{
    memset(out, 0, sizeof *out);
    const task *tk = name ? find_task(name) : NULL;
    if (!tk) {
        char names[256];
        logt_dataset_names(names, sizeof names);
        return LOGT_FAIL(LOGT_EINVAL, "unknown dataset '%s': the datasets are %s",
                         name ? name : "(null)", names);
    }
    return tk->open(T, seed, out);
}

void logt_dataset_close(logt_dataset *ds)
{
    if (!ds || !ds->data) return;
    free(ds->data->bytes);
    free(ds->data->labels);
    free(ds->data->order);
    free(ds->data);
    ds->data = NULL;
}

void logt_dataset_names(char *buf, size_t n)
{
    size_t used = 0;
    if (n) buf[0] = '\0';
    for (int i = 0; i < NTASKS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", tasks[i].name);
}

/* The checks every batch call makes; the task on success. */
static logt_status batch_task(const logt_dataset *ds, int split, uint64_t index, int B, const task **out)
{
    const task *tk = *out = find_task(ds->name);
    if (!tk) return LOGT_FAIL(LOGT_EINVAL, "dataset '%s' was not opened with logt_dataset_open", ds->name);
    if (split < LOGT_SPLIT_TRAIN || split > LOGT_SPLIT_TEST)
        return LOGT_FAIL(LOGT_EINVAL, "split %d: expected 0 (train), 1 (valid) or 2 (test)", split);
    if (B < 1) return LOGT_FAIL(LOGT_EINVAL, "batch size B = %d: it must be at least 1", B);
    if (index >= LOGT_SPLIT_STRIDE / (uint64_t)B)
        return LOGT_FAIL(LOGT_EINVAL,
                         "batch index %llu of size %d is past the 2^40 sequences of a split",
                         (unsigned long long)index, B);
    if ((tk->batch || tk->code_batch) && !ds->data)
        return LOGT_FAIL(LOGT_EINVAL, "dataset '%s' is closed (or was never opened)", ds->name);
    return LOGT_OK;
}

logt_status logt_dataset_codes(const logt_dataset *ds, int split, uint64_t index, int B, int32_t *code,
                               double *target)
{
    const task *tk;
    LOGT_TRY(batch_task(ds, split, index, B, &tk));
    if (!tk->code_seq && !tk->code_batch)
        return LOGT_FAIL(LOGT_EINVAL, "dataset '%s' is not one-hot: its batches come as x "
                         "(logt_dataset_batch)", ds->name);
    if (tk->code_batch) return tk->code_batch(ds, split, index, B, code, target);
    for (int b = 0; b < B; b++) {
        logt_rng r = logt_seq_rng(ds, split, index, B, b);
        tk->code_seq(ds, &r, B, b, code, target);
    }
    return LOGT_OK;
}

logt_status logt_dataset_batch(const logt_dataset *ds, int split, uint64_t index, int B, double *x,
                               double *target)
{
    const task *tk;
    LOGT_TRY(batch_task(ds, split, index, B, &tk));
    if (tk->batch) return tk->batch(ds, split, index, B, x, target);
    if (tk->seq) {
        for (int b = 0; b < B; b++) {
            logt_rng r = logt_seq_rng(ds, split, index, B, b);
            tk->seq(ds, &r, B, b, x, target);
        }
        return LOGT_OK;
    }
    const int64_t n = (int64_t)ds->T * B;   /* one-hot: the codes, expanded */
    int32_t *code = malloc((size_t)n * sizeof *code);
    if (!code) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory for a batch of %lld codes", (long long)n);
    logt_status s = logt_dataset_codes(ds, split, index, B, code, target);
    logt_tensor xt = {.data = x, .dtype = LOGT_F64, .device = LOGT_CPU, .ndim = 1,
                      .shape = {n * ds->input_size}, .numel = n * ds->input_size};
    if (s == LOGT_OK) s = logt_tensor_onehot(&xt, code, ds->input_size);
    free(code);
    return s;
}

int64_t logt_dataset_target_size(const logt_dataset *ds, int B)
{
    return (int64_t)ds->out_steps * B * (ds->loss == LOGT_LOSS_MSE ? ds->output_size : 1);
}
