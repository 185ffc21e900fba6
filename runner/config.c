/* config.c — what experiment.ini may hold: the kinds of run, the sections and their keys,
 * and each value checked for its key.
 *
 * Every value is checked once at parse time whatever the backend, so a typo in
 * [sweep.cuda] is caught on a CPU-only machine too. The sweep keys are the axes of
 * axes.c; the fields and measures a plot may name are in plot_table.c.
 */
#include "config_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../datasets/dataset.h"
#include "../models/kernels.h"
#include "claims.h"

const char *const logt_kind_names[LOGT_NKIND] = {"speed", "train", "kernel"};

/* ---- what may be written ---------------------------------------------------- */

typedef struct { const char *key; vtype type; } keydef;

static const keydef experiment_keys[] = {
    {"name", V_NAME}, {"description", V_TEXT}, {"kind", V_KINDS}, {"models", V_MODELS},
    {"backend", V_BACKEND}, {NULL, 0}};
/* [sweep] holds the axes (axes.c), each checked by its type, and zip */
static const vtype axis_vtypes[LOGT_AXIS_NTYPES] = {
    [LOGT_AXIS_POSINT] = V_POSINTS, [LOGT_AXIS_NNINT] = V_NNINTS, [LOGT_AXIS_U64] = V_U64S,
    [LOGT_AXIS_DTYPE] = V_DTYPES,   [LOGT_AXIS_PASS] = V_PASSES,  [LOGT_AXIS_WORD] = V_WORDS};
static const keydef zip_key = {"zip", V_ZIP};
static const keydef speed_keys[] = {
    {"warmup", V_NNINT}, {"repeats", V_POSINT}, {"head_start_us", V_NNINT}, {"checksum", V_BOOL}, {NULL, 0}};
static const keydef kernel_keys[] = {{"warmup", V_NNINT}, {"repeats", V_POSINT}, {NULL, 0}};
static const keydef train_keys[] = {
    {"task", V_TASK}, {"steps", V_POSINT}, {"lr", V_POSNUM}, {"clip", V_NNNUM},
    {"eval_every", V_POSINT}, {"eval_batches", V_POSINT}, {"test_batches", V_POSINT},
    {"solve_acc", V_NNNUM}, {"max_train_s", V_NNNUM}, {"keep_checkpoint", V_BOOL}, {"readout", V_WORDS},
    {"curriculum", V_POSINTS}, {"diverge", V_NNNUM}, {NULL, 0}};
static const keydef plot_keys[] = {
    {"x", V_XFIELD}, {"y", V_MEASURE}, {"series", V_FIELDS}, {"where", V_FILTERS},
    {"baseline", V_FILTER1}, {"logx", V_BOOL}, {"logy", V_BOOL}, {"xlabel", V_TEXT},
    {"ylabel", V_TEXT}, {"title", V_TEXT}, {NULL, 0}};

/* [claims] keys are CLAIM.FIELD (runner/claims.h) */
static const keydef claim_fields[] = {
    {"text", V_TEXT}, {"y", V_MEASURE}, {"row", V_FILTERS}, {"over", V_OVER}, {"paper", V_TEXT},
    {"bar", V_BAR}, {NULL, 0}};

/* ---- sections ------------------------------------------------------------------ */

static const char *const section_bases[] = {"experiment", "sweep", "speed", "train", "kernel",
                                            "model", "plot", "claims"};

/* "model.lstm-cudnn.cuda" -> S_MODEL, name "lstm-cudnn", backend "cuda". */
int cfg_parse_section(const char *section, char *name, size_t nn, char *backend, size_t nb)
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

static const keydef *section_keys(int base)
{
    switch (base) {
    case S_EXPERIMENT: return experiment_keys;
    case S_SPEED: return speed_keys;
    case S_TRAIN: return train_keys;
    case S_KERNEL: return kernel_keys;
    case S_PLOT: return plot_keys;
    }
    return NULL;
}

/* Key i of a section, in the order messages list them: its own keys, then for [sweep],
 * [speed], [train] and [kernel] the axes and zip. 0 past the last. */
static int section_key(int base, int i, keydef *k)
{
    const keydef *own = section_keys(base);
    for (; own && own->key; own++, i--)
        if (i == 0) {
            *k = *own;
            return 1;
        }
    if (base != S_SWEEP && base != S_SPEED && base != S_TRAIN && base != S_KERNEL) return 0;
    if (i < logt_naxes) *k = (keydef){logt_axes[i].name, axis_vtypes[logt_axes[i].type]};
    else if (i == logt_naxes) *k = zip_key;
    return i <= logt_naxes;
}

