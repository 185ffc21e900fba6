/* test_runner.c — the `logt` command end to end, on the CPU, in temporary
 * directories: sweeps into HDF5, resume after a kill, failing runs, plots,
 * kernel experiments (the f64 reference on the CPU; CUDA where a GPU is),
 * paired sweep keys (zip), and every kind of bad input with its message.
 *
 * The binary is the `logt` next to this test binary (cli.h). Kills are
 * simulated with the runner's test hooks LOGT_TEST_DIE_AFTER_RUNS=N and
 * LOGT_TEST_DIE_AFTER_STEPS=N, which _exit(137) like a kill -9 at a known point.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../runner/store.h"
#include "cli.h"
#include "gpu.h"
#include "repo.h"

static void setup(void) { cli_setup("runner"); }

TestSuite(runner, .init = setup, .fini = cli_teardown, .timeout = 30);

/* ---- helpers ------------------------------------------------------------------------- */

/* Four tiny speed runs and one optional training run. */
static const char *const speed_ini =
    "[experiment]\n"
    "name = tiny\n"
    "models = lstm\n"
    "kind = speed\n"
    "\n"
    "[sweep]\n"
    "T = 4, 8\n"
    "B = 2\n"
    "D = 4\n"
    "pass = forward, fwdbwd\n"
    "\n"
    "[speed]\n"
    "warmup = 0\n"
    "repeats = 3\n"
    "\n"
    "[plot.speed]\n"
    "x = T\n"
    "y = median_ms\n"
    "series = model, pass\n"
    "logx = true\n";

static const char *const train_ini =
    "[experiment]\n"
    "name = tinytrain\n"
    "models = lstm\n"
    "kind = train\n"
    "[train]\n"
    "task = adding\n"
    "T = 8\n"
    "B = 4\n"
    "D = 4\n"
    "steps = 40\n"
    "eval_every = 10\n"
    "eval_batches = 2\n"
    "lr = 0.01\n"
    "[plot.loss]\n"
    "y = loss\n"
    "series = model\n";

/* Two scans on four shapes: 8 kernel runs, each timed against a copy. */
static const char *const kernel_ini =
    "[experiment]\n"
    "name = tinykernel\n"
    "kind = kernel\n"
    "models = scan, scan-serial\n"
    "\n"
    "[kernel]\n"
    "T = 8, 64\n"
    "B = 4\n"
    "D = 1, 3\n"
    "warmup = 1\n"
    "repeats = 3\n"
    "\n"
    "[plot.pct]\n"
    "y = pct_of_copy\n"
    "series = model, C\n"
    "logx = true\n"
    "\n"
    "[plot.speedup]\n"
    "y = median_ms\n"
    "baseline = model=scan-serial\n"
    "series = C\n"
    "\n"
    "[plot.rate]\n"
    "y = gbps\n"
    "baseline = model=scan-serial\n"
    "series = C\n";

/* The data lines of a .gp file's inline block, as text. */
static void gp_data(const char *rel, char *out, size_t n)
{
    char gp[16384];
    read_at(rel, gp, sizeof gp);
    const char *p = strstr(gp, "$data << EOD\n");
    cr_assert_not_null(p, "no data in %s:\n%s", rel, gp);
    size_t used = 0;
    out[0] = '\0';
    for (p = strchr(p, '\n') + 1; *p && strncmp(p, "EOD\n", 4); p = strchr(p, '\n') + 1)
        if (p[0] >= '0' && p[0] <= '9')
            used += (size_t)snprintf(out + used, n - used, "%.*s\n", (int)strcspn(p, "\n"), p);
}

/* Dataset `set` of run 0 is the same, value for value, in two results files; its length. */
static int64_t expect_same_set(logt_store *a, logt_store *b, const char *set)
{
    double *va, *vb;
    int64_t na, nb;
    cr_assert_eq(logt_store_read(a, 0, set, &va, &na), LOGT_OK, "%s", set);
    cr_assert_eq(logt_store_read(b, 0, set, &vb, &nb), LOGT_OK, "%s", set);
    cr_assert_eq(nb, na, "%s", set);
    for (int64_t i = 0; i < na; i++) cr_assert_eq(va[i], vb[i], "%s[%lld]", set, (long long)i);
    free(va), free(vb);
    return na;
}

/* ---- commands ------------------------------------------------------------------------ */

Test(runner, help_and_listing)
{
    cr_assert_eq(logt(NULL, "--help"), 0);
    char out[8192];
    read_at("stdout.txt", out, sizeof out);
    cr_assert(strstr(out, "run EXP_DIR") && strstr(out, "plot EXP_DIR"), "%s", out);
    cr_assert_eq(logt(NULL, "run --help"), 0);
    read_at("stdout.txt", out, sizeof out);
    cr_assert(strstr(out, "--retry-failed") && strstr(out, "--set"), "%s", out);
    cr_assert_eq(logt(NULL, "plot --help"), 0);
    cr_assert_eq(logt(NULL, "list"), 0);
    read_at("stdout.txt", out, sizeof out);
    cr_assert(strstr(out, "lstm") && strstr(out, "backends here"), "%s", out);
    cr_assert(strstr(out, "cpu (f64), cuda (f32 bf16 f16); heads: head_dim divides D; cells: lstm gru"),
              "logt list shows what flashrnn declares it takes: %s", out);
    cr_assert(strstr(out, "cpu (f64), cuda (f32 bf16 f16); one head"), "logt list shows sru's and gilr's f16: %s",
              out);
    cr_assert_eq(logt(NULL, "info"), 0);
    cr_assert_eq(logt(NULL, ""), 2);
    cr_assert_eq(logt(NULL, "frobnicate"), 2);
    EXPECT_ERR("unknown command 'frobnicate'");
    cr_assert_eq(logt(NULL, "run"), 2);
    EXPECT_ERR("run needs EXP_DIR");
}

/* A sweep writes every run, the summary, and the root attributes; a second
 * `logt run` skips everything. */
Test(runner, sweep_then_resume_skips_finished)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --set sweep.B=2,3"), 0, "%s", err);
    EXPECT_ERR("[8/8]");
    logt_store *st = open_results("results/local/tiny.h5");   /* the default place */
    cr_assert_eq(count_ok_runs(st), 8);
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 8);
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(rows[i].status, "ok");
        cr_assert_str_eq(rows[i].model, "lstm");
        cr_assert(rows[i].median_ms > 0 && rows[i].p10_ms <= rows[i].median_ms &&
                  rows[i].median_ms <= rows[i].p90_ms);
        cr_assert_eq(rows[i].tokens_per_s, rows[i].T * rows[i].B / (rows[i].median_ms * 1e-3));
        cr_assert(isnan(rows[i].final_loss));
        double *ms;
        int64_t nms;
        cr_assert_eq(logt_store_read(st, rows[i].run, "time_ms", &ms, &nms), LOGT_OK);
        cr_assert_eq(nms, 3);
        free(ms);
    }
    free(rows);
    char s[4096];
    cr_assert_eq(logt_store_root_str(st, "experiment_ini", s, sizeof s), LOGT_OK);
    cr_assert(strstr(s, "--set sweep.B=2,3") && strstr(s, "B = 2,3"), "%s", s);
    cr_assert_eq(logt_store_root_str(st, "git_commit", s, sizeof s), LOGT_OK);
    cr_assert_gt(strlen(s), 0);
    cr_assert_eq(logt_store_get_str(st, 0, "", "impl", s, sizeof s), LOGT_OK);
    cr_assert_gt(strlen(s), 0);
    logt_store_close(st);

    cr_assert_eq(logt(NULL, "run exp --backend cpu --set sweep.B=2,3"), 0, "%s", err);
    EXPECT_ERR("8 already in results/local/tiny.h5 (skipped), 0 to run");
    /* a different point of the sweep is a new run, the rest is kept */
    cr_assert_eq(logt(NULL, "run exp --backend cpu --set sweep.B=2,3,5"), 0, "%s", err);
    EXPECT_ERR("8 already in results/local/tiny.h5 (skipped), 4 to run");
    st = open_results("results/local/tiny.h5");
    cr_assert_eq(count_ok_runs(st), 12);
    logt_store_close(st);
}

