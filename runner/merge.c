/* merge.c — `logt merge`: the shard files of one sweep joined into one results file
 * (what is checked and what is written: merge.h).
 *
 * Two passes with one shard file open at a time (a Slurm array may have thousands):
 * the first reads every shard's root attributes, the key, state and place in the
 * sweep of each of its runs, and its summary rows, then checks the set; the second
 * copies the finished runs into a new file, shard by shard, each run under its number
 * in sweep order, and writes their summary rows in that order.
 */
#include "merge.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "store.h"

#define LISTED 8   /* shards named one by one in a message about what is missing */

/* Root attributes that may differ between the shards' machines: joined in the result. */
static const char *const joined[] = {"host", "device", "driver_version", "cuda_runtime_version",
                                     "cudnn_version", "cublas_version"};
enum { NJOINED = sizeof joined / sizeof joined[0] };

typedef struct entry {
    int64_t place;          /* sweep_index: the run's place in the whole sweep      */
    int64_t id;             /* its number in the shard file                          */
    int64_t out;            /* its number in the merged file                         */
    char *key;
    const struct shard *sh;
    logt_summary_row row;
} entry;

typedef struct shard {
    const char *path;
    char experiment[LOGT_WORD], backend[16], commit[128], version[32], format[32];
    char created[64], updated[64];
    char *ini, *text[NJOINED];   /* text[k]: joined[k], NULL where the file has none */
    int64_t index, count, sweep_runs;
    int nruns;                    /* its finished runs, in runs[]                      */
    entry *runs;
} shard;

static void shard_free(shard *sh)
{
    for (int k = 0; k < sh->nruns; k++) free(sh->runs[k].key);
    free(sh->runs);
    free(sh->ini);
    for (int k = 0; k < NJOINED; k++) free(sh->text[k]);
}

static int cmp_row_run(const void *a, const void *b)
{
    int64_t x = ((const logt_summary_row *)a)->run, y = ((const logt_summary_row *)b)->run;
    return (x > y) - (x < y);
}

/* ---- the first pass: what each shard holds ------------------------------------------------ */

static logt_status read_runs(logt_store *st, shard *sh)
{
    logt_summary_row *rows = NULL;
    int64_t nrows = 0;
    LOGT_TRY(logt_store_summary(st, &rows, &nrows));
    qsort(rows, (size_t)nrows, sizeof *rows, cmp_row_run);
    const int n = logt_store_nruns(st);
    logt_status s = LOGT_OK;
    sh->runs = calloc((size_t)(n > 0 ? n : 1), sizeof *sh->runs);
    if (!sh->runs) s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    for (int i = 0; s == LOGT_OK && i < n; i++) {
        int64_t id;
        const char *key;
        logt_run_state state;
        logt_store_run_at(st, i, &id, &key, &state);
        if (state != LOGT_RUN_OK && state != LOGT_RUN_FAILED && state != LOGT_RUN_SKIPPED)
            continue;   /* not a result yet */
        entry *e = &sh->runs[sh->nruns];
        logt_summary_row probe = {.run = id};
        const logt_summary_row *row = bsearch(&probe, rows, (size_t)nrows, sizeof *rows, cmp_row_run);
        if (!logt_store_has(st, id, "", "sweep_index")) {
            s = LOGT_USER_FAIL(LOGT_EINVAL, "run %06lld of %s has no sweep_index: it was added to "
                               "the shard file by a `logt run` without --shard", (long long)id,
                               sh->path);
            break;
        }
        if (!row) {
            s = LOGT_USER_FAIL(LOGT_EIO, "run %06lld of %s is finished but has no row in /summary: "
                               "the file is damaged", (long long)id, sh->path);
            break;
        }
        if ((s = logt_store_get_i64(st, id, "", "sweep_index", &e->place)) != LOGT_OK) break;
        if (!(e->key = strdup(key))) {
            s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
            break;
        }
        e->id = id;
        e->row = *row;
        sh->nruns++;
    }
    free(rows);
    return s;
}

