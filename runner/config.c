/* config.c — experiment.ini parsed with libinih, checked key by key, with
 * --set overrides, per-backend sections, and the sweep's expansion.
 *
 * Parsing keeps every key as an entry {section, key, value, where}; nothing is
 * interpreted until logt_exp_resolve picks the backend. Every value is checked
 * once at parse time whatever the backend, so a typo in [sweep.cuda] is caught
 * on a CPU-only machine too.
 */
#define INI_HANDLER_LINENO 1
#include "config.h"

#include <ctype.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../datasets/dataset.h"
#include "kernels.h"

const char *const logt_axis_names[LOGT_NAXIS] = {"T",      "B",    "D",    "input_size", "head_dim",
                                                 "layers", "dtype", "seed", "pass",       "cell"};
static const char *const axis_defaults[LOGT_NAXIS] = {"128", "8", "64", "0", "0",
                                                      "1",   "",  "1",  "forward", ""};
const char *const logt_kind_names[LOGT_NKIND] = {"speed", "train", "kernel"};

static int axis_index(const char *name)
{
    for (int a = 0; a < LOGT_NAXIS; a++)
        if (!strcmp(logt_axis_names[a], name)) return a;
    return -1;
}

/* The sweep keys a kind of run uses; the others keep their first value. Training has
 * no pass (and ignores input_size: its duplicates are dropped by key); a kernel sees
 * only T, C = B·D, dtype and seed. */
static int axis_used(int kind, int a)
{
    if (kind == LOGT_KIND_TRAIN) return a != AX_PASS;
    if (kind == LOGT_KIND_KERNEL)
        return a == AX_T || a == AX_B || a == AX_D || a == AX_DTYPE || a == AX_SEED;
    return 1;
}

/* ---- what may be written ---------------------------------------------------- */

typedef enum {
    V_NAME, V_TEXT, V_KINDS, V_MODELS, V_BACKEND, V_POSINTS, V_NNINTS, V_U64S, V_DTYPES, V_PASSES,
    V_WORDS, V_POSINT, V_NNINT, V_POSNUM, V_NNNUM, V_TASK, V_BOOL, V_XFIELD, V_MEASURE, V_FIELDS,
    V_FILTERS, V_FILTER1, V_KNOBVALS, V_KERNELS, V_ZIP,
} vtype;

typedef struct { const char *key; vtype type; } keydef;

static const keydef experiment_keys[] = {
    {"name", V_NAME}, {"description", V_TEXT}, {"kind", V_KINDS}, {"models", V_MODELS},
    {"backend", V_BACKEND}, {NULL, 0}};
static const keydef sweep_keys[] = {
    {"T", V_POSINTS}, {"B", V_POSINTS}, {"D", V_POSINTS}, {"input_size", V_NNINTS},
    {"head_dim", V_NNINTS}, {"layers", V_POSINTS}, {"dtype", V_DTYPES}, {"seed", V_U64S},
    {"pass", V_PASSES}, {"cell", V_WORDS}, {"zip", V_ZIP}, {NULL, 0}};
static const keydef speed_keys[] = {
    {"warmup", V_NNINT}, {"repeats", V_POSINT}, {"head_start_us", V_NNINT}, {NULL, 0}};
static const keydef kernel_keys[] = {{"warmup", V_NNINT}, {"repeats", V_POSINT}, {NULL, 0}};
static const keydef train_keys[] = {
    {"task", V_TASK}, {"steps", V_POSINT}, {"lr", V_POSNUM}, {"clip", V_NNNUM},
    {"eval_every", V_POSINT}, {"eval_batches", V_POSINT}, {"test_batches", V_POSINT},
    {"solve_acc", V_NNNUM}, {"max_train_s", V_NNNUM}, {"keep_checkpoint", V_BOOL}, {"readout", V_WORDS},
    {"curriculum", V_POSINTS}, {NULL, 0}};
static const keydef plot_keys[] = {
    {"x", V_XFIELD}, {"y", V_MEASURE}, {"series", V_FIELDS}, {"where", V_FILTERS},
    {"baseline", V_FILTER1}, {"logx", V_BOOL}, {"logy", V_BOOL}, {"xlabel", V_TEXT},
    {"ylabel", V_TEXT}, {"title", V_TEXT}, {NULL, 0}};

static const char *const fields[] = {"run", "kind", "model", "backend", "pass", "dtype", "cell",
                                     "task", "impl", "knobs", "T", "B", "D", "C", "input_size",
                                     "head_dim", "layers", "seed", NULL};
static const char *const xfields[] = {"T", "B", "D", "C", "input_size", "head_dim", "layers", "seed",
                                      "step", "wall_s", NULL};
/* curve: one value per step (one curve per run); higher: more is better */
static const struct { const char *name, *label; int curve, higher; } measures[] = {
    {"median_ms", "median time per pass (ms)", 0, 0},
    {"p10_ms", "10th percentile time per pass (ms)", 0, 0},
    {"p90_ms", "90th percentile time per pass (ms)", 0, 0},
    {"tokens_per_s", "tokens per second (T·B / median)", 0, 1},
    {"peak_mem_bytes", "peak device memory (bytes)", 0, 0},
    {"final_loss", "final training loss (mean of last 10 steps)", 0, 0},
    {"final_eval_loss", "final validation loss", 0, 0},
    {"final_eval_acc", "final validation accuracy", 0, 1},
    {"test_loss", "test loss (the test split, after the last step)", 0, 0},
    {"test_acc", "test accuracy (the test split, after the last step)", 0, 1},
    {"solve_s", "time to solve: training seconds until validation accuracy >= solve_acc", 0, 0},
    {"bytes", "bytes a call moves at the least (inputs read and outputs written once)", 0, 0},
    {"gbps", "effective bandwidth (GB/s: bytes / median time)", 0, 1},
    {"copy_gbps", "device-to-device copy in the same run (GB/s: 2N / median time)", 0, 1},
    {"pct_of_copy", "effective bandwidth, % of the same run's copy", 0, 1},
    {"iterations", "solver iterations (Newton: evaluations − 1)", 0, 0},
    {"loss", "training loss", 1, 0},
    {"grad_norm", "gradient norm (before clipping)", 1, 0},
    {"newton_iterations", "Newton iterations of the step's forward (first layer)", 1, 0},
    {"eval_loss", "validation loss", 1, 0},
    {"eval_acc", "validation accuracy", 1, 1},
    {"eval_bpc", "validation bits per character", 1, 0},
    {"eval_T", "length trained at (curriculum runs)", 1, 1},
    {NULL, NULL, 0, 0}};

static int in_names(const char *const *names, const char *s)
{
    for (; *names; names++)
        if (!strcmp(*names, s)) return 1;
    return 0;
}

static void join_names(const char *const *names, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", names[i]);
}

int logt_plot_is_field(const char *name) { return in_names(fields, name); }

int logt_plot_is_measure(const char *name, int *curve)
{
    for (int i = 0; measures[i].name; i++)
        if (!strcmp(measures[i].name, name)) {
            if (curve) *curve = measures[i].curve;
            return 1;
        }
    return 0;
}

const char *logt_plot_measure_label(const char *name)
{
    for (int i = 0; measures[i].name; i++)
        if (!strcmp(measures[i].name, name)) return measures[i].label;
    return name;
}

int logt_plot_measure_higher_is_better(const char *name)
{
    for (int i = 0; measures[i].name; i++)
        if (!strcmp(measures[i].name, name)) return measures[i].higher;
    return 0;
}

/* ---- sections ------------------------------------------------------------------ */