/* Killed after `killed` of `total` runs (experiment `ini`): those are kept, not run again
 * (their dataset `set`, timed again, would differ), and the rest is done. */
static void killed_sweep_resumes(const char *ini, int killed, int total, const char *set)
{
    write_at("exp/experiment.ini", ini);
    char env[64], msg[96];
    snprintf(env, sizeof env, "LOGT_TEST_DIE_AFTER_RUNS=%d", killed);
    cr_assert_eq(logt(env, "run exp --backend cpu --out r.h5"), 137, "%s", err);
    logt_store *st = open_results("r.h5");
    cr_assert_eq(count_ok_runs(st), killed);
    double *before[8];
    int64_t n;
    cr_assert(killed <= 8);
    for (int i = 0; i < killed; i++) cr_assert_eq(logt_store_read(st, i, set, &before[i], &n), LOGT_OK);
    logt_store_close(st);

    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    snprintf(msg, sizeof msg, "%d already in r.h5 (skipped), %d to run", killed, total - killed);
    EXPECT_ERR(msg);
    st = open_results("r.h5");
    cr_assert_eq(count_ok_runs(st), total);
    for (int i = 0; i < killed; i++) {
        double *after;
        cr_assert_eq(logt_store_read(st, i, set, &after, &n), LOGT_OK);
        cr_assert_eq(memcmp(after, before[i], 3 * sizeof(double)), 0, "run %d was redone", i);
        free(after);
        free(before[i]);
    }
    logt_summary_row *rows;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, total);
    free(rows);
    logt_store_close(st);
}

Test(runner, killed_sweep_loses_no_finished_run) { killed_sweep_resumes(speed_ini, 2, 4, "time_ms"); }

/* Killed mid-training: the rerun resumes from the last checkpoint and ends with
 * exactly the losses of an uninterrupted run. */
