/* store_runs.c — the runs of a results file: the index of their keys and states, new and
 * copied runs, attributes of a run's objects, and its f64 datasets (store.h).
 * Paths inside a run ("checkpoint/0/w") create their groups as needed.
 */
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 1024          /* elements per chunk of a growing f64 dataset */

/* ---- runs ----------------------------------------------------------------------------- */

run_ix *store_find_id(const logt_store *st, int64_t id)
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
    if (!h5_path_exists(g, obj)) {
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
    h5_close(lcpl);
    h5_close(g);
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
    if ((s = h5_attr_put_str(st, g, name, "key", key)) != LOGT_OK) goto done;
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
    h5_close(g);
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
    run_ix *r = store_find_id(st, id);
    if (r) r->state = LOGT_RUN_INTERRUPTED;
done:
    h5_close(g);
    return s;
}

logt_status logt_store_copy_run(logt_store *dst, logt_store *src, int64_t src_id, int64_t dst_id)
{
    logt_store *st = dst;   /* CHK names the file being written */
    logt_status s = LOGT_OK;
    char from[32], to[32];
    run_name(src_id, from, sizeof from);
    run_name(dst_id, to, sizeof to);
    const run_ix *r = store_find_id(src, src_id);
    if (!r) return LOGT_FAIL(LOGT_EINVAL, "%s has no run %s", src->path, from);
    if (store_find_id(dst, dst_id) || h5_path_exists(dst->runs, to))
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
    logt_status s = h5_attr_put(st, o, what, name, type, value);
    h5_close(o);
    return s;
}

logt_status logt_store_set_str(logt_store *st, int64_t id, const char *obj, const char *name,
                               const char *value)
{
    logt_status s = LOGT_OK;
    hid_t t = -1;
    CHK(t = h5_utf8_vlen(), "cannot make a string type");
    s = set_attr(st, id, obj, name, t, &value);
done:
    h5_close(t);
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
    logt_status s = h5_attr_get_str(st, o, what, name, buf, n);
    h5_close(o);
    return s;
}

static logt_status get_num(logt_store *st, int64_t id, const char *obj, const char *name,
                           hid_t type, void *out)
{
    hid_t o;
    LOGT_TRY(open_obj(st, id, obj, 0, &o));
    char what[128];
    snprintf(what, sizeof what, "/runs/%06lld/%s", (long long)id, obj ? obj : "");
    logt_status s = h5_attr_get_num(st, o, what, name, type, out);
    h5_close(o);
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
    int has = h5_path_exists(g, obj ? obj : "");
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
    h5_close(o);
    return s;
}

logt_status logt_store_remove(logt_store *st, int64_t id, const char *obj)
{
    logt_status s = LOGT_OK;
    hid_t g;
    LOGT_TRY(open_obj(st, id, "", 0, &g));
    if (h5_path_exists(g, obj)) {
        CHK(H5Ldelete(g, obj, H5P_DEFAULT), "cannot delete %s of run %lld in %s", obj, (long long)id, st->path);
        st->removed++;
    }
done:
    h5_close(g);
    return s;
}

int logt_store_removed(const logt_store *st) { return st->removed; }
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
    if (!h5_path_exists(*g, path)) return LOGT_OK;
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
    h5_close(space);
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
    if (growing) CHK(h5_compress(dcpl), "cannot set a chunk's compression");
    CHK(lcpl = H5Pcreate(H5P_LINK_CREATE), "cannot make a property list");
    CHK(H5Pset_create_intermediate_group(lcpl, 1), "cannot set a property");
    CHK(*d = H5Dcreate2(g, path, H5T_IEEE_F64LE, space, lcpl, dcpl, H5P_DEFAULT),
        "cannot create /runs/%06lld/%s", (long long)id, path);
done:
    h5_close(lcpl);
    h5_close(dcpl);
    h5_close(space);
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
    h5_close(mspace);
    h5_close(fspace);
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
        h5_close(d);
        d = -1;
        CHK(H5Ldelete(g, path, H5P_DEFAULT), "cannot replace /runs/%06lld/%s", (long long)id, path);
    }
    if (s == LOGT_OK && d < 0) s = create_dset(st, g, id, path, n, 0, &d);
    if (s == LOGT_OK) s = write_at(st, d, id, path, 0, v, n);
done:
    h5_close(d);
    h5_close(g);
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
    h5_close(d);
    h5_close(g);
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
    h5_close(d);
    h5_close(g);
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
    h5_close(d);
    h5_close(g);
    return s;
}
