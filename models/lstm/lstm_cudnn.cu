/* lstm_cudnn.cu — lstm-cudnn on cuDNN's v8 RNN API.
 *
 * One unidirectional, single-layer LSTM (cudnnSetRNNDescriptor_v8): LINEAR_INPUT,
 * projSize = D (no projection), DOUBLE_BIAS (cuDNN's default and best-supported
 * mode: logt's b is the input bias, the recurrent bias is held at zero), padded
 * I/O enabled (needed by the SEQ_MAJOR_UNPACKED layout, which is logt's x[T][B][I]
 * and h[T][B][D] as they are), and a dropout descriptor set to 0 with no RNG
 * states (PyTorch's set_no_dropout).
 *
 * Data type, math precision, math type (maths_for):
 *   f32,  math=fp32      FLOAT, FLOAT, FMA_MATH   (DEFAULT_MATH would permit TF32 on sm_80+)
 *   f32,  math=tf32      FLOAT, FLOAT, TENSOR_OP_MATH or DEFAULT_MATH (PyTorch's choice), the
 *                        faster of the two: both permit TF32 tensor ops
 *   f32,  math=allow_conversion
 *                        FLOAT, FLOAT, TENSOR_OP_MATH_ALLOW_CONVERSION: f32 data rounded to f16
 *                        for the tensor cores
 *   f32,  math=fastest   FLOAT, FLOAT, every one of the four above
 *   bf16, f16            BFLOAT16 or HALF, FLOAT, TENSOR_OP_MATH or DEFAULT_MATH (math=fastest:
 *                        FMA_MATH too). cuDNN's RNNs take bf16 from 9.13; its fastest LSTM on
 *                        Hopper is HALF on PERSIST_STATIC. Math precision FLOAT, as in PyTorch.
 * The candidates are every algorithm that `algo` names (auto: all three) with every math type
 * of the row; where there are several, choose times them at the first forward of each shape.
 *
 * Forward mode: TRAINING, which fills the reserve space a backward needs, unless the caller
 * says that no backward follows (ctx->inference, core/ctx.h): then INFERENCE, with no reserve
 * space. A backward after an inference forward runs the training forward first.
 * Parameters: logt's W, R, b are copied into cuDNN's weight space (pack, copy_params) when they
 * changed since the last copy (m->base.wversion, models/model.h) or the weight space was set
 * up anew, not at every forward; backward maps the gradients back.
 * m->base.impl records what ran.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cudnn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "lstm_cudnn.h"

#define BLOCK 256
#define MAX_CAND 12   /* 3 algorithms x 4 math types */

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
    int ncand, c;                      /* how many; the index of the one set up (-1: none of them) */
    rnn_cand cur;                      /* the one set up */
    int best_fwd, best_train;          /* the fastest forward, training step (choose) */
    int trained;                       /* a backward ran: forwards use best_train    */
    int nsupported;                    /* how many cuDNN accepted for this shape */
    int T, B;                          /* shape of xd, yd, sd and the temp spaces; 0: unset */
    int fwd_mode;                      /* the last forward of that shape with cur: -1 none, */
                                       /* 0 inference, 1 training (the reserve is backward's) */
    void *w, *dw;                      /* weight space and its gradient, wbytes each */
    size_t wbytes;
    int packed;                        /* w holds the parameters at w_src of version w_version */
    const void *w_src;
    uint64_t w_version;
    int64_t moff[8], boff[4];          /* element offsets of W_i..W_o, R_i..R_o, b_i..b_o */
    void *work, *reserve;
    size_t work_need[2], reserve_need; /* for this shape: work per mode [inference, training] */
    size_t work_cap, reserve_cap;      /* allocated (grow) */
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
__device__ __forceinline__ float load(const __half *p, int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void store(__half *p, int64_t i, float v) { p[i] = __float2half_rn(v); }

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
 * 4-7 (R, [D][D]) and their biases. pack copies logt's parameters in when they changed (bf16
 * and f16 round here). Backward zeroes the gradient space, runs
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
    else if (s->dt == CUDNN_DATA_HALF && to_space) copy_pieces_kernel<float, __half><<<grid, BLOCK, 0, st>>>(p);
    else if (s->dt == CUDNN_DATA_HALF) copy_pieces_kernel<__half, float><<<grid, BLOCK, 0, st>>>(p);
    else if (to_space) copy_pieces_kernel<float, __nv_bfloat16><<<grid, BLOCK, 0, st>>>(p);
    else copy_pieces_kernel<__nv_bfloat16, float><<<grid, BLOCK, 0, st>>>(p);
    LAUNCH_TRY();
    return LOGT_OK;
}

