/* store_compact.c — logt_store_compact: a closed results file rewritten without the space
 * of deleted objects (HDF5 never gives it back by itself), through a complete copy that
 * replaces the file by a rename, so that a failure leaves the file as it was.
 */
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    h5_close(na);
    h5_close(space);
    h5_close(mtype);
    h5_close(ftype);
    h5_close(a);
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
    char lock[PATH_MAX + 8] = "";   /* no writer between the copy and the rename */
    LOGT_TRY(store_lock(path, lock, sizeof lock));
    unlink(tmp);   /* a leftover of a compaction killed half-way */
    src = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (src < 0) {
        store_unlock(lock);
        return H5FAIL(st, "cannot reopen the file for compaction");
    }
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
    h5_close(src);
    src = -1;
    struct stat sb;   /* the copy keeps the file's permissions */
    if (stat(path, &sb) == 0) chmod(tmp, sb.st_mode & 07777);
    if (rename(tmp, path) != 0) {
        s = LOGT_FAIL(LOGT_EIO, "cannot put the compacted %s in place of %s: %s", tmp, path, strerror(errno));
        goto done;
    }
    *after = file_size(path);
done:
    h5_close(fcpl);
    h5_close(dst);
    h5_close(src);
    if (s != LOGT_OK) unlink(tmp);   /* the original is untouched */
    store_unlock(lock);
    return s;
}
