/* lstm_cudnn.cu — lstm-cudnn on cuDNN's v8 RNN API.
 *
 * One unidirectional, single-layer LSTM (cudnnSetRNNDescriptor_v8): LINEAR_INPUT,
 * projSize = D (no projection), DOUBLE_BIAS (cuDNN's default and best-supported
 * mode: logt's b is the input bias, the recurrent bias is held at zero), padded
 * I/O enabled (needed by the SEQ_MAJOR_UNPACKED layout, which is logt's x[T][B][I]
 * and h[T][B][D] as they are), and a dropout descriptor set to 0 with no RNG
 * states (PyTorch's set_no_dropout).
 *
 * Data type, math precision, math type:
 *   f32,  math=fp32   FLOAT,    FLOAT, FMA_MATH       (DEFAULT_MATH would permit TF32 on sm_80+)
 *   f32,  math=tf32   FLOAT,    FLOAT, TENSOR_OP_MATH or DEFAULT_MATH (PyTorch's choice), the
 *                     faster of the two: both permit TF32 tensor ops
 *   bf16              BFLOAT16, FLOAT, TENSOR_OP_MATH, else DEFAULT_MATH if cuDNN refuses it
 *                     (cuDNN's RNNs take bf16 from 9.13; math precision FLOAT as in PyTorch)
 *
 * Every forward copies logt's W, R, b into cuDNN's weight space (copy_params); backward maps
 * the gradients back. algo=auto and the math types are chosen by timing (choose).
 * m->base.impl records what ran.
 */
#include <cuda_bf16.h>
#include <cudnn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "lstm_cudnn.h"

#define BLOCK 256
#define MAX_CAND 9

typedef struct rnn_cand { cudnnRNNAlgo_t algo; cudnnMathType_t math; } rnn_cand;

typedef struct rnn_state {
    cudnnHandle_t h;
    cudnnRNNDescriptor_t rnn;
    cudnnDropoutDescriptor_t drop;
    cudnnRNNDataDescriptor_t xd, yd;   /* x [T][B][I], y [T][B][D] */
    cudnnTensorDescriptor_t sd;        /* h0, c0 and their gradients: [1][B][D] */
    cudnnTensorDescriptor_t md, bd;    /* written by cudnnGetRNNWeightParams */
    cudnnDataType_t dt;
    size_t esize;
    rnn_cand cand[MAX_CAND];           /* what may run, tried in this order */
    int ncand, c;                      /* how many; the one in use */
    int best_fwd, best_train;          /* the fastest forward, training step (choose) */
    int trained;                       /* a backward ran: forwards use best_train    */
    int nsupported;                    /* how many cuDNN accepted for this shape */
    int T, B;                          /* shape of xd, yd, sd and the temp spaces; 0: unset */
    int fwd_ok;                        /* a forward of that shape ran with cand[c] */
    void *w, *dw;                      /* weight space and its gradient, wbytes each */
    size_t wbytes;
    int64_t moff[8], boff[4];          /* element offsets of W_i..W_o, R_i..R_o, b_i..b_o */
    void *work, *reserve;
    size_t work_bytes, reserve_bytes, work_cap, reserve_cap;
    int *seq_d, *seq_h;                /* B copies of T, device and host */
    int seq_cap;
    logt_tensor dx;                    /* dx when the caller wants none: cuDNN writes it anyway */
} rnn_state;

/* ---- kernels ------------------------------------------------------------------ */

/* Up to 12 blocks copied at once, converting: logt's W, R, b <-> cuDNN's space. */
typedef struct pieces {
    const void *src[12];
    void *dst[12];
    int64_t n[12];
} pieces;

__device__ __forceinline__ float load(const float *p, int64_t i) { return p[i]; }
__device__ __forceinline__ float load(const __nv_bfloat16 *p, int64_t i) { return __bfloat162float(p[i]); }
__device__ __forceinline__ void store(float *p, int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__nv_bfloat16 *p, int64_t i, float v) { p[i] = __float2bfloat16(v); }

template <typename S, typename D> __global__ void copy_pieces_kernel(pieces p)
{
    const S *src = (const S *)p.src[blockIdx.y];
    D *dst = (D *)p.dst[blockIdx.y];
    int64_t n = p.n[blockIdx.y];
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        store(dst, i, load(src, i));
}

