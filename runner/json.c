/* json.c — a recursive-descent reader for the one-object JSON of json.h. */
#include "json.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s, *p;
    char *err;
    size_t nerr;
    int failed;
} parser;

static int fail(parser *ps, const char *what)
{
    if (!ps->failed) snprintf(ps->err, ps->nerr, "at byte %ld: %s", (long)(ps->p - ps->s), what);
    ps->failed = 1;
    return -1;
}

static void skip_ws(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int expect(parser *ps, char c)
{
    skip_ws(ps);
    if (*ps->p != c) {
        char what[32];
        snprintf(what, sizeof what, "expected '%c'", c);
        return fail(ps, what);
    }
    ps->p++;
    return 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A string at ps->p (after white space) into a new buffer (*out, or dropped when out is NULL). */
static int string(parser *ps, char **out)
{
    if (expect(ps, '"')) return -1;
    const char *start = ps->p;
    size_t cap = 1;
    for (const char *q = start; *q && *q != '"'; q++) cap++, q += *q == '\\' && q[1];
    char *buf = malloc(cap), *w = buf;
    if (!buf) return fail(ps, "out of host memory");
    while (*ps->p && *ps->p != '"') {
        char c = *ps->p++;
        if ((unsigned char)c < 0x20) {
            free(buf);
            return fail(ps, "a control character inside a string");
        }
        if (c != '\\') {
            *w++ = c;
            continue;
        }
        c = *ps->p++;
        switch (c) {
        case '"': case '\\': case '/': *w++ = c; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            int v = 0;
            for (int i = 0; i < 4; i++) {
                const int h = hexval(*ps->p);
                if (h < 0) {
                    free(buf);
                    return fail(ps, "a bad \\u escape");
                }
                v = v * 16 + h, ps->p++;
            }
            *w++ = v > 0 && v < 0x80 ? (char)v : '?';   /* \u0000 would end the string */
            break;
        }
        default:
            free(buf);
            return fail(ps, "a bad escape in a string");
        }
    }
    *w = '\0';
    if (*ps->p != '"') {
        free(buf);
        return fail(ps, "a string without its closing '\"'");
    }
    ps->p++;
    if (out) *out = buf;
    else free(buf);
    return 0;
}

/* JSON's number grammar, -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?, read by strtod, finite. */
static int number(parser *ps, double *out)
{
    skip_ws(ps);
    const char *q = ps->p;
    if (*q == '-') q++;
    if (*q == '0') q++;
    else if (isdigit((unsigned char)*q)) while (isdigit((unsigned char)*q)) q++;
    else return fail(ps, "expected a value");
    if (*q == '.') {
        if (!isdigit((unsigned char)*++q)) return fail(ps, "expected a digit after '.'");
        while (isdigit((unsigned char)*q)) q++;
    }
    if (*q == 'e' || *q == 'E') {
        if (*++q == '+' || *q == '-') q++;
        if (!isdigit((unsigned char)*q)) return fail(ps, "expected a digit in the exponent");
        while (isdigit((unsigned char)*q)) q++;
    }
    char *end;
    const double v = strtod(ps->p, &end);
    if (end != q || !isfinite(v)) return fail(ps, "a number out of range");
    ps->p = q;
    *out = v;
    return 0;
}

static int value(parser *ps, json_value *v, int depth);

/* An array: of numbers into v (JSON_NUMBERS), else read past (JSON_OTHER). */
static int array(parser *ps, json_value *v, int depth)
{
    ps->p++;   /* '[' */
    int all_numbers = 1, cap = 0;
    v->type = JSON_NUMBERS;
    skip_ws(ps);
    if (*ps->p == ']') return ps->p++, 0;
    for (;;) {
        json_value item = {0};
        if (value(ps, &item, depth + 1)) {
            free(item.str), free(item.nums);
            return -1;
        }
        if (item.type == JSON_NUMBER && all_numbers) {
            if (v->n == cap) {
                cap = cap ? 2 * cap : 16;
                double *grown = realloc(v->nums, (size_t)cap * sizeof *grown);
                if (!grown) return fail(ps, "out of host memory");
                v->nums = grown;
            }
            v->nums[v->n++] = item.num;
        } else {
            all_numbers = 0;
        }
        free(item.str), free(item.nums);
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (expect(ps, ']')) return -1;
        break;
    }
    if (!all_numbers) {
        free(v->nums);
        v->nums = NULL, v->n = 0, v->type = JSON_OTHER;
    }
    return 0;
}

/* An object's members: into o when not NULL, else read past. */
static int members(parser *ps, json_object *o, int depth)
{
    if (expect(ps, '{')) return -1;
    skip_ws(ps);
    if (*ps->p == '}') return ps->p++, 0;
    int cap = 0;
    for (;;) {
        char *name = NULL;
        if (string(ps, &name)) return -1;
        if (expect(ps, ':')) {
            free(name);
            return -1;
        }
        json_value v = {0};
        snprintf(v.name, sizeof v.name, "%s", name);
        free(name);
        if (value(ps, &v, depth + 1)) {
            free(v.str), free(v.nums);
            return -1;
        }
        if (o) {
            if (o->n == cap) {
                cap = cap ? 2 * cap : 16;
                json_value *grown = realloc(o->v, (size_t)cap * sizeof *grown);
                if (!grown) {
                    free(v.str), free(v.nums);
                    return fail(ps, "out of host memory");
                }
                o->v = grown;
            }
            o->v[o->n++] = v;
        } else {
            free(v.str), free(v.nums);
        }
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        return expect(ps, '}');
    }
}

static int value(parser *ps, json_value *v, int depth)
{
    if (depth > 32) return fail(ps, "nested more than 32 deep");
    skip_ws(ps);
    const char c = *ps->p;
    if (c == '"') return v->type = JSON_STRING, string(ps, &v->str);
    if (c == '[') return array(ps, v, depth);
    if (c == '{') return v->type = JSON_OTHER, members(ps, NULL, depth);
    static const struct { const char *word; json_type type; int b; } words[] = {
        {"true", JSON_BOOL, 1}, {"false", JSON_BOOL, 0}, {"null", JSON_NULL, 0}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strncmp(ps->p, words[i].word, strlen(words[i].word))) {
            ps->p += strlen(words[i].word);
            v->type = words[i].type, v->b = words[i].b;
            return 0;
        }
    v->type = JSON_NUMBER;
    return number(ps, &v->num);
}

int json_parse_object(const char *text, json_object *out, char *err, size_t nerr)
{
    parser ps = {text, text, err, nerr, 0};
    memset(out, 0, sizeof *out);
    if (nerr) err[0] = '\0';
    if (members(&ps, out, 0) == 0) {
        skip_ws(&ps);
        if (!*ps.p) return 0;
        fail(&ps, "text after the object");
    }
    json_free(out);
    return -1;
}

void json_free(json_object *o)
{
    for (int i = 0; i < o->n; i++) free(o->v[i].str), free(o->v[i].nums);
    free(o->v);
    o->v = NULL, o->n = 0;
}

const json_value *json_get(const json_object *o, const char *name)
{
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->v[i].name, name)) return &o->v[i];
    return NULL;
}