enum { S_EXPERIMENT, S_SWEEP, S_SPEED, S_TRAIN, S_KERNEL, S_MODEL, S_PLOT, S_UNKNOWN };
static const char *const section_bases[] = {"experiment", "sweep", "speed", "train", "kernel",
                                            "model", "plot"};

/* "model.lstm-cudnn.cuda" -> S_MODEL, name "lstm-cudnn", backend "cuda". */
static int parse_section(const char *section, char *name, size_t nn, char *backend, size_t nb)
{
    char buf[256];
    logt_strlcpy(buf, sizeof buf, section);
    name[0] = backend[0] = '\0';
    char *dot = strrchr(buf, '.');
    if (dot && (!strcmp(dot + 1, "cpu") || !strcmp(dot + 1, "cuda"))) {
        snprintf(backend, nb, "%s", dot + 1);
        *dot = '\0';
    }
    char *first = strchr(buf, '.');
    if (first) {
        *first = '\0';
        snprintf(name, nn, "%s", first + 1);
    }
    for (int b = 0; b < S_UNKNOWN; b++)
        if (!strcmp(buf, section_bases[b])) {
            int named = b == S_MODEL || b == S_PLOT;
            if (named != (first != NULL) || (named && !*name)) return S_UNKNOWN;
            return b;
        }
    return S_UNKNOWN;
}

static const keydef *section_keys(int base, int second)
{
    switch (base) {
    case S_EXPERIMENT: return second ? NULL : experiment_keys;
    case S_SWEEP: return second ? NULL : sweep_keys;
    case S_SPEED: return second ? sweep_keys : speed_keys;
    case S_TRAIN: return second ? sweep_keys : train_keys;
    case S_KERNEL: return second ? sweep_keys : kernel_keys;
    case S_PLOT: return second ? NULL : plot_keys;
    }
    return NULL;
}

static void keys_list(int base, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int pass = 0; pass < 2; pass++) {
        const keydef *k = section_keys(base, pass);
        for (; k && k->key && used < n; k++)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", k->key);
    }
}

/* Check that `key` may appear in `section`; set *type. */
static logt_status check_key(const char *where, const char *section, const char *key, vtype *type)
{
    char name[128], backend[16], known[512];
    int base = parse_section(section, name, sizeof name, backend, sizeof backend);
    if (base == S_UNKNOWN)
        return LOGT_USER_FAIL(LOGT_EINVAL,
                         "%s: unknown section [%s] (known: [experiment], [sweep], [speed], [train], "
                         "[kernel], [model.NAME], [plot.NAME]; each may end in .cpu or .cuda)",
                         where, section);
    if (strlen(name) > 48)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: section name [%s] is longer than 48 characters",
                              where, section);
    if (base == S_MODEL) {
        if (!logt_model_find(name)) {
            logt_model_names(known, sizeof known);
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s: unknown model '%s' in [%s] (known: %s)", where, name,
                             section, known);
        }
        for (const char *p = key; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
                return LOGT_USER_FAIL(LOGT_EINVAL, "%s: bad model setting name '%s' in [%s]", where, key,
                                 section);
        if (strlen(key) >= sizeof(((logt_knob *)0)->key))
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s: model setting name '%s' is too long", where, key);
        *type = V_KNOBVALS;
        return LOGT_OK;
    }
    if (base == S_EXPERIMENT && *backend && !strcmp(key, "backend"))
        return LOGT_USER_FAIL(LOGT_EINVAL,
                         "%s: 'backend' cannot be set in [%s]: it decides which backend section "
                         "applies; set it in [experiment]",
                         where, section);
    for (int pass = 0; pass < 2; pass++)
        for (const keydef *k = section_keys(base, pass); k && k->key; k++)
            if (!strcmp(k->key, key)) {
                *type = k->type;
                return LOGT_OK;
            }
    keys_list(base, known, sizeof known);
    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: unknown key '%s' in [%s] (known: %s)", where, key, section,
                     known);
}

/* ---- values ------------------------------------------------------------------- */

static logt_status bad(const char *where, const char *item, const char *key, const char *expected)
{
    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: bad value '%s' for %s: expected %s", where, item, key,
                     expected);
}

static int is_word(const char *s, const char *extra)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && !strchr(extra, *s)) return 0;
    return 1;
}

static logt_status check_filter(const char *where, const char *key, const char *item)
{
    const char *eq = strchr(item, '=');
    char field[LOGT_WORD];
    if (!eq || eq == item || !eq[1])
        return bad(where, item, key, "FIELD=VALUE (or FIELD=V1|V2)");
    snprintf(field, sizeof field, "%.*s", (int)(eq - item), item);
    logt_trim(field);
    if (!is_word(field, "")) return bad(where, item, key, "FIELD=VALUE (or FIELD=V1|V2)");
    return LOGT_OK;
}