__global__ void fill_int_kernel(int *p, int n, int v)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v;
}

/* ---- helpers ------------------------------------------------------------------ */

static const char *algo_name(cudnnRNNAlgo_t a)
{
    switch (a) {
    case CUDNN_RNN_ALGO_STANDARD: return "STANDARD";
    case CUDNN_RNN_ALGO_PERSIST_STATIC: return "PERSIST_STATIC";
    case CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H: return "PERSIST_STATIC_SMALL_H";
    default: return "?";
    }
}

static const char *math_name(cudnnMathType_t t)
{
    switch (t) {
    case CUDNN_DEFAULT_MATH: return "DEFAULT_MATH";
    case CUDNN_TENSOR_OP_MATH: return "TENSOR_OP_MATH";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "TENSOR_OP_MATH_ALLOW_CONVERSION";
    case CUDNN_FMA_MATH: return "FMA_MATH";
    default: return "?";
    }
}

static int grid_for(int64_t n, int cap)
{
    int64_t b = (n + BLOCK - 1) / BLOCK;
    return (int)(b < cap ? (b > 0 ? b : 1) : cap);
}

/* Device memory that only grows: *p holds at least `need` bytes after. */
static logt_status grow(void **p, size_t *cap, size_t need, const char *what)
{
    if (need <= *cap) return LOGT_OK;
    logt_cuda_free(*p, *cap);
    *p = NULL;
    *cap = 0;
    LOGT_TRY(logt_cuda_malloc(p, need, what));
    *cap = need;
    return LOGT_OK;
}

static logt_status cudnn_fail(cudnnStatus_t e, const char *call, const char *file, int line,
                              const rnn_cand *c)
{
    return logt_fail_at(e == CUDNN_STATUS_NOT_SUPPORTED ? LOGT_EUNSUPPORTED
                        : e == CUDNN_STATUS_ALLOC_FAILED ? LOGT_ENOMEM
                                                         : LOGT_ECUDA,
                        file, line, "%s failed with algo %s, %s: %s. HINT: %s", call,
                        algo_name(c->algo), math_name(c->math), cudnnGetErrorString(e),
                        e == CUDNN_STATUS_NOT_SUPPORTED
                            ? "this cuDNN algorithm does not support the shape or math; try "
                              "algo = auto or standard"
                            : "rerun with CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG=stderr for cuDNN's reason");
}
#define CUDNN_FAIL(e, call, cand) cudnn_fail((e), (call), __FILE__, __LINE__, (cand))

/* The non-1 dimensions of a packed row-major tensor, or -1 if it is not packed. */
static int packed_dims(int nb, const int *dims, const int *strides, int *out)
{
    int n = 0;
    long long inner = 1;
    for (int i = nb - 1; i >= 0; i--) {
        if (dims[i] != 1 && strides[i] != inner) return -1;
        inner *= dims[i];
    }
    for (int i = 0; i < nb; i++)
        if (dims[i] != 1) out[n++] = dims[i];
    return n;
}

/* Is tensor descriptor t a packed row-major [rows][cols] (dimensions of 1 aside)? */
static logt_status expect_block(cudnnTensorDescriptor_t t, int rows, int cols, int id,
                                const char *what)
{
    cudnnDataType_t dt;
    int nb = 0, dims[8], strides[8], got[8], want[2], nw = 0;
    CUDNN_TRY(cudnnGetTensorNdDescriptor(t, 8, &dt, &nb, dims, strides));
    if (rows != 1) want[nw++] = rows;
    if (cols != 1) want[nw++] = cols;
    int ng = packed_dims(nb, dims, strides, got);
    int ok = ng == nw;
    for (int i = 0; ok && i < nw; i++) ok = got[i] == want[i];
    if (!ok)
        return LOGT_FAIL(LOGT_ECUDA,
                         "cuDNN's %s of linLayerID %d is not a packed row-major [%d][%d] block "
                         "(%d dims: %d %d %d, strides %d %d %d): the weight mapping in "
                         "lstm_cudnn.cu does not match this cuDNN",
                         what, id, rows, cols, nb, dims[0], nb > 1 ? dims[1] : 0,
                         nb > 2 ? dims[2] : 0, strides[0], nb > 1 ? strides[1] : 0,
                         nb > 2 ? strides[2] : 0);
    return LOGT_OK;
}

