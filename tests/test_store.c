/* test_store.c — the HDF5 results file through runner/store.h: what is written
 * reads back the same (attributes, growing datasets, summary rows), strings
 * are variable-length UTF-8, a redone run keeps one summary row, files that
 * are not ours are refused without being touched, and files of an older logt
 * (no kernel columns in /summary) are still read. CPU only, fast.
 */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/ctx.h"
#include "../runner/config.h"
#include "../runner/run.h"
#include "../runner/store.h"
#include "h5attr.h"

static char dir[64];
static char path[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/logt-store-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/sub/results.h5", dir);   /* sub/ is created by the store */
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) cr_log_warn("could not remove %s", dir);
}

TestSuite(store, .init = setup, .fini = teardown);

static logt_store_meta meta_for(const char *experiment)
{
    return (logt_store_meta){.experiment = experiment, .experiment_ini = "[experiment]\nname = x\n",
                             .backend = "cpu", .git_commit = "abc1234", .host = "testhost",
                             .device = "cpu: test"};
}

static logt_summary_row sample_row(int64_t run, const char *status)
{
    logt_summary_row r;
    memset(&r, 0, sizeof r);
    r.run = run;
    snprintf(r.kind, sizeof r.kind, "speed");
    snprintf(r.model, sizeof r.model, "lstm");
    snprintf(r.backend, sizeof r.backend, "cpu");
    snprintf(r.pass, sizeof r.pass, "fwdbwd");
    snprintf(r.dtype, sizeof r.dtype, "f64");
    snprintf(r.knobs, sizeof r.knobs, "algo=standard,math=fp32");
    snprintf(r.impl, sizeof r.impl, "cpu f64 reference");
    snprintf(r.status, sizeof r.status, "%s", status);
    r.T = 256, r.B = 3, r.D = 17, r.input_size = 5, r.head_dim = 0, r.layers = 2, r.seed = 42;
    r.median_ms = 1.5, r.p10_ms = 1.25, r.p90_ms = 2.0, r.tokens_per_s = 512000.0;
    r.peak_mem_bytes = 123456789;
    r.final_loss = r.final_eval_loss = r.final_eval_acc = NAN;
    r.bytes = r.gbps = r.copy_gbps = r.pct_of_copy = r.iterations = NAN;
    r.test_loss = r.test_acc = r.solve_s = NAN;
    return r;
}

