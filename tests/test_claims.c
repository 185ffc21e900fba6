/* test_claims.c — [claims] in experiment.ini and `logt reproduce`: values and ratios read
 * back from the results file, bars held or not, rows without a partner or with two, bad
 * claims refused at parse time, and where runs and figures go (results/local/, plots/local/). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../runner/store.h"
#include "cli.h"

static void setup(void) { cli_setup("claims"); }

TestSuite(claims, .init = setup, .fini = cli_teardown, .timeout = 60);

/* Two models trained a few steps on the CPU (f64, so the losses are the same every time), T =
 * 6 and 8, and claims on their final losses. */
static const char *const train_ini =
    "[experiment]\n"
    "name = tiny\n"
    "models = lstm, gilr\n"
    "kind = train\n"
    "[train]\n"
    "task = adding\n"
    "T = 6, 8\n"
    "B = 4\n"
    "D = 4\n"
    "steps = 6\n"
    "eval_every = 3\n"
    "eval_batches = 1\n"
    "test_batches = 1\n"
    "[plot.loss]\n"
    "y = loss\n"
    "series = model, T\n"
    "[claims]\n"
    "ratio.text = gilr's loss against lstm's at T = 8\n"
    "ratio.y = final_loss\n"
    "ratio.row = model=gilr, T=8\n"
    "ratio.over = model=lstm\n"
    "ratio.paper = 1.5x (a test)\n"
    "ratio.bar = > 0\n"
    "value.text = lstm's loss at every T\n"
    "value.y = final_loss\n"
    "value.row = model=lstm\n"
    "value.paper = -\n"
    "value.bar = 0..1e9\n";

/* The final_loss of the run of model at T in rel. */
static double final_loss(const char *rel, const char *model, int64_t T)
{
    logt_store *st = open_results(rel);
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK, "%s", logt_errmsg());
    double v = NAN;
    for (int64_t i = 0; i < n; i++)
        if (!strcmp(rows[i].model, model) && rows[i].T == T) v = rows[i].final_loss;
    free(rows);
    logt_store_close(st);
    cr_assert(isfinite(v), "no final_loss of %s at T = %lld in %s", model, (long long)T, rel);
    return v;
}

/* The cells of the markdown row of `claim` in stdout (reproduce --format md). */
static int md_row(const char *claim, char cells[8][128])
{
    static char out[16384];
    read_at("stdout.txt", out, sizeof out);
    char needle[160];
    snprintf(needle, sizeof needle, "| %s |", claim);
    const char *p = strstr(out, needle);
    cr_assert(p, "no row for %s in:\n%s", claim, out);
    int n = 0;
    for (p++; *p && *p != '\n' && n < 8;) {
        const char *bar = strchr(p, '|');
        if (!bar || bar > strchr(p, '\n')) break;
        snprintf(cells[n], 128, "%.*s", (int)(bar - p), p);
        for (char *c = cells[n]; *c == ' ';) memmove(c, c + 1, strlen(c));
        for (size_t l = strlen(cells[n]); l && cells[n][l - 1] == ' ';) cells[n][--l] = '\0';
        n++;
        p = bar + 1;
    }
    return n;
}

static void expect_near(const char *cell, double want)
{
    char *end;
    double got = strtod(cell, &end);
    cr_assert(end != cell && fabs(got - want) <= 0.01 * fabs(want), "'%s' is not %g", cell, want);
}