Test(runner, killed_training_resumes_from_checkpoint)
{
    write_at("exp/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 0, "%s", err);
    cr_assert_eq(logt("LOGT_TEST_DIE_AFTER_STEPS=25", "run exp --backend cpu --out cut.h5"), 137,
                 "%s", err);
    logt_store *st = open_results("cut.h5");
    int64_t id;
    logt_run_state state;
    const char *key;
    cr_assert_eq(logt_store_nruns(st), 1);
    logt_store_run_at(st, 0, &id, &key, &state);
    cr_assert_eq(state, LOGT_RUN_INTERRUPTED);
    int64_t latest, step;
    cr_assert_eq(logt_store_get_i64(st, id, "checkpoint", "latest", &latest), LOGT_OK, "%s", logt_errmsg());
    char slot[32];
    snprintf(slot, sizeof slot, "checkpoint/%lld", (long long)latest);
    cr_assert_eq(logt_store_get_i64(st, id, slot, "step", &step), LOGT_OK);
    cr_assert_eq(step, 20);
    logt_store_close(st);

    cr_assert_eq(logt(NULL, "run exp --backend cpu --out cut.h5"), 0, "%s", err);
    EXPECT_ERR("(resumed)");
    logt_store *a = open_results("whole.h5"), *b = open_results("cut.h5");
    static const char *const sets[] = {"loss", "grad_norm", "eval_step", "eval_loss"};
    for (int k = 0; k < 4; k++) cr_assert_eq(expect_same_set(a, b, sets[k]), k < 2 ? 40 : 4, "%s", sets[k]);
    logt_summary_row *ra, *rb;
    int64_t n;
    cr_assert_eq(logt_store_summary(a, &ra, &n), LOGT_OK);
    cr_assert_eq(logt_store_summary(b, &rb, &n), LOGT_OK);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(rb[0].status, "ok");
    cr_assert_eq(ra[0].final_loss, rb[0].final_loss);
    cr_assert_eq(ra[0].final_eval_loss, rb[0].final_eval_loss);
    cr_assert(isfinite(rb[0].final_loss));
    /* the finished run's test split: evaluated once, after the last step, equal in both */
    cr_assert(isfinite(ra[0].test_loss) && ra[0].test_loss > 0, "test_loss %g", ra[0].test_loss);
    cr_assert_eq(ra[0].test_loss, rb[0].test_loss);
    cr_assert(isnan(ra[0].test_acc), "adding is MSE: no accuracy, not %g", ra[0].test_acc);
    free(ra);
    free(rb);
    logt_store_close(a);
    logt_store_close(b);
}

static const char *const solve_ini =
    "[experiment]\n"
    "name = tinysolve\n"
    "models = lstm\n"
    "kind = train\n"
    "[train]\n"
    "task = 2b\n"
    "T = 6\n"
    "B = 16\n"
    "D = 8\n"
    "steps = 2000\n"
    "lr = 0.01\n"
    "eval_every = 25\n"
    "eval_batches = 2\n"
    "solve_acc = 0.95\n";

/* solve_acc: 2b at T = 6 is solved long before step 2000; the run stops at the first
 * evaluation at 95% validation accuracy, records that step and its training time, and is
 * tested once. Killed right after solving (its checkpoint at that step), the rerun does not
 * train on: it ends with the same step, time and test loss. */
Test(runner, solve_acc_stops_a_solved_run)
{
    write_at("exp/experiment.ini", solve_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out s.h5"), 0, "%s", err);
    EXPECT_ERR("solved at step");
    logt_store *st = open_results("s.h5");
    int64_t solved, n;
    cr_assert_eq(logt_store_get_i64(st, 0, "", "solve_step", &solved), LOGT_OK, "%s", logt_errmsg());
    cr_assert(solved > 0 && solved < 2000 && solved % 25 == 0, "solved at step %lld", (long long)solved);
    double *loss, *acc;
    cr_assert_eq(logt_store_read(st, 0, "loss", &loss, &n), LOGT_OK);
    cr_assert_eq(n, solved, "%lld steps recorded, solved at %lld", (long long)n, (long long)solved);
    cr_assert_eq(logt_store_read(st, 0, "eval_acc", &acc, &n), LOGT_OK);
    cr_assert(acc[n - 1] >= 0.95 && (n == 1 || acc[n - 2] < 0.95), "stopped at the first evaluation >= 0.95");
    logt_summary_row *rows;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert(rows[0].solve_s > 0 && isfinite(rows[0].test_loss), "solve_s %g, test_loss %g", rows[0].solve_s,
              rows[0].test_loss);
    const double solve_s = rows[0].solve_s, test_loss = rows[0].test_loss;
    free(loss), free(acc), free(rows);
    logt_store_close(st);

    char die[64];
    snprintf(die, sizeof die, "LOGT_TEST_DIE_AFTER_STEPS=%lld", (long long)solved);
    cr_assert_eq(logt(die, "run exp --backend cpu --out k.h5"), 137, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out k.h5"), 0, "%s", err);
    st = open_results("k.h5");
    int64_t again;
    cr_assert_eq(logt_store_get_i64(st, 0, "", "solve_step", &again), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(again, solved);
    cr_assert_eq(logt_store_read(st, 0, "loss", &loss, &n), LOGT_OK);
    cr_assert_eq(n, solved, "the resumed run trained on: %lld steps", (long long)n);
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(rows[0].test_loss, test_loss);
    double *wall;   /* the time to solve is the killed session's, read back from its evaluation */
    cr_assert_eq(logt_store_read(st, 0, "eval_wall_s", &wall, &n), LOGT_OK);
    cr_assert_eq(rows[0].solve_s, wall[n - 1], "solve_s %g, the solving evaluation's time %g (first run %g)",
                 rows[0].solve_s, wall[n - 1], solve_s);
    free(loss), free(rows), free(wall);
    logt_store_close(st);
    cr_assert_neq(logt(NULL, "run exp --backend cpu --out bad.h5 --set train.solve_acc=1.5"), 0);
    EXPECT_ERR("solve_acc = 1.5");
}

static const char *const curriculum_ini =
    "[experiment]\n"
    "name = tinycurriculum\n"
    "models = lstm\n"
    "kind = train\n"
    "[train]\n"
    "task = 2b\n"
    "T = 24\n"
    "B = 16\n"
    "D = 8\n"
    "steps = 3000\n"
    "lr = 0.01\n"
    "eval_every = 25\n"
    "eval_batches = 2\n"
    "solve_acc = 0.95\n"
    "curriculum = 6, 12, 48\n";

/* curriculum: the run trains at T = 6 until an evaluation there reaches solve_acc, then at
 * 12, then at its own 24 (48 is not below 24: not a stage of this run), and is solved only at
 * 24; eval_T says where each evaluation was. Killed just after the first stage ended, the
 * rerun resumes at T = 12 from the checkpoint and ends with the very curve of the whole run.
 * A run whose steps end at the evaluation that solves T = 6 stops there, untested. */
Test(runner, curriculum_trains_shorter_lengths_first_and_resumes_in_its_stage)
{
    write_at("exp/experiment.ini", curriculum_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 0, "%s", err);
    EXPECT_ERR("(T = 6 solved: now T = 12)");
    EXPECT_ERR("(T = 12 solved: now T = 24)");
    logt_store *a = open_results("whole.h5");
    int64_t id, n, ne, solved, reached;
    logt_run_state state;
    const char *key;
    logt_store_run_at(a, 0, &id, &key, &state);
    cr_assert(strstr(key, " curriculum=6,12") && !strstr(key, "curriculum=6,12,"),
              "the key names the stages below T only: %s", key);
    cr_assert_eq(logt_store_get_i64(a, id, "", "solve_step", &solved), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_get_i64(a, id, "", "curriculum_T", &reached), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(reached, 24);
    double *evT, *acc, *at;
    cr_assert_eq(logt_store_read(a, id, "eval_T", &evT, &ne), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_store_read(a, id, "eval_acc", &acc, &n), LOGT_OK);
    cr_assert_eq(n, ne);
    cr_assert_eq(logt_store_read(a, id, "eval_step", &at, &n), LOGT_OK);
    int64_t switch_step = -1;
    for (int64_t i = 0; i < ne; i++) {
        cr_assert(evT[i] == 6 || evT[i] == 12 || evT[i] == 24, "eval_T[%lld] = %g", (long long)i, evT[i]);
        if (i > 0) {
            cr_assert(evT[i] >= evT[i - 1], "eval_T goes back at %lld", (long long)i);
            /* a stage ends exactly at an evaluation of it that reached solve_acc */
            cr_assert_eq(evT[i] != evT[i - 1], acc[i - 1] >= 0.95 && evT[i - 1] < 24, "evaluation %lld",
                         (long long)i);
        }
        if (switch_step < 0 && evT[i] == 12) switch_step = (int64_t)at[i - 1];
        /* solved only at the run's own T: every earlier evaluation at 24 is below the bar */
        if (evT[i] == 24 && i < ne - 1) cr_assert(acc[i] < 0.95);
    }
    cr_assert(evT[0] == 6 && evT[ne - 1] == 24 && acc[ne - 1] >= 0.95 && (int64_t)at[ne - 1] == solved,
              "first at 6, solved at 24 at step %lld", (long long)solved);
    cr_assert(switch_step > 0);
    free(evT), free(acc), free(at);

    char die[64];
    snprintf(die, sizeof die, "LOGT_TEST_DIE_AFTER_STEPS=%lld", (long long)switch_step + 10);
    cr_assert_eq(logt(die, "run exp --backend cpu --out cut.h5"), 137, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out cut.h5"), 0, "%s", err);
    EXPECT_ERR("(resumed)");
    logt_store *b = open_results("cut.h5");
    static const char *const sets[] = {"loss", "grad_norm", "eval_step", "eval_loss", "eval_T"};
    for (int k = 0; k < 5; k++) expect_same_set(a, b, sets[k]);
    logt_summary_row *ra, *rb;
    cr_assert_eq(logt_store_summary(a, &ra, &n), LOGT_OK);
    cr_assert_eq(logt_store_summary(b, &rb, &n), LOGT_OK);
    cr_assert_eq(ra[0].test_loss, rb[0].test_loss);
    free(ra), free(rb);
    logt_store_close(a);
    logt_store_close(b);

    /* steps end at the evaluation that solves T = 6: the run stops short of its T, untested */
    char steps[64];
    snprintf(steps, sizeof steps, "run exp --backend cpu --out short.h5 --set train.steps=%lld", (long long)switch_step);
    cr_assert_eq(logt(NULL, steps), 0, "%s", err);
    EXPECT_ERR("(curriculum at T = 6: no test)");
    logt_store *c = open_results("short.h5");
    cr_assert_eq(logt_store_get_i64(c, 0, "", "curriculum_T", &reached), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(reached, 6);
    cr_assert_eq(logt_store_summary(c, &ra, &n), LOGT_OK);
    cr_assert(isnan(ra[0].test_loss) && isnan(ra[0].final_eval_acc), "test %g, final acc %g at a shorter T",
              ra[0].test_loss, ra[0].final_eval_acc);
    free(ra);
    logt_store_close(c);

    cr_assert_neq(logt(NULL, "run exp --backend cpu --out bad.h5 --set train.solve_acc=0"), 0);
    EXPECT_ERR("needs solve_acc");
    cr_assert_neq(logt(NULL, "run exp --backend cpu --out bad.h5 --set train.curriculum=12,6"), 0);
    EXPECT_ERR("the lengths must increase");
    cr_assert_neq(logt(NULL, "run exp --backend cpu --out mse.h5 --set train.task=adding"), 0);
    EXPECT_ERR("has no accuracy");
}

/* max_train_s: a run whose training time reaches the budget stops there, is evaluated at
 * that step (its last point known) and tested, records the step, and keeps its checkpoint;
 * the steps it took fit the budget (the last one crossed it). Run again under no budget it
 * continues from there and ends with the very curve of a run never stopped, and then keeps
 * no checkpoint. A budget that nothing reaches changes nothing. */
Test(runner, max_train_s_stops_a_run_and_a_larger_budget_continues_it, .timeout = 90)   /* ~20 s alone: 4 trainings */
{
    write_at("exp/experiment.ini", solve_ini);
    const char *base = "run exp --backend cpu --set train.solve_acc=0 --set train.T=32";   /* 2000 steps */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --out b.h5 --set train.max_train_s=0.05", base);
    cr_assert_eq(logt(NULL, cmd), 0, "%s", err);
    EXPECT_ERR("stopped by max_train_s");
    logt_store *st = open_results("b.h5");
    int64_t at, n;
    cr_assert_eq(logt_store_get_i64(st, 0, "", "budget_stop_step", &at), LOGT_OK, "%s", logt_errmsg());
    cr_assert(at > 0 && at < 2000, "stopped at step %lld", (long long)at);
    double *wall, *ev;
    cr_assert_eq(logt_store_read(st, 0, "wall_s", &wall, &n), LOGT_OK);
    cr_assert_eq(n, at, "%lld steps recorded, stopped at %lld", (long long)n, (long long)at);
    cr_assert(wall[n - 1] >= 0.05 && (n == 1 || wall[n - 2] < 0.05), "the last step crossed the budget: %g, %g",
              n > 1 ? wall[n - 2] : 0.0, wall[n - 1]);
    cr_assert_eq(logt_store_read(st, 0, "eval_step", &ev, &n), LOGT_OK);
    cr_assert_eq((int64_t)ev[n - 1], at, "evaluated at the stopping step");
    logt_summary_row *rows;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert(isfinite(rows[0].test_loss) && isnan(rows[0].solve_s), "test_loss %g", rows[0].test_loss);
    cr_assert(logt_store_has(st, 0, "checkpoint", "latest"), "a run its budget stopped keeps its checkpoint");
    free(wall), free(ev), free(rows);
    logt_store_close(st);

    snprintf(cmd, sizeof cmd, "%s --out b.h5 --set train.max_train_s=0.05", base);   /* the same budget: done */
    cr_assert_eq(logt(NULL, cmd), 0, "%s", err);
    EXPECT_ERR("1 already in b.h5 (skipped), 0 to run");
    snprintf(cmd, sizeof cmd, "%s --out b.h5", base);   /* no budget: it continues */
    cr_assert_eq(logt(NULL, cmd), 0, "%s", err);
    EXPECT_ERR("(resumed)");
    snprintf(cmd, sizeof cmd, "%s --out c.h5", base);   /* never stopped */
    cr_assert_eq(logt(NULL, cmd), 0, "%s", err);
    EXPECT_ERR("compacted");   /* its checkpoint removed, the file gets the space back */
    logt_store *b = open_results("b.h5"), *c = open_results("c.h5");
    double *lb, *lc;
    int64_t nb, nc;
    cr_assert_eq(logt_store_read(b, 0, "loss", &lb, &nb), LOGT_OK);
    cr_assert_eq(logt_store_read(c, 0, "loss", &lc, &nc), LOGT_OK);
    cr_assert_eq(nb, 2000);
    cr_assert_eq(nc, 2000);
    for (int64_t i = 0; i < nb; i++) cr_assert_eq(lb[i], lc[i], "loss[%lld]: %.17g, never stopped %.17g", (long long)i, lb[i], lc[i]);
    cr_assert_eq(logt_store_get_i64(b, 0, "", "budget_stop_step", &at), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(at, -1, "continued to its last step");
    cr_assert(!logt_store_has(b, 0, "checkpoint", NULL), "a run finished to its last step keeps no checkpoint");
    cr_assert(!logt_store_has(c, 0, "checkpoint", NULL));
    logt_summary_row *rb, *rc;
    cr_assert_eq(logt_store_summary(b, &rb, &nb), LOGT_OK);
    cr_assert_eq(logt_store_summary(c, &rc, &nc), LOGT_OK);
    cr_assert_eq(nb, 1, "the continued run's summary row was replaced, not added");
    cr_assert_eq(rb[0].test_loss, rc[0].test_loss);
    free(lb), free(lc), free(rb), free(rc);
    logt_store_close(b);
    logt_store_close(c);

    snprintf(cmd, sizeof cmd, "%s --out d.h5 --set train.max_train_s=1000 --set train.steps=30", base);
    cr_assert_eq(logt(NULL, cmd), 0, "%s", err);
    st = open_results("d.h5");
    cr_assert_eq(logt_store_get_i64(st, 0, "", "budget_stop_step", &at), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(at, -1);
    cr_assert_eq(logt_store_read(st, 0, "wall_s", &wall, &n), LOGT_OK);
    cr_assert_eq(n, 30);
    free(wall);
    logt_store_close(st);
}

/* keep_checkpoint = false: a run its budget stopped keeps no checkpoint, so a larger budget
 * finds nothing to continue and skips it, and the file is compacted when the sweep ends. */
Test(runner, keep_checkpoint_false_drops_a_budget_stopped_runs_state)
{
    write_at("exp/experiment.ini", solve_ini);
    const char *base = "run exp --backend cpu --set train.solve_acc=0 --set train.T=32";   /* 2000 steps */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --out k.h5 --set train.max_train_s=0.05 --set train.keep_checkpoint=false",
             base);
    cr_assert_eq(logt(NULL, cmd), 0, "%s", err);
    EXPECT_ERR("stopped by max_train_s");
    EXPECT_ERR("k.h5 compacted");
    logt_store *st = open_results("k.h5");
    int64_t at;
    cr_assert_eq(logt_store_get_i64(st, 0, "", "budget_stop_step", &at), LOGT_OK, "%s", logt_errmsg());
    cr_assert(at > 0 && at < 2000, "stopped at step %lld", (long long)at);
    cr_assert(!logt_store_has(st, 0, "checkpoint", NULL), "keep_checkpoint = false: no checkpoint kept");
    logt_store_close(st);
    snprintf(cmd, sizeof cmd, "%s --out k.h5", base);   /* no budget now: nothing to continue from */
    cr_assert_eq(logt(NULL, cmd), 0, "%s", err);
    EXPECT_ERR("1 already in k.h5 (skipped), 0 to run");
    snprintf(cmd, sizeof cmd, "%s --out k.h5 --set train.keep_checkpoint=maybe", base);
    cr_assert_eq(logt(NULL, cmd), 1, "%s", err);
    EXPECT_ERR("bad value 'maybe' for keep_checkpoint: expected true or false");
}

/* [train] readout: host or gpu; anything else is a configuration error, and gpu on a cpu
 * model fails the run with what it takes. */
Test(runner, readout_host_or_gpu)
{
    write_at("exp/experiment.ini", solve_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set train.readout=fast"), 1, "%s", err);
    EXPECT_ERR("[train] readout = 'fast': host (f64, the default) or gpu");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set train.readout=gpu --set train.steps=3"), 1,
                 "%s", err);
    EXPECT_ERR("the readout on the GPU takes a cuda f32 model, not cpu f64");
}

static const char *const charlm_ini =
    "[experiment]\n"
    "name = tinycharlm\n"
    "models = lstm\n"
    "kind = train\n"
    "[train]\n"
    "task = charlm\n"
    "T = 8\n"
    "B = 2\n"
    "D = 4\n"
    "steps = 6\n"
    "eval_every = 3\n"
    "eval_batches = 2\n";

/* charlm reports bits per character: at each evaluation eval_bpc = eval_loss / ln 2,
 * and final_eval_bpc is the last; a task that does not (adding) has neither. The
 * dataset reads the made-up text of tests/fixtures (the tests run from the root). */
Test(runner, charlm_records_bits_per_character)
{
    char root[512], env[600];
    cr_assert_not_null(getcwd(root, sizeof root));
    cr_assert_eq(access("tests/fixtures/fortunes.txt", R_OK), 0, "no tests/fixtures in %s: run from the root", root);
    snprintf(env, sizeof env, "LOGT_DATA_DIR='%s/tests/fixtures'", root);
    write_at("exp/experiment.ini", charlm_ini);
    cr_assert_eq(logt(env, "run exp --backend cpu --out c.h5"), 0, "%s", err);
    EXPECT_ERR("bpc");
    logt_store *st = open_results("c.h5");
    double *loss, *bpc, final;
    int64_t nl, nb;
    cr_assert_eq(logt_store_read(st, 0, "eval_loss", &loss, &nl), LOGT_OK);
    cr_assert_eq(logt_store_read(st, 0, "eval_bpc", &bpc, &nb), LOGT_OK);
    cr_assert_eq(nl, 2, "evaluations at steps 3 and 6");
    cr_assert_eq(nb, nl);
    for (int64_t i = 0; i < nl; i++) {
        cr_assert_float_eq(bpc[i], loss[i] / log(2.0), 1e-12, "evaluation %lld", (long long)i);
        /* a few steps from a random start: near log2 96 = 6.58 bits, uniform guessing */
        cr_assert(bpc[i] > 5 && bpc[i] < 8, "bpc %g after %lld steps", bpc[i], (long long)(3 * i + 3));
    }
    cr_assert_eq(logt_store_get_f64(st, 0, "", "final_eval_bpc", &final), LOGT_OK, "%s", logt_errmsg());
    cr_assert_float_eq(final, bpc[nb - 1], 1e-12);
    free(loss), free(bpc);
    logt_store_close(st);

    write_at("exp/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out a.h5"), 0, "%s", err);
    st = open_results("a.h5");
    cr_assert_eq(logt_store_read(st, 0, "eval_bpc", &bpc, &nb), LOGT_OK);
    cr_assert_eq(nb, 0, "adding has no eval_bpc");
    free(bpc);
    cr_assert(!logt_store_has(st, 0, "", "final_eval_bpc"));
    logt_store_close(st);
}

/* A run that failed after a checkpoint, retried, and killed before the retry's first
 * checkpoint, then run again: it starts afresh (no stale checkpoint) and ends like an
 * uninterrupted run. */
Test(runner, retried_run_killed_early_restarts_cleanly)
{
    write_at("exp/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 0, "%s", err);
    cr_assert_eq(logt("LOGT_TEST_FAIL_AFTER_STEPS=25", "run exp --backend cpu --out r.h5"), 1, "%s", err);
    EXPECT_ERR("injected by LOGT_TEST_FAIL_AFTER_STEPS");
    cr_assert_eq(logt("LOGT_TEST_DIE_AFTER_STEPS=5", "run exp --backend cpu --out r.h5 --retry-failed"),
                 137, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    logt_store *a = open_results("whole.h5"), *b = open_results("r.h5");
    cr_assert_eq(logt_store_nruns(b), 1);
    double *va, *vb;
    int64_t na, nb;
    cr_assert_eq(logt_store_read(a, 0, "loss", &va, &na), LOGT_OK);
    cr_assert_eq(logt_store_read(b, 0, "loss", &vb, &nb), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(nb, 40);
    for (int64_t i = 0; i < na; i++) cr_assert_eq(va[i], vb[i], "loss[%lld]", (long long)i);
    free(va), free(vb);
    logt_store_close(a);
    logt_store_close(b);
}

/* A --set of [train] beats the file's [train.cpu] on the cpu; a --set of [train.cpu] beats both. */
Test(runner, set_beats_the_files_backend_section)
{
    char ini[1024];
    snprintf(ini, sizeof ini, "%s[train.cpu]\nT = 6\nsteps = 10\n", train_ini);
    write_at("exp/experiment.ini", ini);
    const struct { const char *args; int64_t T; } cases[] = {
        {"run exp --backend cpu --out a.h5", 6},
        {"run exp --backend cpu --out b.h5 --set train.T=10", 10},
        {"run exp --backend cpu --out c.h5 --set train.T=10 --set train.cpu.T=12", 12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(logt(NULL, cases[i].args), 0, "%s: %s", cases[i].args, err);
        char out[8];
        snprintf(out, sizeof out, "%c.h5", "abc"[i]);
        logt_store *st = open_results(out);
        int64_t T;
        cr_assert_eq(logt_store_get_i64(st, 0, "", "T", &T), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(T, cases[i].T, "%s: T = %lld", cases[i].args, (long long)T);
        logt_store_close(st);
    }
}

/* [speed] head_start_us is stored with each speed run and keeps runs with and without one
 * apart (a file's runs without one keep their keys: a rerun skips them). */
Test(runner, head_start_is_recorded_and_keys_runs_apart)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.T=4"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.T=4"), 0, "%s", err);
    EXPECT_ERR("0 to run");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.T=4 --set speed.head_start_us=300"),
                 0, "%s", err);
    EXPECT_ERR("2 to run");
    logt_store *st = open_results("r.h5");
    cr_assert_eq(logt_store_nruns(st), 4);
    for (int64_t id = 0; id < 4; id++) {
        int64_t us = -1;
        cr_assert_eq(logt_store_get_i64(st, id, "", "head_start_us", &us), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(us, id < 2 ? 0 : 300, "run %lld: head_start_us %lld", (long long)id, (long long)us);
    }
    logt_store_close(st);
    cr_assert_neq(logt(NULL, "run exp --backend cpu --out s.h5 --set speed.head_start_us=-5"), 0);
    EXPECT_ERR("head_start_us");
}

/* The same run twice in a sweep (training ignores input_size) is run and stored once. */
Test(runner, duplicate_sweep_points_run_once)
{
    write_at("exp/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.input_size=0,8"), 0, "%s", err);
    EXPECT_ERR("1 runs");
    logt_store *st = open_results("r.h5");
    cr_assert_eq(logt_store_nruns(st), 1);
    cr_assert_eq(count_ok_runs(st), 1);
    logt_store_close(st);
}

/* A run the model refuses is stored as failed with its message; the sweep goes on. */
Test(runner, failing_run_is_recorded_and_sweep_continues)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.T=4 --set sweep.head_dim=3,0"),
                 1, "%s", err);
    EXPECT_ERR("FAILED");
    EXPECT_ERR("lstm has one head: head_dim must be 0 or D = 4, not 3");
    EXPECT_ERR("2 of 4 runs failed");
    logt_store *st = open_results("r.h5");
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 4);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        char status[16], error[1024] = "";
        cr_assert_eq(logt_store_get_str(st, rows[i].run, "", "status", status, sizeof status), LOGT_OK);
        cr_assert_str_eq(status, rows[i].status);
        if (rows[i].head_dim == 3) {
            failed++;
            cr_assert_str_eq(status, "failed");
            cr_assert(isnan(rows[i].median_ms));
            cr_assert_eq(logt_store_get_str(st, rows[i].run, "", "error", error, sizeof error), LOGT_OK);
            cr_assert(strstr(error, "lstm has one head"), "%s", error);
        } else {
            cr_assert_str_eq(status, "ok");
        }
    }
    cr_assert_eq(failed, 2);
    free(rows);
    logt_store_close(st);

    /* failed runs are skipped, and redone (in place) with --retry-failed */
    const char *args = "run exp --backend cpu --out r.h5 --set sweep.T=4 --set sweep.head_dim=3,0";
    cr_assert_eq(logt(NULL, args), 1, "%s", err);
    EXPECT_ERR("0 to run");
    char retry[256];
    snprintf(retry, sizeof retry, "%s --retry-failed", args);
    cr_assert_eq(logt(NULL, retry), 1, "%s", err);
    EXPECT_ERR("2 to run");
    st = open_results("r.h5");
    cr_assert_eq(logt_store_nruns(st), 4);
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 4);
    free(rows);
    logt_store_close(st);

    /* and the plot leaves them out (the .gp is written with or without gnuplot); the
     * figures take the results file's name: r.h5 -> plots/r-NAME */
    int rc = logt(NULL, "plot exp --in r.h5");
    cr_assert(rc == 0 || (rc == 1 && strstr(err, "gnuplot-nox")), "%s", err);
    char gp[8192];
    read_at("plots/r-speed.gp", gp, sizeof gp);
    cr_assert(strstr(gp, "$data << EOD"), "%s", gp);
    int points = 0;   /* data lines: the two ok runs only */
    for (const char *p = strstr(gp, "$data << EOD\n"); p && strncmp(p, "EOD\n", 4); p = strchr(p, '\n') + 1)
        points += p[0] >= '0' && p[0] <= '9';
    cr_assert_eq(points, 2, "failed runs were plotted:\n%s", gp);
}

Test(runner, plot_writes_gp_png_svg)
{
    write_at("exp/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --set train.steps=12"), 0, "%s", err);
    int rc = logt(NULL, "plot exp");
    char gp[65536];
    read_at("plots/local/tinytrain-loss.gp", gp, sizeof gp);
    cr_assert(strstr(gp, "$data << EOD") && strstr(gp, "EOD\n") && strstr(gp, "set terminal pngcairo") &&
              strstr(gp, "set terminal svg"), "%s", gp);
    cr_assert(strstr(gp, "\n12 "), "the curve should reach step 12:\n%s", gp);
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {   /* as the runner looks: on PATH */
        cr_assert_eq(rc, 1);
        EXPECT_ERR("gnuplot-nox");
        return;
    }
    cr_assert_eq(rc, 0, "%s", err);
    struct stat sb;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/plots/local/tinytrain-loss.png", dir);
    cr_assert(stat(path, &sb) == 0 && sb.st_size > 1000, "no PNG at %s", path);
    snprintf(path, sizeof path, "%s/plots/local/tinytrain-loss.svg", dir);
    cr_assert(stat(path, &sb) == 0 && sb.st_size > 1000, "no SVG at %s", path);
    /* the script re-renders on its own, from anywhere */
    snprintf(path, sizeof path, "cd '%s/plots/local' && rm tinytrain-loss.png && gnuplot tinytrain-loss.gp "
             "&& test -s tinytrain-loss.png", dir);
    cr_assert_eq(system(path), 0);
}

/* ---- bad input -------------------------------------------------------------------------- */

static void expect_config_error(const char *ini, const char *message)
{
    write_at("bad/experiment.ini", ini);
    cr_assert_eq(logt(NULL, "run bad --backend cpu --out r.h5"), 1, "%s", err);
    EXPECT_ERR("logt: error: ");
    EXPECT_ERR(message);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/r.h5", dir);
    cr_assert_neq(access(path, F_OK), 0, "a results file was made for a bad experiment");
}

Test(runner, zero_T)
{
    expect_config_error("[experiment]\nmodels = lstm\n[sweep]\nT = 16, 0\n",
                        "bad/experiment.ini:4: bad value '0' for T: expected positive integers");
}

Test(runner, unknown_model)
{
    expect_config_error("[experiment]\nmodels = lstm, gru\n",
                        "bad/experiment.ini:2: unknown model 'gru' (known: lstm, lstm-cudnn");
}

Test(runner, unknown_key_with_line)
{
    expect_config_error("[experiment]\nmodels = lstm\n\n; a comment\n[sweep]\nT = 4\nfoo = 3\n",
                        "bad/experiment.ini:7: unknown key 'foo' in [sweep] (known: T, B, D,");
}

Test(runner, unknown_section)
{
    expect_config_error("[experiment]\nmodels = lstm\n[swep]\nT = 4\n",
                        "bad/experiment.ini:4: unknown section [swep]");
}

Test(runner, bad_values)
{
    expect_config_error("[experiment]\nmodels = lstm\n[sweep]\npass = backward\n",
                        "experiment.ini:4: bad value 'backward' for pass: expected forward or fwdbwd");
    expect_config_error("[experiment]\nmodels = lstm\n[sweep]\ndtype = f8\n",
                        "bad value 'f8' for dtype: expected f64, f32, bf16 or f16");
    expect_config_error("[experiment]\nmodels = lstm\n[train]\nlr = -1\n",
                        "bad value '-1' for lr: expected a positive number");
    expect_config_error("[experiment]\nmodels = lstm\nbackend = gpu\n",
                        "bad value 'gpu' for backend: expected cpu, cuda or auto");
    expect_config_error("[experiment]\nmodels = lstm\n[plot.x]\ny = loss\nx = T\n",
                        "[plot.x] plots loss against T");
}

Test(runner, malformed_file)
{
    expect_config_error("[experiment]\nmodels = lstm\n[sweep\nT = 4\n",
                        "bad/experiment.ini:3: syntax error");
    expect_config_error("[experiment]\nmodels = lstm\n[sweep]\nT = 4\nT = 8\n",
                        "bad/experiment.ini:5: 'T' is set twice in [sweep]");
    expect_config_error("[experiment]\n", "[experiment] needs models = ...");
}

Test(runner, head_dim_the_model_refuses)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.head_dim=3 --set sweep.T=4 "
                            "--set sweep.pass=forward"), 1, "%s", err);
    EXPECT_ERR("lstm has one head: head_dim must be 0 or D = 4, not 3 (the models with heads: flashrnn)");
}

