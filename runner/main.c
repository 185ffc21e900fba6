/* main.c — the `logt` command: run (whole, one shard, or spread over MPI ranks),
 * merge, plot, list, info.
 *
 * Exit codes: 0 ok, 1 a run failed or an error, 2 a usage error. Errors go to
 * stderr as "logt: error: <message>"; progress goes to stderr; what a command
 * is asked to show (list, info, help) goes to stdout.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/ctx.h"
#include "../core/cuda.h"
#include "../models/model.h"
#include "config.h"
#include "list.h"
#include "merge.h"
#include "mpi_sweep.h"
#include "plot.h"
#include "run.h"
#include "store.h"
#include "reproduce.h"
#include "show.h"
#include "util.h"

#define MAX_SETS 64

static const char *const main_help =
    "usage: logt COMMAND [ARGS]\n"
    "\n"
    "logt trains and times recurrent nets (and times their kernels) on CPU and GPU,\n"
    "stores results in HDF5 and plots them with gnuplot.\n"
    "\n"
    "commands:\n"
    "  run EXP_DIR     run an experiment's sweep into results/local/NAME.h5 (resumes)\n"
    "  merge SHARD...  join the shard files of a sweep (run --shard I/N) into one\n"
    "  plot EXP_DIR    render the experiment's figures into plots/ from its results\n"
    "  reproduce EXP|all  run an experiment here, plot it, and judge its claims against\n"
    "                  the paper's figures and the reference results/NAME.h5 (--check: judge only)\n"
    "  list            the models (and the backends they run on) and the experiments\n"
    "  info            this machine: GPU, driver, CUDA, cuDNN, cuBLAS versions\n"
    "\n"
    "`logt COMMAND --help` describes each command. Example:\n"
    "  logt run experiments/quickstart --backend cpu && logt plot experiments/quickstart\n";

static const char *const run_help =
    "usage: logt run EXP_DIR [--backend cpu|cuda|auto] [--out FILE] [--set SECTION.KEY=VALUE]...\n"
    "                [--retry-failed] [--shard I/N | --mpi]\n"
    "\n"
    "Run every point of EXP_DIR/experiment.ini's sweep and store it in the results file.\n"
    "Runs already in the file (same configuration) are skipped, so running again after a\n"
    "crash or Ctrl-C resumes, training runs from their last checkpoint.\n"
    "\n"
    "options:\n"
    "  --backend B       cpu, cuda, or auto (cuda when a GPU is usable, else cpu);\n"
    "                    default: [experiment] backend, else auto\n"
    "  --out FILE        results file (default results/local/NAME.h5; never overwritten;\n"
    "                    results/NAME.h5 is the experiment's reference)\n"
    "  --set S.K=V       override key K of section [S], e.g. --set sweep.T=16,32\n"
    "                    --set train.steps=10 --set model.lstm-cudnn.algo=standard\n"
    "  --retry-failed    redo the runs stored as failed\n"
    "  --shard I/N       run every N-th run of the sweep from run I (0 <= I < N) into a file\n"
    "                    of its own, results/local/NAME.shard-I-of-N.h5 (or --out FILE); resumes\n"
    "                    like a whole sweep; `logt merge` joins the N files\n"
    "  --mpi             under `mpirun -np N`: rank r runs shard r/N into the file beside\n"
    "                    the results file (results/local/NAME.shard-r-of-N.h5), then rank 0 merges\n"
    "                    the shards into the results file, which must not exist yet\n"
    "\n"
    "exit status: 0 all runs ok, 1 a run failed (it is stored with its error) or an\n"
    "error, 2 a usage error. See runner/README.md for the experiment.ini format.\n";

static const char *const merge_help =
    "usage: logt merge SHARD.h5... [--out FILE] [--partial]\n"
    "\n"
    "Join the shard files of one sweep (`logt run EXP_DIR --shard I/N`, one file per shard)\n"
    "into one results file holding what one `logt run` of the whole sweep writes: the same\n"
    "runs, in sweep order. The shards must come from the same experiment as run (its\n"
    "experiment.ini and --set), backend and git commit; a shard given twice, a run in two\n"
    "shards, and an incomplete set (a shard missing, or a run unfinished in its shard) are\n"
    "refused, the last unless --partial. The shard files are left as they are.\n"
    "\n"
    "options:\n"
    "  --out FILE    the results file; default: the shards' name without .shard-I-of-N\n"
    "                (results/local/NAME.shard-0-of-4.h5 -> results/local/NAME.h5). It must not exist:\n"
    "                merge writes a new file and never replaces one\n"
    "  --partial     merge the finished runs there are; `logt run EXP_DIR --out FILE`\n"
    "                can add the missing ones to the result later\n"
    "\n"
    "example: logt merge results/local/NAME.shard-*-of-8.h5      # -> results/local/NAME.h5\n";

static const char *const plot_help =
    "usage: logt plot EXP_DIR [--in FILE] [--set SECTION.KEY=VALUE]...\n"
    "\n"
    "For each [plot.NAME] section of EXP_DIR/experiment.ini, write plots/STEM-NAME.gp\n"
    "(a gnuplot script holding its data, re-renderable with `gnuplot FILE.gp`) and render\n"
    "it to plots/STEM-NAME.png and .svg, where STEM is the results file's name without\n"
    ".h5; a file under results/local/ draws into plots/local/. Failed runs are left out.\n"
    "\n"
    "options:\n"
    "  --in FILE     results file (default results/local/NAME.h5, this machine's run, when it\n"
    "                exists, else the reference results/NAME.h5)\n"
    "  --set S.K=V   override a key, e.g. --set plot.speed.logy=true\n";

static const char *const list_help =
    "usage: logt list\n"
    "\n"
    "The registered models with their summary and the backends they run on, the\n"
    "kernels that kind = kernel experiments time, which backends this machine has,\n"
    "and the experiments under experiments/.\n";

static const char *const info_help =
    "usage: logt info [FILE]\n"
    "\n"
    "This build and machine: logt version and commit, CPU, and with CUDA the GPU's name,\n"
    "compute capability, SM count, L2 and memory sizes, and driver, runtime, cuDNN and\n"
    "cuBLAS versions. `logt info FILE` (a results file) is `logt show FILE`.\n";

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "logt: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'logt %s--help'.\n", cmd);
    return 2;
}

static int fail(void)
{
    fprintf(stderr, "logt: error: %s\n", logt_user_msg());
    return 1;
}

/* ---- options ------------------------------------------------------------------------- */

