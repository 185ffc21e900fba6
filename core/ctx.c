/* ctx.c — the CPU side of logt_ctx; the CUDA side is in ctx_cuda.cu. */
#include "ctx.h"

#include <stdlib.h>
#include <time.h>

#include "cuda.h"

#ifdef LOGT_HAVE_CUDA
logt_status logt_ctx_cuda_init(logt_ctx *ctx);
void logt_ctx_cuda_fini(logt_ctx *ctx);
logt_status logt_ctx_cuda_sync(logt_ctx *ctx);
logt_status logt_ctx_cuda_cudnn(logt_ctx *ctx);
logt_status logt_ctx_cuda_timer_begin(logt_ctx *ctx);
logt_status logt_ctx_cuda_timer_end(logt_ctx *ctx, double *ms);
logt_status logt_ctx_cuda_head_start(logt_ctx *ctx, int us);
logt_status logt_ctx_cuda_wait_for(logt_ctx *waiter, logt_ctx *other);
#endif

double logt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int logt_backend_available(logt_device dev)
{
    if (dev == LOGT_CPU) return 1;
#ifdef LOGT_HAVE_CUDA
    return logt_cuda_device_count() > 0;
#else
    return 0;
#endif
}

logt_status logt_ctx_create(logt_device dev, logt_ctx **out)
{
    *out = NULL;
    logt_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    ctx->device = dev;
    ctx->step = -1;
    if (dev == LOGT_CUDA) {
#ifdef LOGT_HAVE_CUDA
        if (logt_cuda_device_count() == 0) {
            free(ctx);
            return LOGT_FAIL(LOGT_EUNSUPPORTED,
                             "the cuda backend was requested but no GPU is visible. "
                             "HINT: check nvidia-smi, or use --backend cpu");
        }
        logt_status s = logt_ctx_cuda_init(ctx);
        if (s != LOGT_OK) {
            logt_ctx_cuda_fini(ctx);
            free(ctx);
            return s;
        }
#else
        free(ctx);
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "the cuda backend was requested but logt was built without CUDA. "
                         "HINT: install nvcc and rebuild, or use --backend cpu");
#endif
    }
    *out = ctx;
    return LOGT_OK;
}

void logt_ctx_destroy(logt_ctx *ctx)
{
    if (!ctx) return;
#ifdef LOGT_HAVE_CUDA
    logt_tensor_free(&ctx->ws);
    logt_tensor_free(&ctx->tagged);
    if (ctx->device == LOGT_CUDA) logt_ctx_cuda_fini(ctx);
#endif
    free(ctx);
}

logt_status logt_ctx_sync(logt_ctx *ctx)
{
#ifdef LOGT_HAVE_CUDA
    if (ctx->device == LOGT_CUDA) return logt_ctx_cuda_sync(ctx);
#endif
    (void)ctx;
    return LOGT_OK;
}

logt_status logt_ctx_wait_for(logt_ctx *waiter, logt_ctx *other)
{
    if (!waiter || !other || waiter == other || waiter->device != LOGT_CUDA) return LOGT_OK;
#ifdef LOGT_HAVE_CUDA
    return logt_ctx_cuda_wait_for(waiter, other);
#else
    return LOGT_OK;
#endif
}

logt_status logt_ctx_cudnn(logt_ctx *ctx, void **handle)
{
#ifdef LOGT_HAVE_CUDA
    if (ctx->device == LOGT_CUDA) {
        if (!ctx->cudnn) LOGT_TRY(logt_ctx_cuda_cudnn(ctx));
        *handle = ctx->cudnn;
        return LOGT_OK;
    }
#endif
    (void)ctx;
    *handle = NULL;
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "cuDNN needs the cuda backend");
}

logt_status logt_timer_begin(logt_ctx *ctx)
{
#ifdef LOGT_HAVE_CUDA
    if (ctx->device == LOGT_CUDA) return logt_ctx_cuda_timer_begin(ctx);
#endif
    ctx->t0 = logt_now();
    return LOGT_OK;
}

logt_status logt_ctx_head_start(logt_ctx *ctx, int us)
{
    if (us < 0) return LOGT_FAIL(LOGT_EINVAL, "head start of %d us: it must be >= 0", us);
#ifdef LOGT_HAVE_CUDA
    if (ctx->device == LOGT_CUDA && us > 0) return logt_ctx_cuda_head_start(ctx, us);
#endif
    (void)ctx;
    return LOGT_OK;
}

logt_status logt_timer_end(logt_ctx *ctx, double *ms)
{
#ifdef LOGT_HAVE_CUDA
    if (ctx->device == LOGT_CUDA) return logt_ctx_cuda_timer_end(ctx, ms);
#endif
    *ms = 1e3 * (logt_now() - ctx->t0);
    return LOGT_OK;
}

logt_status logt_ctx_workspace(logt_ctx *ctx, size_t bytes, void **out)
{
    *out = NULL;
    if (ctx->device != LOGT_CUDA)
        return LOGT_FAIL(LOGT_EINVAL, "logt_ctx_workspace: the workspace is device memory; "
                                      "this context is %s", logt_device_name(ctx->device));
    if (bytes == 0) bytes = 1;
    if (ctx->ws.data && (size_t)ctx->ws.numel * 4 >= bytes) {
        *out = ctx->ws.data;
        return LOGT_OK;
    }
    LOGT_TRY(logt_ctx_sync(ctx));   /* work queued earlier may still read the old buffer */
    logt_tensor_free(&ctx->ws);
    size_t grow = bytes + bytes / 4;   /* a little headroom: sizes tend to creep up */
    LOGT_TRY(logt_tensor_new1(&ctx->ws, LOGT_CUDA, LOGT_F32, (int64_t)((grow + 3) / 4)));
    *out = ctx->ws.data;
    return LOGT_OK;
}

logt_status logt_ctx_tagged(logt_ctx *ctx, size_t bytes, void **out, uint32_t *tag)
{
    *out = NULL, *tag = 0;
    if (ctx->device != LOGT_CUDA)
        return LOGT_FAIL(LOGT_EINVAL, "logt_ctx_tagged: the tagged words are device memory; "
                                      "this context is %s", logt_device_name(ctx->device));
    if (bytes == 0) bytes = 1;
    if (!ctx->tagged.data || (size_t)ctx->tagged.numel * 4 < bytes) {
        LOGT_TRY(logt_ctx_sync(ctx));   /* work queued earlier may still use the old words */
        logt_tensor_free(&ctx->tagged);
        LOGT_TRY(logt_tensor_new1(&ctx->tagged, LOGT_CUDA, LOGT_F32, (int64_t)((bytes + bytes / 4 + 3) / 4)));
        ctx->tag = UINT32_MAX;   /* zeroed below */
    }
    if (ctx->tag == UINT32_MAX) {   /* new words, or the numbers ran out: start again from 1 */
        LOGT_TRY(logt_ctx_sync(ctx));
        LOGT_TRY(logt_tensor_zero(&ctx->tagged));
        ctx->tag = 0;
    }
    *out = ctx->tagged.data;
    *tag = ++ctx->tag;
    return LOGT_OK;
}

logt_status logt_ctx_require_cuda(const logt_ctx *ctx, const char *who)
{
    if (ctx && ctx->device == LOGT_CUDA) return LOGT_OK;
    return LOGT_FAIL(LOGT_EINVAL, "%s runs on a cuda context, not %s. HINT: "
                     "logt_ctx_create(LOGT_CUDA, ...)", who,
                     ctx ? logt_device_name(ctx->device) : "NULL");
}