/* Copy logt's W, R, b into cuDNN's space (to_space) or its gradients back. cudnnGetRNNWeightParams
 * located, in cuDNN's weight space, linLayerID 0-3 (W of gates i f g o, row-major [D][I]) and
 * 4-7 (R, [D][D]) and their biases. Every forward copies logt's parameters in (the optimizer
 * updates logt's buffer; bf16 rounds here). Backward zeroes the gradient space, runs
 * BackwardData then BackwardWeights (WGRAD_MODE_ADD, the only mode), and maps dW, dR and db
 * back: db is the input bias's gradient alone, since cuDNN's recurrent bias is a constant
 * zero, not a parameter (its gradient is the same sum). */
static logt_status copy_params(lstm_cudnn_model *m, rnn_state *s, const logt_tensor *flat,
                               void *space, int to_space, cudaStream_t st)
{
    const int64_t D = m->base.cfg.hidden_size, I = m->base.cfg.input_size;
    float *W = (float *)logt_model_param(&m->base, flat, "W").data;
    float *R = (float *)logt_model_param(&m->base, flat, "R").data;
    float *b = (float *)logt_model_param(&m->base, flat, "b").data;
    char *sp = (char *)space;
    void *host[12], *dev[12];
    pieces p;
    int64_t nmax = 0;
    for (int g = 0; g < 4; g++) {
        host[g] = W + g * D * I, dev[g] = sp + s->moff[g] * s->esize, p.n[g] = D * I;
        host[4 + g] = R + g * D * D, dev[4 + g] = sp + s->moff[4 + g] * s->esize, p.n[4 + g] = D * D;
        host[8 + g] = b + g * D, dev[8 + g] = sp + s->boff[g] * s->esize, p.n[8 + g] = D;
    }
    for (int k = 0; k < 12; k++) {
        p.src[k] = to_space ? host[k] : dev[k];
        p.dst[k] = to_space ? dev[k] : host[k];
        if (p.n[k] > nmax) nmax = p.n[k];
    }
    dim3 grid(grid_for(nmax, 4096), 12);
    if (s->dt == CUDNN_DATA_FLOAT) copy_pieces_kernel<float, float><<<grid, BLOCK, 0, st>>>(p);
    else if (to_space) copy_pieces_kernel<float, __nv_bfloat16><<<grid, BLOCK, 0, st>>>(p);
    else copy_pieces_kernel<__nv_bfloat16, float><<<grid, BLOCK, 0, st>>>(p);
    LAUNCH_TRY();
    return LOGT_OK;
}

/* ---- descriptors -------------------------------------------------------------- */

static logt_status init_state(lstm_cudnn_model *m, rnn_state *s)
{
    CUDNN_TRY(cudnnCreateRNNDescriptor(&s->rnn));
    CUDNN_TRY(cudnnCreateDropoutDescriptor(&s->drop));
    CUDNN_TRY(cudnnSetDropoutDescriptor(s->drop, s->h, 0.0f, NULL, 0, 0));
    CUDNN_TRY(cudnnCreateRNNDataDescriptor(&s->xd));
    CUDNN_TRY(cudnnCreateRNNDataDescriptor(&s->yd));
    CUDNN_TRY(cudnnCreateTensorDescriptor(&s->sd));
    CUDNN_TRY(cudnnCreateTensorDescriptor(&s->md));
    CUDNN_TRY(cudnnCreateTensorDescriptor(&s->bd));
    int bf16 = m->base.cfg.dtype == LOGT_BF16;
    s->dt = bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
    s->esize = bf16 ? 2 : 4;
    cudnnRNNAlgo_t algos[3];
    int na = 0;
    switch (m->algo) {
    case LSTM_CUDNN_AUTO:
        algos[na++] = CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H;
        algos[na++] = CUDNN_RNN_ALGO_PERSIST_STATIC;
        algos[na++] = CUDNN_RNN_ALGO_STANDARD;
        break;
    case LSTM_CUDNN_STANDARD: algos[na++] = CUDNN_RNN_ALGO_STANDARD; break;
    case LSTM_CUDNN_PERSIST_STATIC: algos[na++] = CUDNN_RNN_ALGO_PERSIST_STATIC; break;
    case LSTM_CUDNN_PERSIST_STATIC_SMALL_H: algos[na++] = CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H; break;
    }
    for (int a = 0; a < na; a++) {
        if (bf16 || m->math != LSTM_CUDNN_FP32) {   /* both permit tensor cores; the faster is kept */
            s->cand[s->ncand++] = (rnn_cand){algos[a], CUDNN_TENSOR_OP_MATH};
            s->cand[s->ncand++] = (rnn_cand){algos[a], CUDNN_DEFAULT_MATH};
        }
        if (!bf16 && m->math != LSTM_CUDNN_TF32) s->cand[s->ncand++] = (rnn_cand){algos[a], CUDNN_FMA_MATH};
    }
    return LOGT_OK;
}

