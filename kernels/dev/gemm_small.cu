/* kernels/dev/gemm_small.cu — workbench for strict-fp32 GEMMs too small to fill the GPU: the
 * three products of an SRU layer at B = 32, T = 32, D = I = 512 (N = T·B = 1024 rows), one
 * point of experiments/sru-speed.
 *
 *   make dev && build/bin/gemm-small-dev [N D I]
 *
 * For each product (row-major, as models/sru/sru_cuda.cu and sru_cuda_backward.cu call kernels/gemm.h):
 *   fwd  G_k [N][D] = X [N][I] · W_k [D][I]^T, k = 0..2      (strided batch of 3)
 *   dW   dW [3D][I] = dG [N][3D]^T · X [N][I]                (sum over N rows)
 *   dx   dx [N][I]  = dG [N][3D] · W [3D][I] (+ dx)           (sum over 3D)
 * it times cublasSgemm(StridedBatched) (cuBLAS's own choice: the library's route) and
 * every algorithm cublasLt's heuristic offers for the same product (tile, split-K, stages),
 * each checked against the cublasSgemm result, then timed: median of 50 calls after 5.
 * Bound: 2·N·D·I·3 flops per product; the H200's fp32 FFMA peak is ~67 TFLOP/s, so
 * 1.6 GFLOP takes >= 24 µs, and a product whose tiles cover a third of the SMs >= 72 µs.
 *
 *   build/bin/gemm-small-dev N D I tf32
 *
 * times, on TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32), the shapes math = 3xtf32 makes
 * of dW and dx: the three products of split planes as one strided batch of 3 (what
 * logt_gemm_f32_3planes runs, before its sum of the three), and dW as one product over the
 * row-stacked planes (inner dimension 3N). The operands are random (a time, not a 3xtf32
 * result); each algorithm is checked against cuBLAS's own.
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) check_cuda((x), #x, __LINE__)
#define CB(x) check_blas((int)(x), #x, __LINE__)
static void check_cuda(cudaError_t e, const char *what, int line)
{
    if (e == cudaSuccess) return;
    fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorString(e));
    exit(1);
}
static void check_blas(int s, const char *what, int line)
{
    if (s == 0) return;
    fprintf(stderr, "line %d: %s: cuBLAS status %d\n", line, what, s);
    exit(1);
}

/* One row-major product C[M][N] = op(A)·op(B) (+ beta C), batch with strides; mapped to
 * column-major as C^T = op(B)^T · op(A)^T, the convention of kernels/gemm.cu. */
typedef struct prob {
    const char *name;
    int transA, transB;
    int M, N, K, batch;
    long long sA, sB, sC;
    const float *A, *B;
    float *C;
    float beta;
} prob;

