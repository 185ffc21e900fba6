/* scan.h — the first-order linear recurrence over C independent channels.
 *
 *   forward    h_t = a_t ⊙ h_{t-1} + b_t     t = 0 .. T-1,    h_{-1} = h0
 *   reversed   h_t = a_t ⊙ h_{t+1} + b_t     t = T-1 .. 0,    h_T    = h0
 *
 * GILR's state, SRU without peepholes and every Newton step of quasi-DEER are this
 * recurrence.
 *
 * Arrays are time-major and packed: a, b, h are [T][C] (element t*C + c), h0 is [C]
 * and NULL means zeros. A batch of sequences [T][B][D] is one scan with C = B·D.
 * Sizes are int64: T·C may exceed 2^31. T >= 1 and C >= 1, anything else is an error.
 *
 * The backward pass of a forward scan is a reversed scan with the gates shifted by
 * one step. With g_t = dL/dh_t in total (through every later step) and dh_t the
 * direct gradient:
 *
 *   g_t  = dh_t + a_{t+1} ⊙ g_{t+1}     (g_{T-1} = dh_{T-1})
 *   db_t = g_t,    da_t = g_t ⊙ h_{t-1},    dh0 = a_0 ⊙ g_0
 *
 * *_cpu is the float64 reference: plain loops, O(T·C). scan_cuda (kernels/scan.cu) is the
 * GPU version: f32, bf16 or f16 arrays, fp32 arithmetic.
 */
#ifndef LOGT_SCAN_H
#define LOGT_SCAN_H

#include <stdint.h>

#include "../core/ctx.h"
#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* h[T][C] = the forward scan of (a, b) from h0. h may be b (in place). */
logt_status scan_cpu(int64_t T, int64_t C, const double *a, const double *b, const double *h0,
                     double *h);

/* h[T][C] = the reversed scan of (a, b) from h0 = h_T. h may be b (in place). */
logt_status scan_reverse_cpu(int64_t T, int64_t C, const double *a, const double *b,
                             const double *h0, double *h);

/* The backward of scan_cpu: given the forward's a, h0 (NULL: zeros) and output h, and
 * dh = dL/dh [T][C], write db [T][C], and da [T][C] and dh0 [C] unless NULL. */
logt_status scan_backward_cpu(int64_t T, int64_t C, const double *a, const double *h0,
                              const double *h, const double *dh, double *da, double *db,
                              double *dh0);
/* scan_backward_cpu's last part: da and dh0 (each unless NULL) from g = db, the reversed
 * scan's output, however it was made (kernels/scan_multi.h makes it in pieces). */
void scan_backward_rest_cpu(int64_t T, int64_t C, const double *a, const double *h0, const double *h,
                            const double *g, double *da, double *dh0);

#ifdef LOGT_HAVE_CUDA
/* The same scan on the GPU: a, b, h are device [T][C] arrays of dtype dt (LOGT_F32, LOGT_BF16
 * or LOGT_F16, fp32 arithmetic), h0 a device [C] array of dt or NULL (zeros); reverse = 1
 * runs from t = T-1 down with h0 as h_T, like scan_reverse_cpu. Everything runs on
 * ctx->stream; h may be a or b (in place), no other overlap. The route (channel-parallel, or
 * one pass over tiles of T with look-back) is chosen from the shape, see scan.cu; 16-bit
 * arrays with C a multiple of 8 (C >= 32) and a, b, h 16-byte aligned go in 16-byte vectors,
 * others a channel a thread. */
logt_status scan_cuda(logt_ctx *ctx, int reverse, int64_t T, int64_t C, logt_dtype dt,
                      const void *a, const void *b, const void *h0, void *h);
/* scan_cuda with h0 a device [C] float array (NULL: zeros) whatever dt: for 16-bit arrays whose
 * initial state comes from elsewhere in fp32 (the carry of kernels/scan_multi.h), so it
 * is not rounded to 16 bits on the way in. */
logt_status scan_cuda_f32_state(logt_ctx *ctx, int reverse, int64_t T, int64_t C, logt_dtype dt,
                                const void *a, const void *b, const float *h0, void *h);
/* The backward of a forward scan_cuda, like scan_backward_cpu: given the forward's a, h0
 * (NULL: zeros) and output h, and dh = dL/dh [T][C], write db = g [T][C] (db may be dh:
 * in place), and da [T][C] and dh0 [C] unless NULL (da may be a). g comes from one reversed
 * scan whose gates are a shifted by one step (read in place, nothing copied). Same dtypes as
 * scan_cuda. */
logt_status scan_backward_cuda(logt_ctx *ctx, int64_t T, int64_t C, logt_dtype dt, const void *a,
                               const void *h0, const void *h, const void *dh, void *da, void *db,
                               void *dh0);
/* The baseline: one thread per channel walking T, one step at a time (Martin & Cundy's
 * "serial" kernel). Same arguments and results as scan_cuda and scan_backward_cuda; for
 * benches, tests, and models that offer the serial recurrence to be compared with. */
logt_status scan_cuda_serial(logt_ctx *ctx, int reverse, int64_t T, int64_t C, logt_dtype dt,
                             const void *a, const void *b, const void *h0, void *h);
logt_status scan_backward_cuda_serial(logt_ctx *ctx, int64_t T, int64_t C, logt_dtype dt,
                                      const void *a, const void *h0, const void *h,
                                      const void *dh, void *da, void *db, void *dh0);
/* The serial kernel as the library's channel route runs it, whatever the shape: one thread per
 * channel, each issuing the loads of 8 steps before their FMAs (scan_channels_kernel, U = 8).
 * The same arithmetic as scan_cuda_serial; the latency of 8 loads paid once. */
logt_status scan_cuda_serial_unrolled(logt_ctx *ctx, int reverse, int64_t T, int64_t C, logt_dtype dt,
                                      const void *a, const void *b, const void *h0, void *h);
/* The route scan_cuda takes for this shape and dtype on the current device, for arrays 16-byte
 * aligned (cudaMalloc's): "channels", "lookback" (tiles in registers) or "lookback-staged"
 * (tiles longer, part in shared memory: when there are enough of them to fill the GPU); for
 * 16-bit arrays, the first that applies: "channels-vec" where C is a multiple of 8 and at least
 * 8 times the channel threshold (a thread takes 8 channels, 16-byte aligned arrays);
 * "channels-pair" where C is even and at least the threshold (2 channels a thread, 4-byte
 * aligned arrays); "lookback-vec" or "lookback-staged-vec" where C is a multiple of 8 (C >= 32),
 * the arrays 16-byte aligned and T >= 128; else the f32 routes' names. And the smallest C that
 * goes channel-parallel a channel a thread (for tests that cross it). */
const char *scan_cuda_route(int64_t T, int64_t C, logt_dtype dt);
int64_t scan_cuda_channel_threshold(void);
#endif

#ifdef __cplusplus
}
#endif
#endif
