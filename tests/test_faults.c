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
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* ---- the results file ------------------------------------------------------------------ */

/* Two short trainings: deterministic on the CPU, a checkpoint every 5 steps. */
static const char *const train_ini =
    "[experiment]\n"
    "name = two\n"
    "models = lstm\n"
    "kind = train\n"
    "[sweep]\n"
    "seed = 1, 2\n"
    "[train]\n"
    "task = adding\n"
    "T = 8\n"
    "B = 4\n"
    "D = 4\n"
    "steps = 15\n"
    "eval_every = 5\n"
    "eval_batches = 1\n"
    "test_batches = 1\n"
    "lr = 0.01\n";

static void read_file(const char *rel, char **buf, size_t *n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    *buf = malloc(*n + 1);
    cr_assert(*buf && fread(*buf, 1, *n, f) == *n);
    fclose(f);
}

static void write_file(const char *rel, const char *buf, size_t n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(buf, 1, n, f) == n);
    fclose(f);
}

static int exists(const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return access(path, F_OK) == 0;
}

/* The runs of rel with status ok, each with its whole loss curve equal to the same run's
 * in ref (same key); returns how many. */
static int ok_runs_match(const char *rel, const char *ref)
{
    logt_store *st = open_results(rel), *want = open_results(ref);
    int ok = 0;
    for (int i = 0; i < logt_store_nruns(st); i++) {
        int64_t id, wid;
        const char *key;
        logt_run_state state, wstate;
        logt_store_run_at(st, i, &id, &key, &state);
        logt_store_find(want, key, &wid, &wstate);
        cr_assert_geq(wid, 0, "%s: a run the uninterrupted sweep does not have: %s", rel, key);
        if (state != LOGT_RUN_OK) continue;
        double *a, *b;
        int64_t na, nb;
        cr_assert_eq(logt_store_read(st, id, "loss", &a, &na), LOGT_OK);
        cr_assert_eq(logt_store_read(want, wid, "loss", &b, &nb), LOGT_OK);
        cr_assert_eq(na, nb, "%s: run %s has %lld losses, not %lld", rel, key, (long long)na, (long long)nb);
        for (int64_t j = 0; j < na; j++) cr_assert_eq(a[j], b[j], "%s: %s loss[%lld]", rel, key, (long long)j);
        free(a), free(b);
        ok++;
    }
    logt_store_close(st);
    logt_store_close(want);
    return ok;
}

/* Finished runs the sweep reported on stderr before it stopped ("[k/2] ... loss"). */
static int reported_runs(void)
{
    int n = 0;
    for (const char *p = err; (p = strstr(p, "/2] lstm train")); p++) n++;
    return n;
}

/* A write that fails (a full disk, a quota) at the k-th commit of the file, for every k the
 * sweep has: the sweep stops with one message; the file holds every run reported finished,
 * whole; the same command then resumes it to the file an uninterrupted sweep writes. */
