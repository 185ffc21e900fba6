/* test_datasets.c — the tasks: their known answers, reproducibility, and the errors
 * for bad names, lengths and files. The loaded sets read the made-up files of
 * tests/fixtures/ (see its README), found from the repository's root, where
 * `make test` runs: no network is needed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../datasets/dataset.h"
#include "../datasets/internal.h"

#define OK(expr) cr_assert_eq((expr), LOGT_OK, "%s: %s", #expr, logt_errmsg())

typedef struct batch { double *x, *t; int64_t nx, nt; } batch;

static batch make(const logt_dataset *ds, int split, uint64_t index, int B)
{
    batch b;
    b.nx = (int64_t)ds->T * B * ds->input_size;
    b.nt = logt_dataset_target_size(ds, B);
    b.x = malloc((size_t)b.nx * sizeof(double));
    b.t = malloc((size_t)b.nt * sizeof(double));
    logt_status s = logt_dataset_batch(ds, split, index, B, b.x, b.t);
    cr_assert_eq(s, LOGT_OK, "%s", logt_errmsg());
    return b;
}
static void drop(batch *b) { free(b->x), free(b->t); }
static int same(const batch *a, const batch *b)
{
    return a->nx == b->nx && !memcmp(a->x, b->x, (size_t)a->nx * 8) && !memcmp(a->t, b->t, (size_t)a->nt * 8);
}

/* ---- adding ------------------------------------------------------------------ */

static void check_adding(int T, int B)
{
    logt_dataset ds;
    OK(logt_dataset_open("adding", T, 3, &ds));
    cr_assert_eq(ds.input_size, 2);
    cr_assert_eq(ds.output_size, 1);
    cr_assert_eq(ds.out_steps, 1);
    cr_assert_eq(ds.loss, LOGT_LOSS_MSE);
    cr_assert_eq(logt_dataset_target_size(&ds, B), B);
    batch bt = make(&ds, LOGT_SPLIT_TRAIN, 4, B);
    for (int b = 0; b < B; b++) {
        int first = 0, second = 0;
        double sum = 0;
        for (int t = 0; t < T; t++) {
            const double *xt = bt.x + ((int64_t)t * B + b) * 2;
            cr_assert(xt[0] >= 0 && xt[0] < 1, "value %g outside [0, 1)", xt[0]);
            cr_assert(xt[1] == 0 || xt[1] == 1, "marker %g", xt[1]);
            if (xt[1] == 1) {
                if (t < T / 2) first++;
                else second++;
                sum += xt[0];
            }
        }
        cr_assert_eq(first, 1, "T = %d seq %d: %d markers in the first half", T, b, first);
        cr_assert_eq(second, 1, "T = %d seq %d: %d markers in the second half", T, b, second);
        cr_assert_eq(bt.t[b], sum, "target %g is not the sum of the marked values %g", bt.t[b], sum);
    }
    drop(&bt);
}

Test(datasets, adding_two_markers_and_their_sum)
{
    check_adding(20, 7);
    check_adding(21, 5);   /* odd T: halves [0, 10) and [10, 21) */
    check_adding(2, 3);    /* the shortest: one marker on each step */
    check_adding(1000, 2);
}

/* The sum of two U[0,1] has mean 1 and variance 1/6: predicting 1.0 scores MSE 1/6.
 * Over 20000 sequences the estimate's standard error is about 0.0015. */
Test(datasets, adding_baseline_is_one_sixth)
{
    logt_dataset ds;
    OK(logt_dataset_open("adding", 10, 9, &ds));
    double mse = 0, mean = 0;
    int n = 0;
    for (int i = 0; i < 100; i++) {
        batch bt = make(&ds, LOGT_SPLIT_VALID, (uint64_t)i, 200);
        for (int b = 0; b < 200; b++, n++) {
            mse += (bt.t[b] - 1) * (bt.t[b] - 1);
            mean += bt.t[b];
        }
        drop(&bt);
    }
    mse /= n, mean /= n;
    cr_assert(fabs(mean - 1.0) < 0.01, "mean target %g", mean);
    cr_assert(fabs(mse - 1.0 / 6) < 0.006, "MSE of predicting 1: %g, expected 1/6", mse);
}

#define FIXTURES "tests/fixtures"

/* Point the loaded sets at the fixtures (each test runs in a process of its own). */
static void use_fixtures(void)
{
    cr_assert_eq(access(FIXTURES "/digits.csv", R_OK), 0,
                 "no " FIXTURES "/digits.csv here: run the tests from the repository's root");
    setenv("LOGT_DATA_DIR", FIXTURES, 1);
}

