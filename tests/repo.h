/* repo.h — a path in the repository the test binary was built from: it runs as
 * ROOT/BUILD/bin/logt-tests (or ROOT/bundle/bin/logt-tests), so ROOT is three levels up. */
#ifndef LOGT_TEST_REPO_H
#define LOGT_TEST_REPO_H

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static inline void repo_path(char *buf, size_t n, const char *rel)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert_gt(len, 0);
    exe[len] = '\0';
    for (int up = 0; up < 3; up++) *strrchr(exe, '/') = '\0';
    snprintf(buf, n, "%s/%s", exe, rel);
}

#endif