Test(faults, a_write_failing_at_any_point_loses_no_finished_run, .timeout = 180)
{
    write_at("exp/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 0, "%s", err);
    int k = 1;
    for (;; k++) {
        char env[64], args[128];
        snprintf(env, sizeof env, "LOGT_TEST_FAIL_WRITE=%d", k);
        snprintf(args, sizeof args, "run exp --backend cpu --out k%d.h5", k);
        char rel[32];
        snprintf(rel, sizeof rel, "k%d.h5", k);
        int rc = logt(env, args);
        if (rc == 0) break;   /* k is past the sweep's last commit */
        cr_assert_eq(rc, 1, "k = %d: %s", k, err);
        EXPECT_ERR("No space left on device");
        EXPECT_ERR("nothing in it is lost");
        EXPECT_ERR("run the same command again to resume");
        cr_assert(!strstr(err, "HDF5-DIAG"), "k = %d: %s", k, err);
        const int reported = reported_runs();
        if (k == 1) {   /* the new file's first commit: no file at all */
            cr_assert(!exists(rel), "k = 1 left a file");
        } else {
            cr_assert_geq(ok_runs_match(rel, "whole.h5"), reported, "k = %d: a finished run was lost", k);
        }
        cr_assert_eq(logt(NULL, args), 0, "k = %d, resumed: %s", k, err);
        cr_assert_eq(ok_runs_match(rel, "whole.h5"), 2, "k = %d: the resumed sweep", k);
    }
    cr_assert_gt(k, 10, "only %d commits: the hook did not reach the sweep's writes", k - 1);
}

/* A kill in the middle of a commit leaves the file as the commit before left it, and its
 * temporary file and lock are cleared by the next run. */
Test(faults, a_kill_inside_a_write_leaves_the_last_commit, .timeout = 120)
{
    write_at("exp/experiment.ini", train_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out whole.h5"), 0, "%s", err);
    for (int k = 2; k <= 12; k += 5) {
        char env[64], args[128], rel[32], lock[40];
        snprintf(env, sizeof env, "LOGT_TEST_DIE_IN_WRITE=%d", k);
        snprintf(rel, sizeof rel, "d%d.h5", k);
        snprintf(lock, sizeof lock, "d%d.h5.lock", k);
        snprintf(args, sizeof args, "run exp --backend cpu --out %s", rel);
        cr_assert_eq(logt(env, args), 137, "k = %d: %s", k, err);
        cr_assert(exists(lock), "the killed run's lock is left");
        ok_runs_match(rel, "whole.h5");   /* readable, and what is finished is whole */
        cr_assert_eq(logt(NULL, args), 0, "k = %d, resumed: %s", k, err);
        EXPECT_ERR("stale lock");
        cr_assert_eq(ok_runs_match(rel, "whole.h5"), 2);
        cr_assert(!exists(lock), "the lock outlived its run");
        char cmd[PATH_MAX + 64];
        snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '^\\.%s\\.tmp-'", dir, rel);
        cr_assert_neq(system(cmd), 0, "a temporary file of the killed commit is left");
    }
}

/* A second writer is refused while the first holds the file, with or without HDF5's own
 * locking; the message names the holder. A lock of another host is never taken over. */
Test(faults, a_second_writer_is_refused)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    char *before;
    size_t nb;
    read_file("r.h5", &before, &nb);
    char text[512];   /* a live writer: this test's own process */
    char host[256];
    gethostname(host, sizeof host);
    snprintf(text, sizeof text, "host=%s pid=%ld start=0\n", host, (long)getpid());
    write_at("r.h5.lock", text);
    for (int locking = 0; locking < 2; locking++) {
        cr_assert_eq(logt(locking ? NULL : "HDF5_USE_FILE_LOCKING=FALSE",
                          "run exp --backend cpu --out r.h5 --retry-failed"), 1, "%s", err);
        EXPECT_ERR("is being written by logt");
        EXPECT_ERR("remove r.h5.lock");
    }
    write_at("r.h5.lock", "host=elsewhere.example pid=1 start=1\n");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 1, "%s", err);
    EXPECT_ERR("host elsewhere.example");
    char *after;
    size_t na;
    read_file("r.h5", &after, &na);
    cr_assert(na == nb && !memcmp(before, after, nb), "a refused file was changed");
    free(before), free(after);
    /* a stale one of this host: a pid that cannot be running */
    write_at("r.h5.lock", "host=");
    snprintf(text, sizeof text, "host=%s pid=2147483600 start=5\n", host);
    write_at("r.h5.lock", text);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    EXPECT_ERR("stale lock");
    cr_assert(!exists("r.h5.lock"));
}

/* A reader holding the file open does not stop a writer, and keeps reading what it opened. */
Test(faults, a_reader_holding_the_file_does_not_block_a_writer)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.T=4"), 0, "%s", err);
    logt_store *reader = open_results("r.h5");
    cr_assert_eq(logt_store_nruns(reader), 1);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    EXPECT_ERR("1 already in r.h5");
    cr_assert_eq(logt_store_nruns(reader), 1);
    logt_store_close(reader);
    logt_store *st = open_results("r.h5");
    cr_assert_eq(count_ok_runs(st), 2);
    logt_store_close(st);
}

