/* scan.h — the first-order linear recurrence over C independent channels.
 *
 *   forward    h_t = a_t ⊙ h_{t-1} + b_t     t = 0 .. T-1,    h_{-1} = h0
 *   reversed   h_t = a_t ⊙ h_{t+1} + b_t     t = T-1 .. 0,    h_T    = h0
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
 * This header is the API the CUDA version will share; *_cpu is the float64
 * reference: plain loops, O(T·C).
 */
#ifndef LOGT_SCAN_H
#define LOGT_SCAN_H

#include <stdint.h>

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

#ifdef __cplusplus
}
#endif
#endif