Test(runner, bad_command_line)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend gpu"), 2);
    EXPECT_ERR("--backend expects cpu, cuda or auto, got 'gpu'");
    cr_assert_eq(logt(NULL, "run exp --set T=4"), 2);
    EXPECT_ERR("--set expects SECTION.KEY=VALUE");
    cr_assert_eq(logt(NULL, "run exp --set sweep.T"), 2);
    EXPECT_ERR("--set expects SECTION.KEY=VALUE");
    cr_assert_eq(logt(NULL, "run exp --set sweep.Q=4"), 1);
    EXPECT_ERR("--set sweep.Q=4: unknown key 'Q' in [sweep]");
    cr_assert_eq(logt(NULL, "run exp --set sweep.T=-4"), 1);
    EXPECT_ERR("--set sweep.T=-4: bad value '-4' for T: expected positive integers");
    cr_assert_eq(logt(NULL, "run exp --frob"), 2);
    EXPECT_ERR("unknown option '--frob'");
    cr_assert_eq(logt(NULL, "run nowhere"), 1);
    EXPECT_ERR("no experiment at nowhere");
}

Test(runner, corrupt_results_file_is_refused_and_kept)
{
    write_at("exp/experiment.ini", speed_ini);
    const char *garbage = "these bytes are not HDF5, and must survive\n";
    write_at("results/local/tiny.h5", garbage);
    cr_assert_eq(logt(NULL, "run exp --backend cpu"), 1, "%s", err);
    EXPECT_ERR("results/local/tiny.h5 is not a valid HDF5 file");
    EXPECT_ERR("--out");
    char back[256];
    read_at("results/local/tiny.h5", back, sizeof back);
    cr_assert_str_eq(back, garbage);
}