/* Every task by name: the fixtures stand in for the loaded sets' files. */
Test(datasets, same_index_same_batch_and_splits_differ)
{
    const char *names[] = {"adding", "selcopy", "2b", "parity", "modsum", "digits", "digits-perm", "charlm"};
    use_fixtures();
    for (int k = 0; k < 8; k++) {
        logt_dataset ds, other_seed;
        const int T = strncmp(names[k], "digits", 6) ? 32 : 64;
        OK(logt_dataset_open(names[k], T, 1, &ds));
        OK(logt_dataset_open(names[k], T, 2, &other_seed));
        batch a = make(&ds, LOGT_SPLIT_TRAIN, 5, 4), b = make(&ds, LOGT_SPLIT_TRAIN, 5, 4);
        batch c = make(&ds, LOGT_SPLIT_TRAIN, 6, 4), v = make(&ds, LOGT_SPLIT_VALID, 5, 4);
        batch te = make(&ds, LOGT_SPLIT_TEST, 5, 4), s2 = make(&other_seed, LOGT_SPLIT_TRAIN, 5, 4);
        cr_assert(same(&a, &b), "%s: batch 5 made twice differs", names[k]);
        cr_assert(!same(&a, &c), "%s: batches 5 and 6 are equal", names[k]);
        cr_assert(!same(&a, &v), "%s: train and valid batch 5 are equal", names[k]);
        cr_assert(!same(&v, &te), "%s: valid and test batch 5 are equal", names[k]);
        cr_assert(!same(&a, &s2), "%s: seeds 1 and 2 give the same batch", names[k]);
        drop(&a), drop(&b), drop(&c), drop(&v), drop(&te), drop(&s2);
        logt_dataset_close(&ds), logt_dataset_close(&other_seed);
    }
}

/* Sequence n of a split is index·B + b whatever B is: batch 1 of size 4 holds
 * sequences 4..7, which are batches 2 and 3 of size 2. */
Test(datasets, sequences_do_not_depend_on_batch_size)
{
    logt_dataset ds;
    OK(logt_dataset_open("adding", 9, 1, &ds));
    batch big = make(&ds, LOGT_SPLIT_TRAIN, 1, 4);
    for (int half = 0; half < 2; half++) {
        batch s = make(&ds, LOGT_SPLIT_TRAIN, 2 + (uint64_t)half, 2);
        for (int t = 0; t < 9; t++)
            for (int b = 0; b < 2; b++)
                for (int i = 0; i < 2; i++)
                    cr_assert_eq(s.x[(t * 2 + b) * 2 + i], big.x[(t * 4 + 2 * half + b) * 2 + i]);
        drop(&s);
    }
    drop(&big);
}

/* ---- selective copying ------------------------------------------------------- */

static void check_selcopy(const logt_dataset *ds, int B)
{
    const int T = ds->T, K = ds->K, V = ds->V, I = V + 2;
    cr_assert_eq(ds->input_size, I);
    cr_assert_eq(ds->output_size, V);
    cr_assert_eq(ds->out_steps, K);
    cr_assert_eq(ds->loss, LOGT_LOSS_XENT);
    cr_assert_eq(logt_dataset_target_size(ds, B), (int64_t)K * B);
    batch bt = make(ds, LOGT_SPLIT_TEST, 2, B);
    for (int b = 0; b < B; b++) {
        int ntok = 0;
        for (int t = 0; t < T; t++) {
            const double *xt = bt.x + ((int64_t)t * B + b) * I;
            int hot = -1, ones = 0;
            for (int i = 0; i < I; i++) {
                cr_assert(xt[i] == 0 || xt[i] == 1, "input not one-hot: %g", xt[i]);
                if (xt[i] == 1) hot = i, ones++;
            }
            cr_assert_eq(ones, 1, "step %d of seq %d has %d ones", t, b, ones);
            if (t >= T - K) {
                cr_assert_eq(hot, V + 1, "step %d of the last K = %d is not 'go'", t, K);
            } else if (hot < V) {
                cr_assert(ntok < K, "more than K = %d tokens", K);
                cr_assert_eq(bt.t[(int64_t)ntok * B + b], hot, "target %d of seq %d: %g, data token %d",
                             ntok, b, bt.t[(int64_t)ntok * B + b], hot);
                ntok++;
            } else {
                cr_assert_eq(hot, V, "a 'go' before the last K steps");
            }
        }
        cr_assert_eq(ntok, K, "seq %d: %d data tokens, expected K = %d", b, ntok, K);
    }
    drop(&bt);
}

