/* kernels.h — the kernels `kind = kernel` experiments time, by name (kernels/bench.h says what
 * an entry is). */
#ifndef LOGT_MODELS_KERNELS_H
#define LOGT_MODELS_KERNELS_H

#include <stddef.h>

#include "../kernels/bench.h"

const logt_kernel *logt_kernel_find(const char *name);   /* NULL when unknown */
int logt_kernel_count(void);
const logt_kernel *logt_kernel_at(int i);
/* "scan, scan-reverse, ..." into buf. */
void logt_kernel_names(char *buf, size_t n);

#endif