/* logt's parameters into the weight space, unless it holds them already: copied since the
 * weight space was last set up (set_rnn clears it), from the same buffer, at the same
 * version (every writer of the parameters moves m->base.wversion on, models/model.h). */
static logt_status pack(lstm_cudnn_model *m, rnn_state *s, cudaStream_t st)
{
    if (s->packed && s->w_src == m->base.w.data && s->w_version == m->base.wversion) return LOGT_OK;
    LOGT_TRY(copy_params(m, s, &m->base.w, s->w, 1, st));
    s->packed = 1, s->w_src = m->base.w.data, s->w_version = m->base.wversion;
    return LOGT_OK;
}

/* ---- descriptors -------------------------------------------------------------- */

/* The math types that `math` runs on data of type f32 (f32 = 1) or bf16 / f16, in the order
 * they are tried; *out has room for 4. */
static int maths_for(lstm_cudnn_math math, int f32, cudnnMathType_t *out)
{
    const int all = math == LSTM_CUDNN_FASTEST;
    int n = 0;
    if (!f32 || math == LSTM_CUDNN_TF32 || all)
        out[n++] = CUDNN_TENSOR_OP_MATH, out[n++] = CUDNN_DEFAULT_MATH;
    if (f32 && (math == LSTM_CUDNN_ALLOW_CONVERSION || all))
        out[n++] = CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    if ((f32 && math == LSTM_CUDNN_FP32) || all) out[n++] = CUDNN_FMA_MATH;
    return n;
}

/* The knob value `math` that runs math type t on f32 (f32 = 1) or bf16 / f16 data. */
static const char *math_knob(cudnnMathType_t t, int f32)
{
    if (t == CUDNN_FMA_MATH) return f32 ? "fp32" : "fastest";
    if (t == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return "allow_conversion";
    return f32 ? "tf32" : "fp32";
}

static const cudnnRNNAlgo_t all_algos[3] = {CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H,
                                            CUDNN_RNN_ALGO_PERSIST_STATIC, CUDNN_RNN_ALGO_STANDARD};

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
    switch (m->base.cfg.dtype) {
    case LOGT_BF16: s->dt = CUDNN_DATA_BFLOAT16, s->esize = 2; break;
    case LOGT_F16: s->dt = CUDNN_DATA_HALF, s->esize = 2; break;
    default: s->dt = CUDNN_DATA_FLOAT, s->esize = 4; break;
    }
    s->c = -1;
    s->fwd_mode = -1;
    cudnnRNNAlgo_t algos[3];
    int na = 0;
    switch (m->algo) {
    case LSTM_CUDNN_AUTO:
        for (int a = 0; a < 3; a++) algos[na++] = all_algos[a];
        break;
    case LSTM_CUDNN_STANDARD: algos[na++] = CUDNN_RNN_ALGO_STANDARD; break;
    case LSTM_CUDNN_PERSIST_STATIC: algos[na++] = CUDNN_RNN_ALGO_PERSIST_STATIC; break;
    case LSTM_CUDNN_PERSIST_STATIC_SMALL_H: algos[na++] = CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H; break;
    }
    cudnnMathType_t maths[4];
    const int nm = maths_for(m->math, s->dt == CUDNN_DATA_FLOAT, maths);
    for (int a = 0; a < na; a++)
        for (int k = 0; k < nm; k++) s->cand[s->ncand++] = (rnn_cand){algos[a], maths[k]};
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
    s->packed = 0;
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
    size_t none = 0;   /* an inference forward has no reserve space */
    CUDNN_TRY(cudnnGetRNNTempSpaceSizes(s->h, s->rnn, CUDNN_FWD_MODE_INFERENCE, s->xd,
                                        &s->work_need[0], &none));
    CUDNN_TRY(cudnnGetRNNTempSpaceSizes(s->h, s->rnn, CUDNN_FWD_MODE_TRAINING, s->xd,
                                        &s->work_need[1], &s->reserve_need));
    return LOGT_OK;
}

/* The temp spaces of a forward in mode `train` (1: training, also backward's; 0: inference,
 * no reserve space), allocated when first needed. */
static logt_status spaces(rnn_state *s, int train)
{
    LOGT_TRY(grow(&s->work, &s->work_cap, s->work_need[train], "the cuDNN RNN workspace"));
    if (train) LOGT_TRY(grow(&s->reserve, &s->reserve_cap, s->reserve_need, "the cuDNN RNN reserve space"));
    return LOGT_OK;
}

