/* config_internal.h — shared by the sources of experiment.ini's handling only: config.c
 * (what may be written, checked), ini.c (reading the file and --set), resolve.c (one
 * backend's values), plot_table.c (plot fields and measures) and expand.c (the runs).
 */
#ifndef LOGT_RUNNER_CONFIG_INTERNAL_H
#define LOGT_RUNNER_CONFIG_INTERNAL_H

#include "config.h"
#include "peer.h"

/* ---- config.c --------------------------------------------------------------------- */

/* What a value may be: checked once at parse time, whatever the backend. */
typedef enum {
    V_NAME, V_TEXT, V_KINDS, V_MODELS, V_BACKEND, V_POSINTS, V_NNINTS, V_U64S, V_DTYPES, V_PASSES,
    V_WORDS, V_POSINT, V_NNINT, V_POSNUM, V_NNNUM, V_TASK, V_BOOL, V_XFIELD, V_MEASURE, V_FIELDS,
    V_FILTERS, V_FILTER1, V_KNOBVALS, V_KERNELS, V_ZIP, V_OVER, V_BAR,
} vtype;

enum { S_EXPERIMENT, S_SWEEP, S_SPEED, S_TRAIN, S_KERNEL, S_MODEL, S_PLOT, S_CLAIMS, S_UNKNOWN };

/* "model.lstm-cudnn.cuda" -> S_MODEL, name "lstm-cudnn", backend "cuda". */
int cfg_parse_section(const char *section, char *name, size_t nn, char *backend, size_t nb);
/* Check that `key` may appear in `section`; set *type. `where`: "FILE:LINE" or "--set ...". */
logt_status cfg_check_key(const char *where, const char *section, const char *key, vtype *type);
logt_status cfg_check_value(const char *where, const char *key, vtype type, const char *value);
/* "WHERE: bad value 'ITEM' for KEY: expected EXPECTED" */
logt_status cfg_bad(const char *where, const char *item, const char *key, const char *expected);
/* Letters, digits, '-', '_' and the characters of `extra`; not empty. */
int cfg_is_word(const char *s, const char *extra);

/* ---- plot_table.c ------------------------------------------------------------------ */

/* One item of a [plot.*] value: x, y, series, where or baseline. */
logt_status cfg_check_plot_item(const char *where, const char *key, vtype type, const char *s);
/* Resolve [plot.NAME] (after [plot.NAME.BACKEND]) into e->plot[e->nplot++]. */
logt_status cfg_resolve_plot(logt_experiment *e, const char *name);

/* ---- ini.c ------------------------------------------------------------------------- */

/* The entry of key in [section] exactly as written (NULL: none). */
logt_entry *cfg_find_entry(const logt_experiment *e, const char *section, const char *key);

/* ---- resolve.c --------------------------------------------------------------------- */

/* The entry of key in [sec.BACKEND], else [sec], for e's backend; NULL when neither has it. */
const logt_entry *cfg_get(const logt_experiment *e, const char *sec, const char *key);
const char *cfg_getv(const logt_experiment *e, const char *sec, const char *key, const char *dflt);
int cfg_is_true(const char *s);   /* true, yes or 1 */

#endif