static logt_status read_shard(const char *path, shard *sh)
{
    logt_store *st;
    sh->path = path;
    LOGT_TRY(logt_store_open_read(path, &st));
    logt_status s = LOGT_OK;
    if (!logt_store_root_has(st, "shard_count"))
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s is not a shard file (it has no shard_count): logt merge "
                           "joins the files that `logt run EXP --shard I/N` writes", path);
    const struct { const char *name; char *buf; size_t n; } strs[] = {
        {"experiment", sh->experiment, sizeof sh->experiment},
        {"backend", sh->backend, sizeof sh->backend},
        {"git_commit", sh->commit, sizeof sh->commit},
        {"logt_version", sh->version, sizeof sh->version},
        {"format", sh->format, sizeof sh->format},
        {"created", sh->created, sizeof sh->created},
        {"updated", sh->updated, sizeof sh->updated},
    };
    for (size_t k = 0; s == LOGT_OK && k < sizeof strs / sizeof strs[0]; k++)
        s = logt_store_root_str(st, strs[k].name, strs[k].buf, strs[k].n);
    if (s == LOGT_OK) s = logt_store_root_text(st, "experiment_ini", &sh->ini);
    if (s == LOGT_OK) s = logt_store_root_i64(st, "shard_index", &sh->index);
    if (s == LOGT_OK) s = logt_store_root_i64(st, "shard_count", &sh->count);
    if (s == LOGT_OK) s = logt_store_root_i64(st, "sweep_runs", &sh->sweep_runs);
    if (s == LOGT_OK && (sh->count < 1 || sh->index < 0 || sh->index >= sh->count || sh->sweep_runs < 0))
        s = LOGT_USER_FAIL(LOGT_EIO, "%s says it is shard %lld/%lld of %lld runs: that is no shard "
                           "(the file is damaged)", path, (long long)sh->index, (long long)sh->count,
                           (long long)sh->sweep_runs);
    for (int k = 0; s == LOGT_OK && k < NJOINED; k++)
        if (logt_store_root_has(st, joined[k])) s = logt_store_root_text(st, joined[k], &sh->text[k]);
    if (s == LOGT_OK) s = read_runs(st, sh);
    logt_store_close(st);
    return s;
}

/* ---- checks ------------------------------------------------------------------------------ */

/* b against a: one experiment as run, one sweep split one way, one build of logt. */
static logt_status same_sweep(const shard *a, const shard *b)
{
    char la[200], lb[200];
    int line;
    if (strcmp(a->experiment, b->experiment))
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s and %s hold different experiments ('%s' and '%s'): "
                              "logt merge joins the shards of one sweep", a->path, b->path,
                              a->experiment, b->experiment);
    if ((line = logt_exp_text_diff(a->ini, b->ini, la, lb, sizeof la)))
        return LOGT_USER_FAIL(LOGT_EINVAL,
                              "%s and %s ran experiment '%s' with different settings: line %d of "
                              "their experiment_ini is '%s' and '%s'. The shards of one sweep run "
                              "the same experiment.ini with the same --set",
                              a->path, b->path, a->experiment, line, la, lb);
    if (strcmp(a->backend, b->backend))
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s and %s ran on different backends (%s and %s): the "
                              "shards of one sweep run on one", a->path, b->path, a->backend,
                              b->backend);
    if (a->count != b->count)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s is shard %lld/%lld and %s is shard %lld/%lld: the "
                              "shards of one sweep split it into one number of shards", a->path,
                              (long long)a->index, (long long)a->count, b->path, (long long)b->index,
                              (long long)b->count);
    if (a->sweep_runs != b->sweep_runs)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s and %s count %lld and %lld runs in the sweep: not "
                              "shards of one sweep", a->path, b->path, (long long)a->sweep_runs,
                              (long long)b->sweep_runs);
    if (strcmp(a->commit, b->commit))
        return LOGT_USER_FAIL(LOGT_EINVAL,
                              "%s and %s were written by different commits of logt (%s and %s), "
                              "whose runs may not be comparable. HINT: run the shards of one sweep "
                              "from one build; rerun the shards of the other commit", a->path,
                              b->path, a->commit, b->commit);
    if (strcmp(a->version, b->version) || strcmp(a->format, b->format))
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s and %s were written by different versions of logt "
                              "(%s, %s and %s, %s)", a->path, b->path, a->version, a->format,
                              b->version, b->format);
    return LOGT_OK;
}

static int cmp_shard(const void *a, const void *b)
{
    int64_t x = ((const shard *)a)->index, y = ((const shard *)b)->index;
    return (x > y) - (x < y);
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp((*(entry *const *)a)->key, (*(entry *const *)b)->key);
}