/* Set up `cand` (s->cand[c], or with c = -1 one outside the list) for T steps of B sequences. */
static logt_status setup_cand(lstm_cudnn_model *m, rnn_state *s, const rnn_cand *cand, int c, int T,
                              int B, cudaStream_t st)
{
    s->T = s->B = 0;
    s->fwd_mode = -1;
    s->cur = *cand;
    s->c = c;
    LOGT_TRY(set_rnn(m, s, cand, st));
    LOGT_TRY(set_shape(m, s, T, B, st));
    s->T = T;
    s->B = B;
    return LOGT_OK;
}

static logt_status setup(lstm_cudnn_model *m, rnn_state *s, int c, int T, int B, cudaStream_t st)
{
    return setup_cand(m, s, &s->cand[c], c, T, B, st);
}

/* A scratch dx of T·B·I: cuDNN writes dx whether or not the caller wants it. */
static logt_status ensure_dx(lstm_cudnn_model *m, rnn_state *s, int64_t n)
{
    if (s->dx.data && s->dx.numel >= n) return LOGT_OK;
    logt_tensor_free(&s->dx);
    return logt_tensor_new1(&s->dx, LOGT_CUDA, m->base.cfg.dtype, n);
}

/* cuDNN's forward of x into y with the candidate set up, the parameters packed first when they
 * changed: in training mode (train = 1) filling the reserve space for a backward, else in
 * inference mode without one. */
static logt_status forward_once(lstm_cudnn_model *m, rnn_state *s, const void *x, void *y,
                                int train, cudaStream_t st)
{
    LOGT_TRY(spaces(s, train));
    LOGT_TRY(pack(m, s, st));
    s->fwd_mode = -1;
    cudnnStatus_t e = cudnnRNNForward(
        s->h, s->rnn, train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, s->seq_d, s->xd,
        x, s->yd, y, s->sd, m->base.h0.data, NULL, s->sd, m->base.c0.data, NULL, s->wbytes, s->w,
        s->work_need[train], s->work, train ? s->reserve_need : 0, train ? s->reserve : NULL);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnRNNForward", &s->cur);
    s->fwd_mode = train;
    return LOGT_OK;
}

/* One forward and backward (data and weights) with the candidate set up; dy is y. The
 * event `mid`, unless NULL, is recorded between them. */
static logt_status fwd_bwd(lstm_cudnn_model *m, rnn_state *s, const void *x, void *y,
                           cudaStream_t st, cudaEvent_t mid = NULL)
{
    const void *h0 = m->base.h0.data, *c0 = m->base.c0.data;
    const rnn_cand *c = &s->cur;
    LOGT_TRY(forward_once(m, s, x, y, 1, st));
    if (mid) CUDA_TRY(cudaEventRecord(mid, st));
    cudnnStatus_t e = cudnnRNNBackwardData_v8(s->h, s->rnn, s->seq_d, s->yd, y, y, s->xd, s->dx.data,
                                              s->sd, h0, NULL, NULL, s->sd, c0, NULL, NULL, s->wbytes,
                                              s->w, s->work_need[1], s->work, s->reserve_need,
                                              s->reserve);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnRNNBackwardData_v8", c);
    CUDA_TRY(cudaMemsetAsync(s->dw, 0, s->wbytes, st));
    e = cudnnRNNBackwardWeights_v8(s->h, s->rnn, CUDNN_WGRAD_MODE_ADD, s->seq_d, s->xd, x, s->sd,
                                   h0, s->yd, y, s->wbytes, s->dw, s->work_need[1], s->work,
                                   s->reserve_need, s->reserve);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnRNNBackwardWeights_v8", c);
    return LOGT_OK;
}

/* Milliseconds of one forward in mode `train` (fwd_ms) and of one training step (forward +
 * backward, train_ms) with candidate c, after a warm-up of each; fails when cuDNN refuses the
 * candidate anywhere on the way. */
