/* store.c — the HDF5 results file: its summary's row type, opening, creating and closing
 * it, root attributes, and the summary's rows (layout in store.h and runner/README.md).
 * The runs' contents are in store_runs.c, compaction in store_compact.c, the HDF5 helpers
 * in store_h5.c, the file on disk (whole-image commits, the writer's lock) in store_file.c.
 *
 * A file is never created over an existing one and never written in place; one that is not
 * HDF5, is read-only, is damaged, is being written by another logt or belongs to another
 * experiment is refused with a hint, and left as it was.
 */
#include "store_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axes.h"

#define SUMMARY_CHUNK 64    /* rows per chunk of /summary                  */

/* ---- the summary's row type ----------------------------------------------------------- */

/* The columns of /summary: the fields of logt_summary_row, by name, in their order (so a new
 * file's columns are the struct's). The sweep axes' columns come from their table (axes.c),
 * the others are listed here. Types: 'i' int64, 'u' uint64, 'd' double, 's' fixed-length
 * UTF-8. A file written by an older logt lacks the columns added since (bytes, gbps,
 * copy_gbps, pct_of_copy, iterations, test_loss, test_acc, solve_s): it is read and written
 * through the columns it has (HDF5 matches compound members by name). */
typedef struct column {
    const char *name;
    size_t off, size;
    char type;
} column;
#define COL(f, t) {#f, offsetof(logt_summary_row, f), sizeof(((logt_summary_row *)0)->f), t}
static const column own_columns[] = {
    COL(run, 'i'), COL(kind, 's'), COL(model, 's'), COL(backend, 's'), COL(task, 's'),
    COL(knobs, 's'), COL(impl, 's'), COL(status, 's'), COL(median_ms, 'd'), COL(p10_ms, 'd'),
    COL(p90_ms, 'd'), COL(tokens_per_s, 'd'), COL(peak_mem_bytes, 'i'), COL(final_loss, 'd'),
    COL(final_eval_loss, 'd'), COL(final_eval_acc, 'd'), COL(bytes, 'd'), COL(gbps, 'd'),
    COL(copy_gbps, 'd'), COL(pct_of_copy, 'd'), COL(iterations, 'd'), COL(test_loss, 'd'),
    COL(test_acc, 'd'), COL(solve_s, 'd'),
};
#undef COL
enum { NOWN = sizeof own_columns / sizeof own_columns[0], MAX_COLUMNS = NOWN + LOGT_MAX_AXES };
_Static_assert(MAX_COLUMNS <= 64, "a store's `missing` holds one bit per column");
static column columns[MAX_COLUMNS];
static int ncolumns;
static pthread_once_t columns_once = PTHREAD_ONCE_INIT;

/* columns[]: own_columns and the axes', sorted by their offset in the row. */
static void columns_init(void)
{
    for (int i = 0; i < NOWN + logt_naxes; i++) {
        const logt_axis *a = i < NOWN ? NULL : &logt_axes[i - NOWN];
        column c = a ? (column){a->name, a->col, a->col_size, logt_axis_col_type(a)} : own_columns[i];
        int k = ncolumns++;
        for (; k > 0 && columns[k - 1].off > c.off; k--) columns[k] = columns[k - 1];
        columns[k] = c;
    }
}

/* Does the compound type t have a member `name`? */
static int has_member(hid_t t, const char *name)
{
    int i = H5Tget_member_index(t, name);
    H5Eclear2(H5E_DEFAULT);
    return i >= 0;
}

/* The row type in memory: every column, or (file >= 0) only the columns the file's
 * type has; *missing (when not NULL) gets bit i for each column i it lacks. */