Test(datasets, selcopy_targets_are_the_tokens_in_order)
{
    logt_dataset ds;
    OK(logt_dataset_open("selcopy", 40, 1, &ds));
    cr_assert_eq(ds.K, 8);
    cr_assert_eq(ds.V, 8);
    check_selcopy(&ds, 6);
    OK(logt_dataset_open("selcopy", 16, 1, &ds));   /* T = 2K: no blanks at all */
    check_selcopy(&ds, 3);
    OK(logt_dataset_selcopy(9, 3, 4, 5, &ds));
    check_selcopy(&ds, 5);
    OK(logt_dataset_selcopy(500, 1, 1, 5, &ds));
    check_selcopy(&ds, 2);
}

/* Every data position is used, not just the first ones: over many sequences the
 * first token lands in the later half sometimes. */
Test(datasets, selcopy_positions_are_spread)
{
    logt_dataset ds;
    OK(logt_dataset_selcopy(100, 2, 4, 1, &ds));
    batch bt = make(&ds, LOGT_SPLIT_TRAIN, 0, 200);
    int late = 0;
    for (int b = 0; b < 200; b++) {
        int first = -1;
        for (int t = 0; t < 98 && first < 0; t++)
            if (bt.x[((int64_t)t * 200 + b) * 6 + 4] == 0) first = t;   /* not blank */
        if (first >= 49) late++;
    }
    /* P(first of 2 positions out of 98 >= 49) = (49·48)/(98·97) ≈ 0.247 */
    cr_assert(late > 25 && late < 75, "first token in the second half in %d of 200", late);
    drop(&bt);
}

/* ---- problem 2b -------------------------------------------------------------- */

static void check_2b(const logt_dataset *ds, int B, int *classes)
{
    const int T = ds->T, p = ds->V;
    cr_assert_eq(ds->input_size, p);
    cr_assert_eq(ds->output_size, 2);
    cr_assert_eq(ds->out_steps, 1);
    cr_assert_eq(ds->loss, LOGT_LOSS_XENT);
    batch bt = make(ds, LOGT_SPLIT_TRAIN, 3, B);
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            const double *xt = bt.x + ((int64_t)t * B + b) * p;
            int nonzero = 0, at = -1;
            for (int i = 0; i < p; i++)
                if (xt[i] != 0) nonzero++, at = i;
            cr_assert_eq(nonzero, 1, "T = %d seq %d step %d: %d non-zeros", T, b, t, nonzero);
            if (t == 0) cr_assert(at == 0 && (xt[0] == 1 || xt[0] == -1), "x_0 is not ±e_0");
            else cr_assert_eq(xt[at], 1.0, "a distractor is not one-hot");
        }
        const double sign = bt.x[(int64_t)b * p];
        cr_assert_eq(bt.t[b], sign > 0 ? 0.0 : 1.0, "class %g of a first element %g", bt.t[b], sign);
        classes[(int)bt.t[b]]++;
    }
    drop(&bt);
}

Test(datasets, b2_class_is_the_sign_of_the_first_element)
{
    logt_dataset ds;
    int classes[2] = {0, 0};
    OK(logt_dataset_open("2b", 50, 1, &ds));
    cr_assert_eq(ds.V, 128, "2b by name has Martin & Cundy's p = 128");
    check_2b(&ds, 7, classes);
    OK(logt_dataset_2b(2, 5, 4, &ds));   /* the shortest: one distractor */
    check_2b(&ds, 9, classes);
    OK(logt_dataset_2b(30, 1, 4, &ds));  /* p = 1: every distractor is e_0 itself */
    check_2b(&ds, 3, classes);
    OK(logt_dataset_2b(8, 3, 2, &ds));
    classes[0] = classes[1] = 0;
    check_2b(&ds, 400, classes);
    /* chance is 50%: each class 200 ± 10 (one standard deviation) */
    cr_assert(classes[0] > 150 && classes[1] > 150, "classes %d / %d of 400", classes[0], classes[1]);
}

/* Martin & Cundy's longest: T = 2^20 at the cost of writing x (a second here). */
Test(datasets, b2_a_million_steps, .timeout = 60)
{
    logt_dataset ds;
    OK(logt_dataset_2b(1 << 20, 4, 9, &ds));
    int classes[2] = {0, 0};
    check_2b(&ds, 2, classes);
}

/* ---- parity and modular sum -------------------------------------------------- */

/* Each sequence's symbols read back from its one-hot x: out[t] for t < T. */
static void symbols(const batch *bt, int T, int B, int m, int b, int *out)
{
    for (int t = 0; t < T; t++) {
        const double *xt = bt->x + ((int64_t)t * B + b) * m;
        int ones = 0;
        for (int i = 0; i < m; i++)
            if (xt[i] == 1) out[t] = i, ones++;
            else cr_assert_eq(xt[i], 0.0, "input not one-hot");
        cr_assert_eq(ones, 1, "step %d of seq %d has %d ones", t, b, ones);
    }
}