static logt_status trial(lstm_cudnn_model *m, rnn_state *s, int c, const void *x, void *y,
                         int train, cudaStream_t st, float *fwd_ms, float *train_ms)
{
    LOGT_TRY(setup(m, s, c, (int)m->x.shape[0], (int)m->x.shape[1], st));
    LOGT_TRY(fwd_bwd(m, s, x, y, st));
    if (!train) LOGT_TRY(forward_once(m, s, x, y, 0, st));
    cudaEvent_t ev[3] = {NULL, NULL, NULL};
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 3 && e == cudaSuccess; i++) e = cudaEventCreate(&ev[i]);
    logt_status r = LOGT_OK;
    if (e == cudaSuccess) e = cudaEventRecord(ev[0], st);
    if (e == cudaSuccess && !train && (r = forward_once(m, s, x, y, 0, st)) == LOGT_OK)
        e = cudaEventRecord(ev[1], st);
    /* training: the forward of the step is the one timed, ev[1] recorded between its halves */
    if (e == cudaSuccess && r == LOGT_OK && (r = fwd_bwd(m, s, x, y, st, train ? ev[1] : NULL)) == LOGT_OK &&
        (e = cudaEventRecord(ev[2], st)) == cudaSuccess && (e = cudaEventSynchronize(ev[2])) == cudaSuccess &&
        (e = cudaEventElapsedTime(fwd_ms, ev[0], ev[1])) == cudaSuccess)
        e = cudaEventElapsedTime(train_ms, ev[train ? 0 : 1], ev[2]);
    for (int i = 0; i < 3; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    CUDA_TRY(e);
    return r;
}

/* Pick the candidates for this shape: the only one, or among those cuDNN accepts (auto, the
 * math types) the fastest forward and the fastest training step. Ends set up with the one
 * forwards use now. With several candidates each is timed at the first forward of each (T, B):
 * one forward in the mode of that forward (train) and one training step, after a warm-up of
 * both (cuDNN's order of preference alone misleads). Forwards run the fastest forward until
 * the first backward, which switches to the fastest training step for good (running that
 * forward again first, for its reserve space: its h is recomputed, within the candidates'
 * difference), so that an inference and a training benchmark each get cuDNN's best where the
 * two differ. The persistent algorithms are less exact than STANDARD, not wrong
 * (experiments/lstm-vs-cudnn, Design notes). */
