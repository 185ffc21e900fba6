/* store_internal.h — shared by the results file's sources only (store.c, store_h5.c,
 * store_runs.c, store_compact.c): the store's handle, the HDF5 error checks, and the
 * attribute helpers they all use. The one runner header that names HDF5 types.
 */
#ifndef LOGT_RUNNER_STORE_INTERNAL_H
#define LOGT_RUNNER_STORE_INTERNAL_H

#include <hdf5.h>
#include <limits.h>

#include "store.h"
#include "util.h"

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
    int64_t links;          /* links of /runs seen while indexing                  */
    int64_t damaged;        /* 1 + the id of a run found damaged while indexing    */
    int removed;            /* objects deleted while open (logt_store_remove)      */
    int writable;           /* opened to write: held in memory, committed whole    */
    int commits;            /* commits that reached the disk                       */
    int broken;             /* a commit failed: nothing more is written            */
    char broken_msg[PATH_MAX + 512];
    char lock[PATH_MAX + 8];   /* the writer's lock, "" when none is held          */
};

/* ---- errors and handles (store_h5.c) ------------------------------------------------ */

/* A LOGT_EIO failure naming the file, what was being done, and HDF5's innermost message.
 * CHK(call, what...): a negative return becomes that failure in `s` and goes to `done`
 * (the caller has `st`, `s` and a `done:` label that closes its handles). */
logt_status h5_fail_at(const char *file, int line, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define H5FAIL(st, ...) h5_fail_at(__FILE__, __LINE__, (st)->path, __VA_ARGS__)
#define CHK(call, ...)                          \
    do {                                        \
        if ((call) < 0) {                       \
            s = H5FAIL(st, __VA_ARGS__);        \
            goto done;                          \
        }                                       \
    } while (0)

void h5_close(hid_t id);      /* any kind of handle; nothing for id < 0 */
void h5_init(void);           /* HDF5's own printing off, once */
/* A chunked dataset's chunks byte-shuffled and deflated, where HDF5 has zlib: float64
 * curves and a growing dataset's unused tail shrink; readers need nothing extra. */
herr_t h5_compress(hid_t dcpl);
int h5_path_exists(hid_t loc, const char *path);
hid_t h5_utf8_vlen(void);
hid_t h5_utf8_fixed(size_t n);

/* Attributes of any object; `what` names it in messages. */
logt_status h5_attr_put(const logt_store *st, hid_t obj, const char *what, const char *name,
                        hid_t type, const void *value);
logt_status h5_attr_put_str(const logt_store *st, hid_t obj, const char *what, const char *name,
                            const char *value);
logt_status h5_attr_get_text(const logt_store *st, hid_t obj, const char *what, const char *name,
                             char **out);
logt_status h5_attr_get_str(const logt_store *st, hid_t obj, const char *what, const char *name,
                            char *buf, size_t n);
logt_status h5_attr_get_num(const logt_store *st, hid_t obj, const char *what, const char *name,
                            hid_t memtype, void *out);

/* ---- the file on disk (store_file.c) ------------------------------------------------ */

/* The name HDF5 knows a writer's in-memory file by: the core driver refuses an image under a
 * name that exists on disk, and nothing can exist below /dev/null. Messages name the path. */
#define STORE_MEMORY_NAME "/dev/null/logt-results"
/* File access through HDF5's core driver without a backing store, starting from image[n]
 * (NULL: a new file); -1 on failure. */
hid_t store_core_fapl(const void *image, size_t n);
/* The whole file at path, malloc'd. */
logt_status store_read_image(const char *path, void **image, size_t *n);
/* Write the in-memory file whole to its path: a temporary file beside it, synced, renamed
 * over it. After a failure, nothing more is written (every later commit fails the same). */
logt_status store_commit(logt_store *st);
/* Remove what commits interrupted by a kill left beside path (with the lock held). */
void store_clean_tmp(const char *path);
/* Take path's writer lock, PATH.lock, and name it in held[n]; a stale one of this host is
 * taken over. */
logt_status store_lock(const char *path, char *held, size_t n);
void store_unlock(const char *lock);

/* ---- runs (store_runs.c) ------------------------------------------------------------- */

/* The index entry of run id (NULL when there is none). */
run_ix *store_find_id(const logt_store *st, int64_t id);

#endif
