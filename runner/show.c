/* show.c — `logt show FILE`: the runs of a results file, one line each from its /summary,
 * as an aligned table under a few lines of the file's provenance, or as CSV or JSON for
 * other programs. --where picks runs with a plot's filters (rows.h), --columns and --sort
 * name fields and measures; by default the columns are those that tell the runs shown apart
 * and the order is the sweep's (kind, model, the axes in table order, knobs).
 *
 * The file is only read (logt_store_open_read: no writer's lock, nothing written), so a file
 * that `logt run` is writing can be shown. `logt info FILE` is the same command.
 */
#define _GNU_SOURCE   /* strverscmp */
#include "show.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axes.h"
#include "config.h"
#include "rows.h"
#include "store.h"
#include "util.h"

static const char *const show_usage =
    "usage: logt show FILE [--where F=V,...] [--columns A,B,...] [--format table|csv|json]\n"
    "                      [--sort A,B,...]\n";

static const char *const show_help =
    "\n"
    "Print the runs of a results file (its /summary: one line per finished run): a table\n"
    "under the file's experiment, device, commit and dates, or CSV or JSON for other programs\n"
    "(pandas.read_csv, pandas.read_json). The file is only read: no lock is taken and nothing\n"
    "is written, so a file that `logt run` is writing can be shown.\n"
    "\n"
    "options:\n"
    "  --where F=V,...   the runs where every filter holds: FIELD=VALUE or FIELD=V1|V2, as a\n"
    "                    plot's where; fields: run, kind, model, backend, task, the sweep keys\n"
    "                    (T, B, D, C = B*D, head_dim, dtype, pass, ...), knobs, impl, status,\n"
    "                    and any knob name (algo, kernel, ...). May be given more than once\n"
    "  --columns A,...   these columns, in this order: any field, a measure (median_ms, p10_ms,\n"
    "                    tokens_per_s, final_eval_acc, test_acc, solve_s, gbps, pct_of_copy,\n"
    "                    ...), status, error (a failed run's message). Default: run, model;\n"
    "                    kind, backend, task and the sweep keys where the runs shown differ;\n"
    "                    knobs, the measures some run has, status, and error where one failed\n"
    "  --sort A,...      order by these fields or measures (-NAME: descending); default: kind,\n"
    "                    model, the sweep keys in sweep order (numbers by value), knobs\n"
    "  --format F        table (default; 4 significant digits, empty where there is no value),\n"
    "                    csv (a header line, RFC 4180 quoting, full precision, empty for NaN)\n"
    "                    or json (an array of objects; numbers as numbers, null for NaN)\n"
    "\n"
    "`logt info FILE` is `logt show FILE`.\n"
    "exit status: 0 ok (also when no run matches), 1 an error, 2 a usage error.\n";

enum { MAX_COLS = 96, CELL = 512, ERROR_LEN = 4096 };

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON } show_format;
typedef enum { COL_FIELD, COL_MEASURE, COL_ERROR } col_kind;

/* A column of the output, or a key of the order. */
typedef struct show_col {
    char name[LOGT_WORD];
    col_kind kind;
    int numeric;      /* right-aligned in the table, a number in JSON */
    int descending;   /* a --sort key written -NAME */
    size_t width;     /* in the table: its widest cell, the header's included */
} show_col;

typedef struct show {
    const char *file, *columns, *sort;   /* the options as given (NULL: not given) */
    show_format fmt;
    logt_list where;
    logt_store *st;
    logt_summary_row *rows;   /* /summary [nrows] */
    int64_t nrows, nshown;
    int64_t *shown;           /* indices into rows: those --where keeps, in output order */
    char **errors;            /* [nrows]: a run's error attribute (NULL: none, or not read) */
    logt_list knobs;          /* the knob names of any row, first seen first */
    show_col cols[MAX_COLS], keys[MAX_COLS];
    int ncols, nkeys;
} show;

/* ---- the command line ----------------------------------------------------------------- */

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "logt: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%sTry 'logt show --help'.\n", show_usage);
    return 2;
}

