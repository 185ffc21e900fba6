/* reproduce.c — `logt reproduce EXP|all`: run an experiment on this machine (resuming), plot
 * it, and print its claims: the paper's figure, the value in the reference file
 * (results/NAME.h5), the value this run gave, the bar and whether it held. With --check only
 * the files are read: the references, or the file given.
 */
#include "reproduce.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/ctx.h"
#include "claims.h"
#include "plot.h"
#include "run.h"

static const char *const reproduce_help =
    "usage: logt reproduce EXP|all [--backend cpu|cuda|auto] [--check [FILE]] [--format table|md]\n"
    "\n"
    "EXP is an experiment's directory (experiments/NAME, or NAME); all: every experiment under\n"
    "experiments/ with a [claims] section. For each: run its sweep on this machine into\n"
    "results/local/NAME.h5 (runs already there are kept: it resumes), plot it into plots/local/,\n"
    "then print each claim: the paper's figure, the value in the reference file results/NAME.h5,\n"
    "the value of this run, the bar it must meet and whether it held.\n"
    "\n"
    "options:\n"
    "  --backend B     cpu, cuda or auto, as for logt run (the claims are the GPU's: on a CPU\n"
    "                  the runs are small stand-ins and their values are not expected to hold)\n"
    "  --check         run nothing: judge the claims in the reference files\n"
    "  --check FILE    run nothing: judge the claims of one EXP in FILE (beside its reference)\n"
    "  --format F      table (default) or md (a Markdown table, for paper-notes.md)\n"
    "\n"
    "exit status: 0 every claim held, 1 a claim did not hold or had no value, a run failed,\n"
    "or an error; 2 a usage error.\n";

typedef struct rep_opts {
    const char *exp, *backend, *check_file, *format;
    int check, md;
} rep_opts;

static int usage(const char *msg, const char *arg)
{
    fprintf(stderr, "logt: error: ");
    fprintf(stderr, msg, arg);
    fprintf(stderr, "\nTry 'logt reproduce --help'.\n");
    return 2;
}

static int parse(int argc, char **argv, rep_opts *o)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return fputs(reproduce_help, stdout), -1;
        if (!strcmp(a, "--backend") || !strcmp(a, "--format")) {
            if (i + 1 >= argc) return usage("%s needs a value", a);
            *(a[2] == 'b' ? &o->backend : &o->format) = argv[++i];
        } else if (!strncmp(a, "--backend=", 10)) {
            o->backend = a + 10;
        } else if (!strncmp(a, "--format=", 9)) {
            o->format = a + 9;
        } else if (!strcmp(a, "--check")) {
            o->check = 1;   /* a FILE may follow: an argument ending in .h5 */
            size_t n = i + 1 < argc ? strlen(argv[i + 1]) : 0;
            if (n > 3 && argv[i + 1][0] != '-' && !strcmp(argv[i + 1] + n - 3, ".h5"))
                o->check_file = argv[++i];
        } else if (!strncmp(a, "--check=", 8)) {
            o->check = 1;
            o->check_file = a + 8;
        } else if (a[0] == '-') {
            return usage("unknown option '%s'", a);
        } else if (!o->exp) {
            o->exp = a;
        } else {
            return usage("unexpected argument '%s'", a);
        }
    }
    if (!o->exp) return usage("%s", "reproduce needs an experiment (experiments/NAME, NAME) or all");
    if (o->backend && strcmp(o->backend, "cpu") && strcmp(o->backend, "cuda") &&
        strcmp(o->backend, "auto"))
        return usage("--backend expects cpu, cuda or auto, got '%s'", o->backend);
    if (o->format && strcmp(o->format, "table") && strcmp(o->format, "md"))
        return usage("--format expects table or md, got '%s'", o->format);
    o->md = o->format && !strcmp(o->format, "md");
    if (o->check_file && !strcmp(o->exp, "all"))
        return usage("%s", "--check FILE judges one experiment's file: name the experiment, not all");
    return 0;
}

/* ---- the experiments ------------------------------------------------------------------- */

