/* logt.h — logt's layers as a shared library (liblogt.so): the C ABI that bindings call.
 *
 * Pure C, no other logt header needed. A layer is one of logt's models (lstm, sru, flashrnn,
 * deer, ...) stacked `layers` deep, behind a handle. The caller owns every buffer: the flat
 * parameters w, the input x, the output y and all gradients. Tensors are time-major and
 * packed (row-major, contiguous):
 *
 *   x [T][B][I]    y, dy [T][B][D]    h0, c0, dh0, dc0 [layers][B][D]    w, dw [nparams]
 *
 * On LOGT_ABI_CPU every pointer is host memory and every array is float64. On LOGT_ABI_CUDA
 * every pointer is device memory of the device that was current when the layer was made; x,
 * y, h0, c0 and their gradients have the layer's dtype, w and dw are float32, and the work
 * is ordered after what is queued on `stream` (a cudaStream_t; NULL: the default stream) and
 * before what the caller queues there next, as if it ran on it. Nothing waits for the GPU.
 *
 * Every function returns a status (LOGT_ABI_OK, 0, or an error code). The message of the
 * last failure is per thread (logt_abi_errmsg) and, for calls on a layer, also kept with the
 * layer (logt_layer_errmsg). A handle is a number checked against a table with generation
 * counters: a destroyed or made-up handle gives LOGT_ABI_EHANDLE, never a crash. One layer
 * serialises its own calls; different layers run independently, in any threads.
 */
#ifndef LOGT_ABI_H
#define LOGT_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOGT_ABI_VERSION 2

/* status codes (the first seven are logt's own) */
#define LOGT_ABI_OK           0
#define LOGT_ABI_EINVAL       1   /* bad argument or configuration          */
#define LOGT_ABI_ENOMEM       2   /* host or device allocation failed       */
#define LOGT_ABI_ECUDA        3   /* CUDA runtime, cuBLAS or cuDNN error    */
#define LOGT_ABI_EIO          4
#define LOGT_ABI_EUNSUPPORTED 5   /* valid, but this build or model can't   */
#define LOGT_ABI_ENUMERIC     6   /* NaN/Inf or non-convergence             */
#define LOGT_ABI_EHANDLE      16  /* not a live layer (destroyed, or never made) */

/* devices and dtypes */
#define LOGT_ABI_CPU  0
#define LOGT_ABI_CUDA 1
#define LOGT_ABI_F64  0
#define LOGT_ABI_F32  1
#define LOGT_ABI_BF16 2
#define LOGT_ABI_F16  3

/* what logt_layer_get reports */
#define LOGT_LAYER_INPUT_SIZE  0   /* I                                        */
#define LOGT_LAYER_HIDDEN_SIZE 1   /* D                                        */
#define LOGT_LAYER_LAYERS      2
#define LOGT_LAYER_NSTATE      3   /* 1: h0 only; 2: h0 and c0                 */
#define LOGT_LAYER_DEVICE      4
#define LOGT_LAYER_DTYPE       5   /* of x, y, h0, c0 and their gradients      */
#define LOGT_LAYER_PARAM_DTYPE 6   /* of w, dw: f64 on cpu, f32 on cuda         */
#define LOGT_LAYER_NPARAMS     7   /* elements of w                            */
#define LOGT_LAYER_NSLICES     8   /* named slices of w ("l0.W", ...)          */
#define LOGT_LAYER_HEAD_DIM    9
#define LOGT_LAYER_CUDA_DEVICE 10  /* the device ordinal (cuda), else -1       */

typedef uint64_t logt_layer;       /* 0 is never a layer */

int logt_abi_version(void);              /* LOGT_ABI_VERSION of the library */
const char *logt_abi_build(void);        /* "logt abi 2, backends cpu cuda" */
const char *logt_abi_status_name(int status);
/* This thread's last failure message ("" when none); valid until its next call. */
const char *logt_abi_errmsg(void);
/* "lstm, lstm-cudnn, ..." into buf; the length needed, without the NUL. */
size_t logt_abi_models(char *buf, size_t n);
/* 1 when the backend is built and usable here (cuda: a GPU is visible). */
int logt_abi_backend_available(int device);

