/* test_shard.c — one sweep split over processes, end to end on the CPU: shards
 * (`logt run --shard I/N`), their merge (`logt merge`), and MPI ranks (`mpirun -np 2
 * logt run --mpi`). Every run lands in exactly one shard for any N; shards merged, and
 * a sweep run by two ranks, hold what one process writes (everything but what clocks
 * measure); shards that do not belong together, or not all there, are refused with the
 * reason; and no file is ever replaced.
 */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner/store.h"
#include "cli.h"

static void setup(void) { cli_setup("shard"); }

TestSuite(shard, .init = setup, .fini = cli_teardown, .timeout = 60);

/* Eleven speed runs (a prime number of them: no N divides it evenly), one per seed. */
static const char *const seeds_ini =
    "[experiment]\n"
    "name = seeds\n"
    "models = lstm\n"
    "kind = speed\n"
    "[sweep]\n"
    "T = 4\n"
    "B = 1\n"
    "D = 2\n"
    "seed = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11\n"
    "[speed]\n"
    "warmup = 0\n"
    "repeats = 1\n";

/* Seven runs of both kinds: three trainings (deterministic on the CPU) and four speed
 * runs, two of which fail (head_dim 3: lstm has one head) and are results too. */
static const char *const mixed_ini =
    "[experiment]\n"
    "name = mixed\n"
    "models = lstm\n"
    "kind = train, speed\n"
    "[sweep]\n"
    "B = 3\n"
    "D = 4\n"
    "[train]\n"
    "T = 6\n"
    "seed = 1, 2, 3\n"
    "steps = 12\n"
    "eval_every = 5\n"
    "eval_batches = 2\n"
    "[speed]\n"
    "T = 4, 8\n"
    "head_dim = 0, 3\n"
    "pass = fwdbwd\n"
    "warmup = 0\n"
    "repeats = 2\n";

/* ---- comparing two results files ------------------------------------------------------ */

/* What clocks measure, different in any two runs of one sweep: left out of comparisons. */
static const char *const timed[] = {"created", "updated", "started", "wall_s", "eval_wall_s",
                                    "time_ms", "median_ms", "p10_ms", "p90_ms", "tokens_per_s"};

static int is_timed(const char *name)
{
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++)
        if (!strcmp(name, timed[i])) return 1;
    return 0;
}

typedef struct names {
    int n;
    char v[64][64];
} names;

static herr_t add_attr_name(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)loc, (void)info;
    names *l = data;
    cr_assert_lt(l->n, 64);
    snprintf(l->v[l->n++], sizeof l->v[0], "%s", name);
    return 0;
}

static herr_t add_link_name(hid_t loc, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    return add_attr_name(loc, name, NULL, data);
}

static void same_names(const names *a, const names *b, const char *what, const char *path)
{
    char la[4096] = "", lb[4096] = "";
    for (int i = 0; i < a->n; i++) strcat(strcat(la, a->v[i]), " ");
    for (int i = 0; i < b->n; i++) strcat(strcat(lb, b->v[i]), " ");
    cr_assert_str_eq(la, lb, "%s of %s differ: %s| vs %s|", what, path, la, lb);
}

/* Attribute `name` of a and b: same type class and value. */
static void same_attr(hid_t a, hid_t b, const char *name, const char *path)
{
    hid_t aa = H5Aopen(a, name, H5P_DEFAULT), ab = H5Aopen(b, name, H5P_DEFAULT);
    hid_t ta = H5Aget_type(aa), tb = H5Aget_type(ab);
    H5T_class_t c = H5Tget_class(ta);
    cr_assert_eq(c, H5Tget_class(tb), "attribute %s of %s: another type", name, path);
    if (c == H5T_STRING) {
        char *va = NULL, *vb = NULL;
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5T_CSET_UTF8);
        cr_assert_geq(H5Aread(aa, mt, &va), 0);
        cr_assert_geq(H5Aread(ab, mt, &vb), 0);
        cr_assert_str_eq(va, vb, "attribute %s of %s", name, path);
        H5free_memory(va);
        H5free_memory(vb);
        H5Tclose(mt);
    } else if (c == H5T_INTEGER) {
        int64_t va, vb;
        cr_assert_geq(H5Aread(aa, H5T_NATIVE_INT64, &va), 0);
        cr_assert_geq(H5Aread(ab, H5T_NATIVE_INT64, &vb), 0);
        cr_assert_eq(va, vb, "attribute %s of %s: %lld vs %lld", name, path, (long long)va,
                     (long long)vb);
    } else {
        double va, vb;
        cr_assert_eq(c, H5T_FLOAT, "attribute %s of %s", name, path);
        cr_assert_geq(H5Aread(aa, H5T_NATIVE_DOUBLE, &va), 0);
        cr_assert_geq(H5Aread(ab, H5T_NATIVE_DOUBLE, &vb), 0);
        cr_assert(va == vb || (isnan(va) && isnan(vb)), "attribute %s of %s: %.17g vs %.17g", name,
                  path, va, vb);
    }
    H5Tclose(ta), H5Tclose(tb), H5Aclose(aa), H5Aclose(ab);
}