static int fail(void)
{
    fprintf(stderr, "logt: error: %s\n", logt_user_msg());
    return 1;
}

/* "--name value" or "--name=value": the value (NULL: not this option; *bad: no value). */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *bad)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n)) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n]) return NULL;
    if (*i + 1 >= argc) *bad = 1;
    return *bad ? NULL : argv[++*i];
}

/* --where's filters added to sh->where, each FIELD=VALUE or FIELD=V1|V2. */
static int add_filters(show *sh, const char *v)
{
    logt_list l, alts;
    if (logt_list_split(v, ',', &l) != LOGT_OK) return usage("--where: %s", logt_user_msg());
    for (int k = 0; k < l.n; k++) {
        const char *eq = strchr(l.v[k], '=');
        if (!eq || eq == l.v[k] || logt_list_split(eq + 1, '|', &alts) != LOGT_OK)
            return usage("--where expects FIELD=VALUE or FIELD=V1|V2, got '%s'", l.v[k]);
        if (sh->where.n == LOGT_LIST_MAX) return usage("more than %s filters in --where", "64");
        logt_strlcpy(sh->where.v[sh->where.n++], LOGT_WORD, l.v[k]);
    }
    return 0;
}

/* 0, 2 for a usage error, -1 after --help. */
static int parse(int argc, char **argv, show *sh)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v, *format = NULL;
        int bad = 0, rc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return fputs(show_usage, stdout), fputs(show_help, stdout), -1;
        if ((v = opt_value(argc, argv, &i, "--where", &bad))) {
            if ((rc = add_filters(sh, v))) return rc;
        } else if ((v = opt_value(argc, argv, &i, "--columns", &bad))) {
            sh->columns = v;
        } else if ((v = opt_value(argc, argv, &i, "--sort", &bad))) {
            sh->sort = v;
        } else if ((format = opt_value(argc, argv, &i, "--format", &bad))) {
            if (!strcmp(format, "table")) sh->fmt = FMT_TABLE;
            else if (!strcmp(format, "csv")) sh->fmt = FMT_CSV;
            else if (!strcmp(format, "json")) sh->fmt = FMT_JSON;
            else return usage("--format expects table, csv or json, got '%s'", format);
        } else if (bad) {
            return usage("%s needs a value", a);
        } else if (a[0] == '-' && a[1]) {
            return usage("unknown option '%s'", a);
        } else if (!sh->file) {
            sh->file = a;
        } else {
            return usage("unexpected argument '%s': show takes one results file", a);
        }
    }
    if (!sh->file) return usage("%s", "show needs a results FILE (results/NAME.h5)");
    return 0;
}

int logt_show_names_file(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        struct stat sb;
        size_t n = strlen(argv[i]);
        if (argv[i][0] == '-') continue;
        if ((n > 3 && !strcmp(argv[i] + n - 3, ".h5")) || (stat(argv[i], &sb) == 0 && S_ISREG(sb.st_mode)))
            return 1;
    }
    return 0;
}

/* ---- the file ------------------------------------------------------------------------- */

/* The store's message for a reader: the file called "it" ("X is not ..." -> "it is not
 * ..."), and without what it says to writers (a HINT about --out, that logt will not
 * overwrite the file), as a reader changes nothing. */
static void reader_msg(const char *file, const char *msg, char *buf, size_t n)
{
    static const char *const cuts[] = {" HINT: ", ": logt will not overwrite"};
    const char *colon = strstr(msg, ".c:");   /* an HDF5 failure's source place, "store.c:419: " */
    if (colon && colon - msg < 32 && !memchr(msg, ' ', (size_t)(colon - msg))) {
        const char *p = colon + 3;
        while (*p >= '0' && *p <= '9') p++;
        if (p > colon + 3 && p[0] == ':' && p[1] == ' ') msg = p + 2;
    }
    const size_t len = strlen(file);
    if (!strncmp(msg, file, len) && msg[len] == ' ') snprintf(buf, n, "it%s", msg + len);
    else logt_strlcpy(buf, n, msg);
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        char *p = strstr(buf, cuts[k]);
        if (p) *p = '\0';
    }
    const size_t end = strlen(buf);
    if (end && buf[end - 1] == '.') buf[end - 1] = '\0';
}