static logt_status check_value(const char *where, const char *key, vtype type, const char *value)
{
    logt_list l;
    char known[512];
    int list = type == V_KINDS || type == V_MODELS || type == V_POSINTS || type == V_NNINTS ||
               type == V_U64S || type == V_DTYPES || type == V_PASSES || type == V_WORDS ||
               type == V_FIELDS || type == V_FILTERS || type == V_KNOBVALS || type == V_KERNELS ||
               type == V_ZIP;
    if (list) {
        if (logt_list_split(value, ',', &l) != LOGT_OK) {
            char why[512];   /* the message buffer is about to be rewritten */
            logt_strlcpy(why, sizeof why, logt_user_msg());
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s: bad value '%s' for %s: %s", where, value, key, why);
        }
    } else {
        l.n = 1;
        snprintf(l.v[0], sizeof l.v[0], "%.63s", value);
    }
    for (int i = 0; i < l.n; i++) {
        const char *s = l.v[i];
        int64_t iv;
        uint64_t uv;
        double dv;
        logt_dtype dt;
        switch (type) {
        case V_NAME:
            if (!is_word(value, ".") || strlen(value) >= LOGT_WORD)
                return bad(where, value, key, "a name of letters, digits, '-', '_' and '.'");
            break;
        case V_TEXT:
            if (strlen(value) >= 500) return bad(where, "...", key, "at most 500 characters");
            break;
        case V_KINDS:
            if (strcmp(s, "speed") && strcmp(s, "train") && strcmp(s, "kernel"))
                return bad(where, s, key, "speed, train (or both), or kernel");
            if (!strcmp(s, "kernel") && l.n > 1)
                return LOGT_USER_FAIL(LOGT_EINVAL,
                                      "%s: kind = kernel stands alone (its models are kernel names, "
                                      "not registry models): put the kernels in an experiment of "
                                      "their own", where);
            break;
        case V_MODELS:
            if (strcmp(s, "*") && !logt_model_find(s)) {
                logt_model_names(known, sizeof known);
                return LOGT_USER_FAIL(LOGT_EINVAL, "%s: unknown model '%s' (known: %s; or * for all)%s",
                                 where, s, known,
                                 logt_kernel_find(s) ? ". It is a kernel: time it with kind = kernel" : "");
            }
            break;
        case V_KERNELS:
            if (strcmp(s, "*") && !logt_kernel_find(s)) {
                logt_kernel_names(known, sizeof known);
                return LOGT_USER_FAIL(LOGT_EINVAL,
                                      "%s: unknown kernel '%s' (kind = kernel; known kernels: %s; or * "
                                      "for all)%s", where, s, known,
                                      logt_model_find(s) ? ". It is a model: time it with kind = speed" : "");
            }
            break;
        case V_ZIP:
            if (axis_index(s) < 0) {
                size_t used = 0;
                for (int a = 0; a < LOGT_NAXIS; a++)
                    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", a ? ", " : "",
                                             logt_axis_names[a]);
                return bad(where, s, key, known);
            }
            if (l.n < 2) return bad(where, value, key, "two or more sweep keys to walk together");
            for (int j = 0; j < i; j++)
                if (!strcmp(l.v[j], s)) return bad(where, value, key, "sweep keys named once each");
            break;
        case V_BACKEND:
            if (strcmp(s, "cpu") && strcmp(s, "cuda") && strcmp(s, "auto"))
                return bad(where, s, key, "cpu, cuda or auto");
            break;
        case V_POSINTS:
            if (logt_parse_i64(s, &iv) || iv < 1 || iv > INT32_MAX)
                return bad(where, s, key, "positive integers");
            break;
        case V_NNINTS:
            if (logt_parse_i64(s, &iv) || iv < 0 || iv > INT32_MAX)
                return bad(where, s, key, "non-negative integers");
            break;
        case V_U64S:
            if (logt_parse_u64(s, &uv)) return bad(where, s, key, "non-negative integers");
            break;
        case V_DTYPES:
            if (logt_dtype_parse(s, &dt) != LOGT_OK) return bad(where, s, key, "f64, f32 or bf16");
            break;
        case V_PASSES:
            if (strcmp(s, "forward") && strcmp(s, "fwdbwd"))
                return bad(where, s, key, "forward or fwdbwd");
            break;
        case V_WORDS:
            if (!is_word(s, "") || strlen(s) >= sizeof(((logt_model_cfg *)0)->cell))
                return bad(where, s, key, "short names of letters, digits, '-' and '_'");
            break;
        case V_POSINT:
            if (logt_parse_i64(s, &iv) || iv < 1 || iv > INT32_MAX)
                return bad(where, s, key, "a positive integer");
            break;
        case V_NNINT:
            if (logt_parse_i64(s, &iv) || iv < 0 || iv > INT32_MAX)
                return bad(where, s, key, "a non-negative integer");
            break;
        case V_POSNUM:
            if (logt_parse_f64(s, &dv) || !(dv > 0) || !isfinite(dv))
                return bad(where, s, key, "a positive number");
            break;
        case V_NNNUM:
            if (logt_parse_f64(s, &dv) || !(dv >= 0) || !isfinite(dv))
                return bad(where, s, key, "a number >= 0 (0: off)");
            break;
        case V_TASK:
            logt_dataset_names(known, sizeof known);
            if (!is_word(s, "")) return bad(where, s, key, known);
            {
                logt_list tasks;
                if (logt_list_split(known, ',', &tasks) == LOGT_OK && logt_list_find(&tasks, s) < 0)
                    return bad(where, s, key, known);
            }
            break;
        case V_BOOL:
            if (strcmp(s, "true") && strcmp(s, "false") && strcmp(s, "yes") && strcmp(s, "no") &&
                strcmp(s, "1") && strcmp(s, "0"))
                return bad(where, s, key, "true or false");
            break;
        case V_XFIELD:
            if (!in_names(xfields, s)) {
                join_names(xfields, known, sizeof known);
                return bad(where, s, key, known);
            }
            break;
        case V_MEASURE:
            if (!logt_plot_is_measure(s, NULL)) {
                size_t used = 0;
                for (int m = 0; measures[m].name; m++)
                    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                             m ? ", " : "", measures[m].name);
                return bad(where, s, key, known);
            }
            break;
        case V_FIELDS:
            if (!is_word(s, "")) return bad(where, s, key, "field names");
            break;
        case V_FILTERS:
        case V_FILTER1:
            LOGT_TRY(check_filter(where, key, s));
            break;
        case V_KNOBVALS:
            if (strlen(s) >= sizeof(((logt_knob *)0)->val) || strchr(s, '=') || strchr(s, ' '))
                return bad(where, s, key, "words without spaces or '='");
            break;
        }
    }
    return LOGT_OK;
}

/* ---- parsing -------------------------------------------------------------------- */

typedef struct parse_ctx {
    logt_experiment *e;
    const char *text, *pos;     /* the reader's position in text           */
    const char *line_start;     /* the line last handed to inih            */
    int line;                   /* its number                              */
    int last_entry_line;        /* line of the entry made by the last call */
    int err_line;
    logt_status err;
    char errmsg[1024];
} parse_ctx;

/* fgets over the text, counting lines: inih's own line number is not passed
 * by every build of the library, so the line comes from here. */
static char *reader(char *str, int num, void *stream)
{
    parse_ctx *p = stream;
    if (!*p->pos) return NULL;
    p->line_start = p->pos;
    int i = 0;
    while (i < num - 1 && p->pos[0]) {
        char c = *p->pos++;
        str[i++] = c;
        if (c == '\n') break;
    }
    str[i] = '\0';
    p->line++;
    return str;
}

static logt_status add_entry(logt_experiment *e, const char *section, const char *key,
                             const char *value, const char *where)
{
    logt_entry *grown = realloc(e->ent, (size_t)(e->nent + 1) * sizeof *grown);
    if (!grown) return LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
    e->ent = grown;
    logt_entry *en = &e->ent[e->nent];
    en->section = strdup(section);
    en->key = strdup(key);
    en->value = strdup(value);
    en->where = strdup(where);
    if (!en->section || !en->key || !en->value || !en->where)
        return LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
    e->nent++;
    return LOGT_OK;
}

static logt_entry *find_entry(const logt_experiment *e, const char *section, const char *key)
{
    for (int i = 0; i < e->nent; i++)
        if (!strcmp(e->ent[i].section, section) && !strcmp(e->ent[i].key, key)) return &e->ent[i];
    return NULL;
}

/* Does `kind` in [section] (else in [experiment]) say kernel? Then its models are kernels. */
static int kernel_kind(const logt_experiment *e, const char *section)
{
    const logt_entry *k = find_entry(e, section, "kind");
    if (!k) k = find_entry(e, "experiment", "kind");
    logt_list l;
    return k && logt_list_split(k->value, ',', &l) == LOGT_OK && logt_list_find(&l, "kernel") >= 0;
}

static int handler(void *user, const char *section, const char *key, const char *value, int lineno)
{
    (void)lineno;   /* see reader() */
    parse_ctx *p = user;
    if (p->err != LOGT_OK) return 1;
    char where[PATH_MAX + 64];
    snprintf(where, sizeof where, "%s:%d", p->e->file, p->line);
    logt_status s = LOGT_OK;
    vtype type;
    logt_entry *old = find_entry(p->e, section, key);
    int continuation = old && p->last_entry_line == p->line - 1 &&
                       isspace((unsigned char)p->line_start[0]) && old == &p->e->ent[p->e->nent - 1];
    if (!*section)
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s: '%s' comes before any [section]", where, key);
    else if (continuation) {
        /* a line starting with a blank continues the value above */
        size_t n = strlen(old->value) + strlen(value) + 3;
        char *joined = malloc(n);
        if (!joined) s = LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
        else {
            int comma = old->value[0] && old->value[strlen(old->value) - 1] != ',';
            check_key(where, section, key, &type);
            snprintf(joined, n, "%s%s%s", old->value, type == V_TEXT ? " " : comma ? ", " : " ",
                     value);
            free(old->value);
            old->value = joined;
        }
    } else if (old)
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s: '%s' is set twice in [%s] (first at %s)", where, key,
                      section, old->where);
    else if ((s = check_key(where, section, key, &type)) == LOGT_OK)
        s = add_entry(p->e, section, key, value, where);
    p->last_entry_line = p->line;
    if (s != LOGT_OK) {
        p->err = s;
        p->err_line = p->line;
        logt_strlcpy(p->errmsg, sizeof p->errmsg, logt_user_msg());
    }
    return s == LOGT_OK;
}