Test(runner, results_of_another_experiment_are_refused)
{
    write_at("exp/experiment.ini", speed_ini);
    write_at("exp2/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.T=4 --set sweep.pass=forward"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run exp2 --backend cpu --out r.h5"), 1);
    EXPECT_ERR("r.h5 holds results of experiment 'tiny', not 'tinytrain'");
}

Test(runner, read_only_results_file_is_refused)
{
    write_at("exp/experiment.ini", speed_ini);
    const char *args = "run exp --backend cpu --out r.h5 --set sweep.T=4 --set sweep.pass=forward";
    cr_assert_eq(logt(NULL, args), 0, "%s", err);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/r.h5", dir);
    struct stat before, after;
    cr_assert_eq(chmod(path, 0444), 0);
    cr_assert_eq(stat(path, &before), 0);
    /* refused even for root, who could write it: mode 0444 marks results to keep */
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 1);
    EXPECT_ERR("results file r.h5 is read-only");
    cr_assert_eq(stat(path, &after), 0);
    cr_assert_eq(before.st_size, after.st_size);
    cr_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
                  before.st_mtim.tv_nsec == after.st_mtim.tv_nsec,
              "the read-only file was rewritten");
}

Test(runner, unwritable_directory_is_refused)
{
    write_at("exp/experiment.ini", speed_ini);
    char ro[PATH_MAX];
    snprintf(ro, sizeof ro, "%s/ro", dir);
    cr_assert_eq(mkdir(ro, 0555), 0);
    if (access(ro, W_OK) == 0) {
        /* root ignores directory permissions: a path below a regular file fails for anyone */
        cr_log_info("running as root: checking a directory that cannot exist instead of a read-only one");
        write_at("plainfile", "x\n");
        cr_assert_eq(logt(NULL, "run exp --backend cpu --out plainfile/r.h5"), 1);
        EXPECT_ERR("plainfile/r.h5");
        return;
    }
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out ro/r.h5"), 1);
    EXPECT_ERR("cannot create results file ro/r.h5: directory ro is not writable");
}