/* A damaged region anywhere in the file: the file is refused and left as it was, or (the
 * damage in values, which HDF5 cannot see) taken as it reads, never with its runs read as
 * missing and run again beside themselves. */
Test(faults, a_damaged_file_is_refused_untouched_or_read_whole, .timeout = 180)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    char *good, *bad, *after;
    size_t n, na;
    read_file("r.h5", &good, &n);
    bad = malloc(n);
    int refused = 0, taken = 0;
    for (size_t off = 512; off + 256 <= n; off += 512) {
        memcpy(bad, good, n);
        for (size_t i = 0; i < 256; i++) bad[off + i] = (char)(0xA5 ^ (i * 37));
        write_file("d.h5", bad, n);
        /* HDF5 (1.10.8) leaks what it built of an object whose open fails on damage: under
         * make test SANITIZE=1 the leak check is off for these runs (memory errors are not) */
        const int rc = logt("ASAN_OPTIONS=halt_on_error=1:exitcode=86:detect_leaks=0",
                            "run exp --backend cpu --out d.h5");
        cr_assert(rc == 0 || rc == 1, "damage at %zu: exit %d: %s", off, rc, err);
        if (rc == 1) {
            refused++;
            read_file("d.h5", &after, &na);
            cr_assert(na == n && !memcmp(after, bad, n), "damage at %zu: the refused file was changed: %s",
                      off, err);
            free(after);
            continue;
        }
        taken++;
        EXPECT_ERR("0 to run");
        logt_store *st = open_results("d.h5");
        cr_assert_eq(count_ok_runs(st), 2, "damage at %zu", off);
        logt_store_close(st);
    }
    cr_log_info("%d damaged copies refused, %d taken", refused, taken);
    cr_assert_gt(refused, 0);
    free(good), free(bad);
}

/* ---- signals ----------------------------------------------------------------------------- */

/* `logt run exp --out out` in the background, stopped by sig once its training has passed
 * step 100: its exit status. */
static int stopped_by(int sig, const char *out)
{
    char errfile[PATH_MAX];
    snprintf(errfile, sizeof errfile, "%s/stderr.txt", dir);
    unlink(errfile);
    err[0] = '\0';
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        if (chdir(dir) != 0 || !freopen(errfile, "w", stderr)) _exit(99);
        execl(bin, bin, "run", "exp", "--backend", "cpu", "--out", out, (char *)NULL);
        _exit(98);
    }
    for (int i = 0; i < 2000 && !strstr(err, "step 100/"); i++) {
        usleep(10000);
        read_at("stderr.txt", err, sizeof err);
    }
    if (!strstr(err, "step 100/")) kill(pid, SIGKILL);
    cr_assert(strstr(err, "step 100/"), "the training did not start: %s", err);
    kill(pid, sig);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    read_at("stderr.txt", err, sizeof err);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* SIGINT and SIGTERM stop a training run at a step, exit 130 and 143, and say where its
 * checkpoint is (resuming from it: runner/killed_training_resumes_from_checkpoint). */
Test(faults, a_signal_says_where_the_checkpoint_is, .timeout = 120)
{
    write_at("exp/experiment.ini",
             "[experiment]\nname = long\nmodels = lstm\nkind = train\n[train]\ntask = adding\n"
             "T = 16\nB = 4\nD = 8\nsteps = 1000000\neval_every = 50\neval_batches = 1\n");
    cr_assert_eq(stopped_by(SIGINT, "s.h5"), 130, "%s", err);
    EXPECT_ERR("interrupted by SIGINT: finished runs are in s.h5");
    EXPECT_ERR("its run 000000 stopped at step");
    EXPECT_ERR("its checkpoint (/runs/000000/checkpoint/");
    EXPECT_ERR("is in s.h5: the same command resumes it from there");
    cr_assert_eq(stopped_by(SIGTERM, "t.h5"), 143, "%s", err);
    EXPECT_ERR("interrupted by SIGTERM: finished runs are in t.h5");
    EXPECT_ERR("its checkpoint (/runs/000000/checkpoint/");
}