static int is_dir_with_ini(const char *dir)
{
    char p[PATH_MAX + 32];
    struct stat sb;
    snprintf(p, sizeof p, "%s/experiment.ini", dir);
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The experiments' directories: EXP as given (or experiments/EXP), or for all every
 * experiments/NAME whose experiment.ini has a [claims] section. */
static logt_status list_experiments(const char *exp, char ***dirs, int *n)
{
    *dirs = NULL;
    *n = 0;
    char **d = calloc(256, sizeof *d);
    if (!d) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    *dirs = d;
    if (strcmp(exp, "all")) {
        char alt[PATH_MAX];
        snprintf(alt, sizeof alt, "experiments/%s", exp);
        const char *use = is_dir_with_ini(exp) ? exp : is_dir_with_ini(alt) ? alt : NULL;
        if (!use)
            return LOGT_USER_FAIL(LOGT_EINVAL, "no experiment '%s': neither %s/experiment.ini nor "
                                  "%s/experiment.ini exists. HINT: logt list names the experiments",
                                  exp, exp, alt);
        d[(*n)++] = strdup(use);
        return d[0] ? LOGT_OK : LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    DIR *dp = opendir("experiments");
    if (!dp)
        return LOGT_USER_FAIL(LOGT_EINVAL, "no experiments/ directory here: run logt reproduce all "
                              "from logt's top directory");
    struct dirent *de;
    while ((de = readdir(dp)) && *n < 256) {
        char dir[PATH_MAX];
        if (de->d_name[0] == '.') continue;
        snprintf(dir, sizeof dir, "experiments/%s", de->d_name);
        if (!is_dir_with_ini(dir)) continue;
        logt_experiment *e;
        if (logt_exp_parse(dir, NULL, 0, &e) != LOGT_OK) {
            closedir(dp);
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s", logt_user_msg());
        }
        logt_claim *c;
        int nc;
        logt_status s = logt_claims_read(e, &c, &nc);
        logt_exp_free(e);
        free(c);
        if (s != LOGT_OK) {
            closedir(dp);
            return s;
        }
        if (nc && !(d[(*n)++] = strdup(dir))) {
            closedir(dp);
            return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        }
    }
    closedir(dp);
    qsort(d, (size_t)*n, sizeof *d, cmp_str);
    return LOGT_OK;
}

/* ---- running ----------------------------------------------------------------------------- */

/* The sweep on this machine into results/local/NAME.h5, then its figures. 0, or 1 when a run
 * failed or the sweep stopped (said on stderr). */
static int run_here(const char *dir, const char *backend, char *out, size_t nout)
{
    logt_experiment *e = NULL;
    logt_ctx *ctx = NULL;
    logt_run_report rep;
    memset(&rep, 0, sizeof rep);
    logt_status s = logt_exp_parse(dir, NULL, 0, &e);
    if (s == LOGT_OK) {
        const char *want = backend ? backend : logt_exp_backend(e);
        logt_device dev = !strcmp(want, "cuda") ? LOGT_CUDA
                        : !strcmp(want, "cpu") || !logt_backend_available(LOGT_CUDA) ? LOGT_CPU
                                                                                    : LOGT_CUDA;
        s = logt_exp_resolve(e, dev);
        if (s == LOGT_OK) s = logt_ctx_create(dev, &ctx);
        logt_default_out(e->name, out, nout);
    }
    logt_run_opts ro = {.out = out};
    if (s == LOGT_OK) s = logt_run_experiment(e, ctx, &ro, &rep);
    logt_ctx_destroy(ctx);
    logt_exp_free(e);
    int rc = 0;
    if (s != LOGT_OK) {
        fprintf(stderr, "logt: error: %s\n", logt_user_msg());
        return 1;
    }
    if (rep.interrupted) {
        fprintf(stderr, "logt: interrupted: finished runs are in %s; run the same command again to "
                "resume\n", out);
        return 1;
    }
    if (rep.failed) {
        fprintf(stderr, "logt: error: %d of %d runs failed (recorded in %s)\n", rep.failed, rep.total,
                out);
        rc = 1;
    }
    if (logt_exp_parse(dir, NULL, 0, &e) == LOGT_OK) {   /* plotting resolves it afresh */
        if (logt_plot_file(e, out) != LOGT_OK)
            fprintf(stderr, "logt: warning: %s: no figures: %s\n", out, logt_user_msg());
        logt_exp_free(e);
    }
    return rc;
}

/* ---- judging ----------------------------------------------------------------------------- */

typedef struct judged {
    char claim[2 * LOGT_WORD + 2], text[512], paper[512], bar[64];
    char ref[64], here[64], held[16], why[700];
} judged;

typedef struct table {
    int n, cap;
    judged *j;
} table;

/* The claims' values in one results file (its path into what, for the header): NULL rows
 * when the file is not there. */
static logt_status file_rows(const char *path, const char *name, logt_summary_row **rows,
                             int64_t *n, char *what, size_t nw)
{
    struct stat sb;
    *rows = NULL;
    *n = 0;
    if (stat(path, &sb) != 0) {
        snprintf(what, nw, "%s: not there", path);
        return LOGT_OK;
    }
    logt_store *st;
    LOGT_TRY(logt_store_open_read(path, &st));
    char of[LOGT_WORD] = "", dev[128] = "", commit[64] = "", when[64] = "";
    logt_store_root_str(st, "experiment", of, sizeof of);
    logt_store_root_str(st, "device", dev, sizeof dev);
    logt_store_root_str(st, "git_commit", commit, sizeof commit);
    logt_store_root_str(st, "updated", when, sizeof when);
    logt_errclear();
    logt_status s = strcmp(of, name)
        ? LOGT_USER_FAIL(LOGT_EINVAL, "%s holds results of experiment '%s', not '%s'", path,
                         *of ? of : "?", name)
        : logt_store_summary(st, rows, n);
    logt_store_close(st);
    snprintf(what, nw, "%s (%s, commit %s, %s)", path, *dev ? dev : "device unknown",
             *commit ? commit : "unknown", *when ? when : "date unknown");
    return s;
}

static judged *table_add(table *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        judged *g = realloc(t->j, (size_t)t->cap * sizeof *g);
        if (!g) return NULL;
        t->j = g;
    }
    judged *j = &t->j[t->n++];
    memset(j, 0, sizeof *j);
    return j;
}

/* Judge the claims of the experiment in dir: the reference, and `here` (NULL: none). Adds a
 * line per claim to t; *all_held cleared by one that does not hold. */
static logt_status judge(const char *dir, const char *here, table *t, int *all_held)
{
    logt_experiment *e;
    LOGT_TRY(logt_exp_parse(dir, NULL, 0, &e));
    char name[LOGT_WORD], ref[PATH_MAX], what[PATH_MAX + 512];
    logt_exp_name(e, name, sizeof name);
    logt_reference_path(name, ref, sizeof ref);
    logt_claim *c = NULL;
    int nc = 0;
    logt_summary_row *rrows = NULL, *hrows = NULL;
    int64_t nr = 0, nh = 0;
    logt_status s = logt_claims_read(e, &c, &nc);
    if (s == LOGT_OK && !nc)
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s/experiment.ini has no [claims] section: nothing to judge "
                           "(runner/README.md says how to write one)", dir);
    if (s == LOGT_OK && (s = file_rows(ref, name, &rrows, &nr, what, sizeof what)) == LOGT_OK)
        fprintf(stderr, "logt: %s: reference %s\n", name, what);
    if (s == LOGT_OK && here && (s = file_rows(here, name, &hrows, &nh, what, sizeof what)) == LOGT_OK)
        fprintf(stderr, "logt: %s: this run %s\n", name, what);
    for (int i = 0; s == LOGT_OK && i < nc; i++) {
        judged *j = table_add(t);
        if (!j) {
            s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
            break;
        }
        logt_claim_value vr = {0}, vh = {0};
        if (rrows) logt_claim_eval(&c[i], rrows, nr, &vr);
        if (hrows) logt_claim_eval(&c[i], hrows, nh, &vh);
        snprintf(j->claim, sizeof j->claim, "%s/%s", name, c[i].name);
        logt_strlcpy(j->text, sizeof j->text, c[i].text);
        logt_strlcpy(j->paper, sizeof j->paper, c[i].paper);
        logt_strlcpy(j->bar, sizeof j->bar, c[i].bar_text);
        logt_claim_format(&c[i], &vr, j->ref, sizeof j->ref);
        logt_claim_format(&c[i], &vh, j->here, sizeof j->here);
        const logt_claim_value *v = here ? &vh : &vr;   /* the file judged */
        const int have = here ? hrows != NULL : rrows != NULL;
        logt_strlcpy(j->held, sizeof j->held, !have ? "no file" : !v->n ? "no value"
                                              : v->held ? "yes" : "NO");
        if (have && *v->why) snprintf(j->why, sizeof j->why, "%s: %s", j->claim, v->why);
        *all_held &= have && v->held;
    }
    free(rrows);
    free(hrows);
    free(c);
    logt_exp_free(e);
    return s;
}

