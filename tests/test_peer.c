/* test_peer.c — the peer protocol (runner/peer.h) against a stub adapter, tests/peers/stub.py,
 * that answers as its knob `mode` says: an answer read whole (with 200 kB on stderr beside
 * it), a skip, an error, garbage, a crash, a hang past the timeout (killed with its child),
 * no interpreter, an unknown peer; then peers in a sweep through the CLI: the request the
 * adapter reads, the rows and attributes stored, a skipped run redone by the next sweep, and
 * a kernel run's bandwidth. The JSON reader on its own at the end. Needs python3 (else the
 * tests that run the stub skip, saying so).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../runner/json.h"
#include "../runner/peer.h"
#include "../runner/util.h"
#include "cli.h"
#include "repo.h"

static char peers[PATH_MAX + 16];   /* tests/peers of the tree the test binary was built in */

static void setup(void)
{
    cli_setup("peer");
    repo_path(peers, sizeof peers, "tests/peers");
    setenv("LOGT_PEERS", peers, 1);
}

TestSuite(peer, .init = setup, .fini = cli_teardown, .timeout = 60);

#define NEED_PYTHON()                                                                          \
    do {                                                                                       \
        if (system("python3 -c pass >/dev/null 2>&1") != 0) cr_skip_test("no python3 here"); \
    } while (0)

static logt_peer_reply call(const char *mode)
{
    char req[256];
    snprintf(req, sizeof req, "{\"peer\": \"stub\", \"kind\": \"speed\", \"repeats\": 3, "
                              "\"knobs\": {\"mode\": \"%s\"}}", mode);
    logt_peer_reply r;
    cr_assert_eq(logt_peer_call("stub", req, &r), LOGT_OK, "%s", logt_errmsg());
    return r;
}

Test(peer, an_answer_is_read_whole)
{
    NEED_PYTHON();
    logt_peer_reply r = call("ok");
    cr_assert_eq(r.outcome, PEER_OK, "%s", r.message);
    cr_expect_str_eq(r.version, "stub 1.0");
    cr_expect_str_eq(r.impl, "stub \"quoted\" ?");
    cr_assert_eq(r.ntimes, 3);
    cr_expect(r.times_ms[0] == 1 && r.times_ms[2] == 3);
    cr_expect_null(r.copy_ms, "copy_ms: null is no copy");
    cr_expect_eq(r.peak_mem_bytes, 1234);
    cr_expect(strstr(r.command, "python3 ") && strstr(r.command, "/stub.py"), "%s", r.command);
    logt_peer_reply_free(&r);
}

Test(peer, skip_error_garbage_and_crash_say_why)
{
    NEED_PYTHON();
    logt_peer_reply r = call("skip");
    cr_expect_eq(r.outcome, PEER_SKIP);
    cr_expect(strstr(r.message, "peer:stub: stub: install the stub package"), "%s", r.message);
    r = call("error");
    cr_expect_eq(r.outcome, PEER_FAIL);
    cr_expect(strstr(r.message, "D = 3 is not supported; its stderr ends: ") &&
                  strstr(r.message, "ValueError: the stub's reason"), "%s", r.message);
    r = call("garbage");
    cr_expect_eq(r.outcome, PEER_FAIL);
    cr_expect(strstr(r.message, "printed no JSON response") && strstr(r.message, "exit status 0") &&
                  strstr(r.message, "a warning before the garbage"), "%s", r.message);
    r = call("crash");
    cr_expect_eq(r.outcome, PEER_FAIL);
    cr_expect(strstr(r.message, "nothing on stdout") && strstr(r.message, "exit status 3") &&
                  strstr(r.message, "RuntimeError: boom"), "%s", r.message);
    r = call("no-such-mode");   /* the stub prints nothing and exits 0 */
    cr_expect_eq(r.outcome, PEER_FAIL);
}

Test(peer, a_hang_is_killed_at_the_timeout_with_its_children)
{
    NEED_PYTHON();
    setenv("LOGT_PEER_TIMEOUT_S", "1", 1);
    setenv("LOGT_STUB_SLEEP", "301", 1);
    const time_t t0 = time(NULL);
    logt_peer_reply r = call("hang");
    cr_expect_leq(time(NULL) - t0, 10, "the call outlasted its timeout");
    cr_expect_eq(r.outcome, PEER_FAIL);
    cr_expect(strstr(r.message, "gave no answer in 1 s and was killed"), "%s", r.message);
    /* the stub's `sleep 301` was in its process group: nothing of it is left */
    cr_expect_neq(system("sleep 0.2; pgrep -f '^sleep 301$' >/dev/null"), 0, "the adapter's child lives on");
}

