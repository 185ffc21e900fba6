/* json.h — the little JSON the runner reads: one object of named values, as a peer adapter
 * prints (peers/README.md). Strings, numbers, true/false/null, arrays of numbers; a nested
 * object or an array of anything else is read past and kept as JSON_OTHER.
 */
#ifndef LOGT_RUNNER_JSON_H
#define LOGT_RUNNER_JSON_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_NUMBERS, JSON_OTHER } json_type;

typedef struct json_value {
    char name[64];
    json_type type;
    int b;             /* JSON_BOOL                                                 */
    double num;        /* JSON_NUMBER                                               */
    char *str;         /* JSON_STRING: UTF-8; \u escapes outside ASCII become '?'   */
    double *nums;      /* JSON_NUMBERS                                              */
    int n;
} json_value;

typedef struct json_object {
    json_value *v;
    int n;
} json_object;

/* Parse text, one object and nothing after it but white space. On an error, -1 and a
 * message in err ("at byte 17: expected ':'"); the object is then empty. */
int json_parse_object(const char *text, json_object *out, char *err, size_t nerr);
void json_free(json_object *o);
/* The member called name, or NULL. */
const json_value *json_get(const json_object *o, const char *name);

#endif
