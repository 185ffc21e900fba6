/* axes.h — the sweep axes: one table read by experiment.ini's checks (config.c), the
 * backend's lists (resolve.c), the runs and their keys (expand.c), the results file's
 * summary and run attributes (store.c, sweep.c) and the plots (plot_table.c, plot.c).
 *
 * An axis is a sweep key (`T = 16, 32`) whose values are crossed with the other axes'
 * (or walked with them: `zip`). Its row says how its values are checked and parsed,
 * which field of logt_run_spec a value sets, which column of logt_summary_row holds it
 * (also the name of the run's attribute and of the plot field), where it goes in the
 * run's key, and how a plot uses it. The sweep nests the axes in table order, the last
 * fastest. Adding an axis is one row in axes.c, the spec field it sets and its summary
 * column (runner/README.md, "Adding a sweep axis").
 *
 * Like every runner header this one stays free of HDF5 and libinih types.
 */
#ifndef LOGT_RUNNER_AXES_H
#define LOGT_RUNNER_AXES_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tensor.h"

#define LOGT_MAX_AXES 16   /* room in logt_experiment's lists; zip is a bit mask of axes */

struct logt_run_spec;
struct logt_summary_row;

/* How an axis's values are written and held: config.c checks each value by its type. */
typedef enum {
    LOGT_AXIS_POSINT,   /* integers >= 1: an int in the spec, an int64 column                */
    LOGT_AXIS_NNINT,    /* integers >= 0: the same                                             */
    LOGT_AXIS_U64,      /* integers 0 .. 2^64 - 1: a uint64_t, a uint64 column                */
    LOGT_AXIS_DTYPE,    /* f64, f32, bf16, f16: a logt_dtype, its name in the column; default
                         * is the backend's parameter dtype                                   */
    LOGT_AXIS_PASS,     /* forward, fwdbwd: a char array, a string column                      */
    LOGT_AXIS_WORD,     /* a short name: a char array, a string column                         */
    LOGT_AXIS_NTYPES
} logt_axis_type;

/* How a plot uses an axis: an x axis (numbers; "T=16" in a series label), or a value
 * that names a curve ("fwdbwd" in a series label). Any axis may be a series, where or
 * baseline field. */
typedef enum { LOGT_PLOT_X = 1, LOGT_PLOT_VALUE } logt_axis_plot;

/* key_at of an axis that enters keys only away from its default, after the kind's own
 * fields: keys of runs stored before the axis existed stay as they were. */
#define LOGT_KEY_IF_SET 99

typedef struct logt_axis {
    const char *name;        /* the sweep key, run attribute, summary column and plot field */
    logt_axis_type type;
    const char *dflt;        /* its value when no section sets it ("": the model's choice)    */
    unsigned kinds;          /* kinds of run it varies (bit 1 << LOGT_KIND_*); the others
                              * keep its first value                                       */
    size_t spec, spec_size;  /* the field of logt_run_spec a value sets                      */
    size_t col, col_size;    /* its column in logt_summary_row                               */
    unsigned keyed;          /* kinds whose key holds "NAME=VALUE"                            */
    int key_at;              /* its place among the key's sweep fields (or LOGT_KEY_IF_SET) */
    int label;               /* " NAME=VALUE" in a run's label when it takes several values
                              * (the kinds' labels show T, B, D and pass themselves)         */
    logt_axis_plot plot;
    const char *zero;        /* 0 stands for this earlier axis's value ("D"), or NULL        */
} logt_axis;

extern const logt_axis logt_axes[];
extern const int logt_naxes;

/* The index of the axis `name`, or -1. */
int logt_axis_index(const char *name);
/* Does the axis hold a number (an x axis candidate) rather than text? */
int logt_axis_is_number(const logt_axis *a);
/* The axis's default on backend dev, as text. */
const char *logt_axis_default(const logt_axis *a, logt_device dev);
/* The indices of the axes in the order of their summary columns (logt_summary_row's). */
void logt_axes_by_column(int order[LOGT_MAX_AXES]);

/* Set the axis's field of r from one value (checked when the file was read). */
void logt_axis_set(const logt_axis *a, struct logt_run_spec *r, const char *value);
/* Its value in r as keys and attributes write it: "256", "f32", "fwdbwd". */
void logt_axis_text(const logt_axis *a, const struct logt_run_spec *r, char *buf, size_t n);
/* Its value in r as an int64 attribute (numbers only; a uint64 is cast). */
int64_t logt_axis_i64(const logt_axis *a, const struct logt_run_spec *r);
/* " NAME=VALUE" of one axis for a key of kind (at_end: the LOGT_KEY_IF_SET ones, away from
 * their default); "" when it has no place there. Returns the length written. */
size_t logt_axis_key_field(const logt_axis *a, int kind, int at_end, const struct logt_run_spec *r,
                           char *buf, size_t n);
/* Append to buf the axes' fields of a key of kind: at_end 0 those at their places, in key_at
 * order, 1 the LOGT_KEY_IF_SET ones, for the key's end. */
void logt_axes_key(int kind, int at_end, const struct logt_run_spec *r, char *buf, size_t n);

/* The axis's value from r into its column of row. */
void logt_axis_to_row(const logt_axis *a, const struct logt_run_spec *r, struct logt_summary_row *row);
/* Its column of row as text: numbers "%lld" (a uint64 cast), text as stored. */
void logt_axis_row_text(const logt_axis *a, const struct logt_summary_row *row, char *buf, size_t n);
/* The column's type in the store's letters: 'i' int64, 'u' uint64, 's' string. */
char logt_axis_col_type(const logt_axis *a);

#endif
