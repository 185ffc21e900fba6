/* rows.h — a /summary row's fields and measures by name, and filters on them: what plots,
 * `logt show` and claims read a results file's rows with.
 *
 * A field is a column (model, kind, backend, task, impl, knobs, status, run, the sweep axes
 * of axes.c, C = B·D) or a knob in the row's knobs ("algo=standard,math=fp32"). A filter is
 * "FIELD=VALUE" or "FIELD=V1|V2".
 */
#ifndef LOGT_RUNNER_ROWS_H
#define LOGT_RUNNER_ROWS_H

#include <stddef.h>

#include "store.h"

/* The value of field `name` in r as text; 0 (and "") when r has no such field. */
int logt_row_field(const logt_summary_row *r, const char *name, char *buf, size_t n);
/* Is the field a number named in labels ("D=768"), not a value standing alone ("fwdbwd")? */
int logt_row_field_is_numeric(const char *name);
/* A per-run measure (median_ms, gbps, ...) of r; NaN for an unknown name. */
double logt_row_measure(const logt_summary_row *r, const char *name);
/* Does r satisfy the filter? */
int logt_row_matches(const logt_summary_row *r, const char *filter);
/* The filter's field name ("model" of "model=lstm|gru") into buf. */
void logt_filter_field(const char *filter, char *buf, size_t n);

#endif
