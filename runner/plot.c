/* plot.c — [plot.NAME] sections to gnuplot scripts, PNG and SVG.
 *
 * Per-run values (median_ms, tokens_per_s, gbps, pct_of_copy, final_loss, ...) come
 * from /summary: the rows that pass `where` are grouped into curves by the values of
 * the `series` fields and sorted by x. With `baseline = FIELD=VALUE` each point is
 * set against the matching baseline row's value (same x and same sweep point apart
 * from FIELD and the knobs): baseline / this for times, this / baseline for rates
 * (tokens_per_s, gbps, ...), so a speedup, above 1 when better.
 * Per-step values (loss, grad_norm, eval_loss, eval_acc, eval_bpc, eval_T) are one curve per run
 * read from /runs/NNNNNN, against step or training seconds (wall_s).
 * Only the backend of the last `logt run` is plotted unless `where` names one.
 */
#include "plot.h"
#include "rows.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CURVE_POINTS 4000   /* longer training curves are thinned by striding */

typedef struct point { double x, y; } point;

typedef struct curve {
    char label[256];
    int n, cap;
    point *p;
} curve;

typedef struct figure {
    int n, cap;
    curve *c;
} figure;

static curve *get_curve(figure *f, const char *label, int unique)
{
    if (!unique)
        for (int i = 0; i < f->n; i++)
            if (!strcmp(f->c[i].label, label)) return &f->c[i];
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 16;
        curve *grown = realloc(f->c, (size_t)f->cap * sizeof *grown);
        if (!grown) return NULL;
        f->c = grown;
    }
    curve *c = &f->c[f->n++];
    memset(c, 0, sizeof *c);
    logt_strlcpy(c->label, sizeof c->label, label);
    return c;
}

static int add_point(curve *c, double x, double y)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        point *grown = realloc(c->p, (size_t)c->cap * sizeof *grown);
        if (!grown) return -1;
        c->p = grown;
    }
    c->p[c->n++] = (point){x, y};
    return 0;
}

static void figure_free(figure *f)
{
    for (int i = 0; i < f->n; i++) free(f->c[i].p);
    free(f->c);
    memset(f, 0, sizeof *f);
}

/* Does r pass the plot's filters? A baseline row is not held to filters on
 * knobs it does not have (lstm has no cuDNN `math`). */
static int keep_row(const logt_experiment *e, const logt_plot *p, const logt_summary_row *r,
                    int as_baseline)
{
    if (strcmp(r->status, "ok")) return 0;
    int names_backend = 0;
    for (int i = 0; i < p->where.n; i++) {
        char f[LOGT_WORD], v[160];
        logt_filter_field(p->where.v[i], f, sizeof f);
        if (as_baseline && !logt_plot_is_field(f) && !logt_row_field(r, f, v, sizeof v)) continue;
        if (!logt_row_matches(r, p->where.v[i])) return 0;
        names_backend |= !strcmp(f, "backend");
    }
    return names_backend || !strcmp(r->backend, e->backend);
}

static void series_label(const logt_plot *p, const logt_summary_row *r, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->series.n && used < n; i++) {
        const char *f = p->series.v[i];
        char v[160];
        int is_col = logt_row_field(r, f, v, sizeof v) && logt_plot_is_field(f);
        if (!*v) continue;
        int named = !is_col || logt_row_field_is_numeric(f);   /* "D=768", "algo=standard"; "lstm" */
        used += (size_t)snprintf(buf + used, n - used, "%s%s%s%s", used ? " " : "",
                                 named ? f : "", named ? "=" : "", v);
    }
    if (!*buf) logt_strlcpy(buf, n, "all");
}

/* The baseline row for r: baseline filter holds, same x, same sweep point but
 * for the baseline field and the knobs. */
static const logt_summary_row *baseline_of(const logt_experiment *e, const logt_plot *p,
                                           const logt_summary_row *rows, int64_t n,
                                           const logt_summary_row *r)
{
    static const char *const same[] = {"kind", "backend", "task"};   /* and every axis */
    const int nsame = (int)(sizeof same / sizeof same[0]);
    char bf[LOGT_WORD];
    logt_filter_field(p->baseline, bf, sizeof bf);
    for (int64_t i = 0; i < n; i++) {
        const logt_summary_row *b = &rows[i];
        if (!keep_row(e, p, b, 1) || !logt_row_matches(b, p->baseline)) continue;
        int ok = 1;
        for (int k = 0; ok && k < nsame + logt_naxes; k++) {
            const char *f = k < nsame ? same[k] : logt_axes[k - nsame].name;
            char v1[160], v2[160];
            if (!strcmp(f, bf)) continue;
            logt_row_field(r, f, v1, sizeof v1);
            logt_row_field(b, f, v2, sizeof v2);
            ok = !strcmp(v1, v2);
        }
        if (ok) return b;
    }
    return NULL;
}