logt_status logt_set_split(const char *arg, char *section, size_t ns, char *key, size_t nk,
                           char *value, size_t nv)
{
    const char *eq = strchr(arg, '=');
    const char *dot = NULL;
    for (const char *p = arg; eq && p < eq; p++)
        if (*p == '.') dot = p;
    if (!eq || !dot || dot == arg || dot + 1 == eq)
        return LOGT_USER_FAIL(LOGT_EINVAL,
                         "--set expects SECTION.KEY=VALUE (e.g. --set sweep.T=16,32 or --set "
                         "train.steps=10), got '%s'",
                         arg);
    snprintf(section, ns, "%.*s", (int)(dot - arg), arg);
    snprintf(key, nk, "%.*s", (int)(eq - dot - 1), dot + 1);
    snprintf(value, nv, "%s", eq + 1);
    logt_trim(section);
    logt_trim(key);
    logt_trim(value);
    return LOGT_OK;
}

logt_status logt_exp_parse(const char *dir, char *const *sets, int nsets, logt_experiment **out)
{
    *out = NULL;
    logt_experiment *e = calloc(1, sizeof *e);
    if (!e) return LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
    struct stat st;
    logt_strlcpy(e->dir, sizeof e->dir, dir);
    size_t dl = strlen(e->dir);
    while (dl > 1 && e->dir[dl - 1] == '/') e->dir[--dl] = '\0';
    if (stat(e->dir, &st) == 0 && S_ISREG(st.st_mode)) {
        /* logt run path/to/experiment.ini works too */
        logt_strlcpy(e->file, sizeof e->file, e->dir);
        char *slash = strrchr(e->dir, '/');
        if (slash) *slash = '\0';
        else snprintf(e->dir, sizeof e->dir, ".");
    } else {
        snprintf(e->file, sizeof e->file, "%s/experiment.ini", e->dir);
    }

    char *text = NULL;
    logt_status s = logt_read_file(e->file, &text);
    if (s != LOGT_OK) {
        logt_exp_free(e);
        if (stat(dir, &st) != 0)
            return LOGT_USER_FAIL(LOGT_EINVAL, "no experiment at %s: it does not exist. HINT: `logt list` "
                             "shows the experiments", dir);
        return LOGT_USER_FAIL(LOGT_EINVAL, "no experiment at %s: cannot read %s", dir, e->file);
    }
    /* inih splits lines longer than its buffer into two: refuse them instead. */
    int line = 1;
    for (const char *p = text, *start = text;; p++) {
        if (*p == '\n' || !*p) {
            if (p - start > 196) {
                s = LOGT_USER_FAIL(LOGT_EINVAL,
                              "%s:%d: line longer than 196 characters: split it (a line that "
                              "starts with a blank continues the value above)",
                              e->file, line);
                break;
            }
            if (!*p) break;
            line++;
            start = p + 1;
        }
    }
    parse_ctx pc = {.e = e, .text = text, .pos = text, .err = LOGT_OK, .last_entry_line = -1};
    int rc = s == LOGT_OK ? ini_parse_stream(reader, &pc, handler, &pc) : 0;
    free(text);
    if (s == LOGT_OK && pc.err != LOGT_OK && (rc <= 0 || pc.err_line <= rc))
        s = LOGT_USER_FAIL(pc.err, "%s", pc.errmsg);
    else if (s == LOGT_OK && rc > 0)
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s:%d: syntax error: expected [section], key = value, or a "
                      "comment starting with ; or #", e->file, rc);
    else if (s == LOGT_OK && rc < 0)
        s = LOGT_USER_FAIL(LOGT_EIO, "cannot parse %s (libinih error %d)", e->file, rc);

    for (int i = 0; s == LOGT_OK && i < nsets; i++) {
        char section[128], key[64], value[1024], where[1200];
        vtype type;
        s = logt_set_split(sets[i], section, sizeof section, key, sizeof key, value, sizeof value);
        snprintf(where, sizeof where, "--set %s", sets[i]);
        if (s == LOGT_OK) s = check_key(where, section, key, &type);
        if (s != LOGT_OK) break;
        logt_entry *old = find_entry(e, section, key);
        if (old) {
            char *v = strdup(value), *w = strdup(where);
            if (!v || !w) {
                free(v);
                free(w);
                s = LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
                break;
            }
            free(old->value);
            free(old->where);
            old->value = v;
            old->where = w;
        } else {
            s = add_entry(e, section, key, value, where);
        }
    }
    if (s == LOGT_OK && nsets > 0) {
        e->sets = calloc((size_t)nsets, sizeof *e->sets);
        if (!e->sets) s = LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
        for (int i = 0; s == LOGT_OK && i < nsets; i++, e->nsets++)
            if (!(e->sets[i] = strdup(sets[i]))) s = LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    for (int i = 0; s == LOGT_OK && i < e->nent; i++) {
        vtype type;
        s = check_key(e->ent[i].where, e->ent[i].section, e->ent[i].key, &type);
        if (s == LOGT_OK && type == V_MODELS && kernel_kind(e, e->ent[i].section)) type = V_KERNELS;
        if (s == LOGT_OK) s = check_value(e->ent[i].where, e->ent[i].key, type, e->ent[i].value);
    }
    if (s != LOGT_OK) {
        logt_exp_free(e);
        return s;
    }
    *out = e;
    return LOGT_OK;
}

void logt_exp_free(logt_experiment *e)
{
    if (!e) return;
    for (int i = 0; i < e->nent; i++) {
        free(e->ent[i].section);
        free(e->ent[i].key);
        free(e->ent[i].value);
        free(e->ent[i].where);
    }
    free(e->ent);
    for (int i = 0; i < e->nsets; i++) free(e->sets[i]);
    free(e->sets);
    free(e);
}

/* ---- resolving for a backend ------------------------------------------------------ */

static int from_set(const logt_entry *en) { return !strncmp(en->where, "--set", 5); }

/* The entry of key in [sec.BACKEND], else [sec]; NULL when neither has it. A --set of [sec]
 * beats the file's [sec.BACKEND] (`--set train.T=512` means T = 512 on every backend); a
 * --set of [sec.BACKEND] beats both. */
static const logt_entry *get(const logt_experiment *e, const char *sec, const char *key)
{
    char with[160];
    snprintf(with, sizeof with, "%s.%s", sec, logt_device_name(e->device));
    const logt_entry *specific = find_entry(e, with, key), *general = find_entry(e, sec, key);
    if (specific && general && from_set(general) && !from_set(specific)) return general;
    return specific ? specific : general;
}

static const char *getv(const logt_experiment *e, const char *sec, const char *key,
                        const char *dflt)
{
    const logt_entry *en = get(e, sec, key);
    return en ? en->value : dflt;
}

const char *logt_exp_backend(const logt_experiment *e)
{
    const logt_entry *en = find_entry(e, "experiment", "backend");
    return en ? en->value : "auto";
}

void logt_exp_name(const logt_experiment *e, char *buf, size_t n)
{
    const logt_entry *en = find_entry(e, "experiment", "name");
    if (en) {
        snprintf(buf, n, "%s", en->value);
        return;
    }
    const char *slash = strrchr(e->dir, '/');
    snprintf(buf, n, "%s", slash ? slash + 1 : e->dir);
}

static int is_true(const char *s)
{
    return !strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1");
}

/* Is `name` a knob of some [model.*] section? */
static int is_knob_name(const logt_experiment *e, const char *name)
{
    for (int i = 0; i < e->nent; i++)
        if (!strncmp(e->ent[i].section, "model.", 6) && !strcmp(e->ent[i].key, name)) return 1;
    return 0;
}

