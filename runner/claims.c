/* claims.c — [claims] read from an experiment and evaluated over a results file's rows. */
#include "claims.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"

/* ---- parsing ----------------------------------------------------------------------------- */

static int parse_number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    while (*end == ' ' || *end == '\t') end++;
    return end != s && !*end && !errno && isfinite(*v);
}

/* ">= 3", "> 3", "<= 0.01", "< 2", "1..5" */
static int parse_bar(const char *s, logt_bar_op *op, double *lo, double *hi)
{
    while (*s == ' ') s++;
    const struct { const char *sym; logt_bar_op op; } ops[] = {
        {">=", LOGT_BAR_GE}, {"<=", LOGT_BAR_LE}, {">", LOGT_BAR_GT}, {"<", LOGT_BAR_LT}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strncmp(s, ops[i].sym, strlen(ops[i].sym))) {
            *op = ops[i].op;
            *hi = NAN;
            return parse_number(s + strlen(ops[i].sym), lo);
        }
    const char *dots = strstr(s, "..");
    if (!dots) return 0;
    char a[64];
    snprintf(a, sizeof a, "%.*s", (int)(dots - s), s);
    *op = LOGT_BAR_RANGE;
    return parse_number(a, lo) && parse_number(dots + 2, hi) && *lo <= *hi;
}

/* Filters "FIELD=VALUE" (or FIELD=V1|V2), comma-separated. */
static int parse_filters(const char *s, logt_list *l)
{
    if (logt_list_split(s, ',', l) != LOGT_OK || l->n == 0) return 0;
    for (int i = 0; i < l->n; i++) {
        const char *eq = strchr(l->v[i], '=');
        if (!eq || eq == l->v[i] || !eq[1]) return 0;
    }
    return 1;
}

logt_status logt_claim_check_value(const char *where, const char *key, int bar, const char *value)
{
    logt_bar_op op;
    double a, b;
    logt_list l;
    if (bar ? parse_bar(value, &op, &a, &b) : parse_number(value, &a) || parse_filters(value, &l))
        return LOGT_OK;
    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: bad value '%s' for %s: expected %s", where, value, key,
                          bar ? "'>= X', '> X', '<= X', '< X' or 'X..Y' (X <= Y)"
                              : "a number, or filters FIELD=VALUE, ... that pick each row's partner");
}

static logt_claim *claim_named(logt_claim *c, int *n, const char *name, const char *where)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(c[i].name, name)) return &c[i];
    if (*n == LOGT_MAX_CLAIMS) return NULL;
    logt_claim *k = &c[(*n)++];
    memset(k, 0, sizeof *k);
    logt_strlcpy(k->name, sizeof k->name, name);
    logt_strlcpy(k->where, sizeof k->where, where);
    return k;
}

static logt_status claim_set(logt_claim *c, const char *field, const logt_entry *en)
{
    const char *v = en->value;
    if (!strcmp(field, "text")) logt_strlcpy(c->text, sizeof c->text, v);
    else if (!strcmp(field, "paper")) logt_strlcpy(c->paper, sizeof c->paper, v);
    else if (!strcmp(field, "y")) {
        int curve = 0;
        logt_plot_is_measure(v, &curve);
        if (curve)
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s: %s.y = %s is a value per step; a claim takes one "
                                  "value per run (median_ms, test_loss, solve_s, ...)", en->where,
                                  c->name, v);
        logt_strlcpy(c->y, sizeof c->y, v);
    } else if (!strcmp(field, "row")) parse_filters(v, &c->row);
    else if (!strcmp(field, "over")) {
        c->has_over = 1;
        c->over_is_number = parse_number(v, &c->over_number);
        if (!c->over_is_number) parse_filters(v, &c->over);
    } else if (!strcmp(field, "bar")) {
        parse_bar(v, &c->op, &c->lo, &c->hi);
        logt_strlcpy(c->bar_text, sizeof c->bar_text, v);
    }
    return LOGT_OK;
}