/* The file opened to read, its rows read, and the knob names of its rows. */
static int open_file(show *sh)
{
    struct stat sb;
    char why[2048];
    if (stat(sh->file, &sb) != 0) {
        LOGT_USER_FAIL(LOGT_EIO, "no results file %s: %s", sh->file, strerror(errno));
        return fail();
    }
    if (S_ISDIR(sb.st_mode)) {
        LOGT_USER_FAIL(LOGT_EINVAL, "cannot show %s: it is a directory, not a results file", sh->file);
        return fail();
    }
    if (logt_store_open_read(sh->file, &sh->st) != LOGT_OK ||
        logt_store_summary(sh->st, &sh->rows, &sh->nrows) != LOGT_OK) {
        reader_msg(sh->file, logt_user_msg(), why, sizeof why);
        LOGT_USER_FAIL(LOGT_EIO, "cannot show %s: %s", sh->file, why);
        return fail();
    }
    for (int64_t i = 0; i < sh->nrows; i++) {   /* "algo=standard,math=fp32" */
        logt_list items;
        if (logt_list_split(sh->rows[i].knobs, ',', &items) != LOGT_OK) continue;
        for (int k = 0; k < items.n && sh->knobs.n < LOGT_LIST_MAX; k++) {
            items.v[k][strcspn(items.v[k], "=")] = '\0';
            if (logt_list_find(&sh->knobs, items.v[k]) < 0)
                logt_strlcpy(sh->knobs.v[sh->knobs.n++], LOGT_WORD, items.v[k]);
        }
    }
    return 0;
}

/* The columns of logt_summary_row besides the axes and measures, in its order: those
 * messages list before the axes, and after them. */
static const char *const columns_first[] = {"run", "kind", "model", "backend", "task", NULL};
static const char *const columns_then[] = {"knobs", "impl", "status", NULL};

/* A file of an older logt lacks the newer columns of /summary: the store reads them
 * empty, and the user hears so once. */
static void note_older_layout(const show *sh)
{
    char missing[1024] = "";
    size_t used = 0;
    int n = 0;
    const char *name;
    for (int part = 0; part < 4; part++)
        for (int i = 0;; i++) {
            name = part == 0   ? columns_first[i]
                   : part == 1 ? columns_then[i]
                   : part == 2 ? (i < logt_naxes ? logt_axes[i].name : NULL)
                               : logt_plot_run_measure(i);
            if (!name) break;
            if (logt_store_summary_has(sh->st, name) || used >= sizeof missing) continue;
            used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%s", n++ ? ", " : "", name);
        }
    if (n)
        fprintf(stderr, "logt: %s: written by an older logt; its /summary has no column%s %s: shown "
                "empty\n", sh->file, n > 1 ? "s" : "", missing);
}

/* Each shown run's error attribute, once. */
static int read_errors(show *sh)
{
    if (sh->errors) return 0;
    if (!(sh->errors = calloc((size_t)(sh->nrows ? sh->nrows : 1), sizeof *sh->errors))) {
        LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        return fail();
    }
    char buf[ERROR_LEN];
    for (int64_t k = 0; k < sh->nshown; k++) {
        const int64_t i = sh->shown[k], id = sh->rows[i].run;
        if (!logt_store_has(sh->st, id, "", "error")) continue;
        if (logt_store_get_str(sh->st, id, "", "error", buf, sizeof buf) != LOGT_OK) return fail();
        if (*buf && !(sh->errors[i] = strdup(buf))) {
            LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
            return fail();
        }
    }
    return 0;
}

/* ---- names: fields, measures, columns ------------------------------------------------- */

static int is_run_measure(const char *name)
{
    int curve = 1;
    return logt_plot_is_measure(name, &curve) && !curve;
}