/* The RNN descriptor for candidate c, its weight spaces, and where W, R, b go in them. */
static logt_status set_rnn(lstm_cudnn_model *m, rnn_state *s, const rnn_cand *c, cudaStream_t st)
{
    const int D = m->base.cfg.hidden_size, I = m->base.cfg.input_size;
    cudnnStatus_t e = cudnnSetRNNDescriptor_v8(
        s->rnn, c->algo, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
        CUDNN_LINEAR_INPUT, s->dt, CUDNN_DATA_FLOAT, c->math, I, D, D, 1, s->drop,
        CUDNN_RNN_PADDED_IO_ENABLED);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnSetRNNDescriptor_v8", c);
    size_t wb = 0;
    CUDNN_TRY(cudnnGetRNNWeightSpaceSize(s->h, s->rnn, &wb));
    if (wb != s->wbytes) {
        logt_cuda_free(s->w, s->wbytes);
        logt_cuda_free(s->dw, s->wbytes);
        s->w = s->dw = NULL;
        s->wbytes = 0;
        LOGT_TRY(logt_cuda_malloc(&s->w, wb, "the cuDNN weight space"));
        logt_status r = logt_cuda_malloc(&s->dw, wb, "the cuDNN weight gradient space");
        if (r != LOGT_OK) {
            logt_cuda_free(s->w, wb);
            s->w = NULL;
            return r;
        }
        s->wbytes = wb;
    }
    CUDA_TRY(cudaMemsetAsync(s->w, 0, wb, st));   /* the recurrent biases stay 0 */
    for (int id = 0; id < 8; id++) {
        void *ma = NULL, *ba = NULL;
        CUDNN_TRY(cudnnGetRNNWeightParams(s->h, s->rnn, 0, wb, s->w, id, s->md, &ma, s->bd, &ba));
        if (!ma || (id < 4 && !ba))
            return LOGT_FAIL(LOGT_ECUDA, "cuDNN gave no %s for linLayerID %d of an LSTM",
                             ma ? "bias" : "matrix", id);
        LOGT_TRY(expect_block(s->md, D, id < 4 ? I : D, id, "matrix"));
        s->moff[id] = ((char *)ma - (char *)s->w) / (int64_t)s->esize;
        if (id < 4) {
            LOGT_TRY(expect_block(s->bd, D, 1, id, "bias"));
            s->boff[id] = ((char *)ba - (char *)s->w) / (int64_t)s->esize;
        }
    }
    return LOGT_OK;
}