Test(peer, an_answer_counts_once_the_adapter_is_gone_and_its_children_with_it)
{
    NEED_PYTHON();
    setenv("LOGT_STUB_SLEEP", "302", 1);
    const time_t t0 = time(NULL);
    logt_peer_reply r = call("linger");   /* its `sleep 302` holds stdout and stderr */
    cr_expect_leq(time(NULL) - t0, 10, "the call waited for the adapter's child");
    cr_expect_eq(r.outcome, PEER_OK, "%s", r.message);
    logt_peer_reply_free(&r);
    cr_expect_neq(system("sleep 0.2; pgrep -f '^sleep 302$' >/dev/null"), 0, "the adapter's child lives on");
    r = call("abort");   /* a valid answer, then exit status 3 */
    cr_expect_eq(r.outcome, PEER_FAIL);
    cr_expect(strstr(r.message, "answered, then exited with status 3"), "%s", r.message);
    logt_peer_reply_free(&r);
}

Test(peer, no_interpreter_is_a_skip_that_says_what_to_install)
{
    setenv("LOGT_PYTHON", "/nonexistent/python3", 1);
    logt_peer_reply r = call("ok");
    cr_expect_eq(r.outcome, PEER_SKIP);
    cr_expect(strstr(r.message, "cannot run /nonexistent/python3") && strstr(r.message, "install Python 3"),
              "%s", r.message);
}

Test(peer, an_unknown_peer_names_the_adapters)
{
    cr_expect_eq(logt_peer_check("peer:stub"), LOGT_OK, "%s", logt_errmsg());
    cr_expect_neq(logt_peer_check("peer:nope"), LOGT_OK);
    cr_expect(strstr(logt_user_msg(), "unknown peer 'peer:nope'") && strstr(logt_user_msg(), "stub"),
              "%s", logt_user_msg());
    cr_expect_neq(logt_peer_check("peer:../stub"), LOGT_OK, "a path is no peer name");
    cr_expect_null(logt_peer_of("lstm"));
    cr_expect_str_eq(logt_peer_of("peer:stub"), "stub");
}

/* ---- in a sweep ---------------------------------------------------------------------- */

static const char *const speed_ini =
    "[experiment]\n"
    "name = tinypeer\n"
    "models = lstm, peer:stub\n"
    "kind = speed\n"
    "\n"
    "[sweep]\n"
    "T = 8\n"
    "B = 2\n"
    "D = 4\n"
    "pass = forward\n"
    "\n"
    "[speed]\n"
    "warmup = 0\n"
    "repeats = 3\n"
    "\n"
    "[model.peer:stub]\n"
    "mode = ok, skip\n";

/* The id of the run of model whose knobs contain `knobs`; -1 if none. */
static int64_t run_of(logt_store *st, const char *model, const char *knobs)
{
    for (int i = 0; i < logt_store_nruns(st); i++) {
        int64_t id;
        const char *key;
        logt_run_state state;
        char m[64], k[256];
        logt_store_run_at(st, i, &id, &key, &state);
        if (logt_store_get_str(st, id, "", "model", m, sizeof m) != LOGT_OK ||
            logt_store_get_str(st, id, "", "knobs", k, sizeof k) != LOGT_OK)
            continue;
        if (!strcmp(m, model) && strstr(k, knobs)) return id;
    }
    return -1;
}

static void expect_attr(logt_store *st, int64_t id, const char *name, const char *needle)
{
    char v[2048];
    cr_assert_eq(logt_store_get_str(st, id, "", name, v, sizeof v), LOGT_OK, "no %s: %s", name, logt_errmsg());
    cr_expect(strstr(v, needle), "%s = '%s', expected '%s' in it", name, v, needle);
}