/* An f64 dataset of a run: same shape, same growth limit, same values. */
static void same_dataset(hid_t a, hid_t b, const char *path)
{
    hid_t sa = H5Dget_space(a), sb = H5Dget_space(b);
    hsize_t na, nb, ma, mb;
    cr_assert_eq(H5Sget_simple_extent_ndims(sa), 1, "%s", path);
    H5Sget_simple_extent_dims(sa, &na, &ma);
    H5Sget_simple_extent_dims(sb, &nb, &mb);
    cr_assert(na == nb && ma == mb, "%s: %llu (max %llu) vs %llu (max %llu) values", path,
              (unsigned long long)na, (unsigned long long)ma, (unsigned long long)nb,
              (unsigned long long)mb);
    double *va = calloc(na + 1, sizeof *va), *vb = calloc(na + 1, sizeof *vb);
    if (na) {
        cr_assert_geq(H5Dread(a, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, va), 0);
        cr_assert_geq(H5Dread(b, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, vb), 0);
    }
    for (hsize_t i = 0; i < na; i++)
        cr_assert(va[i] == vb[i] || (isnan(va[i]) && isnan(vb[i])), "%s[%llu]: %.17g vs %.17g", path,
                  (unsigned long long)i, va[i], vb[i]);
    free(va), free(vb);
    H5Sclose(sa), H5Sclose(sb);
}

/* Objects a and b (groups or datasets at `path`), recursively: the same attributes and
 * members by name, and the same values, except what is timed; /summary is compared
 * row by row elsewhere. */
static void same_object(hid_t a, hid_t b, const char *path)
{
    names na = {0}, nb = {0};
    hsize_t at = 0;
    H5Aiterate2(a, H5_INDEX_NAME, H5_ITER_INC, &at, add_attr_name, &na);
    at = 0;
    H5Aiterate2(b, H5_INDEX_NAME, H5_ITER_INC, &at, add_attr_name, &nb);
    same_names(&na, &nb, "attributes", path);
    for (int i = 0; i < na.n; i++)
        if (!is_timed(na.v[i])) same_attr(a, b, na.v[i], path);
    H5O_info_t info;
    H5Oget_info2(a, &info, H5O_INFO_BASIC);
    if (info.type == H5O_TYPE_DATASET) {
        same_dataset(a, b, path);
        return;
    }
    names la = {0}, lb = {0};
    H5Literate(a, H5_INDEX_NAME, H5_ITER_INC, NULL, add_link_name, &la);
    H5Literate(b, H5_INDEX_NAME, H5_ITER_INC, NULL, add_link_name, &lb);
    same_names(&la, &lb, "members", path);
    for (int i = 0; i < la.n; i++) {
        if (is_timed(la.v[i]) || !strcmp(la.v[i], "summary")) continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s/%s", strcmp(path, "/") ? path : "", la.v[i]);
        hid_t ca = H5Oopen(a, la.v[i], H5P_DEFAULT), cb = H5Oopen(b, la.v[i], H5P_DEFAULT);
        cr_assert(ca >= 0 && cb >= 0, "cannot open %s", sub);
        same_object(ca, cb, sub);
        H5Oclose(ca), H5Oclose(cb);
    }
}

