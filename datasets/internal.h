/* internal.h — shared inside datasets/ only: the streams' split stride, the one-hot writer. */
#ifndef LOGT_DATASETS_INTERNAL_H
#define LOGT_DATASETS_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "dataset.h"

#define LOGT_SPLIT_STRIDE (1ull << 40)   /* sequences per split before streams would overlap */

/* x_t of one sequence: all zeros but a one at k. */
static inline void logt_onehot(double *xt, int I, int k)
{
    memset(xt, 0, (size_t)I * sizeof *xt);
    xt[k] = 1.0;
}

#endif