/* ---- options that would change nothing ----------------------------------------------------- */

/* A sweep key in [model.M] that leaves M no run, and a --set into a model section no run
 * reads, are errors naming the setting; no results file is made. */
Test(faults, a_setting_that_matches_no_run_is_an_error)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set model.lstm.T=64"), 1, "%s", err);
    EXPECT_ERR("--set model.lstm.T=64: T = 64 leaves lstm no run: the sweep's T is 4, 8");
    EXPECT_ERR("--set sweep.T=");
    cr_assert(!exists("r.h5"), "a results file was made for an empty sweep");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set model.flashrnn.kernel=fused"), 1, "%s", err);
    EXPECT_ERR("flashrnn is not among this experiment's models (lstm)");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set model.lstm.cuda.algo=standard"), 1,
                 "%s", err);
    EXPECT_ERR("[model.lstm.cuda] is read on cuda only");
    cr_assert(!exists("r.h5"));
    /* narrowing still works: a value of the sweep's */
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set model.lstm.T=8"), 0, "%s", err);
    EXPECT_ERR("1 runs");
}

/* `logt plot EXP --in FILE` with a file of another experiment is refused, naming both. */
Test(faults, plotting_another_experiments_file_is_refused)
{
    write_at("exp/experiment.ini", speed_ini);
    write_at("other/experiment.ini",
             "[experiment]\nname = other\nmodels = lstm\nkind = speed\n[sweep]\nT = 4\nB = 2\nD = 4\n"
             "[speed]\nwarmup = 0\nrepeats = 2\n[plot.t]\nx = T\ny = median_ms\n");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set sweep.T=4"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "plot other --in r.h5"), 1, "%s", err);
    EXPECT_ERR("r.h5 holds results of experiment 'tiny', not 'other'");
    cr_assert(!exists("plots"), "plots were drawn from another experiment's runs");
}

/* ---- deer's safety net: on_fail = retry, jacobian_clamp, bad values ------------------------- */

/* deer on the adding task, checkpointed every 3 steps, retrying a failed step, clamping its
 * Jacobians at 0.1 (most of a GRU's diagonal is above it). */
static const char *const retry_ini =
    "[experiment]\n"
    "name = retry\n"
    "models = deer\n"
    "kind = train\n"
    "[train]\n"
    "task = adding\n"
    "T = 10\n"
    "B = 3\n"
    "D = 3\n"
    "steps = 9\n"
    "eval_every = 3\n"
    "eval_batches = 1\n"
    "test_batches = 1\n"
    "[model.deer]\n"
    "mode = quasi\n"
    "on_fail = retry\n"
    "jacobian_clamp = 0.1\n";

/* The run's one group: status, error, an int64 attribute (-1 when absent) and the length of
 * a per-step dataset with its sum. */
typedef struct run_view {
    char status[16], error[2048];
    int64_t retries, clamps, nsteps, nclamps, niter;
    double clamp_sum, iter_min;
} run_view;

static run_view view_run(const char *rel)
{
    run_view v = {.retries = -1, .clamps = -1};
    logt_store *st = open_results(rel);
    cr_assert_eq(logt_store_nruns(st), 1);
    int64_t id;
    const char *key;
    logt_run_state state;
    logt_store_run_at(st, 0, &id, &key, &state);
    cr_assert_eq(logt_store_get_str(st, id, "", "status", v.status, sizeof v.status), LOGT_OK);
    logt_store_get_str(st, id, "", "error", v.error, sizeof v.error);
    if (logt_store_has(st, id, "", "retries")) logt_store_get_i64(st, id, "", "retries", &v.retries);
    if (logt_store_has(st, id, "", "jacobian_clamps")) logt_store_get_i64(st, id, "", "jacobian_clamps", &v.clamps);
    double *p = NULL;
    if (logt_store_read(st, id, "loss", &p, &v.nsteps) != LOGT_OK) v.nsteps = 0;
    free(p), p = NULL;
    if (logt_store_read(st, id, "jacobian_clamps", &p, &v.nclamps) != LOGT_OK) v.nclamps = 0;
    for (int64_t i = 0; i < v.nclamps; i++) v.clamp_sum += p[i];
    free(p), p = NULL;
    v.iter_min = INFINITY;
    if (logt_store_read(st, id, "newton_iterations", &p, &v.niter) != LOGT_OK) v.niter = 0;
    for (int64_t i = 0; i < v.niter; i++) v.iter_min = fmin(v.iter_min, p[i]);
    free(p);
    logt_store_close(st);
    return v;
}