/* Data descriptors and temp spaces for T steps of B sequences. */
static logt_status set_shape(lstm_cudnn_model *m, rnn_state *s, int T, int B, cudaStream_t st)
{
    const int D = m->base.cfg.hidden_size, I = m->base.cfg.input_size;
    if (B > s->seq_cap) {
        logt_cuda_free(s->seq_d, (size_t)s->seq_cap * sizeof(int));
        free(s->seq_h);
        s->seq_d = s->seq_h = NULL;
        s->seq_cap = 0;
        s->seq_h = (int *)malloc((size_t)B * sizeof(int));
        if (!s->seq_h) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        LOGT_TRY(logt_cuda_malloc((void **)&s->seq_d, (size_t)B * sizeof(int), "sequence lengths"));
        s->seq_cap = B;
    }
    for (int b = 0; b < B; b++) s->seq_h[b] = T;
    fill_int_kernel<<<grid_for(B, 1024), BLOCK, 0, st>>>(s->seq_d, B, T);
    LAUNCH_TRY();
    cudnnStatus_t ds = cudnnSetRNNDataDescriptor(s->xd, s->dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                                                 T, B, I, s->seq_h, NULL);
    if (ds == CUDNN_STATUS_NOT_SUPPORTED)   /* a T beyond this cuDNN's limit is refused here */
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "cuDNN refused a sequence of T = %d steps (batch %d, input "
                         "%d): cudnnSetRNNDataDescriptor returned NOT_SUPPORTED, whatever the "
                         "algorithm. HINT: use a shorter T for lstm-cudnn (the limit is "
                         "cuDNN's, and differs between its versions)", T, B, I);
    CUDNN_TRY(ds);
    CUDNN_TRY(cudnnSetRNNDataDescriptor(s->yd, s->dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T,
                                        B, D, s->seq_h, NULL));
    int dims[3] = {1, B, D}, strides[3] = {B * D, D, 1};
    CUDNN_TRY(cudnnSetTensorNdDescriptor(s->sd, s->dt, 3, dims, strides));
    CUDNN_TRY(cudnnGetRNNTempSpaceSizes(s->h, s->rnn, CUDNN_FWD_MODE_TRAINING, s->xd,
                                        &s->work_bytes, &s->reserve_bytes));
    LOGT_TRY(grow(&s->work, &s->work_cap, s->work_bytes, "the cuDNN RNN workspace"));
    LOGT_TRY(grow(&s->reserve, &s->reserve_cap, s->reserve_bytes, "the cuDNN RNN reserve space"));
    return LOGT_OK;
}

/* Set up candidate c for T steps of B sequences. */
static logt_status setup(lstm_cudnn_model *m, rnn_state *s, int c, int T, int B, cudaStream_t st)
{
    s->T = s->B = 0;
    s->fwd_ok = 0;
    LOGT_TRY(set_rnn(m, s, &s->cand[c], st));
    LOGT_TRY(set_shape(m, s, T, B, st));
    s->c = c;
    s->T = T;
    s->B = B;
    return LOGT_OK;
}

/* A scratch dx of T·B·I: cuDNN writes dx whether or not the caller wants it. */
static logt_status ensure_dx(lstm_cudnn_model *m, rnn_state *s, int64_t n)
{
    if (s->dx.data && s->dx.numel >= n) return LOGT_OK;
    logt_tensor_free(&s->dx);
    return logt_tensor_new1(&s->dx, LOGT_CUDA, m->base.cfg.dtype, n);
}

/* logt's parameters into the weight space, then cuDNN's forward of x into y (training mode:
 * the reserve space for a backward) with the candidate set up. */
static logt_status forward_once(lstm_cudnn_model *m, rnn_state *s, const void *x, void *y,
                                cudaStream_t st)
{
    LOGT_TRY(copy_params(m, s, &m->base.w, s->w, 1, st));
    cudnnStatus_t e = cudnnRNNForward(s->h, s->rnn, CUDNN_FWD_MODE_TRAINING, s->seq_d, s->xd, x,
                                      s->yd, y, s->sd, m->base.h0.data, NULL, s->sd, m->base.c0.data,
                                      NULL, s->wbytes, s->w, s->work_bytes, s->work,
                                      s->reserve_bytes, s->reserve);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnRNNForward", &s->cand[s->c]);
    return LOGT_OK;
}

/* One forward and backward (data and weights) with the candidate set up; dy is y. The
 * event `mid`, unless NULL, is recorded between them. */