/* Parity by hand: the 16 strings of 4 bits, b0 b1 b2 b3, and their parities. */
Test(datasets, parity_of_known_bit_strings)
{
    static const int parity[16] = {0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0};
    logt_dataset ds;
    OK(logt_dataset_open("parity", 4, 5, &ds));
    cr_assert_eq(ds.V, 2);
    cr_assert_eq(ds.input_size, 2);
    cr_assert_eq(ds.output_size, 2);
    cr_assert_eq(ds.out_steps, 1);
    const int B = 200;
    batch bt = make(&ds, LOGT_SPLIT_VALID, 0, B);
    int seen[16] = {0};
    for (int b = 0; b < B; b++) {
        int bits[4];
        symbols(&bt, 4, B, 2, b, bits);
        int code = bits[0] | bits[1] << 1 | bits[2] << 2 | bits[3] << 3;
        cr_assert_eq(bt.t[b], parity[code], "bits %d%d%d%d: target %g, parity %d", bits[0],
                     bits[1], bits[2], bits[3], bt.t[b], parity[code]);
        seen[code]++;
    }
    for (int c = 0; c < 16; c++) cr_assert(seen[c] > 0, "string %d never drawn in %d", c, B);
    drop(&bt);
}

static void check_modsum(int T, int m, int B)
{
    logt_dataset ds;
    OK(logt_dataset_modsum(T, m, 3, &ds));
    cr_assert_str_eq(ds.name, m == 2 ? "parity" : "modsum");
    batch bt = make(&ds, LOGT_SPLIT_TEST, 1, B);
    int *k = malloc((size_t)T * sizeof *k);
    for (int b = 0; b < B; b++) {
        symbols(&bt, T, B, m, b, k);
        long sum = 0;
        for (int t = 0; t < T; t++) sum += k[t];
        cr_assert_eq(bt.t[b], (double)(sum % m), "T = %d m = %d: target %g, sum %ld", T, m, bt.t[b], sum);
    }
    free(k);
    drop(&bt);
}

Test(datasets, modsum_is_the_sum_mod_m)
{
    logt_dataset ds;
    OK(logt_dataset_open("modsum", 10, 1, &ds));
    cr_assert_eq(ds.V, 5);
    cr_assert_eq(ds.input_size, 5);
    cr_assert_eq(ds.output_size, 5);
    check_modsum(1, 5, 6);   /* T = 1: the target is the one symbol */
    check_modsum(3, 5, 50);
    check_modsum(100, 5, 4);
    check_modsum(33, 2, 5);
    check_modsum(9, 7, 5);
}

/* ---- digits ------------------------------------------------------------------ */

/* Fixture row i: pixel k = (5i + k²) mod 17, label 9 - i mod 10 (tests/fixtures/README.md). */
static int fixture_pixel(int i, int k) { return (5 * i + k * k) % 17; }
static int fixture_label(int i) { return 9 - i % 10; }

/* Which fixture row a sequence shows (its pixels in raster order), checking all 64. */
static int fixture_row(const batch *bt, int B, int b)
{
    const int i = (int)lround(bt->x[b] * 16) * 7 % 17;   /* pixel 0 = 5i mod 17, and 5·7 = 1 mod 17 */
    for (int t = 0; t < 64; t++)
        cr_assert_eq(bt->x[(int64_t)t * B + b], fixture_pixel(i, t) / 16.0,
                     "seq %d is not fixture row %d at pixel %d", b, i, t);
    cr_assert_eq(bt->t[b], fixture_label(i), "seq %d (row %d): label %g", b, i, bt->t[b]);
    return i;
}

/* Hand-worked from the fixture: row 0 is label 9 with pixels 0, 1, 4, 9, 16, 8 (= 25
 * mod 17), ...: x = pixel / 16, so x_4 = 1 and x_5 = 0.5. */
Test(datasets, digits_fixture_first_image)
{
    logt_dataset ds;
    OK(logt_dataset_digits(FIXTURES "/digits.csv", 0, 7, &ds));
    cr_assert_eq(ds.T, 64);
    cr_assert_eq(ds.input_size, 1);
    cr_assert_eq(ds.output_size, 10);
    cr_assert_eq(ds.out_steps, 1);
    cr_assert_eq(ds.loss, LOGT_LOSS_XENT);
    cr_assert_eq(ds.data->n, 16);
    int found = 0;
    for (int s = 0; s < 3; s++) {
        const int N = (int)(ds.data->split[s + 1] - ds.data->split[s]);
        batch bt = make(&ds, s, 0, N);
        for (int b = 0; b < N; b++)
            if (bt.x[b] == 0 && bt.x[(int64_t)N + b] == 1.0 / 16) {   /* pixels 0 and 1 of row 0 */
                cr_assert_eq(bt.t[b], 9.0);
                cr_assert_eq(bt.x[(int64_t)4 * N + b], 1.0);
                cr_assert_eq(bt.x[(int64_t)5 * N + b], 0.5);
                found++;
            }
        drop(&bt);
    }
    cr_assert_eq(found, 1, "fixture row 0 found %d times over the three splits", found);
    logt_dataset_close(&ds);
    cr_assert_null(ds.data);
}

