/* ctx.h — the execution context every model call receives.
 *
 * On the CPU it is empty. On CUDA it owns the stream all of logt's work runs on,
 * the cuBLAS handle (strict fp32 math: no TF32 unless a model asks for it) and a
 * cuDNN handle made on first use. It also times regions: CUDA events on the
 * GPU, the monotonic clock on the CPU.
 */
#ifndef LOGT_CTX_H
#define LOGT_CTX_H

#include "status.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct logt_ctx {
    logt_device device;
    void *stream;       /* cudaStream_t  */
    void *cublas;       /* cublasHandle_t */
    void *cudnn;        /* cudnnHandle_t, NULL until logt_ctx_cudnn() */
    void *ev_start, *ev_stop;
    double t0;          /* CPU timer start, seconds */
    logt_tensor ws;     /* scratch device memory, grown on demand (logt_ctx_workspace) */
    struct logt_ctx *side;   /* a second stream and cuBLAS handle, NULL until logt_ctx_side() */
    void *ev_fork, *ev_join; /* cudaEvent_t, ordering ctx's stream and side's              */
} logt_ctx;

logt_status logt_ctx_create(logt_device dev, logt_ctx **out);
void logt_ctx_destroy(logt_ctx *ctx);
logt_status logt_ctx_sync(logt_ctx *ctx);
/* The cuDNN handle, created on the first call (cuDNN loads slowly). */
logt_status logt_ctx_cudnn(logt_ctx *ctx, void **handle);

/* Device scratch of at least `bytes` for work queued on ctx's stream, valid until the next
 * call: kernels that need scratch (the scan's carries) borrow it instead of allocating and
 * synchronising on every call. Growing waits for the stream, then reallocates. */
logt_status logt_ctx_workspace(logt_ctx *ctx, size_t bytes, void **out);

/* Independent work side by side: a product too small to fill the GPU can run beside another
 * one (an SRU's dW beside its dx). logt_ctx_side gives ctx's side context, made on first use:
 * its own stream, cuBLAS handle and workspace; *side = NULL on a cpu context (run everything
 * on ctx then). logt_ctx_fork makes side's stream wait for what ctx's has queued so far;
 * logt_ctx_join makes ctx's stream wait for what side's has queued, so that ctx's stream
 * again orders everything (its timers and syncs included). */
logt_status logt_ctx_side(logt_ctx *ctx, logt_ctx **side);
logt_status logt_ctx_fork(logt_ctx *ctx, logt_ctx *side);
logt_status logt_ctx_join(logt_ctx *ctx, logt_ctx *side);

/* OK when ctx is a cuda context; else an error saying that `who` runs on one. */
logt_status logt_ctx_require_cuda(const logt_ctx *ctx, const char *who);

#ifdef LOGT_HAVE_CUDA
/* p[i] = v for i < n, p an f32 device array, queued on ctx's stream. */
logt_status logt_cuda_fill_f32(logt_ctx *ctx, float *p, int64_t n, float v);
#endif

/* Time one region: begin, run, end. end waits for the device and returns ms. */
logt_status logt_timer_begin(logt_ctx *ctx);
logt_status logt_timer_end(logt_ctx *ctx, double *ms);

double logt_now(void);   /* monotonic seconds */

/* Is the backend usable here? (CUDA: built with it and a device present.) */
int logt_backend_available(logt_device dev);

#ifdef __cplusplus
}
#endif
#endif