static hid_t summary_type(hid_t file, uint64_t *missing)
{
    pthread_once(&columns_once, columns_init);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(logt_summary_row));
    if (t < 0) return -1;
    int ok = 1;
    if (missing) *missing = 0;
    for (int i = 0; i < ncolumns && ok; i++) {
        const column *c = &columns[i];
        if (file >= 0 && !has_member(file, c->name)) {
            if (missing) *missing |= 1ull << i;
            continue;
        }
        hid_t mt = c->type == 's'   ? h5_utf8_fixed(c->size)
                   : c->type == 'd' ? H5Tcopy(H5T_NATIVE_DOUBLE)
                   : c->type == 'u' ? H5Tcopy(H5T_NATIVE_UINT64)
                                    : H5Tcopy(H5T_NATIVE_INT64);
        ok = mt >= 0 && H5Tinsert(t, c->name, c->off, mt) >= 0;
        if (mt >= 0) H5Tclose(mt);
    }
    if (!ok) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* What a column the file lacks reads as: NaN, 0 or "". */
static void fill_missing(logt_summary_row *r, uint64_t missing)
{
    for (int i = 0; i < ncolumns; i++) {
        if (!(missing >> i & 1)) continue;
        char *p = (char *)r + columns[i].off;
        if (columns[i].type == 'd') *(double *)p = NAN;
        else memset(p, 0, columns[i].size);
    }
}

/* Does row r have a value in column i (not NaN, 0 or "")? */
static int has_value(const logt_summary_row *r, int i)
{
    const char *p = (const char *)r + columns[i].off;
    if (columns[i].type == 'd') return !isnan(*(const double *)p);
    if (columns[i].type == 's') return p[0] != '\0';
    for (size_t k = 0; k < columns[i].size; k++)
        if (p[k]) return 1;
    return 0;
}

/* ---- opening --------------------------------------------------------------------------- */

static herr_t index_run(hid_t runs, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    logt_store *st = data;
    int64_t id;
    st->links++;
    if (logt_parse_i64(name, &id) != 0) return 0;   /* not one of ours: ignore */
    if (id > st->max_id) st->max_id = id;
    hid_t g = H5Gopen2(runs, name, H5P_DEFAULT);
    if (g < 0) return -1;
    char key[2048], status[32] = "";
    char what[64];
    snprintf(what, sizeof what, "run %s", name);
    htri_t has_key = H5Aexists(g, "key"), has_status = H5Aexists(g, "status");
    int ok = has_key >= 0 && has_status >= 0;
    if (ok && has_key) ok = h5_attr_get_str(st, g, what, "key", key, sizeof key) == LOGT_OK;
    if (ok && has_key && has_status)
        ok = h5_attr_get_str(st, g, what, "status", status, sizeof status) == LOGT_OK;
    H5Gclose(g);
    if (!ok) return -1;
    /* a damaged heap reads as an empty string: a key is never empty, a status is ok, failed
     * or skipped */
    if ((has_key && !*key) ||
        (has_status && strcmp(status, "ok") && strcmp(status, "failed") && strcmp(status, "skipped"))) {
        st->damaged = id + 1;
        return -1;
    }
    if (!has_key) return 0;   /* created but killed before its key was written: skip it */
    if (st->n == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 64;
        run_ix *grown = realloc(st->ix, (size_t)st->cap * sizeof *grown);
        if (!grown) return -1;
        st->ix = grown;
    }
    run_ix *r = &st->ix[st->n];
    if (!(r->key = strdup(key))) return -1;
    r->id = id;
    r->state = !*status                     ? LOGT_RUN_INTERRUPTED
               : !strcmp(status, "ok")      ? LOGT_RUN_OK
               : !strcmp(status, "skipped") ? LOGT_RUN_SKIPPED
                                            : LOGT_RUN_FAILED;
    st->n++;
    return 0;
}

static logt_status summary_len(logt_store *st, int64_t *n);

/* The index of /runs, checked against the file's own records: every link of /runs listed,
 * every run of /summary indexed. A damaged region can hide a run's group or its
 * key from HDF5 without an error; such a file is refused, never taken as lacking those runs
 * (which would run them again into it). */