/* A field of the rows: a column, an axis, C, or a knob of some row (rows.c decides). */
static int is_field(const show *sh, const char *name)
{
    static const logt_summary_row blank;   /* no knobs: only the columns answer */
    char v[8];
    return logt_row_field(&blank, name, v, sizeof v) || logt_list_find(&sh->knobs, name) >= 0;
}

static void append(char *buf, size_t n, size_t *used, const char *name)
{
    if (*used < n) *used += (size_t)snprintf(buf + *used, n - *used, "%s%s", *used ? ", " : "", name);
}

/* The names a message lists: the fields, then (with_columns) the measures and error. */
static void known_names(const show *sh, int with_columns, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; columns_first[i]; i++) append(buf, n, &used, columns_first[i]);
    for (int a = 0; a < logt_naxes; a++) append(buf, n, &used, logt_axes[a].name);
    append(buf, n, &used, "C");
    for (int i = 0; columns_then[i]; i++) append(buf, n, &used, columns_then[i]);
    for (int k = 0; k < sh->knobs.n; k++) append(buf, n, &used, sh->knobs.v[k]);
    for (int m = 0; with_columns && logt_plot_run_measure(m); m++)
        append(buf, n, &used, logt_plot_run_measure(m));
    if (with_columns) append(buf, n, &used, "error");
}

/* The column (or sort key) `name`; 0 when there is none of that name. */
static int col_of(const show *sh, const char *name, show_col *c)
{
    memset(c, 0, sizeof *c);
    logt_strlcpy(c->name, sizeof c->name, name);
    if (!strcmp(name, "error")) c->kind = COL_ERROR;
    else if (is_run_measure(name)) c->kind = COL_MEASURE, c->numeric = 1;
    else if (is_field(sh, name)) c->kind = COL_FIELD, c->numeric = logt_row_field_is_numeric(name);
    else return 0;
    return 1;
}

/* An unknown name in an option: the error lists the names known (fields, with_columns:
 * also the measures and error). */
static int unknown_name(const show *sh, const char *what, const char *name, const char *opt,
                        int with_columns)
{
    char known[2048];
    known_names(sh, with_columns, known, sizeof known);
    fprintf(stderr, "logt: error: unknown %s '%s' in %s (known: %s)\n%sTry 'logt show --help'.\n",
            what, name, opt, known, show_usage);
    return 2;
}

/* --columns or --sort (sort: -NAME descending) into cols[*n]. */
static int named_cols(const show *sh, const char *opt, const char *list, int sort, show_col *cols, int *n)
{
    logt_list l;
    if (logt_list_split(list, ',', &l) != LOGT_OK) {
        fprintf(stderr, "logt: error: %s: %s\n%sTry 'logt show --help'.\n", opt, logt_user_msg(),
                show_usage);
        return 2;
    }
    for (*n = 0; *n < l.n && *n < MAX_COLS; ++*n) {
        const char *name = l.v[*n] + (sort && l.v[*n][0] == '-');
        if (!col_of(sh, name, &cols[*n]))
            return unknown_name(sh, sort ? "sort key" : "column", name, opt, 1);
        cols[*n].descending = name != l.v[*n];
    }
    return 0;
}

/* ---- the rows shown, their columns and order ------------------------------------------ */

/* The rows every --where filter keeps, in file order; an unknown field is a usage error. */
static int select_rows(show *sh)
{
    for (int k = 0; k < sh->where.n; k++) {
        char f[LOGT_WORD];
        logt_filter_field(sh->where.v[k], f, sizeof f);
        if (!is_field(sh, f)) return unknown_name(sh, "field", f, "--where", 0);
    }
    if (!(sh->shown = malloc((size_t)(sh->nrows ? sh->nrows : 1) * sizeof *sh->shown))) {
        LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        return fail();
    }
    for (int64_t i = 0; i < sh->nrows; i++) {
        int keep = 1;
        for (int k = 0; k < sh->where.n && keep; k++) keep = logt_row_matches(&sh->rows[i], sh->where.v[k]);
        if (keep) sh->shown[sh->nshown++] = i;
    }
    return 0;
}