static cublasOperation_t op(int t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

static int use_tf32;   /* argv[4] == "tf32": TF32 tensor cores, both libraries */

static void run_sgemm(cublasHandle_t h, const prob *p)
{
    const float one = 1.0f;
    int lda = p->transA ? p->M : p->K, ldb = p->transB ? p->K : p->N;
    if (p->batch == 1)
        CB(cublasSgemm(h, op(p->transB), op(p->transA), p->N, p->M, p->K, &one, p->B, ldb, p->A, lda,
                       &p->beta, p->C, p->N));
    else
        CB(cublasSgemmStridedBatched(h, op(p->transB), op(p->transA), p->N, p->M, p->K, &one, p->B, ldb,
                                     p->sB, p->A, lda, p->sA, &p->beta, p->C, p->N, p->sC, p->batch));
}

typedef struct lt_setup {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t a, b, c;
} lt_setup;

static cublasLtMatrixLayout_t layout(int rows, int cols, int ld, int batch, long long stride)
{
    cublasLtMatrixLayout_t l;
    CB(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, rows, cols, ld));
    if (batch > 1) {
        CB(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
        CB(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
    }
    return l;
}

/* Column-major problem: m = N, n = M, k = K; "A" is the row-major B, "B" the row-major A. */
static lt_setup lt_make(const prob *p)
{
    lt_setup s;
    CB(cublasLtMatmulDescCreate(&s.desc, use_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                                CUDA_R_32F));
    cublasOperation_t ta = op(p->transB), tb = op(p->transA);
    CB(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CB(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    int m = p->N, n = p->M, k = p->K;
    int lda = p->transB ? p->K : p->N, ldb = p->transA ? p->M : p->K;
    s.a = ta == CUBLAS_OP_N ? layout(m, k, lda, p->batch, p->sB) : layout(k, m, lda, p->batch, p->sB);
    s.b = tb == CUBLAS_OP_N ? layout(k, n, ldb, p->batch, p->sA) : layout(n, k, ldb, p->batch, p->sA);
    s.c = layout(m, n, m, p->batch, p->sC);
    return s;
}

static void run_lt(cublasLtHandle_t lt, const prob *p, const lt_setup *s, const cublasLtMatmulAlgo_t *algo,
                   void *ws, size_t ws_bytes)
{
    const float one = 1.0f;
    CB(cublasLtMatmul(lt, s->desc, &one, p->B, s->a, p->A, s->b, &p->beta, p->C, s->c, p->C, s->c, algo, ws,
                      ws_bytes, 0));
}

static float median(float *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            float t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return v[n / 2];
}

#define REPS 50
/* which < 0: cublasSgemm; else Lt algorithm `which`. C is restored before each call so that
 * beta = 1 products see the same input. */
static float time_us(cublasHandle_t h, cublasLtHandle_t lt, const prob *p, const lt_setup *s,
                     const cublasLtMatmulAlgo_t *algo, void *ws, size_t ws_bytes, const float *C0, size_t cbytes)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float t[REPS];
    for (int r = -5; r < REPS; r++) {
        CK(cudaMemcpyAsync(p->C, C0, cbytes, cudaMemcpyDeviceToDevice, 0));
        CK(cudaEventRecord(e0, 0));
        if (algo) run_lt(lt, p, s, algo, ws, ws_bytes);
        else run_sgemm(h, p);
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        if (r >= 0) CK(cudaEventElapsedTime(&t[r], e0, e1));
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return 1000.0f * median(t, REPS);
}

static float *dev_random(size_t n, unsigned seed)
{
    float *h = (float *)malloc(n * sizeof(float)), *d;
    for (size_t i = 0; i < n; i++) h[i] = (float)((seed = seed * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f;
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    free(h);
    return d;
}

static double max_rel_diff(const float *x, const float *y, size_t n)
{
    float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float));
    CK(cudaMemcpy(a, x, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b, y, n * sizeof(float), cudaMemcpyDeviceToHost));
    double scale = 0, d = 0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    free(a), free(b);
    return d / (scale > 0 ? scale : 1);
}

int main(int argc, char **argv)
{
    int N = 1024, D = 512, I = 512;
    if (argc >= 4) N = atoi(argv[1]), D = atoi(argv[2]), I = atoi(argv[3]);
    use_tf32 = argc >= 5 && !strcmp(argv[4], "tf32");
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs; N = %d, D = %d, I = %d (%s)\n", prop.name, prop.multiProcessorCount, N, D, I,
           use_tf32 ? "TF32 tensor cores, CUBLAS_COMPUTE_32F_FAST_TF32" : "fp32, CUBLAS_COMPUTE_32F");
    cublasHandle_t h;
    cublasLtHandle_t lt;
    CB(cublasCreate(&h));
    CB(cublasLtCreate(&lt));
    if (use_tf32) CB(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    size_t ws_bytes = 32u << 20;
    void *ws;
    CK(cudaMalloc(&ws, ws_bytes));
    CB(cublasSetWorkspace(h, ws, ws_bytes));

    /* three planes of each operand (the 3xtf32 shapes use all three; the others the first) */
    float *X = dev_random((size_t)3 * N * I, 1), *W = dev_random((size_t)3 * 3 * D * I, 2);
    float *dG = dev_random((size_t)3 * N * 3 * D, 3), *G = dev_random((size_t)3 * N * D, 4);
    float *dW = dev_random((size_t)3 * 3 * D * I, 5), *dx = dev_random((size_t)3 * N * I, 6);
    const long long sx = (long long)N * I, sw = 3LL * D * I, sg = 3LL * N * D;
    prob ps[6] = {
        {"fwd", 0, 1, N, D, I, 3, 0, (long long)D * I, (long long)N * D, X, W, G, 0.0f},
        {"dW", 1, 0, 3 * D, I, N, 1, 0, 0, 0, dG, X, dW, 0.0f},
        {"dx", 0, 0, N, I, 3 * D, 1, 0, 0, 0, dG, W, dx, 1.0f},
        {"dW, 3 planes batched", 1, 0, 3 * D, I, N, 3, sg, sx, sw, dG, X, dW, 0.0f},
        {"dW, planes stacked (K = 3N)", 1, 0, 3 * D, I, 3 * N, 1, 0, 0, 0, dG, X, dW, 0.0f},
        {"dx, 3 planes batched", 0, 0, N, I, 3 * D, 3, sg, sw, sx, dG, W, dx, 0.0f},
    };
    const int nprob = use_tf32 ? 6 : 3;
    float base_sum = 0, best_sum = 0;
    for (int q = 0; q < nprob; q++) {
        prob *p = &ps[q];
        size_t cn = (size_t)p->M * p->N * p->batch, cbytes = cn * sizeof(float);
        float *C0, *ref;
        CK(cudaMalloc(&C0, cbytes));
        CK(cudaMalloc(&ref, cbytes));
        CK(cudaMemcpy(C0, p->C, cbytes, cudaMemcpyDeviceToDevice));
        run_sgemm(h, p);
        CK(cudaMemcpy(ref, p->C, cbytes, cudaMemcpyDeviceToDevice));
        double gflop = 2.0 * p->M * p->N * p->K * p->batch / 1e9;
        float tb = time_us(h, lt, p, NULL, NULL, ws, ws_bytes, C0, cbytes);
        printf("\n%s: C %d x %d x batch %d, K = %d, %.2f GFLOP\n  cublasSgemm        %8.1f us  %6.1f TFLOP/s\n",
               p->name, p->M, p->N, p->batch, p->K, gflop, tb, gflop / tb * 1e-3 * 1e3);
        lt_setup s = lt_make(p);
        cublasLtMatmulPreference_t pref;
        CB(cublasLtMatmulPreferenceCreate(&pref));
        CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                                sizeof ws_bytes));
        cublasLtMatmulHeuristicResult_t res[32];
        int nres = 0;
        CB(cublasLtMatmulAlgoGetHeuristic(lt, s.desc, s.a, s.b, s.c, s.c, pref, 32, res, &nres));
        float best = tb;
        for (int r = 0; r < nres; r++) {
            int tile = -1, splitk = -1, stages = -1, red = -1;
            size_t got;
            cublasLtMatmulAlgoConfigGetAttribute(&res[r].algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &got);
            cublasLtMatmulAlgoConfigGetAttribute(&res[r].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &got);
            cublasLtMatmulAlgoConfigGetAttribute(&res[r].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &got);
            cublasLtMatmulAlgoConfigGetAttribute(&res[r].algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof red, &got);
            CK(cudaMemcpy(p->C, C0, cbytes, cudaMemcpyDeviceToDevice));
            run_lt(lt, p, &s, &res[r].algo, ws, ws_bytes);
            CK(cudaDeviceSynchronize());
            double diff = max_rel_diff(p->C, ref, cn);
            float t = time_us(h, lt, p, &s, &res[r].algo, ws, ws_bytes, C0, cbytes);
            printf("  lt %2d tile %3d splitk %2d red %d stages %3d  %8.1f us  %6.1f TFLOP/s  diff %.1e%s\n", r,
                   tile, splitk, red, stages, t, gflop / t * 1e3, diff, diff > 1e-5 ? "  WRONG" : "");
            if (diff <= 1e-5 && t < best) best = t;
        }
        printf("  best %.1f us (cublasSgemm %.1f)\n", best, tb);
        if (q < 3) base_sum += tb, best_sum += best;
        cublasLtMatmulPreferenceDestroy(pref);
        CK(cudaFree(C0));
        CK(cudaFree(ref));
    }
    printf("\nthe three products: cublasSgemm %.1f us, best of each %.1f us\n", base_sum, best_sum);
    return 0;
}