/* The splits are round(n/10) = 2 for valid and test and 12 for train, they share no
 * image, they do not move with the seed, and a batch of a whole split is every image
 * of it once; the next epoch is the same images in another order. */
Test(datasets, digits_splits_partition_the_images)
{
    logt_dataset ds, other;
    OK(logt_dataset_digits(FIXTURES "/digits.csv", 0, 7, &ds));
    OK(logt_dataset_digits(FIXTURES "/digits.csv", 0, 8, &other));
    const int64_t sizes[3] = {12, 2, 2};
    int owner[16];
    for (int i = 0; i < 16; i++) owner[i] = -1;
    for (int s = 0; s < 3; s++) {
        const int N = (int)sizes[s];
        cr_assert_eq(ds.data->split[s + 1] - ds.data->split[s], N, "split %d", s);
        batch e0 = make(&ds, s, 0, N), e1 = make(&ds, s, 1, N), o = make(&other, s, 0, N);
        int rows0[16], rows1[16];
        for (int b = 0; b < N; b++) {
            rows0[b] = fixture_row(&e0, N, b);
            rows1[b] = fixture_row(&e1, N, b);
            cr_assert_eq(owner[rows0[b]], -1, "row %d in splits %d and %d", rows0[b], owner[rows0[b]], s);
            owner[rows0[b]] = s;
        }
        for (int b = 0; b < N; b++) {   /* epoch 1 and seed 8 visit the same rows */
            int in1 = 0, ino = 0;
            for (int c = 0; c < N; c++) in1 += rows1[c] == rows0[b], ino += fixture_row(&o, N, c) == rows0[b];
            cr_assert(in1 == 1 && ino == 1, "split %d: row %d in epoch 1 %d times, under seed 8 %d times",
                      s, rows0[b], in1, ino);
        }
        if (s == 0) cr_assert(!same(&e0, &e1), "epochs 0 and 1 of train in the same order");
        drop(&e0), drop(&e1), drop(&o);
    }
    for (int i = 0; i < 16; i++) cr_assert(owner[i] >= 0, "row %d is in no split", i);
    logt_dataset_close(&ds), logt_dataset_close(&other);
}

/* digits-perm: one permutation of the 64 pixels from the seed, the same for every
 * image: sequence n shows digits' sequence n with pixel[t] at step t. */
Test(datasets, digits_perm_is_one_fixed_permutation)
{
    logt_dataset plain, perm, again, other;
    OK(logt_dataset_digits(FIXTURES "/digits.csv", 0, 5, &plain));
    OK(logt_dataset_digits(FIXTURES "/digits.csv", 1, 5, &perm));
    OK(logt_dataset_digits(FIXTURES "/digits.csv", 1, 5, &again));
    OK(logt_dataset_digits(FIXTURES "/digits.csv", 1, 6, &other));
    cr_assert_str_eq(perm.name, "digits-perm");
    int seen[64] = {0}, moved = 0;
    for (int t = 0; t < 64; t++) {
        cr_assert(perm.data->pixel[t] >= 0 && perm.data->pixel[t] < 64);
        seen[perm.data->pixel[t]]++;
        moved += perm.data->pixel[t] != t;
        cr_assert_eq(plain.data->pixel[t], t, "digits is in raster order");
    }
    for (int k = 0; k < 64; k++) cr_assert_eq(seen[k], 1, "pixel %d shown %d times", k, seen[k]);
    cr_assert(moved > 32, "the permutation moves only %d pixels", moved);
    cr_assert(!memcmp(perm.data->pixel, again.data->pixel, sizeof perm.data->pixel), "same seed, other permutation");
    cr_assert(memcmp(perm.data->pixel, other.data->pixel, sizeof perm.data->pixel), "seeds 5 and 6 agree");
    const int B = 12;
    batch p = make(&plain, LOGT_SPLIT_TRAIN, 2, B), q = make(&perm, LOGT_SPLIT_TRAIN, 2, B);
    for (int b = 0; b < B; b++) {
        cr_assert_eq(q.t[b], p.t[b]);
        for (int t = 0; t < 64; t++)
            cr_assert_eq(q.x[(int64_t)t * B + b], p.x[(int64_t)perm.data->pixel[t] * B + b]);
    }
    drop(&p), drop(&q);
    logt_dataset_close(&plain), logt_dataset_close(&perm), logt_dataset_close(&again), logt_dataset_close(&other);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* 12 good rows of the digits format at path, line 3 replaced by `third` if given. */
static void write_digits(const char *path, const char *third)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    for (int i = 0; i < 12; i++) {
        if (i == 2 && third) {
            fprintf(f, "%s\n", third);
            continue;
        }
        for (int k = 0; k < 64; k++) fprintf(f, "%d,", k % 17);
        fprintf(f, "%d\n", i % 10);
    }
    fclose(f);
}

