/* store_file.c — the results file on disk: written whole and atomically, and locked by its
 * writer (store_internal.h).
 *
 * A writer keeps the file's image in memory (HDF5's core driver, no backing store) and never
 * writes the file in place: each commit writes the whole image to a temporary file beside it
 * (.NAME.tmp-PID), syncs it, and renames it over NAME. A crash, a kill or a full disk at any
 * moment leaves NAME as the last commit left it, so a run reported finished stays readable;
 * a file that is refused is never written at all; a reader that holds NAME open keeps reading
 * the image it opened.
 *
 * The lock is NAME.lock, made with O_EXCL and holding the writer's host, pid and the start
 * time of its process; it does not rely on HDF5's file locking, which network file systems
 * often lack (HDF5_USE_FILE_LOCKING=FALSE). A lock of this host whose process is gone (or is
 * another process of the same pid) is stale and taken over; one of another host is reported
 * with what to do.
 *
 * Test hooks: LOGT_TEST_FAIL_WRITE=K fails the K-th commit of the process half-way with
 * ENOSPC, as a full disk would; LOGT_TEST_DIE_IN_WRITE=K _exits (137) half-way through it,
 * as a kill would.
 */
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

static int commits;   /* commits of this process, for the test hooks */

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : 0;
}

hid_t store_core_fapl(const void *image, size_t n)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) return -1;
    if (H5Pset_fapl_core(fapl, (size_t)1 << 20, 0) < 0 || (image && H5Pset_file_image(fapl, (void *)image, n) < 0)) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

logt_status store_read_image(const char *path, void **out, size_t *n)
{
    *out = NULL, *n = 0;
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (!f || fstat(fileno(f), &sb) != 0) {
        if (f) fclose(f);
        return LOGT_USER_FAIL(LOGT_EIO, "cannot read results file %s: %s", path, strerror(errno));
    }
    void *buf = malloc(sb.st_size > 0 ? (size_t)sb.st_size : 1);
    size_t got = buf ? fread(buf, 1, (size_t)sb.st_size, f) : 0;
    const int bad = ferror(f);
    fclose(f);
    if (!buf) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory for results file %s (%lld bytes)",
                               path, (long long)sb.st_size);
    if (bad || got != (size_t)sb.st_size) {
        free(buf);
        return LOGT_USER_FAIL(LOGT_EIO, "cannot read results file %s: %s", path,
                              bad ? strerror(errno) : "it changed size while being read");
    }
    *out = buf, *n = got;
    return LOGT_OK;
}

/* ---- the commit ------------------------------------------------------------------------ */

/* The directory of path ("." when it has none), for the temporary file and its sync. */
static void dir_of(const char *path, char *dir, size_t n)
{
    logt_strlcpy(dir, n, path);
    char *slash = strrchr(dir, '/');
    if (!slash) logt_strlcpy(dir, n, ".");
    else *(slash == dir ? slash + 1 : slash) = '\0';
}

/* The temporary file of a commit: .NAME.tmp-PID beside NAME. */
static void tmp_name(const char *path, long pid, char *tmp, size_t n)
{
    const char *slash = strrchr(path, '/');
    const int dl = slash ? (int)(slash - path + 1) : 0;
    snprintf(tmp, n, "%.*s.%s.tmp-%ld", dl, path, path + dl, pid);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Write image[n] to tmp and sync it; errno says why not. */
static int write_tmp(const char *tmp, const void *image, size_t n, mode_t mode)
{
    const int k = ++commits, fail_at = env_int("LOGT_TEST_FAIL_WRITE"), die_at = env_int("LOGT_TEST_DIE_IN_WRITE");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) return -1;
    size_t half = (fail_at == k || die_at == k) ? n / 2 : n;
    int r = write_all(fd, image, half);
    if (r == 0 && die_at == k) _exit(137);
    if (r == 0 && fail_at == k) r = -1, errno = ENOSPC;
    if (r == 0 && half < n) r = write_all(fd, (const char *)image + half, n - half);
    if (r == 0 && fsync(fd) != 0) r = -1;
    const int e = errno;
    if (close(fd) != 0 && r == 0) return -1;
    errno = e;
    return r;
}

logt_status store_commit(logt_store *st)
{
    if (st->broken) return LOGT_FAIL(LOGT_EIO, "%s", st->broken_msg);
    logt_status s = LOGT_OK;
    void *image = NULL;
    char tmp[PATH_MAX + 64] = "", dir[PATH_MAX];
    CHK(H5Fflush(st->file, H5F_SCOPE_GLOBAL), "cannot flush");
    ssize_t n;
    CHK(n = H5Fget_file_image(st->file, NULL, 0), "cannot size the file's image");
    if (!(image = malloc((size_t)n))) {
        s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory for the image of %s (%zd bytes)", st->path, n);
        goto done;
    }
    CHK(H5Fget_file_image(st->file, image, (size_t)n), "cannot take the file's image");
    tmp_name(st->path, (long)getpid(), tmp, sizeof tmp);
    unlink(tmp);   /* a leftover of this pid's earlier process */
    struct stat sb;
    const mode_t mode = stat(st->path, &sb) == 0 ? sb.st_mode & 07777 : 0666;   /* new: umask's */
    int ok = write_tmp(tmp, image, (size_t)n, mode) == 0 && rename(tmp, st->path) == 0;
    if (ok) {   /* the rename itself, durable */
        dir_of(st->path, dir, sizeof dir);
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) fsync(dfd), close(dfd);
        st->commits++;
    } else {
        const int e = errno;
        unlink(tmp);
        snprintf(st->broken_msg, sizeof st->broken_msg,
                 "cannot write results file %s (%.1f MiB): %s. The file is as the last run reported "
                 "finished left it: nothing in it is lost. HINT: %s, then run the same command "
                 "again to resume", st->path, (double)n / (1 << 20), strerror(e),
                 e == ENOSPC || e == EDQUOT ? "free space on its disk (or raise the quota)"
                                            : "make its directory writable");
        st->broken = 1;
        s = LOGT_USER_FAIL(LOGT_EIO, "%s", st->broken_msg);
    }
