/* status.c — the thread-local error message behind logt_status. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char errmsg[2048];

logt_status logt_fail_at(logt_status code, const char *file, int line, const char *fmt, ...)
{
    const char *base = strrchr(file, '/');
    int n = snprintf(errmsg, sizeof errmsg, "%s:%d: ", base ? base + 1 : file, line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof errmsg) vsnprintf(errmsg + n, sizeof errmsg - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

void logt_errctx(const char *fmt, ...)
{
    char old[sizeof errmsg];
    memcpy(old, errmsg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(errmsg, sizeof errmsg, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof errmsg - 3) return;
    errmsg[n] = ':', errmsg[n + 1] = ' ';
    memcpy(errmsg + n + 2, old, sizeof errmsg - (size_t)n - 2);
    errmsg[sizeof errmsg - 1] = '\0';
}

const char *logt_errmsg(void) { return errmsg; }
void logt_errclear(void) { errmsg[0] = '\0'; }

const char *logt_status_name(logt_status s)
{
    switch (s) {
    case LOGT_OK: return "ok";
    case LOGT_EINVAL: return "invalid argument";
    case LOGT_ENOMEM: return "out of memory";
    case LOGT_ECUDA: return "CUDA error";
    case LOGT_EIO: return "I/O error";
    case LOGT_EUNSUPPORTED: return "unsupported";
    case LOGT_ENUMERIC: return "numerical failure";
    }
    return "unknown status";
}