static logt_status check_plot_field(const logt_experiment *e, const logt_plot *p, const char *key,
                                    const char *field)
{
    if (logt_plot_is_field(field) || is_knob_name(e, field)) return LOGT_OK;
    char known[512];
    join_names(fields, known, sizeof known);
    char sec[LOGT_WORD + 8];
    snprintf(sec, sizeof sec, "plot.%s", p->name);
    const logt_entry *en = get(e, sec, key);
    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: unknown field '%s' in %s (known: %s, or a model setting "
                     "named in a [model.*] section)",
                     en ? en->where : e->file, field, key, known);
}

static logt_status resolve_plot(logt_experiment *e, const char *name)
{
    if (e->nplot == LOGT_MAX_PLOTS)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: more than %d [plot.*] sections", e->file, LOGT_MAX_PLOTS);
    logt_plot *p = &e->plot[e->nplot];
    memset(p, 0, sizeof *p);
    char sec[LOGT_WORD + 8];
    logt_strlcpy(p->name, sizeof p->name, name);
    snprintf(sec, sizeof sec, "plot.%s", p->name);
    logt_strlcpy(p->y, sizeof p->y, getv(e, sec, "y", "median_ms"));
    logt_plot_is_measure(p->y, &p->curve);
    logt_strlcpy(p->x, sizeof p->x, getv(e, sec, "x", p->curve ? "step" : "T"));
    int xcurve = !strcmp(p->x, "step") || !strcmp(p->x, "wall_s");
    if (xcurve != p->curve) {
        const logt_entry *en = get(e, sec, "x");
        return LOGT_USER_FAIL(LOGT_EINVAL,
                         "%s: [%s] plots %s against %s: %s", en ? en->where : e->file, sec, p->y,
                         p->x,
                         p->curve ? "a per-step value needs x = step or x = wall_s"
                                  : "a per-run value needs x = a sweep key (T, B, D, ...)");
    }
    LOGT_TRY(logt_list_split(getv(e, sec, "series", "model"), ',', &p->series));
    const char *where = getv(e, sec, "where", NULL);
    p->where.n = 0;
    if (where) LOGT_TRY(logt_list_split(where, ',', &p->where));
    logt_strlcpy(p->baseline, sizeof p->baseline, getv(e, sec, "baseline", ""));
    if (*p->baseline && p->curve) {
        const logt_entry *en = get(e, sec, "baseline");
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: baseline works with per-run values, not %s",
                         en->where, p->y);
    }
    for (int i = 0; i < p->series.n; i++) LOGT_TRY(check_plot_field(e, p, "series", p->series.v[i]));
    for (int i = 0; i < p->where.n; i++) {
        char field[LOGT_WORD];
        snprintf(field, sizeof field, "%.*s", (int)strcspn(p->where.v[i], "="), p->where.v[i]);
        LOGT_TRY(check_plot_field(e, p, "where", logt_trim(field)));
    }
    if (*p->baseline) {
        char field[LOGT_WORD];
        snprintf(field, sizeof field, "%.*s", (int)strcspn(p->baseline, "="), p->baseline);
        LOGT_TRY(check_plot_field(e, p, "baseline", logt_trim(field)));
    }
    p->logx = is_true(getv(e, sec, "logx", "false"));
    p->logy = is_true(getv(e, sec, "logy", "false"));
    snprintf(p->xlabel, sizeof p->xlabel, "%s",
             getv(e, sec, "xlabel", !strcmp(p->x, "wall_s") ? "training time (s)" : p->x));
    char dflt[256];
    if (*p->baseline && logt_plot_measure_higher_is_better(p->y))
        snprintf(dflt, sizeof dflt, "speedup over %s (this %s / its %s)", p->baseline, p->y, p->y);
    else if (*p->baseline)
        snprintf(dflt, sizeof dflt, "speedup over %s (its %s / this %s)", p->baseline, p->y, p->y);
    else
        logt_strlcpy(dflt, sizeof dflt, logt_plot_measure_label(p->y));
    logt_strlcpy(p->ylabel, sizeof p->ylabel, getv(e, sec, "ylabel", dflt));
    snprintf(dflt, sizeof dflt, "%s: %s", e->name, p->name);
    logt_strlcpy(p->title, sizeof p->title, getv(e, sec, "title", dflt));
    e->nplot++;
    return LOGT_OK;
}

/* zip = K1, K2, ...: the keys' lists must be of one length once resolved for the kind. */
static logt_status resolve_zip(logt_experiment *e, int kind)
{
    const char *sec = logt_kind_names[kind];
    const logt_entry *en = get(e, sec, "zip");
    if (!en) en = get(e, "sweep", "zip");
    e->zip[kind] = 0;
    if (!en) return LOGT_OK;
    logt_list l;
    LOGT_TRY(logt_list_split(en->value, ',', &l));
    const logt_list *ax = e->axis[kind];
    int first = axis_index(l.v[0]);
    for (int i = 0; i < l.n; i++) {
        int a = axis_index(l.v[i]);
        if (ax[a].n != ax[first].n)
            return LOGT_USER_FAIL(LOGT_EINVAL,
                                  "%s: zip = %s walks its keys together, so their lists need one "
                                  "length, but %s has %d values and %s has %d (%s runs on %s)",
                                  en->where, en->value, l.v[0], ax[first].n, l.v[i], ax[a].n, sec,
                                  e->backend);
        e->zip[kind] |= 1u << a;
    }
    return LOGT_OK;
}

