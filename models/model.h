/* model.h — the interface every recurrent model implements, and the stack of layers.
 *
 * A model is one layer: x[T][B][I] -> h[T][B][D]. It is a table of functions
 * (logt_model_ops) registered under an id in registry.c. Its parameters live in
 * one flat buffer described by named slices (logt_layout), so that the optimizer,
 * the checkpoint writer and the gradient check treat every model alike.
 *
 * Contract of the ops:
 *   layout   checks what is the model's own in the configuration (its knobs' values,
 *            its kernels' limits) and lists the parameter slices; a bad configuration
 *            is an error naming what is wrong and what would be right. What every
 *            model declares (backends, dtypes, heads, cells, knob names) is checked
 *            before, once (logt_model_check); ask for a layout with logt_model_layout.
 *   create   makes a layer. Its m->w / m->dw are set by the net afterwards
 *            (views into the net's flat buffers), before the first forward.
 *            Whoever writes the parameters moves m->wversion on (logt_net_params_written),
 *            so that a model may keep them in another form (lstm-cudnn's weight space)
 *            between forwards and rebuild it only when the version moved.
 *   forward  writes h (caller-allocated, cfg.dtype on cfg.device) and keeps what
 *            backward needs. Reads the initial state m->h0 (and m->c0) when their
 *            data is non-NULL, else starts from zeros.
 *   backward given dh = dL/dh for every step, overwrites m->dw, writes dx when
 *            dx is non-NULL, and m->dh0/m->dc0 when their data is non-NULL.
 *            Uses the activations of the last forward.
 *
 * A model whose ops set `segments` can also run a sequence in pieces, as the net's
 * recomputation does (recompute = K, net.c): its state slots (h0 and c0, whatever the model
 * keeps in them) are what one piece hands the next.
 *   forward  also writes the final state of each slot to m->hT / m->cT when their data is
 *            non-NULL ([B][D], the slots' dtype and device).
 *   backward starts from m->dhT / m->dcT, dL/d(final state) from the steps after the piece
 *            (data NULL: zeros), and adds its gradients to m->dw when m->dw_add is set.
 */
#ifndef LOGT_MODEL_H
#define LOGT_MODEL_H

#include <stdint.h>

#include "../core/ctx.h"
#include "../core/status.h"
#include "../core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOGT_MAX_KNOBS 16
#define LOGT_MAX_SLICES 16
#define LOGT_MAX_LAYERS 16
#define LOGT_MAX_SEGMENTS (4 * LOGT_MAX_LAYERS)   /* a wavefront's own segments: 4 a layer */

typedef struct logt_knob { char key[32]; char val[64]; } logt_knob;

typedef struct logt_model_cfg {
    char model[32];        /* registry id: "lstm", "lstm-cudnn", ...                  */
    logt_device device;
    logt_dtype dtype;      /* activations x, h. Parameters: f64 on cpu, f32 on cuda   */
    int input_size;        /* I */
    int hidden_size;       /* D */
    int head_dim;          /* dh; 0 means D (one head)                                */
    int layers;            /* stacked by the net; each model sees one layer           */
    char cell[16];         /* "lstm", "gru", ... for models with a choice             */
    uint64_t seed;
    int nknobs;            /* the model's own settings: names checked against its ops, */
                           /* values by the model                                    */
    logt_knob knobs[LOGT_MAX_KNOBS];
} logt_model_cfg;

/* Set defaults: one layer, f64 on cpu / f32 on cuda, seed 1. */
void logt_model_cfg_init(logt_model_cfg *cfg, const char *model, logt_device dev, int input_size,
                         int hidden_size);
logt_status logt_cfg_set_knob(logt_model_cfg *cfg, const char *key, const char *val);
/* The knob's value, or `dflt` when unset. */
const char *logt_cfg_knob(const logt_model_cfg *cfg, const char *key, const char *dflt);
/* The parameter dtype of a device: f64 on cpu, f32 on cuda. */
logt_dtype logt_param_dtype(logt_device dev);

typedef struct logt_slice {
    char name[32];
    int64_t offset, numel;
    int ndim;
    int64_t shape[3];
    double init_bound;     /* initialised uniform in [-b, b]; 0 means zeros */
    /* a memory gate's bias (logt_layout_memory_gate): elements [keep, keep + nkeep) keep
     * the state when large; [neg, neg + nkeep) (neg >= 0) are set to their negatives */
    int64_t keep, nkeep, neg;
} logt_slice;