Test(store, round_trip)
{
    logt_store *st;
    logt_store_meta meta = meta_for("exp-a");
    cr_assert_eq(logt_store_open(path, &meta, &st), LOGT_OK, "%s", logt_errmsg());
    int64_t id;
    cr_assert_eq(logt_store_run_new(st, "speed model=lstm T=256", &id), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(id, 0);
    const char *utf8 = "µs per step — ✓";
    cr_assert_eq(logt_store_set_str(st, id, "", "model", "lstm"), LOGT_OK);
    cr_assert_eq(logt_store_set_str(st, id, "", "note", utf8), LOGT_OK);
    cr_assert_eq(logt_store_set_i64(st, id, "", "T", 256), LOGT_OK);
    cr_assert_eq(logt_store_set_f64(st, id, "", "lr", 0.003), LOGT_OK);
    cr_assert_eq(logt_store_set_i64(st, id, "checkpoint/0", "step", 77), LOGT_OK, "%s", logt_errmsg());

    double ms[5] = {1.5, 1.25, 2.0, 1.75, 1.0};
    cr_assert_eq(logt_store_write(st, id, "time_ms", ms, 5), LOGT_OK, "%s", logt_errmsg());
    /* a growing dataset across a chunk boundary, then cut back */
    enum { N = 3000 };
    static double loss[N];
    for (int i = 0; i < N; i++) loss[i] = 1.0 / (i + 1);
    cr_assert_eq(logt_store_append(st, id, "loss", loss, 7), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_append(st, id, "loss", loss + 7, N - 7), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_truncate(st, id, "loss", N - 10), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_write(st, id, "checkpoint/0/w", ms, 3), LOGT_OK, "%s", logt_errmsg());

    logt_summary_row row = sample_row(id, "ok");
    cr_assert_eq(logt_store_run_finish(st, &row, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_close(st), LOGT_OK, "%s", logt_errmsg());

    cr_assert_eq(logt_store_open_read(path, &st), LOGT_OK, "%s", logt_errmsg());
    logt_run_state state;
    logt_store_find(st, "speed model=lstm T=256", &id, &state);
    cr_assert_eq(id, 0);
    cr_assert_eq(state, LOGT_RUN_OK);
    char s[256];
    int64_t iv;
    double dv;
    cr_assert_eq(logt_store_get_str(st, id, "", "note", s, sizeof s), LOGT_OK);
    cr_assert_str_eq(s, utf8);
    cr_assert_eq(logt_store_get_str(st, id, "", "status", s, sizeof s), LOGT_OK);
    cr_assert_str_eq(s, "ok");
    cr_assert_eq(logt_store_get_i64(st, id, "", "T", &iv), LOGT_OK);
    cr_assert_eq(iv, 256);
    cr_assert_eq(logt_store_get_f64(st, id, "", "lr", &dv), LOGT_OK);
    cr_assert_eq(dv, 0.003);
    cr_assert_eq(logt_store_get_i64(st, id, "checkpoint/0", "step", &iv), LOGT_OK);
    cr_assert_eq(iv, 77);
    cr_assert_eq(logt_store_root_str(st, "experiment", s, sizeof s), LOGT_OK);
    cr_assert_str_eq(s, "exp-a");
    cr_assert_eq(logt_store_root_str(st, "git_commit", s, sizeof s), LOGT_OK);
    cr_assert_str_eq(s, "abc1234");

    double *v;
    int64_t n;
    cr_assert_eq(logt_store_read(st, id, "time_ms", &v, &n), LOGT_OK);
    cr_assert_eq(n, 5);
    for (int i = 0; i < 5; i++) cr_assert_eq(v[i], ms[i]);
    free(v);
    cr_assert_eq(logt_store_read(st, id, "loss", &v, &n), LOGT_OK);
    cr_assert_eq(n, N - 10);
    for (int i = 0; i < n; i++) cr_assert_eq(v[i], loss[i], "loss[%d]", i);
    free(v);
    cr_assert_eq(logt_store_read(st, id, "no_such_dataset", &v, &n), LOGT_OK);
    cr_assert_null(v);
    cr_assert_eq(n, 0);

    logt_summary_row *rows;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(n, 1);
    cr_assert_str_eq(rows[0].model, "lstm");
    cr_assert_str_eq(rows[0].knobs, "algo=standard,math=fp32");
    cr_assert_str_eq(rows[0].impl, "cpu f64 reference");
    cr_assert_str_eq(rows[0].status, "ok");
    cr_assert_eq(rows[0].T, 256);
    cr_assert_eq(rows[0].D, 17);
    cr_assert_eq(rows[0].layers, 2);
    cr_assert_eq(rows[0].seed, 42u);
    cr_assert_eq(rows[0].median_ms, 1.5);
    cr_assert_eq(rows[0].p90_ms, 2.0);
    cr_assert_eq(rows[0].peak_mem_bytes, 123456789);
    cr_assert(isnan(rows[0].final_loss));
    free(rows);
    cr_assert_eq(logt_store_close(st), LOGT_OK);
}

/* Attributes are variable-length UTF-8 strings, as h5py and HDFView expect. */
Test(store, strings_are_vlen_utf8)
{
    logt_store *st;
    logt_store_meta meta = meta_for("exp-a");
    cr_assert_eq(logt_store_open(path, &meta, &st), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_close(st), LOGT_OK);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    static const char *const names[] = {"experiment", "experiment_ini", "git_commit", "created",
                                        "host", "logt_version", "backend"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        hid_t a = H5Aopen(f, names[i], H5P_DEFAULT);
        cr_assert_geq(a, 0, "root attribute %s is missing", names[i]);
        hid_t t = H5Aget_type(a);
        cr_assert_eq(H5Tget_class(t), H5T_STRING, "%s", names[i]);
        cr_assert_gt(H5Tis_variable_str(t), 0, "%s is not variable-length", names[i]);
        cr_assert_eq(H5Tget_cset(t), H5T_CSET_UTF8, "%s is not UTF-8", names[i]);
        H5Tclose(t);
        H5Aclose(a);
    }
    /* /summary grows without limit */
    hid_t d = H5Dopen2(f, "summary", H5P_DEFAULT);
    hid_t sp = H5Dget_space(d);
    hsize_t dims, maxdims;
    H5Sget_simple_extent_dims(sp, &dims, &maxdims);
    cr_assert_eq(maxdims, H5S_UNLIMITED);
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
}

/* A redone run (failed, then retried) keeps one group and one summary row. */
Test(store, redone_run_keeps_one_row)
{
    logt_store *st;
    logt_store_meta meta = meta_for("exp-a");
    cr_assert_eq(logt_store_open(path, &meta, &st), LOGT_OK, "%s", logt_errmsg());
    int64_t a, b;
    cr_assert_eq(logt_store_run_new(st, "key-a", &a), LOGT_OK);
    cr_assert_eq(logt_store_run_new(st, "key-b", &b), LOGT_OK);
    cr_assert_eq(b, a + 1);
    logt_summary_row ra = sample_row(a, "failed"), rb = sample_row(b, "ok");
    cr_assert_eq(logt_store_run_finish(st, &ra, "model exploded"), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_run_finish(st, &rb, NULL), LOGT_OK, "%s", logt_errmsg());
    char s[128];
    cr_assert_eq(logt_store_get_str(st, a, "", "error", s, sizeof s), LOGT_OK);
    cr_assert_str_eq(s, "model exploded");
    cr_assert_eq(logt_store_run_reset(st, a), LOGT_OK, "%s", logt_errmsg());
    cr_assert(!logt_store_has(st, a, "", "status"));
    cr_assert(!logt_store_has(st, a, "", "error"));
    ra = sample_row(a, "ok");
    ra.median_ms = 9.0;
    cr_assert_eq(logt_store_run_finish(st, &ra, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_close(st), LOGT_OK);

    /* reopened for writing: the index knows both runs, ids continue after them */
    cr_assert_eq(logt_store_open(path, &meta, &st), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_nruns(st), 2);
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 2);
    cr_assert_eq(rows[0].run, a);
    cr_assert_str_eq(rows[0].status, "ok");
    cr_assert_eq(rows[0].median_ms, 9.0);
    free(rows);
    int64_t c;
    cr_assert_eq(logt_store_run_new(st, "key-c", &c), LOGT_OK);
    cr_assert_eq(c, b + 1);
    logt_run_state state;
    logt_store_find(st, "key-c", &c, &state);
    cr_assert_eq(state, LOGT_RUN_INTERRUPTED);   /* no status yet */
    cr_assert_eq(logt_store_close(st), LOGT_OK);
}

Test(store, refuses_another_experiment)
{
    logt_store *st;
    logt_store_meta a = meta_for("exp-a"), b = meta_for("exp-b");
    cr_assert_eq(logt_store_open(path, &a, &st), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_close(st), LOGT_OK);
    cr_assert_neq(logt_store_open(path, &b, &st), LOGT_OK);
    cr_assert_null(st);
    cr_assert(strstr(logt_errmsg(), "'exp-a'") && strstr(logt_errmsg(), "'exp-b'"), "%s",
              logt_errmsg());
}

Test(store, refuses_garbage_and_keeps_it)
{
    snprintf(path, sizeof path, "%s/garbage.h5", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("this is not HDF5\n", f);
    fclose(f);
    logt_store *st;
    logt_store_meta meta = meta_for("exp-a");
    cr_assert_neq(logt_store_open(path, &meta, &st), LOGT_OK);
    cr_assert(strstr(logt_errmsg(), "not a valid HDF5 file") && strstr(logt_errmsg(), path), "%s",
              logt_errmsg());
    cr_assert_neq(logt_store_open_read(path, &st), LOGT_OK);
    char buf[64] = "";
    f = fopen(path, "r");
    cr_assert_not_null(fgets(buf, sizeof buf, f));
    fclose(f);
    cr_assert_str_eq(buf, "this is not HDF5\n");
}

/* ---- files of an older logt ------------------------------------------------------------ */

/* The summary row of logt-results 1, before the kernel columns (bytes, gbps, copy_gbps,
 * pct_of_copy) were added: the layout that older files on disk have. */
typedef struct v1_row {
    int64_t run;
    char kind[8], model[32], backend[8], pass[16], dtype[8], cell[16], task[16];
    int64_t T, B, D, input_size, head_dim, layers;
    uint64_t seed;
    char knobs[256], impl[160], status[8];
    double median_ms, p10_ms, p90_ms, tokens_per_s;
    int64_t peak_mem_bytes;
    double final_loss, final_eval_loss, final_eval_acc;
} v1_row;

static hid_t v1_string(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, n);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

/* A results file as logt 0.1.0 (format "logt-results 1") wrote it: one finished lstm run. */
static void write_v1_file(const char *file, const char *experiment)
{
    hid_t f = H5Fcreate(file, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(f, 0, "cannot create %s", file);
    h5_str_attr(f, "format", "logt-results 1");
    h5_str_attr(f, "experiment", experiment);
    h5_str_attr(f, "backend", "cuda");
    hid_t runs = H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(runs, "000000", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    h5_str_attr(g, "key", "speed model=lstm T=256");
    h5_str_attr(g, "status", "ok");
    H5Gclose(g);
    H5Gclose(runs);

    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(v1_row));
#define NUM(fl, ht) H5Tinsert(t, #fl, HOFFSET(v1_row, fl), ht)
#define STR(fl)                                                    \
    do {                                                           \
        hid_t s_ = v1_string(sizeof(((v1_row *)0)->fl));           \
        H5Tinsert(t, #fl, HOFFSET(v1_row, fl), s_);                \
        H5Tclose(s_);                                              \
    } while (0)
    NUM(run, H5T_NATIVE_INT64);
    STR(kind);
    STR(model);
    STR(backend);
    STR(pass);
    STR(dtype);
    STR(cell);
    STR(task);
    NUM(T, H5T_NATIVE_INT64), NUM(B, H5T_NATIVE_INT64), NUM(D, H5T_NATIVE_INT64);
    NUM(input_size, H5T_NATIVE_INT64), NUM(head_dim, H5T_NATIVE_INT64);
    NUM(layers, H5T_NATIVE_INT64), NUM(seed, H5T_NATIVE_UINT64);
    STR(knobs);
    STR(impl);
    STR(status);
    NUM(median_ms, H5T_NATIVE_DOUBLE), NUM(p10_ms, H5T_NATIVE_DOUBLE);
    NUM(p90_ms, H5T_NATIVE_DOUBLE), NUM(tokens_per_s, H5T_NATIVE_DOUBLE);
    NUM(peak_mem_bytes, H5T_NATIVE_INT64), NUM(final_loss, H5T_NATIVE_DOUBLE);
    NUM(final_eval_loss, H5T_NATIVE_DOUBLE), NUM(final_eval_acc, H5T_NATIVE_DOUBLE);
#undef NUM
#undef STR
    v1_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.kind, sizeof row.kind, "speed");
    snprintf(row.model, sizeof row.model, "lstm");
    snprintf(row.backend, sizeof row.backend, "cuda");
    snprintf(row.pass, sizeof row.pass, "forward");
    snprintf(row.dtype, sizeof row.dtype, "f32");
    snprintf(row.impl, sizeof row.impl, "lstm cuda");
    snprintf(row.status, sizeof row.status, "ok");
    row.T = 256, row.B = 3, row.D = 17, row.input_size = 17, row.layers = 1, row.seed = 42;
    row.median_ms = 1.5, row.p10_ms = 1.25, row.p90_ms = 2.0, row.tokens_per_s = 512000.0;
    row.peak_mem_bytes = 4096;
    row.final_loss = row.final_eval_loss = row.final_eval_acc = NAN;
    hsize_t dims = 1, maxdims = H5S_UNLIMITED, chunk = 64;
    hid_t sp = H5Screate_simple(1, &dims, &maxdims), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    hid_t d = H5Dcreate2(f, "summary", t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    cr_assert_geq(d, 0);
    cr_assert_geq(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &row), 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Tclose(t);
    H5Fclose(f);
}

/* A file of format 1 reads with NaN in the kernel columns, takes more model rows, and
 * refuses a kernel row (and a kernel experiment) with a message that says why. */
Test(store, older_file_without_kernel_columns)
{
    snprintf(path, sizeof path, "%s/v1.h5", dir);
    write_v1_file(path, "exp-old");

    logt_store *st;
    cr_assert_eq(logt_store_open_read(path, &st), LOGT_OK, "%s", logt_errmsg());
    cr_assert(logt_store_summary_has(st, "median_ms"));
    cr_assert(!logt_store_summary_has(st, "gbps"));
    cr_assert(!logt_store_summary_has(st, "pct_of_copy"));
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(n, 1);
    cr_assert_str_eq(rows[0].model, "lstm");
    cr_assert_str_eq(rows[0].impl, "lstm cuda");
    cr_assert_eq(rows[0].T, 256);
    cr_assert_eq(rows[0].seed, 42u);
    cr_assert_eq(rows[0].median_ms, 1.5);
    cr_assert_eq(rows[0].tokens_per_s, 512000.0);
    cr_assert_eq(rows[0].peak_mem_bytes, 4096);
    cr_assert(isnan(rows[0].bytes) && isnan(rows[0].gbps) && isnan(rows[0].copy_gbps) &&
              isnan(rows[0].pct_of_copy) && isnan(rows[0].iterations));
    free(rows);
    cr_assert_eq(logt_store_close(st), LOGT_OK);

    /* model runs may still be added; a kernel run would lose its columns: refused */
    logt_store_meta meta = meta_for("exp-old");
    cr_assert_eq(logt_store_open(path, &meta, &st), LOGT_OK, "%s", logt_errmsg());
    int64_t a, b;
    cr_assert_eq(logt_store_run_new(st, "speed model=lstm T=512", &a), LOGT_OK);
    cr_assert_eq(a, 1);
    logt_summary_row row = sample_row(a, "ok");
    row.bytes = row.gbps = row.copy_gbps = row.pct_of_copy = row.iterations = NAN;
    cr_assert_eq(logt_store_run_finish(st, &row, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_run_new(st, "kernel model=scan T=512", &b), LOGT_OK);
    row = sample_row(b, "ok");
    snprintf(row.kind, sizeof row.kind, "kernel");
    row.bytes = 3.0 * 512 * 8, row.gbps = 10, row.copy_gbps = 20, row.pct_of_copy = 50;
    cr_assert_neq(logt_store_run_finish(st, &row, NULL), LOGT_OK);
    cr_assert(strstr(logt_errmsg(), "older logt") && strstr(logt_errmsg(), "'bytes'") &&
              strstr(logt_errmsg(), "--out"), "%s", logt_errmsg());
    cr_assert_eq(logt_store_close(st), LOGT_OK);

    cr_assert_eq(logt_store_open_read(path, &st), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(n, 2);
    cr_assert_eq(rows[1].run, 1);
    cr_assert_eq(rows[1].median_ms, 1.5);
    cr_assert(isnan(rows[1].gbps));
    free(rows);
    cr_assert_eq(logt_store_close(st), LOGT_OK);

    /* `logt run` of a kernel experiment into it stops before running anything */
    char exp[128], ini[160];
    snprintf(exp, sizeof exp, "%s/exp", dir);
    snprintf(ini, sizeof ini, "%s/experiment.ini", exp);
    cr_assert_eq(mkdir(exp, 0755), 0);
    FILE *f = fopen(ini, "w");
    cr_assert_not_null(f);
    fputs("[experiment]\nname = exp-old\nkind = kernel\nmodels = scan\n[kernel]\nT = 8\nB = 2\n"
          "D = 1\nrepeats = 1\n", f);
    fclose(f);
    logt_experiment *e;
    cr_assert_eq(logt_exp_parse(exp, NULL, 0, &e), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_exp_resolve(e, LOGT_CPU), LOGT_OK, "%s", logt_errmsg());
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CPU, &ctx), LOGT_OK);
    logt_run_opts ro = {.out = path};
    logt_run_report rep;
    cr_assert_neq(logt_run_experiment(e, ctx, &ro, &rep), LOGT_OK);
    cr_assert(strstr(logt_errmsg(), "written by an older logt") && strstr(logt_errmsg(), "--out"),
              "%s", logt_errmsg());
    cr_assert_eq(rep.ran, 0);
    logt_ctx_destroy(ctx);
    logt_exp_free(e);
}

/* An HDF5 file whose /summary is some other table is refused, naming the file. */
Test(store, summary_of_another_shape_is_refused)
{
    snprintf(path, sizeof path, "%s/other.h5", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    h5_str_attr(f, "experiment", "exp-a");
    H5Gclose(H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    hsize_t dims = 3;
    hid_t sp = H5Screate_simple(1, &dims, NULL);
    H5Dclose(H5Dcreate2(f, "summary", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(sp);
    H5Fclose(f);
    logt_store *st;
    cr_assert_neq(logt_store_open_read(path, &st), LOGT_OK);
    cr_assert(strstr(logt_errmsg(), "not a logt summary") && strstr(logt_errmsg(), path), "%s",
              logt_errmsg());
}

static int64_t size_of(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* A removed checkpoint's space is not given back by HDF5; logt_store_compact rewrites the file
 * without it and with everything else: root attributes (strings and a shard file's int64s),
 * every run's attributes and datasets, the summary rows. */
Test(store, compact_drops_removed_space_and_keeps_the_rest)
{
    logt_store *st;
    logt_store_meta meta = meta_for("exp-c");
    meta.shard_index = 1, meta.shard_count = 3, meta.sweep_runs = 7;
    cr_assert_eq(logt_store_open(path, &meta, &st), LOGT_OK, "%s", logt_errmsg());
    int64_t id;
    cr_assert_eq(logt_store_run_new(st, "key a", &id), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_set_str(st, id, "", "model", "lstm"), LOGT_OK);
    const double loss[5] = {1, 0.5, 0.25, 0.125, 0.0625};
    cr_assert_eq(logt_store_append(st, id, "loss", loss, 5), LOGT_OK, "%s", logt_errmsg());
    const int64_t n = 1 << 18;   /* 2 MiB of doubles: a checkpoint's weights */
    double *w = malloc((size_t)n * sizeof *w);
    cr_assert_not_null(w);
    for (int64_t i = 0; i < n; i++) w[i] = (double)i;
    cr_assert_eq(logt_store_write(st, id, "checkpoint/0/w", w, n), LOGT_OK, "%s", logt_errmsg());
    free(w);
    logt_summary_row row = sample_row(id, "ok");
    cr_assert_eq(logt_store_run_finish(st, &row, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_removed(st), 0);
    cr_assert_eq(logt_store_remove(st, id, "checkpoint"), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_remove(st, id, "checkpoint"), LOGT_OK, "%s", logt_errmsg());   /* gone: nothing */
    cr_assert_eq(logt_store_removed(st), 1);
    cr_assert_eq(logt_store_close(st), LOGT_OK);
    const int64_t full = size_of(path);
    cr_assert(full > 2 << 20, "the removed 2 MiB are still in the file: %lld bytes", (long long)full);

    int64_t before, after;
    cr_assert_eq(logt_store_compact(path, &before, &after), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(before, full);
    cr_assert_eq(after, size_of(path));
    cr_assert(after < 256 << 10, "compacted to %lld bytes", (long long)after);
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.compact", path);
    cr_assert(access(tmp, F_OK) != 0, "the temporary file is gone");

    cr_assert_eq(logt_store_open(path, &meta, &st), LOGT_OK, "%s", logt_errmsg());   /* still ours */
    char buf[64];
    cr_assert_eq(logt_store_root_str(st, "experiment", buf, sizeof buf), LOGT_OK);
    cr_assert_str_eq(buf, "exp-c");
    cr_assert_eq(logt_store_root_str(st, "git_commit", buf, sizeof buf), LOGT_OK);
    cr_assert_str_eq(buf, "abc1234");
    int64_t v;
    cr_assert_eq(logt_store_root_i64(st, "sweep_runs", &v), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(v, 7);
    logt_run_state state;
    logt_store_find(st, "key a", &id, &state);
    cr_assert_eq(state, LOGT_RUN_OK);
    cr_assert_eq(logt_store_get_str(st, id, "", "model", buf, sizeof buf), LOGT_OK);
    cr_assert_str_eq(buf, "lstm");
    double *got;
    int64_t ng;
    cr_assert_eq(logt_store_read(st, id, "loss", &got, &ng), LOGT_OK);
    cr_assert_eq(ng, 5);
    for (int i = 0; i < 5; i++) cr_assert_eq(got[i], loss[i]);
    free(got);
    cr_assert(!logt_store_has(st, id, "checkpoint", NULL));
    logt_summary_row *rows;
    int64_t nrows;
    cr_assert_eq(logt_store_summary(st, &rows, &nrows), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(nrows, 1);
    cr_assert_str_eq(rows[0].knobs, "algo=standard,math=fp32");
    cr_assert_eq(rows[0].peak_mem_bytes, 123456789);
    free(rows);
    const double more[1] = {0.03};   /* and it grows on as before */
    cr_assert_eq(logt_store_append(st, id, "loss", more, 1), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_close(st), LOGT_OK);
}

/* A file that cannot be compacted (not HDF5) is an error and stays as it was. */
Test(store, compact_leaves_a_bad_file_alone)
{
    snprintf(path, sizeof path, "%s/garbage.h5", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("this is not HDF5\n", f);
    fclose(f);
    int64_t before, after;
    cr_assert_neq(logt_store_compact(path, &before, &after), LOGT_OK);
    cr_assert(strstr(logt_errmsg(), path), "%s", logt_errmsg());
    cr_assert_eq(after, -1);
    char buf[64] = "";
    f = fopen(path, "r");
    cr_assert_not_null(fgets(buf, sizeof buf, f));
    fclose(f);
    cr_assert_str_eq(buf, "this is not HDF5\n");
}