Test(runner, cuda_backend_without_gpu_is_an_error)
{
    write_at("exp/experiment.ini", speed_ini);
    if (system("nvidia-smi -L >/dev/null 2>&1") == 0) {
        cr_skip_test("a GPU is visible here");
    }
    cr_assert_eq(logt(NULL, "run exp --backend cuda --out r.h5"), 1);
    EXPECT_ERR("logt: error: ");
    EXPECT_ERR("--backend cpu");
    cr_assert_eq(logt(NULL, "run exp --backend auto --out r.h5 --set sweep.T=4 --set sweep.pass=forward"), 0,
                 "%s", err);
    EXPECT_ERR("tiny on cpu");
}

/* ---- kernel experiments ---------------------------------------------------------------- */

/* Checks shared by the CPU and GPU kernel runs: the row's measures are what they say. */
static void check_kernel_row(logt_store *st, const logt_summary_row *r, int arrays, size_t elem)
{
    cr_assert_str_eq(r->kind, "kernel");
    cr_assert_str_eq(r->status, "ok", "run %lld failed", (long long)r->run);
    double bytes = (double)arrays * r->T * r->B * r->D * elem;
    cr_assert_eq(r->bytes, bytes, "%s T=%lld: bytes %g, expected %g", r->model, (long long)r->T,
                 r->bytes, bytes);
    cr_assert(r->median_ms > 0 && r->p10_ms <= r->median_ms && r->median_ms <= r->p90_ms);
    cr_assert(fabs(r->gbps - bytes / r->median_ms * 1e-6) <= 1e-12 * r->gbps, "gbps %g", r->gbps);
    cr_assert(r->copy_gbps > 0 && isfinite(r->copy_gbps), "copy_gbps %g", r->copy_gbps);
    cr_assert(fabs(r->pct_of_copy - 100 * r->gbps / r->copy_gbps) <= 1e-12 * r->pct_of_copy);
    cr_assert(isnan(r->tokens_per_s) && isnan(r->final_loss));
    cr_assert_gt(strlen(r->impl), 0);
    double *ms, copy_median;
    int64_t n, C;
    cr_assert_eq(logt_store_read(st, r->run, "time_ms", &ms, &n), LOGT_OK);
    cr_assert_eq(n, 3);
    free(ms);
    cr_assert_eq(logt_store_read(st, r->run, "copy_ms", &ms, &n), LOGT_OK);
    cr_assert_eq(n, 3);
    free(ms);
    cr_assert_eq(logt_store_get_f64(st, r->run, "", "copy_median_ms", &copy_median), LOGT_OK);
    cr_assert(fabs(r->copy_gbps - 2.0 * r->T * r->B * r->D * elem / copy_median * 1e-6) <=
              1e-9 * r->copy_gbps);
    cr_assert_eq(logt_store_get_i64(st, r->run, "", "C", &C), LOGT_OK);
    cr_assert_eq(C, r->B * r->D);
}