static void keys_list(int base, char *buf, size_t n)
{
    size_t used = 0;
    keydef k;
    buf[0] = '\0';
    for (int i = 0; section_key(base, i, &k) && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", k.key);
}

/* "CLAIM.FIELD" in [claims]: a claim's name and one of its fields. */
static logt_status check_claim_key(const char *where, const char *section, const char *backend,
                                   const char *key, vtype *type)
{
    if (*backend)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: [%s]: claims hold for every backend; write them in "
                              "[claims] and name a backend in a claim's row if it needs one",
                              where, section);
    const char *dot = strchr(key, '.');
    char claim[LOGT_WORD];
    snprintf(claim, sizeof claim, "%.*s", dot ? (int)(dot - key) : 0, key);
    if (dot && cfg_is_word(claim, ""))
        for (const keydef *k = claim_fields; k->key; k++)
            if (!strcmp(dot + 1, k->key)) {
                *type = k->type;
                return LOGT_OK;
            }
    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: bad key '%s' in [claims]: expected CLAIM.FIELD, CLAIM a "
                          "name of letters, digits, '-' and '_', FIELD one of text, y, row, over, "
                          "paper, bar", where, key);
}

/* logt_peer_check's refusal, said at `where` in the experiment. */
static logt_status peer_refused(const char *where)
{
    char why[1024];
    logt_strlcpy(why, sizeof why, logt_user_msg());
    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: %s", where, why);
}

/* Check that `key` may appear in `section`; set *type. */
logt_status cfg_check_key(const char *where, const char *section, const char *key, vtype *type)
{
    char name[128], backend[16], known[512];
    int base = cfg_parse_section(section, name, sizeof name, backend, sizeof backend);
    if (base == S_UNKNOWN)
        return LOGT_USER_FAIL(LOGT_EINVAL,
                         "%s: unknown section [%s] (known: [experiment], [sweep], [speed], [train], "
                         "[kernel], [model.NAME], [plot.NAME], [claims]; all but [claims] may end "
                         "in .cpu or .cuda)",
                         where, section);
    if (strlen(name) > 48)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: section name [%s] is longer than 48 characters",
                              where, section);
    if (base == S_MODEL) {
        if (logt_peer_of(name)) {
            if (logt_peer_check(name) != LOGT_OK) return peer_refused(where);
        } else if (!logt_model_find(name)) {
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
    if (base == S_CLAIMS) return check_claim_key(where, section, backend, key, type);
    if (base == S_EXPERIMENT && *backend && !strcmp(key, "backend"))
        return LOGT_USER_FAIL(LOGT_EINVAL,
                         "%s: 'backend' cannot be set in [%s]: it decides which backend section "
                         "applies; set it in [experiment]",
                         where, section);
    keydef k;
    for (int i = 0; section_key(base, i, &k); i++)
        if (!strcmp(k.key, key)) {
            *type = k.type;
            return LOGT_OK;
        }
    keys_list(base, known, sizeof known);
    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: unknown key '%s' in [%s] (known: %s)", where, key, section,
                     known);
}

/* ---- values ------------------------------------------------------------------- */

logt_status cfg_bad(const char *where, const char *item, const char *key, const char *expected)
{
    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: bad value '%s' for %s: expected %s", where, item, key,
                     expected);
}

int cfg_is_word(const char *s, const char *extra)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && !strchr(extra, *s)) return 0;
    return 1;
}