static logt_status fwd_bwd(lstm_cudnn_model *m, rnn_state *s, const void *x, void *y,
                           cudaStream_t st, cudaEvent_t mid = NULL)
{
    const void *h0 = m->base.h0.data, *c0 = m->base.c0.data;
    const rnn_cand *c = &s->cand[s->c];
    LOGT_TRY(forward_once(m, s, x, y, st));
    if (mid) CUDA_TRY(cudaEventRecord(mid, st));
    cudnnStatus_t e = cudnnRNNBackwardData_v8(s->h, s->rnn, s->seq_d, s->yd, y, y, s->xd, s->dx.data,
                                              s->sd, h0, NULL, NULL, s->sd, c0, NULL, NULL, s->wbytes,
                                              s->w, s->work_bytes, s->work, s->reserve_bytes,
                                              s->reserve);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnRNNBackwardData_v8", c);
    CUDA_TRY(cudaMemsetAsync(s->dw, 0, s->wbytes, st));
    e = cudnnRNNBackwardWeights_v8(s->h, s->rnn, CUDNN_WGRAD_MODE_ADD, s->seq_d, s->xd, x, s->sd,
                                   h0, s->yd, y, s->wbytes, s->dw, s->work_bytes, s->work,
                                   s->reserve_bytes, s->reserve);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnRNNBackwardWeights_v8", c);
    return LOGT_OK;
}

/* Milliseconds of one forward (fwd_ms) and of one training step (forward + backward,
 * train_ms) with candidate c, after a warm-up step; fails when cuDNN refuses the
 * candidate anywhere on the way. */
static logt_status trial(lstm_cudnn_model *m, rnn_state *s, int c, const void *x, void *y,
                         cudaStream_t st, float *fwd_ms, float *train_ms)
{
    LOGT_TRY(setup(m, s, c, (int)m->x.shape[0], (int)m->x.shape[1], st));
    LOGT_TRY(fwd_bwd(m, s, x, y, st));
    cudaEvent_t ev[3] = {NULL, NULL, NULL};
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 3 && e == cudaSuccess; i++) e = cudaEventCreate(&ev[i]);
    logt_status r = LOGT_OK;
    if (e == cudaSuccess && (e = cudaEventRecord(ev[0], st)) == cudaSuccess &&
        (r = fwd_bwd(m, s, x, y, st, ev[1])) == LOGT_OK &&
        (e = cudaEventRecord(ev[2], st)) == cudaSuccess && (e = cudaEventSynchronize(ev[2])) == cudaSuccess &&
        (e = cudaEventElapsedTime(fwd_ms, ev[0], ev[1])) == cudaSuccess)
        e = cudaEventElapsedTime(train_ms, ev[0], ev[2]);
    for (int i = 0; i < 3; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    CUDA_TRY(e);
    return r;
}

/* Pick the candidates for this shape: the only one, or among those cuDNN accepts (auto,
 * the math types) the fastest forward and the fastest training step. Ends set up with the
 * one forwards use now. algo=auto times one forward and one training step (after a warm-up
 * step) of each of PERSIST_STATIC_SMALL_H, PERSIST_STATIC and STANDARD that cuDNN accepts, at
 * the first forward of each (T, B): cuDNN's order of preference alone misleads. Forwards run
 * the fastest forward until the first backward, which switches to the fastest training step
 * for good (running that forward again first, for its reserve space: its h is recomputed,
 * within the algorithms' difference), so that an inference and a training benchmark each get
 * cuDNN's best where the two differ. The two math types of bf16 and of tf32, and with math =
 * fastest in f32 those of fp32 and tf32, are chosen between the same way. The persistent
 * algorithms are less exact than STANDARD, not wrong (experiments/lstm-vs-cudnn, Design
 * notes). */