static double xvalue(const logt_summary_row *r, const char *x)
{
    char v[64];
    logt_row_field(r, x, v, sizeof v);
    return atof(v);
}

static int cmp_point(const void *a, const void *b)
{
    double x = ((const point *)a)->x, y = ((const point *)b)->x;
    return (x > y) - (x < y);
}

/* ---- building a figure ----------------------------------------------------------------------- */

static logt_status summary_figure(const logt_experiment *e, const logt_plot *p,
                                  const logt_summary_row *rows, int64_t n, figure *f)
{
    for (int64_t i = 0; i < n; i++) {
        const logt_summary_row *r = &rows[i];
        if (!keep_row(e, p, r, 0)) continue;
        double y = logt_row_measure(r, p->y);
        if (*p->baseline) {
            if (logt_row_matches(r, p->baseline)) continue;   /* the baseline itself is the line y = 1 */
            const logt_summary_row *b = baseline_of(e, p, rows, n, r);
            if (!b) continue;
            y = logt_plot_measure_higher_is_better(p->y) ? y / logt_row_measure(b, p->y) : logt_row_measure(b, p->y) / y;
        }
        if (!isfinite(y) || (p->logy && y <= 0)) continue;
        char label[256];
        series_label(p, r, label, sizeof label);
        curve *c = get_curve(f, label, 0);
        if (!c || add_point(c, xvalue(r, p->x), y)) return LOGT_FAIL(LOGT_ENOMEM, "out of memory");
    }
    for (int i = 0; i < f->n; i++) {
        curve *c = &f->c[i];
        qsort(c->p, (size_t)c->n, sizeof *c->p, cmp_point);
        for (int k = 1; k < c->n; k++)
            if (c->p[k].x == c->p[k - 1].x) {
                fprintf(stderr, "logt: warning: plot %s: curve '%s' has several points at %s = %g; "
                        "add a field to series or where\n", p->name, c->label, p->x, c->p[k].x);
                break;
            }
    }
    return LOGT_OK;
}

static logt_status curve_figure(const logt_experiment *e, const logt_plot *p, logt_store *st,
                                const logt_summary_row *rows, int64_t n, figure *f)
{
    const int eval = !strncmp(p->y, "eval_", 5);
    const int by_time = !strcmp(p->x, "wall_s");
    for (int64_t i = 0; i < n; i++) {
        const logt_summary_row *r = &rows[i];
        if (strcmp(r->kind, "train") || !keep_row(e, p, r, 0)) continue;
        double *y = NULL, *x = NULL;
        int64_t ny, nx = 0;
        LOGT_TRY(logt_store_read(st, r->run, p->y, &y, &ny));
        logt_status s = LOGT_OK;
        if (by_time) s = logt_store_read(st, r->run, eval ? "eval_wall_s" : "wall_s", &x, &nx);
        else if (eval) s = logt_store_read(st, r->run, "eval_step", &x, &nx);
        if (s != LOGT_OK) {
            free(y);
            return s;
        }
        char label[256];
        series_label(p, r, label, sizeof label);
        for (int k = 0; k < f->n; k++)
            if (!strcmp(f->c[k].label, label)) {   /* two runs, one label: tell them apart */
                size_t len = strlen(label);
                snprintf(label + len, sizeof label - len, " (run %lld)", (long long)r->run);
                break;
            }
        curve *c = get_curve(f, label, 1);
        int64_t stride = ny > MAX_CURVE_POINTS ? (ny + MAX_CURVE_POINTS - 1) / MAX_CURVE_POINTS : 1;
        for (int64_t k = 0; c && k < ny; k += stride) {
            double xv = x ? (k < nx ? x[k] : NAN) : (double)(k + 1);
            if (!isfinite(xv) || !isfinite(y[k]) || (p->logy && y[k] <= 0)) continue;
            if (add_point(c, xv, y[k])) c = NULL;
        }
        free(x);
        free(y);
        if (!c) return LOGT_FAIL(LOGT_ENOMEM, "out of memory");
        if (c->n == 0) f->n--;   /* no data (e.g. accuracy of an MSE task): no curve */
    }
    return LOGT_OK;
}

/* ---- the gnuplot script ------------------------------------------------------------------------- */

static void gp_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        if (*s != '\n') fputc(*s, out);
    }
    fputc('"', out);
}