/* Results files a and b (in the test directory) hold the same sweep: the same runs with
 * the same numbers, attributes and datasets, and the same summary, up to timings. */
static void same_results(const char *a, const char *b)
{
    char pa[PATH_MAX], pb[PATH_MAX];
    snprintf(pa, sizeof pa, "%s/%s", dir, a);
    snprintf(pb, sizeof pb, "%s/%s", dir, b);
    hid_t fa = H5Fopen(pa, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(pb, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(fa >= 0 && fb >= 0, "cannot open %s or %s", a, b);
    same_object(fa, fb, "/");
    H5Fclose(fa), H5Fclose(fb);

    logt_store *sa = open_results(a), *sb = open_results(b);
    logt_summary_row *ra, *rb;
    int64_t n, m;
    cr_assert_eq(logt_store_summary(sa, &ra, &n), LOGT_OK);
    cr_assert_eq(logt_store_summary(sb, &rb, &m), LOGT_OK);
    cr_assert_eq(n, m, "/summary: %lld vs %lld rows", (long long)n, (long long)m);
    for (int64_t i = 0; i < n; i++) {
        logt_summary_row *r[2] = {&ra[i], &rb[i]};
        for (int k = 0; k < 2; k++) r[k]->median_ms = r[k]->p10_ms = r[k]->p90_ms = r[k]->tokens_per_s = 0;
        cr_assert_eq(memcmp(&ra[i], &rb[i], sizeof ra[i]), 0, "/summary row %lld (run %lld, %s %s) differs",
                     (long long)i, (long long)ra[i].run, ra[i].kind, ra[i].knobs);
    }
    free(ra), free(rb);
    logt_store_close(sa), logt_store_close(sb);
}

static int64_t root_i64(logt_store *st, const char *name)
{
    int64_t v = -1;
    cr_assert_eq(logt_store_root_i64(st, name, &v), LOGT_OK, "%s", logt_errmsg());
    return v;
}

/* ---- shards ------------------------------------------------------------------------------ */

/* For N = 1..7 and 12 (more shards than runs), the N shard files hold every run of the
 * sweep exactly once, each run of shard I at a place k = I mod N, with the key the whole
 * sweep has there; merged, they give back the sweep in order. */
Test(shard, every_run_in_exactly_one_shard)
{
    write_at("exp/experiment.ini", seeds_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 0, "%s", err);
    logt_store *whole = open_results("whole.h5");
    enum { RUNS = 11 };
    cr_assert_eq(count_ok_runs(whole), RUNS);
    static const int counts[] = {1, 2, 3, 4, 5, 6, 7, 12};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        const int n = counts[c];
        int seen[RUNS] = {0};
        char args[256], rel[128], merge[4096] = "merge --out merged-";
        snprintf(merge + strlen(merge), 32, "%d.h5", n);
        for (int i = 0; i < n; i++) {
            snprintf(args, sizeof args, "run exp --backend cpu --shard %d/%d", i, n);
            cr_assert_eq(logt(NULL, args), 0, "%s", err);
            snprintf(rel, sizeof rel, "results/local/seeds.shard-%d-of-%d.h5", i, n);
            strcat(strcat(merge, " "), rel);
            logt_store *st = open_results(rel);
            cr_assert_eq(root_i64(st, "shard_index"), i);
            cr_assert_eq(root_i64(st, "shard_count"), n);
            cr_assert_eq(root_i64(st, "sweep_runs"), RUNS);
            const int runs = count_ok_runs(st);
            cr_assert_eq(runs, i < RUNS ? (RUNS - 1 - i) / n + 1 : 0, "shard %d/%d has %d runs", i, n, runs);
            for (int j = 0; j < runs; j++) {
                int64_t id, place, at;
                const char *key;
                logt_run_state state;
                logt_store_run_at(st, j, &id, &key, &state);
                cr_assert_eq(logt_store_get_i64(st, id, "", "sweep_index", &place), LOGT_OK);
                cr_assert(place >= 0 && place < RUNS && place % n == i, "shard %d/%d holds place %lld",
                          i, n, (long long)place);
                seen[place]++;
                logt_store_find(whole, key, &at, &state);
                cr_assert_eq(at, place, "shard %d/%d: %s is run %lld of the whole sweep, not %lld", i, n,
                             key, (long long)at, (long long)place);
            }
            logt_store_close(st);
        }
        for (int k = 0; k < RUNS; k++) cr_assert_eq(seen[k], 1, "N = %d: run %d is in %d shards", n, k, seen[k]);
        cr_assert_eq(logt(NULL, merge), 0, "%s", err);
        snprintf(rel, sizeof rel, "merged-%d.h5", n);
        logt_store *st = open_results(rel);
        cr_assert_eq(count_ok_runs(st), RUNS);
        for (int j = 0; j < RUNS; j++) {
            int64_t id, at;
            const char *key;
            logt_run_state state;
            logt_store_run_at(st, j, &id, &key, &state);
            logt_store_find(whole, key, &at, &state);
            cr_assert_eq(at, id, "N = %d: %s is run %lld, one process has it at %lld", n, key,
                         (long long)id, (long long)at);
            cr_assert(!logt_store_has(st, id, "", "sweep_index"));
        }
        cr_assert(!logt_store_root_has(st, "shard_count"));
        logt_store_close(st);
    }
    logt_store_close(whole);
}

/* Two shards merged (and five, some of one run) equal one process: runs, attributes,
 * datasets (training curves and checkpoints included), failed runs and their errors,
 * the summary; only clocks differ. The default names go together: results/local/NAME.shard-
 * I-of-N.h5 merge into results/local/NAME.h5. */
Test(shard, merged_shards_equal_one_process)
{
    write_at("exp/experiment.ini", mixed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 1, "%s", err);
    EXPECT_ERR("2 of 7 runs failed");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 0/2"), 1, "%s", err);
    EXPECT_ERR("[1/4 of shard 0/2]");
    EXPECT_ERR("mixed on cpu: shard 0/2: 4 of the sweep's 7 runs");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/2"), 0, "%s", err);
    EXPECT_ERR("-> results/local/mixed.shard-1-of-2.h5");
    cr_assert_eq(logt(NULL, "merge results/local/mixed.shard-1-of-2.h5 results/local/mixed.shard-0-of-2.h5"), 0,
                 "%s", err);
    EXPECT_ERR("mixed: merged 2 of 2 shards (7 runs: 5 ok, 2 failed) -> results/local/mixed.h5");
    same_results("whole.h5", "results/local/mixed.h5");

    char args[128], merge[1024] = "merge --out five.h5";
    for (int i = 0; i < 5; i++) {
        snprintf(args, sizeof args, "run exp --backend cpu --shard %d/5 --out s%d.h5", i, i);
        int rc = logt(NULL, args);
        cr_assert(rc == 0 || rc == 1, "%s", err);
        snprintf(merge + strlen(merge), 16, " s%d.h5", i);
    }
    cr_assert_eq(logt(NULL, merge), 0, "%s", err);
    same_results("whole.h5", "five.h5");
}

/* A shard resumes like a whole sweep: killed after one run, run again, then merged. */
Test(shard, killed_shard_resumes_and_merges)
{
    write_at("exp/experiment.ini", mixed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 1, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 0/2"), 1, "%s", err);   /* its 2 failed runs */
    cr_assert_eq(logt("LOGT_TEST_DIE_AFTER_RUNS=1", "run exp --backend cpu --shard 1/2"), 137, "%s", err);
    cr_assert_eq(logt(NULL, "merge results/local/mixed.shard-0-of-2.h5 results/local/mixed.shard-1-of-2.h5"), 1);
    EXPECT_ERR("the shards of 'mixed' are incomplete: results/local/mixed.shard-1-of-2.h5 (shard 1/2) has "
               "finished 1 of its 3 runs");
    EXPECT_ERR("--partial");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/2"), 0, "%s", err);
    EXPECT_ERR("1 already in results/local/mixed.shard-1-of-2.h5 (skipped), 2 to run");
    cr_assert_eq(logt(NULL, "merge results/local/mixed.shard-0-of-2.h5 results/local/mixed.shard-1-of-2.h5"), 0,
                 "%s", err);
    same_results("whole.h5", "results/local/mixed.h5");
}

Test(shard, bad_shard_arguments)
{
    write_at("exp/experiment.ini", seeds_ini);
    cr_assert_eq(logt(NULL, "run exp --shard 2/2"), 2);
    EXPECT_ERR("--shard 2/2: I must be less than N: shards are counted from 0, so the 2 shards are 0/2 to 1/2");
    cr_assert_eq(logt(NULL, "run exp --shard 0/0"), 2);
    EXPECT_ERR("--shard 0/0: N is the number of shards, at least 1");
    static const char *const malformed[] = {"1", "1/", "/2", "-1/2", "1/2/3", "a/b", "1/+2", "1.0/2"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        char args[64], msg[128];
        snprintf(args, sizeof args, "run exp --shard %s", malformed[i]);
        cr_assert_eq(logt(NULL, args), 2, "%s: %s", args, err);
        snprintf(msg, sizeof msg, "--shard expects I/N, shard I of N counted from 0 (0/4, 1/4, 2/4 and "
                 "3/4 split a sweep in four), got '%s'", malformed[i]);
        EXPECT_ERR(msg);
    }
    cr_assert_eq(logt(NULL, "run exp --shard"), 2);
    EXPECT_ERR("--shard needs a value");
    cr_assert_eq(logt(NULL, "run exp --shard 0/2 --mpi"), 2);
    EXPECT_ERR("--mpi gives each rank its shard: leave out --shard");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/results", dir);
    cr_assert_neq(access(path, F_OK), 0, "bad arguments made a results directory");
}

/* A shard file holds one shard of one sweep: another shard, a run without --shard, and
 * a changed experiment are refused, as is a shard into a whole sweep's file. */
Test(shard, shard_files_hold_one_shard)
{
    write_at("exp/experiment.ini", seeds_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/3 --out s.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 0/3 --out s.h5"), 1);
    EXPECT_ERR("s.h5 holds shard 1/3 of 'seeds', not 0/3");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/2 --out s.h5"), 1);
    EXPECT_ERR("s.h5 holds shard 1/3 of 'seeds', not 1/2");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out s.h5"), 1);
    EXPECT_ERR("s.h5 is shard 1/3 of a sweep of 'seeds' (written by `logt run --shard`)");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/3 --out s.h5 --set sweep.D=3"), 1);
    EXPECT_ERR("s.h5 holds shard 1/3 of another version of 'seeds': line 11 of its experiment_ini is "
               "'D = 2', here 'D = 3'");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/3 --out s.h5"), 0, "%s", err);
    EXPECT_ERR("4 already in s.h5 (skipped), 0 to run");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 0/3 --out whole.h5"), 1);
    EXPECT_ERR("whole.h5 holds results of a whole sweep, not a shard");
}

/* ---- merge refuses --------------------------------------------------------------------- */

Test(shard, merge_refuses_other_experiments)
{
    write_at("exp/experiment.ini", seeds_ini);
    write_at("other/experiment.ini", mixed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 0/2 --out a.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/2 --out b.h5 --set sweep.T=8"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "merge a.h5 b.h5 --out m.h5"), 1);
    EXPECT_ERR("a.h5 and b.h5 ran experiment 'seeds' with different settings: line 9 of their "
               "experiment_ini is 'T = 4' and 'T = 8'");
    cr_assert_eq(logt(NULL, "run other --backend cpu --shard 1/2 --out c.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "merge a.h5 c.h5 --out m.h5"), 1);
    EXPECT_ERR("a.h5 and c.h5 hold different experiments ('seeds' and 'mixed')");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/3 --out d.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "merge a.h5 d.h5 --out m.h5"), 1);
    EXPECT_ERR("a.h5 is shard 0/2 and d.h5 is shard 1/3");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "merge a.h5 whole.h5 --out m.h5"), 1);
    EXPECT_ERR("whole.h5 is not a shard file");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/m.h5", dir);
    cr_assert_neq(access(path, F_OK), 0, "a refused merge left m.h5");
}

Test(shard, merge_refuses_other_commits)
{
    write_at("exp/experiment.ini", seeds_ini);
    cr_assert_eq(logt("LOGT_COMMIT=aaa1111", "run exp --backend cpu --shard 0/2"), 0, "%s", err);
    cr_assert_eq(logt("LOGT_COMMIT=bbb2222", "run exp --backend cpu --shard 1/2"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "merge results/local/seeds.shard-0-of-2.h5 results/local/seeds.shard-1-of-2.h5"), 1);
    EXPECT_ERR("results/local/seeds.shard-0-of-2.h5 and results/local/seeds.shard-1-of-2.h5 were written by "
               "different commits of logt (aaa1111 and bbb2222)");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/results/local/seeds.h5", dir);
    cr_assert_neq(access(path, F_OK), 0, "a refused merge left its output");
}

/* Root attribute `name` of an HDF5 file replaced by an int64, as a damaged or doctored
 * file would have it. */
static void set_root_i64(const char *rel, const char *name, int64_t v)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    cr_assert_geq(H5Adelete(f, name), 0);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, name, H5T_NATIVE_INT64, sp, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(H5Awrite(a, H5T_NATIVE_INT64, &v), 0);
    H5Aclose(a), H5Sclose(sp), H5Fclose(f);
}

Test(shard, merge_refuses_duplicates)
{
    write_at("exp/experiment.ini", seeds_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 0/2 --out a.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/2 --out b.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "merge a.h5 b.h5 a.h5 --out m.h5"), 1);
    EXPECT_ERR("a.h5 is given twice");
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "cp '%s/a.h5' '%s/copy.h5'", dir, dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(logt(NULL, "merge a.h5 b.h5 copy.h5 --out m.h5"), 1);
    EXPECT_ERR("shard 0/2 is given twice: a.h5 and copy.h5 hold the same runs");
    /* a copy of shard 0/2 that says it is 1/2: its runs are shard 0's */
    set_root_i64("copy.h5", "shard_index", 1);
    cr_assert_eq(logt(NULL, "merge a.h5 copy.h5 --out m.h5"), 1);
    EXPECT_ERR("run 'speed model=lstm backend=cpu T=4 B=1 D=2 ");
    EXPECT_ERR("' is in both a.h5 (shard 0/2) and copy.h5 (shard 1/2): a run belongs to one shard");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/m.h5", dir);
    cr_assert_neq(access(path, F_OK), 0, "a refused merge left m.h5");
}