Test(peer, a_sweep_stores_peer_rows_and_redoes_skipped_ones)
{
    NEED_PYTHON();
    char env[PATH_MAX + 64], req[4096];
    snprintf(env, sizeof env, "LOGT_STUB_ECHO=%s/req.json", dir);
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(env, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    EXPECT_ERR("SKIPPED: peer:stub: stub: install the stub package");
    EXPECT_ERR("(2 ok, 0 failed, 1 skipped)");
    EXPECT_ERR("1 peer run could not run here");
    read_at("req.json", req, sizeof req);   /* the last request: the skip's */
    json_object o;
    char jerr[128];
    cr_assert_eq(json_parse_object(req, &o, jerr, sizeof jerr), 0, "%s: %s", jerr, req);
    const json_value *v;
    cr_expect((v = json_get(&o, "T")) && v->num == 8);
    cr_expect((v = json_get(&o, "D")) && v->num == 4);
    cr_expect((v = json_get(&o, "repeats")) && v->num == 3);
    cr_expect((v = json_get(&o, "kind")) && !strcmp(v->str, "speed"));
    cr_expect((v = json_get(&o, "pass")) && !strcmp(v->str, "forward"));
    cr_expect((v = json_get(&o, "device")) && !strcmp(v->str, "cpu"));
    cr_expect((v = json_get(&o, "dtype")) && !strcmp(v->str, "f64"));
    cr_expect((v = json_get(&o, "check")) && v->type == JSON_NULL);
    cr_expect(strstr(req, "\"knobs\": {\"mode\": \"skip\"}"), "%s", req);
    json_free(&o);

    logt_store *st = open_results("r.h5");
    const int64_t ok = run_of(st, "peer:stub", "mode=ok"), skip = run_of(st, "peer:stub", "mode=skip");
    cr_assert(ok >= 0 && skip >= 0);
    expect_attr(st, ok, "status", "ok");
    expect_attr(st, ok, "peer_version", "stub 1.0");
    expect_attr(st, ok, "peer_command", "/stub.py");
    expect_attr(st, skip, "status", "skipped");
    expect_attr(st, skip, "error", "install the stub package");
    double *ms;
    int64_t n;
    cr_assert_eq(logt_store_read(st, ok, "time_ms", &ms, &n), LOGT_OK, "%s", logt_errmsg());
    cr_expect(n == 3 && ms[1] == 2);
    free(ms);
    logt_summary_row *rows;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    int seen = 0;
    for (int64_t i = 0; i < n; i++)
        if (rows[i].run == ok) {
            seen = 1;
            cr_expect(rows[i].median_ms == 2 && rows[i].peak_mem_bytes == 1234);
            cr_expect(fabs(rows[i].p10_ms - 1.2) < 1e-12 && fabs(rows[i].p90_ms - 2.8) < 1e-12);
        }
    cr_expect(seen, "the peer's row is not in /summary");
    free(rows);
    logt_store_close(st);

    /* the next sweep keeps the two finished runs and tries the skipped one again */
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    EXPECT_ERR("2 already in r.h5");
    EXPECT_ERR("1 to run");
}

Test(peer, a_peer_that_fails_fails_its_run_and_the_sweep_goes_on)
{
    NEED_PYTHON();
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set model.peer:stub.mode=error,ok"), 1, "%s",
                 err);
    EXPECT_ERR("FAILED: peer:stub: stub: D = 3 is not supported");
    EXPECT_ERR("(2 ok, 1 failed)");
}

Test(peer, a_kernel_run_of_a_peer_has_its_bandwidth_against_its_copy)
{
    NEED_PYTHON();
    write_at("exp/experiment.ini",
             "[experiment]\nname = tinypeerk\nmodels = peer:stub\nkind = kernel\n\n"
             "[kernel]\nT = 16\nB = 4\nD = 1\ndtype = f64\nwarmup = 0\nrepeats = 3\n\n"
             "[model.peer:stub]\nkernel = scan\nmode = ok\n");
    char env[PATH_MAX + 64], req[4096];
    snprintf(env, sizeof env, "LOGT_STUB_ECHO=%s/req.json", dir);
    cr_assert_eq(logt(env, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    read_at("req.json", req, sizeof req);
    cr_expect(strstr(req, "\"kind\": \"kernel\"") && strstr(req, "\"kernel\": \"scan\"") &&
                  strstr(req, "\"knobs\": {\"mode\": \"ok\"}"), "the kernel is no knob of the peer: %s", req);
    logt_store *st = open_results("r.h5");
    logt_summary_row *rows;
    int64_t n;
    cr_assert_eq(logt_store_summary(st, &rows, &n), LOGT_OK);
    cr_assert_eq(n, 1);
    /* scan: 3 arrays of 16·4 f64 over a median of 2 ms, against a copy of one array (read and
     * written) in 0.5 ms: 768 B/ms over 2048 B/ms */
    cr_expect(rows[0].bytes == 1536, "%g", rows[0].bytes);
    cr_expect(fabs(rows[0].pct_of_copy - 37.5) < 1e-9, "%g", rows[0].pct_of_copy);
    free(rows);
    logt_store_close(st);
}

Test(peer, a_wrong_count_of_times_fails_the_run)
{
    NEED_PYTHON();
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set model.peer:stub.mode=short"), 1, "%s", err);
    EXPECT_ERR("peer:stub answered 1 times_ms and 0 copy_ms for repeats = 3");
}

Test(peer, ctrl_c_kills_the_adapter_and_the_run_resumes)
{
    NEED_PYTHON();
    write_at("exp/experiment.ini", speed_ini);
    char cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && { LOGT_STUB_SLEEP=303 '%s' run exp --backend cpu --out r.h5 --set model.peer:stub.mode=hang "
             ">stdout.txt 2>stderr.txt & pid=$!; sleep 2; kill -INT $pid; wait $pid; echo $? >rc.txt; }",
             dir, bin);
    cr_assert_eq(system(cmd), 0);
    char rc[16];
    read_at("rc.txt", rc, sizeof rc);
    read_at("stderr.txt", err, sizeof err);
    cr_expect_eq(atoi(rc), 130, "exit %s:\n%s", rc, err);
    EXPECT_ERR("interrupted by SIGINT");
    cr_expect_neq(system("sleep 0.2; pgrep -f '^sleep 303$' >/dev/null"), 0, "the adapter's child lives on");
    logt_store *st = open_results("r.h5");
    const int64_t id = run_of(st, "peer:stub", "mode=hang");
    char status[16] = "x";
    if (id >= 0) logt_store_get_str(st, id, "", "status", status, sizeof status);
    cr_expect(id < 0 || !status[0] || logt_store_has(st, id, "", "status") == 0,
              "the interrupted run has status '%s'", status);
    logt_store_close(st);
}

Test(peer, a_skipped_run_merges_as_skipped)
{
    NEED_PYTHON();
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 0/2 --out s0.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --shard 1/2 --out s1.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "merge s0.h5 s1.h5 --out m.h5"), 0, "%s", err);
    EXPECT_ERR("(3 runs: 2 ok, 0 failed, 1 skipped)");
}