/* A kernel experiment on the CPU (the f64 reference, memcpy as the copy) writes one row
 * per kernel and shape with bytes, gbps, copy_gbps and pct_of_copy, the kernels of one
 * shape next to each other; the new measures plot, and a baseline gives the speedup
 * whether y is a time or a rate. */
Test(runner, kernel_experiment_on_cpu)
{
    write_at("exp/experiment.ini", kernel_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    EXPECT_ERR("[8/8]");
    EXPECT_ERR("% of copy");
    logt_store *st = open_results("r.h5");
    cr_assert_eq(count_ok_runs(st), 8);
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 8);
    for (int i = 0; i < n; i++) {
        /* shape outside, kernel inside: scan, scan-serial, scan, scan-serial, ... */
        cr_assert_str_eq(rows[i].model, i % 2 ? "scan-serial" : "scan", "row %d", i);
        cr_assert_eq(rows[i].T, i < 4 ? 8 : 64);
        cr_assert_eq(rows[i].D, i % 4 < 2 ? 1 : 3);
        cr_assert_str_eq(rows[i].dtype, "f64");
        cr_assert(strstr(rows[i].impl, "cpu f64 reference"), "%s", rows[i].impl);
        check_kernel_row(st, &rows[i], 3, 8);
    }
    free(rows);
    char s[256];
    cr_assert_eq(logt_store_get_str(st, 0, "", "key", s, sizeof s), LOGT_OK);
    cr_assert_str_eq(s, "kernel model=scan backend=cpu T=8 B=4 D=1 dtype=f64 seed=1 warmup=1 repeats=3");
    logt_store_close(st);

    int rc = logt(NULL, "plot exp --in r.h5");
    cr_assert(rc == 0 || (rc == 1 && strstr(err, "gnuplot-nox")), "%s", err);
    char pct[4096], speedup[4096], rate[4096];
    gp_data("plots/r-pct.gp", pct, sizeof pct);
    int points = 0;
    for (const char *p = pct; (p = strchr(p, '\n')); p++) points++;
    cr_assert_eq(points, 8, "pct_of_copy: one point per run:\n%s", pct);
    /* serial time / scan time == scan rate / serial rate: the same bytes in both */
    gp_data("plots/r-speedup.gp", speedup, sizeof speedup);
    gp_data("plots/r-rate.gp", rate, sizeof rate);
    cr_assert_gt(strlen(speedup), 0);
    int k = 0;
    for (const char *p = speedup, *q = rate; *p && *q; k++) {
        double xp, yp, xq, yq;
        cr_assert_eq(sscanf(p, "%lf %lf", &xp, &yp), 2);
        cr_assert_eq(sscanf(q, "%lf %lf", &xq, &yq), 2);
        cr_assert(xp == xq && fabs(yp - yq) <= 1e-8 * yp,
                  "gbps against the baseline is not the speedup:\n%s\nvs\n%s", rate, speedup);
        p = strchr(p, '\n') + 1;
        q = strchr(q, '\n') + 1;
    }
    cr_assert_eq(k, 4, "one speedup per shape:\n%s", speedup);

    /* the backward scan moves a, h, dh in and da, db out: 5 arrays */
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set experiment.models=scan-backward"),
                 0, "%s", err);
    st = open_results("r.h5");
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 12);
    for (int i = 8; i < n; i++) {
        cr_assert_str_eq(rows[i].model, "scan-backward");
        check_kernel_row(st, &rows[i], 5, 8);
    }
    free(rows);
    logt_store_close(st);
}

/* Kernel runs resume like the others; a third run has nothing left to do. */
Test(runner, kernel_runs_resume)
{
    killed_sweep_resumes(kernel_ini, 3, 8, "copy_ms");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    EXPECT_ERR("8 already in r.h5 (skipped), 0 to run");
}

/* A sweep key in a kernel's [model.M] limits M to the values listed, as for the other kinds:
 * the peer (tests/peers/stub.py, stored as skipped: no Python named) at one shape only, scan at
 * all four. */
Test(runner, kernel_model_section_limits_its_sweep)
{
    const char *models = strstr(kernel_ini, "scan, scan-serial");
    cr_assert(models);
    char ini[2048], peers[PATH_MAX + 16];
    snprintf(ini, sizeof ini, "%.*sscan, peer:stub%s\n[model.peer:stub]\nT = 64\nD = 3\n",
             (int)(models - kernel_ini), kernel_ini, models + strlen("scan, scan-serial"));
    write_at("exp/experiment.ini", ini);
    repo_path(peers, sizeof peers, "tests/peers");
    setenv("LOGT_PEERS", peers, 1);
    setenv("LOGT_PYTHON", "/nonexistent/python3", 1);
    const int rc = logt(NULL, "run exp --backend cpu --out r.h5");
    unsetenv("LOGT_PYTHON"), unsetenv("LOGT_PEERS");
    cr_assert_eq(rc, 0, "%s", err);
    EXPECT_ERR("[5/5]");
    EXPECT_ERR("peer:stub T=64 C=12 (B=4 D=3)");
}

/* The CPU kernels are the f64 reference: another dtype there fails the run, saying what to set. */
Test(runner, kernel_dtype_on_cpu_must_be_f64)
{
    write_at("exp/experiment.ini", kernel_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set kernel.T=8 --set kernel.D=1 "
                            "--set kernel.dtype=f32"), 1, "%s", err);
    EXPECT_ERR("FAILED: kernel scan on the cpu is the float64 reference, not f32: set dtype = f64");
    EXPECT_ERR("2 of 2 runs failed");
}

