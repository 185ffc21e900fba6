/* test_faults.c — the `logt` command under the faults a shared machine produces: a directory
 * that is no experiment, a diverging training, numbers past a limit, options that match
 * nothing. Each gets one message naming what is wrong and what would be right, and nothing
 * written before is lost. The binary is the `logt` next to this test binary (cli.h).
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner/store.h"
#include "cli.h"

static void setup(void) { cli_setup("faults"); }

TestSuite(faults, .init = setup, .fini = cli_teardown, .timeout = 60);

static const char *const speed_ini =
    "[experiment]\n"
    "name = tiny\n"
    "models = lstm\n"
    "kind = speed\n"
    "[sweep]\n"
    "T = 4, 8\n"
    "B = 2\n"
    "D = 4\n"
    "[speed]\n"
    "warmup = 0\n"
    "repeats = 2\n";

/* lr = 1000 without a clip: the adding task's loss grows by orders of magnitude at once. */
static const char *const diverging_ini =
    "[experiment]\n"
    "name = blowup\n"
    "models = lstm\n"
    "kind = train\n"
    "[train]\n"
    "task = adding\n"
    "T = 8\n"
    "B = 4\n"
    "D = 4\n"
    "steps = 30\n"
    "eval_every = 10\n"
    "eval_batches = 1\n"
    "test_batches = 1\n"
    "lr = 1000\n"
    "clip = 0\n";

/* `logt run` and `logt plot` on a directory without experiment.ini: one message, exit 1. */
static void expect_no_experiment(const char *rel)
{
    char args[PATH_MAX];
    snprintf(args, sizeof args, "run %s --backend cpu", rel);
    cr_assert_eq(logt(NULL, args), 1, "run %s: %s", rel, err);
    EXPECT_ERR("has no experiment.ini");
    EXPECT_ERR("`logt list` shows the experiments");
    snprintf(args, sizeof args, "plot %s", rel);
    cr_assert_eq(logt(NULL, args), 1, "plot %s: %s", rel, err);
    EXPECT_ERR("has no experiment.ini");
}

Test(faults, a_directory_without_experiment_ini_is_no_experiment)
{
    write_at("experiments/tiny/experiment.ini", speed_ini);
    cr_assert_eq(mkdir(strcat(strcpy((char[PATH_MAX]){0}, dir), "/empty"), 0755), 0);
    expect_no_experiment("empty");
    expect_no_experiment(".");
    expect_no_experiment("experiments");
    cr_assert_eq(logt(NULL, "run nowhere --backend cpu"), 1, "%s", err);
    EXPECT_ERR("no experiment at nowhere: it does not exist");
}

/* The run's loss, step by step, and its status and error text. */
static void read_run(const char *rel, char *status, char *error, size_t n, int64_t *nloss)
{
    logt_store *st = open_results(rel);
    cr_assert_eq(logt_store_nruns(st), 1);
    int64_t id;
    const char *key;
    logt_run_state state;
    logt_store_run_at(st, 0, &id, &key, &state);
    cr_assert_eq(logt_store_get_str(st, id, "", "status", status, 16), LOGT_OK);
    error[0] = '\0';
    logt_store_get_str(st, id, "", "error", error, n);
    double *loss = NULL;
    *nloss = 0;
    logt_store_read(st, id, "loss", &loss, nloss);
    free(loss);
    logt_store_close(st);
}

Test(faults, a_diverging_loss_fails_the_run)
{
    write_at("exp/experiment.ini", diverging_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 1, "%s", err);
    EXPECT_ERR("the run diverges");
    EXPECT_ERR("HINT: lower the learning rate");
    char status[16], error[2048];
    int64_t nloss;
    read_run("r.h5", status, error, sizeof error, &nloss);
    cr_assert_str_eq(status, "failed");
    cr_assert(strstr(error, "past diverge = 1e+06"), "%s", error);
    cr_assert(nloss > 0 && nloss < 30, "the losses up to the failing step are kept: %lld",
              (long long)nloss);

    /* off: the same training runs to its end, its loss finite or not caught as diverging */
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out off.h5 --set train.diverge=0"), 0, "%s", err);
    read_run("off.h5", status, error, sizeof error, &nloss);
    cr_assert_str_eq(status, "ok");
    cr_assert_eq(nloss, 30);

    /* a factor must be above 1 */
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out bad.h5 --set train.diverge=0.5"), 1, "%s", err);
    EXPECT_ERR("[train] diverge = 0.5");
    EXPECT_ERR("above 1");
}

Test(faults, numbers_past_int32_name_the_limit)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --set sweep.T=1000000000000"), 1, "%s", err);
    EXPECT_ERR("bad value '1000000000000' for T: expected positive integers up to 2147483647 (2^31 - 1)");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --set speed.repeats=3000000000"), 1, "%s", err);
    EXPECT_ERR("expected a positive integer up to 2147483647 (2^31 - 1)");
}