logt_status logt_claims_read(const logt_experiment *e, logt_claim **out, int *n)
{
    *out = NULL;
    *n = 0;
    logt_claim *c = calloc(LOGT_MAX_CLAIMS, sizeof *c);
    if (!c) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    logt_status s = LOGT_OK;
    for (int i = 0; s == LOGT_OK && i < e->nent; i++) {
        const logt_entry *en = &e->ent[i];
        if (strcmp(en->section, "claims")) continue;
        const char *dot = strchr(en->key, '.');   /* checked at parse time: CLAIM.FIELD */
        char name[LOGT_WORD];
        snprintf(name, sizeof name, "%.*s", (int)(dot - en->key), en->key);
        logt_claim *k = claim_named(c, n, name, en->where);
        s = k ? claim_set(k, dot + 1, en)
              : LOGT_USER_FAIL(LOGT_EINVAL, "%s: more than %d claims in one experiment", en->where,
                               LOGT_MAX_CLAIMS);
    }
    for (int i = 0; s == LOGT_OK && i < *n; i++) {
        const char *missing = !*c[i].text ? "text" : !*c[i].y ? "y" : !c[i].row.n ? "row"
                            : !*c[i].paper ? "paper" : !*c[i].bar_text ? "bar" : NULL;
        if (missing)
            s = LOGT_USER_FAIL(LOGT_EINVAL, "%s: claim '%s' has no %s.%s (a claim needs text, y, row, "
                               "paper and bar; over is optional)", c[i].where, c[i].name, c[i].name,
                               missing);
    }
    if (s != LOGT_OK || !*n) {
        free(c);
        *n = 0;
        return s;
    }
    *out = c;
    return LOGT_OK;
}

/* ---- evaluation -------------------------------------------------------------------------- */

/* Does r pass the filters? One on a knob r does not have is not held against it. */
static int passes(const logt_summary_row *r, const logt_list *filters)
{
    if (strcmp(r->status, "ok")) return 0;
    for (int i = 0; i < filters->n; i++) {
        char f[LOGT_WORD], v[160];
        logt_filter_field(filters->v[i], f, sizeof f);
        if (!logt_plot_is_field(f) && !logt_row_field(r, f, v, sizeof v)) continue;
        if (!logt_row_matches(r, filters->v[i])) return 0;
    }
    return 1;
}

static int names_field(const logt_list *filters, const char *field)
{
    for (int i = 0; i < filters->n; i++) {
        char f[LOGT_WORD];
        logt_filter_field(filters->v[i], f, sizeof f);
        if (!strcmp(f, field)) return 1;
    }
    return 0;
}

/* row's filters with those of over's fields replaced by over's */
static void partner_filters(const logt_claim *c, logt_list *out)
{
    *out = c->over;
    for (int i = 0; i < c->row.n && out->n < LOGT_LIST_MAX; i++) {
        char f[LOGT_WORD];
        logt_filter_field(c->row.v[i], f, sizeof f);
        if (!names_field(&c->over, f)) logt_strlcpy(out->v[out->n++], LOGT_WORD, c->row.v[i]);
    }
}

/* Does p agree with r in kind, backend, task and every axis over does not name? */
static int same_point(const logt_claim *c, const logt_summary_row *r, const logt_summary_row *p)
{
    static const char *const same[] = {"kind", "backend", "task"};
    const int nsame = (int)(sizeof same / sizeof same[0]);
    for (int k = 0; k < nsame + logt_naxes; k++) {
        const char *f = k < nsame ? same[k] : logt_axes[k - nsame].name;
        char v1[160], v2[160];
        if (names_field(&c->over, f)) continue;
        logt_row_field(r, f, v1, sizeof v1);
        logt_row_field(p, f, v2, sizeof v2);
        if (strcmp(v1, v2)) return 0;
    }
    return 1;
}

static int meets(const logt_claim *c, double x)
{
    switch (c->op) {
    case LOGT_BAR_GE: return x >= c->lo;
    case LOGT_BAR_GT: return x > c->lo;
    case LOGT_BAR_LE: return x <= c->lo;
    case LOGT_BAR_LT: return x < c->lo;
    case LOGT_BAR_RANGE: return x >= c->lo && x <= c->hi;
    }
    return 0;
}