logt_status logt_exp_resolve(logt_experiment *e, logt_device dev)
{
    e->device = dev;
    logt_exp_name(e, e->name, sizeof e->name);
    logt_strlcpy(e->description, sizeof e->description, getv(e, "experiment", "description", ""));
    logt_strlcpy(e->backend, sizeof e->backend, logt_device_name(dev));

    logt_list l;
    LOGT_TRY(logt_list_split(getv(e, "experiment", "kind", "speed"), ',', &l));
    e->nkinds = 0;
    for (int i = 0; i < l.n; i++) {
        int k = !strcmp(l.v[i], "train") ? LOGT_KIND_TRAIN
                : !strcmp(l.v[i], "kernel") ? LOGT_KIND_KERNEL : LOGT_KIND_SPEED;
        int dup = 0;
        for (int j = 0; j < e->nkinds; j++) dup |= e->kinds[j] == k;
        if (!dup) e->kinds[e->nkinds++] = k;
    }

    /* a kernel experiment names kernels (runner/kernels.c), the others registry models */
    const int kernels = e->kinds[0] == LOGT_KIND_KERNEL;
    const logt_entry *models = get(e, "experiment", "models");
    if (!models) {
        char known[512];
        if (kernels) logt_kernel_names(known, sizeof known);
        else logt_model_names(known, sizeof known);
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: [experiment] needs models = ... (known%s: %s; or * for "
                         "every %s that runs on the backend)", e->file, kernels ? " kernels" : "",
                         known, kernels ? "kernel" : "model");
    }
    LOGT_TRY(logt_list_split(models->value, ',', &l));
    e->models.n = 0;
    for (int i = 0; i < l.n; i++) {
        int n = kernels ? logt_kernel_count() : logt_model_count(), found = !strcmp(l.v[i], "*");
        for (int m = 0; m < n; m++) {
            const char *name = kernels ? logt_kernel_at(m)->name : logt_model_at(m)->name;
            unsigned devices = kernels ? logt_kernel_at(m)->devices : logt_model_at(m)->devices;
            int take = !strcmp(l.v[i], "*") ? (devices & (1u << dev)) != 0 : !strcmp(l.v[i], name);
            found |= take;
            if (take && logt_list_find(&e->models, name) < 0)
                snprintf(e->models.v[e->models.n++], LOGT_WORD, "%s", name);
        }
        if (!found) {   /* kind set per backend ([experiment.cuda] kind = kernel) */
            char known[512];
            if (kernels) logt_kernel_names(known, sizeof known);
            else logt_model_names(known, sizeof known);
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s: unknown %s '%s' for kind = %s on %s (known: %s)",
                                  models->where, kernels ? "kernel" : "model", l.v[i],
                                  logt_kind_names[e->kinds[0]], logt_device_name(dev), known);
        }
    }
    if (e->models.n == 0)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: models = %s selects no %s that runs on %s",
                         models->where, models->value, kernels ? "kernel" : "model",
                         logt_device_name(dev));

    for (int k = 0; k < LOGT_NKIND; k++)
        for (int a = 0; a < LOGT_NAXIS; a++) {
            const char *v = getv(e, logt_kind_names[k], logt_axis_names[a], NULL);
            if (!v) v = getv(e, "sweep", logt_axis_names[a], NULL);
            if (!v && a == AX_DTYPE) v = logt_dtype_name(logt_param_dtype(dev));
            if (!v) v = axis_defaults[a];
            if (!*v) {
                e->axis[k][a].n = 1;
                e->axis[k][a].v[0][0] = '\0';
            } else {
                LOGT_TRY(logt_list_split(v, ',', &e->axis[k][a]));
            }
        }
    for (int kk = 0; kk < e->nkinds; kk++) LOGT_TRY(resolve_zip(e, e->kinds[kk]));

    int64_t iv;
    logt_parse_i64(getv(e, "speed", "warmup", "1"), &iv), e->warmup[LOGT_KIND_SPEED] = (int)iv;
    logt_parse_i64(getv(e, "speed", "repeats", "5"), &iv), e->repeats[LOGT_KIND_SPEED] = (int)iv;
    logt_parse_i64(getv(e, "speed", "head_start_us", "0"), &iv), e->head_start_us = (int)iv;
    logt_parse_i64(getv(e, "kernel", "warmup", "3"), &iv), e->warmup[LOGT_KIND_KERNEL] = (int)iv;
    logt_parse_i64(getv(e, "kernel", "repeats", "20"), &iv), e->repeats[LOGT_KIND_KERNEL] = (int)iv;
    logt_strlcpy(e->task, sizeof e->task, getv(e, "train", "task", "adding"));
    logt_parse_i64(getv(e, "train", "steps", "200"), &iv), e->steps = (int)iv;
    logt_parse_i64(getv(e, "train", "eval_every", "50"), &iv), e->eval_every = (int)iv;
    logt_parse_i64(getv(e, "train", "eval_batches", "4"), &iv), e->eval_batches = (int)iv;
    logt_parse_i64(getv(e, "train", "test_batches", "16"), &iv), e->test_batches = (int)iv;
    logt_parse_f64(getv(e, "train", "lr", "0.01"), &e->lr);
    logt_parse_f64(getv(e, "train", "clip", "1.0"), &e->clip);
    logt_parse_f64(getv(e, "train", "solve_acc", "0"), &e->solve_acc);
    if (e->solve_acc > 1)
        return LOGT_FAIL(LOGT_EINVAL, "[train] solve_acc = %g: a validation accuracy in (0, 1] at which "
                         "a run counts as solved and stops, or 0 (off)", e->solve_acc);
    logt_parse_f64(getv(e, "train", "max_train_s", "0"), &e->max_train_s);
    e->keep_checkpoint = is_true(getv(e, "train", "keep_checkpoint", "true"));
    const char *ro = getv(e, "train", "readout", "host");
    if (strcmp(ro, "host") && strcmp(ro, "gpu"))
        return LOGT_FAIL(LOGT_EINVAL, "[train] readout = '%s': host (f64, the default) or gpu (f32, "
                         "cuda f32 models)", ro);
    e->gpu_readout = !strcmp(ro, "gpu");
    e->ncurriculum = 0;
    const char *cu = getv(e, "train", "curriculum", NULL);
    if (cu) {
        logt_list l;
        LOGT_TRY(logt_list_split(cu, ',', &l));
        if (l.n > LOGT_MAX_STAGES)
            return LOGT_FAIL(LOGT_EINVAL, "[train] curriculum = %s: %d lengths, at most %d", cu, l.n,
                             LOGT_MAX_STAGES);
        for (int i = 0; i < l.n; i++) {
            int64_t t;
            logt_parse_i64(l.v[i], &t);
            if (i > 0 && t <= e->curriculum[i - 1])
                return LOGT_FAIL(LOGT_EINVAL, "[train] curriculum = %s: the lengths must increase "
                                 "(%s after %d)", cu, l.v[i], e->curriculum[i - 1]);
            e->curriculum[e->ncurriculum++] = (int)t;
        }
        if (e->solve_acc <= 0)
            return LOGT_FAIL(LOGT_EINVAL, "[train] curriculum = %s: each length is trained until it "
                             "solves, so it needs solve_acc (a validation accuracy in (0, 1])", cu);
    }

    /* knob axes: the keys of [model.M] and [model.M.BACKEND], in file order */
    e->nknob = e->nonly = 0;
    for (int m = 0; m < e->models.n; m++) {
        char sec[LOGT_WORD + 8], secb[LOGT_WORD + 16];
        snprintf(sec, sizeof sec, "model.%s", e->models.v[m]);
        snprintf(secb, sizeof secb, "%s.%s", sec, logt_device_name(dev));
        int per_model = 0;
        for (int i = 0; i < e->nent; i++) {
            if (strcmp(e->ent[i].section, sec) && strcmp(e->ent[i].section, secb)) continue;
            const int a = axis_index(e->ent[i].key);
            if (a >= 0) {   /* a sweep key: this model runs only at the values listed */
                int seen = 0;
                for (int j = 0; j < e->nonly; j++)
                    seen |= !strcmp(e->only[j].model, e->models.v[m]) && e->only[j].axis == a;
                if (seen) continue;
                if (e->nonly == LOGT_MAX_KNOB_AXES)
                    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: too many model settings", e->ent[i].where);
                logt_only *o = &e->only[e->nonly++];
                logt_strlcpy(o->model, sizeof o->model, e->models.v[m]);
                o->axis = a;
                LOGT_TRY(logt_list_split(getv(e, sec, e->ent[i].key, ""), ',', &o->vals));
                continue;
            }
            int seen = 0;
            for (int j = 0; j < e->nknob; j++)
                seen |= !strcmp(e->knob[j].model, e->models.v[m]) && !strcmp(e->knob[j].key, e->ent[i].key);
            if (seen) continue;
            if (e->nknob == LOGT_MAX_KNOB_AXES || per_model == LOGT_MAX_KNOBS)
                return LOGT_USER_FAIL(LOGT_EINVAL, "%s: too many model settings", e->ent[i].where);
            logt_knob_axis *k = &e->knob[e->nknob++];
            per_model++;
            logt_strlcpy(k->model, sizeof k->model, e->models.v[m]);
            logt_strlcpy(k->key, sizeof k->key, e->ent[i].key);
            LOGT_TRY(logt_list_split(getv(e, sec, k->key, ""), ',', &k->vals));
        }
    }

    /* plots: every [plot.P] or [plot.P.BACKEND] of this backend, in file order */
    e->nplot = 0;
    for (int i = 0; i < e->nent; i++) {
        char name[128], backend[16];
        if (parse_section(e->ent[i].section, name, sizeof name, backend, sizeof backend) != S_PLOT)
            continue;
        if (*backend && strcmp(backend, logt_device_name(dev))) continue;
        int seen = 0;
        for (int j = 0; j < e->nplot; j++) seen |= !strcmp(e->plot[j].name, name);
        if (!seen) LOGT_TRY(resolve_plot(e, name));
    }
    return LOGT_OK;
}

