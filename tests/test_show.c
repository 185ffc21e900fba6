/* test_show.c — `logt show FILE` end to end, on a results file of tiny CPU speed runs made
 * through the CLI (14 runs: lstm with two knob values and gilr, T = 8, 4, two passes, and two
 * lstm runs that fail on head_dim = 3): the table's columns and row order, --where,
 * --columns, --sort, CSV and JSON read back by small parsers here, unknown names, a file of
 * an older logt, files that are not results files, and the file left byte for byte.
 */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "h5attr.h"

static void setup(void) { cli_setup("show"); }

TestSuite(show, .init = setup, .fini = cli_teardown, .timeout = 60);

static char out[65536];   /* stdout of the last logt */

static const char *const show_ini =
    "[experiment]\n"
    "name = tinyshow\n"
    "models = lstm, gilr\n"
    "kind = speed\n"
    "\n"
    "[sweep]\n"
    "T = 8, 4\n"
    "B = 2\n"
    "D = 4\n"
    "pass = forward, fwdbwd\n"
    "\n"
    "[speed]\n"
    "warmup = 0\n"
    "repeats = 2\n"
    "\n"
    "[model.lstm]\n"
    "forget_init = default, 1\n";

/* r.h5: runs 0-11 in sweep order (lstm first, T = 8 first), then 12 and 13, lstm T=4 forward
 * head_dim=3, failed. */
static void make_results(void)
{
    write_at("exp/experiment.ini", show_ini);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5"), 0, "%s", err);
    cr_assert_eq(logt(NULL, "run exp --backend cpu --out r.h5 --set experiment.models=lstm "
                            "--set sweep.T=4 --set sweep.pass=forward --set sweep.head_dim=3"),
                 1, "%s", err);
}

/* `logt args` with its stdout in out; the exit status. */
static int show(const char *args)
{
    int rc = logt(NULL, args);
    read_at("stdout.txt", out, sizeof out);
    return rc;
}

/* The line of out that starts with `start` (after blanks), or NULL. */
static const char *line_starting(const char *start)
{
    for (const char *p = out; *p; p = strchr(p, '\n') + 1) {
        const char *q = p + strspn(p, " ");
        if (!strncmp(q, start, strlen(start))) return p;
        if (!strchr(p, '\n')) break;
    }
    return NULL;
}

/* The first words of the table's data lines (after the rule), joined by blanks. */
static void first_words(char *buf, size_t n)
{
    const char *p = strstr(out, "\n---");
    cr_assert_not_null(p, "no table in:\n%s", out);
    size_t used = 0;
    buf[0] = '\0';
    for (p = strchr(p + 1, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        const char *w = p + 1 + strspn(p + 1, " ");
        used += (size_t)snprintf(buf + used, n - used, "%s%.*s", used ? " " : "", (int)strcspn(w, " \n"), w);
    }
}

/* The header's words, joined by blanks. */
static void header_words(const char *header, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const char *p = header; *p && *p != '\n';) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " \n");
        if (len) used += (size_t)snprintf(buf + used, n - used, "%s%.*s", used ? " " : "", (int)len, p);
        p += len;
    }
}

/* ---- the table ---------------------------------------------------------------------- */

Test(show, table_shows_what_tells_runs_apart_in_sweep_order)
{
    make_results();
    cr_assert_eq(show("show r.h5"), 0, "%s", err);
    cr_assert(strstr(out, "r.h5: experiment tinyshow, 14 runs\n"), "%s", out);
    cr_assert(strstr(out, "backend cpu"), "%s", out);
    cr_assert(strstr(out, "git_commit ") && strstr(out, "created "), "%s", out);

    /* one kind, backend and B: no columns for them; head_dim differs; the error last */
    const char *header = line_starting("run ");
    cr_assert_not_null(header, "%s", out);
    char words[512];
    header_words(header, words, sizeof words);
    cr_assert_str_eq(words, "run model T head_dim pass knobs median_ms p10_ms p90_ms tokens_per_s "
                            "status error", "%s", out);

    /* kind, model, then T, head_dim, pass (axes in table order), then knobs */
    char runs[256];
    first_words(runs, sizeof runs);
    cr_assert_str_eq(runs, "10 11 8 9 5 4 7 6 13 12 1 0 3 2", "%s", out);

    /* numbers right-aligned, text left; no value is empty, not "nan" */
    const char *five = line_starting("5 ");
    cr_assert(five && !strncmp(five, "  5  lstm   4  ", 15), "%s", out);
    const char *failed = line_starting("13 ");
    cr_assert_not_null(failed);
    cr_assert(strstr(failed, "forget_init=1") && strstr(failed, "failed  model.c") &&
              strstr(failed, "lstm has one head: head_dim must be 0 or D = 4, not 3"), "%s", out);
    cr_assert_null(strstr(out, "nan"), "%s", out);
    cr_assert_null(strstr(out, " \n"), "a line ends in blanks:\n%s", out);
}