/* The label of a run for messages: "run 12 (flashrnn T=1024 ...)". */
static void run_label(const logt_summary_row *r, char *buf, size_t n)
{
    snprintf(buf, n, "run %lld (%s, %s)", (long long)r->run, r->model, r->knobs);
}

/* One value of the claim for row r, or NaN with why filled. */
static double value_for(const logt_claim *c, const logt_summary_row *rows, int64_t n,
                        const logt_summary_row *r, const logt_list *pf, char *why, size_t nw)
{
    const double y = logt_row_measure(r, c->y);
    const int higher = logt_plot_measure_higher_is_better(c->y);
    char lab[160];
    run_label(r, lab, sizeof lab);
    if (!isfinite(y)) {
        snprintf(why, nw, "%s has no %s", lab, c->y);
        return NAN;
    }
    if (!c->has_over) return y;
    double other = c->over_number;
    if (!c->over_is_number) {
        const logt_summary_row *p = NULL;
        int found = 0;
        for (int64_t i = 0; i < n; i++)
            if (&rows[i] != r && passes(&rows[i], pf) && same_point(c, r, &rows[i])) {
                if (!found++) p = &rows[i];
            }
        if (found != 1) {
            char f[200];
            logt_list_join(pf, ", ", f, sizeof f);
            snprintf(why, nw, "%s has %s partner matching %s%s", lab, found ? "more than one" : "no",
                     f, found ? ": name the knob that tells them apart in over" : "");
            return NAN;
        }
        other = logt_row_measure(p, c->y);
    }
    if (!isfinite(other) || other == 0 || y == 0) {
        snprintf(why, nw, "%s: no ratio of %s (%g against %g)", lab, c->y, y, other);
        return NAN;
    }
    return higher ? y / other : other / y;
}

void logt_claim_eval(const logt_claim *c, const logt_summary_row *rows, int64_t n,
                     logt_claim_value *v)
{
    memset(v, 0, sizeof *v);
    v->lo = INFINITY;
    v->hi = -INFINITY;
    int all = 1;
    logt_list pf;
    partner_filters(c, &pf);
    for (int64_t i = 0; i < n; i++) {
        if (!passes(&rows[i], &c->row)) continue;
        char why[512] = "";
        const double x = value_for(c, rows, n, &rows[i], &pf, why, sizeof why);
        if (!isfinite(x)) {   /* a row without its value: the claim cannot be judged */
            if (!*v->why) logt_strlcpy(v->why, sizeof v->why, why);
            all = 0;
            continue;
        }
        v->n++;
        v->lo = fmin(v->lo, x);
        v->hi = fmax(v->hi, x);
        all &= meets(c, x);
    }
    if (!v->n && !*v->why) {
        char f[400];
        logt_list_join(&c->row, ", ", f, sizeof f);
        snprintf(v->why, sizeof v->why, "no ok run matches %s", f);
    }
    v->held = v->n > 0 && all;
}

static void format_number(double x, char *buf, size_t n)
{
    const double a = fabs(x);
    if (a != 0 && (a < 1e-3 || a >= 1e6)) snprintf(buf, n, "%.3g", x);
    else if (a >= 100) snprintf(buf, n, "%.0f", x);
    else if (a >= 10) snprintf(buf, n, "%.1f", x);
    else if (a >= 1) snprintf(buf, n, "%.2f", x);
    else snprintf(buf, n, "%.3g", x);
}

void logt_claim_format(const logt_claim *c, const logt_claim_value *v, char *buf, size_t n)
{
    if (!v->n) {
        logt_strlcpy(buf, n, "-");
        return;
    }
    char lo[32], hi[32];
    format_number(v->lo, lo, sizeof lo);
    format_number(v->hi, hi, sizeof hi);
    const char *x = c->has_over ? "x" : "";
    if (!strcmp(lo, hi)) snprintf(buf, n, "%s%s", lo, x);
    else snprintf(buf, n, "%s-%s%s", lo, hi, x);
}
