/* plot_table.c — what a [plot.NAME] section may name: the fields of a run (for series,
 * where and baseline: the sweep axes of axes.c and a few more), the x axes, and the measures
 * (y) with their labels; and a [plot.*] section resolved for a backend into a logt_plot.
 */
#include "config_internal.h"

#include <stdio.h>
#include <string.h>

/* A run's fields besides the axes (axes.c) and the knobs. Messages list them: these four,
 * the axes that name values, the three after, then the numbers, each axis's derived fields
 * after it; x may be a number, or for per-step values step or wall_s. */
static const char *const fields_first[] = {"run", "kind", "model", "backend", NULL};
static const char *const fields_then[] = {"task", "impl", "knobs", NULL};
static const char *const curve_x[] = {"step", "wall_s", NULL};
static const struct { const char *name, *after; } derived[] = {
    {"C", "D"},   /* B·D, the channels of a kernel run */
};
enum { MAX_FIELDS = 16 + 2 * LOGT_MAX_AXES };
/* curve: one value per step (one curve per run); higher: more is better */
static const struct { const char *name, *label; int curve, higher; } measures[] = {
    {"median_ms", "median time per pass (ms)", 0, 0},
    {"p10_ms", "10th percentile time per pass (ms)", 0, 0},
    {"p90_ms", "90th percentile time per pass (ms)", 0, 0},
    {"tokens_per_s", "tokens per second (T·B / median)", 0, 1},
    {"peak_mem_bytes", "peak device memory (bytes)", 0, 0},
    {"final_loss", "final training loss (mean of last 10 steps)", 0, 0},
    {"final_eval_loss", "final validation loss", 0, 0},
    {"final_eval_acc", "final validation accuracy", 0, 1},
    {"test_loss", "test loss (the test split, after the last step)", 0, 0},
    {"test_acc", "test accuracy (the test split, after the last step)", 0, 1},
    {"solve_s", "time to solve: training seconds until validation accuracy >= solve_acc", 0, 0},
    {"bytes", "bytes a call moves at the least (inputs read and outputs written once)", 0, 0},
    {"gbps", "effective bandwidth (GB/s: bytes / median time)", 0, 1},
    {"copy_gbps", "device-to-device copy in the same run (GB/s: 2N / median time)", 0, 1},
    {"pct_of_copy", "effective bandwidth, % of the same run's copy", 0, 1},
    {"iterations", "solver iterations (Newton: evaluations − 1)", 0, 0},
    {"loss", "training loss", 1, 0},
    {"grad_norm", "gradient norm (before clipping)", 1, 0},
    {"newton_iterations", "Newton iterations of the step's forward (first layer)", 1, 0},
    {"jacobian_clamps", "Jacobian entries the step's forward clamped (deer's jacobian_clamp)", 1, 0},
    {"eval_loss", "validation loss", 1, 0},
    {"eval_acc", "validation accuracy", 1, 1},
    {"eval_bpc", "validation bits per character", 1, 0},
    {"eval_T", "length trained at (curriculum runs)", 1, 1},
    {NULL, NULL, 0, 0}};

static int in_names(const char *const *names, const char *s)
{
    for (; *names; names++)
        if (!strcmp(*names, s)) return 1;
    return 0;
}

static void join_names(const char *const *names, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", names[i]);
}

/* The fields (x: the x axes) in the order messages list them, NULL-terminated. */
static void field_names(int x, const char *names[MAX_FIELDS])
{
    int n = 0, order[LOGT_MAX_AXES];
    logt_axes_by_column(order);
    for (int i = 0; !x && fields_first[i]; i++) names[n++] = fields_first[i];
    for (int i = 0; !x && i < logt_naxes; i++)
        if (logt_axes[order[i]].plot == LOGT_PLOT_VALUE) names[n++] = logt_axes[order[i]].name;
    for (int i = 0; !x && fields_then[i]; i++) names[n++] = fields_then[i];
    for (int i = 0; i < logt_naxes; i++) {
        const logt_axis *a = &logt_axes[order[i]];
        if (a->plot != LOGT_PLOT_X) continue;
        names[n++] = a->name;
        for (size_t d = 0; d < sizeof derived / sizeof derived[0]; d++)
            if (!strcmp(derived[d].after, a->name)) names[n++] = derived[d].name;
    }
    for (int i = 0; x && curve_x[i]; i++) names[n++] = curve_x[i];
    names[n] = NULL;
}