/* A broken row is an error naming the file's line and what a row should be. */
Test(datasets, digits_bad_rows_name_the_line)
{
    char path[] = "/tmp/logt-digits-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    logt_dataset ds;
    write_digits(path, NULL);
    OK(logt_dataset_digits(path, 0, 1, &ds));
    logt_dataset_close(&ds);
    write_digits(path, "0,17,2");
    cr_assert_eq(logt_dataset_digits(path, 0, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "line 3: field 2 is not a pixel 0..16"), "message: %s", logt_errmsg());
    cr_assert_null(ds.data);
    write_digits(path, "0,1");
    cr_assert_eq(logt_dataset_digits(path, 0, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "line 3: expected 65 comma-separated fields"), "message: %s", logt_errmsg());
    write_file(path, "0,1,2\n");
    cr_assert_eq(logt_dataset_digits(path, 0, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "holds 1 images"), "message: %s", logt_errmsg());
    unlink(path);
}

/* The real file, where `make datasets` has fetched it: 1797 images, 1437/180/180. */
Test(datasets, digits_real_file_when_fetched)
{
    if (access("datasets/data/digits.csv", R_OK) != 0)
        cr_skip_test("datasets/data/digits.csv not fetched (make datasets): nothing to check");
    logt_dataset ds;
    OK(logt_dataset_digits("datasets/data/digits.csv", 0, 1, &ds));
    cr_assert_eq(ds.data->n, 1797);
    cr_assert_eq(ds.data->split[1], 1437);
    cr_assert_eq(ds.data->split[2], 1617);
    cr_assert_eq(ds.data->split[3], 1797);
    int count[10] = {0};
    for (int64_t i = 0; i < ds.data->n; i++) count[ds.data->labels[i]]++;
    for (int c = 0; c < 10; c++) cr_assert(count[c] > 170 && count[c] < 190, "%d images of %d", count[c], c);
    logt_dataset_close(&ds);
}

/* ---- charlm ------------------------------------------------------------------ */

static char *slurp(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    char *buf = malloc(1 << 16);
    *n = (long)fread(buf, 1, (1 << 16) - 1, f);
    buf[*n] = '\0';
    fclose(f);
    return buf;
}

static char symbol_char(int k) { return k == 0 ? '\n' : (char)(k + 31); }

/* Every window read back from x (and the last target) is T+1 consecutive characters
 * of the fixture inside its split, and target t is the character at step t+1. */
Test(datasets, charlm_targets_are_the_next_characters)
{
    logt_dataset ds;
    const int T = 16, B = 5;
    OK(logt_dataset_charlm(FIXTURES "/fortunes.txt", T, 3, &ds));
    cr_assert_eq(ds.input_size, 96);
    cr_assert_eq(ds.output_size, 96);
    cr_assert_eq(ds.out_steps, T, "a target at every step");
    cr_assert_eq(ds.loss, LOGT_LOSS_XENT);
    cr_assert(ds.report_bpc);
    cr_assert_eq(logt_dataset_target_size(&ds, B), T * B);
    long n;
    char *text = slurp(FIXTURES "/fortunes.txt", &n);
    cr_assert_eq(ds.data->n, n);
    cr_assert_eq(ds.data->split[1], n * 9 / 10);
    for (int s = 0; s < 3; s++)
        for (uint64_t index = 0; index < 4; index++) {
            batch bt = make(&ds, s, index, B);
            for (int b = 0; b < B; b++) {
                char window[64];
                for (int t = 0; t < T; t++) {
                    const double *xt = bt.x + ((int64_t)t * B + b) * 96;
                    int k = -1;
                    for (int i = 0; i < 96; i++)
                        if (xt[i] == 1) k = i;
                    cr_assert(k >= 0, "step %d has no one", t);
                    window[t] = symbol_char(k);
                    if (t > 0) cr_assert_eq(bt.t[(int64_t)(t - 1) * B + b], k, "target %d is not x_%d", t - 1, t);
                }
                window[T] = symbol_char((int)bt.t[(int64_t)(T - 1) * B + b]);
                window[T + 1] = '\0';
                int inside = 0;
                for (long o = ds.data->split[s]; o + T < ds.data->split[s + 1]; o++)
                    inside |= !memcmp(text + o, window, (size_t)T + 1);
                cr_assert(inside, "split %d: window \"%s\" is not in the split", s, window);
            }
            drop(&bt);
        }
    free(text);
    logt_dataset_close(&ds);
}

