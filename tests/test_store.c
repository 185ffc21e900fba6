/* test_store.c — the HDF5 results file through runner/store.h: what is written
 * reads back the same (attributes, growing datasets, summary rows), strings
 * are variable-length UTF-8, a redone run keeps one summary row, and files that
 * are not ours are refused without being touched. CPU only, fast.
 */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner/store.h"

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
