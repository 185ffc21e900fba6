/* util.c — lists, numbers, clock, host, git commit, paths (see util.h). */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *logt_user_msg(void)
{
    const char *m = logt_errmsg();
    return strncmp(m, ":0: ", 4) ? m : m + 4;
}

void logt_strlcpy(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n) len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

char *logt_trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

logt_status logt_list_split(const char *s, char sep, logt_list *l)
{
    l->n = 0;
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, sep);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[4 * LOGT_WORD];
        if (len >= sizeof item)
            return LOGT_USER_FAIL(LOGT_EINVAL, "item '%.20s...' is longer than %d characters", p,
                             LOGT_WORD - 1);
        memcpy(item, p, len);
        item[len] = '\0';
        char *t = logt_trim(item);
        if (!*t) return LOGT_USER_FAIL(LOGT_EINVAL, "empty item in the list '%s'", s);
        if (strlen(t) >= LOGT_WORD)
            return LOGT_USER_FAIL(LOGT_EINVAL, "item '%s' is longer than %d characters", t, LOGT_WORD - 1);
        if (l->n == LOGT_LIST_MAX)
            return LOGT_USER_FAIL(LOGT_EINVAL, "more than %d items in one list", LOGT_LIST_MAX);
        snprintf(l->v[l->n++], LOGT_WORD, "%s", t);
        if (!end) break;
        p = end + 1;
    }
    return LOGT_OK;
}

int logt_list_find(const logt_list *l, const char *word)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], word)) return i;
    return -1;
}

void logt_list_join(const logt_list *l, const char *sep, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->n && used < n; i++) {
        int k = snprintf(buf + used, n - used, "%s%s", i ? sep : "", l->v[i]);
        if (k < 0) break;
        used += (size_t)k;
    }
}

int logt_parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno) return -1;
    *out = v;
    return 0;
}

int logt_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (*s == '-') return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno) return -1;
    *out = v;
    return 0;
}

int logt_parse_f64(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno) return -1;
    *out = v;
    return 0;
}

void logt_iso8601(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void logt_hostname(char *buf, size_t n)
{
    if (gethostname(buf, n) != 0) snprintf(buf, n, "unknown");
    buf[n - 1] = '\0';
}

void logt_cpu_name(char *buf, size_t n)
{
    snprintf(buf, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *colon = strchr(line, ':');
        if (colon) snprintf(buf, n, "%s", logt_trim(colon + 1));
        break;
    }
    fclose(f);
}

void logt_exe_dir(char *buf, size_t n)
{
    char path[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
    buf[0] = '\0';
    if (len <= 0) return;
    path[len] = '\0';
    char *slash = strrchr(path, '/');
    if (slash) *slash = '\0';
    snprintf(buf, n, "%s", path);
}

/* First line of a shell command's stdout, trimmed; -1 when it fails or prints nothing. */
static int first_line(const char *cmd, char *buf, size_t n, int *any_output)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[256] = "";
    int got = fgets(line, sizeof line, p) != NULL;
    while (got && fgetc(p) != EOF) {}   /* drain, so the child is not killed by SIGPIPE */
    int rc = pclose(p);
    if (any_output) *any_output = got;
    if (rc != 0) return -1;
    if (buf) snprintf(buf, n, "%s", logt_trim(line));
    return 0;
}

void logt_git_commit(char *buf, size_t n)
{
    const char *env = getenv("LOGT_COMMIT");
    if (env && *env) {
        snprintf(buf, n, "%s", env);
        return;
    }
    char dir[PATH_MAX], cmd[PATH_MAX + 128], hash[64];
    logt_exe_dir(dir, sizeof dir);
    if (!*dir || strchr(dir, '\'')) {
        snprintf(buf, n, "unknown");
        return;
    }
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse --short HEAD 2>/dev/null", dir);
    if (first_line(cmd, hash, sizeof hash, NULL) != 0 || !*hash) {
        snprintf(buf, n, "unknown");
        return;
    }
    snprintf(cmd, sizeof cmd, "git -C '%s' status --porcelain 2>/dev/null", dir);
    int dirty = 0;
    first_line(cmd, NULL, 0, &dirty);
    snprintf(buf, n, "%s%s", hash, dirty ? "-dirty" : "");
}

logt_status logt_mkdirs(const char *path, int whole)
{
    char p[PATH_MAX];
    logt_strlcpy(p, sizeof p, path);
    if (!whole) {
        char *slash = strrchr(p, '/');
        if (!slash) return LOGT_OK;   /* the current directory */
        *slash = '\0';
    }
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0') continue;
        char c = *s;
        *s = '\0';
        if (*p && mkdir(p, 0777) != 0 && errno != EEXIST)
            return LOGT_FAIL(LOGT_EIO, "cannot create directory %s: %s", p, strerror(errno));
        *s = c;
        if (!c) break;
    }
    struct stat st;
    if (*p && (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)))
        return LOGT_FAIL(LOGT_EIO, "%s is not a directory", p);
    return LOGT_OK;
}

logt_status logt_read_file(const char *path, char **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return LOGT_FAIL(LOGT_EIO, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) break;
        if (len + 1 == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (!buf) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory reading %s", path);
    if (err) {
        free(buf);
        return LOGT_FAIL(LOGT_EIO, "cannot read %s", path);
    }
    buf[len] = '\0';
    *out = buf;
    return LOGT_OK;
}

void logt_fmt_bytes(double b, char *buf, size_t n)
{
    if (b < 1024) snprintf(buf, n, "%.0f B", b);
    else if (b < 1024.0 * 1024) snprintf(buf, n, "%.1f KiB", b / 1024);
    else if (b < 1024.0 * 1024 * 1024) snprintf(buf, n, "%.1f MiB", b / (1024.0 * 1024));
    else snprintf(buf, n, "%.2f GiB", b / (1024.0 * 1024 * 1024));
}

void logt_fmt_duration(double s, char *buf, size_t n)
{
    if (s < 0) s = 0;
    if (s < 60) snprintf(buf, n, "%.1f s", s);
    else if (s < 3600) snprintf(buf, n, "%d min %02d s", (int)s / 60, (int)s % 60);
    else snprintf(buf, n, "%d h %02d min", (int)s / 3600, (int)s % 3600 / 60);
}