static int cmp_place(const void *a, const void *b)
{
    int64_t x = (*(entry *const *)a)->place, y = (*(entry *const *)b)->place;
    return (x > y) - (x < y);
}

/* Runs of shard i of n in a sweep of `total` runs: i, i + n, ... below total. */
static int64_t shard_runs(int64_t i, int64_t n, int64_t total)
{
    return i < total ? (total - 1 - i) / n + 1 : 0;
}

/* Append to the message in buf[n]. */
static void cat(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t n, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, n - used, fmt, ap);
    va_end(ap);
}

/* Every shard there (sh sorted by index, each once) and every run in it finished; otherwise
 * an error saying what is missing. */
static logt_status complete(const shard *sh, int n)
{
    const long long count = sh[0].count;
    char msg[4096] = "";
    int listed = 0, short_ = 0;
    for (long long i = 0, k = 0; i < count && listed < LISTED; i++) {
        if (k < n && sh[k].index == i) {
            k++;
            continue;
        }
        cat(msg, sizeof msg, "%s%lld/%lld", listed++ ? ", " : "shards missing: ", i, count);
    }
    if (count - n > listed) cat(msg, sizeof msg, " and %lld more", count - n - listed);
    for (int k = 0; k < n; k++) {
        const int64_t expected = shard_runs(sh[k].index, count, sh[k].sweep_runs);
        if (sh[k].nruns == expected) continue;
        if (short_++ < LISTED)
            cat(msg, sizeof msg, "%s%s (shard %lld/%lld) has finished %d of its %lld runs",
                *msg ? "; " : "", sh[k].path, (long long)sh[k].index, count, sh[k].nruns,
                (long long)expected);
    }
    if (short_ > LISTED) cat(msg, sizeof msg, " (and %d more shards)", short_ - LISTED);
    if (!*msg) return LOGT_OK;
    return LOGT_USER_FAIL(LOGT_EINVAL,
                          "the shards of '%s' are incomplete: %s. HINT: run what is missing (`logt "
                          "run EXP --shard I/%lld` resumes a shard where it stopped), or merge the "
                          "finished runs alone with --partial", sh[0].experiment, msg, count);
}

/* The shards sorted by index, each once; runs distinct and each in its own shard's places;
 * *order: every finished run, sorted by place, numbered for the merged file. */
static logt_status check_set(shard *sh, int n, int partial, entry ***order, int64_t *nout)
{
    for (int k = 1; k < n; k++) LOGT_TRY(same_sweep(&sh[0], &sh[k]));
    qsort(sh, (size_t)n, sizeof *sh, cmp_shard);
    for (int k = 1; k < n; k++)
        if (sh[k].index == sh[k - 1].index)
            return strcmp(sh[k].path, sh[k - 1].path)
                       ? LOGT_USER_FAIL(LOGT_EINVAL, "shard %lld/%lld is given twice: %s and %s hold "
                                        "the same runs", (long long)sh[k].index,
                                        (long long)sh[k].count, sh[k - 1].path, sh[k].path)
                       : LOGT_USER_FAIL(LOGT_EINVAL, "%s is given twice", sh[k].path);
    int64_t total = 0;
    for (int k = 0; k < n; k++) total += sh[k].nruns;
    entry **all = malloc((size_t)(total > 0 ? total : 1) * sizeof *all);
    if (!all) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    int64_t m = 0;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < sh[k].nruns; j++) {
            sh[k].runs[j].sh = &sh[k];
            all[m++] = &sh[k].runs[j];
        }
    logt_status s = LOGT_OK;
    qsort(all, (size_t)m, sizeof *all, cmp_key);
    for (int64_t j = 1; s == LOGT_OK && j < m; j++)
        if (!strcmp(all[j]->key, all[j - 1]->key))
            s = LOGT_USER_FAIL(LOGT_EINVAL, "run '%s' is in both %s (shard %lld/%lld) and %s (shard "
                               "%lld/%lld): a run belongs to one shard", all[j]->key,
                               all[j - 1]->sh->path, (long long)all[j - 1]->sh->index,
                               (long long)all[j - 1]->sh->count, all[j]->sh->path,
                               (long long)all[j]->sh->index, (long long)all[j]->sh->count);
    for (int64_t j = 0; s == LOGT_OK && j < m; j++) {
        const entry *e = all[j];
        if (e->place < 0 || e->place >= e->sh->sweep_runs || e->place % e->sh->count != e->sh->index)
            s = LOGT_USER_FAIL(LOGT_EINVAL, "%s (shard %lld/%lld of %lld runs) holds run '%s' at "
                               "place %lld of the sweep, which is not one of this shard's places",
                               e->sh->path, (long long)e->sh->index, (long long)e->sh->count,
                               (long long)e->sh->sweep_runs, e->key, (long long)e->place);
    }
    qsort(all, (size_t)m, sizeof *all, cmp_place);
    for (int64_t j = 1; s == LOGT_OK && j < m; j++)
        if (all[j]->place == all[j - 1]->place)
            s = LOGT_USER_FAIL(LOGT_EINVAL, "runs '%s' and '%s' of %s both claim place %lld of the "
                               "sweep", all[j - 1]->key, all[j]->key, all[j]->sh->path,
                               (long long)all[j]->place);
    if (s == LOGT_OK && !partial) s = complete(sh, n);
    if (s != LOGT_OK) {
        free(all);
        return s;
    }
    for (int64_t j = 0; j < m; j++) all[j]->out = j;
    *order = all;
    *nout = m;
    return LOGT_OK;
}