Test(show, where_filters_like_a_plot)
{
    make_results();
    char runs[256];
    cr_assert_eq(show("show r.h5 --where model=lstm,T=4,forget_init=1"), 0, "%s", err);
    cr_assert(strstr(out, "14 runs, 3 shown"), "%s", out);
    first_words(runs, sizeof runs);
    cr_assert_str_eq(runs, "5 7 13", "%s", out);
    char words[512];
    header_words(line_starting("run "), words, sizeof words);   /* one T shown: no column */
    cr_assert_str_eq(words, "run model head_dim pass knobs median_ms p10_ms p90_ms tokens_per_s "
                            "status error", "%s", out);

    cr_assert_eq(show("show r.h5 --where 'model=gilr|lstm' --where pass=fwdbwd,T=8"), 0, "%s", err);
    first_words(runs, sizeof runs);
    cr_assert_str_eq(runs, "9 3 2", "%s", out);

    cr_assert_eq(show("show r.h5 --where status=failed"), 0, "%s", err);
    first_words(runs, sizeof runs);
    cr_assert_str_eq(runs, "13 12", "%s", out);
    cr_assert_null(strstr(out, "median_ms"), "no run shown was timed:\n%s", out);

    /* none: the header, and a line on stderr */
    cr_assert_eq(show("show r.h5 --where model=gru"), 0, "%s", err);
    EXPECT_ERR("(no runs match --where model=gru)");
    EXPECT_ERR("(no run has model=gru; model is lstm, gilr in r.h5)");
    cr_assert(line_starting("run "), "%s", out);

    /* each filter keeps some run, the two together none: no values to suggest */
    cr_assert_eq(show("show r.h5 --where model=gilr,head_dim=3"), 0, "%s", err);
    EXPECT_ERR("(no runs match --where model=gilr,head_dim=3)");
    cr_assert_null(strstr(err, "no run has"), "%s", err);
}

Test(show, columns_and_sort_are_the_users)
{
    make_results();
    cr_assert_eq(show("show r.h5 --columns tokens_per_s,run,forget_init,C,status"), 0, "%s", err);
    char words[512];
    header_words(line_starting("tokens_per_s"), words, sizeof words);
    cr_assert_str_eq(words, "tokens_per_s run forget_init C status", "%s", out);
    header_words(line_starting("13 "), words, sizeof words);   /* tokens_per_s empty */
    cr_assert_str_eq(words, "13 1 8 failed", "%s", out);

    /* descending */
    char runs[256];
    cr_assert_eq(show("show r.h5 --sort -run --columns run,model"), 0, "%s", err);
    first_words(runs, sizeof runs);
    cr_assert_str_eq(runs, "13 12 11 10 9 8 7 6 5 4 3 2 1 0", "%s", out);

    /* gilr has no forget_init: first; T descending; then by time, no value (failed) last */
    static const int group[14] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6, 7};
    static const int in_group[8][2] = {{8, 9}, {10, 11}, {1, 3}, {5, 7}, {13, 13}, {0, 2}, {4, 6}, {12, 12}};
    cr_assert_eq(show("show r.h5 --sort forget_init,-T,median_ms --columns run"), 0, "%s", err);
    first_words(runs, sizeof runs);
    const char *p = runs;
    for (int k = 0; k < 14; k++) {
        char *end;
        long r = strtol(p, &end, 10);
        cr_assert(end > p, "%s", runs);
        cr_assert(r == in_group[group[k]][0] || r == in_group[group[k]][1], "place %d: %s", k, runs);
        p = end;
    }
}

/* ---- csv and json ------------------------------------------------------------------- */

/* RFC 4180 records of text: the fields of each into fields[r][f] (at most 16 of 256 bytes),
 * their number into nf[r]; the number of records. */
