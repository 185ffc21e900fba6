/* digits.c — sequential 8x8 handwritten digits, one pixel a step (T = 64, I = 1).
 *
 * The file is scikit-learn's digits.csv (from Debian's python3-sklearn; `make datasets`
 * caches it): one image a row, 64 pixels 0..16 in raster order and then the label
 * 0..9, comma-separated; 1797 rows. x_t = pixel / 16, so inputs lie in [0, 1].
 *
 * The splits are fixed, the same for every seed, so every run is tested on the same
 * images: the n rows in one shuffle (Fisher-Yates from DIGITS_SPLIT_SEED), then
 * valid = test = round(n / 10) and train the rest: 1437 / 180 / 180 of 1797.
 * The seed decides the order a split is visited in: sequence n of split s is image
 * order_e[n mod N_s] of the split, where e = n div N_s is the epoch and order_e a
 * Fisher-Yates shuffle of the split from stream s * 2^40 + e. So a batch is the same
 * data whenever it is asked for, each epoch sees every image of the split once, and
 * `eval_batches` batches of B cover B·eval_batches distinct images up to N_s.
 * digits-perm shows the pixels in one permutation drawn from the seed's stream
 * 3 * 2^40 (no split uses it), the same for every image and split.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../core/rng.h"
#include "internal.h"

#define PIXELS 64
#define DIGITS_SPLIT_SEED 1797u   /* fixed: the splits do not move with the run's seed */

/* Fisher-Yates: a uniform permutation of a[0..n-1] in place. */
static void shuffle(int *a, int64_t n, logt_rng *r)
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)logt_rng_below(r, (uint64_t)i + 1);
        int tmp = a[i];
        a[i] = a[j], a[j] = tmp;
    }
}

/* One row "p0,...,p63,label": its 64 pixels into pix and its label; *s moves past it. */
static logt_status parse_row(const char *path, int64_t row, char **s, uint8_t *pix, uint8_t *label)
{
    char *p = *s;
    for (int k = 0; k <= PIXELS; k++) {
        const long hi = k < PIXELS ? 16 : 9;
        char *end;
        long v = strtol(p, &end, 10);
        if (*p < '0' || *p > '9' || end == p || v > hi)
            return LOGT_FAIL(LOGT_EINVAL, "%s line %lld: field %d is not %s (a row is 64 pixels "
                             "0..16 and a label 0..9, comma-separated)",
                             path, (long long)row + 1, k + 1, k < PIXELS ? "a pixel 0..16" : "a label 0..9");
        if (k < PIXELS) pix[k] = (uint8_t)v;
        else *label = (uint8_t)v;
        p = end;
        if (*p == '\r') p++;
        const char sep = k < PIXELS ? ',' : '\n';
        if (*p != sep && !(k == PIXELS && *p == '\0'))
            return LOGT_FAIL(LOGT_EINVAL, "%s line %lld: expected 65 comma-separated fields "
                             "(64 pixels and the label), the row breaks after field %d",
                             path, (long long)row + 1, k + 1);
        if (*p) p++;
    }
    *s = p;
    return LOGT_OK;
}

static int64_t count_rows(const char *text, int64_t size)
{
    int64_t n = 0;
    for (int64_t i = 0; i < size; i++) n += text[i] == '\n';
    return n + (size > 0 && text[size - 1] != '\n');
}

static logt_status parse(const char *path, char *text, int64_t size, logt_dataset_data *d)
{
    d->n = count_rows(text, size);
    if (d->n < 10)
        return LOGT_FAIL(LOGT_EINVAL, "%s holds %lld images: the three splits need at least 10",
                         path, (long long)d->n);
    d->bytes = malloc((size_t)d->n * PIXELS);
    d->labels = malloc((size_t)d->n);
    d->order = malloc((size_t)d->n * sizeof *d->order);
    if (!d->bytes || !d->labels || !d->order)
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory for %lld digits", (long long)d->n);
    char *p = text;
    for (int64_t i = 0; i < d->n; i++)
        LOGT_TRY(parse_row(path, i, &p, d->bytes + i * PIXELS, d->labels + i));
    return LOGT_OK;
}

/* The fixed shuffle and split sizes, and the order of the pixels. */
static void arrange(logt_dataset_data *d, int permuted, uint64_t seed)
{
    for (int64_t i = 0; i < d->n; i++) d->order[i] = (int)i;
    logt_rng r = logt_rng_make(DIGITS_SPLIT_SEED, 0);
    shuffle(d->order, d->n, &r);
    const int64_t held = (d->n + 5) / 10;   /* round(n / 10) for valid and for test */
    d->split[0] = 0;
    d->split[1] = d->n - 2 * held;
    d->split[2] = d->n - held;
    d->split[3] = d->n;
    for (int t = 0; t < PIXELS; t++) d->pixel[t] = t;
    if (permuted) {
        logt_rng rp = logt_rng_make(seed, 3 * LOGT_SPLIT_STRIDE);
        shuffle(d->pixel, PIXELS, &rp);
    }
}

logt_status logt_dataset_digits(const char *path, int permuted, uint64_t seed, logt_dataset *out)
{
    memset(out, 0, sizeof *out);
    const char *name = permuted ? "digits-perm" : "digits";
    char *text;
    int64_t size;
    LOGT_TRY(logt_data_read(name, path, "python3-sklearn", &text, &size));
    logt_dataset_data *d = calloc(1, sizeof *d);
    logt_status s = d ? parse(path, text, size, d) : LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    free(text);
    out->data = d;
    if (s != LOGT_OK) {
        logt_dataset_close(out);
        return s;
    }
    arrange(d, permuted, seed);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->T = PIXELS;
    out->seed = seed;
    out->input_size = 1;
    out->output_size = 10;
    out->out_steps = 1;
    out->loss = LOGT_LOSS_XENT;
    return LOGT_OK;
}

logt_status logt_digits_batch(const logt_dataset *ds, int split, uint64_t index, int B, double *x,
                              double *target)
{
    const logt_dataset_data *d = ds->data;
    const int64_t first = d->split[split], N = d->split[split + 1] - first;
    int *order = malloc((size_t)N * sizeof *order);
    if (!order) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory for a digits batch");
    uint64_t epoch = UINT64_MAX;
    for (int b = 0; b < B; b++) {
        const uint64_t n = index * (uint64_t)B + (uint64_t)b;
        if (n / (uint64_t)N != epoch) {   /* a new epoch: the split in this epoch's order */
            epoch = n / (uint64_t)N;
            memcpy(order, d->order + first, (size_t)N * sizeof *order);
            logt_rng r = logt_rng_make(ds->seed, (uint64_t)split * LOGT_SPLIT_STRIDE + epoch);
            shuffle(order, N, &r);
        }
        const int img = order[n % (uint64_t)N];
        const uint8_t *pix = d->bytes + (int64_t)img * PIXELS;
        for (int t = 0; t < PIXELS; t++) x[(int64_t)t * B + b] = pix[d->pixel[t]] / 16.0;
        target[b] = d->labels[img];   /* [1][B] */
    }
    free(order);
    return LOGT_OK;
}
