/* config.h — experiment.ini: parse, check, apply --set, resolve for a backend,
 * and expand the sweep into the list of runs.
 *
 * The format is described in runner/README.md. In short: sections [experiment],
 * [sweep], [speed], [train], [kernel], [model.NAME], [plot.NAME]; any of them may be
 * repeated with a backend suffix ([sweep.cuda], [model.lstm-cudnn.cpu]) whose
 * keys replace the plain section's when running on that backend. Every sweep
 * key is a comma list and the runs are the cartesian product, except that the
 * keys named by `zip` are walked together (their i-th values make one point).
 */
#ifndef LOGT_RUNNER_CONFIG_H
#define LOGT_RUNNER_CONFIG_H

#include <limits.h>

#include "../models/model.h"
#include "axes.h"
#include "util.h"

/* speed and train runs time or train a model of the registry; kernel runs time one
 * kernel of models/kernels.c against a device-to-device copy. */
enum { LOGT_KIND_SPEED, LOGT_KIND_TRAIN, LOGT_KIND_KERNEL, LOGT_NKIND };
extern const char *const logt_kind_names[LOGT_NKIND];   /* "speed", "train", "kernel" */

typedef struct logt_entry {
    char *section;   /* as written: "sweep.cuda", "model.lstm-cudnn"        */
    char *key;
    char *value;
    char *where;     /* "dir/experiment.ini:12" or "--set sweep.T=16"        */
} logt_entry;

typedef struct logt_knob_axis {
    char model[32], key[32];
    logt_list vals;
} logt_knob_axis;

/* A sweep key named in a [model.M] section: model M runs only at these of its values. */
typedef struct logt_only {
    char model[32];
    int axis;                /* in logt_axes */
    logt_list vals;
} logt_only;

#define LOGT_MAX_PLOTS 32
#define LOGT_MAX_KNOB_AXES 64
#define LOGT_MAX_STAGES 16      /* [train] curriculum: lengths trained before a run's own T */

typedef struct logt_plot {
    char name[LOGT_WORD];
    char x[32], y[32];
    logt_list series;        /* fields whose values name a curve                  */
    logt_list where;         /* "key=value" or "key=v1|v2" filters, all must hold  */
    char baseline[LOGT_WORD];/* "model=lstm": plot baseline / y (speedup)         */
    int logx, logy;
    char xlabel[128], ylabel[128], title[256];
    int curve;               /* y is per step (loss, ...) rather than per run      */
} logt_plot;

typedef struct logt_experiment {
    char dir[PATH_MAX], file[PATH_MAX + 32];
    int nent;
    logt_entry *ent;         /* every key of the file, --set applied, in order    */
    int nsets;
    char **sets;             /* the --set arguments, for the record                */

    /* resolved by logt_exp_resolve for one backend: */
    logt_device device;
    char name[LOGT_WORD], description[512], backend[8];
    int nkinds, kinds[LOGT_NKIND];
    logt_list models;
    logt_list axis[LOGT_NKIND][LOGT_MAX_AXES];   /* each axis's values (logt_axes order) */
    unsigned zip[LOGT_NKIND];    /* bit a: axis a is walked with the other zipped axes */
    int warmup[LOGT_NKIND], repeats[LOGT_NKIND];   /* speed and kernel runs */
    int head_start_us;       /* [speed] head_start_us                              */
    int checksum;            /* [speed] checksum: CRC-32s of the outputs stored    */
    char task[32];
    int steps, eval_every, eval_batches, test_batches;
    double lr, clip, solve_acc, max_train_s;
    double diverge;          /* [train] diverge: a loss this many times the first fails */
    int keep_checkpoint;     /* [train] keep_checkpoint: a budget-stopped run keeps it */
    int gpu_readout;         /* [train] readout = gpu                                  */
    int ncurriculum;         /* [train] curriculum = T1, T2, ...: increasing lengths   */
    int curriculum[LOGT_MAX_STAGES];
    int nknob;
    logt_knob_axis knob[LOGT_MAX_KNOB_AXES];
    int nonly;
    logt_only only[LOGT_MAX_KNOB_AXES];
    int nplot;
    logt_plot plot[LOGT_MAX_PLOTS];
} logt_experiment;

