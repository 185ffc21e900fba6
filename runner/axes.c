/* axes.c — the sweep axes' table (axes.h) and what every reader of it shares: a value
 * into a run's spec, a spec's value into its key, its attribute and its summary column.
 */
#include "axes.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "store.h"

#define SPEC(f) offsetof(logt_run_spec, f), sizeof(((logt_run_spec *)0)->f)
#define CFG(f) SPEC(cfg.f)
#define ROW(f) offsetof(logt_summary_row, f), sizeof(((logt_summary_row *)0)->f)
#define SPD (1u << LOGT_KIND_SPEED)
#define TRN (1u << LOGT_KIND_TRAIN)
#define KRN (1u << LOGT_KIND_KERNEL)
#define ALL (SPD | TRN | KRN)
#define POSINT LOGT_AXIS_POSINT
#define NNINT LOGT_AXIS_NNINT
#define U64 LOGT_AXIS_U64
#define DTYPE LOGT_AXIS_DTYPE
#define PASS LOGT_AXIS_PASS
#define WORD LOGT_AXIS_WORD
#define X LOGT_PLOT_X
#define VALUE LOGT_PLOT_VALUE

/* In sweep order. A kernel varies only T, B, D (C = B·D channels), dtype and seed;
 * training has no pass and takes input_size from its task, so its key leaves that out.
 * The key writes cell before pass (key_at): keys are compared as text. */
const logt_axis logt_axes[] = {
    /* name        type    default    varies   spec field        summary col      keyed    at  lbl plot   0 is */
    {"T",          POSINT, "128",     ALL,     SPEC(T),          ROW(T),          ALL,     1,  0,  X,     NULL},
    {"B",          POSINT, "8",       ALL,     SPEC(B),          ROW(B),          ALL,     2,  0,  X,     NULL},
    {"D",          POSINT, "64",      ALL,     CFG(hidden_size), ROW(D),          ALL,     3,  0,  X,     NULL},
    {"input_size", NNINT,  "0",       SPD|TRN, CFG(input_size),  ROW(input_size), SPD,     4,  1,  X,     "D"},
    {"head_dim",   NNINT,  "0",       SPD|TRN, CFG(head_dim),    ROW(head_dim),   SPD|TRN, 5,  1,  X,     NULL},
    {"layers",     POSINT, "1",       SPD|TRN, CFG(layers),      ROW(layers),     SPD|TRN, 6,  1,  X,     NULL},
    {"dtype",      DTYPE,  NULL,      ALL,     CFG(dtype),       ROW(dtype),      ALL,     7,  1,  VALUE, NULL},
    {"seed",       U64,    "1",       ALL,     CFG(seed),        ROW(seed),       ALL,     8,  1,  X,     NULL},
    {"pass",       PASS,   "forward", SPD,     SPEC(pass),       ROW(pass),       SPD,     10, 0,  VALUE, NULL},
    {"cell",       WORD,   "",        SPD|TRN, CFG(cell),        ROW(cell),       SPD|TRN, 9,  1,  VALUE, NULL},
};
const int logt_naxes = sizeof logt_axes / sizeof logt_axes[0];
_Static_assert(sizeof logt_axes / sizeof logt_axes[0] <= LOGT_MAX_AXES, "raise LOGT_MAX_AXES");
_Static_assert(LOGT_MAX_AXES <= 32, "zip holds one bit per axis in an unsigned");

int logt_axis_index(const char *name)
{
    for (int a = 0; a < logt_naxes; a++)
        if (!strcmp(logt_axes[a].name, name)) return a;
    return -1;
}

int logt_axis_is_number(const logt_axis *a)
{
    return a->type == POSINT || a->type == NNINT || a->type == U64;
}

const char *logt_axis_default(const logt_axis *a, logt_device dev)
{
    return a->type == DTYPE ? logt_dtype_name(logt_param_dtype(dev)) : a->dflt;
}

void logt_axes_by_column(int order[LOGT_MAX_AXES])
{
    for (int a = 0; a < logt_naxes; a++) {   /* insertion sort by the column's offset */
        int i = a;
        for (; i > 0 && logt_axes[order[i - 1]].col > logt_axes[a].col; i--) order[i] = order[i - 1];
        order[i] = a;
    }
}

/* ---- a run's spec --------------------------------------------------------------------- */