/* ---- the second pass: the merged file ------------------------------------------------------ */

/* The distinct values of root attribute joined[k] over the shards, in shard order, joined
 * by "; " (malloc'd; NULL when no shard has it). */
static char *join_distinct(const shard *sh, int n, int k)
{
    size_t len = 0;
    for (int i = 0; i < n; i++) len += sh[i].text[k] ? strlen(sh[i].text[k]) + 2 : 0;
    if (len == 0) return NULL;
    char *buf = calloc(1, len + 1);
    if (!buf) return NULL;
    for (int i = 0; i < n; i++) {
        const char *v = sh[i].text[k];
        int seen = !v;
        for (int j = 0; j < i && !seen; j++) seen = sh[j].text[k] && !strcmp(sh[j].text[k], v);
        if (seen) continue;
        if (*buf) strcat(buf, "; ");
        strcat(buf, v);
    }
    return buf;
}

/* Move the finished file to `out` without ever replacing a file there: link() fails when
 * out exists, atomically; a file system without hard links gets rename() after a last look. */
static logt_status put_in_place(const char *tmp, const char *out)
{
    struct stat sb;
    if (link(tmp, out) == 0) {
        unlink(tmp);
        return LOGT_OK;
    }
    int err = errno;
    if (err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == ENOSYS) {
        if (lstat(out, &sb) == 0) err = EEXIST;
        else if (rename(tmp, out) == 0) return LOGT_OK;
        else err = errno;
    }
    if (err == EEXIST)
        return LOGT_USER_FAIL(LOGT_EIO, "%s appeared while the shards were merged: logt merge never "
                              "replaces a file. HINT: move it away and merge again", out);
    return LOGT_USER_FAIL(LOGT_EIO, "cannot move the merged file %s to %s: %s", tmp, out,
                          strerror(err));
}

static logt_status copy_shard_runs(logt_store *dst, const shard *sh)
{
    logt_store *src;
    if (sh->nruns == 0) return LOGT_OK;
    LOGT_TRY(logt_store_open_read(sh->path, &src));
    logt_status s = LOGT_OK;
    for (int j = 0; s == LOGT_OK && j < sh->nruns; j++) {
        s = logt_store_copy_run(dst, src, sh->runs[j].id, sh->runs[j].out);
        if (s == LOGT_OK) s = logt_store_unset(dst, sh->runs[j].out, "", "sweep_index");
    }
    logt_store_close(src);
    return s;
}