typedef struct opts {
    const char *cmd, *dir, *backend, *out, *in, *shard;
    char *sets[MAX_SETS];
    char **files;            /* merge's shard files: argv's, in order */
    int nsets, nfiles, retry_failed, mpi, partial, help;
} opts;

/* "--name value" or "--name=value"; *i advances past what it used. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *bad)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n)) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n]) return NULL;
    if (*i + 1 >= argc) {
        *bad = 1;
        return NULL;
    }
    return argv[++*i];
}

static int parse_opts(int argc, char **argv, opts *o, const char *allowed)
{
    char cmdsp[32];
    snprintf(cmdsp, sizeof cmdsp, "%s ", o->cmd);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        int bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            o->help = 1;
            return 0;
        }
#define TAKE(flag, field)                                                          \
    if (strstr(allowed, flag " ") && (v = opt_value(argc, argv, &i, flag, &bad))) { \
        o->field = v;                                                              \
        continue;                                                                  \
    }                                                                              \
    if (bad) return usage_error(cmdsp, "%s needs a value", flag);
        TAKE("--backend", backend)
        TAKE("--out", out)
        TAKE("--in", in)
        TAKE("--shard", shard)
        if (strstr(allowed, "--set ") && (v = opt_value(argc, argv, &i, "--set", &bad))) {
            char s[128], k[64], val[1024];
            if (logt_set_split(v, s, sizeof s, k, sizeof k, val, sizeof val) != LOGT_OK)
                return usage_error(cmdsp, "%s", logt_user_msg());
            if (o->nsets == MAX_SETS) return usage_error(cmdsp, "more than %s --set options", "64");
            o->sets[o->nsets++] = (char *)v;
            continue;
        }
        if (bad) return usage_error(cmdsp, "%s needs a value", "--set");
#define FLAG(flag, field)                                      \
    if (strstr(allowed, flag " ") && !strcmp(a, flag)) {       \
        o->field = 1;                                          \
        continue;                                              \
    }
        FLAG("--retry-failed", retry_failed)
        FLAG("--mpi", mpi)
        FLAG("--partial", partial)
#undef FLAG
#undef TAKE
        if (a[0] == '-') return usage_error(cmdsp, "unknown option '%s'", a);
        if (strstr(allowed, "DIR ") && !o->dir) {
            o->dir = a;
            continue;
        }
        if (strstr(allowed, "FILES ")) {
            o->files[o->nfiles++] = argv[i];
            continue;
        }
        return usage_error(cmdsp, "unexpected argument '%s'", a);
    }
    if (strstr(allowed, "DIR ") && !o->dir) return usage_error(cmdsp, "%s needs EXP_DIR", o->cmd);
    if (strstr(allowed, "FILES ") && !o->nfiles)
        return usage_error(cmdsp, "%s needs the shard files to join", o->cmd);
    if (o->shard && o->mpi)
        return usage_error(cmdsp, "%s", "--mpi gives each rank its shard: leave out --shard");
    if (o->backend && strcmp(o->backend, "cpu") && strcmp(o->backend, "cuda") &&
        strcmp(o->backend, "auto"))
        return usage_error(cmdsp, "--backend expects cpu, cuda or auto, got '%s'", o->backend);
    return 0;
}

static logt_device pick_backend(const char *want)
{
    if (!strcmp(want, "cuda")) return LOGT_CUDA;
    if (!strcmp(want, "cpu")) return LOGT_CPU;
    return logt_backend_available(LOGT_CUDA) ? LOGT_CUDA : LOGT_CPU;
}

/* ---- commands ------------------------------------------------------------------------- */