static int parse_csv(const char *s, char fields[][16][256], int *nf, int max)
{
    int r = 0;
    while (*s && r < max) {
        int f = 0;
        for (;;) {
            char *dst = fields[r][f];
            size_t len = 0;
            if (*s == '"') {
                for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
                    if (*s == '"') s++;   /* a doubled quote */
                    if (len < 255) dst[len++] = *s;
                }
                cr_assert_eq(*s, '"', "an unterminated quote");
                s++;
            } else {
                for (; *s && *s != ',' && *s != '\n'; s++)
                    if (len < 255) dst[len++] = *s;
            }
            dst[len] = '\0';
            f++;
            cr_assert_lt(f, 16);
            if (*s == ',') {
                s++;
                continue;
            }
            cr_assert(*s == '\n' || !*s, "a quoted field with text after it");
            if (*s) s++;
            break;
        }
        nf[r++] = f;
    }
    return r;
}

Test(show, csv_reads_back)
{
    make_results();
    cr_assert_eq(show("show r.h5 --format csv --columns run,model,knobs,median_ms,T,error"), 0, "%s", err);
    static char fields[32][16][256];
    int nf[32];
    int n = parse_csv(out, fields, nf, 32);
    cr_assert_eq(n, 15, "%s", out);
    for (int r = 0; r < n; r++) cr_assert_eq(nf[r], 6, "record %d:\n%s", r, out);
    cr_assert_str_eq(fields[0][0], "run");
    cr_assert_str_eq(fields[0][5], "error");
    cr_assert_str_eq(fields[1][0], "10");   /* the table's order */
    for (int r = 1; r < n; r++) {
        if (strcmp(fields[r][0], "13")) continue;
        cr_assert_str_eq(fields[r][2], "forget_init=1");
        cr_assert_str_eq(fields[r][3], "", "NaN is empty");
        cr_assert_str_eq(fields[r][4], "4");
        /* the error has commas: quoted, and read back whole */
        cr_assert(strstr(fields[r][5], "head_dim must be 0 or D = 4, not 3"), "%s", fields[r][5]);
    }
    cr_assert(strstr(out, ",\"model.c:"), "the error is quoted:\n%s", out);
    cr_assert_null(strstr(out, "---"), "csv has no rule:\n%s", out);
    cr_assert_null(strstr(out, "tinyshow"), "csv has no provenance:\n%s", out);
}

/* A minimal JSON reader: does s hold one value? *count: the elements of a top-level array. */
static const char *json_value(const char *s, int depth, int *count);

static const char *json_ws(const char *s) { return s + strspn(s, " \t\r\n"); }

static const char *json_string(const char *s)
{
    if (*s != '"') return NULL;
    for (s++; *s && *s != '"'; s++) {
        if ((unsigned char)*s < 0x20) return NULL;
        if (*s == '\\' && !*++s) return NULL;
    }
    return *s == '"' ? s + 1 : NULL;
}

static const char *json_items(const char *s, char close, int depth, int *count)
{
    s = json_ws(s + 1);
    if (*s == close) return s + 1;
    for (;;) {
        if (close == '}') {
            if (!(s = json_string(json_ws(s)))) return NULL;
            s = json_ws(s);
            if (*s++ != ':') return NULL;
        }
        if (!(s = json_value(s, depth + 1, NULL))) return NULL;
        if (count) ++*count;
        s = json_ws(s);
        if (*s == close) return s + 1;
        if (*s++ != ',') return NULL;
    }
}

static const char *json_value(const char *s, int depth, int *count)
{
    s = json_ws(s);
    if (depth > 8) return NULL;
    if (*s == '[') return json_items(s, ']', depth, count);
    if (*s == '{') return json_items(s, '}', depth, NULL);
    if (*s == '"') return json_string(s);
    for (const char *lit = "null\0true\0false\0"; *lit; lit += strlen(lit) + 1)
        if (!strncmp(s, lit, strlen(lit))) return s + strlen(lit);
    char *end;
    if (*s != '-' && (*s < '0' || *s > '9')) return NULL;
    strtod(s, &end);
    return end > s ? end : NULL;
}

Test(show, json_is_an_array_of_objects)
{
    make_results();
    cr_assert_eq(show("show r.h5 --format json"), 0, "%s", err);
    int count = 0;
    const char *end = json_value(out, 0, &count);
    cr_assert_not_null(end, "not JSON:\n%s", out);
    cr_assert_eq(*json_ws(end), '\0', "text after the array:\n%s", out);
    cr_assert_eq(count, 14, "%s", out);
    cr_assert(strstr(out, "{\"run\": 10, \"model\": \"gilr\", \"T\": 4, \"head_dim\": 0, \"pass\": "
                          "\"forward\", \"knobs\": \"\", \"median_ms\": "), "%s", out);
    cr_assert(strstr(out, "{\"run\": 13, \"model\": \"lstm\", \"T\": 4, \"head_dim\": 3, \"pass\": "
                          "\"forward\", \"knobs\": \"forget_init=1\", \"median_ms\": null, "),
              "NaN is null:\n%s", out);
    cr_assert(strstr(out, "\"status\": \"failed\", \"error\": \"model.c:"), "%s", out);

    cr_assert_eq(show("show r.h5 --format json --where model=gru"), 0, "%s", err);
    cr_assert_str_eq(out, "[]\n");
}