/* Item i of the value (l: its list, or the whole value as one item). */
static logt_status check_item(const char *where, const char *key, vtype type, const char *value,
                              const logt_list *l, int i)
{
    const char *s = l->v[i];
    int64_t iv;
    uint64_t uv;
    double dv;
    logt_dtype dt;
    char known[512];
    switch (type) {
    case V_NAME:
        if (!cfg_is_word(value, ".") || strlen(value) >= LOGT_WORD)
            return cfg_bad(where, value, key, "a name of letters, digits, '-', '_' and '.'");
        break;
    case V_TEXT:
        if (strlen(value) >= 500) return cfg_bad(where, "...", key, "at most 500 characters");
        break;
    case V_KINDS:
        if (strcmp(s, "speed") && strcmp(s, "train") && strcmp(s, "kernel"))
            return cfg_bad(where, s, key, "speed, train (or both), or kernel");
        if (!strcmp(s, "kernel") && l->n > 1)
            return LOGT_USER_FAIL(LOGT_EINVAL,
                                  "%s: kind = kernel stands alone (its models are kernel names, "
                                  "not registry models): put the kernels in an experiment of "
                                  "their own", where);
        break;
    case V_MODELS:
        if (logt_peer_of(s)) {
            if (logt_peer_check(s) != LOGT_OK) return peer_refused(where);
        } else if (strcmp(s, "*") && !logt_model_find(s)) {
            logt_model_names(known, sizeof known);
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s: unknown model '%s' (known: %s; or * for all)%s",
                             where, s, known,
                             logt_kernel_find(s) ? ". It is a kernel: time it with kind = kernel" : "");
        }
        break;
    case V_KERNELS:
        if (logt_peer_of(s)) {
            if (logt_peer_check(s) != LOGT_OK) return peer_refused(where);
        } else if (strcmp(s, "*") && !logt_kernel_find(s)) {
            logt_kernel_names(known, sizeof known);
            return LOGT_USER_FAIL(LOGT_EINVAL,
                                  "%s: unknown kernel '%s' (kind = kernel; known kernels: %s; or * "
                                  "for all)%s", where, s, known,
                                  logt_model_find(s) ? ". It is a model: time it with kind = speed" : "");
        }
        break;
    case V_ZIP:
        if (logt_axis_index(s) < 0) {
            size_t used = 0;
            for (int a = 0; a < logt_naxes; a++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", a ? ", " : "",
                                         logt_axes[a].name);
            return cfg_bad(where, s, key, known);
        }
        if (l->n < 2) return cfg_bad(where, value, key, "two or more sweep keys to walk together");
        for (int j = 0; j < i; j++)
            if (!strcmp(l->v[j], s)) return cfg_bad(where, value, key, "sweep keys named once each");
        break;
    case V_BACKEND:
        if (strcmp(s, "cpu") && strcmp(s, "cuda") && strcmp(s, "auto"))
            return cfg_bad(where, s, key, "cpu, cuda or auto");
        break;
    case V_POSINTS:
        if (logt_parse_i64(s, &iv) || iv < 1 || iv > INT32_MAX)
            return cfg_bad(where, s, key, "positive integers up to 2147483647 (2^31 - 1)");
        break;
    case V_NNINTS:
        if (logt_parse_i64(s, &iv) || iv < 0 || iv > INT32_MAX)
            return cfg_bad(where, s, key, "non-negative integers up to 2147483647 (2^31 - 1)");
        break;
    case V_U64S:
        if (logt_parse_u64(s, &uv)) return cfg_bad(where, s, key, "non-negative integers");
        break;
    case V_DTYPES:
        if (logt_dtype_parse(s, &dt) != LOGT_OK) return cfg_bad(where, s, key, "f64, f32, bf16 or f16");
        break;
    case V_PASSES:
        if (strcmp(s, "forward") && strcmp(s, "fwdbwd"))
            return cfg_bad(where, s, key, "forward or fwdbwd");
        break;
    case V_WORDS:
        if (!cfg_is_word(s, "") || strlen(s) >= sizeof(((logt_model_cfg *)0)->cell))
            return cfg_bad(where, s, key, "short names of letters, digits, '-' and '_'");
        break;
    case V_POSINT:
        if (logt_parse_i64(s, &iv) || iv < 1 || iv > INT32_MAX)
            return cfg_bad(where, s, key, "a positive integer up to 2147483647 (2^31 - 1)");
        break;
    case V_NNINT:
        if (logt_parse_i64(s, &iv) || iv < 0 || iv > INT32_MAX)
            return cfg_bad(where, s, key, "a non-negative integer up to 2147483647 (2^31 - 1)");
        break;
    case V_POSNUM:
        if (logt_parse_f64(s, &dv) || !(dv > 0) || !isfinite(dv))
            return cfg_bad(where, s, key, "a positive number");
        break;
    case V_NNNUM:
        if (logt_parse_f64(s, &dv) || !(dv >= 0) || !isfinite(dv))
            return cfg_bad(where, s, key, "a number >= 0 (0: off)");
        break;
    case V_TASK:
        logt_dataset_names(known, sizeof known);
        if (!cfg_is_word(s, "")) return cfg_bad(where, s, key, known);
        {
            logt_list tasks;
            if (logt_list_split(known, ',', &tasks) == LOGT_OK && logt_list_find(&tasks, s) < 0)
                return cfg_bad(where, s, key, known);
        }
        break;
    case V_BOOL:
        if (strcmp(s, "true") && strcmp(s, "false") && strcmp(s, "yes") && strcmp(s, "no") &&
            strcmp(s, "1") && strcmp(s, "0"))
            return cfg_bad(where, s, key, "true or false");
        break;
    case V_XFIELD:
    case V_MEASURE:
    case V_FIELDS:
    case V_FILTERS:
    case V_FILTER1:
        LOGT_TRY(cfg_check_plot_item(where, key, type, s));
        break;
    case V_KNOBVALS:
        if (strlen(s) >= sizeof(((logt_knob *)0)->val) || strchr(s, '=') || strchr(s, ' '))
            return cfg_bad(where, s, key, "words without spaces or '='");
        break;
    case V_OVER:
    case V_BAR:
        LOGT_TRY(logt_claim_check_value(where, key, type == V_BAR, value));
        break;
    }
    return LOGT_OK;
}

logt_status cfg_check_value(const char *where, const char *key, vtype type, const char *value)
{
    logt_list l;
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
    for (int i = 0; i < l.n; i++) LOGT_TRY(check_item(where, key, type, value, &l, i));
    return LOGT_OK;
}