static logt_status write_merged(const char *out, const char *tmp, const shard *sh, int n,
                                entry *const *order, int64_t nout)
{
    char *text[NJOINED];
    for (int k = 0; k < NJOINED; k++) text[k] = join_distinct(sh, n, k);
    char created[64], updated[64];
    logt_strlcpy(created, sizeof created, sh[0].created);
    logt_strlcpy(updated, sizeof updated, sh[0].updated);
    for (int k = 1; k < n; k++) {   /* ISO 8601 UTC times sort as text */
        if (strcmp(sh[k].created, created) < 0) logt_strlcpy(created, sizeof created, sh[k].created);
        if (strcmp(sh[k].updated, updated) > 0) logt_strlcpy(updated, sizeof updated, sh[k].updated);
    }
    logt_store_meta meta = {
        .experiment = sh[0].experiment, .experiment_ini = sh[0].ini, .backend = sh[0].backend,
        .git_commit = sh[0].commit, .host = text[0], .device = text[1],
        .driver_version = text[2], .cuda_runtime_version = text[3], .cudnn_version = text[4],
        .cublas_version = text[5],
    };
    logt_store *dst = NULL;
    logt_summary_row *rows = malloc((size_t)(nout > 0 ? nout : 1) * sizeof *rows);
    logt_status s = rows ? logt_store_open(tmp, &meta, &dst) : LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    for (int k = 0; s == LOGT_OK && k < n; k++) s = copy_shard_runs(dst, &sh[k]);
    for (int64_t j = 0; s == LOGT_OK && j < nout; j++) {
        rows[j] = order[j]->row;
        rows[j].run = j;
    }
    if (s == LOGT_OK) s = logt_store_add_rows(dst, rows, nout);
    if (s == LOGT_OK) s = logt_store_set_root_str(dst, "created", created);
    if (s == LOGT_OK) s = logt_store_set_root_str(dst, "updated", updated);
    if (s == LOGT_OK) s = logt_store_set_root_str(dst, "logt_version", sh[0].version);
    logt_status c = logt_store_close(dst);
    if (s == LOGT_OK) s = c;
    if (s == LOGT_OK) s = put_in_place(tmp, out);
    free(rows);
    for (int k = 0; k < NJOINED; k++) free(text[k]);
    return s;
}

logt_status logt_merge(const char *out, char *const *in, int nin, int partial,
                       logt_merge_report *rep)
{
    memset(rep, 0, sizeof *rep);
    struct stat sb;
    if (lstat(out, &sb) == 0)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s exists: logt merge writes a new file and never "
                              "replaces one. HINT: merge into another file with --out NEW.h5, or "
                              "move %s away", out, out);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.merging-%ld", out, (long)getpid());
    if (lstat(tmp, &sb) == 0)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s is in the way (left by a merge that was killed?): "
                              "remove it and merge again", tmp);
    shard *sh = calloc((size_t)(nin > 0 ? nin : 1), sizeof *sh);
    if (!sh) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    logt_status s = nin > 0 ? LOGT_OK : LOGT_USER_FAIL(LOGT_EINVAL, "no shard files to merge");
    for (int k = 0; s == LOGT_OK && k < nin; k++) s = read_shard(in[k], &sh[k]);
    entry **order = NULL;
    int64_t nout = 0;
    if (s == LOGT_OK) s = check_set(sh, nin, partial, &order, &nout);
    if (s == LOGT_OK) {
        s = write_merged(out, tmp, sh, nin, order, nout);
        if (s != LOGT_OK) unlink(tmp);
    }
    if (s == LOGT_OK) {
        logt_strlcpy(rep->experiment, sizeof rep->experiment, sh[0].experiment);
        rep->shards = nin;
        rep->nshards = (int)sh[0].count;
        rep->sweep_total = (int)sh[0].sweep_runs;
        rep->runs = (int)nout;
        for (int64_t j = 0; j < nout; j++) {
            if (!strcmp(order[j]->row.status, "ok")) rep->ok++;
            else if (!strcmp(order[j]->row.status, "skipped")) rep->skipped++;
            else rep->failed++;
        }
    }
    free(order);
    for (int k = 0; k < nin; k++) shard_free(&sh[k]);
    free(sh);
    return s;
}

int logt_merge_out_name(const char *shard_path, char *buf, size_t n)
{
    const char *dot = NULL;
    for (const char *p = strstr(shard_path, ".shard-"); p; p = strstr(p + 1, ".shard-")) dot = p;
    int i, count, used = -1;
    if (!dot || sscanf(dot, ".shard-%d-of-%d.h5%n", &i, &count, &used) != 2 || used < 0 ||
        dot[used] != '\0')
        return -1;
    snprintf(buf, n, "%.*s.h5", (int)(dot - shard_path), shard_path);
    return 0;
}