/* By hand: a 40-character text; valid holds positions 36, 37 ("A\n") and test 38, 39
 * ("~ "), so at T = 1 their only window is x = 'A' (symbol 65 - 31 = 34) with target
 * '\n' (0), and x = '~' (95) with target ' ' (1). */
Test(datasets, charlm_symbols_by_hand)
{
    char path[] = "/tmp/logt-charlm-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    write_file(path, "the quick brown fox jumps over a dogA\n~ ");
    logt_dataset ds;
    cr_assert_eq(logt_dataset_charlm(path, 2, 1, &ds), LOGT_EINVAL, "T = 2 cannot fit the valid split");
    cr_assert(strstr(logt_errmsg(), "valid split") && strstr(logt_errmsg(), "T + 1 = 3"), "message: %s",
              logt_errmsg());
    OK(logt_dataset_charlm(path, 1, 1, &ds));
    cr_assert_eq(ds.data->n, 40);
    cr_assert_eq(ds.data->split[1], 36);
    cr_assert_eq(ds.data->split[2], 38);
    const int expect[2][2] = {{'A' - 31, 0}, {'~' - 31, 1}};   /* {x, target} of valid, test */
    for (int s = 1; s <= 2; s++) {
        batch bt = make(&ds, s, 0, 3);
        for (int b = 0; b < 3; b++) {
            cr_assert_eq(bt.x[b * 96 + expect[s - 1][0]], 1.0, "split %d: x is not symbol %d", s, expect[s - 1][0]);
            cr_assert_eq(bt.t[b], expect[s - 1][1]);
        }
        drop(&bt);
    }
    logt_dataset_close(&ds);
    write_file(path, "tab\there and more text to fill the forty characters out");
    cr_assert_eq(logt_dataset_charlm(path, 1, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "byte 0x09 at offset 3"), "message: %s", logt_errmsg());
    cr_assert_null(ds.data);
    unlink(path);
}

/* ---- the loaded sets' files -------------------------------------------------- */

/* A missing file names the package it comes from and the command that fetches it. */
Test(datasets, missing_file_names_package_and_command)
{
    logt_dataset ds;
    setenv("LOGT_DATA_DIR", "/nonexistent-logt-data", 1);
    cr_assert_eq(logt_dataset_open("digits", 64, 1, &ds), LOGT_EIO);
    const char *m = logt_errmsg();
    cr_assert(strstr(m, "/nonexistent-logt-data/digits.csv") && strstr(m, "python3-sklearn") &&
                  strstr(m, "make datasets") && strstr(m, "LOGT_DATA_DIR"),
              "message: %s", m);
    cr_assert_eq(logt_dataset_open("charlm", 100, 1, &ds), LOGT_EIO);
    m = logt_errmsg();
    cr_assert(strstr(m, "/nonexistent-logt-data/fortunes.txt") && strstr(m, "fortunes package") &&
                  strstr(m, "make datasets"),
              "message: %s", m);
    cr_assert_null(ds.data);
    unsetenv("LOGT_DATA_DIR");
    char path[64];
    logt_data_path(path, sizeof path, "digits.csv");
    cr_assert_str_eq(path, "datasets/data/digits.csv", "the default directory");
}

/* The one-hot tasks give their batches as codes too: expanded, the codes are the dense
 * batch exactly, target included; every code names a place in [0, I); a task that is not
 * one-hot refuses. */