typedef struct logt_layout {
    int n;
    logt_slice s[LOGT_MAX_SLICES];
    int64_t numel;
} logt_layout;

/* Append a slice of the given shape (ndim 1..3) to a layout. */
void logt_layout_add(logt_layout *l, const char *name, double init_bound, int ndim, int64_t a,
                     int64_t b, int64_t c);
const logt_slice *logt_layout_find(const logt_layout *l, const char *name);
/* Mark elements [keep, keep + n) of slice `name` as the bias of a memory gate (lstm's forget
 * gate, gru's update gate z, a linear recurrence's gate), and [neg, neg + n) (neg >= 0; -1:
 * none) as the bias to set to their negatives (lstm's input gate), for the knob forget_init
 * that every gated model takes (net.c):
 *   default       the uniform initialisation of the slice, nothing more
 *   <number> c    keep = c (Gers et al.'s forget-gate bias, c = 1 .. 5)
 *   chrono:<Tm>   keep = log(u), u uniform in [1, Tm - 1] per unit, neg = -keep (Tallec &
 *                 Ollivier's chrono initialisation: time constants spread up to Tm steps) */
void logt_layout_memory_gate(logt_layout *l, const char *name, int64_t keep, int64_t n, int64_t neg);

typedef struct logt_model logt_model;

/* What a model takes is declared in its ops and checked once, for every model, by
 * logt_model_check: the backends, the activation dtypes on each, whether head_dim may split
 * D into heads, the cells and the knobs. A model's layout checks only what is its own (the
 * values of its knobs, limits of its kernels). */
#define LOGT_BIT(x) (1u << (x))   /* a device's or a dtype's bit in the sets below */

/* segment_min of the models whose kernels run in parallel over T (sru, deer; gilr takes a
 * larger one of its own): 2^22 elements, 16 MiB a tensor in f32, so that each segment's few
 * launches are a small part of its work (experiments/long-memory's README says why sqrt(T)
 * steps are too few for them). */
#define LOGT_SEGMENT_MIN_PARALLEL ((int64_t)1 << 22)

typedef struct logt_model_ops {
    const char *name;
    const char *summary;
    unsigned devices;              /* LOGT_BIT(LOGT_CPU) | LOGT_BIT(LOGT_CUDA)           */
    unsigned dtypes[LOGT_CUDA + 1];/* per device: LOGT_BIT(dtype) of its activations     */
    int heads;                     /* 1: head_dim may be any divisor of D; 0: one head   */
    const char *const *cells;      /* NULL-terminated, the first the default; NULL: the  */
                                   /* model has no choice of cell (cell must be empty)   */
    int nstate;                    /* 1: h only; 2: h and c (LSTM)                       */
    int segments;                  /* 1: runs a sequence in pieces (hT, cT, dhT, dcT,    */
                                   /* dw_add above), so the net can recompute            */
    int64_t segment_min;           /* segments: the fewest elements (steps x B x D) a    */
                                   /* segment of recompute = auto holds, where a segment */
                                   /* has launches of a fixed cost whatever its length   */
                                   /* (kernels parallel over T); 0: no floor             */
    const char *const *knobs;      /* NULL-terminated names of the knobs it accepts      */
    logt_status (*layout)(const logt_model_cfg *cfg, logt_layout *out);
    logt_status (*create)(const logt_model_cfg *cfg, logt_model **out);
    logt_status (*forward)(logt_model *m, const logt_tensor *x, logt_tensor *h, logt_ctx *ctx);
    logt_status (*backward)(logt_model *m, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx);
    /* segments, optional: ready m for the backward of a segment whose input x and output h
     * the net already holds, without running its forward again. For a model whose output is
     * its whole state (deer's gru and tanh cells), h is every state the backward reads, and
     * this replaces a second solve by a copy. *done = 0: it cannot for this layer (its state
     * is wider than h), and the net runs the forward; NULL: the net always does. */
    logt_status (*restore)(logt_model *m, const logt_tensor *x, const logt_tensor *h, logt_ctx *ctx, int *done);
    void (*destroy)(logt_model *m);
} logt_model_ops;