static void print_table(const table *t, int md, int here)
{
    const char *head[] = {"claim", "paper", "reference", here ? "this run" : NULL, "bar", "held"};
    enum { NCOL = 6 };
    size_t w[NCOL];
    for (int c = 0; c < NCOL; c++) w[c] = head[c] ? strlen(head[c]) : 0;
    for (int i = 0; i < t->n; i++) {
        const judged *j = &t->j[i];
        const char *v[NCOL] = {j->claim, j->paper, j->ref, j->here, j->bar, j->held};
        for (int c = 0; c < NCOL; c++)
            if (head[c] && strlen(v[c]) > w[c]) w[c] = strlen(v[c]);
    }
    for (int i = -2; i < t->n; i++) {
        const judged *j = i >= 0 ? &t->j[i] : NULL;
        const char *v[NCOL] = {j ? j->claim : "", j ? j->paper : "", j ? j->ref : "",
                               j ? j->here : "", j ? j->bar : "", j ? j->held : ""};
        if (i == -1 && !md) continue;
        for (int c = 0; c < NCOL; c++) {
            if (!head[c]) continue;
            const char *s = i == -2 ? head[c] : v[c];
            if (i == -1) {   /* md's rule under the header */
                printf("|%s", c < 2 ? "---" : "---:");
                continue;
            }
            if (md) printf("| %s ", s);
            else printf("%s%-*s", c ? "  " : "", c == NCOL - 1 ? 0 : (int)w[c], s);
        }
        printf(md ? "|\n" : "\n");
    }
    printf("\n");
    for (int i = 0; i < t->n; i++) printf("%s%s: %s\n", md ? "- " : "", t->j[i].claim, t->j[i].text);
    for (int i = 0; i < t->n; i++)
        if (*t->j[i].why) printf("%sno value: %s\n", md ? "- " : "", t->j[i].why);
}

