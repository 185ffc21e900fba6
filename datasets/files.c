/* files.c — finding and reading the files of the loaded sets (digits, charlm).
 *
 * They live in datasets/data/ (ignored by git), where `make datasets` puts them after
 * taking them out of Debian packages; LOGT_DATA_DIR points elsewhere (the tests point
 * it at tests/fixtures/). A missing file says which package holds it and how to fetch it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void logt_data_path(char *buf, size_t n, const char *file)
{
    const char *dir = getenv("LOGT_DATA_DIR");
    snprintf(buf, n, "%s/%s", dir && *dir ? dir : "datasets/data", file);
}

static logt_status missing(const char *task, const char *path, const char *package, int err)
{
    return LOGT_FAIL(LOGT_EIO,
                     "%s: cannot read %s (%s). It comes from Debian's %s package: run `make "
                     "datasets` in the repository's root to fetch and cache it (apt-get download "
                     "%s, then dpkg -x; scripts/fetch-datasets.sh says what it does), or set "
                     "LOGT_DATA_DIR to a directory that holds it",
                     task, path, strerror(err), package, package);
}

logt_status logt_data_read(const char *task, const char *path, const char *package, char **text,
                           int64_t *n)
{
    *text = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return missing(task, path, package, errno);
    logt_status s = LOGT_OK;
    char *buf = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        s = LOGT_FAIL(LOGT_EIO, "%s: cannot find the size of %s: %s", task, path, strerror(errno));
        goto done;
    }
    if (!(buf = malloc((size_t)size + 1))) {
        s = LOGT_FAIL(LOGT_ENOMEM, "%s: out of host memory for %s (%ld bytes)", task, path, size);
        goto done;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        s = LOGT_FAIL(LOGT_EIO, "%s: cannot read %s: %s", task, path, strerror(errno));
        goto done;
    }
    buf[size] = '\0';
    *text = buf, buf = NULL;
    *n = size;
done:
    free(buf);
    fclose(f);
    return s;
}