Test(runner, bad_kernel_names)
{
    expect_config_error("[experiment]\nkind = kernel\nmodels = scan, scna\n",
                        "bad/experiment.ini:3: unknown kernel 'scna' (kind = kernel; known kernels: "
                        "scan, scan-reverse, scan-serial, scan-serial-u8, scan-backward, sru-recurrence; or * for all)");
    expect_config_error("[experiment]\nmodels = lstm\nkind = kernel\n",
                        "bad/experiment.ini:2: unknown kernel 'lstm' (kind = kernel; known kernels: "
                        "scan, ");
    EXPECT_ERR("It is a model: time it with kind = speed");
    expect_config_error("[experiment]\nmodels = scan\n", "bad/experiment.ini:2: unknown model 'scan'");
    EXPECT_ERR("It is a kernel: time it with kind = kernel");
    expect_config_error("[experiment]\nkind = speed, kernel\nmodels = scan\n",
                        "bad/experiment.ini:2: kind = kernel stands alone");
    expect_config_error("[experiment]\nkind = kernel\n", "[experiment] needs models = ... (known "
                        "kernels: scan, scan-reverse, scan-serial, scan-serial-u8, scan-backward, sru-recurrence");
    write_at("exp/experiment.ini", kernel_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set experiment.models=scan,scna"), 1);
    EXPECT_ERR("--set experiment.models=scan,scna: unknown kernel 'scna'");
}

Test(runner, list_shows_kernels)
{
    cr_assert_eq(logt(NULL, "list"), 0);
    char out[8192];
    read_at("stdout.txt", out, sizeof out);
    cr_assert(strstr(out, "kernels (for kind = kernel experiments)") && strstr(out, "scan-serial"),
              "%s", out);
}

/* ---- paired sweep keys (zip) ----------------------------------------------------------- */

/* zip = T, B walks T and B together; the other keys are still crossed with the pairs. */
Test(runner, zip_pairs_sweep_keys)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.T=4,8,6 --set sweep.B=2,3,1 "
                            "--set sweep.zip=T,B"), 0, "%s", err);
    EXPECT_ERR("6 runs");
    logt_store *st = open_results("r.h5");
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 6);
    static const int T[] = {4, 4, 8, 8, 6, 6}, B[] = {2, 2, 3, 3, 1, 1};
    for (int i = 0; i < n; i++) {
        cr_assert_eq(rows[i].T, T[i], "row %d", i);
        cr_assert_eq(rows[i].B, B[i], "row %d", i);
        cr_assert_str_eq(rows[i].pass, i % 2 ? "fwdbwd" : "forward");
    }
    free(rows);
    logt_store_close(st);

    /* kernels: four (C, T) shapes as (B, T) pairs with D = 1, crossed with two seeds */
    write_at("k/experiment.ini", kernel_ini);
    cr_assert_eq(logt(NULL, "run k --backend cpu --out k.h5 --set experiment.models=scan "
                            "--set kernel.T=8,16,32,64 --set kernel.B=64,16,4,1 --set kernel.D=1 "
                            "--set kernel.zip=B,T --set sweep.seed=1,2"), 0, "%s", err);
    st = open_results("k.h5");
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 8);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(rows[i].T * rows[i].B, i < 2 ? 512 : i < 4 ? 256 : i < 6 ? 128 : 64, "row %d", i);
        cr_assert_eq(rows[i].seed, (uint64_t)(i % 2 + 1));
    }
    free(rows);
    logt_store_close(st);
}

Test(runner, zip_errors)
{
    expect_config_error("[experiment]\nmodels = lstm\n[sweep]\nT = 4, 8\nB = 2\nzip = T, B\n",
                        "bad/experiment.ini:6: zip = T, B walks its keys together, so their lists "
                        "need one length, but T has 2 values and B has 1 (speed runs on cpu)");
    expect_config_error("[experiment]\nmodels = lstm\n[sweep]\nzip = T, Q\n",
                        "bad/experiment.ini:4: bad value 'Q' for zip: expected T, B, D, input_size,");
    expect_config_error("[experiment]\nmodels = lstm\n[sweep]\nzip = T\n",
                        "bad value 'T' for zip: expected two or more sweep keys to walk together");
    expect_config_error("[experiment]\nmodels = lstm\n[sweep]\nzip = T, B, T\n",
                        "expected sweep keys named once each");
    /* a kind's own lists are the ones that must match */
    expect_config_error("[experiment]\nmodels = scan\nkind = kernel\n[sweep]\nT = 4, 8\nB = 2, 3\n"
                        "zip = T, B\n[kernel]\nB = 1\n",
                        "T has 2 values and B has 1 (kernel runs on cpu)");
}

/* ---- kernel experiments on a GPU -------------------------------------------------------- */

Test(runner, kernel_experiment_on_cuda)
{
    SKIP_WITHOUT_GPU("kernel runs on cuda");
    write_at("exp/experiment.ini", kernel_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cuda --out r.h5 --set kernel.dtype=f32,bf16 "
                            "--set experiment.models=scan,scan-reverse,scan-serial,scan-backward"),
                 0, "%s", err);
    logt_store *st = open_results("r.h5");
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 32);
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(rows[i].backend, "cuda");
        cr_assert(strstr(rows[i].impl, "scan_"), "%s", rows[i].impl);
        int backward = !strcmp(rows[i].model, "scan-backward");
        check_kernel_row(st, &rows[i], backward ? 5 : 3, !strcmp(rows[i].dtype, "bf16") ? 2 : 4);
    }
    free(rows);
    logt_store_close(st);
}

/* A model's per-call series (deer: the residual of each Newton iteration) and its detail
 * go into the run's group. */
Test(runner, model_trace_and_detail_are_recorded)
{
    write_at("exp/experiment.ini",
             "[experiment]\nname = newton\nmodels = deer\nkind = speed\n\n"
             "[sweep]\nT = 30\nB = 2\nD = 3\ninput_size = 2\npass = forward\n\n"
             "[speed]\nwarmup = 0\nrepeats = 2\n\n[model.deer]\nmode = full, quasi\n");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    logt_store *st = open_results("r.h5");
    cr_assert_eq(count_ok_runs(st), 2);
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    for (int i = 0; i < n; i++) {
        double *res;
        int64_t nres;
        cr_assert_eq(logt_store_read(st, rows[i].run, "newton_residual", &res, &nres), LOGT_OK,
                     "%s", logt_errmsg());
        cr_assert(nres >= 2 && res[nres - 1] <= 1e-10 && res[0] > res[nres - 1],
                  "run %lld: %lld residuals, last %g", (long long)rows[i].run, (long long)nres,
                  res[nres - 1]);
        cr_assert(logt_store_has(st, rows[i].run, "", "detail"), "run %lld has no detail",
                  (long long)rows[i].run);
        cr_assert_eq(rows[i].iterations, (double)(nres - 1), "the summary's iterations");
        free(res);
    }
    free(rows);
    logt_store_close(st);
}

/* A training run keeps the first layer's Newton iterations of every step's forward
 * (newton_iterations): numbers for deer, NaN for a model without a solver. */
Test(runner, training_records_newton_iterations)
{
    write_at("exp/experiment.ini",
             "[experiment]\nname = newton-train\nmodels = deer, lstm\nkind = train\n\n"
             "[sweep]\nseed = 1\n\n[train]\ntask = adding\nT = 12\nB = 4\nD = 3\nsteps = 6\n"
             "lr = 0.01\neval_every = 3\neval_batches = 1\n\n[model.deer]\nmode = full\n");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    logt_store *st = open_results("r.h5");
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 2);
    for (int i = 0; i < n; i++) {
        double *it;
        int64_t nit;
        cr_assert_eq(logt_store_read(st, rows[i].run, "newton_iterations", &it, &nit), LOGT_OK,
                     "%s", logt_errmsg());
        cr_assert_eq(nit, 6, "one value per step, not %lld", (long long)nit);
        const int deer = !strcmp(rows[i].model, "deer");
        for (int64_t k = 0; k < nit; k++)
            cr_assert(deer ? it[k] >= 1 && it[k] < 100 : isnan(it[k]), "%s step %lld: %g",
                      rows[i].model, (long long)k, it[k]);
        free(it);
    }
    free(rows);
    logt_store_close(st);
}
