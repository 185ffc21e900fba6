/* ini.c — experiment.ini read with libinih, and the --set overrides; the experiment as run,
 * as text for the results file.
 *
 * Parsing keeps every key as an entry {section, key, value, where}; nothing is
 * interpreted until logt_exp_resolve picks the backend (resolve.c). Each key and
 * value is checked here as config.c says.
 */
#define INI_HANDLER_LINENO 1
#include "config_internal.h"

#include <ctype.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

logt_entry *cfg_find_entry(const logt_experiment *e, const char *section, const char *key)
{
    for (int i = 0; i < e->nent; i++)
        if (!strcmp(e->ent[i].section, section) && !strcmp(e->ent[i].key, key)) return &e->ent[i];
    return NULL;
}

/* Does `kind` in [section] (else in [experiment]) say kernel? Then its models are kernels. */
static int kernel_kind(const logt_experiment *e, const char *section)
{
    const logt_entry *k = cfg_find_entry(e, section, "kind");
    if (!k) k = cfg_find_entry(e, "experiment", "kind");
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
    logt_entry *old = cfg_find_entry(p->e, section, key);
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
            cfg_check_key(where, section, key, &type);
            snprintf(joined, n, "%s%s%s", old->value, type == V_TEXT ? " " : comma ? ", " : " ",
                     value);
            free(old->value);
            old->value = joined;
        }
    } else if (old)
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s: '%s' is set twice in [%s] (first at %s)", where, key,
                      section, old->where);
    else if ((s = cfg_check_key(where, section, key, &type)) == LOGT_OK)
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
        char file[sizeof e->file];
        logt_strlcpy(file, sizeof file, e->file);
        logt_exp_free(e);
        if (stat(dir, &st) != 0)
            return LOGT_USER_FAIL(LOGT_EINVAL, "no experiment at %s: it does not exist. HINT: `logt list` "
                             "shows the experiments", dir);
        if (S_ISDIR(st.st_mode) && stat(file, &st) != 0)
            return LOGT_USER_FAIL(LOGT_EINVAL, "no experiment at %s: it has no experiment.ini (an "
                                  "experiment is a directory with one). HINT: `logt list` shows the "
                                  "experiments", dir);
        return LOGT_USER_FAIL(LOGT_EINVAL, "no experiment at %s: cannot read %s", dir, file);
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
        if (s == LOGT_OK) s = cfg_check_key(where, section, key, &type);
        if (s != LOGT_OK) break;
        logt_entry *old = cfg_find_entry(e, section, key);
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
        s = cfg_check_key(e->ent[i].where, e->ent[i].section, e->ent[i].key, &type);
        if (s == LOGT_OK && type == V_MODELS && kernel_kind(e, e->ent[i].section)) type = V_KERNELS;
        if (s == LOGT_OK) s = cfg_check_value(e->ent[i].where, e->ent[i].key, type, e->ent[i].value);
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
