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
    logt_tensor tagged; /* device words stamped with a call's number (logt_ctx_tagged) */
    uint32_t tag;       /* the number of the last logt_ctx_tagged call */
    int inference;      /* 1: no backward follows the forwards run on this context (the caller
                         * says so: a speed run of pass = forward), so a model may leave out
                         * what only a backward needs (cuDNN's inference mode, say).
                         * 0, the default: any forward may be followed by a backward */
    int64_t step;       /* the training step the calls belong to, for a model's settings that are
                         * scheduled over training (deer's tol_schedule); -1, logt_ctx_create's
                         * default: not training. The trainer sets it around its calls */
    int concurrent;     /* 1: other streams run kernels beside this context's (the net's
                         * layers_wavefront), so a kernel must not count on SMs it leaves free */
    int relax;          /* times the caller relaxed the solvers after a failed training step
                         * (deer's on_fail = retry): each multiplies a solver's tolerance by 10 and
                         * its iteration cap by 2. 0, the default */
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

/* Device words for kernels that start from "every word empty" (the scan's status words),
 * without a memset before each call: at least `bytes` that only the caller's kernels write,
 * and a number for this call, *tag (1, 2, ...). A kernel stamps each word it writes with the
 * tag and reads any word stamped otherwise as empty: written by an earlier call, or never
 * (the buffer is zeroed when it is (re)allocated and when the number would wrap, and 0 is
 * no call's number). One user per context: two kernels sharing the words within a call
 * would see each other's. Growing waits for the stream, then reallocates. */
logt_status logt_ctx_tagged(logt_ctx *ctx, size_t bytes, void **out, uint32_t *tag);

/* The work queued on `waiter` from now on waits for all queued on `other` so far (an event on
 * other's stream that waiter's stream waits for; the host does not wait). No-op on the CPU or
 * where they are one context. */
logt_status logt_ctx_wait_for(logt_ctx *waiter, logt_ctx *other);
/* OK when ctx is a cuda context; else an error saying that `who` runs on one. */
logt_status logt_ctx_require_cuda(const logt_ctx *ctx, const char *who);

#ifdef LOGT_HAVE_CUDA
/* p[i] = v for i < n, p an f32 device array, queued on ctx's stream. */
logt_status logt_cuda_fill_f32(logt_ctx *ctx, float *p, int64_t n, float v);
#endif

/* Time one region: begin, run, end. end waits for the device and returns ms. */
/* Before a timer_begin on the GPU: queue a kernel that keeps the device busy for `us`
 * microseconds, so that the host has queued the timed work before the device reaches it; the
 * time is then the device's, without the host's launch rate and its jitter (nvbench's way).
 * No-op on the CPU. */
logt_status logt_ctx_head_start(logt_ctx *ctx, int us);
logt_status logt_timer_begin(logt_ctx *ctx);
logt_status logt_timer_end(logt_ctx *ctx, double *ms);

double logt_now(void);   /* monotonic seconds */

/* Is the backend usable here? (CUDA: built with it and a device present.) */
int logt_backend_available(logt_device dev);

#ifdef __cplusplus
}
#endif
#endif