/* Where `filter` alone keeps no run, the values its field takes in the file, on stderr (the
 * first HINT_VALUES of them, in file order): what the user could have meant. */
enum { HINT_VALUES = 16 };
static void hint_values(const show *sh, const char *filter)
{
    char f[LOGT_WORD], v[CELL], text[HINT_VALUES * (LOGT_WORD + 2)];
    logt_list seen = {0};
    int more = 0;
    for (int64_t i = 0; i < sh->nrows; i++)
        if (logt_row_matches(&sh->rows[i], filter)) return;
    logt_filter_field(filter, f, sizeof f);
    for (int64_t i = 0; i < sh->nrows && !more; i++) {
        logt_row_field(&sh->rows[i], f, v, sizeof v);
        const char *w = v[0] ? v : "(empty)";
        if (logt_list_find(&seen, w) >= 0) continue;
        if (seen.n == HINT_VALUES) more = 1;
        else logt_strlcpy(seen.v[seen.n++], LOGT_WORD, w);
    }
    if (seen.n == 0) return;
    logt_list_join(&seen, ", ", text, sizeof text);
    fprintf(stderr, "(no run has %s; %s is %s%s in %s)\n", filter, f, text, more ? ", ..." : "", sh->file);
}

/* Do the rows shown hold more than one value of field `name`? */
static int differs(const show *sh, const char *name)
{
    char first[CELL], v[CELL];
    for (int64_t k = 0; k < sh->nshown; k++) {
        logt_row_field(&sh->rows[sh->shown[k]], name, k ? v : first, CELL);
        if (k && strcmp(v, first)) return 1;
    }
    return 0;
}

/* Has some row shown a value of this measure? peak_mem_bytes is an integer column, where 0
 * stands for none (a cpu run measures no device memory). */
static int measured(const show *sh, const char *name)
{
    for (int64_t k = 0; k < sh->nshown; k++) {
        const double v = logt_row_measure(&sh->rows[sh->shown[k]], name);
        if (!isnan(v) && (v != 0 || strcmp(name, "peak_mem_bytes"))) return 1;
    }
    return 0;
}

static void add_col(show *sh, const char *name)
{
    if (sh->ncols < MAX_COLS && col_of(sh, name, &sh->cols[sh->ncols])) sh->ncols++;
}

/* The columns that tell the rows shown apart, and what was measured. */
static int default_columns(show *sh)
{
    add_col(sh, "run");
    if (differs(sh, "kind")) add_col(sh, "kind");
    add_col(sh, "model");
    if (differs(sh, "backend")) add_col(sh, "backend");
    if (differs(sh, "task")) add_col(sh, "task");
    for (int a = 0; a < logt_naxes; a++)
        if (differs(sh, logt_axes[a].name)) add_col(sh, logt_axes[a].name);
    int knobs = 0;
    for (int64_t k = 0; k < sh->nshown && !knobs; k++) knobs = sh->rows[sh->shown[k]].knobs[0] != '\0';
    if (knobs) add_col(sh, "knobs");
    for (int m = 0; logt_plot_run_measure(m); m++)
        if (measured(sh, logt_plot_run_measure(m))) add_col(sh, logt_plot_run_measure(m));
    add_col(sh, "status");
    int rc = read_errors(sh);
    for (int64_t k = 0; rc == 0 && k < sh->nshown; k++)
        if (sh->errors[sh->shown[k]]) {
            add_col(sh, "error");
            break;
        }
    return rc;
}

/* The sort keys of the default order: kind, model, the axes in table order, knobs. */
static void default_keys(show *sh)
{
    col_of(sh, "kind", &sh->keys[sh->nkeys++]);
    col_of(sh, "model", &sh->keys[sh->nkeys++]);
    for (int a = 0; a < logt_naxes; a++) col_of(sh, logt_axes[a].name, &sh->keys[sh->nkeys++]);
    col_of(sh, "knobs", &sh->keys[sh->nkeys++]);
}