/* A shard missing is refused, naming it; --partial merges what is there, in sweep order,
 * and `logt run` adds the rest to the merged file later. */
Test(shard, incomplete_shards_need_partial)
{
    write_at("exp/experiment.ini", seeds_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 0/3"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 2/3"), 0, "%s", err);
    const char *args = "merge results/local/seeds.shard-2-of-3.h5 results/local/seeds.shard-0-of-3.h5";
    cr_assert_eq(logt(NULL, args), 1);
    EXPECT_ERR("the shards of 'seeds' are incomplete: shards missing: 1/3. HINT: run what is missing "
               "(`logt run EXP --shard I/3` resumes a shard where it stopped), or merge the finished "
               "runs alone with --partial");
    char path[PATH_MAX], more[256];
    snprintf(path, sizeof path, "%s/results/local/seeds.h5", dir);
    cr_assert_neq(access(path, F_OK), 0, "a refused merge left its output");
    snprintf(more, sizeof more, "%s --partial", args);
    cr_assert_eq(logt(NULL, more), 0, "%s", err);
    EXPECT_ERR("merged 2 of 3 shards (7 runs: 7 ok, 0 failed); 4 of the sweep's 11 runs are not there "
               "(--partial) -> results/local/seeds.h5");
    logt_store *st = open_results("results/local/seeds.h5");
    cr_assert_eq(count_ok_runs(st), 7);
    static const int seeds[] = {1, 3, 4, 6, 7, 9, 10};   /* places 0, 2, 3, 5, 6, 8, 9 */
    for (int j = 0; j < 7; j++) {
        int64_t seed;
        cr_assert_eq(logt_store_get_i64(st, j, "", "seed", &seed), LOGT_OK);
        cr_assert_eq(seed, seeds[j], "run %d", j);
    }
    logt_store_close(st);
    cr_assert_eq(logt(NULL, "run exp --backend cpu"), 0, "%s", err);
    EXPECT_ERR("7 already in results/local/seeds.h5 (skipped), 4 to run");
}