Test(datasets, codes_expand_to_the_dense_batch)
{
    const struct { const char *name; int T; } cases[] = {
        {"selcopy", 40}, {"2b", 33}, {"parity", 17}, {"modsum", 9}, {"charlm", 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        logt_dataset ds;
        if (!strcmp(cases[i].name, "charlm")) OK(logt_dataset_charlm(FIXTURES "/fortunes.txt", cases[i].T, 4, &ds));
        else OK(logt_dataset_open(cases[i].name, cases[i].T, 4, &ds));
        cr_assert(ds.onehot, "%s is one-hot", cases[i].name);
        const int B = 3, T = ds.T, I = ds.input_size;
        for (int split = 0; split < 3; split++) {
            batch bt = make(&ds, split, 2, B);
            int32_t *code = malloc(sizeof(int32_t) * (size_t)(T * B));
            double *t = malloc(sizeof(double) * (size_t)bt.nt), *x = malloc(sizeof(double) * (size_t)bt.nx);
            OK(logt_dataset_codes(&ds, split, 2, B, code, t));
            for (int64_t k = 0; k < (int64_t)T * B; k++) {
                const int32_t c = code[k] < 0 ? ~code[k] : code[k];
                cr_assert(c < I, "%s: code %d outside [0, %d)", cases[i].name, code[k], I);
                for (int j = 0; j < I; j++) x[k * I + j] = j == c ? (code[k] < 0 ? -1.0 : 1.0) : 0.0;
            }
            cr_assert(!memcmp(x, bt.x, sizeof(double) * (size_t)bt.nx), "%s split %d: codes differ from x",
                      cases[i].name, split);
            cr_assert(!memcmp(t, bt.t, sizeof(double) * (size_t)bt.nt), "%s split %d: targets differ",
                      cases[i].name, split);
            free(code), free(t), free(x);
            drop(&bt);
        }
        logt_dataset_close(&ds);
    }
    logt_dataset ds;
    OK(logt_dataset_open("adding", 10, 1, &ds));
    cr_assert(!ds.onehot);
    int32_t code[30];
    double t[3];
    cr_assert_eq(logt_dataset_codes(&ds, 0, 0, 3, code, t), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "'adding' is not one-hot"), "%s", logt_errmsg());
}

Test(datasets, closed_set_is_an_error)
{
    logt_dataset ds;
    OK(logt_dataset_digits(FIXTURES "/digits.csv", 0, 1, &ds));
    logt_dataset_close(&ds);
    logt_dataset_close(&ds);   /* twice is harmless */
    double x[64], t[1];
    cr_assert_eq(logt_dataset_batch(&ds, 0, 0, 1, x, t), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "closed"), "message: %s", logt_errmsg());
}

/* ---- errors ------------------------------------------------------------------ */

Test(datasets, unknown_name_lists_the_known_ones)
{
    logt_dataset ds;
    cr_assert_eq(logt_dataset_open("addding", 10, 1, &ds), LOGT_EINVAL);
    const char *m = logt_errmsg();
    cr_assert(strstr(m, "'addding'") && strstr(m, "adding") && strstr(m, "selcopy"), "message: %s", m);
    const char *all[] = {"2b", "parity", "modsum", "digits", "digits-perm", "charlm"};
    for (int k = 0; k < 6; k++) cr_assert(strstr(m, all[k]), "%s is not listed: %s", all[k], m);
}

Test(datasets, too_short_says_the_minimum)
{
    logt_dataset ds;
    cr_assert_eq(logt_dataset_open("adding", 1, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "T >= 2"), "message: %s", logt_errmsg());
    cr_assert_eq(logt_dataset_open("selcopy", 15, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "T >= 2K = 16"), "message: %s", logt_errmsg());
    cr_assert_eq(logt_dataset_selcopy(5, 3, 4, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "T >= 2K = 6"), "message: %s", logt_errmsg());
    cr_assert_eq(logt_dataset_selcopy(10, 0, 4, 1, &ds), LOGT_EINVAL);
    cr_assert_eq(logt_dataset_selcopy(10, 2, 0, 1, &ds), LOGT_EINVAL);
    cr_assert_eq(logt_dataset_open("2b", 1, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "2b needs T >= 2"), "message: %s", logt_errmsg());
    cr_assert_eq(logt_dataset_2b(10, 0, 1, &ds), LOGT_EINVAL);
    cr_assert_eq(logt_dataset_open("parity", 0, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "parity needs T >= 1"), "message: %s", logt_errmsg());
    cr_assert_eq(logt_dataset_modsum(10, 1, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "m = 1"), "message: %s", logt_errmsg());
}

/* The digits are 64 pixels: any other T is refused before the file is read. */
Test(datasets, digits_need_t_64)
{
    logt_dataset ds;
    use_fixtures();
    cr_assert_eq(logt_dataset_open("digits", 63, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "T must be 64, got T = 63"), "message: %s", logt_errmsg());
    cr_assert_eq(logt_dataset_open("digits-perm", 784, 1, &ds), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "digits-perm") && strstr(logt_errmsg(), "T must be 64"),
              "message: %s", logt_errmsg());
    cr_assert_null(ds.data);
}

Test(datasets, bad_split_and_batch)
{
    logt_dataset ds;
    OK(logt_dataset_open("adding", 4, 1, &ds));
    double x[16], t[2];
    cr_assert_eq(logt_dataset_batch(&ds, 3, 0, 2, x, t), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "split 3"), "message: %s", logt_errmsg());
    cr_assert_eq(logt_dataset_batch(&ds, 0, 0, 0, x, t), LOGT_EINVAL);
    cr_assert_eq(logt_dataset_batch(&ds, 0, 1ull << 40, 1, x, t), LOGT_EINVAL);
}