/* ---- the experiment as run ---------------------------------------------------------- */

char *logt_exp_text(const logt_experiment *e)
{
    size_t cap = 1024;
    for (int i = 0; i < e->nent; i++)
        cap += strlen(e->ent[i].section) + strlen(e->ent[i].key) + strlen(e->ent[i].value) + 16;
    for (int i = 0; i < e->nsets; i++) cap += strlen(e->sets[i]) + 16;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    size_t used = (size_t)snprintf(buf, cap, "; %s as run", e->file);
    if (e->nsets) used += (size_t)snprintf(buf + used, cap - used, ", with");
    for (int i = 0; i < e->nsets; i++)
        used += (size_t)snprintf(buf + used, cap - used, " --set %s", e->sets[i]);
    used += (size_t)snprintf(buf + used, cap - used, "\n");
    /* sections in order of first appearance, each with all its keys */
    for (int i = 0; i < e->nent; i++) {
        int first = 1;
        for (int j = 0; j < i; j++) first &= strcmp(e->ent[j].section, e->ent[i].section) != 0;
        if (!first) continue;
        used += (size_t)snprintf(buf + used, cap - used, "\n[%s]\n", e->ent[i].section);
        for (int j = i; j < e->nent; j++)
            if (!strcmp(e->ent[j].section, e->ent[i].section))
                used += (size_t)snprintf(buf + used, cap - used, "%s = %s\n", e->ent[j].key,
                                         e->ent[j].value);
    }
    return buf;
}

static void copy_line(char *buf, size_t n, const char *p)
{
    if (!*p) {
        logt_strlcpy(buf, n, "(end)");
        return;
    }
    size_t len = strcspn(p, "\n");
    snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), p);
}

int logt_exp_text_diff(const char *a, const char *b, char *la, char *lb, size_t n)
{
    const char *pa = strchr(a, '\n'), *pb = strchr(b, '\n');
    pa = pa ? pa + 1 : a + strlen(a);
    pb = pb ? pb + 1 : b + strlen(b);
    for (int line = 2;; line++) {
        size_t na = strcspn(pa, "\n"), nb = strcspn(pb, "\n");
        if (na != nb || memcmp(pa, pb, na)) {
            copy_line(la, n, pa);
            copy_line(lb, n, pb);
            return line;
        }
        if (!pa[na] && !pb[nb]) return 0;
        pa += na + (pa[na] != '\0');
        pb += nb + (pb[nb] != '\0');
    }
}

/* ---- the sweep ------------------------------------------------------------------------- */

static int cmp_knob(const void *a, const void *b)
{
    return strcmp(((const logt_knob *)a)->key, ((const logt_knob *)b)->key);
}

static void fill_spec(const logt_experiment *e, int kind, const char *model, const int *ai,
                      const logt_knob_axis *const *kx, const int *ki, int nk, logt_run_spec *r)
{
    const logt_list *ax = e->axis[kind];
    int64_t T, B, D, I, H, L;
    uint64_t seed;
    logt_parse_i64(ax[AX_T].v[ai[AX_T]], &T);
    logt_parse_i64(ax[AX_B].v[ai[AX_B]], &B);
    logt_parse_i64(ax[AX_D].v[ai[AX_D]], &D);
    logt_parse_i64(ax[AX_INPUT].v[ai[AX_INPUT]], &I);
    logt_parse_i64(ax[AX_HEAD].v[ai[AX_HEAD]], &H);
    logt_parse_i64(ax[AX_LAYERS].v[ai[AX_LAYERS]], &L);
    logt_parse_u64(ax[AX_SEED].v[ai[AX_SEED]], &seed);
    if (I == 0) I = D;

    memset(r, 0, sizeof *r);
    r->kind = kind;
    logt_model_cfg_init(&r->cfg, model, e->device, (int)I, (int)D);
    logt_dtype_parse(ax[AX_DTYPE].v[ai[AX_DTYPE]], &r->cfg.dtype);
    r->cfg.head_dim = (int)H;
    r->cfg.layers = (int)L;
    r->cfg.seed = seed;
    logt_strlcpy(r->cfg.cell, sizeof r->cfg.cell, ax[AX_CELL].v[ai[AX_CELL]]);
    logt_knob knobs[LOGT_MAX_KNOBS];
    for (int k = 0; k < nk; k++) {
        logt_strlcpy(knobs[k].key, sizeof knobs[k].key, kx[k]->key);
        logt_strlcpy(knobs[k].val, sizeof knobs[k].val, kx[k]->vals.v[ki[k]]);
        logt_cfg_set_knob(&r->cfg, knobs[k].key, knobs[k].val);
    }
    qsort(knobs, (size_t)nk, sizeof knobs[0], cmp_knob);
    size_t used = 0;   /* 16 knobs of at most 31 + 63 characters fit: nothing is cut */
    for (int k = 0; k < nk && used < sizeof r->knobs; k++)
        used += (size_t)snprintf(r->knobs + used, sizeof r->knobs - used, "%s%s=%s", k ? "," : "",
                                 knobs[k].key, knobs[k].val);
    r->T = (int)T;
    r->B = (int)B;
    const char *dtype = logt_dtype_name(r->cfg.dtype);
    double per_token = (double)D * (double)(D + I) * (double)L;
    char extra[256] = "";   /* for the label only, which cuts it short anyway */
    size_t eu = 0;
    for (int a = AX_INPUT; a < LOGT_NAXIS && eu < sizeof extra; a++)
        if (a != AX_PASS && axis_used(kind, a) && ax[a].n > 1)
            eu += (size_t)snprintf(extra + eu, sizeof extra - eu, " %s=%s", logt_axis_names[a],
                                   ax[a].v[ai[a]]);
    for (int k = 0; k < nk && eu < sizeof extra; k++)
        eu += (size_t)snprintf(extra + eu, sizeof extra - eu, " %s=%s", kx[k]->key,
                               kx[k]->vals.v[ki[k]]);
    if (kind == LOGT_KIND_SPEED) {
        logt_strlcpy(r->pass, sizeof r->pass, ax[AX_PASS].v[ai[AX_PASS]]);
        r->warmup = e->warmup[kind];
        r->repeats = e->repeats[kind];
        r->head_start_us = e->head_start_us;
        char hs[40] = "";   /* only when set: keys of runs without one stay as they were */
        if (r->head_start_us) snprintf(hs, sizeof hs, " head_start_us=%d", r->head_start_us);
        snprintf(r->key, sizeof r->key,
                 "speed model=%s backend=%s T=%d B=%d D=%d input_size=%d head_dim=%d layers=%d "
                 "dtype=%s seed=%llu cell=%s pass=%s knobs=%s warmup=%d repeats=%d%s",
                 model, e->backend, r->T, r->B, (int)D, (int)I, (int)H, (int)L, dtype,
                 (unsigned long long)seed, r->cfg.cell, r->pass, r->knobs, r->warmup, r->repeats, hs);
        snprintf(r->label, sizeof r->label, "%s T=%d B=%d D=%d %s%.150s", model, r->T, r->B, (int)D,
                 r->pass, extra);
        r->cost = (double)T * (double)B * per_token * (!strcmp(r->pass, "fwdbwd") ? 3 : 1) *
                  (r->warmup + r->repeats) + 1e6;
    } else if (kind == LOGT_KIND_KERNEL) {
        /* only T, B, D, dtype, seed matter: the key leaves the rest out */
        r->warmup = e->warmup[kind];
        r->repeats = e->repeats[kind];
        snprintf(r->key, sizeof r->key,
                 "kernel model=%s backend=%s T=%d B=%d D=%d dtype=%s seed=%llu warmup=%d repeats=%d",
                 model, e->backend, r->T, r->B, (int)D, dtype, (unsigned long long)seed, r->warmup,
                 r->repeats);
        snprintf(r->label, sizeof r->label, "%s T=%d C=%lld (B=%d D=%d)%.150s", model, r->T,
                 (long long)B * D, r->B, (int)D, extra);
        r->cost = (double)T * (double)B * (double)D * 2 * (r->warmup + r->repeats) + 1e6;
    } else {
        snprintf(r->pass, sizeof r->pass, "train");
        logt_strlcpy(r->task, sizeof r->task, e->task);
        r->steps = e->steps;
        r->eval_every = e->eval_every;
        r->eval_batches = e->eval_batches;
        r->test_batches = e->test_batches;   /* not in the key: it does not change the training */
        r->lr = e->lr;
        r->clip = e->clip;
        r->solve_acc = e->solve_acc;
        r->max_train_s = e->max_train_s;   /* not in the key: a budget, not a different training */
        r->keep_checkpoint = e->keep_checkpoint;   /* not in the key either */
        r->gpu_readout = e->gpu_readout;
        char solve[256] = "";   /* in the key only when set: keys of earlier runs stay as they were */
        if (r->solve_acc > 0) snprintf(solve, sizeof solve, " solve_acc=%.17g", r->solve_acc);
        if (r->gpu_readout) snprintf(solve + strlen(solve), sizeof solve - strlen(solve), " readout=gpu");
        /* the curriculum's lengths below this run's T: at the shortest T of a sweep there are none */
        r->ncurriculum = 0;
        for (int i = 0; i < e->ncurriculum && e->curriculum[i] < r->T; i++) {
            r->curriculum[r->ncurriculum++] = e->curriculum[i];
            snprintf(solve + strlen(solve), sizeof solve - strlen(solve), "%s%d",
                     i ? "," : " curriculum=", e->curriculum[i]);
        }
        snprintf(r->key, sizeof r->key,
                 "train model=%s backend=%s task=%s T=%d B=%d D=%d head_dim=%d layers=%d dtype=%s "
                 "seed=%llu cell=%s knobs=%s steps=%d lr=%.17g clip=%.17g eval_every=%d "
                 "eval_batches=%d%s",
                 model, e->backend, r->task, r->T, r->B, (int)D, (int)H, (int)L, dtype,
                 (unsigned long long)seed, r->cfg.cell, r->knobs, r->steps, r->lr, r->clip,
                 r->eval_every, r->eval_batches, solve);
        snprintf(r->label, sizeof r->label, "%s train %s T=%d B=%d D=%d%.150s", model, r->task, r->T,
                 r->B, (int)D, extra);
        r->cost = (double)T * (double)B * per_token *
                      (3.0 * r->steps + (double)r->eval_batches * r->steps / r->eval_every) + 1e6;
    }
}