/* The experiment parsed and resolved for its backend, and the backend's context. */
static logt_status prepare(const opts *o, logt_experiment **e, logt_ctx **ctx)
{
    *e = NULL;
    *ctx = NULL;
    LOGT_TRY(logt_exp_parse(o->dir, o->sets, o->nsets, e));
    logt_device dev = pick_backend(o->backend ? o->backend : logt_exp_backend(*e));
    LOGT_TRY(logt_exp_resolve(*e, dev));
    return logt_ctx_create(dev, ctx);
}

/* What a sweep that ran to its end (or to Ctrl-C) exits with, said on stderr. */
static int run_outcome(const logt_run_report *rep)
{
    if (rep->interrupted) {
        const int sig = rep->signal ? rep->signal : SIGINT;
        fprintf(stderr, "logt: interrupted by %s: finished runs are in %s; run the same command "
                "again to resume\n", sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGINT", rep->out);
        if (*rep->stopped) fprintf(stderr, "logt: %s\n", rep->stopped);
        return 128 + sig;
    }
    if (rep->failed) {
        fprintf(stderr, "logt: error: %d of %d runs failed (status \"failed\" and their error are "
                "recorded in %s)\n", rep->failed, rep->total, rep->out);
        return 1;
    }
    if (rep->unavailable)
        fprintf(stderr, "logt: %d peer run%s could not run here (status \"skipped\", the error says "
                "what to install; the next run of the sweep tries again)\n", rep->unavailable,
                rep->unavailable == 1 ? "" : "s");
    return 0;
}

static int fail_rank(const logt_mpi *m)
{
    fprintf(stderr, "logt: error: rank %d of %d (%s): %s\n", m->rank, m->size, m->host,
            logt_user_msg());
    return 1;
}

/* Rank 0's last step: the shard files of the `size` ranks merged into out. */
static logt_status merge_ranks(const char *out, int size, logt_merge_report *rep)
{
    enum { LEN = 4200 };
    char *names = malloc((size_t)size * LEN);
    char **paths = malloc((size_t)size * sizeof *paths);
    logt_status s = names && paths ? LOGT_OK : LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    for (int r = 0; s == LOGT_OK && r < size; r++) {
        paths[r] = names + (size_t)r * LEN;
        logt_shard_path(out, r, size, paths[r], LEN);
    }
    if (s == LOGT_OK) s = logt_merge(out, paths, size, 0, rep);
    free(paths);
    free(names);
    return s;
}

/* mpirun -np N logt run EXP --mpi: rank r runs shard r/N into the shard file beside the
 * results file, and once every rank is done, rank 0 merges the N shard files into it.
 * The ranks agree twice, ready to run and every shard finished, so that an error on one
 * rank stops them all instead of leaving the others waiting for it. */
static int cmd_run_mpi(const opts *o, logt_run_opts *ro)
{
    logt_mpi m;
    if (logt_mpi_start(&m) != LOGT_OK) return fail();
    logt_experiment *e = NULL;
    logt_ctx *ctx = NULL;
    logt_run_report rep;
    logt_merge_report mrep;
    char out[4096] = "", shard_out[4200];
    struct stat sb;
    int rc = 0;
    logt_status s = prepare(o, &e, &ctx);
    if (s == LOGT_OK) {
        if (o->out) logt_strlcpy(out, sizeof out, o->out);
        else logt_default_out(e->name, out, sizeof out);
        if (m.rank == 0 && stat(out, &sb) == 0)
            s = LOGT_USER_FAIL(LOGT_EINVAL, "%s exists: with --mpi, rank 0 merges the shards into a new "
                               "results file and never replaces one. HINT: pass --out NEW.h5, or run "
                               "without --mpi to add runs to %s", out, out);
    }
    if (s != LOGT_OK) rc = fail_rank(&m);
    else if (m.gpu[0])
        fprintf(stderr, "logt: rank %d of %d (%s, %d on this machine) runs on GPU %s\n", m.rank,
                m.size, m.host, m.local_rank, m.gpu);

    /* agreement 1: every rank ready */
    if (!logt_mpi_all(rc == 0)) {
        rc = rc ? rc : 1;   /* another rank could not start: its error is above */
        goto end;
    }
    logt_shard_path(out, m.rank, m.size, shard_out, sizeof shard_out);
    ro->out = shard_out;
    ro->shard = m.rank;
    ro->nshards = m.size;
    s = logt_run_experiment(e, ctx, ro, &rep);
    if (s != LOGT_OK) rc = fail_rank(&m);
    else if (rep.interrupted) rc = run_outcome(&rep);

    /* agreement 2: every shard finished (failed runs included: they are results) */
    if (!logt_mpi_all(rc == 0)) {
        if (m.rank == 0)
            fprintf(stderr, "logt: not merged, as a rank stopped early: the finished runs stay in the "
                    "shard files beside %s; run the same command again to resume\n", out);
        rc = rc ? rc : 1;
        goto end;
    }
    if (m.rank != 0) {
        rc = rep.failed ? 1 : 0;   /* rank 0 reports the failed runs of all, from the merged file */
        goto end;
    }
    if (merge_ranks(out, m.size, &mrep) != LOGT_OK) {
        rc = fail();
        goto end;
    }
    char sk[48] = "";
    if (mrep.skipped) snprintf(sk, sizeof sk, ", %d skipped", mrep.skipped);
    fprintf(stderr, "logt: %s: merged the shards of %d ranks (%d runs: %d ok, %d failed%s) -> %s\n",
            mrep.experiment, m.size, mrep.runs, mrep.ok, mrep.failed, sk, out);
    if (mrep.failed) {
        fprintf(stderr, "logt: error: %d of %d runs failed (status \"failed\" and their error are "
                "recorded in %s)\n", mrep.failed, mrep.runs, out);
        rc = 1;
    }
end:
    logt_ctx_destroy(ctx);
    logt_exp_free(e);
    logt_mpi_end();
    return rc;
}

static int cmd_run(const opts *o)
{
    logt_run_opts ro = {.out = o->out, .retry_failed = o->retry_failed};
    if (o->shard && logt_shard_parse(o->shard, &ro.shard, &ro.nshards) != LOGT_OK)
        return usage_error("run ", "%s", logt_user_msg());
    if (o->mpi) return cmd_run_mpi(o, &ro);
    logt_experiment *e;
    logt_ctx *ctx;
    logt_run_report rep;
    logt_status s = prepare(o, &e, &ctx);
    if (s == LOGT_OK) s = logt_run_experiment(e, ctx, &ro, &rep);
    logt_ctx_destroy(ctx);
    logt_exp_free(e);
    if (s != LOGT_OK) return fail();
    return run_outcome(&rep);
}

static int cmd_merge(const opts *o)
{
    char out[4096], other[4096];
    if (o->out) {
        logt_strlcpy(out, sizeof out, o->out);
    } else {
        for (int k = 0; k < o->nfiles; k++) {
            if (logt_merge_out_name(o->files[k], k ? other : out, sizeof out) != 0)
                return usage_error("merge ", "cannot tell the results file from the name '%s' (not "
                                   "NAME.shard-I-of-N.h5): pass --out FILE", o->files[k]);
            if (k && strcmp(other, out)) {
                fprintf(stderr, "logt: error: the shards' names point to different results files "
                        "(%s and %s): pass --out FILE\nTry 'logt merge --help'.\n", out, other);
                return 2;
            }
        }
    }
    logt_merge_report rep;
    if (logt_merge(out, o->files, o->nfiles, o->partial, &rep) != LOGT_OK) return fail();
    char sk[48] = "";
    if (rep.skipped) snprintf(sk, sizeof sk, ", %d skipped", rep.skipped);
    fprintf(stderr, "logt: %s: merged %d of %d shards (%d runs: %d ok, %d failed%s)", rep.experiment,
            rep.shards, rep.nshards, rep.runs, rep.ok, rep.failed, sk);
    if (rep.runs < rep.sweep_total)
        fprintf(stderr, "; %d of the sweep's %d runs are not there (--partial)",
                rep.sweep_total - rep.runs, rep.sweep_total);
    fprintf(stderr, " -> %s\n", out);
    return 0;
}

static int cmd_plot(opts *o)
{
    logt_experiment *e;
    if (logt_exp_parse(o->dir, o->sets, o->nsets, &e) != LOGT_OK) return fail();
    char name[LOGT_WORD], path[4096];
    logt_exp_name(e, name, sizeof name);
    if (o->in) {
        logt_strlcpy(path, sizeof path, o->in);
    } else {   /* this machine's run if there is one, else the reference */
        struct stat sb;
        logt_default_out(name, path, sizeof path);
        if (stat(path, &sb) != 0) {
            logt_reference_path(name, path, sizeof path);
            if (stat(path, &sb) == 0)
                fprintf(stderr, "logt: no run of %s here yet: plotting the reference %s\n", name, path);
        }
    }
    int rc = logt_plot_file(e, path) == LOGT_OK ? 0 : fail();
    logt_exp_free(e);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(main_help, stderr);
        return 2;
    }
    opts o = {.cmd = argv[1]};
    const char *c = argv[1];
    if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) {
        fputs(main_help, stdout);
        return 0;
    }
    if (!strcmp(c, "--version")) {
        printf("logt %s\n", LOGT_VERSION);
        return 0;
    }
    int rc;
    if (!strcmp(c, "run")) {
        if ((rc = parse_opts(argc, argv, &o, "DIR --backend --out --set --retry-failed --shard --mpi ")))
            return rc;
        if (o.help) return fputs(run_help, stdout), 0;
        return cmd_run(&o);
    }
    if (!strcmp(c, "merge")) {
        if (!(o.files = calloc((size_t)argc, sizeof *o.files))) {
            fprintf(stderr, "logt: error: out of host memory\n");
            return 1;
        }
        rc = parse_opts(argc, argv, &o, "FILES --out --partial ");
        if (rc == 0 && o.help) fputs(merge_help, stdout);
        else if (rc == 0) rc = cmd_merge(&o);
        free(o.files);
        return rc;
    }
    if (!strcmp(c, "plot")) {
        if ((rc = parse_opts(argc, argv, &o, "DIR --in --set "))) return rc;
        if (o.help) return fputs(plot_help, stdout), 0;
        return cmd_plot(&o);
    }
    if (!strcmp(c, "reproduce")) return logt_cmd_reproduce(argc, argv);
    if (!strcmp(c, "show") || (!strcmp(c, "info") && logt_show_names_file(argc, argv)))
        return logt_cmd_show(argc, argv);
    if (!strcmp(c, "list")) {
        if ((rc = parse_opts(argc, argv, &o, ""))) return rc;
        if (o.help) return fputs(list_help, stdout), 0;
        return logt_cmd_list();
    }
    if (!strcmp(c, "info")) {
        if ((rc = parse_opts(argc, argv, &o, ""))) return rc;
        if (o.help) return fputs(info_help, stdout), 0;
        return logt_cmd_info();
    }
    fprintf(stderr, "logt: error: unknown command '%s'\n\n%s", c, main_help);
    return 2;
}
