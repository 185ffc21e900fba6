/* claims.h — an experiment's claims ([claims] in experiment.ini) and their values in a
 * results file.
 *
 *   [claims]
 *   dh64.text  = fused LSTM forward against the alternating kernel, dh = 64, bf16
 *   dh64.y     = median_ms
 *   dh64.row   = model=flashrnn, kernel=fused, head_dim=64, pass=forward
 *   dh64.over  = kernel=alternating
 *   dh64.paper = 3-4x (Fig. 4)
 *   dh64.bar   = >= 3
 *
 * `row` picks runs (ok ones) by filters, as a plot's `where` does; a filter on a knob a run
 * does not have is not held against it. `over` is either a number or filters that replace
 * row's filters of the same fields: each row's partner matches them and agrees with the row
 * in kind, backend, task and every sweep axis that `over` does not name. With `over` the value
 * is a ratio that is above 1 where the row is better (partner / row for times and other
 * lower-is-better measures, row / partner for rates); without it, the row's own y. Several
 * rows give several values, and the bar (>= X, > X, <= X, < X or X..Y) must hold for each.
 */
#ifndef LOGT_RUNNER_CLAIMS_H
#define LOGT_RUNNER_CLAIMS_H

#include "config.h"
#include "store.h"

#define LOGT_MAX_CLAIMS 32

typedef enum { LOGT_BAR_GE, LOGT_BAR_GT, LOGT_BAR_LE, LOGT_BAR_LT, LOGT_BAR_RANGE } logt_bar_op;

typedef struct logt_claim {
    char name[LOGT_WORD];
    char text[512], paper[512], y[32], bar_text[64];
    logt_list row, over;     /* filters; over empty when it is a number or absent */
    int has_over, over_is_number;
    double over_number;
    logt_bar_op op;
    double lo, hi;           /* the bar's number(s) */
    char where[256];         /* where the claim's first key was written */
} logt_claim;

/* The value of one claim in one results file. */
typedef struct logt_claim_value {
    int n;                   /* values found (0: none, why says so) */
    double lo, hi;           /* their range */
    int held;                /* n > 0 and every value meets the bar */
    char why[512];           /* when n == 0, or a value could not be formed */
} logt_claim_value;

/* A [claims] value of `over` (bar = 0) or `bar` (bar = 1), checked at parse time. */
logt_status logt_claim_check_value(const char *where, const char *key, int bar, const char *value);

/* The claims of a parsed experiment, in the order of their first key; each must have text,
 * y (a per-run measure), row, paper and bar. *out malloc'd (NULL when there are none). */
logt_status logt_claims_read(const logt_experiment *e, logt_claim **out, int *n);

/* The claim's value over a file's rows (logt_store_summary). */
void logt_claim_eval(const logt_claim *c, const logt_summary_row *rows, int64_t n,
                     logt_claim_value *v);

/* "3.1x", "2.2-9.4x", "0.0031", or "-" (no value); ratio: the claim has `over`. */
void logt_claim_format(const logt_claim *c, const logt_claim_value *v, char *buf, size_t n);

#endif