/* A NaN in step 5's input: Newton's iterate is not finite, the run goes back to its checkpoint
 * at step 3 with tol x10 and max_iter x2, says so, and finishes with one value per step and the
 * retry and clamps counted. Before the first checkpoint it goes back to the start. */
Test(faults, a_nan_under_on_fail_retry_rolls_back_and_the_run_finishes, .timeout = 120)
{
    write_at("exp/experiment.ini", retry_ini);
    cr_assert_eq(logt("LOGT_TEST_NAN_AT_STEP=5", "run exp --backend cpu --out r.h5"), 0, "%s", err);
    EXPECT_ERR("retry 1 of 3: ");
    EXPECT_ERR("the iterate is not finite");
    EXPECT_ERR("back to step 3, tol x10 and max_iter x2 from now on");
    run_view v = view_run("r.h5");
    cr_assert_str_eq(v.status, "ok", "%s", v.error);
    cr_assert_eq(v.retries, 1);
    cr_assert_eq(v.nsteps, 9, "one loss a step, the retried ones once: %lld", (long long)v.nsteps);
    cr_assert(v.niter == 9 && v.iter_min >= 1, "newton_iterations: %lld values, least %g", (long long)v.niter,
              v.iter_min);
    cr_assert_eq(v.nclamps, 9, "jacobian_clamps: one value a step, not %lld", (long long)v.nclamps);
    cr_assert(v.clamps > 0 && (double)v.clamps == v.clamp_sum, "jacobian_clamps %lld, the steps' sum %g",
              (long long)v.clamps, v.clamp_sum);

    cr_assert_eq(logt("LOGT_TEST_NAN_AT_STEP=2", "run exp --backend cpu --out s.h5"), 0, "%s", err);
    EXPECT_ERR("back to step 0, tol x10");
    v = view_run("s.h5");
    cr_assert(!strcmp(v.status, "ok") && v.retries == 1 && v.nsteps == 9, "%s %lld %lld", v.status,
              (long long)v.retries, (long long)v.nsteps);

    /* without a fault nothing is retried; with on_fail = error the NaN fails the run */
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out t.h5"), 0, "%s", err);
    cr_assert(!strstr(err, "retry 1 of"), "%s", err);
    v = view_run("t.h5");
    cr_assert(v.retries == 0 && v.clamps > 0, "retries %lld, clamps %lld", (long long)v.retries, (long long)v.clamps);
    cr_assert_eq(logt("LOGT_TEST_NAN_AT_STEP=5", "run exp --backend cpu --out e.h5 --set model.deer.on_fail=error"),
                 1, "%s", err);
    v = view_run("e.h5");
    cr_assert(!strcmp(v.status, "failed") && strstr(v.error, "the iterate is not finite") && v.retries == -1,
              "%s: %s", v.status, v.error);
}