int logt_plot_is_field(const char *name)
{
    const char *fields[MAX_FIELDS];
    field_names(0, fields);
    return in_names(fields, name);
}

int logt_plot_is_measure(const char *name, int *curve)
{
    for (int i = 0; measures[i].name; i++)
        if (!strcmp(measures[i].name, name)) {
            if (curve) *curve = measures[i].curve;
            return 1;
        }
    return 0;
}

const char *logt_plot_run_measure(int i)
{
    for (int k = 0; measures[k].name; k++)
        if (!measures[k].curve && i-- == 0) return measures[k].name;
    return NULL;
}

const char *logt_plot_measure_label(const char *name)
{
    for (int i = 0; measures[i].name; i++)
        if (!strcmp(measures[i].name, name)) return measures[i].label;
    return name;
}

int logt_plot_measure_higher_is_better(const char *name)
{
    for (int i = 0; measures[i].name; i++)
        if (!strcmp(measures[i].name, name)) return measures[i].higher;
    return 0;
}

/* ---- checking and resolving [plot.*] ---------------------------------------------------- */

static logt_status check_filter(const char *where, const char *key, const char *item)
{
    const char *eq = strchr(item, '=');
    char field[LOGT_WORD];
    if (!eq || eq == item || !eq[1])
        return cfg_bad(where, item, key, "FIELD=VALUE (or FIELD=V1|V2)");
    snprintf(field, sizeof field, "%.*s", (int)(eq - item), item);
    logt_trim(field);
    if (!cfg_is_word(field, "")) return cfg_bad(where, item, key, "FIELD=VALUE (or FIELD=V1|V2)");
    return LOGT_OK;
}

logt_status cfg_check_plot_item(const char *where, const char *key, vtype type, const char *s)
{
    char known[512];
    const char *names[MAX_FIELDS];
    switch (type) {
    case V_XFIELD:
        field_names(1, names);
        if (!in_names(names, s)) {
            join_names(names, known, sizeof known);
            return cfg_bad(where, s, key, known);
        }
        break;
    case V_MEASURE:
        if (!logt_plot_is_measure(s, NULL)) {
            size_t used = 0;
            for (int m = 0; measures[m].name; m++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                         m ? ", " : "", measures[m].name);
            return cfg_bad(where, s, key, known);
        }
        break;
    case V_FIELDS:
        if (!cfg_is_word(s, "")) return cfg_bad(where, s, key, "field names");
        break;
    case V_FILTERS:
    case V_FILTER1:
        LOGT_TRY(check_filter(where, key, s));
        break;
    default:
        break;
    }
    return LOGT_OK;
}

/* Is `name` a knob of some [model.*] section? */
static int is_knob_name(const logt_experiment *e, const char *name)
{
    for (int i = 0; i < e->nent; i++)
        if (!strncmp(e->ent[i].section, "model.", 6) && !strcmp(e->ent[i].key, name)) return 1;
    return 0;
}

static logt_status check_plot_field(const logt_experiment *e, const logt_plot *p, const char *key,
                                    const char *field)
{
    if (logt_plot_is_field(field) || is_knob_name(e, field)) return LOGT_OK;
    char known[512];
    const char *fields[MAX_FIELDS];
    field_names(0, fields);
    join_names(fields, known, sizeof known);
    char sec[LOGT_WORD + 8];
    snprintf(sec, sizeof sec, "plot.%s", p->name);
    const logt_entry *en = cfg_get(e, sec, key);
    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: unknown field '%s' in %s (known: %s, or a model setting "
                     "named in a [model.*] section)",
                     en ? en->where : e->file, field, key, known);
}

