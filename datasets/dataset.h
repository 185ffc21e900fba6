/* dataset.h — sequence tasks for training: synthetic ones made from a seed for any
 * length T, and two small real ones read from files that Debian packages ship.
 *
 *   adding   (Hochreiter & Schmidhuber 1997, problem 4): x_t = (value ~ U[0,1], marker);
 *            exactly two markers, one in each half; target at the last step: the sum
 *            of the two marked values (MSE). Predicting the mean, 1.0, scores MSE 1/6.
 *   selcopy  selective copying: K data tokens from a vocabulary of V, scattered at
 *            random among blanks in the first T-K steps, then K "go" markers; at the
 *            last K steps the model emits the data tokens in order (cross-entropy).
 *            One-hot input of V+2 symbols (V tokens, blank, go). Needs T >= 2K.
 *   2b       (Hochreiter & Schmidhuber 1997, problem 2b, as Martin & Cundy 2018 ran it):
 *            x_0 = ±e_0 in p = V dimensions, then T-1 random one-hot distractors; at the
 *            last step the class of x_0's sign (0: +, 1: -), cross-entropy, chance 50%.
 *   parity, modsum  one-hot symbols 0..m-1 (m = V: 2 for parity, 5 for modsum); at the
 *            last step the class (sum of the symbols) mod m, cross-entropy.
 *   digits, digits-perm  the 8x8 handwritten digits, one pixel per step (T = 64, I = 1),
 *            in raster order or in a fixed permutation from the seed; 10 classes at the
 *            last step. Read from digits.csv (python3-sklearn's, see README.md).
 *   charlm   characters of the fortune files (Debian's fortunes), one-hot over 96
 *            symbols; at every step the next character, cross-entropy (bits per char).
 * Each split (train/valid/test) draws from its own stream of the seed; batch `index`
 * of a split is always the same data: it holds sequences index*B .. index*B + B-1
 * of the split (README.md says what sequence n is for each task).
 */
#ifndef LOGT_DATASET_H
#define LOGT_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum logt_loss { LOGT_LOSS_MSE, LOGT_LOSS_XENT } logt_loss;
enum { LOGT_SPLIT_TRAIN = 0, LOGT_SPLIT_VALID = 1, LOGT_SPLIT_TEST = 2 };

/* What a loaded dataset read from its file (datasets/loaded.h); NULL for the synthetic ones. */
typedef struct logt_dataset_data logt_dataset_data;

typedef struct logt_dataset {
    char name[32];
    int T;             /* sequence length                                   */
    int input_size;    /* I                                                  */
    int output_size;   /* regression outputs, or number of classes (xent)   */
    int out_steps;     /* targets sit on the last out_steps steps            */
    logt_loss loss;
    int K, V;          /* selcopy: tokens to copy and vocabulary size; 2b: V = p,
                          the input dimension; parity/modsum: V = m, the modulus */
    int report_bpc;    /* charlm: its loss is reported in bits per character too */
    int onehot;        /* x_t is one signed one-hot vector a step (selcopy, 2b, parity,
                          modsum, charlm): logt_dataset_codes gives the batch as codes */
    uint64_t seed;
    logt_dataset_data *data;   /* loaded sets: owned, freed by logt_dataset_close;
                                  a copy of the struct borrows it */
} logt_dataset;

/* name: one of logt_dataset_names; an unknown name or a T the task cannot take is an
 * error. digits and charlm read their file from $LOGT_DATA_DIR, else datasets/data. */
logt_status logt_dataset_open(const char *name, int T, uint64_t seed, logt_dataset *out);
/* Free what a loaded dataset read (no-op for a synthetic one, or a zeroed struct). */
void logt_dataset_close(logt_dataset *ds);
/* Fill batch `index` of `split`: x [T][B][I] and target [out_steps][B][O] (MSE)
 * or [out_steps][B] class ids stored as doubles (xent). Host f64 buffers. */
logt_status logt_dataset_batch(const logt_dataset *ds, int split, uint64_t index, int B, double *x,
                               double *target);
/* A dataset whose x_t is one signed one-hot vector (ds->onehot): batch `index` as codes
 * [T][B], code[t*B + b] = k for x_t = +e_k and ~k (= -k-1) for -e_k, k in [0, I); target
 * as logt_dataset_batch's. logt_dataset_batch gives the same batch by expanding these
 * codes (logt_tensor_onehot, which also writes them into a device tensor): T·B ints to
 * make and move instead of T·B·I doubles. Any other dataset is an error. */
logt_status logt_dataset_codes(const logt_dataset *ds, int split, uint64_t index, int B, int32_t *code,
                               double *target);
/* Size of one batch's target buffer in doubles. */
int64_t logt_dataset_target_size(const logt_dataset *ds, int B);

/* selcopy's, 2b's and modsum's defaults when opened by name. */
enum { LOGT_SELCOPY_K = 8, LOGT_SELCOPY_V = 8, LOGT_2B_P = 128, LOGT_MODSUM_M = 5 };
/* selcopy with K tokens from a vocabulary of V (needs T >= 2K, K >= 1, V >= 1). */
logt_status logt_dataset_selcopy(int T, int K, int V, uint64_t seed, logt_dataset *out);
/* 2b with inputs of p dimensions (needs T >= 2, p >= 1). */
logt_status logt_dataset_2b(int T, int p, uint64_t seed, logt_dataset *out);
/* Sum of T symbols mod m (needs T >= 1, m >= 2); named "parity" when m = 2. */
logt_status logt_dataset_modsum(int T, int m, uint64_t seed, logt_dataset *out);
/* The loaded sets from a file named directly (the tests' fixtures): the digits CSV
 * (64 pixels 0..16 and a label 0..9 a row), and the cleaned text of charlm. */
logt_status logt_dataset_digits(const char *path, int permuted, uint64_t seed, logt_dataset *out);
logt_status logt_dataset_charlm(const char *path, int T, uint64_t seed, logt_dataset *out);
/* "adding, selcopy, ..." into buf. */
void logt_dataset_names(char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