/* Add r to runs unless the same key is there already (training ignores input_size, a
 * kernel everything but T, B, D, dtype and seed): keep one. */
static logt_status push_spec(logt_run_spec **runs, int *count, int *cap, const logt_run_spec *r)
{
    for (int j = 0; j < *count; j++)
        if (!strcmp((*runs)[j].key, r->key)) return LOGT_OK;
    if (*count == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        logt_run_spec *grown = realloc(*runs, (size_t)*cap * sizeof *grown);
        if (!grown) return LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
        *runs = grown;
    }
    (*runs)[(*count)++] = *r;
    return LOGT_OK;
}

/* The odometer over the sweep keys, last key fastest: advance ai, return 1 when it
 * wraps around (the sweep is done). Keys the kind does not use stay at their first
 * value; zipped keys move as one, at the place of the first of them. */
static int next_point(const logt_experiment *e, int kind, int *ai)
{
    const logt_list *ax = e->axis[kind];
    const unsigned zip = e->zip[kind];
    int lead = -1;
    for (int a = 0; a < LOGT_NAXIS && lead < 0; a++)
        if ((zip >> a & 1) && axis_used(kind, a)) lead = a;
    for (int a = LOGT_NAXIS - 1; a >= 0; a--) {
        if (!axis_used(kind, a) || ((zip >> a & 1) && a != lead)) continue;
        int wrapped = ++ai[a] == ax[a].n;
        if (wrapped) ai[a] = 0;
        if (a == lead)
            for (int b = 0; b < LOGT_NAXIS; b++)
                if (zip >> b & 1) ai[b] = ai[a];
        if (!wrapped) return 0;
    }
    return 1;
}

/* Does the sweep point ai lie within what [model.M] allows of its sweep keys? */
static int allowed(const logt_experiment *e, int kind, const char *model, const int *ai)
{
    for (int j = 0; j < e->nonly; j++) {
        const logt_only *o = &e->only[j];
        if (strcmp(o->model, model)) continue;
        const char *v = e->axis[kind][o->axis].v[ai[o->axis]];
        int in = 0;
        for (int k = 0; k < o->vals.n && !in; k++) in = !strcmp(o->vals.v[k], v);
        if (!in) return 0;
    }
    return 1;
}

logt_status logt_exp_runs(const logt_experiment *e, logt_run_spec **out, int *n)
{
    *out = NULL;
    *n = 0;
    int cap = 0, count = 0;
    logt_run_spec *runs = NULL, *r = malloc(sizeof *r);
    logt_status s = r ? LOGT_OK : LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
    for (int kk = 0; s == LOGT_OK && kk < e->nkinds; kk++) {
        int kind = e->kinds[kk];
        if (kind == LOGT_KIND_KERNEL) {
            /* the kernels innermost: one shape's inputs serve every kernel in a row */
            int ai[LOGT_NAXIS] = {0};
            do {
                for (int m = 0; s == LOGT_OK && m < e->models.n; m++) {
                    fill_spec(e, kind, e->models.v[m], ai, NULL, NULL, 0, r);
                    s = push_spec(&runs, &count, &cap, r);
                }
            } while (s == LOGT_OK && !next_point(e, kind, ai));
            continue;
        }
        for (int m = 0; s == LOGT_OK && m < e->models.n; m++) {
            const logt_knob_axis *kx[LOGT_MAX_KNOBS];
            int nk = 0;
            for (int j = 0; j < e->nknob; j++)
                if (!strcmp(e->knob[j].model, e->models.v[m])) kx[nk++] = &e->knob[j];
            int ai[LOGT_NAXIS] = {0}, ki[LOGT_MAX_KNOBS] = {0};
            for (;;) {
                fill_spec(e, kind, e->models.v[m], ai, kx, ki, nk, r);
                if (allowed(e, kind, e->models.v[m], ai)
                    && (s = push_spec(&runs, &count, &cap, r)) != LOGT_OK)
                    break;
                /* knobs innermost, then the sweep keys */
                int carry = 1;
                for (int k = nk - 1; k >= 0 && carry; k--) {
                    if (++ki[k] < kx[k]->vals.n) carry = 0;
                    else ki[k] = 0;
                }
                if (carry && next_point(e, kind, ai)) break;
            }
        }
    }
    free(r);
    if (s != LOGT_OK) {
        free(runs);
        return s;
    }
    *out = runs;
    *n = count;
    return LOGT_OK;
}