static const show *sorting;   /* qsort's context: the show being sorted */

/* Text in order: numbers by value when both are numbers, else as versions ("chrono:1024"
 * before "chrono:65536"). */
static int compare_text(const char *a, const char *b)
{
    double x, y;
    if (!logt_parse_f64(a, &x) && !logt_parse_f64(b, &y)) return (x > y) - (x < y);
    return strverscmp(a, b);
}

static int compare_key(const show_col *key, int64_t ia, int64_t ib)
{
    const logt_summary_row *a = &sorting->rows[ia], *b = &sorting->rows[ib];
    int c;
    if (key->kind == COL_MEASURE) {   /* no value last, either way */
        const double x = logt_row_measure(a, key->name), y = logt_row_measure(b, key->name);
        if (isnan(x) || isnan(y)) return !!isnan(x) - !!isnan(y);
        c = (x > y) - (x < y);
    } else if (key->kind == COL_ERROR) {
        const char *x = sorting->errors[ia], *y = sorting->errors[ib];
        c = strcmp(x ? x : "", y ? y : "");
    } else {
        char x[CELL], y[CELL];
        logt_row_field(a, key->name, x, sizeof x);
        logt_row_field(b, key->name, y, sizeof y);
        c = compare_text(x, y);
    }
    return key->descending ? -c : c;
}

static int compare_rows(const void *pa, const void *pb)
{
    const int64_t ia = *(const int64_t *)pa, ib = *(const int64_t *)pb;
    for (int k = 0; k < sorting->nkeys; k++) {
        const int c = compare_key(&sorting->keys[k], ia, ib);
        if (c) return c;
    }
    const int64_t ra = sorting->rows[ia].run, rb = sorting->rows[ib].run;
    return (ra > rb) - (ra < rb);
}

/* The columns and the order: the options' or the defaults. */
static int arrange(show *sh)
{
    int rc = 0;
    if (sh->columns) rc = named_cols(sh, "--columns", sh->columns, 0, sh->cols, &sh->ncols);
    if (rc == 0 && sh->sort) rc = named_cols(sh, "--sort", sh->sort, 1, sh->keys, &sh->nkeys);
    if (rc) return rc;
    if (!sh->columns && (rc = default_columns(sh))) return rc;
    if (!sh->sort) default_keys(sh);
    for (int k = 0; k < sh->ncols; k++)
        if (sh->cols[k].kind == COL_ERROR && (rc = read_errors(sh))) return rc;
    for (int k = 0; k < sh->nkeys; k++)
        if (sh->keys[k].kind == COL_ERROR && (rc = read_errors(sh))) return rc;
    sorting = sh;
    qsort(sh->shown, (size_t)sh->nshown, sizeof *sh->shown, compare_rows);
    sorting = NULL;
    return 0;
}

/* ---- cells ---------------------------------------------------------------------------- */

/* A number: integers as integers; else in the table 4 significant digits (times, rates,
 * losses), exactly in csv and json (the shortest text that reads back the same); "" for NaN. */
static void fmt_number(double v, int exact, char *buf, size_t n)
{
    const double a = fabs(v);
    if (isnan(v)) buf[0] = '\0';
    else if (isinf(v)) logt_strlcpy(buf, n, v > 0 ? "inf" : "-inf");
    else if (v == rint(v) && a < 1e15) snprintf(buf, n, "%.0f", v);
    else if (exact) {
        for (int digits = 15; digits <= 17; digits++)
            if (snprintf(buf, n, "%.*g", digits, v), strtod(buf, NULL) == v) break;
    } else if (a >= 1e-5 && a < 1e15) {
        const int decimals = 3 - (int)floor(log10(a));
        snprintf(buf, n, "%.*f", decimals > 0 ? decimals : 0, v);
    } else {
        snprintf(buf, n, "%.3e", v);
    }
}