struct logt_model {
    const logt_model_ops *ops;
    logt_model_cfg cfg;
    logt_layout layout;
    logt_tensor w, dw;     /* this layer's parameters and gradients (views)          */
    uint64_t wversion;     /* moved on by every write of w (logt_net_params_written)  */
    logt_tensor h0, c0;    /* initial state [B][D]; data NULL means zeros (views)    */
    logt_tensor dh0, dc0;  /* gradients of the initial state, when h0/c0 are given   */
    logt_tensor hT, cT;    /* segments: the final state, written when data non-NULL */
    logt_tensor dhT, dcT;  /* segments: dL/d(final state) in; data NULL: zeros       */
    int dw_add;            /* segments: backward adds to dw instead of overwriting it */
    int nslots;            /* segments: the state slots this layer hands on, 1 (h0) or  */
                           /* 2 (h0, c0); set at create where the cell decides (a gru  */
                           /* has no c); 0: as ops->nstate                             */
    char impl[160];        /* what ran (algorithm, math), recorded with every run    */
    char detail[512];      /* more of it, when there is more to say (flashrnn: the    */
                           /* tiling), recorded as the run's attribute `detail`      */
    const double *trace;   /* a series of the last call to record with a speed run   */
    int ntrace;            /* (deer: the residual of every Newton evaluation), as the */
    char trace_name[32];   /* run's dataset trace_name, ntrace - 1 as its iterations; */
                           /* ntrace 0: none                                          */
    int retry;             /* 1: a training step that fails numerically (a loss or gradient */
                           /* not finite, a solver that does not converge) is retried from */
                           /* the last checkpoint with the solvers relaxed (ctx->relax);  */
                           /* set at create (deer: on_fail = retry)                       */
    int clamping;          /* 1: the model clamps its solver's entries (deer's            */
    int64_t clamped;       /* jacobian_clamp), clamped of them in the last forward        */
    logt_model *origin;    /* an instance of a layer (net.c: a wavefront's kept segment,  */
                           /* same parameters, same stream): that layer, whose copies  */
                           /* derived from the parameters it may share; NULL otherwise */
};

/* Check cfg against what ops declares (backend, dtype, sizes, heads, cell, knobs): one
 * message for each thing that is wrong, naming what would be right. */
logt_status logt_model_check(const logt_model_ops *ops, const logt_model_cfg *cfg);
/* The knob gpus = N of the models whose sequences split in time (deer, gilr, gilr-lstm, sru
 * with v = zero): N from 1 to SCAN_MULTI_MAX (kernels/scan_multi.h), 1 when unset. Above 1 on
 * the cpu (the float64 pieces reference), and on cuda where the model has its GPUs' path
 * (`cuda` 1: deer), else refused by name. */
logt_status logt_model_gpus(const logt_model_cfg *cfg, int cuda, int *out);
/* logt_model_check, then the model's own layout: the one way to ask for a layout. */
logt_status logt_model_layout(const logt_model_ops *ops, const logt_model_cfg *cfg, logt_layout *out);
/* The index of cfg->cell in ops->cells (0, the default, when cell is empty); -1 if absent. */
int logt_model_cell(const logt_model_ops *ops, const logt_model_cfg *cfg);

/* A view of slice `name` of the model's parameters (or gradients). */
logt_tensor logt_model_param(const logt_model *m, const logt_tensor *flat, const char *name);

/* ---- registry.c ------------------------------------------------------------ */
const logt_model_ops *logt_model_find(const char *name);
int logt_model_count(void);
const logt_model_ops *logt_model_at(int i);
/* "lstm, lstm-cudnn, ..." into buf. */
void logt_model_names(char *buf, size_t n);

