/* charlm.c — character-level language modelling on the fortune files of Debian's
 * `fortunes` package (English quotations, jokes and verse).
 *
 * The file (datasets/data/fortunes.txt, made by `make datasets`) is the package's
 * fortune files concatenated and cleaned to 96 symbols: newline and the 95 printable
 * ASCII characters ' '..'~'. Symbol ids: '\n' -> 0, c -> c - 31 for ' '..'~'. Any
 * other byte is an error naming its offset (the cleaning dropped them all).
 *
 * Splits by position: train the first 90% of the text, valid the next 5%, test the
 * last 5%. Sequence n of split s starts at an offset o drawn uniformly from the split
 * (stream s * 2^40 + n of the seed) such that o .. o+T lie in it; x_t is the one-hot
 * of character o+t and the target at step t is character o+t+1: a target at every
 * step (out_steps = T), cross-entropy in nats, and bits per character = nats / ln 2.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../core/rng.h"
#include "internal.h"

#define SYMBOLS 96

/* '\n' -> 0, ' '..'~' -> 1..95, anything else -> -1 */
static int symbol(unsigned char c)
{
    if (c == '\n') return 0;
    return c >= ' ' && c <= '~' ? c - 31 : -1;
}

static logt_status encode(const char *path, const char *text, int64_t n, logt_dataset_data *d)
{
    d->n = n;
    if (!(d->bytes = malloc((size_t)(n > 0 ? n : 1))))
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory for %lld characters", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        int k = symbol((unsigned char)text[i]);
        if (k < 0)
            return LOGT_FAIL(LOGT_EINVAL,
                             "charlm: %s holds byte 0x%02x at offset %lld, outside the 96 symbols "
                             "(newline and ' '..'~'). HINT: `make datasets` writes the cleaned text",
                             path, (unsigned char)text[i], (long long)i);
        d->bytes[i] = (uint8_t)k;
    }
    d->split[0] = 0;
    d->split[1] = n * 18 / 20;
    d->split[2] = n * 19 / 20;
    d->split[3] = n;
    return LOGT_OK;
}

/* Every split must hold one window of T+1 characters (T inputs, the last one's target). */
static logt_status check_length(const char *path, const logt_dataset_data *d, int T)
{
    static const char *const names[] = {"train", "valid", "test"};
    if (T < 1) return LOGT_FAIL(LOGT_EINVAL, "charlm needs T >= 1, got T = %d", T);
    for (int s = 0; s < 3; s++) {
        const int64_t len = d->split[s + 1] - d->split[s];
        if (len < (int64_t)T + 1)
            return LOGT_FAIL(LOGT_EINVAL,
                             "charlm: the %s split of %s holds %lld characters, and T = %d needs "
                             "T + 1 = %lld: use a shorter T or a longer text",
                             names[s], path, (long long)len, T, (long long)T + 1);
    }
    return LOGT_OK;
}

logt_status logt_dataset_charlm(const char *path, int T, uint64_t seed, logt_dataset *out)
{
    memset(out, 0, sizeof *out);
    char *text;
    int64_t n;
    LOGT_TRY(logt_data_read("charlm", path, "fortunes", &text, &n));
    logt_dataset_data *d = calloc(1, sizeof *d);
    logt_status s = d ? encode(path, text, n, d) : LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    free(text);
    out->data = d;
    if (s == LOGT_OK) s = check_length(path, d, T);
    if (s != LOGT_OK) {
        logt_dataset_close(out);
        return s;
    }
    snprintf(out->name, sizeof out->name, "charlm");
    out->T = T;
    out->seed = seed;
    out->input_size = SYMBOLS;
    out->output_size = SYMBOLS;
    out->out_steps = T;
    out->loss = LOGT_LOSS_XENT;
    out->report_bpc = 1;
    out->onehot = 1;
    return LOGT_OK;
}

logt_status logt_charlm_codes(const logt_dataset *ds, int split, uint64_t index, int B, int32_t *code,
                              double *target)
{
    const logt_dataset_data *d = ds->data;
    const int64_t T = ds->T, first = d->split[split];
    const uint64_t starts = (uint64_t)(d->split[split + 1] - first - T);   /* offsets o that fit */
    for (int b = 0; b < B; b++) {
        logt_rng r = logt_seq_rng(ds, split, index, B, b);
        const uint8_t *c = d->bytes + first + (int64_t)logt_rng_below(&r, starts);
        for (int64_t t = 0; t < T; t++) {
            code[t * B + b] = c[t];
            target[t * B + b] = c[t + 1];   /* [T][B] */
        }
    }
    return LOGT_OK;
}
