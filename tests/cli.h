/* cli.h — the `logt` command run from a test, in a temporary directory of its own.
 *
 * The binary is the `logt` next to the test binary (found through /proc/self/exe), so
 * `make B=dir test` tests the build in dir. A suite calls cli_setup("name") and
 * cli_teardown() around each test; logt(env, args) runs `env logt args` in the
 * directory and keeps its stderr in `err` for EXPECT_ERR; a sanitizer's report there fails
 * the test.
 */
#ifndef LOGT_TEST_CLI_H
#define LOGT_TEST_CLI_H

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../runner/store.h"

static char bin[PATH_MAX + 8];
static char dir[64];
static char err[16384];   /* stderr of the last logt */

static inline void cli_setup(const char *name)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert_gt(n, 0);
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(bin, sizeof bin, "%s/logt", exe);
    cr_assert_eq(access(bin, X_OK), 0, "no logt binary next to the tests at %s", bin);
    snprintf(dir, sizeof dir, "/tmp/logt-%s-XXXXXX", name);
    cr_assert_not_null(mkdtemp(dir));
}

static inline void cli_teardown(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
    if (system(cmd) != 0) cr_log_warn("could not remove %s", dir);
}

/* Write text to the file at rel (relative to the test directory), making its directory. */
static inline void write_at(const char *rel, const char *text)
{
    char path[PATH_MAX], mk[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    snprintf(mk, sizeof mk, "mkdir -p \"$(dirname '%s')\"", path);
    cr_assert_eq(system(mk), 0);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static inline void read_at(const char *rel, char *buf, size_t n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (!f) return;
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

/* A sanitizer's report in logt's stderr (make test SANITIZE=1) fails the test with the report:
 * ASan and LSan open theirs with "==PID==ERROR: ", UBSan with "FILE:LINE:COL: runtime error: ". */
static inline void expect_no_sanitizer_report(const char *args)
{
    static char report[16384];
    char path[PATH_MAX], line[1024];
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!n && !strstr(line, "==ERROR: ") && !strstr(line, ": runtime error: ")) continue;
        n += (size_t)snprintf(report + n, sizeof report - n, "%s", line);
        if (n >= sizeof report - 1) break;
    }
    fclose(f);
    cr_assert(n == 0, "logt %s: a sanitizer's report:\n%s", args, report);
}

/* Run `env logt args` in the test directory; its exit status, stderr in err. */
static inline int logt(const char *env, const char *args)
{
    char cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' %s >stdout.txt 2>stderr.txt", dir,
             env ? env : "", bin, args);
    int st = system(cmd);
    read_at("stderr.txt", err, sizeof err);
    expect_no_sanitizer_report(args);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define EXPECT_ERR(needle) \
    cr_assert(strstr(err, needle), "expected '%s' in stderr:\n%s", needle, err)

static inline logt_store *open_results(const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    logt_store *st;
    cr_assert_eq(logt_store_open_read(path, &st), LOGT_OK, "%s", logt_errmsg());
    return st;
}

/* Every run of the file: ok and one group per key. Returns the run count. */
static inline int count_ok_runs(logt_store *st)
{
    int n = logt_store_nruns(st);
    for (int i = 0; i < n; i++) {
        int64_t id, other;
        const char *key;
        logt_run_state state;
        logt_store_run_at(st, i, &id, &key, &state);
        cr_assert_eq(state, LOGT_RUN_OK, "run %lld (%s) is not ok", (long long)id, key);
        logt_store_find(st, key, &other, &state);
        cr_assert_eq(other, id, "key stored twice: %s", key);
    }
    return n;
}

#endif
