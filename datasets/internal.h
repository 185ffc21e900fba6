/* internal.h — shared inside datasets/ only: the streams' split stride, and what the
 * loaded sets (digits.c, charlm.c) keep from their file, the helpers they share and
 * their batch functions (charlm's as one-hot codes).
 */
#ifndef LOGT_DATASETS_INTERNAL_H
#define LOGT_DATASETS_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "../core/rng.h"
#include "dataset.h"

#define LOGT_SPLIT_STRIDE (1ull << 40)   /* sequences per split before streams would overlap */

/* Sequence b of batch `index` (of B) of `split` draws from its own stream (dataset.c's comment). */
static inline logt_rng logt_seq_rng(const logt_dataset *ds, int split, uint64_t index, int B, int b)
{
    return logt_rng_make(ds->seed, (uint64_t)split * LOGT_SPLIT_STRIDE + index * (uint64_t)B + (uint64_t)b);
}

struct logt_dataset_data {
    int64_t n;          /* digits: images; charlm: characters of text                      */
    uint8_t *bytes;     /* digits: [n][64] pixels 0..16; charlm: [n] symbols 0..95          */
    uint8_t *labels;    /* digits: [n] the digit 0..9; charlm: NULL                         */
    int64_t split[4];   /* split s: digits: order[split[s] .. split[s+1]-1];
                           charlm: text positions split[s] .. split[s+1]-1                 */
    int *order;         /* digits: every image once, in the fixed shuffle that splits them  */
    int pixel[64];      /* digits: step t shows pixel pixel[t] (raster order, or permuted)  */
};

/* Where a dataset's file lives: $LOGT_DATA_DIR/file, else datasets/data/file. */
void logt_data_path(char *buf, size_t n, const char *file);
/* The whole file at path into *text (NUL-terminated, free it). A file that cannot be
 * opened is an error naming the Debian package it comes from and `make datasets`. */
logt_status logt_data_read(const char *task, const char *path, const char *package, char **text,
                           int64_t *n);

logt_status logt_digits_batch(const logt_dataset *ds, int split, uint64_t index, int B, double *x,
                              double *target);
/* charlm's input is one-hot: its batch as codes [T][B] (dataset.h) */
logt_status logt_charlm_codes(const logt_dataset *ds, int split, uint64_t index, int B, int32_t *code,
                              double *target);

#endif