/* A run killed after a retry resumes with the retries so far: the same relaxation goes on. */
Test(faults, a_resumed_run_keeps_its_retries, .timeout = 120)
{
    write_at("exp/experiment.ini", retry_ini);
    cr_assert_eq(logt("LOGT_TEST_NAN_AT_STEP=5 LOGT_TEST_DIE_AFTER_STEPS=7", "run exp --backend cpu --out r.h5"),
                 137, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    EXPECT_ERR("(resumed)");
    run_view v = view_run("r.h5");
    cr_assert(!strcmp(v.status, "ok") && v.retries == 1 && v.nsteps == 9 && v.nclamps == 9,
              "%s: retries %lld, %lld steps", v.status, (long long)v.retries, (long long)v.nsteps);
    cr_assert((double)v.clamps == v.clamp_sum);
}

/* A step that fails however far the solver is relaxed: three retries in a row, then the run
 * fails saying so (max_iter 1 doubled three times is 8 iterations, short of T = 10). */
Test(faults, retries_in_a_row_end_in_a_failure_that_says_so, .timeout = 120)
{
    write_at("exp/experiment.ini", retry_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set model.deer.max_iter=1 "
                            "--set model.deer.tol=1e-300"), 1, "%s", err);
    EXPECT_ERR("retry 3 of 3: ");
    EXPECT_ERR("step 1 failed again after 3 retries in a row from step 0 (on_fail = retry, tol x1000 "
               "and max_iter x8 by now)");
    EXPECT_ERR("did not converge");
    run_view v = view_run("r.h5");
    cr_assert(!strcmp(v.status, "failed") && v.retries == 3 && v.nsteps == 0, "%s: retries %lld, %lld steps",
              v.status, (long long)v.retries, (long long)v.nsteps);
}

/* Bad values of deer's safety knobs fail the run before its first step, each with its message. */
Test(faults, bad_safety_values_are_refused_before_training)
{
    write_at("exp/experiment.ini", retry_ini);
    const struct { const char *set, *says; } cases[] = {
        {"model.deer.tol_schedule=1e-8:1e-4:100", "tol_schedule = '1e-8:1e-4:100' ends looser than it starts"},
        {"model.deer.tol_schedule=1e-4:1e-8:0", "STEPS must be a whole number of training steps, at least 1"},
        {"model.deer.jacobian_clamp=0", "jacobian_clamp = '0': a bound X > 0"},
        {"model.deer.jacobian_clamp=-2", "jacobian_clamp = '-2': a bound X > 0"},
        {"model.deer.on_fail=again", "on_fail = 'again': error (report and fail), sequential"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[256];
        snprintf(args, sizeof args, "run exp --backend cpu --out bad%zu.h5 --set %s", i, cases[i].set);
        cr_assert_eq(logt(NULL, args), 1, "%s: %s", cases[i].set, err);
        EXPECT_ERR(cases[i].says);
        char rel[32];
        snprintf(rel, sizeof rel, "bad%zu.h5", i);
        run_view v = view_run(rel);
        cr_assert(!strcmp(v.status, "failed") && v.nsteps == 0, "%s: %s, %lld steps", cases[i].set, v.status,
                  (long long)v.nsteps);
    }
}

/* A speed run of a model that clamps stores the entries its last pass's forward clamped;
 * one that does not clamp, no such attribute. */
Test(faults, a_speed_run_stores_its_clamps)
{
    write_at("exp/experiment.ini",
             "[experiment]\nname = clamps\nmodels = deer\nkind = speed\n[sweep]\nT = 20\nB = 2\nD = 3\n"
             "pass = forward\n[speed]\nwarmup = 0\nrepeats = 2\n[model.deer]\nmode = quasi\n"
             "jacobian_clamp = 0.1, off\n");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    logt_store *st = open_results("r.h5");
    cr_assert_eq(logt_store_nruns(st), 2);
    for (int i = 0; i < 2; i++) {
        int64_t id, clamps = -1;
        const char *key;
        logt_run_state state;
        logt_store_run_at(st, i, &id, &key, &state);
        const int on = strstr(key, "jacobian_clamp=0.1") != NULL;
        cr_assert_eq(logt_store_has(st, id, "", "jacobian_clamps"), on, "%s", key);
        if (on) cr_assert_eq(logt_store_get_i64(st, id, "", "jacobian_clamps", &clamps), LOGT_OK);
        cr_assert(!on || clamps > 0, "%s: %lld", key, (long long)clamps);
    }
    logt_store_close(st);
}