static logt_status load_index(logt_store *st)
{
    logt_status s = LOGT_OK;
    hid_t runtype = -1;
    int64_t *ids = NULL, n = 0;
    st->max_id = -1;
    st->links = st->damaged = 0;
    H5G_info_t info;
    herr_t listed = H5Literate(st->runs, H5_INDEX_NAME, H5_ITER_INC, NULL, index_run, st);
    if (listed < 0 && st->damaged) {
        H5Eclear2(H5E_DEFAULT);
        s = LOGT_USER_FAIL(LOGT_EIO, "%s is damaged: the key or status of run %lld cannot be read. "
                           "HINT: keep it for inspection and write elsewhere with --out NEW.h5",
                           st->path, (long long)(st->damaged - 1));
        goto done;
    }
    CHK(listed, "cannot list the runs in /runs");
    CHK(H5Gget_info(st->runs, &info), "cannot count the runs in /runs");
    if ((hsize_t)st->links != info.nlinks) {
        s = LOGT_USER_FAIL(LOGT_EIO, "%s is damaged: /runs has %llu runs but only %lld can be "
                           "listed. HINT: keep it for inspection and write elsewhere with --out "
                           "NEW.h5", st->path, (unsigned long long)info.nlinks, (long long)st->links);
        goto done;
    }
    if ((s = summary_len(st, &n)) != LOGT_OK || n == 0) goto done;
    if (!(ids = malloc((size_t)n * sizeof *ids))) {
        s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        goto done;
    }
    CHK(runtype = H5Tcreate(H5T_COMPOUND, sizeof(int64_t)), "cannot make a type");
    CHK(H5Tinsert(runtype, "run", 0, H5T_NATIVE_INT64), "cannot make a type");
    CHK(H5Dread(st->summary, runtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids), "cannot read /summary");
    for (int64_t i = 0; i < n; i++) {
        const run_ix *r = store_find_id(st, ids[i]);
        if (!r) {   /* a redone run keeps its row while it has no status: not damage */
            s = LOGT_USER_FAIL(LOGT_EIO, "%s is damaged: /summary lists run %lld, but its group "
                               "in /runs or its key cannot be read. HINT: keep it for inspection "
                               "and write elsewhere with --out NEW.h5", st->path, (long long)ids[i]);
            goto done;
        }
    }
done:
    free(ids);
    h5_close(runtype);
    return s;
}

static logt_status open_groups(logt_store *st)
{
    logt_status s = LOGT_OK;
    if (!h5_path_exists(st->file, "runs") || !h5_path_exists(st->file, "summary"))
        return LOGT_USER_FAIL(LOGT_EIO, "%s is an HDF5 file but not a logt results file (no /runs "
                              "or /summary). HINT: pass --out NEW.h5", st->path);
    hid_t ft = -1;
    CHK(st->runs = H5Gopen2(st->file, "runs", H5P_DEFAULT), "cannot open /runs");
    CHK(st->summary = H5Dopen2(st->file, "summary", H5P_DEFAULT), "cannot open /summary");
    CHK(ft = H5Dget_type(st->summary), "cannot read the type of /summary");
    if (H5Tget_class(ft) != H5T_COMPOUND || !has_member(ft, "run")) {
        s = LOGT_USER_FAIL(LOGT_EIO, "%s has a /summary that is not a logt summary (no column "
                           "'run'). HINT: pass --out NEW.h5", st->path);
        goto done;
    }
    CHK(st->rowtype = summary_type(ft, &st->missing), "cannot make the summary's row type");
done:
    h5_close(ft);
    return s;
}

static logt_status check_hdf5(const char *path)
{
    htri_t is = H5Fis_hdf5(path);
    H5Eclear2(H5E_DEFAULT);
    if (is <= 0)
        return LOGT_USER_FAIL(LOGT_EIO,
                              "%s is not a valid HDF5 file (corrupt, or something else): logt will "
                              "not overwrite it. HINT: write elsewhere with --out NEW.h5, or move "
                              "the file away",
                              path);
    return LOGT_OK;
}