/* merge writes a new file or nothing: an existing output is refused untouched, and a
 * merge leaves no temporary file behind. */
Test(shard, merge_never_replaces_a_file)
{
    write_at("exp/experiment.ini", seeds_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 0/1"), 0, "%s", err);
    const char *keep = "results to keep, whatever they are\n";
    write_at("results/local/seeds.h5", keep);
    cr_assert_eq(logt(NULL, "merge results/local/seeds.shard-0-of-1.h5"), 1);
    EXPECT_ERR("results/local/seeds.h5 exists: logt merge writes a new file and never replaces one");
    char back[256];
    read_at("results/local/seeds.h5", back, sizeof back);
    cr_assert_str_eq(back, keep);
    cr_assert_eq(logt(NULL, "merge results/local/seeds.shard-0-of-1.h5 --out new.h5"), 0, "%s", err);
    logt_store *st = open_results("new.h5");
    cr_assert_eq(count_ok_runs(st), 11);
    logt_store_close(st);
    char cmd[PATH_MAX + 64], listing[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && ls -a . results > listing.txt", dir);
    cr_assert_eq(system(cmd), 0);
    read_at("listing.txt", listing, sizeof listing);
    cr_assert(!strstr(listing, "merging"), "a temporary file is left:\n%s", listing);
    cr_assert_eq(logt(NULL, "merge seeds-part.h5"), 2);
    EXPECT_ERR("cannot tell the results file from the name 'seeds-part.h5' (not NAME.shard-I-of-N.h5): "
               "pass --out FILE");
    cr_assert_eq(logt(NULL, "merge"), 2);
    EXPECT_ERR("merge needs the shard files to join");
}

/* ---- Slurm ------------------------------------------------------------------------------- */

/* sbatch as far as experiments/slurm-sweep.sh uses it, running each job at once: the
 * tasks of an array one after another with SLURM_ARRAY_TASK_ID set, each job's output
 * to its --output file (%a: the task), the options it was given to sbatch.txt. */
static const char *const fake_sbatch =
    "#!/bin/sh\n"
    "array= chdir= out=\n"
    "while [ $# -gt 0 ]; do\n"
    "    case $1 in\n"
    "    --array=*) array=${1#--array=} ;;\n"
    "    --chdir=*) chdir=${1#--chdir=} ;;\n"
    "    --output=*) out=${1#--output=} ;;\n"
    "    -*) ;;\n"
    "    *) break ;;\n"
    "    esac\n"
    "    echo \"$1\" >> \"$FAKE_SBATCH_LOG\"\n"
    "    shift\n"
    "done\n"
    "cd \"$chdir\"\n"
    "if [ -n \"$array\" ]; then\n"
    "    i=0\n"
    "    while [ $i -le ${array#0-} ]; do\n"
    "        log=$(echo \"$out\" | sed \"s/%a/$i/\")\n"
    "        SLURM_ARRAY_TASK_ID=$i \"$@\" > \"$log\" 2>&1 || echo \"task $i: exit $?\" >> \"$FAKE_SBATCH_LOG\"\n"
    "        i=$((i + 1))\n"
    "    done\n"
    "    echo 4242\n"
    "else\n"
    "    \"$@\" > \"$out\" 2>&1 || echo \"merge: exit $?\" >> \"$FAKE_SBATCH_LOG\"\n"
    "    echo \"4243;cluster\"\n"
    "fi\n";

/* The Slurm script submits an array of N shards and a merge that waits for them, and,
 * run the way Slurm runs them, these give what one process writes. Run from the
 * repository's root, as `make test` does (the script is found there). */
Test(shard, slurm_script_runs_the_shards_and_merges)
{
    char root[PATH_MAX], cmd[4 * PATH_MAX], log[8192];
    cr_assert_not_null(getcwd(root, sizeof root));
    if (access("experiments/slurm-sweep.sh", X_OK) != 0)
        cr_skip_test("experiments/slurm-sweep.sh is not in %s: run the tests from the repository root", root);
    write_at("exp/experiment.ini", mixed_ini);
    write_at("bin/sbatch", fake_sbatch);
    /* the script runs in the repository's root, so the jobs name exp by its full path:
     * so does the one process, for one experiment_ini */
    char args[256];
    snprintf(args, sizeof args, "run '%s/exp' --backend cpu --out whole.h5", dir);
    cr_assert_eq(logt(NULL, args), 1, "%s", err);
    snprintf(cmd, sizeof cmd,
             "chmod +x '%s/bin/sbatch' && cd '%s' && PATH='%s/bin':$PATH FAKE_SBATCH_LOG='%s/sbatch.txt' "
             "LOGT='%s' LOGT_OUT='%s/out/mixed.h5' LOGT_SBATCH_ARGS='--time=5' "
             "'%s/experiments/slurm-sweep.sh' exp 3 --backend cpu > submit.txt 2>&1",
             dir, dir, dir, dir, bin, dir, root);
    int rc = system(cmd);
    read_at("submit.txt", log, sizeof log);
    cr_assert_eq(rc, 0, "%s", log);
    cr_assert(strstr(log, "job 4242 runs the 3 shards of mixed") && strstr(log, "job 4243 merges them"),
              "%s", log);
    read_at("sbatch.txt", log, sizeof log);
    cr_assert(strstr(log, "--array=0-2\n") && strstr(log, "--time=5\n") &&
              strstr(log, "--dependency=afterany:4242\n"), "sbatch was given:\n%s", log);
    /* shards 0 and 1 hold a failed run each and exit 1; the merge goes on */
    cr_assert(strstr(log, "task 0: exit 1") && strstr(log, "task 1: exit 1") && !strstr(log, "task 2") &&
              !strstr(log, "merge: exit"), "sbatch.txt:\n%s", log);
    read_at("out/mixed.shard-1-of-3.log", log, sizeof log);
    cr_assert(strstr(log, "mixed on cpu: shard 1/3: 2 of the sweep's 7 runs"), "%s", log);
    read_at("out/mixed.merge.log", log, sizeof log);
    cr_assert(strstr(log, "merged 3 of 3 shards (7 runs: 5 ok, 2 failed) -> "), "%s", log);
    same_results("whole.h5", "out/mixed.h5");
}

/* ---- MPI ---------------------------------------------------------------------------------- */

/* `mpirun -np 2 logt run --mpi` equals one process; its shards stay beside the result;
 * run again, it refuses to replace what it merged. */
Test(shard, mpirun_equals_one_process)
{
#ifndef LOGT_HAVE_MPI
    cr_skip_test("this logt was built without MPI (Open MPI's headers were not found): skipping mpirun");
#endif
    if (system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("mpirun not found (apt-get install openmpi-bin): skipping the MPI sweep");
    const char *mpirun = geteuid() == 0 ? "mpirun -np 2 --oversubscribe --allow-run-as-root"
                                        : "mpirun -np 2 --oversubscribe";
    char check[256];
    snprintf(check, sizeof check, "%s true >/dev/null 2>&1", mpirun);
    if (system(check) != 0)
        cr_skip_test("`%s true` fails here: this machine cannot start MPI jobs; skipping the MPI sweep",
                     mpirun);
    write_at("exp/experiment.ini", mixed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 1, "%s", err);
    cr_assert_eq(logt(mpirun, "run exp --backend cpu --mpi --out mpi.h5"), 1, "%s", err);
    EXPECT_ERR("mixed: merged the shards of 2 ranks (7 runs: 5 ok, 2 failed) -> mpi.h5");
    EXPECT_ERR("2 of 7 runs failed");
    same_results("whole.h5", "mpi.h5");
    logt_store *st = open_results("mpi.shard-1-of-2.h5");
    cr_assert_eq(root_i64(st, "shard_index"), 1);
    cr_assert_eq(logt_store_nruns(st), 3);
    logt_store_close(st);
    cr_assert_eq(logt(mpirun, "run exp --backend cpu --mpi --out mpi.h5"), 1);
    EXPECT_ERR("mpi.h5 exists: with --mpi, rank 0 merges the shards into a new results file");
}