/* ---- names and files that are refused --------------------------------------------------- */

Test(show, unknown_names_are_errors_naming_the_known)
{
    make_results();
    cr_assert_eq(show("show r.h5 --where colour=red"), 2, "%s", err);
    EXPECT_ERR("unknown field 'colour' in --where (known: run, kind, model, backend");
    EXPECT_ERR("head_dim");
    EXPECT_ERR("forget_init");   /* a knob of this file */
    EXPECT_ERR("Try 'logt show --help'");
    cr_assert_str_eq(out, "");

    cr_assert_eq(show("show r.h5 --columns run,speed"), 2, "%s", err);
    EXPECT_ERR("unknown column 'speed' in --columns (known: ");
    EXPECT_ERR("median_ms");
    EXPECT_ERR("error)");
    cr_assert_eq(show("show r.h5 --sort -speed"), 2, "%s", err);
    EXPECT_ERR("unknown sort key 'speed' in --sort");

    cr_assert_eq(show("show"), 2, "%s", err);
    EXPECT_ERR("show needs a results FILE");
    cr_assert_eq(show("show r.h5 --format xml"), 2, "%s", err);
    EXPECT_ERR("--format expects table, csv or json, got 'xml'");
    cr_assert_eq(show("show r.h5 --where model"), 2, "%s", err);
    EXPECT_ERR("--where expects FIELD=VALUE or FIELD=V1|V2, got 'model'");
    cr_assert_eq(show("show r.h5 other.h5"), 2, "%s", err);
    cr_assert_eq(show("show --help"), 0, "%s", err);
    cr_assert(strstr(out, "usage: logt show FILE"), "%s", out);
}

/* The whole file at rel, malloc'd; its size in *n. */
static char *slurp(const char *rel, size_t *n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    char *buf = malloc(*n + 1);
    cr_assert_eq(fread(buf, 1, *n, f), *n);
    fclose(f);
    return buf;
}

static void expect_same_file(const char *rel, const char *before, size_t n)
{
    size_t m;
    char *now = slurp(rel, &m);
    cr_assert(m == n && !memcmp(now, before, n), "%s changed", rel);
    free(now);
}

