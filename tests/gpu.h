/* gpu.h — CUDA tests skip themselves, with a message, where no GPU is present. */
#ifndef LOGT_TEST_GPU_H
#define LOGT_TEST_GPU_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/ctx.h"

/* First line of a test that needs a GPU: `SKIP_WITHOUT_GPU("lstm vs cuDNN");` */
#define SKIP_WITHOUT_GPU(what)                                                                 \
    do {                                                                                       \
        if (!logt_backend_available(LOGT_CUDA))                                                \
            cr_skip_test("no GPU (or built without CUDA): skipping %s", (what));               \
    } while (0)

/* With LOGT_TEST_CASE=N only a test's N-th case (from 0: the N-th call of its case helper) runs,
 * the others return at once, and the one that runs says so on stderr ("test case N ran"): a
 * sanitizer's run takes one case a process (scripts/gpu-sanitize.sh, "TEST#N"), and a case past
 * the test's last is told apart from a clean one. */
static inline int test_only_case(void)
{
    static int seen = 0;
    const char *e = getenv("LOGT_TEST_CASE");
    if (!e || !*e) return 1;
    if (atoi(e) != seen++) return 0;
    fprintf(stderr, "test case %d ran\n", seen - 1);
    return 1;
}

#endif