/* Make a layer. model: "lstm", "sru", ...; cell: "" or NULL for the model's default; head_dim
 * 0 means one head; dtype -1 means f64 on cpu, f32 on cuda. Knobs are key/value strings
 * (nknobs of them; keys and vals may be NULL when nknobs is 0). The parameters are
 * initialised from the seed as logt does everywhere (logt_layer_params reads them). */
int logt_layer_create(const char *model, int input_size, int hidden_size, int layers,
                      const char *cell, int head_dim, int device, int dtype, uint64_t seed,
                      int nknobs, const char *const *keys, const char *const *vals,
                      logt_layer *out);
/* Release a layer. A handle already destroyed gives LOGT_ABI_EHANDLE. */
int logt_layer_destroy(logt_layer h);

int logt_layer_get(logt_layer h, int what, int64_t *value);
/* Slice i of the parameters: its name ("l0.W"), offset and numel in w, its shape (ndim 1..3,
 * the rest of shape set to 1). */
int logt_layer_slice(logt_layer h, int i, char *name, size_t name_size, int64_t *offset,
                     int64_t *numel, int *ndim, int64_t shape[3]);
/* Copy the layer's own parameters (its initialisation, or what the last forward was given)
 * into w [nparams]. */
int logt_layer_params(logt_layer h, void *w, void *stream);
/* y = the layer over x from (h0, c0) with parameters w. w NULL: the layer's own; h0, c0
 * NULL: zeros. Keeps what the next backward needs, x itself among it: x must stay alive and
 * unchanged until that backward (w, h0 and c0 are copied). */
int logt_layer_forward(logt_layer h, const void *w, int64_t T, int64_t B, const void *x,
                       const void *h0, const void *c0, void *y, void *stream);
/* Given dy = dL/dy of the last forward: dw (overwritten), dx, dh0 and dc0 (each skipped when
 * NULL; dh0/dc0 only when the forward was given h0/c0). */
int logt_layer_backward(logt_layer h, int64_t T, int64_t B, const void *dy, void *dx, void *dw,
                        void *dh0, void *dc0, void *stream);
/* The layer's last failure message into buf ("" when none); its length, without the NUL. */
size_t logt_layer_errmsg(logt_layer h, char *buf, size_t n);

/* The linear scan over C channels: h_t = a_t * h_{t-1} + b_t (reverse: from t = T-1 down,
 * h_{T} = h0), a, b, h [T][C], h0 [C] or NULL (zeros). cpu: f64; cuda: f32, bf16 or f16. */
int logt_scan(int device, int dtype, int reverse, int64_t T, int64_t C, const void *a,
              const void *b, const void *h0, void *h, void *stream);
/* The backward of a forward scan: from its a, h0 (NULL: zeros), h and dh, write db, and da
 * and dh0 unless NULL. */
int logt_scan_backward(int device, int dtype, int64_t T, int64_t C, const void *a,
                       const void *h0, const void *h, const void *dh, void *da, void *db,
                       void *dh0, void *stream);

/* ---- what `logt run` feeds a layer, for a caller that compares with it ----------------- */

/* out[i] = lo + (hi - lo) u_i for i < n, u_i in [0, 1) a hash of (seed, stream, i). A speed run
 * fills x from stream 0x78 and dy from stream 0x6468 over [-1, 1], each value rounded to
 * float32 and then to the run's dtype. */
int logt_abi_uniform(uint64_t seed, uint64_t stream, int64_t n, double lo, double hi, double *out);
/* A training task ([train] task = NAME) of length T from the run's seed: its sizes (loss 0:
 * mean squared error over the out_steps last steps, 1: cross-entropy), and batch `index` of a
 * split (0 train, 1 validation, 2 test): x [T][B][I] and target [out_steps][B][O] (mse) or
 * class ids [out_steps][B] (xent), float64. Training step k takes train batch k. */
int logt_task_info(const char *task, int T, uint64_t seed, int *input_size, int *output_size,
                   int *out_steps, int *loss);
int logt_task_batch(const char *task, int T, uint64_t seed, int split, uint64_t index, int B,
                    double *x, double *target);
/* The initial parameters of a training run's readout y = V h + c (D -> O) for the run's seed:
 * w = V [O][D] then c [O], float64. */
int logt_readout_init_params(int D, int O, uint64_t seed, double *w);

#ifdef __cplusplus
}
#endif
#endif