/* Row i's value in column c: buf, or the run's stored error. */
static const char *cell(const show *sh, int64_t i, const show_col *c, int exact, char *buf, size_t n)
{
    buf[0] = '\0';
    if (c->kind == COL_ERROR) return sh->errors && sh->errors[i] ? sh->errors[i] : "";
    if (c->kind == COL_MEASURE) fmt_number(logt_row_measure(&sh->rows[i], c->name), exact, buf, n);
    else logt_row_field(&sh->rows[i], c->name, buf, n);
    return buf;
}

/* Characters on a terminal: UTF-8 continuation bytes take no room. */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* ---- output --------------------------------------------------------------------------- */

/* One line of root attributes, "name value" joined by ", ", those present. */
static void root_line(logt_store *st, const char *const *names)
{
    char v[512];
    int n = 0;
    for (; *names; names++) {
        if (!logt_store_root_has(st, *names) || logt_store_root_str(st, *names, v, sizeof v) != LOGT_OK)
            continue;
        printf("%s%s %s", n++ ? ", " : "", *names, v);
    }
    if (n) putchar('\n');
}

/* Above the table: which file and experiment, how many runs, where and when they ran. */
static void print_provenance(const show *sh)
{
    static const char *const where_line[] = {"device", "host", "backend", NULL};
    static const char *const when_line[] = {"git_commit", "created", "updated", NULL};
    char experiment[LOGT_WORD] = "";
    int unfinished = 0;
    for (int k = 0; k < logt_store_nruns(sh->st); k++) {
        int64_t id;
        const char *key;
        logt_run_state state;
        logt_store_run_at(sh->st, k, &id, &key, &state);
        unfinished += state == LOGT_RUN_INTERRUPTED || state == LOGT_RUN_NONE;
    }
    if (logt_store_root_has(sh->st, "experiment"))
        logt_store_root_str(sh->st, "experiment", experiment, sizeof experiment);
    printf("%s:%s%s%s %lld run%s", sh->file, *experiment ? " experiment " : "", experiment,
           *experiment ? "," : "",
           (long long)sh->nrows, sh->nrows == 1 ? "" : "s");
    if (sh->where.n) printf(", %lld shown", (long long)sh->nshown);
    if (unfinished) printf(", %d unfinished (not in /summary)", unfinished);
    putchar('\n');
    root_line(sh->st, where_line);
    root_line(sh->st, when_line);
    int64_t index, count, runs;
    if (logt_store_root_has(sh->st, "shard_count") &&
        logt_store_root_i64(sh->st, "shard_index", &index) == LOGT_OK &&
        logt_store_root_i64(sh->st, "shard_count", &count) == LOGT_OK &&
        logt_store_root_i64(sh->st, "sweep_runs", &runs) == LOGT_OK)
        printf("shard %lld/%lld of a sweep of %lld runs\n", (long long)index, (long long)count,
               (long long)runs);
    putchar('\n');
}

/* s in a field of width w, control characters as blanks (an error's newlines) */
static void print_padded(const char *s, size_t w, int right, int last)
{
    const size_t pad = w > text_width(s) ? w - text_width(s) : 0;
    if (right) printf("%*s", (int)pad, "");
    for (; *s; s++) putchar((unsigned char)*s < 0x20 ? ' ' : *s);
    if (!right && !last) printf("%*s", (int)pad, "");
}

/* The text of a table's line: -2 the header, -1 the rule, then the rows shown. */
static const char *table_text(const show *sh, int64_t line, const show_col *col, char *buf, size_t n)
{
    if (line == -2) return col->name;
    if (line >= 0) return cell(sh, sh->shown[line], col, 0, buf, n);
    size_t w = col == &sh->cols[sh->ncols - 1] ? text_width(col->name) : col->width;
    w = w < n ? w : n - 1;   /* the last column's rule as long as its name: its cells may be long */
    memset(buf, '-', w);
    buf[w] = '\0';
    return buf;
}