/* One point of the sweep: everything a run needs, and its canonical key. The sweep axes
 * set their fields (runner/axes.c): T, B, pass and those of cfg. */
typedef struct logt_run_spec {
    int kind;
    logt_model_cfg cfg;      /* model (a kernel's name for kernel runs), device,
                              * dtype, sizes, seed, cell, knobs                    */
    int T, B;
    char pass[16];           /* "forward", "fwdbwd" (speed); "train"; "" (kernel)  */
    int warmup, repeats;     /* speed, kernel                                      */
    int head_start_us;       /* speed: the GPU kept busy this long before each timed pass */
    int checksum;            /* speed: CRC-32s of y (and dx, dw) stored with the run */
    char task[32];           /* train                                              */
    int steps, eval_every, eval_batches, test_batches;
    double lr, clip, solve_acc, max_train_s;
    double diverge;          /* a loss this many times the run's first fails it (0: off) */
    int keep_checkpoint;     /* a run stopped by max_train_s keeps its checkpoint      */
    int gpu_readout;         /* the readout on the GPU (train/readout_cuda.h)          */
    int ncurriculum;         /* the curriculum's lengths below T, each trained until it  */
    int curriculum[LOGT_MAX_STAGES];   /* solves (solve_acc), then T itself           */
    char knobs[1600];        /* "algo=standard,math=fp32" (sorted by key; 16 knobs fit) */
    char key[2048];          /* canonical: equal keys mean the same measurement    */
    char label[256];         /* "lstm T=256 B=1 D=256 fwdbwd algo=standard"        */
    double cost;             /* rough relative cost, for the ETA                   */
} logt_run_spec;

/* "section.key=value" -> its three parts; an error naming the form expected. */
logt_status logt_set_split(const char *arg, char *section, size_t ns, char *key, size_t nk,
                           char *value, size_t nv);

/* Read DIR/experiment.ini, check every section, key and value, apply the --set
 * overrides. Errors carry "FILE:LINE: ..." (or "--set ...: ..."). */
logt_status logt_exp_parse(const char *dir, char *const *sets, int nsets, logt_experiment **out);
/* [experiment] backend as written ("auto" when absent). */
const char *logt_exp_backend(const logt_experiment *e);
/* [experiment] name (the directory's name when absent), before resolving. */
void logt_exp_name(const logt_experiment *e, char *buf, size_t n);
/* Fill the resolved fields for backend dev: [S.cpu] / [S.cuda] over [S]. */
logt_status logt_exp_resolve(logt_experiment *e, logt_device dev);
void logt_exp_free(logt_experiment *e);

/* The experiment as run: every section and key after --set (malloc'd text). */
char *logt_exp_text(const logt_experiment *e);
/* Do two texts of logt_exp_text describe the same experiment? Their first lines (the
 * file's path and the --set arguments, whose values the rest holds) are not compared.
 * 0 when they do; else the number of the first line that differs, that line of each
 * text in la and lb ("(end)" past the last). */
int logt_exp_text_diff(const char *a, const char *b, char *la, char *lb, size_t n);

/* The runs of the sweep, in order: kinds, models, then the sweep keys in
 * logt_axes order, then the model's knobs; for kernel runs the kernels
 * come innermost (all kernels of one shape in a row, sharing its inputs).
 * *out is malloc'd. */
logt_status logt_exp_runs(const logt_experiment *e, logt_run_spec **out, int *n);

/* Fields a plot's series/where may name (beyond the knobs), and its y values. */
int logt_plot_is_field(const char *name);
int logt_plot_is_measure(const char *name, int *curve);
/* The i-th per-run measure (median_ms, ...; not the per-step ones), NULL past the last. */
const char *logt_plot_run_measure(int i);
const char *logt_plot_measure_label(const char *name);
/* Is more better (tokens_per_s, gbps, ...)? Then a baseline ratio is this / baseline's,
 * else (times, memory, losses) baseline's / this: above 1 means better than the baseline. */
int logt_plot_measure_higher_is_better(const char *name);

#endif