/* ---- net.c: layers = N, stacked once for every model ------------------------ */
typedef struct logt_net {
    logt_model_cfg cfg;
    const logt_model_ops *ops;
    int L;
    logt_model *layer[LOGT_MAX_LAYERS];
    logt_layout layout[LOGT_MAX_LAYERS];
    int64_t layer_offset[LOGT_MAX_LAYERS];
    logt_tensor w, dw;                 /* every layer's parameters: one flat buffer each   */
    logt_tensor act[LOGT_MAX_LAYERS];  /* each layer's output [T][B][D]                   */
    logt_tensor dact[2];               /* gradients flowing between layers (ping-pong)    */
    logt_tensor h0, c0, dh0, dc0;      /* [L][B][D] when an initial state is set          */
    int64_t T, B;
    int recompute;                     /* recompute = K: 0 off, -1 auto, else K           */
    int wavefront;                     /* layers_wavefront = on                            */
    int64_t K;                         /* the last forward's segment length (0: none)     */
    logt_tensor x;                     /* the last forward's input (a view)               */
    /* segments (recompute, wavefront), each layer its own: the state at every segment's
     * start [S][B][D]; a segment's recomputed output [K][B][D]; dL/d(state) handed between
     * segments, two slots of two buffers [B][D]; the gradient it passes down [T][B][D]
     * (wavefront), and the context (stream) it runs on (wavefront, layers >= 1) */
    logt_tensor bh[LOGT_MAX_LAYERS], bc[LOGT_MAX_LAYERS];
    logt_tensor seg_out[LOGT_MAX_LAYERS];
    logt_tensor carry[LOGT_MAX_LAYERS][4];
    logt_tensor dlayer[LOGT_MAX_LAYERS];
    logt_ctx *lane[LOGT_MAX_LAYERS];
    /* a wavefront without recomputation: segment s >= 1 of layer l runs on a layer of its own,
     * inst[l][s - 1] (the same parameters), which keeps that segment's activations for the
     * backward; made at the first forward that needs them. keep: the last forward's segments
     * were kept so. recomputed: the segments the last backward ran forward again; restored:
     * those it took from the forward's output instead (ops->restore). */
    logt_model *inst[LOGT_MAX_LAYERS][LOGT_MAX_SEGMENTS - 1];
    int keep;
    int64_t recomputed, restored;
} logt_net;

/* The knobs the net takes for every model, beside the model's own (checked by
 * logt_model_check), for models whose ops set `segments`:
 *   recompute = off | auto | K   keep the states of every K-th step only, and recompute each
 *                                segment's activations in the backward (gradient
 *                                checkpointing): memory O(T / K + K) a layer instead of O(T),
 *                                about one more forward in time (none where the model
 *                                restores a segment from its output: ops->restore).
 *                                auto: K near sqrt(T),
 *                                or segment_min / (B·D) steps where that is longer.
 *                                K >= T runs as off.
 *   layers_wavefront = off | on  with layers >= 2, run the layers as a wavefront of segments:
 *                                layer l's segment s once layer l - 1's segment s and its own
 *                                segment s - 1 are done, each layer on a stream of its own, so
 *                                that up to `layers` segments run at once. Segments of K steps
 *                                (recompute's K where it is shorter than T, else T / (4
 *                                layers)). With recompute, the backward recomputes each
 *                                segment as recompute does; without, each segment runs on a
 *                                layer instance of its own that keeps its activations (the
 *                                plain pass's memory, no second forward). */
extern const char *const logt_net_knobs[];
/* recompute's value: 0 off, -1 auto, K > 0; layers_wavefront's: 0 off, 1 on; an error naming
 * the forms when it is none of them. */
logt_status logt_net_recompute_of(const logt_model_cfg *cfg, int *out);
logt_status logt_net_wavefront_of(const logt_model_cfg *cfg, int *out);

logt_status logt_net_create(const logt_model_cfg *cfg, logt_net **out);
/* The segment length K of a pass of T steps and B rows (recompute, layers_wavefront); 0: the
 * layers run whole. */
int64_t logt_net_segment_length(const logt_net *net, int64_t T, int64_t B);
void logt_net_destroy(logt_net *net);
/* Forward through every layer; *h points at the last layer's output (owned by the net). */
logt_status logt_net_forward(logt_net *net, const logt_tensor *x, const logt_tensor **h,
                             logt_ctx *ctx);
/* Backward from dL/dh of the last layer; writes net->dw, and dx unless NULL. */
logt_status logt_net_backward(logt_net *net, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx);
/* Initial state [L][B][D] for h (and c), copied in; NULL clears it (zeros). After a
 * backward, net->dh0 / net->dc0 hold their gradients. */
logt_status logt_net_set_state(logt_net *net, const logt_tensor *h0, const logt_tensor *c0);
/* Name of parameter slice i of the whole net ("l0.W"), its offset and size. */
int logt_net_nslices(const logt_net *net);
logt_status logt_net_slice(const logt_net *net, int i, char *name, size_t n, int64_t *offset,
                           int64_t *numel);
/* Fill the parameters from cfg.seed: generated once in f64 on the host, then copied. */
logt_status logt_net_init_params(logt_net *net);
/* Say that net->w is written (call it before or after the write, before the next forward):
 * every layer's wversion moves on, so that a model that keeps its parameters in another form
 * rebuilds it at its next forward. Every writer of net->w calls it: logt_net_init_params, the
 * trainer's optimizer step, a checkpoint's restore, a test that sets parameters. */
void logt_net_params_written(logt_net *net);

#ifdef __cplusplus
}
#endif
#endif
