/* shard.c — shards of a sweep (--shard I/N): parsing I/N, the shard file's name, and the
 * check that an existing file takes runs of this shard only.
 *
 * Shard I of N holds the runs k of the sweep with k mod N = I, in a file whose root says
 * which shard of which sweep it is (shard_index, shard_count, sweep_runs) and whose runs
 * say their k (sweep_index), for merge.c to put them back in sweep order.
 */
#include "run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A whole number of at most 9 digits, nothing else (no sign, no blanks). */
static int parse_count(const char *s, size_t len, int *out)
{
    if (len == 0 || len > 9) return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = 10 * v + (s[i] - '0');
    }
    *out = v;
    return 0;
}

logt_status logt_shard_parse(const char *s, int *shard, int *nshards)
{
    const char *slash = strchr(s, '/');
    if (!slash || parse_count(s, (size_t)(slash - s), shard) != 0 ||
        parse_count(slash + 1, strlen(slash + 1), nshards) != 0)
        return LOGT_USER_FAIL(LOGT_EINVAL,
                              "--shard expects I/N, shard I of N counted from 0 (0/4, 1/4, 2/4 and "
                              "3/4 split a sweep in four), got '%s'", s);
    if (*nshards < 1)
        return LOGT_USER_FAIL(LOGT_EINVAL, "--shard %s: N is the number of shards, at least 1 (a "
                              "whole sweep is 0/1)", s);
    if (*shard >= *nshards)
        return LOGT_USER_FAIL(LOGT_EINVAL, "--shard %s: I must be less than N: shards are counted "
                              "from 0, so the %d shards are 0/%d to %d/%d", s, *nshards, *nshards,
                              *nshards - 1, *nshards);
    return LOGT_OK;
}

void logt_shard_path(const char *out, int shard, int nshards, char *buf, size_t n)
{
    size_t len = strlen(out);
    if (len > 3 && !strcmp(out + len - 3, ".h5")) len -= 3;
    snprintf(buf, n, "%.*s.shard-%d-of-%d.h5", (int)len, out, shard, nshards);
}

/* A shard file holds one shard of one sweep, so that its runs' sweep_index mean one
 * thing: an existing file takes runs only from the same shard of the same experiment
 * (experiment_ini, backend, number of runs), and a results file of a whole sweep only
 * from runs without --shard. A file that does not open, or holds another experiment, is
 * left for logt_store_open to refuse with its own message. */
logt_status run_check_shard_file(const char *path, const logt_store_meta *m)
{
    logt_store *st;
    struct stat sb;
    if (stat(path, &sb) != 0 || logt_store_open_read(path, &st) != LOGT_OK) {
        logt_errclear();
        return LOGT_OK;
    }
    char name[LOGT_WORD] = "", backend[16] = "", la[200], lb[200];
    char *ini = NULL;
    int64_t i = 0, n = 0, runs = 0;
    int line = 0;
    logt_store_root_str(st, "experiment", name, sizeof name);
    const int shard = logt_store_root_has(st, "shard_count");
    logt_status s = LOGT_OK;
    if (shard) {
        s = logt_store_root_i64(st, "shard_index", &i);
        if (s == LOGT_OK) s = logt_store_root_i64(st, "shard_count", &n);
        if (s == LOGT_OK) s = logt_store_root_i64(st, "sweep_runs", &runs);
        if (s == LOGT_OK) s = logt_store_root_str(st, "backend", backend, sizeof backend);
        if (s == LOGT_OK) s = logt_store_root_text(st, "experiment_ini", &ini);
        if (s == LOGT_OK) line = logt_exp_text_diff(ini, m->experiment_ini, la, lb, sizeof la);
    }
    const long long mi = m->shard_index, mn = m->shard_count;
    if (s != LOGT_OK || strcmp(name, m->experiment)) {
        /* unreadable shard attributes: the message says which */
    } else if (shard && mn == 0) {
        s = LOGT_USER_FAIL(LOGT_EINVAL,
                           "%s is shard %lld/%lld of a sweep of '%s' (written by `logt run --shard`): "
                           "only that shard adds runs to it. HINT: run with --shard %lld/%lld, join "
                           "the shards with `logt merge`, or write the whole sweep elsewhere with "
                           "--out NEW.h5", path, (long long)i, (long long)n, name, (long long)i,
                           (long long)n);
    } else if (!shard && mn > 0) {
        s = LOGT_USER_FAIL(LOGT_EINVAL,
                           "%s holds results of a whole sweep, not a shard: --shard %lld/%lld writes "
                           "a file of its own. HINT: leave out --out (the shard's file is then "
                           "results/NAME.shard-I-of-N.h5) or pass --out NEW.h5", path, mi, mn);
    } else if (shard && (i != mi || n != mn)) {
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s holds shard %lld/%lld of '%s', not %lld/%lld. HINT: "
                           "write this shard elsewhere with --out NEW.h5", path, (long long)i,
                           (long long)n, name, mi, mn);
    } else if (shard && strcmp(backend, m->backend)) {
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s holds shard %lld/%lld of the sweep on %s, not on %s. "
                           "HINT: pass --backend %s, or write elsewhere with --out NEW.h5", path, mi,
                           mn, backend, m->backend, backend);
    } else if (shard && line) {
        s = LOGT_USER_FAIL(LOGT_EINVAL,
                           "%s holds shard %lld/%lld of another version of '%s': line %d of its "
                           "experiment_ini is '%s', here '%s', and a shard file holds one sweep. "
                           "HINT: run the experiment as it was for this file, or write elsewhere "
                           "with --out NEW.h5", path, mi, mn, name, line, la, lb);
    } else if (shard && runs != m->sweep_runs) {
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s holds shard %lld/%lld of a sweep of %lld runs, but the "
                           "same experiment makes %lld runs here (another logt build?). HINT: write "
                           "elsewhere with --out NEW.h5", path, mi, mn, (long long)runs,
                           (long long)m->sweep_runs);
    }
    free(ini);
    logt_store_close(st);
    return s;
}
