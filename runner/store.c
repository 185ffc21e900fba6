/* store.c — the HDF5 results file (layout in store.h and runner/README.md).
 *
 * Every HDF5 call is checked with CHK, which turns a negative return into a
 * LOGT_EIO failure naming the file, what was being done, and the innermost
 * message of HDF5's error stack (automatic printing is switched off). Handles
 * are closed on every path through a `done:` label.
 *
 * A file is never created over an existing one (H5F_ACC_EXCL) and never
 * truncated; one that is not HDF5, is read-only, or belongs to another
 * experiment is refused with a hint.
 */
#include "store.h"

#include <errno.h>
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define CHUNK 1024          /* elements per chunk of a growing f64 dataset */
#define SUMMARY_CHUNK 64    /* rows per chunk of /summary                  */

typedef struct run_ix {
    int64_t id;
    char *key;
    logt_run_state state;
} run_ix;

struct logt_store {
    hid_t file, runs, summary;
    hid_t rowtype;          /* the summary's row type: the columns the file has   */
    uint64_t missing;       /* bit i: the file's /summary lacks columns[i]        */
    char path[PATH_MAX];
    int n, cap;
    run_ix *ix;
    int64_t max_id;
    int removed;            /* objects deleted while open (logt_store_remove)      */
};

/* ---- errors and handles ----------------------------------------------------------- */

static herr_t innermost(unsigned n, const H5E_error2_t *err, void *data)
{
    if (n == 0 && err->desc) logt_strlcpy(data, 256, err->desc);
    return 0;
}

static logt_status h5fail_at(const char *file, int line, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static logt_status h5fail_at(const char *file, int line, const char *path, const char *fmt, ...)
{
    char what[1024], why[256] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, why);
    H5Eclear2(H5E_DEFAULT);
    return logt_fail_at(LOGT_EIO, file, line, "HDF5: %s in %s%s%s%s", what, path,
                        *why ? " (HDF5 says: " : "", why, *why ? ")" : "");
}

#define H5FAIL(st, ...) h5fail_at(__FILE__, __LINE__, (st)->path, __VA_ARGS__)
#define CHK(call, ...)                          \
    do {                                        \
        if ((call) < 0) {                       \
            s = H5FAIL(st, __VA_ARGS__);        \
            goto done;                          \
        }                                       \
    } while (0)

static void h5close(hid_t id)
{
    if (id < 0) return;
    switch (H5Iget_type(id)) {
    case H5I_FILE: H5Fclose(id); break;
    case H5I_GROUP: H5Gclose(id); break;
    case H5I_DATATYPE: H5Tclose(id); break;
    case H5I_DATASPACE: H5Sclose(id); break;
    case H5I_DATASET: H5Dclose(id); break;
    case H5I_ATTR: H5Aclose(id); break;
    case H5I_GENPROP_LST: H5Pclose(id); break;
    default: break;
    }
}

static void h5_init(void)
{
    static int done;
    if (!done) H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    done = 1;
}

/* Does every component of path exist under loc? */
static int path_exists(hid_t loc, const char *path)
{
    if (!*path) return 1;
    char buf[512];
    logt_strlcpy(buf, sizeof buf, path);
    for (char *p = buf;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = '\0';
        htri_t e = H5Lexists(loc, buf, H5P_DEFAULT);
        H5Eclear2(H5E_DEFAULT);
        if (e <= 0) return 0;
        if (!c) return 1;
        *p = c;
    }
}