void logt_axis_set(const logt_axis *a, logt_run_spec *r, const char *value)
{
    char *p = (char *)r + a->spec;
    int64_t iv = 0;
    switch (a->type) {
    case POSINT:
    case NNINT:
        logt_parse_i64(value, &iv);
        if (iv == 0 && a->zero) {
            const logt_axis *z = &logt_axes[logt_axis_index(a->zero)];
            iv = *(const int *)((const char *)r + z->spec);
        }
        *(int *)p = (int)iv;
        break;
    case U64: logt_parse_u64(value, (uint64_t *)p); break;
    case DTYPE: logt_dtype_parse(value, (logt_dtype *)p); break;
    case PASS:
    case WORD: logt_strlcpy(p, a->spec_size, value); break;
    default: break;
    }
}

void logt_axis_text(const logt_axis *a, const logt_run_spec *r, char *buf, size_t n)
{
    const char *p = (const char *)r + a->spec;
    switch (a->type) {
    case POSINT:
    case NNINT: snprintf(buf, n, "%d", *(const int *)p); break;
    case U64: snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)p); break;
    case DTYPE: logt_strlcpy(buf, n, logt_dtype_name(*(const logt_dtype *)p)); break;
    default: logt_strlcpy(buf, n, p); break;
    }
}

int64_t logt_axis_i64(const logt_axis *a, const logt_run_spec *r)
{
    const char *p = (const char *)r + a->spec;
    return a->type == U64 ? (int64_t)*(const uint64_t *)p : *(const int *)p;
}

/* ---- keys ----------------------------------------------------------------------------- */

size_t logt_axis_key_field(const logt_axis *a, int kind, int at_end, const logt_run_spec *r,
                           char *buf, size_t n)
{
    char v[LOGT_WORD];
    buf[0] = '\0';
    if (!(a->keyed >> kind & 1) || (a->key_at == LOGT_KEY_IF_SET) != at_end) return 0;
    logt_axis_text(a, r, v, sizeof v);
    if (at_end) {   /* at its default it is left out, as in keys written before it existed */
        logt_run_spec d = *r;   /* a copy: an axis's 0 may stand for another's value */
        char dv[LOGT_WORD];
        logt_axis_set(a, &d, logt_axis_default(a, r->cfg.device));
        logt_axis_text(a, &d, dv, sizeof dv);
        if (!strcmp(v, dv)) return 0;
    }
    int len = snprintf(buf, n, " %s=%s", a->name, v);
    return len < 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1;
}

void logt_axes_key(int kind, int at_end, const logt_run_spec *r, char *buf, size_t n)
{
    size_t used = strlen(buf);
    int order[LOGT_MAX_AXES], m = 0;
    for (int a = 0; a < logt_naxes; a++) {   /* by key_at; the late ones in table order */
        int i = m++;
        for (; i > 0 && logt_axes[order[i - 1]].key_at > logt_axes[a].key_at; i--) order[i] = order[i - 1];
        order[i] = a;
    }
    for (int i = 0; i < m && used < n; i++)
        used += logt_axis_key_field(&logt_axes[order[i]], kind, at_end, r, buf + used, n - used);
}

/* ---- the summary -------------------------------------------------------------------------- */

void logt_axis_to_row(const logt_axis *a, const logt_run_spec *r, logt_summary_row *row)
{
    char *p = (char *)row + a->col;
    switch (a->type) {
    case POSINT:
    case NNINT: *(int64_t *)p = logt_axis_i64(a, r); break;
    case U64: *(uint64_t *)p = *(const uint64_t *)((const char *)r + a->spec); break;
    default: logt_axis_text(a, r, p, a->col_size); break;
    }
}

void logt_axis_row_text(const logt_axis *a, const logt_summary_row *row, char *buf, size_t n)
{
    const char *p = (const char *)row + a->col;
    if (a->type == U64) snprintf(buf, n, "%lld", (long long)*(const uint64_t *)p);
    else if (logt_axis_is_number(a)) snprintf(buf, n, "%lld", (long long)*(const int64_t *)p);
    else logt_strlcpy(buf, n, p);
}

char logt_axis_col_type(const logt_axis *a)
{
    return a->type == U64 ? 'u' : logt_axis_is_number(a) ? 'i' : 's';
}
