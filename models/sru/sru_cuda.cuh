/* sru_cuda.cuh — what the SRU's CUDA forward (sru_cuda.cu) and backward (sru_cuda_backward.cu)
 * share: the scratch kept between calls and the host helpers, defined in sru_cuda.cu.
 * Shapes: T steps, B batch, D hidden, I input, N = T·B rows, K = 3 planes (I == D) or 4
 * (I != D: W_p x too), C = B·D channels. Row-major, time-major.
 */
#ifndef LOGT_SRU_CUDA_CUH
#define LOGT_SRU_CUDA_CUH

#include <stdint.h>

#include "../../core/ctx.h"
#include "../../core/tensor.h"
#include "sru.h"

/* Steps whose loads are issued before the math of the first of them. */
#define UNROLL 8
#define BLOCK 256
/* math = 3xtf32 at T·B <= X3_STACK_ROWS rows: backward's dW, a sum over the rows, is ONE TF32
 * GEMM over the row-stacked planes of dG and of x (inner dimension 3·T·B, so that cuBLAS may
 * split it as it would a plain long product), which needs x's parts also stacked; above, the
 * three products run one after another (each already long enough to spread) and x's parts
 * are kept once. The batched alternative leaves cuBLAS too few blocks for dW at small T
 * (experiments/sru-speed, Design notes). */
#define X3_STACK_ROWS 4096

typedef struct sru_cuda_scratch {
    logt_tensor xf;     /* [N][I] f32 copy of a 16-bit x: the GEMMs' input                */
    logt_tensor dG;     /* [N][K·D] dL/d(z, pre f, pre r, W_p x)                           */
    logt_tensor dxf;    /* [N][I] f32 dx before its rounding to 16 bits                    */
    logt_tensor part;   /* [4][B][D] per-channel sums of dv_f, dv_r, db_f, db_r            */
    logt_tensor g, da;  /* [N][D] each: the scan route's dL/dc and dL/da                   */
    logt_tensor c0f;    /* [B][D] f32 c_{-1} for the scan route when h0 is 16-bit         */
    logt_tensor dc0f;   /* [B][D] f32 dL/dc_{-1} from the scan route, before 16 bits       */
    logt_tensor ones;   /* [N] ones: db = dG^T·1 on the scan route                         */
    logt_tensor res;    /* [1] route = newton: the residual, as a non-negative float's bits */
    logt_tensor x3;     /* math = 3xtf32: [N][3I] x's TF32 parts hi | lo | hi                 */
    logt_tensor xs3;    /* math = 3xtf32, N <= X3_STACK_ROWS: [3][N][I] x's parts lo; hi; hi  */
    logt_tensor w3;     /* math = 3xtf32: [K·D][3I] [W; Wp]'s parts lo | hi | hi             */
    logt_tensor g3;     /* math = 3xtf32: [3][N][K·D] dG's parts hi; lo; hi (N above
                         * X3_STACK_ROWS: [2][N][K·D], hi; lo)                                */
} sru_cuda_scratch;

/* Threads per block for a channel-parallel walk over C channels: 256, or 64 when 256 would
 * leave SMs without a block (B·D = 12288 at D = 768, B = 16: 192 blocks of 64, not 48 of 256). */
int sru_walk_threads(int64_t C);
/* dst [n] of dtype `to` = src [n] of `from`: f32 <-> bf16 or f16, on ctx's stream. */
logt_status sru_convert(logt_ctx *ctx, int64_t n, logt_dtype to, void *dst, logt_dtype from, const void *src);
/* m's scratch, allocated on first use. */
logt_status sru_scratch_of(sru_model *m, sru_cuda_scratch **out);
/* The parameter `name` in the flat array (weights or their gradients), fp32 on the device. */
float *sru_param(sru_model *m, const logt_tensor *flat, const char *name);
/* LOGT_OK when t is a cuda tensor of dt, else an error naming `what`. */
logt_status sru_check_act(const logt_tensor *t, logt_dtype dt, const char *what);
/* A row-major GEMM of kernels/gemm.h under the layer's math, strict fp32 or TF32 tensor cores
 * (the handle's mode set around the call and restored after, also after a failure); math =
 * 3xtf32 has its own functions, gemm3x_forward and gemm3x_backward, which keep the split
 * operands. */
logt_status sru_gemm(const sru_model *m, logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N,
                     int64_t K, const float *A, int64_t strideA, const float *B, int64_t strideB, float beta,
                     float *C, int64_t strideC, int64_t batch);

#endif