int logt_cmd_reproduce(int argc, char **argv)
{
    rep_opts o = {0};
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    char **dirs;
    int n;
    if (list_experiments(o.exp, &dirs, &n) != LOGT_OK) {
        fprintf(stderr, "logt: error: %s\n", logt_user_msg());
        free(dirs);
        return 1;
    }
    if (!n) fprintf(stderr, "logt: no experiment under experiments/ has a [claims] section\n");
    table t = {0};
    int all_held = 1, failed = 0;
    logt_status s = LOGT_OK;
    for (int i = 0; s == LOGT_OK && i < n; i++) {
        char out[PATH_MAX] = "";
        const char *here = o.check_file;
        if (!o.check) {
            fprintf(stderr, "logt: reproduce %s (%d of %d)\n", dirs[i], i + 1, n);
            failed |= run_here(dirs[i], o.backend, out, sizeof out);
            here = out;
        }
        s = judge(dirs[i], here, &t, &all_held);
    }
    if (s != LOGT_OK) fprintf(stderr, "logt: error: %s\n", logt_user_msg());
    else print_table(&t, o.md, !o.check || o.check_file);
    for (int i = 0; i < n; i++) free(dirs[i]);
    free(dirs);
    free(t.j);
    return s == LOGT_OK && all_held && !failed ? 0 : 1;
}
