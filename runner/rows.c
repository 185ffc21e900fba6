/* rows.c — a /summary row's fields and measures by name, and filters on them (rows.h). */
#include "rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axes.h"
#include "util.h"

int logt_row_field(const logt_summary_row *r, const char *name, char *buf, size_t n)
{
    const struct { const char *name; const char *s; } strs[] = {
        {"kind", r->kind}, {"model", r->model}, {"backend", r->backend}, {"task", r->task},
        {"impl", r->impl}, {"knobs", r->knobs}, {"status", r->status},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (!strcmp(name, strs[i].name)) return logt_strlcpy(buf, n, strs[i].s), 1;
    const int a = logt_axis_index(name);
    if (a >= 0) return logt_axis_row_text(&logt_axes[a], r, buf, n), 1;
    const struct { const char *name; long long v; } nums[] = {
        {"run", r->run}, {"C", r->B * r->D},   /* C: a kernel run's channels */
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (!strcmp(name, nums[i].name)) return snprintf(buf, n, "%lld", nums[i].v), 1;
    /* a knob: "algo=standard,math=fp32" */
    size_t len = strlen(name);
    for (const char *p = r->knobs; *p;) {
        const char *end = strchr(p, ',');
        size_t item = end ? (size_t)(end - p) : strlen(p);
        if (item > len && !strncmp(p, name, len) && p[len] == '=') {
            snprintf(buf, n, "%.*s", (int)(item - len - 1), p + len + 1);
            return 1;
        }
        if (!end) break;
        p = end + 1;
    }
    buf[0] = '\0';
    return 0;
}

int logt_row_field_is_numeric(const char *name)
{
    const int a = logt_axis_index(name);
    if (a >= 0) return logt_axes[a].plot == LOGT_PLOT_X;
    return !strcmp(name, "run") || !strcmp(name, "C");
}

double logt_row_measure(const logt_summary_row *r, const char *name)
{
    if (!strcmp(name, "median_ms")) return r->median_ms;
    if (!strcmp(name, "p10_ms")) return r->p10_ms;
    if (!strcmp(name, "p90_ms")) return r->p90_ms;
    if (!strcmp(name, "tokens_per_s")) return r->tokens_per_s;
    if (!strcmp(name, "peak_mem_bytes")) return (double)r->peak_mem_bytes;
    if (!strcmp(name, "final_loss")) return r->final_loss;
    if (!strcmp(name, "final_eval_loss")) return r->final_eval_loss;
    if (!strcmp(name, "final_eval_acc")) return r->final_eval_acc;
    if (!strcmp(name, "bytes")) return r->bytes;
    if (!strcmp(name, "gbps")) return r->gbps;
    if (!strcmp(name, "copy_gbps")) return r->copy_gbps;
    if (!strcmp(name, "pct_of_copy")) return r->pct_of_copy;
    if (!strcmp(name, "iterations")) return r->iterations;
    if (!strcmp(name, "test_loss")) return r->test_loss;
    if (!strcmp(name, "test_acc")) return r->test_acc;
    if (!strcmp(name, "solve_s")) return r->solve_s;
    return NAN;
}

int logt_row_matches(const logt_summary_row *r, const char *filter)
{
    char f[LOGT_WORD], val[128];
    size_t k = strcspn(filter, "=");
    logt_filter_field(filter, f, sizeof f);
    logt_row_field(r, f, val, sizeof val);
    logt_list alts;
    if (logt_list_split(filter + k + 1, '|', &alts) != LOGT_OK) return 0;
    return logt_list_find(&alts, val) >= 0;
}

void logt_filter_field(const char *filter, char *buf, size_t n)
{
    snprintf(buf, n, "%.*s", (int)strcspn(filter, "="), filter);
    logt_trim(buf);
}