done:
    free(image);
    return s;
}

/* Remove the temporary files of commits that a kill interrupted (the lock is held, so none
 * is being written). */
void store_clean_tmp(const char *path)
{
    char dir[PATH_MAX], prefix[PATH_MAX + 8], full[2 * PATH_MAX + 8];
    dir_of(path, dir, sizeof dir);
    const char *slash = strrchr(path, '/');
    snprintf(prefix, sizeof prefix, ".%s.tmp-", slash ? slash + 1 : path);
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
            unlink(full);
        }
    closedir(d);
}

/* ---- the writer's lock ------------------------------------------------------------------ */

/* The start time of process pid (clock ticks since boot, /proc/PID/stat's 22nd field); 0 when
 * there is no such process or no /proc. */
static unsigned long long started(long pid)
{
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *q = strrchr(buf, ')');   /* the command name may hold spaces */
    unsigned long long t = 0;
    for (int field = 2; q && *q; q++)
        if (*q == ' ' && ++field == 22) {
            t = strtoull(q + 1, NULL, 10);
            break;
        }
    return t;
}

/* Is the writer that a lock names alive? Another host's cannot be known: taken as alive. */
static int holder_alive(const char *host, long pid, unsigned long long start)
{
    char here[256];
    logt_hostname(here, sizeof here);
    if (strcmp(host, here)) return 1;
    if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) return 0;
    const unsigned long long now = started(pid);
    return !(start && now && now != start);   /* the pid reused by another process */
}

logt_status store_lock(const char *path, char *held, size_t n)
{
    char lock[PATH_MAX + 8];   /* into held only once it is ours: the holder releases it */
    snprintf(lock, sizeof lock, "%s.lock", path);
    char host[256], text[512];
    logt_hostname(host, sizeof host);
    const long pid = (long)getpid();
    int len = snprintf(text, sizeof text, "host=%s pid=%ld start=%llu\n", host, pid, started(pid));
    for (int attempt = 0; attempt < 3; attempt++) {
        int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            const int bad = write_all(fd, text, (size_t)len) != 0;
            close(fd);
            if (bad) {
                unlink(lock);
                return LOGT_USER_FAIL(LOGT_EIO, "cannot write the lock %s: %s", lock, strerror(errno));
            }
            logt_strlcpy(held, n, lock);
            return LOGT_OK;
        }
        if (errno != EEXIST)
            return LOGT_USER_FAIL(LOGT_EIO, "cannot lock results file %s: cannot create %s: %s. HINT: "
                                  "pass --out FILE in a writable place", path, lock, strerror(errno));
        /* held: by whom, and are they alive? */
        char other[512] = "", ohost[256] = "?";
        long opid = 0;
        unsigned long long ostart = 0;
        struct stat before, after;
        FILE *f = fopen(lock, "r");
        if (!f) continue;   /* released meanwhile: try again */
        const int got = fstat(fileno(f), &before) == 0 && fgets(other, sizeof other, f) != NULL;
        fclose(f);
        if (!got || sscanf(other, "host=%255s pid=%ld start=%llu", ohost, &opid, &ostart) < 2) {
            if (attempt < 2) {   /* being written by its maker this instant: look again */
                usleep(200000);
                continue;
            }
            return LOGT_USER_FAIL(LOGT_EIO, "results file %s is locked by %s, which does not say by "
                                  "whom. HINT: if no logt writes %s, remove %s", path, lock, path, lock);
        }
        if (holder_alive(ohost, opid, ostart))
            return LOGT_USER_FAIL(LOGT_EIO, "results file %s is being written by logt (pid %ld on "
                                  "host %s, per %s). HINT: wait for that run to end, or write "
                                  "elsewhere with --out NEW.h5; if no logt runs there any more, "
                                  "remove %s", path, opid, ohost, lock, lock);
        /* stale: taken over, unless another writer replaced it meanwhile */
        if (stat(lock, &after) == 0 && after.st_ino == before.st_ino && after.st_mtime == before.st_mtime) {
            fprintf(stderr, "logt: %s: a stale lock of pid %ld on this host (no longer running) "
                    "taken over\n", path, opid);
            unlink(lock);
        }
    }
    return LOGT_USER_FAIL(LOGT_EIO, "cannot lock results file %s: %s keeps changing (other logt "
                          "runs on the same file?). HINT: write elsewhere with --out NEW.h5", path, lock);
}

void store_unlock(const char *lock)
{
    if (lock && *lock) unlink(lock);
}