Test(show, reads_without_lock_or_change)
{
    make_results();
    size_t n;
    char *before = slurp("r.h5", &n);
    struct stat a, b;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/r.h5", dir);
    cr_assert_eq(stat(path, &a), 0);
    /* a writer's lock in place: a reader neither needs it nor touches it */
    write_at("r.h5.lock", "otherhost 12345 1\n");
    cr_assert_eq(show("show r.h5"), 0, "%s", err);
    cr_assert_eq(show("show r.h5 --format csv --where model=lstm"), 0, "%s", err);
    cr_assert_eq(show("show r.h5 --format json --sort -median_ms --columns run,error"), 0, "%s", err);
    cr_assert_eq(show("info r.h5"), 0, "%s", err);
    expect_same_file("r.h5", before, n);
    cr_assert_eq(stat(path, &b), 0);
    cr_assert(a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
    char lock[64];
    read_at("r.h5.lock", lock, sizeof lock);
    cr_assert_str_eq(lock, "otherhost 12345 1\n");
    free(before);
}

Test(show, info_of_a_file_is_show)
{
    make_results();
    static char shown[65536];
    cr_assert_eq(show("show r.h5 --where pass=fwdbwd"), 0, "%s", err);
    memcpy(shown, out, sizeof shown);
    cr_assert_eq(show("info r.h5 --where pass=fwdbwd"), 0, "%s", err);
    cr_assert_str_eq(out, shown);
    cr_assert_eq(show("info"), 0, "%s", err);   /* the machine, as before */
    cr_assert(strstr(out, "logt ") && strstr(out, "cpu:"), "%s", out);
    cr_assert_eq(show("info missing.h5"), 1, "%s", err);
    EXPECT_ERR("no results file missing.h5");
}

Test(show, files_that_are_not_results_are_refused_unchanged)
{
    write_at("notes.h5", "this is not HDF5\n");
    cr_assert_eq(show("show notes.h5"), 1, "%s", err);
    EXPECT_ERR("logt: error: cannot show notes.h5: it is not a valid HDF5 file");
    cr_assert_null(strstr(err, "HINT"), "a writer's hint:\n%s", err);
    char text[64];
    read_at("notes.h5", text, sizeof text);
    cr_assert_str_eq(text, "this is not HDF5\n");
    cr_assert_str_eq(out, "");

    cr_assert_eq(show("show missing.h5"), 1, "%s", err);
    EXPECT_ERR("logt: error: no results file missing.h5: No such file or directory");
    write_at("sub/x", "");
    cr_assert_eq(show("show sub"), 1, "%s", err);
    EXPECT_ERR("cannot show sub: it is a directory");

    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/other.h5", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    H5Gclose(H5Gcreate2(f, "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
    size_t n;
    char *before = slurp("other.h5", &n);
    cr_assert_eq(show("show other.h5"), 1, "%s", err);
    EXPECT_ERR("cannot show other.h5: it is an HDF5 file but not a logt results file (no /runs or /summary)");
    expect_same_file("other.h5", before, n);
    free(before);
}

/* ---- a file of an older logt ------------------------------------------------------------ */

/* A results file whose /summary has a few of today's columns (as one of an older logt
 * lacks the newer ones): run, kind, model, backend, T, status, median_ms. */
static void write_old_file(const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    hid_t f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(f, 0, "cannot create %s", path);
    h5_str_attr(f, "format", "logt-results 1");
    h5_str_attr(f, "experiment", "old");
    hid_t runs = H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(runs, "000000", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    h5_str_attr(g, "key", "speed model=lstm T=256");
    h5_str_attr(g, "status", "ok");
    H5Gclose(g);
    H5Gclose(runs);

    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(logt_summary_row));
    const struct { const char *name; size_t off, size; } strs[] = {
        {"kind", offsetof(logt_summary_row, kind), sizeof ((logt_summary_row *)0)->kind},
        {"model", offsetof(logt_summary_row, model), sizeof ((logt_summary_row *)0)->model},
        {"backend", offsetof(logt_summary_row, backend), sizeof ((logt_summary_row *)0)->backend},
        {"status", offsetof(logt_summary_row, status), sizeof ((logt_summary_row *)0)->status},
    };
    H5Tinsert(t, "run", offsetof(logt_summary_row, run), H5T_NATIVE_INT64);
    H5Tinsert(t, "T", offsetof(logt_summary_row, T), H5T_NATIVE_INT64);
    H5Tinsert(t, "median_ms", offsetof(logt_summary_row, median_ms), H5T_NATIVE_DOUBLE);
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        hid_t s = H5Tcopy(H5T_C_S1);
        H5Tset_size(s, strs[i].size);
        H5Tset_cset(s, H5T_CSET_UTF8);
        H5Tinsert(t, strs[i].name, strs[i].off, s);
        H5Tclose(s);
    }
    logt_summary_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.kind, sizeof row.kind, "speed");
    snprintf(row.model, sizeof row.model, "lstm");
    snprintf(row.backend, sizeof row.backend, "cuda");
    snprintf(row.status, sizeof row.status, "ok");
    row.T = 256, row.median_ms = 1.5;
    hsize_t dims = 1;
    hid_t sp = H5Screate_simple(1, &dims, NULL);
    hid_t d = H5Dcreate2(f, "summary", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(d, 0);
    cr_assert_geq(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &row), 0);
    H5Dclose(d);
    H5Sclose(sp);
    H5Tclose(t);
    H5Fclose(f);
}

Test(show, older_file_is_shown_with_a_note)
{
    write_old_file("old.h5");
    size_t n;
    char *before = slurp("old.h5", &n);
    cr_assert_eq(show("show old.h5"), 0, "%s", err);
    EXPECT_ERR("logt: old.h5: written by an older logt; its /summary has no columns task, knobs, impl, "
               "B, D, ");
    EXPECT_ERR("gbps, ");
    EXPECT_ERR(": shown empty\n");
    cr_assert(strstr(out, "old.h5: experiment old, 1 run\n"), "%s", out);
    char words[256];
    header_words(line_starting("run "), words, sizeof words);
    cr_assert_str_eq(words, "run model median_ms status", "%s", out);
    header_words(line_starting("0 "), words, sizeof words);
    cr_assert_str_eq(words, "0 lstm 1.500 ok", "%s", out);
    expect_same_file("old.h5", before, n);
    free(before);
}
