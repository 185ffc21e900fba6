/* kernels.c — the kernels `kind = kernel` experiments time, by name. Each is defined beside
 * the code it times; adding one is its logt_kernel there and one line here. */
#include "kernels.h"

#include <stdio.h>
#include <string.h>

extern const logt_kernel logt_scan_kernel;
extern const logt_kernel logt_scan_reverse_kernel;
extern const logt_kernel logt_scan_serial_kernel;
extern const logt_kernel logt_scan_serial_u8_kernel;
extern const logt_kernel logt_scan_backward_kernel;
extern const logt_kernel logt_sru_recurrence_kernel;

static const logt_kernel *const kernels[] = {
    &logt_scan_kernel,          &logt_scan_reverse_kernel,   &logt_scan_serial_kernel,
    &logt_scan_serial_u8_kernel, &logt_scan_backward_kernel, &logt_sru_recurrence_kernel,
};
enum { NKERNELS = sizeof kernels / sizeof kernels[0] };

const logt_kernel *logt_kernel_find(const char *name)
{
    for (int i = 0; i < NKERNELS; i++)
        if (!strcmp(kernels[i]->name, name)) return kernels[i];
    return NULL;
}

int logt_kernel_count(void) { return NKERNELS; }

const logt_kernel *logt_kernel_at(int i) { return i >= 0 && i < NKERNELS ? kernels[i] : NULL; }

void logt_kernel_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < NKERNELS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", kernels[i]->name);
}