static logt_status choose(lstm_cudnn_model *m, rnn_state *s, const void *x, void *y,
                          cudaStream_t st)
{
    const int T = (int)m->x.shape[0], B = (int)m->x.shape[1];
    s->nsupported = 1;
    s->best_fwd = s->best_train = 0;
    if (s->ncand == 1) return setup(m, s, 0, T, B, st);
    LOGT_TRY(ensure_dx(m, s, m->x.numel));
    float best_fwd_ms = 0, best_train_ms = 0;
    logt_status r = LOGT_OK;
    s->nsupported = 0;
    for (int c = 0; c < s->ncand; c++) {
        float fwd_ms = 0, train_ms = 0;
        r = trial(m, s, c, x, y, st, &fwd_ms, &train_ms);
        if (r == LOGT_ENOMEM) return r;
        if (r != LOGT_OK) {
            if (c + 1 < s->ncand || s->nsupported) logt_errclear();   /* refused: the next one */
            continue;
        }
        if (!s->nsupported++ || fwd_ms < best_fwd_ms) s->best_fwd = c, best_fwd_ms = fwd_ms;
        if (s->nsupported == 1 || train_ms < best_train_ms) s->best_train = c, best_train_ms = train_ms;
    }
    if (!s->nsupported) return r;   /* every candidate refused: the last one's reason */
    const int best = s->trained ? s->best_train : s->best_fwd;
    /* Only the winner's temp spaces stay allocated. */
    logt_cuda_free(s->work, s->work_cap);
    logt_cuda_free(s->reserve, s->reserve_cap);
    s->work = s->reserve = NULL;
    s->work_cap = s->reserve_cap = 0;
    logt_tensor_free(&s->dx);
    return setup(m, s, best, T, B, st);
}

static void record_impl(lstm_cudnn_model *m, rnn_state *s)
{
    size_t v = cudnnGetVersion();
    const rnn_cand *c = &s->cand[s->c];
    const char *math = s->dt == CUDNN_DATA_BFLOAT16 ? "bf16 with fp32 accumulation"
                       : c->math == CUDNN_FMA_MATH  ? "fp32"
                                                    : "tf32";
    char how[64] = "";
    if (s->ncand > 1)
        snprintf(how, sizeof how, " (%sfastest %s of %d supported)",
                 m->algo == LSTM_CUDNN_AUTO ? "auto: " : "", s->trained ? "training step" : "forward",
                 s->nsupported);
    snprintf(m->base.impl, sizeof m->base.impl, "cudnn %d.%d.%d %s%s %s math=%s (%s)",
             (int)(v / 10000), (int)(v % 10000 / 100), (int)(v % 100), algo_name(c->algo), how,
             logt_dtype_name(m->base.cfg.dtype), math, math_name(c->math));
}

static logt_status check_act(const lstm_cudnn_model *m, const logt_tensor *t, const char *what)
{
    if (t->device != LOGT_CUDA || t->dtype != m->base.cfg.dtype)
        return LOGT_FAIL(LOGT_EINVAL, "lstm-cudnn takes %s as a cuda %s tensor, not %s %s", what,
                         logt_dtype_name(m->base.cfg.dtype), logt_device_name(t->device),
                         logt_dtype_name(t->dtype));
    return LOGT_OK;
}

/* ---- the model's entry points ------------------------------------------------- */

extern "C" logt_status lstm_cudnn_check_cuda(const logt_model_cfg *cfg)
{
    size_t v = cudnnGetVersion();
    if (cfg->dtype == LOGT_BF16 && v < 91300)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "%s in bf16 needs cuDNN >= 9.13 (its RNNs take bf16 from 9.13), and this "
                         "is cuDNN %d.%d.%d: set dtype = f32, or update cuDNN",
                         cfg->model, (int)(v / 10000), (int)(v % 10000 / 100), (int)(v % 100));
    return LOGT_OK;
}

extern "C" logt_status lstm_cudnn_forward_cuda(lstm_cudnn_model *m, const logt_tensor *x,
                                               logt_tensor *h, logt_ctx *ctx)
{
    const int64_t T = x->shape[0], B = x->shape[1], D = m->base.cfg.hidden_size;
    LOGT_TRY(check_act(m, x, "the input x"));
    LOGT_TRY(check_act(m, h, "the output h"));
    if (T > INT_MAX || B * D > INT_MAX)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "lstm-cudnn: T = %lld, B·D = %lld exceed cuDNN's 32-bit "
                                            "sizes. HINT: use a smaller T or B",
                         (long long)T, (long long)(B * D));
    void *handle;
    LOGT_TRY(logt_ctx_cudnn(ctx, &handle));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    rnn_state *s = (rnn_state *)m->cudnn;
    if (!s) {
        s = (rnn_state *)calloc(1, sizeof *s);
        if (!s) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        m->cudnn = s;
        s->h = (cudnnHandle_t)handle;
        logt_status r = init_state(m, s);
        if (r != LOGT_OK) {
            lstm_cudnn_free_cuda(m);
            return r;
        }
    }
    s->h = (cudnnHandle_t)handle;
    if (s->T != T || s->B != B) LOGT_TRY(choose(m, s, x->data, h->data, st));
    LOGT_TRY(forward_once(m, s, x->data, h->data, st));
    s->fwd_ok = 1;
    record_impl(m, s);
    return LOGT_OK;
}