logt_status cfg_resolve_plot(logt_experiment *e, const char *name)
{
    if (e->nplot == LOGT_MAX_PLOTS)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: more than %d [plot.*] sections", e->file, LOGT_MAX_PLOTS);
    logt_plot *p = &e->plot[e->nplot];
    memset(p, 0, sizeof *p);
    char sec[LOGT_WORD + 8];
    logt_strlcpy(p->name, sizeof p->name, name);
    snprintf(sec, sizeof sec, "plot.%s", p->name);
    logt_strlcpy(p->y, sizeof p->y, cfg_getv(e, sec, "y", "median_ms"));
    logt_plot_is_measure(p->y, &p->curve);
    logt_strlcpy(p->x, sizeof p->x, cfg_getv(e, sec, "x", p->curve ? "step" : "T"));
    int xcurve = !strcmp(p->x, "step") || !strcmp(p->x, "wall_s");
    if (xcurve != p->curve) {
        const logt_entry *en = cfg_get(e, sec, "x");
        return LOGT_USER_FAIL(LOGT_EINVAL,
                         "%s: [%s] plots %s against %s: %s", en ? en->where : e->file, sec, p->y,
                         p->x,
                         p->curve ? "a per-step value needs x = step or x = wall_s"
                                  : "a per-run value needs x = a sweep key (T, B, D, ...)");
    }
    LOGT_TRY(logt_list_split(cfg_getv(e, sec, "series", "model"), ',', &p->series));
    const char *where = cfg_getv(e, sec, "where", NULL);
    p->where.n = 0;
    if (where) LOGT_TRY(logt_list_split(where, ',', &p->where));
    logt_strlcpy(p->baseline, sizeof p->baseline, cfg_getv(e, sec, "baseline", ""));
    if (*p->baseline && p->curve) {
        const logt_entry *en = cfg_get(e, sec, "baseline");
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: baseline works with per-run values, not %s",
                         en->where, p->y);
    }
    for (int i = 0; i < p->series.n; i++) LOGT_TRY(check_plot_field(e, p, "series", p->series.v[i]));
    for (int i = 0; i < p->where.n; i++) {
        char field[LOGT_WORD];
        snprintf(field, sizeof field, "%.*s", (int)strcspn(p->where.v[i], "="), p->where.v[i]);
        LOGT_TRY(check_plot_field(e, p, "where", logt_trim(field)));
    }
    if (*p->baseline) {
        char field[LOGT_WORD];
        snprintf(field, sizeof field, "%.*s", (int)strcspn(p->baseline, "="), p->baseline);
        LOGT_TRY(check_plot_field(e, p, "baseline", logt_trim(field)));
    }
    p->logx = cfg_is_true(cfg_getv(e, sec, "logx", "false"));
    p->logy = cfg_is_true(cfg_getv(e, sec, "logy", "false"));
    snprintf(p->xlabel, sizeof p->xlabel, "%s",
             cfg_getv(e, sec, "xlabel", !strcmp(p->x, "wall_s") ? "training time (s)" : p->x));
    char dflt[256];
    if (*p->baseline && logt_plot_measure_higher_is_better(p->y))
        snprintf(dflt, sizeof dflt, "speedup over %s (this %s / its %s)", p->baseline, p->y, p->y);
    else if (*p->baseline)
        snprintf(dflt, sizeof dflt, "speedup over %s (its %s / this %s)", p->baseline, p->y, p->y);
    else
        logt_strlcpy(dflt, sizeof dflt, logt_plot_measure_label(p->y));
    logt_strlcpy(p->ylabel, sizeof p->ylabel, cfg_getv(e, sec, "ylabel", dflt));
    snprintf(dflt, sizeof dflt, "%s: %s", e->name, p->name);
    logt_strlcpy(p->title, sizeof p->title, cfg_getv(e, sec, "title", dflt));
    e->nplot++;
    return LOGT_OK;
}
