/* store_h5.c — the HDF5 layer under the results file: failures that name the file and
 * HDF5's own message, handles closed by kind, string types, and scalar attributes on any
 * object (store_internal.h).
 *
 * Every HDF5 call is checked with CHK, which turns a negative return into a
 * LOGT_EIO failure naming the file, what was being done, and the innermost
 * message of HDF5's error stack (automatic printing is switched off). Handles
 * are closed on every path through a `done:` label.
 */
#include "store_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors and handles ----------------------------------------------------------- */

static herr_t innermost(unsigned n, const H5E_error2_t *err, void *data)
{
    if (n == 0 && err->desc) logt_strlcpy(data, 256, err->desc);
    return 0;
}

logt_status h5_fail_at(const char *file, int line, const char *path, const char *fmt, ...)
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

void h5_close(hid_t id)
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

herr_t h5_compress(hid_t dcpl)
{
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0) return 0;   /* a build without zlib: plain */
    if (H5Pset_shuffle(dcpl) < 0) return -1;
    return H5Pset_deflate(dcpl, 6);
}

void h5_init(void)
{
    static int done;
    if (!done) H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    done = 1;
}

/* Does every component of path exist under loc? */
int h5_path_exists(hid_t loc, const char *path)
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

hid_t h5_utf8_vlen(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return t;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

hid_t h5_utf8_fixed(size_t n)
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

logt_status h5_attr_put(const logt_store *st, hid_t obj, const char *what, const char *name,
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
    h5_close(a);
    h5_close(space);
    return s;
}

logt_status h5_attr_put_str(const logt_store *st, hid_t obj, const char *what,
                            const char *name, const char *value)
{
    logt_status s = LOGT_OK;
    hid_t t = -1;
    CHK(t = h5_utf8_vlen(), "cannot make a string type");
    s = h5_attr_put(st, obj, what, name, t, &value);
done:
    h5_close(t);
    return s;
}

/* A string attribute, whole, in a malloc'd string (*out = NULL on failure). */
logt_status h5_attr_get_text(const logt_store *st, hid_t obj, const char *what,
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
        CHK(mt = h5_utf8_vlen(), "cannot make a string type");
        CHK(H5Aread(a, mt, &v), "cannot read attribute %s of %s", name, what);
        *out = strdup(v ? v : "");
        H5free_memory(v);
    } else {
        size_t len = H5Tget_size(ft);
        *out = calloc(1, len + 1);
        if (*out) {
            CHK(mt = h5_utf8_fixed(len + 1), "cannot make a string type");
            CHK(H5Aread(a, mt, *out), "cannot read attribute %s of %s", name, what);
        }
    }
    if (!*out) s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
done:
    if (s != LOGT_OK) {
        free(*out);
        *out = NULL;
    }
    h5_close(mt);
    h5_close(ft);
    h5_close(a);
    return s;
}

logt_status h5_attr_get_str(const logt_store *st, hid_t obj, const char *what,
                            const char *name, char *buf, size_t n)
{
    char *v;
    buf[0] = '\0';
    LOGT_TRY(h5_attr_get_text(st, obj, what, name, &v));
    logt_strlcpy(buf, n, v);
    free(v);
    return LOGT_OK;
}

logt_status h5_attr_get_num(const logt_store *st, hid_t obj, const char *what,
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
    h5_close(a);
    return s;
}
