/* test_axes.c — the sweep axes' table (runner/axes.c): every row complete and consistent
 * with the structs and readers it names; a sweep over each axis puts it in the runs' keys,
 * attributes and summary column; keys read exactly as stored results expect. CPU only.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner/axes.h"
#include "../runner/config.h"
#include "../runner/store.h"
#include "cli.h"
#include "repo.h"

static void setup(void) { cli_setup("axes"); }

TestSuite(axes, .init = setup, .fini = cli_teardown, .timeout = 60);

#define KINDS ((1u << LOGT_NKIND) - 1)

/* Parse dir/NAME/experiment.ini written from ini: LOGT_OK or the error, in err. */
static logt_status parse_ini(const char *name, const char *ini)
{
    char rel[128], path[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/experiment.ini", name);
    write_at(rel, ini);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    logt_experiment *e = NULL;
    logt_status s = logt_exp_parse(path, NULL, 0, &e);
    if (s == LOGT_OK) s = logt_exp_resolve(e, LOGT_CPU);
    logt_strlcpy(err, sizeof err, s == LOGT_OK ? "" : logt_user_msg());
    if (e) logt_exp_free(e);
    return s;
}

Test(axes, every_row_is_complete_and_consistent)
{
    cr_assert_gt(logt_naxes, 0);
    cr_assert_leq(logt_naxes, LOGT_MAX_AXES);
    int cells = (int)sizeof(((logt_model_cfg *)0)->cell);   /* what config.c lets a name be */
    for (int i = 0; i < logt_naxes; i++) {
        const logt_axis *a = &logt_axes[i];
        cr_assert(a->name && *a->name, "axis %d has no name", i);
        cr_assert_eq(logt_axis_index(a->name), i, "%s is named twice", a->name);
        cr_assert_lt((unsigned)a->type, LOGT_AXIS_NTYPES, "%s: no parser for its type", a->name);
        cr_assert(a->dflt || a->type == LOGT_AXIS_DTYPE, "%s has no default", a->name);
        cr_assert(a->kinds && !(a->kinds & ~KINDS), "%s: kinds", a->name);
        cr_assert(!(a->keyed & ~a->kinds), "%s is in the key of a kind that does not vary it", a->name);

        /* the spec's field and the summary's column hold what the type says */
        cr_assert_leq(a->spec + a->spec_size, sizeof(logt_run_spec), "%s", a->name);
        cr_assert_leq(a->col + a->col_size, sizeof(logt_summary_row), "%s", a->name);
        switch (a->type) {
        case LOGT_AXIS_POSINT:
        case LOGT_AXIS_NNINT: cr_assert_eq(a->spec_size, sizeof(int), "%s", a->name); break;
        case LOGT_AXIS_U64: cr_assert_eq(a->spec_size, sizeof(uint64_t), "%s", a->name); break;
        case LOGT_AXIS_DTYPE:
            cr_assert_eq(a->spec_size, sizeof(logt_dtype), "%s", a->name);
            cr_assert_geq(a->col_size, sizeof "bf16", "%s", a->name);
            break;
        default:
            cr_assert_geq(a->spec_size, (size_t)cells, "%s: shorter than a checked name", a->name);
            cr_assert_geq(a->col_size, a->spec_size, "%s: its column cuts its values", a->name);
        }
        if (logt_axis_is_number(a)) cr_assert_eq(a->col_size, 8, "%s: an int64 column", a->name);

        /* keys: one place each; plots: an x axis is a number */
        for (int j = 0; j < i; j++)
            cr_assert(!logt_axes[j].keyed || !a->keyed || a->key_at == LOGT_KEY_IF_SET ||
                          logt_axes[j].key_at != a->key_at,
                      "%s and %s share a place in keys", logt_axes[j].name, a->name);
        for (int j = 0; j < i; j++) cr_assert_neq(logt_axes[j].col, a->col, "%s: column", a->name);
        cr_assert(a->plot == LOGT_PLOT_X || a->plot == LOGT_PLOT_VALUE, "%s: no plot kind", a->name);
        cr_assert(a->plot != LOGT_PLOT_X || logt_axis_is_number(a), "%s: x axes are numbers", a->name);
        cr_assert(logt_plot_is_field(a->name), "%s is not a plot field", a->name);
        if (a->zero) {
            int z = logt_axis_index(a->zero);
            cr_assert(z >= 0 && z < i && logt_axes[z].spec_size == sizeof(int),
                      "%s: 0 stands for an earlier integer axis, not '%s'", a->name, a->zero);
        }
    }
}

Test(axes, every_axis_is_checked_stored_and_plotted)
{
    char ini[512];
    for (int i = 0; i < logt_naxes; i++) {
        const logt_axis *a = &logt_axes[i];
        const char *dflt = logt_axis_default(a, LOGT_CPU);
        /* its default parses; a value of none of the types is refused, naming the key */
        snprintf(ini, sizeof ini, "[experiment]\nmodels = lstm\n[sweep]\n%s = %s\n", a->name,
                 *dflt ? dflt : "x");
        cr_assert_eq(parse_ini("ok", ini), LOGT_OK, "%s: %s", a->name, err);
        snprintf(ini, sizeof ini, "[experiment]\nmodels = lstm\n[train]\n%s = !\n", a->name);
        cr_assert_neq(parse_ini("bad", ini), LOGT_OK, "%s = ! is accepted", a->name);
        char want[128];
        snprintf(want, sizeof want, "bad value '!' for %s: expected", a->name);
        cr_assert(strstr(err, want), "%s: %s", a->name, err);
        /* an x axis, or a series only */
        snprintf(ini, sizeof ini, "[experiment]\nmodels = lstm\n[plot.p]\nx = %s\nseries = %s\n",
                 a->name, a->name);
        cr_assert_eq(parse_ini("plot", ini) == LOGT_OK, a->plot == LOGT_PLOT_X, "%s: %s", a->name, err);
        snprintf(ini, sizeof ini, "[experiment]\nmodels = lstm\n[plot.p]\nseries = %s\nwhere = %s=1\n",
                 a->name, a->name);
        cr_assert_eq(parse_ini("plot", ini), LOGT_OK, "%s: %s", a->name, err);
    }

    /* a new results file has a summary column for every axis */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/s.h5", dir);
    logt_store_meta meta = {.experiment = "x", .experiment_ini = "", .backend = "cpu",
                            .git_commit = "abc", .host = "h", .device = "d"};
    logt_store *st;
    cr_assert_eq(logt_store_open(path, &meta, &st), LOGT_OK, "%s", logt_errmsg());
    for (int i = 0; i < logt_naxes; i++)
        cr_assert(logt_store_summary_has(st, logt_axes[i].name), "no column %s", logt_axes[i].name);
    logt_store_close(st);
}

/* ---- a sweep over each axis ------------------------------------------------------------ */

/* Two values of each type, valid for flashrnn (cells, heads) and the scan kernel at
 * T = 3, B = 2, D = 4; f32 fails on the cpu, and a failed run is stored all the same. */
static const char *const values[LOGT_AXIS_NTYPES][2] = {
    [LOGT_AXIS_POSINT] = {"3", "5"},       [LOGT_AXIS_NNINT] = {"0", "2"},
    [LOGT_AXIS_U64] = {"1", "18446744073709551615"}, [LOGT_AXIS_DTYPE] = {"f64", "f32"},
    [LOGT_AXIS_PASS] = {"forward", "fwdbwd"}, [LOGT_AXIS_WORD] = {"lstm", "gru"},
};
static const char *const base[][2] = {{"T", "3"}, {"B", "2"}, {"D", "4"}};

/* v as keys and attributes write it: a 0 that stands for another axis is its value. */
static const char *written(const logt_axis *a, const char *v)
{
    if (!a->zero || strcmp(v, "0")) return v;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        if (!strcmp(base[i][0], a->zero)) return base[i][1];
    return logt_axes[logt_axis_index(a->zero)].dflt;
}

/* Row r of run id stores v for axis a: its attribute and its summary column. */
static void expect_stored(logt_store *st, const logt_summary_row *r, const logt_axis *a, const char *v)
{
    const char *col = (const char *)r + a->col;
    char s[64];
    int64_t i64;
    switch (logt_axis_col_type(a)) {
    case 'i': cr_assert_eq(*(const int64_t *)col, strtoll(v, NULL, 10), "%s=%s", a->name, v); break;
    case 'u': cr_assert_eq(*(const uint64_t *)col, strtoull(v, NULL, 10), "%s=%s", a->name, v); break;
    default: cr_assert_str_eq(col, v, "%s", a->name);
    }
    if (logt_axis_is_number(a)) {
        cr_assert_eq(logt_store_get_i64(st, r->run, "", a->name, &i64), LOGT_OK, "%s", a->name);
        cr_assert_eq(i64, (int64_t)strtoull(v, NULL, 10), "%s=%s", a->name, v);
    } else {
        cr_assert_eq(logt_store_get_str(st, r->run, "", a->name, s, sizeof s), LOGT_OK, "%s", a->name);
        cr_assert_str_eq(s, v, "%s", a->name);
    }
}

/* Sweep axis a over its two values in speed and training runs of flashrnn, or in kernel
 * runs of scan; check every run's key, attribute and summary column. */
static void sweep_axis(const logt_axis *a, int kernel)
{
    const char *v0 = values[a->type][0], *v1 = values[a->type][1];
    char ini[1024];
    size_t used = (size_t)snprintf(ini, sizeof ini,
                                   "[experiment]\nname = ax\nkind = %s\nmodels = %s\n[sweep]\n%s = %s, %s\n",
                                   kernel ? "kernel" : "speed, train", kernel ? "scan" : "flashrnn",
                                   a->name, v0, v1);
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        if (strcmp(base[i][0], a->name))
            used += (size_t)snprintf(ini + used, sizeof ini - used, "%s = %s\n", base[i][0], base[i][1]);
    snprintf(ini + used, sizeof ini - used,
             "[speed]\nwarmup = 0\nrepeats = 1\n[kernel]\nwarmup = 0\nrepeats = 1\n"
             "[train]\nsteps = 2\neval_every = 1\neval_batches = 1\ntest_batches = 1\n");
    write_at("ax/experiment.ini", ini);
    cr_assert_leq(logt(NULL, "run ax --backend cpu --out r.h5"), 1, "%s: %s", a->name, err);

    char path[PATH_MAX], field[64], key[2048];
    snprintf(path, sizeof path, "%s/r.h5", dir);
    snprintf(field, sizeof field, " %s=", a->name);
    logt_store *st;
    cr_assert_eq(logt_store_open_read(path, &st), LOGT_OK, "%s", logt_errmsg());
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_gt(n, 0, "%s: no runs", a->name);
    int seen[LOGT_NKIND][2] = {{0}}, ran[LOGT_NKIND] = {0};
    for (int64_t i = 0; i < n; i++) {
        int kind = !strcmp(rows[i].kind, "train") ? LOGT_KIND_TRAIN
                   : !strcmp(rows[i].kind, "kernel") ? LOGT_KIND_KERNEL : LOGT_KIND_SPEED;
        ran[kind] = 1;
        cr_assert_eq(logt_store_get_str(st, rows[i].run, "", "key", key, sizeof key), LOGT_OK);
        const char *at = strstr(key, field);
        if (!(a->keyed >> kind & 1)) {
            cr_assert_null(at, "%s is not in the key of %s runs: %s", a->name, rows[i].kind, key);
            continue;
        }
        cr_assert_not_null(at, "no %s in %s", field, key);
        char v[64];
        snprintf(v, sizeof v, "%.*s", (int)strcspn(at + strlen(field), " "), at + strlen(field));
        int which = !strcmp(v, written(a, v0)) ? 0 : !strcmp(v, written(a, v1)) ? 1 : -1;
        cr_assert_geq(which, 0, "%s: %s in %s", a->name, v, key);
        seen[kind][which] = 1;
        expect_stored(st, &rows[i], a, v);
    }
    for (int k = 0; k < LOGT_NKIND; k++)
        if (ran[k] && (a->kinds & a->keyed) >> k & 1)
            cr_assert(seen[k][0] && seen[k][1], "%s: %s runs of both values", a->name, logt_kind_names[k]);
    free(rows);
    logt_store_close(st);
    char rm[PATH_MAX + 16];
    snprintf(rm, sizeof rm, "rm -f '%s'", path);
    cr_assert_eq(system(rm), 0);
}

Test(axes, sweep_over_each_axis_writes_its_key_and_column)
{
    for (int i = 0; i < logt_naxes; i++) {
        sweep_axis(&logt_axes[i], 0);
        sweep_axis(&logt_axes[i], 1);
    }
}

/* ---- keys ------------------------------------------------------------------------------- */

/* Keys are compared as text with those of stored results: every field, its place and its
 * number format stay as they were written. */
Test(axes, keys_read_as_stored_results_expect)
{
    static const char *const want[] = {
        "speed model=flashrnn backend=cpu T=16 B=2 D=8 input_size=8 head_dim=4 layers=2 dtype=f64 "
        "seed=18446744073709551615 cell=gru pass=fwdbwd knobs=warps_k=0 warmup=1 repeats=5 "
        "head_start_us=3",
        "speed model=flashrnn backend=cpu T=16 B=2 D=8 input_size=3 head_dim=4 layers=2 dtype=f64 "
        "seed=18446744073709551615 cell=gru pass=fwdbwd knobs=warps_k=0 warmup=1 repeats=5 "
        "head_start_us=3",
        "train model=flashrnn backend=cpu task=adding T=16 B=2 D=8 head_dim=4 layers=2 dtype=f64 "
        "seed=18446744073709551615 cell=gru knobs=warps_k=0 steps=5 lr=0.0030000000000000001 clip=1 "
        "eval_every=50 eval_batches=4 solve_acc=0.5 curriculum=4,8",
        "kernel model=scan backend=cpu T=16 B=3 D=2 dtype=f32 seed=7 warmup=3 repeats=20",
    };
    static const char *const ini[] = {
        "[experiment]\nkind = speed, train\nmodels = flashrnn\n[sweep]\nT = 16\nB = 2\nD = 8\n"
        "input_size = 0, 3\nhead_dim = 4\nlayers = 2\nseed = 18446744073709551615\npass = fwdbwd\n"
        "cell = gru\n[model.flashrnn]\nwarps_k = 0\n[speed]\nhead_start_us = 3\n"
        "[train]\nsteps = 5\nlr = 0.003\nsolve_acc = 0.5\ncurriculum = 4, 8\n",
        "[experiment]\nkind = kernel\nmodels = scan\n[kernel]\nT = 16\nB = 3\nD = 2\nhead_dim = 5\n"
        "dtype = f32\nseed = 7\n",
    };
    int w = 0;
    for (size_t f = 0; f < sizeof ini / sizeof ini[0]; f++) {
        char rel[64], path[PATH_MAX];
        snprintf(rel, sizeof rel, "k%zu/experiment.ini", f);
        write_at(rel, ini[f]);
        snprintf(path, sizeof path, "%s/k%zu", dir, f);
        logt_experiment *e;
        cr_assert_eq(logt_exp_parse(path, NULL, 0, &e), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_exp_resolve(e, LOGT_CPU), LOGT_OK, "%s", logt_errmsg());
        logt_run_spec *runs;
        int n;
        cr_assert_eq(logt_exp_runs(e, &runs, &n), LOGT_OK, "%s", logt_errmsg());
        for (int i = 0; i < n; i++, w++) cr_assert_str_eq(runs[i].key, want[w]);
        free(runs);
        logt_exp_free(e);
    }
    cr_assert_eq(w, (int)(sizeof want / sizeof want[0]));
}

/* An axis added later enters keys only away from its default, so that results stored
 * before it existed still resume. */
Test(axes, a_late_axis_enters_keys_only_away_from_its_default)
{
    logt_axis late = logt_axes[logt_axis_index("layers")];
    late.key_at = LOGT_KEY_IF_SET;
    logt_run_spec *r = calloc(1, sizeof *r);
    cr_assert_not_null(r);
    char buf[64];
    logt_axis_set(&late, r, "1");
    cr_assert_eq(logt_axis_key_field(&late, LOGT_KIND_SPEED, 1, r, buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "");
    logt_axis_set(&late, r, "3");
    cr_assert_eq(logt_axis_key_field(&late, LOGT_KIND_SPEED, 0, r, buf, sizeof buf), 0,
                 "not at a place among the sweep fields");
    logt_axis_key_field(&late, LOGT_KIND_SPEED, 1, r, buf, sizeof buf);
    cr_assert_str_eq(buf, " layers=3");
    logt_axis_key_field(&late, LOGT_KIND_KERNEL, 1, r, buf, sizeof buf);
    cr_assert_str_eq(buf, "", "not in the key of a kind that does not vary it");
    free(r);
}

/* Every experiment of the gallery resolves and expands into runs on both backends: a model
 * section's limit, a backend section or a key that leaves some model without a run is an error
 * here, not when a user first runs it. */
Test(axes, every_experiment_expands_on_both_backends)
{
    char root[PATH_MAX + 16];
    repo_path(root, sizeof root, "experiments");
    DIR *d = opendir(root);
    cr_assert(d, "cannot open %s", root);
    int seen = 0;
    for (struct dirent *de; (de = readdir(d));) {
        char path[PATH_MAX + 300], ini[PATH_MAX + 340];
        snprintf(path, sizeof path, "%s/%s", root, de->d_name);
        snprintf(ini, sizeof ini, "%s/experiment.ini", path);
        if (de->d_name[0] == '.' || access(ini, R_OK) != 0) continue;
        for (int dev = 0; dev < 2; dev++) {
            logt_experiment *e;
            cr_assert_eq(logt_exp_parse(path, NULL, 0, &e), LOGT_OK, "%s: %s", de->d_name, logt_errmsg());
            const logt_device device = dev ? LOGT_CUDA : LOGT_CPU;
            cr_assert_eq(logt_exp_resolve(e, device), LOGT_OK, "%s on %s: %s", de->d_name,
                         logt_device_name(device), logt_errmsg());
            logt_run_spec *runs;
            int n;
            cr_assert_eq(logt_exp_runs(e, &runs, &n), LOGT_OK, "%s on %s: %s", de->d_name,
                         logt_device_name(device), logt_errmsg());
            cr_assert_gt(n, 0, "%s on %s: no runs", de->d_name, logt_device_name(device));
            free(runs);
            logt_exp_free(e);
        }
        seen++;
    }
    closedir(d);
    cr_assert_gt(seen, 20, "%d experiments under %s", seen, root);
}
