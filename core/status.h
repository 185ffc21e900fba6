/* status.h — how library code reports failure.
 *
 * Library code never prints and never exits: a function that can fail returns a
 * logt_status and, on failure, leaves a message (with file:line and a hint) that
 * logt_errmsg() returns. Only runner/ shows messages to the user.
 */
#ifndef LOGT_STATUS_H
#define LOGT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum logt_status {
    LOGT_OK = 0,
    LOGT_EINVAL,       /* bad argument or configuration              */
    LOGT_ENOMEM,       /* host or device allocation failed           */
    LOGT_ECUDA,        /* CUDA runtime, cuBLAS or cuDNN error        */
    LOGT_EIO,          /* file or HDF5 error                         */
    LOGT_EUNSUPPORTED, /* valid request this build or model can't do */
    LOGT_ENUMERIC,     /* NaN/Inf or non-convergence                 */
} logt_status;

/* Record a failure and return `code`. Use LOGT_FAIL, which adds file:line. */
logt_status logt_fail_at(logt_status code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define LOGT_FAIL(code, ...) logt_fail_at((code), __FILE__, __LINE__, __VA_ARGS__)

/* Prepend context to the current message ("while running lstm: ..."). */
void logt_errctx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

const char *logt_errmsg(void);    /* the last failure's message ("" if none) */
const char *logt_status_name(logt_status s);
void logt_errclear(void);

/* Propagate: `LOGT_TRY(f(x));` returns f's status from the caller when it fails. */
#define LOGT_TRY(expr)                                    \
    do {                                                  \
        logt_status logt_try_s_ = (expr);                 \
        if (logt_try_s_ != LOGT_OK) return logt_try_s_;   \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