static void print_table(show *sh)
{
    char buf[CELL];
    for (int c = 0; c < sh->ncols; c++) {
        show_col *col = &sh->cols[c];
        col->width = text_width(col->name);
        for (int64_t k = 0; k < sh->nshown; k++) {
            const size_t w = text_width(cell(sh, sh->shown[k], col, 0, buf, sizeof buf));
            if (w > col->width) col->width = w;
        }
    }
    for (int64_t line = -2; line < sh->nshown; line++) {
        int end = sh->ncols - 1;   /* the line ends at its last cell with text: no blanks after it */
        while (end > 0 && !*table_text(sh, line, &sh->cols[end], buf, sizeof buf)) end--;
        for (int c = 0; c <= end; c++) {
            if (c) fputs("  ", stdout);
            print_padded(table_text(sh, line, &sh->cols[c], buf, sizeof buf), sh->cols[c].width,
                         sh->cols[c].numeric, c == end);
        }
        putchar('\n');
    }
}

/* RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
static void csv_field(const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"') putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static void print_csv(const show *sh)
{
    char buf[CELL];
    for (int64_t line = -1; line < sh->nshown; line++) {
        for (int c = 0; c < sh->ncols; c++) {
            if (c) putchar(',');
            csv_field(line < 0 ? sh->cols[c].name : cell(sh, sh->shown[line], &sh->cols[c], 1, buf, sizeof buf));
        }
        putchar('\n');
    }
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        const unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') printf("\\%c", ch);
        else if (ch == '\n') fputs("\\n", stdout);
        else if (ch == '\t') fputs("\\t", stdout);
        else if (ch < 0x20) printf("\\u%04x", ch);
        else putchar(ch);
    }
    putchar('"');
}

/* An array of objects, one run a line; numbers as numbers, null where there is none. */
static void print_json(const show *sh)
{
    char buf[CELL];
    putchar('[');
    for (int64_t k = 0; k < sh->nshown; k++) {
        fputs(k ? ",\n " : "\n ", stdout);
        for (int c = 0; c < sh->ncols; c++) {
            const show_col *col = &sh->cols[c];
            const char *v = cell(sh, sh->shown[k], col, 1, buf, sizeof buf);
            double x;
            fputs(c ? ", " : "{", stdout);
            json_string(col->name);
            fputs(": ", stdout);
            if (!col->numeric) json_string(v);
            else if (logt_parse_f64(v, &x) || !isfinite(x)) fputs("null", stdout);
            else fputs(v, stdout);
        }
        putchar('}');
    }
    fputs(sh->nshown ? "\n]\n" : "]\n", stdout);
}

/* ---- the command ---------------------------------------------------------------------- */

static void show_free(show *sh)
{
    for (int64_t i = 0; sh->errors && i < sh->nrows; i++) free(sh->errors[i]);
    free(sh->errors);
    free(sh->shown);
    free(sh->rows);
    logt_store_close(sh->st);
}

int logt_cmd_show(int argc, char **argv)
{
    show *sh = calloc(1, sizeof *sh);
    if (!sh) {
        fprintf(stderr, "logt: error: out of host memory\n");
        return 1;
    }
    int rc = parse(argc, argv, sh);
    if (rc == 0) rc = open_file(sh);
    if (rc == 0) {
        note_older_layout(sh);
        rc = select_rows(sh);
    }
    if (rc == 0) rc = arrange(sh);
    if (rc == 0) {
        if (sh->fmt == FMT_TABLE) print_provenance(sh);
        if (sh->fmt == FMT_TABLE) print_table(sh);
        else if (sh->fmt == FMT_CSV) print_csv(sh);
        else print_json(sh);
        fflush(stdout);
        if (sh->nshown == 0 && sh->where.n) {
            char filters[LOGT_LIST_MAX * LOGT_WORD];
            logt_list_join(&sh->where, ",", filters, sizeof filters);
            fprintf(stderr, "(no runs match --where %s)\n", filters);
            for (int k = 0; k < sh->where.n; k++) hint_values(sh, sh->where.v[k]);
        } else if (sh->nshown == 0) {
            fprintf(stderr, "(no runs in %s)\n", sh->file);
        }
    }
    show_free(sh);
    free(sh);
    return rc < 0 ? 0 : rc;
}