static int all_powers_of_two(const figure *f)
{
    for (int i = 0; i < f->n; i++)
        for (int k = 0; k < f->c[i].n; k++) {
            double x = f->c[i].p[k].x;
            if (x <= 0 || fabs(log2(x) - round(log2(x))) > 1e-9) return 0;
        }
    return 1;
}

static logt_status write_script(const logt_experiment *e, const logt_plot *p, const figure *f,
                                const char *gp, const char *base, const char *results,
                                const char *commit)
{
    FILE *out = fopen(gp, "w");
    if (!out) return LOGT_USER_FAIL(LOGT_EIO, "cannot write %s: %s", gp, strerror(errno));
    fprintf(out, "# %s: figure '%s' of experiment %s, written by `logt plot %s`\n", gp, p->name,
            e->name, e->dir);
    fprintf(out, "# from %s (commit %s); y = %s against x = %s, one curve per %s", results,
            commit, p->y, p->x, p->curve ? "run" : "value of series");
    for (int i = 0; i < p->series.n; i++) fprintf(out, "%s%s", i ? "," : " (", p->series.v[i]);
    if (!p->curve && p->series.n) fprintf(out, ")");
    for (int i = 0; i < p->where.n; i++) fprintf(out, "%s%s", i ? ", " : "; where ", p->where.v[i]);
    if (*p->baseline)
        fprintf(out, "; as a ratio to the %s of baseline %s (%s)", p->y, p->baseline,
                logt_plot_measure_higher_is_better(p->y) ? "this / baseline" : "baseline / this");
    fprintf(out, "\n# Re-render without logt: gnuplot %s  (writes the .png and .svg beside it)\n\n",
            gp);
    fprintf(out, "$data << EOD\n");
    for (int i = 0; i < f->n; i++) {
        if (i) fprintf(out, "\n\n");
        fprintf(out, "# index %d: %s\n", i, f->c[i].label);
        for (int k = 0; k < f->c[i].n; k++)
            fprintf(out, "%.10g %.10g\n", f->c[i].p[k].x, f->c[i].p[k].y);
    }
    fprintf(out, "EOD\n\n");
    fprintf(out, "out = \"%s\"\n", base);
    fprintf(out, "if (exists(\"ARG0\") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq \".gp\") "
                 "out = ARG0[1:strlen(ARG0)-3]\n");
    fprintf(out, "set title ");
    gp_string(out, p->title);
    fprintf(out, "\nset xlabel ");
    gp_string(out, p->xlabel);
    fprintf(out, "\nset ylabel ");
    gp_string(out, p->ylabel);
    fprintf(out, "\nset grid\nset key outside right top\nset style data %s\n",
                 p->curve ? "lines" : "linespoints");
    if (p->logx) fprintf(out, "set logscale x %d\n", all_powers_of_two(f) ? 2 : 10);
    if (p->logy) fprintf(out, "set logscale y\n");
    if (*p->baseline) fprintf(out, "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2\n");
    fprintf(out, "set terminal pngcairo size 1000,600 font \"sans,11\" noenhanced\n");
    fprintf(out, "set output out.\".png\"\n");
    for (int i = 0; i < f->n; i++) {
        fprintf(out, "%s $data index %d using 1:2 title ", i ? ", \\\n    " : "plot", i);
        gp_string(out, f->c[i].label);
    }
    fprintf(out, "\nset terminal svg size 1000,600 font \"sans,11\" noenhanced background rgb "
                 "\"white\"\nset output out.\".svg\"\nreplot\nunset output\n");
    int bad = ferror(out);
    if (fclose(out) != 0 || bad) return LOGT_USER_FAIL(LOGT_EIO, "cannot write %s", gp);
    return LOGT_OK;
}

int logt_gnuplot_found(void)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    char dir[PATH_MAX], exe[PATH_MAX + 16];
    for (const char *p = path;;) {
        size_t n = strcspn(p, ":");
        snprintf(dir, sizeof dir, "%.*s", (int)n, p);
        snprintf(exe, sizeof exe, "%s/gnuplot", *dir ? dir : ".");
        if (access(exe, X_OK) == 0) return 1;
        if (!p[n]) return 0;
        p += n + 1;
    }
}