static logt_status choose(lstm_cudnn_model *m, rnn_state *s, const void *x, void *y, int train,
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
        r = trial(m, s, c, x, y, train, st, &fwd_ms, &train_ms);
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

/* The failure r of the setting asked for (its message the current one), made to name what
 * cuDNN accepts for this shape and dtype instead: every algorithm with every math type of the
 * dtype is set up and run forward and backward once. Leaves no shape set up. */
static logt_status refused(lstm_cudnn_model *m, rnn_state *s, const void *x, void *y,
                           logt_status r, cudaStream_t st)
{
    char reason[768];
    snprintf(reason, sizeof reason, "%s", logt_errmsg());
    char *hint = strstr(reason, ". HINT:");   /* this message gives its own */
    if (hint) *hint = '\0';
    const int T = (int)m->x.shape[0], B = (int)m->x.shape[1], f32 = s->dt == CUDNN_DATA_FLOAT;
    cudnnMathType_t maths[4];
    const int nm = maths_for(LSTM_CUDNN_FASTEST, f32, maths);
    char ok[320] = "";
    size_t used = 0;
    logt_status p = ensure_dx(m, s, m->x.numel);
    for (int a = 2; a >= 0 && p == LOGT_OK; a--) {   /* STANDARD first */
        char knobs[96] = "";
        for (int k = 0; k < nm; k++) {
            const rnn_cand c = {all_algos[a], maths[k]};
            logt_status q = setup_cand(m, s, &c, -1, T, B, st);
            if (q == LOGT_OK) q = fwd_bwd(m, s, x, y, st);
            if (q == LOGT_ENOMEM) {
                p = q;
                break;
            }
            const char *kn = math_knob(maths[k], f32);
            if (q == LOGT_OK && !strstr(knobs, kn))
                snprintf(knobs + strlen(knobs), sizeof knobs - strlen(knobs), "%s%s", *knobs ? ", " : "", kn);
        }
        if (*knobs && used < sizeof ok) {
            char algo[32];
            snprintf(algo, sizeof algo, "%s", algo_name(all_algos[a]));
            for (char *ch = algo; *ch; ch++) *ch = (char)(*ch >= 'A' && *ch <= 'Z' ? *ch + 32 : *ch);
            used += (size_t)snprintf(ok + used, sizeof ok - used, "%salgo = %s with math = %s",
                                     used ? "; " : "", algo, knobs);
        }
    }
    s->T = s->B = 0;
    s->c = -1;
    logt_errclear();
    if (p != LOGT_OK) return LOGT_FAIL(p, "out of GPU memory while finding what cuDNN accepts");
    return logt_fail_at(r, __FILE__, __LINE__,
                        "lstm-cudnn: cuDNN refuses algo = %s, math = %s for %s at T = %d, B = %d, "
                        "I = %d, D = %d (%s); for this shape and dtype it accepts %s. HINT: set one "
                        "of those, or algo = auto and math = fastest for the fastest it accepts",
                        lstm_cudnn_algo_name(m->algo), lstm_cudnn_math_name(m->math),
                        logt_dtype_name(m->base.cfg.dtype), T, B, m->base.cfg.input_size,
                        m->base.cfg.hidden_size, reason, *ok ? ok : "no algorithm with any math type");
}

static void record_impl(lstm_cudnn_model *m, rnn_state *s)
{
    size_t v = cudnnGetVersion();
    const rnn_cand *c = &s->cur;
    const char *math = s->dt == CUDNN_DATA_BFLOAT16                  ? "bf16 with fp32 accumulation"
                       : s->dt == CUDNN_DATA_HALF                    ? "f16 with fp32 accumulation"
                       : c->math == CUDNN_FMA_MATH                   ? "fp32"
                       : c->math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION ? "allow_conversion"
                                                                     : "tf32";
    char how[64] = "";
    if (s->ncand > 1)
        snprintf(how, sizeof how, " (%sfastest %s of %d supported)",
                 m->algo == LSTM_CUDNN_AUTO ? "auto: " : "", s->trained ? "training step" : "forward",
                 s->nsupported);
    snprintf(m->base.impl, sizeof m->base.impl, "cudnn %d.%d.%d %s%s %s math=%s (%s), %s mode",
             (int)(v / 10000), (int)(v % 10000 / 100), (int)(v % 100), algo_name(c->algo), how,
             logt_dtype_name(m->base.cfg.dtype), math, math_name(c->math),
             s->fwd_mode == 0 ? "inference" : "training");
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
                         "is cuDNN %d.%d.%d: set dtype = f32 or f16, or update cuDNN",
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
    const int train = !ctx->inference;   /* training mode unless no backward follows */
    logt_status r = LOGT_OK;
    if (s->T != T || s->B != B) r = choose(m, s, x->data, h->data, train, st);
    if (r == LOGT_OK) r = forward_once(m, s, x->data, h->data, train, st);
    if (r != LOGT_OK) return r == LOGT_ENOMEM ? r : refused(m, s, x->data, h->data, r, st);
    record_impl(m, s);
    return LOGT_OK;
}

extern "C" logt_status lstm_cudnn_backward_cuda(lstm_cudnn_model *m, const logt_tensor *dh,
                                                logt_tensor *dx, logt_ctx *ctx)
{
    rnn_state *s = (rnn_state *)m->cudnn;
    const int64_t T = m->x.shape[0], B = m->x.shape[1], I = m->base.cfg.input_size;
    if (!s || s->fwd_mode < 0 || s->T != T || s->B != B)
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
    if (!s->trained) {   /* from now on the fastest training step */
        s->trained = 1;
        if (s->c != s->best_train) LOGT_TRY(setup(m, s, s->best_train, (int)T, (int)B, st));
    }
    /* the reserve space of a training forward of this candidate: that forward again, its h
     * recomputed, when the last forward ran another candidate or in inference mode */
    if (s->fwd_mode != 1) LOGT_TRY(forward_once(m, s, x, m->h.data, 1, st));
    record_impl(m, s);
    const rnn_cand *c = &s->cur;
    cudnnStatus_t e = cudnnRNNBackwardData_v8(
        s->h, s->rnn, s->seq_d, s->yd, y, dh->data, s->xd, dxp, s->sd, h0, NULL, m->base.dh0.data,
        s->sd, c0, NULL, m->base.dc0.data, s->wbytes, s->w, s->work_need[1], s->work,
        s->reserve_need, s->reserve);
    if (e != CUDNN_STATUS_SUCCESS) return CUDNN_FAIL(e, "cudnnRNNBackwardData_v8", c);
    CUDA_TRY(cudaMemsetAsync(s->dw, 0, s->wbytes, st));   /* BackwardWeights adds into it */
    e = cudnnRNNBackwardWeights_v8(s->h, s->rnn, CUDNN_WGRAD_MODE_ADD, s->seq_d, s->xd, x, s->sd,
                                   h0, s->yd, y, s->wbytes, s->dw, s->work_need[1], s->work,
                                   s->reserve_need, s->reserve);
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
