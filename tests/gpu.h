/* gpu.h — CUDA tests skip themselves, with a message, where no GPU is present. */
#ifndef LOGT_TEST_GPU_H
#define LOGT_TEST_GPU_H

#include <criterion/criterion.h>

#include "../core/ctx.h"

/* First line of a test that needs a GPU: `SKIP_WITHOUT_GPU("lstm vs cuDNN");` */
#define SKIP_WITHOUT_GPU(what)                                                                 \
    do {                                                                                       \
        if (!logt_backend_available(LOGT_CUDA))                                                \
            cr_skip_test("no GPU (or built without CUDA): skipping %s", (what));               \
    } while (0)

#endif