static logt_status run_gnuplot(const char *gp)
{
    pid_t pid = fork();
    if (pid < 0) return LOGT_USER_FAIL(LOGT_EIO, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", gp, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return LOGT_USER_FAIL(LOGT_EIO, "waiting for gnuplot: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return LOGT_USER_FAIL(LOGT_EIO, "gnuplot failed on %s (its message is above)", gp);
    return LOGT_OK;
}

logt_status logt_plot_experiment(const logt_experiment *e, logt_store *st, const char *outdir,
                                 const char *stem)
{
    if (e->nplot == 0) {
        fprintf(stderr, "logt: %s has no [plot.NAME] sections: nothing to plot\n", e->file);
        return LOGT_OK;
    }
    logt_summary_row *rows;
    int64_t n;
    LOGT_TRY(logt_store_summary(st, &rows, &n));
    char commit[128] = "unknown";
    logt_store_root_str(st, "git_commit", commit, sizeof commit);
    logt_errclear();
    logt_status s = logt_mkdirs(outdir, 1);
    int have_gnuplot = logt_gnuplot_found(), written = 0;
    char first_gp[PATH_MAX] = "";
    for (int i = 0; s == LOGT_OK && i < e->nplot; i++) {
        const logt_plot *p = &e->plot[i];
        figure f = {0};
        s = p->curve ? curve_figure(e, p, st, rows, n, &f) : summary_figure(e, p, rows, n, &f);
        if (s == LOGT_OK && f.n == 0) {
            fprintf(stderr, "logt: warning: plot %s: no data (no ok %sruns on %s pass its where%s)\n",
                    p->name, p->curve ? "training " : "", e->backend,
                    *p->baseline ? " with a matching baseline" : "");
        } else if (s == LOGT_OK) {
            char base[PATH_MAX], gp[PATH_MAX + 8];
            snprintf(base, sizeof base, "%s/%s-%s", outdir, stem, p->name);
            snprintf(gp, sizeof gp, "%s.gp", base);
            s = write_script(e, p, &f, gp, base, logt_store_path(st), commit);
            if (s == LOGT_OK && !*first_gp) logt_strlcpy(first_gp, sizeof first_gp, gp);
            if (s == LOGT_OK && have_gnuplot) s = run_gnuplot(gp);
            if (s == LOGT_OK) {
                written++;
                fprintf(stderr, "logt: %s%s\n", base,
                        have_gnuplot ? ".png, .svg (and .gp)" : ".gp");
            }
        }
        figure_free(&f);
    }
    free(rows);
    if (s == LOGT_OK && written && !have_gnuplot)
        s = LOGT_USER_FAIL(LOGT_EUNSUPPORTED,
                           "gnuplot not found: the scripts are written (%s, ...) but no PNG/SVG. "
                           "HINT: install the package gnuplot-nox (apt-get install gnuplot-nox), "
                           "then rerun `logt plot` or `gnuplot %s`",
                           first_gp, first_gp);
    return s;
}

/* results/local/x.h5 -> plots/local and stem x; results/x.h5 -> plots; elsewhere -> plots. */
static void plot_place(const char *path, char *outdir, size_t nd, char *stem, size_t ns)
{
    const char *slash = strrchr(path, '/');
    logt_strlcpy(stem, ns, slash ? slash + 1 : path);
    size_t len = strlen(stem);
    if (len > 3 && !strcmp(stem + len - 3, ".h5")) stem[len - 3] = '\0';
    const char *rest = !strncmp(path, "./", 2) ? path + 2 : path;
    if (!strncmp(rest, "results/", 8) && slash && slash > rest + 7)
        snprintf(outdir, nd, "plots%.*s", (int)(slash - (rest + 7)), rest + 7);
    else
        logt_strlcpy(outdir, nd, "plots");
}

logt_status logt_plot_file(logt_experiment *e, const char *path)
{
    char name[LOGT_WORD], of[LOGT_WORD] = "", backend[16] = "";
    logt_exp_name(e, name, sizeof name);
    logt_store *st;
    LOGT_TRY(logt_store_open_read(path, &st));
    logt_status s = LOGT_OK;
    /* another experiment's runs would fill these plots wrongly */
    if (logt_store_root_str(st, "experiment", of, sizeof of) != LOGT_OK || strcmp(of, name))
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s holds results of experiment '%s', not '%s': its runs "
                           "are not this experiment's. HINT: logt plot the experiment '%s' with --in "
                           "%s, or pass a results file of '%s'", path, *of ? of : "?", name, of, path,
                           name);
    char outdir[PATH_MAX], stem[LOGT_WORD];
    plot_place(path, outdir, sizeof outdir, stem, sizeof stem);
    if (s == LOGT_OK) {   /* the plots of the backend the results were last run on */
        logt_store_root_str(st, "backend", backend, sizeof backend);
        logt_errclear();
        s = logt_exp_resolve(e, strcmp(backend, "cuda") ? LOGT_CPU : LOGT_CUDA);
    }
    if (s == LOGT_OK) s = logt_plot_experiment(e, st, outdir, stem);
    logt_store_close(st);
    return s;
}