Test(claims, check_reads_values_and_ratios_from_the_reference)
{
    write_at("experiments/tiny/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run experiments/tiny --backend cpu --out results/tiny.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "reproduce tiny --check --format md"), 0, "%s", err);
    EXPECT_ERR("tiny: reference results/tiny.h5 (");
    char c[8][128];
    cr_assert_eq(md_row("tiny/ratio", c), 5);   /* claim, paper, reference, bar, held */
    cr_assert_str_eq(c[1], "1.5x (a test)");
    /* a loss is lower-is-better: the ratio is the partner's over the row's */
    expect_near(c[2], final_loss("results/tiny.h5", "lstm", 8) / final_loss("results/tiny.h5", "gilr", 8));
    cr_assert(strchr(c[2], 'x'), "a ratio is shown as one: %s", c[2]);
    cr_assert_str_eq(c[3], "> 0");
    cr_assert_str_eq(c[4], "yes");
    cr_assert_eq(md_row("tiny/value", c), 5);
    const double a = final_loss("results/tiny.h5", "lstm", 6), b = final_loss("results/tiny.h5", "lstm", 8);
    char want[128];   /* two rows: their range */
    cr_assert(strchr(c[2], '-'), "two values make a range: %s", c[2]);
    snprintf(want, sizeof want, "%s", c[2]);
    *strchr(want, '-') = '\0';
    expect_near(want, fmin(a, b));
    expect_near(strchr(c[2], '-') + 1, fmax(a, b));
}

Test(claims, a_bar_not_met_fails_and_says_which)
{
    char ini[4096];
    snprintf(ini, sizeof ini, "%s", train_ini);
    *strstr(ini, "ratio.bar = > 0") = '\0';
    strcat(ini, "ratio.bar = < 0\nvalue.text = x\nvalue.y = final_loss\nvalue.row = model=lstm\n"
                "value.paper = -\nvalue.bar = 0..1e9\n");
    write_at("experiments/tiny/experiment.ini", ini);
    cr_assert_eq(logt(NULL, "run experiments/tiny --backend cpu --out results/tiny.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "reproduce experiments/tiny --check --format md"), 1, "%s", err);
    char c[8][128];
    md_row("tiny/ratio", c);
    cr_assert_str_eq(c[4], "NO");
    md_row("tiny/value", c);
    cr_assert_str_eq(c[4], "yes");
}

Test(claims, rows_without_a_partner_or_with_two_have_no_value)
{
    char ini[4096];
    snprintf(ini, sizeof ini, "%s", train_ini);
    strcat(ini, "none.text = no such partner\nnone.y = final_loss\nnone.row = model=gilr\n"
                "none.over = model=sru\nnone.paper = -\nnone.bar = > 0\n"
                "two.text = T left open: two partners\ntwo.y = final_loss\ntwo.row = model=gilr, T=8\n"
                "two.over = model=lstm, T=6|8\ntwo.paper = -\ntwo.bar = > 0\n"
                "nothing.text = no row\nnothing.y = final_loss\nnothing.row = model=sru\n"
                "nothing.paper = -\nnothing.bar = > 0\n");
    write_at("experiments/tiny/experiment.ini", ini);
    cr_assert_eq(logt(NULL, "run experiments/tiny --backend cpu --out results/tiny.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "reproduce tiny --check --format md"), 1, "%s", err);
    char c[8][128], out[16384];
    read_at("stdout.txt", out, sizeof out);
    md_row("tiny/none", c);
    cr_assert_str_eq(c[4], "no value");
    cr_assert(strstr(out, "tiny/none: run") && strstr(out, "has no partner matching model=sru"), "%s", out);
    md_row("tiny/two", c);
    cr_assert_str_eq(c[2], "-");
    cr_assert(strstr(out, "has more than one partner"), "%s", out);
    md_row("tiny/nothing", c);
    cr_assert(strstr(out, "tiny/nothing: no ok run matches model=sru"), "%s", out);
}

Test(claims, bad_claims_are_refused_when_the_file_is_read)
{
    const struct { const char *claims, *msg; } bad[] = {
        {"a.colour = 3\n", "bad key 'a.colour' in [claims]: expected CLAIM.FIELD"},
        {"a.bar = about 3\n", "bad value 'about 3' for a.bar: expected '>= X'"},
        {"a.bar = 5..1\n", "bad value '5..1' for a.bar"},
        {"a.over = lstm\n", "bad value 'lstm' for a.over: expected a number, or filters"},
        {"a.y = loss\n", "a.y = loss is a value per step"},
        {"a.text = t\na.y = final_loss\na.row = model=lstm\na.bar = > 1\n", "claim 'a' has no a.paper"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char ini[4096];
        snprintf(ini, sizeof ini, "%.*s%s", (int)(strstr(train_ini, "[claims]\n") - train_ini + 9),
                 train_ini, bad[i].claims);
        write_at("experiments/tiny/experiment.ini", ini);
        cr_assert_eq(logt(NULL, "reproduce tiny --check"), 1, "%s", err);
        EXPECT_ERR(bad[i].msg);
    }
    write_at("experiments/tiny/experiment.ini", "[experiment]\nname = tiny\nmodels = lstm\n[claims.cuda]\n"
                                                "a.text = t\n");
    cr_assert_eq(logt(NULL, "reproduce tiny --check"), 1, "%s", err);
    EXPECT_ERR("[claims.cuda]: claims hold for every backend");
}

Test(claims, reproduce_runs_here_resumes_and_plots_apart_from_the_reference)
{
    write_at("experiments/tiny/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run experiments/tiny --backend cpu --out results/tiny.h5"), 0, "%s", err);
    int rc = logt(NULL, "reproduce tiny --backend cpu --format md");
    cr_assert(rc == 0 || (rc == 1 && strstr(err, "gnuplot")), "%s", err);
    EXPECT_ERR("tiny: this run results/local/tiny.h5 (");
    char c[8][128];
    cr_assert_eq(md_row("tiny/ratio", c), 6);   /* claim, paper, reference, this run, bar, held */
    cr_assert_str_eq(c[2], c[3], "the same seed on the same CPU gives the same losses");
    struct stat sb;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/plots/local/tiny-loss.gp", dir);
    cr_assert_eq(stat(path, &sb), 0, "this run's figure goes to plots/local/: %s", err);
    snprintf(path, sizeof path, "%s/plots/tiny-loss.gp", dir);
    cr_assert_neq(stat(path, &sb), 0, "the reference's figure is not touched");
    logt(NULL, "reproduce tiny --backend cpu");
    EXPECT_ERR("4 already in results/local/tiny.h5 (skipped), 0 to run");
    /* --check FILE judges that file; one of another experiment is refused */
    cr_assert_eq(logt(NULL, "reproduce tiny --check results/local/tiny.h5"), 0, "%s", err);
    write_at("experiments/other/experiment.ini", "[experiment]\nname = other\nmodels = lstm\nkind = train\n"
                                                 "[train]\nT = 4\nB = 2\nD = 2\nsteps = 2\n");
    cr_assert_eq(logt(NULL, "run experiments/other --backend cpu"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "reproduce tiny --check results/local/other.h5"), 1, "%s", err);
    EXPECT_ERR("results/local/other.h5 holds results of experiment 'other', not 'tiny'");
}

Test(claims, all_takes_the_experiments_with_claims)
{
    write_at("experiments/tiny/experiment.ini", train_ini);
    write_at("experiments/plain/experiment.ini", "[experiment]\nname = plain\nmodels = lstm\n");
    cr_assert_eq(logt(NULL, "run experiments/tiny --backend cpu --out results/tiny.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "reproduce all --check"), 0, "%s", err);
    char out[16384];
    read_at("stdout.txt", out, sizeof out);
    cr_assert(strstr(out, "tiny/ratio") && !strstr(out, "plain"), "%s", out);
    cr_assert_eq(logt(NULL, "reproduce plain --check"), 1, "%s", err);
    EXPECT_ERR("experiments/plain/experiment.ini has no [claims] section");
    cr_assert_eq(logt(NULL, "reproduce nosuch --check"), 1, "%s", err);
    EXPECT_ERR("no experiment 'nosuch'");
    cr_assert_eq(logt(NULL, "reproduce all --check results/tiny.h5"), 2, "%s", err);
    /* no reference: said, and not held */
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm '%s/results/tiny.h5'", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(logt(NULL, "reproduce tiny --check"), 1, "%s", err);
    EXPECT_ERR("results/tiny.h5: not there");
}

Test(claims, plot_draws_this_machines_run_else_the_reference)
{
    write_at("experiments/tiny/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run experiments/tiny --backend cpu --out results/tiny.h5"), 0, "%s", err);
    logt(NULL, "plot experiments/tiny");
    EXPECT_ERR("no run of tiny here yet: plotting the reference results/tiny.h5");
    struct stat sb;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/plots/tiny-loss.gp", dir);
    cr_assert_eq(stat(path, &sb), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run experiments/tiny --backend cpu"), 0, "%s", err);
    snprintf(path, sizeof path, "%s/results/local/tiny.h5", dir);
    cr_assert_eq(stat(path, &sb), 0, "logt run writes results/local/NAME.h5: %s", err);
    logt(NULL, "plot experiments/tiny");
    cr_assert(!strstr(err, "plotting the reference"), "%s", err);
    snprintf(path, sizeof path, "%s/plots/local/tiny-loss.gp", dir);
    cr_assert_eq(stat(path, &sb), 0, "%s", err);
}
