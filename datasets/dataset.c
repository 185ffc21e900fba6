/* dataset.c — the synthetic tasks of dataset.h, generated on the fly from a seed.
 *
 * Sequence n of split s is drawn from its own counter-based stream,
 *     stream = s * 2^40 + n,        n = index * B + b,
 * so batch `index` is the same data every time it is asked for, whatever order
 * batches are made in, and the three splits never share a sequence. Shapes:
 *     x      [T][B][I]                    host f64
 *     target [out_steps][B][O] (MSE)  or  [out_steps][B] class ids (xent)
 * Cost O(T·B·I) per batch: writing x dominates.
 */
#include "dataset.h"

#include <stdio.h>
#include <string.h>

#include "../core/rng.h"

#define SPLIT_STRIDE (1ull << 40)   /* sequences per split before streams would overlap */

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
static void selcopy_seq(const logt_dataset *ds, logt_rng *r, int64_t B, int64_t b, double *x,
                        double *target)
{
    const int T = ds->T, K = ds->K, V = ds->V, I = V + 2;
    const int n = T - K;   /* steps that hold data tokens and blanks */
    int chosen = 0;
    for (int t = 0; t < T; t++) {
        double *xt = x + ((int64_t)t * B + b) * I;
        memset(xt, 0, (size_t)I * sizeof *xt);
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
        xt[sym] = 1.0;
    }
}

/* ---- the table --------------------------------------------------------------- */

typedef struct task {
    const char *name;
    void (*seq)(const logt_dataset *, logt_rng *, int64_t B, int64_t b, double *x, double *target);
} task;

static const task tasks[] = {
    {"adding", adding_seq},
    {"selcopy", selcopy_seq},
};
#define NTASKS (int)(sizeof tasks / sizeof tasks[0])

static const task *find_task(const char *name)
{
    for (int i = 0; i < NTASKS; i++)
        if (!strcmp(tasks[i].name, name)) return &tasks[i];
    return NULL;
}

static void init(logt_dataset *out, const char *name, int T, uint64_t seed)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->T = T;
    out->seed = seed;
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
    return LOGT_OK;
}

logt_status logt_dataset_open(const char *name, int T, uint64_t seed, logt_dataset *out)
{
    memset(out, 0, sizeof *out);
    if (!name || !find_task(name)) {
        char names[128];
        logt_dataset_names(names, sizeof names);
        return LOGT_FAIL(LOGT_EINVAL, "unknown dataset '%s': the datasets are %s",
                         name ? name : "(null)", names);
    }
    if (!strcmp(name, "selcopy"))
        return logt_dataset_selcopy(T, LOGT_SELCOPY_K, LOGT_SELCOPY_V, seed, out);
    /* adding */
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

void logt_dataset_names(char *buf, size_t n)
{
    size_t used = 0;
    if (n) buf[0] = '\0';
    for (int i = 0; i < NTASKS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", tasks[i].name);
}

logt_status logt_dataset_batch(const logt_dataset *ds, int split, uint64_t index, int B, double *x,
                               double *target)
{
    const task *tk = find_task(ds->name);
    if (!tk) return LOGT_FAIL(LOGT_EINVAL, "dataset '%s' was not opened with logt_dataset_open", ds->name);
    if (split < LOGT_SPLIT_TRAIN || split > LOGT_SPLIT_TEST)
        return LOGT_FAIL(LOGT_EINVAL, "split %d: expected 0 (train), 1 (valid) or 2 (test)", split);
    if (B < 1) return LOGT_FAIL(LOGT_EINVAL, "batch size B = %d: it must be at least 1", B);
    if (index >= SPLIT_STRIDE / (uint64_t)B)
        return LOGT_FAIL(LOGT_EINVAL,
                         "batch index %llu of size %d is past the 2^40 sequences of a split",
                         (unsigned long long)index, B);
    for (int b = 0; b < B; b++) {
        logt_rng r = logt_rng_make(ds->seed, (uint64_t)split * SPLIT_STRIDE + index * (uint64_t)B + (uint64_t)b);
        tk->seq(ds, &r, B, b, x, target);
    }
    return LOGT_OK;
}

int64_t logt_dataset_target_size(const logt_dataset *ds, int B)
{
    return (int64_t)ds->out_steps * B * (ds->loss == LOGT_LOSS_MSE ? ds->output_size : 1);
}