extern "C" logt_status lstm_cudnn_backward_cuda(lstm_cudnn_model *m, const logt_tensor *dh,
                                                logt_tensor *dx, logt_ctx *ctx)
{
    rnn_state *s = (rnn_state *)m->cudnn;
    const int64_t T = m->x.shape[0], B = m->x.shape[1], I = m->base.cfg.input_size;
    if (!s || !s->fwd_ok || s->T != T || s->B != B)
        return LOGT_FAIL(LOGT_EINVAL, "lstm-cudnn backward needs a forward of the same shape "
                                      "first");
    LOGT_TRY(check_act(m, dh, "the gradient dh"));
    if (dx) LOGT_TRY(check_act(m, dx, "the gradient dx"));
    void *handle;
    LOGT_TRY(logt_ctx_cudnn(ctx, &handle));
    s->h = (cudnnHandle_t)handle;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    void *dxp = dx ? dx->data : NULL;
    if (!dxp) {
        LOGT_TRY(ensure_dx(m, s, T * B * I));
        dxp = s->dx.data;
    }
    const void *x = m->x.data, *y = m->h.data, *h0 = m->base.h0.data, *c0 = m->base.c0.data;
    if (!s->trained) {   /* from now on the fastest training step: its forward again, for its reserve */
        s->trained = 1;
        if (s->c != s->best_train) {
            LOGT_TRY(setup(m, s, s->best_train, (int)T, (int)B, st));
            LOGT_TRY(forward_once(m, s, x, m->h.data, st));
            s->fwd_ok = 1;
        }
        record_impl(m, s);
    }
    const rnn_cand *c = &s->cand[s->c];
    cudnnStatus_t e = cudnnRNNBackwardData_v8(
        s->h, s->rnn, s->seq_d, s->yd, y, dh->data, s->xd, dxp, s->sd, h0, NULL, m->base.dh0.data,
        s->sd, c0, NULL, m->base.dc0.data, s->wbytes, s->w, s->work_bytes, s->work,
        s->reserve_bytes, s->reserve);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnRNNBackwardData_v8", c);
    CUDA_TRY(cudaMemsetAsync(s->dw, 0, s->wbytes, st));   /* BackwardWeights adds into it */
    e = cudnnRNNBackwardWeights_v8(s->h, s->rnn, CUDNN_WGRAD_MODE_ADD, s->seq_d, s->xd, x, s->sd,
                                   h0, s->yd, y, s->wbytes, s->dw, s->work_bytes, s->work,
                                   s->reserve_bytes, s->reserve);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnRNNBackwardWeights_v8", c);
    return copy_params(m, s, &m->base.dw, s->dw, 0, st);
}

extern "C" void lstm_cudnn_free_cuda(lstm_cudnn_model *m)
{
    rnn_state *s = (rnn_state *)m->cudnn;
    if (!s) return;
    if (s->rnn) cudnnDestroyRNNDescriptor(s->rnn);
    if (s->drop) cudnnDestroyDropoutDescriptor(s->drop);
    if (s->xd) cudnnDestroyRNNDataDescriptor(s->xd);
    if (s->yd) cudnnDestroyRNNDataDescriptor(s->yd);
    if (s->sd) cudnnDestroyTensorDescriptor(s->sd);
    if (s->md) cudnnDestroyTensorDescriptor(s->md);
    if (s->bd) cudnnDestroyTensorDescriptor(s->bd);
    logt_cuda_free(s->w, s->wbytes);
    logt_cuda_free(s->dw, s->wbytes);
    logt_cuda_free(s->work, s->work_cap);
    logt_cuda_free(s->reserve, s->reserve_cap);
    logt_cuda_free(s->seq_d, (size_t)s->seq_cap * sizeof(int));
    free(s->seq_h);
    logt_tensor_free(&s->dx);
    free(s);
    m->cudnn = NULL;
}