/* The directory of a new file: made, and writable. */
static logt_status check_dir(const logt_store *st)
{
    LOGT_TRY(logt_mkdirs(st->path, 0));
    char dir[PATH_MAX];
    logt_strlcpy(dir, sizeof dir, st->path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
    else logt_strlcpy(dir, sizeof dir, ".");
    if (access(dir, W_OK) != 0)
        return LOGT_USER_FAIL(LOGT_EIO, "cannot create results file %s: directory %s is not "
                              "writable. HINT: pass --out FILE in a writable place", st->path, dir);
    return LOGT_OK;
}

static logt_status create_file(logt_store *st, const logt_store_meta *meta)
{
    logt_status s = LOGT_OK;
    hid_t space = -1, dcpl = -1, type = -1;
    hid_t fapl = store_core_fapl(NULL, 0);   /* in memory until the first commit */
    st->file = fapl < 0 ? -1 : H5Fcreate(STORE_MEMORY_NAME, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    h5_close(fapl);
    if (st->file < 0) return H5FAIL(st, "cannot create the results file");
    char now[64];
    logt_iso8601(now, sizeof now);
    const char *attrs[][2] = {
        {"format", "logt-results 2"},   /* 2: /summary has the kernel columns */
        {"logt_version", LOGT_VERSION},
        {"created", now},
        {"updated", now},
        {"experiment", meta->experiment},
        {"backend", meta->backend},
        {"git_commit", meta->git_commit},
        {"host", meta->host},
        {"device", meta->device},
        {"driver_version", meta->driver_version},
        {"cuda_runtime_version", meta->cuda_runtime_version},
        {"cudnn_version", meta->cudnn_version},
        {"cublas_version", meta->cublas_version},
        {"experiment_ini", meta->experiment_ini},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if (attrs[i][1]) LOGT_TRY(h5_attr_put_str(st, st->file, "/", attrs[i][0], attrs[i][1]));
    const struct { const char *name; int64_t v; } shard[] = {
        {"shard_index", meta->shard_index}, {"shard_count", meta->shard_count},
        {"sweep_runs", meta->sweep_runs},
    };
    for (size_t i = 0; meta->shard_count > 0 && i < sizeof shard / sizeof shard[0]; i++)
        LOGT_TRY(h5_attr_put(st, st->file, "/", shard[i].name, H5T_NATIVE_INT64, &shard[i].v));
    CHK(st->runs = H5Gcreate2(st->file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        "cannot create /runs");
    hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = SUMMARY_CHUNK;
    CHK(space = H5Screate_simple(1, &dims, &maxdims), "cannot make a dataspace");
    CHK(dcpl = H5Pcreate(H5P_DATASET_CREATE), "cannot make a property list");
    CHK(H5Pset_chunk(dcpl, 1, &chunk), "cannot set the chunk size of /summary");
    CHK(h5_compress(dcpl), "cannot set the compression of /summary");
    CHK(type = summary_type(-1, NULL), "cannot make the summary's row type");
    CHK(st->summary = H5Dcreate2(st->file, "summary", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
        "cannot create /summary");
    CHK(st->rowtype = H5Tcopy(type), "cannot make the summary's row type");
    st->missing = 0;
done:
    h5_close(type);
    h5_close(dcpl);
    h5_close(space);
    return s;
}

/* An existing file, into memory, checked before anything of it changes: HDF5, written by
 * logt for this experiment, whole. */
static logt_status open_existing(logt_store *st, const logt_store_meta *meta)
{
    const char *path = st->path;
    void *image = NULL;
    size_t n = 0;
    LOGT_TRY(check_hdf5(path));
    LOGT_TRY(store_read_image(path, &image, &n));
    hid_t fapl = store_core_fapl(image, n);
    free(image);
    st->file = fapl < 0 ? -1 : H5Fopen(STORE_MEMORY_NAME, H5F_ACC_RDWR, fapl);
    h5_close(fapl);
    if (st->file < 0)
        return H5FAIL(st, "cannot open the results file: it is damaged (truncated, or overwritten "
                          "in part). HINT: keep it for inspection and write elsewhere with --out NEW.h5");
    char name[256] = "";
    if (h5_attr_get_str(st, st->file, "/", "experiment", name, sizeof name) != LOGT_OK)
        return LOGT_USER_FAIL(LOGT_EIO, "%s was not written by logt (no 'experiment' attribute). "
                              "HINT: pass --out NEW.h5", path);
    if (strcmp(name, meta->experiment))
        return LOGT_USER_FAIL(LOGT_EINVAL,
                              "%s holds results of experiment '%s', not '%s'. HINT: pass --out "
                              "FILE to write '%s' elsewhere",
                              path, name, meta->experiment, meta->experiment);
    LOGT_TRY(open_groups(st));
    return load_index(st);
}

logt_status logt_store_open(const char *path, const logt_store_meta *meta, logt_store **out)
{
    h5_init();
    *out = NULL;
    logt_store *st = calloc(1, sizeof *st);
    if (!st) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    st->file = st->runs = st->summary = st->rowtype = -1;
    logt_strlcpy(st->path, sizeof st->path, path);
    logt_status s = LOGT_OK;
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (!S_ISREG(sb.st_mode))
            s = LOGT_USER_FAIL(LOGT_EIO, "results file %s is not a regular file", path);
        /* a file nobody may write is refused even for root: read-only marks results to keep */
        else if ((sb.st_mode & 0222) == 0 || access(path, W_OK) != 0)
            s = LOGT_USER_FAIL(LOGT_EIO,
                               "results file %s is read-only: logt cannot add runs to it. HINT: "
                               "chmod u+w it, or write elsewhere with --out NEW.h5",
                               path);
        if (s == LOGT_OK) s = store_lock(path, st->lock, sizeof st->lock);
        if (s == LOGT_OK) s = open_existing(st, meta);
        /* accepted: what this sweep changes at the root, in memory until the first commit */
        char now[64];
        logt_iso8601(now, sizeof now);
        if (s == LOGT_OK) s = h5_attr_put_str(st, st->file, "/", "updated", now);
        if (s == LOGT_OK && meta->backend) s = h5_attr_put_str(st, st->file, "/", "backend", meta->backend);
        if (s == LOGT_OK && meta->experiment_ini)
            s = h5_attr_put_str(st, st->file, "/", "experiment_ini", meta->experiment_ini);
        if (s == LOGT_OK) store_clean_tmp(path);
        if (s == LOGT_OK) st->writable = 1;
    } else if (errno == ENOENT) {
        s = check_dir(st);
        if (s == LOGT_OK) s = store_lock(path, st->lock, sizeof st->lock);
        if (s == LOGT_OK) s = create_file(st, meta);
        if (s == LOGT_OK) st->writable = 1;
        if (s == LOGT_OK) s = store_commit(st);   /* the file exists from the start */
        if (s == LOGT_OK) s = load_index(st);
    } else {
        s = LOGT_USER_FAIL(LOGT_EIO, "cannot use results file %s: %s", path, strerror(errno));
    }
    if (s != LOGT_OK) {
        char msg[2048];
        logt_strlcpy(msg, sizeof msg, logt_errmsg());
        st->writable = 0;   /* a refused file is left as it was */
        logt_store_close(st);
        logt_fail_at(s, "", 0, "%s", strncmp(msg, ":0: ", 4) ? msg : msg + 4);
        return s;
    }
    *out = st;
    return LOGT_OK;
}

logt_status logt_store_open_read(const char *path, logt_store **out)
{
    h5_init();
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return LOGT_USER_FAIL(LOGT_EIO, "no results file %s: %s. HINT: run `logt run` first, or "
                              "pass --in FILE", path, strerror(errno));
    LOGT_TRY(check_hdf5(path));
    logt_store *st = calloc(1, sizeof *st);
    if (!st) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    st->runs = st->summary = st->rowtype = -1;
    logt_strlcpy(st->path, sizeof st->path, path);
    logt_status s = LOGT_OK;
    st->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (st->file < 0) s = H5FAIL(st, "cannot open the results file");
    if (s == LOGT_OK) s = open_groups(st);
    if (s == LOGT_OK) s = load_index(st);
    if (s != LOGT_OK) {
        char msg[2048];
        logt_strlcpy(msg, sizeof msg, logt_errmsg());
        logt_store_close(st);
        logt_fail_at(s, "", 0, "%s", strncmp(msg, ":0: ", 4) ? msg : msg + 4);
        return s;
    }
    *out = st;
    return LOGT_OK;
}

logt_status logt_store_flush(logt_store *st)
{
    if (st->writable) return store_commit(st);
    logt_status s = LOGT_OK;
    CHK(H5Fflush(st->file, H5F_SCOPE_GLOBAL), "cannot flush");
done:
    return s;
}

logt_status logt_store_close(logt_store *st)
{
    if (!st) return LOGT_OK;
    logt_status s = st->writable && !st->broken ? store_commit(st) : LOGT_OK;
    h5_close(st->rowtype);
    h5_close(st->summary);
    h5_close(st->runs);
    if (st->file >= 0 && H5Fclose(st->file) < 0) s = H5FAIL(st, "cannot close the results file");
    store_unlock(st->lock);
    for (int i = 0; i < st->n; i++) free(st->ix[i].key);
    free(st->ix);
    free(st);
    return s;
}

const char *logt_store_path(const logt_store *st) { return st->path; }

int logt_store_summary_has(const logt_store *st, const char *column)
{
    for (int i = 0; i < ncolumns; i++)
        if (!strcmp(columns[i].name, column)) return !(st->missing >> i & 1);
    return 0;
}

logt_status logt_store_root_str(logt_store *st, const char *name, char *buf, size_t n)
{
    return h5_attr_get_str(st, st->file, "/", name, buf, n);
}

logt_status logt_store_root_text(logt_store *st, const char *name, char **out)
{
    return h5_attr_get_text(st, st->file, "/", name, out);
}

logt_status logt_store_root_i64(logt_store *st, const char *name, int64_t *value)
{
    return h5_attr_get_num(st, st->file, "/", name, H5T_NATIVE_INT64, value);
}

int logt_store_root_has(logt_store *st, const char *name)
{
    htri_t e = H5Aexists(st->file, name);
    H5Eclear2(H5E_DEFAULT);
    return e > 0;
}

logt_status logt_store_set_root_str(logt_store *st, const char *name, const char *value)
{
    return h5_attr_put_str(st, st->file, "/", name, value);
}

/* ---- summary --------------------------------------------------------------------------------- */

static logt_status summary_len(logt_store *st, int64_t *n)
{
    logt_status s = LOGT_OK;
    hid_t space = -1;
    hsize_t dims[1];
    CHK(space = H5Dget_space(st->summary), "cannot read the shape of /summary");
    CHK(H5Sget_simple_extent_dims(space, dims, NULL), "cannot read the shape of /summary");
    *n = (int64_t)dims[0];
done:
    h5_close(space);
    return s;
}

logt_status logt_store_run_finish(logt_store *st, const logt_summary_row *row, const char *error)
{
    logt_status s = LOGT_OK;
    hid_t runtype = -1, fspace = -1, mspace = -1;
    int64_t *ids = NULL;
    int failed = strcmp(row->status, "ok") != 0;
    for (int i = 0; i < ncolumns; i++)
        if ((st->missing >> i & 1) && has_value(row, i))
            return LOGT_USER_FAIL(LOGT_EINVAL,
                                  "%s was written by an older logt: its /summary has no column '%s' "
                                  "for run %lld. HINT: write these runs to a new file with --out "
                                  "NEW.h5", st->path, columns[i].name, (long long)row->run);
    if (failed) LOGT_TRY(logt_store_set_str(st, row->run, "", "error", error ? error : ""));

    /* The summary row first, the status last: a run marked finished always has its row.
     * The row of this run, if it has one already (a redone run), else a new row */
    int64_t n, at;
    LOGT_TRY(summary_len(st, &n));
    ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
    if (!ids) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    CHK(runtype = H5Tcreate(H5T_COMPOUND, sizeof(int64_t)), "cannot make a type");
    CHK(H5Tinsert(runtype, "run", 0, H5T_NATIVE_INT64), "cannot make a type");
    if (n > 0)
        CHK(H5Dread(st->summary, runtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids),
            "cannot read /summary");
    for (at = 0; at < n && ids[at] != row->run; at++) {}
    if (at == n) {
        hsize_t size = (hsize_t)n + 1;
        CHK(H5Dset_extent(st->summary, &size), "cannot extend /summary");
    }
    hsize_t start = (hsize_t)at, count = 1;
    CHK(fspace = H5Dget_space(st->summary), "cannot read the shape of /summary");
    CHK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL),
        "cannot select in /summary");
    CHK(mspace = H5Screate_simple(1, &count, NULL), "cannot make a dataspace");
    CHK(H5Dwrite(st->summary, st->rowtype, mspace, fspace, H5P_DEFAULT, row), "cannot write /summary");
    if ((s = logt_store_set_str(st, row->run, "", "status", row->status)) != LOGT_OK) goto done;
    if ((s = logt_store_flush(st)) != LOGT_OK) goto done;
    run_ix *r = store_find_id(st, row->run);
    if (r) r->state = !failed ? LOGT_RUN_OK : strcmp(row->status, "skipped") ? LOGT_RUN_FAILED : LOGT_RUN_SKIPPED;
done:
    free(ids);
    h5_close(mspace);
    h5_close(fspace);
    h5_close(runtype);
    return s;
}

logt_status logt_store_summary(logt_store *st, logt_summary_row **rows, int64_t *n)
{
    logt_status s = LOGT_OK;
    *rows = NULL;
    LOGT_TRY(summary_len(st, n));
    logt_summary_row *buf = calloc((size_t)(*n > 0 ? *n : 1), sizeof *buf);
    if (!buf) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory reading /summary");
    if (*n > 0)
        CHK(H5Dread(st->summary, st->rowtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf),
            "cannot read /summary");
    for (int64_t i = 0; i < *n; i++) fill_missing(&buf[i], st->missing);
    *rows = buf;
    buf = NULL;
done:
    free(buf);
    return s;
}

logt_status logt_store_add_rows(logt_store *st, const logt_summary_row *rows, int64_t n)
{
    logt_status s = LOGT_OK;
    hid_t fspace = -1, mspace = -1;
    int64_t len;
    if (n == 0) return LOGT_OK;
    LOGT_TRY(summary_len(st, &len));
    hsize_t size = (hsize_t)(len + n), start = (hsize_t)len, count = (hsize_t)n;
    CHK(H5Dset_extent(st->summary, &size), "cannot extend /summary");
    CHK(fspace = H5Dget_space(st->summary), "cannot read the shape of /summary");
    CHK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL),
        "cannot select in /summary");
    CHK(mspace = H5Screate_simple(1, &count, NULL), "cannot make a dataspace");
    CHK(H5Dwrite(st->summary, st->rowtype, mspace, fspace, H5P_DEFAULT, rows), "cannot write /summary");
    s = logt_store_flush(st);
done:
    h5_close(mspace);
    h5_close(fspace);
    return s;
}