Test(peer, a_training_experiment_refuses_peers)
{
    write_at("exp/experiment.ini", "[experiment]\nname = t\nmodels = lstm, peer:stub\nkind = train\n");
    cr_assert_eq(logt(NULL, "run exp --backend cpu"), 1, "%s", err);
    EXPECT_ERR("peer:stub in an experiment of kind = train");
}

Test(peer, an_unknown_peer_is_refused_before_any_run)
{
    write_at("exp/experiment.ini", speed_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --set experiment.models=lstm,peer:nope"), 1, "%s", err);
    EXPECT_ERR("unknown peer 'peer:nope'");
    cr_assert_eq(logt(NULL, "run exp --backend cpu --set model.peer:nope.mode=ok"), 1, "%s", err);
    EXPECT_ERR("unknown peer 'peer:nope'");
}

/* ---- the JSON reader ------------------------------------------------------------------- */

Test(peer, json_reads_what_adapters_print)
{
    json_object o;
    char e[128];
    cr_assert_eq(json_parse_object(" {\"a\": -1.5e3, \"s\": \"x\\n\\\"y\\u0041\\u00e9\", \"t\": true, "
                                   "\"n\": null, \"v\": [1, 2.5, -3], \"e\": [], \"m\": [1, \"x\"], "
                                   "\"o\": {\"p\": [{}]}} \n", &o, e, sizeof e), 0, "%s", e);
    cr_expect_eq(o.n, 8);
    cr_expect(json_get(&o, "a")->num == -1500);
    cr_expect_str_eq(json_get(&o, "s")->str, "x\n\"yA?");
    cr_expect(json_get(&o, "t")->type == JSON_BOOL && json_get(&o, "t")->b == 1);
    cr_expect(json_get(&o, "n")->type == JSON_NULL);
    cr_expect(json_get(&o, "v")->type == JSON_NUMBERS && json_get(&o, "v")->n == 3 &&
              json_get(&o, "v")->nums[2] == -3);
    cr_expect(json_get(&o, "e")->type == JSON_NUMBERS && json_get(&o, "e")->n == 0);
    cr_expect(json_get(&o, "m")->type == JSON_OTHER && json_get(&o, "o")->type == JSON_OTHER);
    cr_expect_null(json_get(&o, "zz"));
    json_free(&o);
    cr_assert_eq(json_parse_object("{\"z\": 0, \"m\": -0.5e-3, \"e\": 2E+2}", &o, e, sizeof e), 0, "%s", e);
    cr_expect(json_get(&o, "m")->num == -0.5e-3 && json_get(&o, "e")->num == 200);
    json_free(&o);
    const char *bad[] = {"", "[1]", "{\"a\" 1}", "{\"a\": }", "{\"a\": 1,}", "{\"a\": \"x}",
                         "{\"a\": 1} x", "{\"a\": tru}", "{\"a\": \"\\q\"}", "{\"a\": -nan}",
                         "{\"a\": 0x10}", "{\"a\": 1e999}", "{\"a\": 01}", "{\"a\": 1.}",
                         "{\"a\": [[1, 2, 3}", "{\"a\": Infinity}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_eq(json_parse_object(bad[i], &o, e, sizeof e), -1, "accepted: %s", bad[i]);
        cr_expect(strstr(e, "at byte"), "%s: %s", bad[i], e);
        cr_expect_eq(o.n, 0);
    }
}