static hid_t utf8_vlen(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return t;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static hid_t utf8_fixed(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return t;
    if (H5Tset_size(t, n) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
        H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* ---- attributes on any object ---------------------------------------------------- */

static logt_status attr_put(const logt_store *st, hid_t obj, const char *what, const char *name,
                            hid_t type, const void *value)
{
    logt_status s = LOGT_OK;
    hid_t space = -1, a = -1;
    htri_t exists;
    CHK(exists = H5Aexists(obj, name), "cannot look up attribute %s of %s", name, what);
    if (exists) CHK(H5Adelete(obj, name), "cannot replace attribute %s of %s", name, what);
    CHK(space = H5Screate(H5S_SCALAR), "cannot make a dataspace");
    CHK(a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
        "cannot create attribute %s of %s", name, what);
    CHK(H5Awrite(a, type, value), "cannot write attribute %s of %s", name, what);
done:
    h5close(a);
    h5close(space);
    return s;
}

static logt_status attr_put_str(const logt_store *st, hid_t obj, const char *what,
                                const char *name, const char *value)
{
    logt_status s = LOGT_OK;
    hid_t t = -1;
    CHK(t = utf8_vlen(), "cannot make a string type");
    s = attr_put(st, obj, what, name, t, &value);
done:
    h5close(t);
    return s;
}

/* A string attribute, whole, in a malloc'd string (*out = NULL on failure). */
static logt_status attr_get_text(const logt_store *st, hid_t obj, const char *what,
                                 const char *name, char **out)
{
    logt_status s = LOGT_OK;
    hid_t a = -1, ft = -1, mt = -1;
    htri_t exists, vlen;
    char *v = NULL;
    *out = NULL;
    CHK(exists = H5Aexists(obj, name), "cannot look up attribute %s of %s", name, what);
    if (!exists) return LOGT_FAIL(LOGT_EIO, "%s has no attribute %s in %s", what, name, st->path);
    CHK(a = H5Aopen(obj, name, H5P_DEFAULT), "cannot open attribute %s of %s", name, what);
    CHK(ft = H5Aget_type(a), "cannot read the type of attribute %s of %s", name, what);
    if (H5Tget_class(ft) != H5T_STRING) {
        s = LOGT_FAIL(LOGT_EIO, "attribute %s of %s in %s is not a string", name, what, st->path);
        goto done;
    }
    CHK(vlen = H5Tis_variable_str(ft), "cannot inspect attribute %s of %s", name, what);
    if (vlen) {
        CHK(mt = utf8_vlen(), "cannot make a string type");
        CHK(H5Aread(a, mt, &v), "cannot read attribute %s of %s", name, what);
        *out = strdup(v ? v : "");
        H5free_memory(v);
    } else {
        size_t len = H5Tget_size(ft);
        *out = calloc(1, len + 1);
        if (*out) {
            CHK(mt = utf8_fixed(len + 1), "cannot make a string type");
            CHK(H5Aread(a, mt, *out), "cannot read attribute %s of %s", name, what);
        }
    }
    if (!*out) s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
done:
    if (s != LOGT_OK) {
        free(*out);
        *out = NULL;
    }
    h5close(mt);
    h5close(ft);
    h5close(a);
    return s;
}

static logt_status attr_get_str(const logt_store *st, hid_t obj, const char *what,
                                const char *name, char *buf, size_t n)
{
    char *v;
    buf[0] = '\0';
    LOGT_TRY(attr_get_text(st, obj, what, name, &v));
    logt_strlcpy(buf, n, v);
    free(v);
    return LOGT_OK;
}

static logt_status attr_get_num(const logt_store *st, hid_t obj, const char *what,
                                const char *name, hid_t memtype, void *out)
{
    logt_status s = LOGT_OK;
    hid_t a = -1;
    htri_t exists;
    CHK(exists = H5Aexists(obj, name), "cannot look up attribute %s of %s", name, what);
    if (!exists) return LOGT_FAIL(LOGT_EIO, "%s has no attribute %s in %s", what, name, st->path);
    CHK(a = H5Aopen(obj, name, H5P_DEFAULT), "cannot open attribute %s of %s", name, what);
    CHK(H5Aread(a, memtype, out), "cannot read attribute %s of %s", name, what);
done:
    h5close(a);
    return s;
}

/* ---- the summary's row type ----------------------------------------------------------- */

/* The columns of /summary: the fields of logt_summary_row, by name. Types: 'i' int64,
 * 'u' uint64, 'd' double, 's' fixed-length UTF-8. A file written by an older logt lacks
 * the columns added since (bytes, gbps, copy_gbps, pct_of_copy, iterations, test_loss,
 * test_acc, solve_s): it is read and written
 * through the columns it has (HDF5 matches compound members by name). */
typedef struct column {
    const char *name;
    size_t off, size;
    char type;
} column;
#define COL(f, t) {#f, offsetof(logt_summary_row, f), sizeof(((logt_summary_row *)0)->f), t}
static const column columns[] = {
    COL(run, 'i'), COL(kind, 's'), COL(model, 's'), COL(backend, 's'), COL(pass, 's'),
    COL(dtype, 's'), COL(cell, 's'), COL(task, 's'), COL(T, 'i'), COL(B, 'i'), COL(D, 'i'),
    COL(input_size, 'i'), COL(head_dim, 'i'), COL(layers, 'i'), COL(seed, 'u'), COL(knobs, 's'),
    COL(impl, 's'), COL(status, 's'), COL(median_ms, 'd'), COL(p10_ms, 'd'), COL(p90_ms, 'd'),
    COL(tokens_per_s, 'd'), COL(peak_mem_bytes, 'i'), COL(final_loss, 'd'),
    COL(final_eval_loss, 'd'), COL(final_eval_acc, 'd'), COL(bytes, 'd'), COL(gbps, 'd'),
    COL(copy_gbps, 'd'), COL(pct_of_copy, 'd'), COL(iterations, 'd'), COL(test_loss, 'd'),
    COL(test_acc, 'd'), COL(solve_s, 'd'),
};
#undef COL
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

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
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(logt_summary_row));
    if (t < 0) return -1;
    int ok = 1;
    if (missing) *missing = 0;
    for (int i = 0; i < NCOLUMNS && ok; i++) {
        const column *c = &columns[i];
        if (file >= 0 && !has_member(file, c->name)) {
            if (missing) *missing |= 1ull << i;
            continue;
        }
        hid_t mt = c->type == 's'   ? utf8_fixed(c->size)
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
    for (int i = 0; i < NCOLUMNS; i++) {
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
    if (logt_parse_i64(name, &id) != 0) return 0;   /* not one of ours: ignore */
    if (id > st->max_id) st->max_id = id;
    hid_t g = H5Gopen2(runs, name, H5P_DEFAULT);
    if (g < 0) return -1;
    char key[2048], status[32] = "";
    char what[64];
    snprintf(what, sizeof what, "run %s", name);
    htri_t has_key = H5Aexists(g, "key"), has_status = H5Aexists(g, "status");
    int ok = has_key >= 0 && has_status >= 0;
    if (ok && has_key) ok = attr_get_str(st, g, what, "key", key, sizeof key) == LOGT_OK;
    if (ok && has_key && has_status)
        ok = attr_get_str(st, g, what, "status", status, sizeof status) == LOGT_OK;
    H5Gclose(g);
    if (!ok) return -1;
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
    r->state = !*status ? LOGT_RUN_INTERRUPTED : !strcmp(status, "ok") ? LOGT_RUN_OK : LOGT_RUN_FAILED;
    st->n++;
    return 0;
}

static logt_status load_index(logt_store *st)
{
    logt_status s = LOGT_OK;
    st->max_id = -1;
    CHK(H5Literate(st->runs, H5_INDEX_NAME, H5_ITER_INC, NULL, index_run, st),
        "cannot list the runs in /runs");
done:
    return s;
}

static logt_status open_groups(logt_store *st)
{
    logt_status s = LOGT_OK;
    if (!path_exists(st->file, "runs") || !path_exists(st->file, "summary"))
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
    h5close(ft);
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

static logt_status create_file(logt_store *st, const logt_store_meta *meta)
{
    logt_status s = LOGT_OK;
    hid_t space = -1, dcpl = -1, type = -1;
    LOGT_TRY(logt_mkdirs(st->path, 0));
    char dir[PATH_MAX];
    logt_strlcpy(dir, sizeof dir, st->path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
    else logt_strlcpy(dir, sizeof dir, ".");
    if (access(dir, W_OK) != 0)
        return LOGT_USER_FAIL(LOGT_EIO, "cannot create results file %s: directory %s is not "
                              "writable. HINT: pass --out FILE in a writable place", st->path, dir);
    st->file = H5Fcreate(st->path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
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
        if (attrs[i][1]) LOGT_TRY(attr_put_str(st, st->file, "/", attrs[i][0], attrs[i][1]));
    const struct { const char *name; int64_t v; } shard[] = {
        {"shard_index", meta->shard_index}, {"shard_count", meta->shard_count},
        {"sweep_runs", meta->sweep_runs},
    };
    for (size_t i = 0; meta->shard_count > 0 && i < sizeof shard / sizeof shard[0]; i++)
        LOGT_TRY(attr_put(st, st->file, "/", shard[i].name, H5T_NATIVE_INT64, &shard[i].v));
    CHK(st->runs = H5Gcreate2(st->file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        "cannot create /runs");
    hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = SUMMARY_CHUNK;
    CHK(space = H5Screate_simple(1, &dims, &maxdims), "cannot make a dataspace");
    CHK(dcpl = H5Pcreate(H5P_DATASET_CREATE), "cannot make a property list");
    CHK(H5Pset_chunk(dcpl, 1, &chunk), "cannot set the chunk size of /summary");
    CHK(type = summary_type(-1, NULL), "cannot make the summary's row type");
    CHK(st->summary = H5Dcreate2(st->file, "summary", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
        "cannot create /summary");
    CHK(st->rowtype = H5Tcopy(type), "cannot make the summary's row type");
    st->missing = 0;
    CHK(H5Fflush(st->file, H5F_SCOPE_GLOBAL), "cannot flush");
done:
    h5close(type);
    h5close(dcpl);
    h5close(space);
    return s;
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
        else s = check_hdf5(path);
        if (s == LOGT_OK) {
            st->file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
            if (st->file < 0)
                s = H5FAIL(st, "cannot open the results file for writing: it is damaged "
                               "(truncated?) or another logt run holds it open. HINT: write "
                               "elsewhere with --out NEW.h5 and keep this file for inspection");
        }
        char name[256] = "";
        if (s == LOGT_OK && attr_get_str(st, st->file, "/", "experiment", name, sizeof name) != LOGT_OK)
            s = LOGT_USER_FAIL(LOGT_EIO, "%s was not written by logt (no 'experiment' attribute). "
                               "HINT: pass --out NEW.h5", path);
        if (s == LOGT_OK && strcmp(name, meta->experiment))
            s = LOGT_USER_FAIL(LOGT_EINVAL,
                               "%s holds results of experiment '%s', not '%s'. HINT: pass --out "
                               "FILE to write '%s' elsewhere",
                               path, name, meta->experiment, meta->experiment);
        if (s == LOGT_OK) s = open_groups(st);
        char now[64];
        logt_iso8601(now, sizeof now);
        if (s == LOGT_OK) s = attr_put_str(st, st->file, "/", "updated", now);
        if (s == LOGT_OK && meta->backend) s = attr_put_str(st, st->file, "/", "backend", meta->backend);
        if (s == LOGT_OK && meta->experiment_ini)
            s = attr_put_str(st, st->file, "/", "experiment_ini", meta->experiment_ini);
    } else if (errno == ENOENT) {
        s = create_file(st, meta);
    } else {
        s = LOGT_USER_FAIL(LOGT_EIO, "cannot use results file %s: %s", path, strerror(errno));
    }
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
    logt_status s = LOGT_OK;
    CHK(H5Fflush(st->file, H5F_SCOPE_GLOBAL), "cannot flush");
done:
    return s;
}

logt_status logt_store_close(logt_store *st)
{
    if (!st) return LOGT_OK;
    logt_status s = LOGT_OK;
    h5close(st->rowtype);
    h5close(st->summary);
    h5close(st->runs);
    if (st->file >= 0 && H5Fclose(st->file) < 0) s = H5FAIL(st, "cannot close the results file");
    for (int i = 0; i < st->n; i++) free(st->ix[i].key);
    free(st->ix);
    free(st);
    return s;
}

const char *logt_store_path(const logt_store *st) { return st->path; }

int logt_store_summary_has(const logt_store *st, const char *column)
{
    for (int i = 0; i < NCOLUMNS; i++)
        if (!strcmp(columns[i].name, column)) return !(st->missing >> i & 1);
    return 0;
}

logt_status logt_store_root_str(logt_store *st, const char *name, char *buf, size_t n)
{
    return attr_get_str(st, st->file, "/", name, buf, n);
}

logt_status logt_store_root_text(logt_store *st, const char *name, char **out)
{
    return attr_get_text(st, st->file, "/", name, out);
}

logt_status logt_store_root_i64(logt_store *st, const char *name, int64_t *value)
{
    return attr_get_num(st, st->file, "/", name, H5T_NATIVE_INT64, value);
}

int logt_store_root_has(logt_store *st, const char *name)
{
    htri_t e = H5Aexists(st->file, name);
    H5Eclear2(H5E_DEFAULT);
    return e > 0;
}

logt_status logt_store_set_root_str(logt_store *st, const char *name, const char *value)
{
    return attr_put_str(st, st->file, "/", name, value);
}

/* ---- runs ----------------------------------------------------------------------------- */

static run_ix *find_id(const logt_store *st, int64_t id)
{
    for (int i = 0; i < st->n; i++)
        if (st->ix[i].id == id) return &st->ix[i];
    return NULL;
}

void logt_store_find(const logt_store *st, const char *key, int64_t *id, logt_run_state *state)
{
    *id = -1;
    *state = LOGT_RUN_NONE;
    for (int i = 0; i < st->n; i++)
        if (!strcmp(st->ix[i].key, key)) {
            *id = st->ix[i].id;
            *state = st->ix[i].state;
            return;
        }
}

int logt_store_nruns(const logt_store *st) { return st->n; }

void logt_store_run_at(const logt_store *st, int i, int64_t *id, const char **key,
                       logt_run_state *state)
{
    *id = st->ix[i].id;
    *key = st->ix[i].key;
    *state = st->ix[i].state;
}

static void run_name(int64_t id, char *buf, size_t n) { snprintf(buf, n, "%06lld", (long long)id); }

/* Open run id's group, or an object inside it (created as a group when missing
 * and `create` is set). */
static logt_status open_obj(logt_store *st, int64_t id, const char *obj, int create, hid_t *out)
{
    logt_status s = LOGT_OK;
    char name[32];
    hid_t g = -1, lcpl = -1;
    *out = -1;
    run_name(id, name, sizeof name);
    CHK(g = H5Gopen2(st->runs, name, H5P_DEFAULT), "cannot open run /runs/%s", name);
    if (!obj || !*obj) {
        *out = g;
        return LOGT_OK;
    }
    if (!path_exists(g, obj)) {
        if (!create) {
            s = LOGT_FAIL(LOGT_EIO, "run %s has no %s in %s", name, obj, st->path);
            goto done;
        }
        CHK(lcpl = H5Pcreate(H5P_LINK_CREATE), "cannot make a property list");
        CHK(H5Pset_create_intermediate_group(lcpl, 1), "cannot set a property");
        CHK(*out = H5Gcreate2(g, obj, lcpl, H5P_DEFAULT, H5P_DEFAULT),
            "cannot create /runs/%s/%s", name, obj);
    } else {
        CHK(*out = H5Oopen(g, obj, H5P_DEFAULT), "cannot open /runs/%s/%s", name, obj);
    }
done:
    h5close(lcpl);
    h5close(g);
    return s;
}

logt_status logt_store_run_new(logt_store *st, const char *key, int64_t *id)
{
    logt_status s = LOGT_OK;
    char name[32];
    hid_t g = -1;
    *id = st->max_id + 1;
    run_name(*id, name, sizeof name);
    CHK(g = H5Gcreate2(st->runs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        "cannot create run /runs/%s", name);
    if ((s = attr_put_str(st, g, name, "key", key)) != LOGT_OK) goto done;
    if (st->n == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 64;
        run_ix *grown = realloc(st->ix, (size_t)st->cap * sizeof *grown);
        if (!grown) {
            s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
            goto done;
        }
        st->ix = grown;
    }
    st->ix[st->n].id = *id;
    st->ix[st->n].state = LOGT_RUN_INTERRUPTED;
    if (!(st->ix[st->n].key = strdup(key))) {
        s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        goto done;
    }
    st->n++;
    st->max_id = *id;
done:
    h5close(g);
    return s;
}

logt_status logt_store_run_reset(logt_store *st, int64_t id)
{
    logt_status s = LOGT_OK;
    hid_t g = -1;
    LOGT_TRY(open_obj(st, id, "", 0, &g));
    static const char *const names[] = {"status", "error"};
    for (int i = 0; i < 2; i++) {
        htri_t e;
        CHK(e = H5Aexists(g, names[i]), "cannot look up attribute %s of run %lld", names[i],
            (long long)id);
        if (e) CHK(H5Adelete(g, names[i]), "cannot delete attribute %s of run %lld", names[i],
                   (long long)id);
    }
    run_ix *r = find_id(st, id);
    if (r) r->state = LOGT_RUN_INTERRUPTED;
done:
    h5close(g);
    return s;
}

logt_status logt_store_copy_run(logt_store *dst, logt_store *src, int64_t src_id, int64_t dst_id)
{
    logt_store *st = dst;   /* CHK names the file being written */
    logt_status s = LOGT_OK;
    char from[32], to[32];
    run_name(src_id, from, sizeof from);
    run_name(dst_id, to, sizeof to);
    const run_ix *r = find_id(src, src_id);
    if (!r) return LOGT_FAIL(LOGT_EINVAL, "%s has no run %s", src->path, from);
    if (find_id(dst, dst_id) || path_exists(dst->runs, to))
        return LOGT_FAIL(LOGT_EINVAL, "%s has a run %s already", dst->path, to);
    if (dst->n == dst->cap) {
        int cap = dst->cap ? 2 * dst->cap : 64;
        run_ix *grown = realloc(dst->ix, (size_t)cap * sizeof *grown);
        if (!grown) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        dst->ix = grown;
        dst->cap = cap;
    }
    run_ix *copy = &dst->ix[dst->n];
    if (!(copy->key = strdup(r->key))) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    /* the group with everything in it: attributes, datasets as they are stored (chunked
     * and extensible ones stay so), checkpoint slots */
    CHK(H5Ocopy(src->runs, from, dst->runs, to, H5P_DEFAULT, H5P_DEFAULT),
        "cannot copy run /runs/%s of %s to /runs/%s", from, src->path, to);
    copy->id = dst_id;
    copy->state = r->state;
    dst->n++;
    if (dst_id > dst->max_id) dst->max_id = dst_id;
done:
    if (s != LOGT_OK) free(copy->key);
    return s;
}

static logt_status set_attr(logt_store *st, int64_t id, const char *obj, const char *name,
                            hid_t type, const void *value)
{
    hid_t o;
    LOGT_TRY(open_obj(st, id, obj, 1, &o));
    char what[128];
    snprintf(what, sizeof what, "/runs/%06lld/%s", (long long)id, obj ? obj : "");
    logt_status s = attr_put(st, o, what, name, type, value);
    h5close(o);
    return s;
}

logt_status logt_store_set_str(logt_store *st, int64_t id, const char *obj, const char *name,
                               const char *value)
{
    logt_status s = LOGT_OK;
    hid_t t = -1;
    CHK(t = utf8_vlen(), "cannot make a string type");
    s = set_attr(st, id, obj, name, t, &value);
done:
    h5close(t);
    return s;
}

logt_status logt_store_set_i64(logt_store *st, int64_t id, const char *obj, const char *name,
                               int64_t value)
{
    return set_attr(st, id, obj, name, H5T_NATIVE_INT64, &value);
}

logt_status logt_store_set_f64(logt_store *st, int64_t id, const char *obj, const char *name,
                               double value)
{
    return set_attr(st, id, obj, name, H5T_NATIVE_DOUBLE, &value);
}

logt_status logt_store_get_str(logt_store *st, int64_t id, const char *obj, const char *name,
                               char *buf, size_t n)
{
    hid_t o;
    buf[0] = '\0';
    LOGT_TRY(open_obj(st, id, obj, 0, &o));
    char what[128];
    snprintf(what, sizeof what, "/runs/%06lld/%s", (long long)id, obj ? obj : "");
    logt_status s = attr_get_str(st, o, what, name, buf, n);
    h5close(o);
    return s;
}

static logt_status get_num(logt_store *st, int64_t id, const char *obj, const char *name,
                           hid_t type, void *out)
{
    hid_t o;
    LOGT_TRY(open_obj(st, id, obj, 0, &o));
    char what[128];
    snprintf(what, sizeof what, "/runs/%06lld/%s", (long long)id, obj ? obj : "");
    logt_status s = attr_get_num(st, o, what, name, type, out);
    h5close(o);
    return s;
}

logt_status logt_store_get_i64(logt_store *st, int64_t id, const char *obj, const char *name,
                               int64_t *value)
{
    return get_num(st, id, obj, name, H5T_NATIVE_INT64, value);
}

logt_status logt_store_get_f64(logt_store *st, int64_t id, const char *obj, const char *name,
                               double *value)
{
    return get_num(st, id, obj, name, H5T_NATIVE_DOUBLE, value);
}

int logt_store_has(logt_store *st, int64_t id, const char *obj, const char *attr)
{
    char name[32];
    run_name(id, name, sizeof name);
    hid_t g = H5Gopen2(st->runs, name, H5P_DEFAULT);
    if (g < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    int has = path_exists(g, obj ? obj : "");
    if (has && attr) {
        htri_t e = H5Aexists_by_name(g, obj && *obj ? obj : ".", attr, H5P_DEFAULT);
        has = e > 0;
    }
    H5Eclear2(H5E_DEFAULT);
    H5Gclose(g);
    return has;
}

logt_status logt_store_unset(logt_store *st, int64_t id, const char *obj, const char *name)
{
    logt_status s = LOGT_OK;
    hid_t o;
    htri_t e;
    LOGT_TRY(open_obj(st, id, obj, 0, &o));
    CHK(e = H5Aexists(o, name), "cannot look up attribute %s of run %lld", name, (long long)id);
    if (e) CHK(H5Adelete(o, name), "cannot delete attribute %s of run %lld", name, (long long)id);
done:
    h5close(o);
    return s;
}

logt_status logt_store_remove(logt_store *st, int64_t id, const char *obj)
{
    logt_status s = LOGT_OK;
    hid_t g;
    LOGT_TRY(open_obj(st, id, "", 0, &g));
    if (path_exists(g, obj)) {
        CHK(H5Ldelete(g, obj, H5P_DEFAULT), "cannot delete %s of run %lld in %s", obj, (long long)id, st->path);
        st->removed++;
    }
done:
    h5close(g);
    return s;
}

int logt_store_removed(const logt_store *st) { return st->removed; }

/* ---- compaction ------------------------------------------------------------------------- */

/* H5Literate: every object under the source root, copied whole (H5Ocopy: attributes,
 * datasets with their chunks and filters, groups recursively) under the same name. */
static herr_t copy_link(hid_t src, const char *name, const H5L_info_t *info, void *dst)
{
    (void)info;
    return H5Ocopy(src, name, *(hid_t *)dst, name, H5P_DEFAULT, H5P_DEFAULT);
}

/* H5Aiterate2: one attribute of the source root, to the destination root: read in its native
 * memory type, written with its file type (variable-length strings reclaimed after). */
static herr_t copy_attr(hid_t src, const char *name, const H5A_info_t *info, void *dst)
{
    (void)info;
    herr_t r = -1;
    hid_t a = -1, ftype = -1, mtype = -1, space = -1, na = -1;
    void *buf = NULL;
    hssize_t npoints;
    if ((a = H5Aopen(src, name, H5P_DEFAULT)) < 0 || (ftype = H5Aget_type(a)) < 0 ||
        (mtype = H5Tget_native_type(ftype, H5T_DIR_DEFAULT)) < 0 || (space = H5Aget_space(a)) < 0 ||
        (npoints = H5Sget_simple_extent_npoints(space)) < 0)
        goto done;
    buf = calloc((size_t)(npoints ? npoints : 1), H5Tget_size(mtype));
    if (!buf || H5Aread(a, mtype, buf) < 0) goto done;
    const int vlen = H5Tis_variable_str(mtype) > 0 || H5Tdetect_class(mtype, H5T_VLEN) > 0;
    if ((na = H5Acreate2(*(hid_t *)dst, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
        H5Awrite(na, mtype, buf) >= 0)
        r = 0;
    if (vlen) H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, buf);
done:
    free(buf);
    h5close(na);
    h5close(space);
    h5close(mtype);
    h5close(ftype);
    h5close(a);
    return r;
}

static int64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

logt_status logt_store_compact(const char *path, int64_t *before, int64_t *after)
{
    h5_init();
    logt_status s = LOGT_OK;
    logt_store named;   /* CHK and H5FAIL name the file through st */
    memset(&named, 0, sizeof named);
    logt_strlcpy(named.path, sizeof named.path, path);
    const logt_store *st = &named;
    hid_t src = -1, dst = -1, fcpl = -1;
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.compact", path);
    *before = file_size(path), *after = -1;
    unlink(tmp);   /* a leftover of a compaction killed half-way */
    src = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (src < 0) return H5FAIL(st, "cannot reopen the file for compaction");
    CHK(fcpl = H5Fget_create_plist(src), "cannot read the creation properties");
    dst = H5Fcreate(tmp, H5F_ACC_EXCL, fcpl, H5P_DEFAULT);
    if (dst < 0) {
        s = H5FAIL(st, "cannot create %s for compaction", tmp);
        goto done;
    }
    CHK(H5Literate(src, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_link, &dst), "cannot copy the objects");
    CHK(H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_attr, &dst), "cannot copy the root's attributes");
    CHK(H5Fflush(dst, H5F_SCOPE_GLOBAL), "cannot flush %s", tmp);
    CHK(H5Fclose(dst), "cannot close %s", tmp);
    dst = -1;
    h5close(src);
    src = -1;
    struct stat sb;   /* the copy keeps the file's permissions */
    if (stat(path, &sb) == 0) chmod(tmp, sb.st_mode & 07777);
    if (rename(tmp, path) != 0) {
        s = LOGT_FAIL(LOGT_EIO, "cannot put the compacted %s in place of %s: %s", tmp, path, strerror(errno));
        goto done;
    }
    *after = file_size(path);
done:
    h5close(fcpl);
    h5close(dst);
    h5close(src);
    if (s != LOGT_OK) unlink(tmp);   /* the original is untouched */
    return s;
}

/* ---- f64 datasets ----------------------------------------------------------------------- */

/* The dataset's group (run group) and its current length; *d = -1 when missing. */
static logt_status open_dset(logt_store *st, int64_t id, const char *path, hid_t *g, hid_t *d,
                             int64_t *len)
{
    logt_status s = LOGT_OK;
    hid_t space = -1;
    *d = -1;
    *len = 0;
    LOGT_TRY(open_obj(st, id, "", 0, g));
    if (!path_exists(*g, path)) return LOGT_OK;
    hsize_t dims[1];
    CHK(*d = H5Dopen2(*g, path, H5P_DEFAULT), "cannot open /runs/%06lld/%s", (long long)id, path);
    CHK(space = H5Dget_space(*d), "cannot read the shape of /runs/%06lld/%s", (long long)id, path);
    if (H5Sget_simple_extent_ndims(space) != 1) {
        s = LOGT_FAIL(LOGT_EIO, "/runs/%06lld/%s in %s is not one-dimensional", (long long)id,
                      path, st->path);
        goto done;
    }
    CHK(H5Sget_simple_extent_dims(space, dims, NULL), "cannot read the shape of /runs/%06lld/%s",
        (long long)id, path);
    *len = (int64_t)dims[0];
done:
    h5close(space);
    return s;
}

static logt_status create_dset(logt_store *st, hid_t g, int64_t id, const char *path, int64_t n,
                               int growing, hid_t *d)
{
    logt_status s = LOGT_OK;
    hid_t space = -1, dcpl = -1, lcpl = -1;
    hsize_t dims = (hsize_t)n, maxdims = growing ? H5S_UNLIMITED : (hsize_t)n, chunk = CHUNK;
    CHK(space = H5Screate_simple(1, &dims, &maxdims), "cannot make a dataspace");
    CHK(dcpl = H5Pcreate(H5P_DATASET_CREATE), "cannot make a property list");
    if (growing) CHK(H5Pset_chunk(dcpl, 1, &chunk), "cannot set a chunk size");
    CHK(lcpl = H5Pcreate(H5P_LINK_CREATE), "cannot make a property list");
    CHK(H5Pset_create_intermediate_group(lcpl, 1), "cannot set a property");
    CHK(*d = H5Dcreate2(g, path, H5T_IEEE_F64LE, space, lcpl, dcpl, H5P_DEFAULT),
        "cannot create /runs/%06lld/%s", (long long)id, path);
done:
    h5close(lcpl);
    h5close(dcpl);
    h5close(space);
    return s;
}

/* Write v[n] at [off, off+n) of dataset d. */
static logt_status write_at(logt_store *st, hid_t d, int64_t id, const char *path, int64_t off,
                            const double *v, int64_t n)
{
    logt_status s = LOGT_OK;
    hid_t fspace = -1, mspace = -1;
    if (n == 0) return LOGT_OK;
    hsize_t start = (hsize_t)off, count = (hsize_t)n;
    CHK(fspace = H5Dget_space(d), "cannot read the shape of /runs/%06lld/%s", (long long)id, path);
    CHK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL),
        "cannot select in /runs/%06lld/%s", (long long)id, path);
    CHK(mspace = H5Screate_simple(1, &count, NULL), "cannot make a dataspace");
    CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, v),
        "cannot write /runs/%06lld/%s", (long long)id, path);
done:
    h5close(mspace);
    h5close(fspace);
    return s;
}

logt_status logt_store_write(logt_store *st, int64_t id, const char *path, const double *v,
                             int64_t n)
{
    logt_status s = LOGT_OK;
    hid_t g = -1, d = -1;
    int64_t len;
    s = open_dset(st, id, path, &g, &d, &len);
    if (s == LOGT_OK && d >= 0 && len != n) {
        h5close(d);
        d = -1;
        CHK(H5Ldelete(g, path, H5P_DEFAULT), "cannot replace /runs/%06lld/%s", (long long)id, path);
    }
    if (s == LOGT_OK && d < 0) s = create_dset(st, g, id, path, n, 0, &d);
    if (s == LOGT_OK) s = write_at(st, d, id, path, 0, v, n);
done:
    h5close(d);
    h5close(g);
    return s;
}

logt_status logt_store_append(logt_store *st, int64_t id, const char *path, const double *v,
                              int64_t n)
{
    logt_status s = LOGT_OK;
    hid_t g = -1, d = -1;
    int64_t len;
    s = open_dset(st, id, path, &g, &d, &len);
    if (s == LOGT_OK && d < 0) s = create_dset(st, g, id, path, 0, 1, &d);
    if (s == LOGT_OK && n > 0) {
        hsize_t size = (hsize_t)(len + n);
        CHK(H5Dset_extent(d, &size), "cannot extend /runs/%06lld/%s", (long long)id, path);
        s = write_at(st, d, id, path, len, v, n);
    }
done:
    h5close(d);
    h5close(g);
    return s;
}

logt_status logt_store_truncate(logt_store *st, int64_t id, const char *path, int64_t n)
{
    logt_status s = LOGT_OK;
    hid_t g = -1, d = -1;
    int64_t len;
    s = open_dset(st, id, path, &g, &d, &len);
    if (s == LOGT_OK && d >= 0 && len > n) {
        hsize_t size = (hsize_t)n;
        CHK(H5Dset_extent(d, &size), "cannot shrink /runs/%06lld/%s", (long long)id, path);
    }
done:
    h5close(d);
    h5close(g);
    return s;
}

logt_status logt_store_read(logt_store *st, int64_t id, const char *path, double **v, int64_t *n)
{
    logt_status s = LOGT_OK;
    hid_t g = -1, d = -1;
    *v = NULL;
    *n = 0;
    int64_t len;
    s = open_dset(st, id, path, &g, &d, &len);
    if (s == LOGT_OK && d >= 0) {
        double *buf = malloc((size_t)(len > 0 ? len : 1) * sizeof *buf);
        if (!buf) {
            s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory reading /runs/%06lld/%s", (long long)id,
                          path);
            goto done;
        }
        if (len > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
            free(buf);
            s = H5FAIL(st, "cannot read /runs/%06lld/%s", (long long)id, path);
            goto done;
        }
        *v = buf;
        *n = len;
    }
done:
    h5close(d);
    h5close(g);
    return s;
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
    h5close(space);
    return s;
}

logt_status logt_store_run_finish(logt_store *st, const logt_summary_row *row, const char *error)
{
    logt_status s = LOGT_OK;
    hid_t runtype = -1, fspace = -1, mspace = -1;
    int64_t *ids = NULL;
    int failed = strcmp(row->status, "ok") != 0;
    for (int i = 0; i < NCOLUMNS; i++)
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
    CHK(H5Fflush(st->file, H5F_SCOPE_GLOBAL), "cannot flush");
    run_ix *r = find_id(st, row->run);
    if (r) r->state = failed ? LOGT_RUN_FAILED : LOGT_RUN_OK;
done:
    free(ids);
    h5close(mspace);
    h5close(fspace);
    h5close(runtype);
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
    CHK(H5Fflush(st->file, H5F_SCOPE_GLOBAL), "cannot flush");
done:
    h5close(mspace);
    h5close(fspace);
    return s;
}
