/* test_datasets.c — the synthetic tasks: their known answers, reproducibility,
 * and the errors for bad names and lengths. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../datasets/dataset.h"

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

/* Every task by name. */
Test(datasets, same_index_same_batch_and_splits_differ)
{
    const char *names[] = {"adding", "selcopy", "2b", "parity", "modsum"};
    for (int k = 0; k < 5; k++) {
        logt_dataset ds, other_seed;
        OK(logt_dataset_open(names[k], 32, 1, &ds));
        OK(logt_dataset_open(names[k], 32, 2, &other_seed));
        batch a = make(&ds, LOGT_SPLIT_TRAIN, 5, 4), b = make(&ds, LOGT_SPLIT_TRAIN, 5, 4);
        batch c = make(&ds, LOGT_SPLIT_TRAIN, 6, 4), v = make(&ds, LOGT_SPLIT_VALID, 5, 4);
        batch te = make(&ds, LOGT_SPLIT_TEST, 5, 4), s2 = make(&other_seed, LOGT_SPLIT_TRAIN, 5, 4);
        cr_assert(same(&a, &b), "%s: batch 5 made twice differs", names[k]);
        cr_assert(!same(&a, &c), "%s: batches 5 and 6 are equal", names[k]);
        cr_assert(!same(&a, &v), "%s: train and valid batch 5 are equal", names[k]);
        cr_assert(!same(&v, &te), "%s: valid and test batch 5 are equal", names[k]);
        cr_assert(!same(&a, &s2), "%s: seeds 1 and 2 give the same batch", names[k]);
        drop(&a), drop(&b), drop(&c), drop(&v), drop(&te), drop(&s2);
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
    /* by hand: 4 + 4 + 3 = 11 = 1 mod 5, and 2 + 3 = 5 = 0 mod 5, as the loop computes */
    cr_assert_eq((4 + 4 + 3) % 5, 1);
    check_modsum(1, 5, 6);   /* T = 1: the target is the one symbol */
    check_modsum(3, 5, 50);
    check_modsum(100, 5, 4);
    check_modsum(33, 2, 5);
    check_modsum(9, 7, 5);
}

/* ---- errors ------------------------------------------------------------------ */

Test(datasets, unknown_name_lists_the_known_ones)
{
    logt_dataset ds;
    cr_assert_eq(logt_dataset_open("addding", 10, 1, &ds), LOGT_EINVAL);
    const char *m = logt_errmsg();
    cr_assert(strstr(m, "'addding'") && strstr(m, "adding") && strstr(m, "selcopy"), "message: %s", m);
    const char *all[] = {"2b", "parity", "modsum"};
    for (int k = 0; k < 3; k++) cr_assert(strstr(m, all[k]), "%s is not listed: %s", all[k], m);
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
