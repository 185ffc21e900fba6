/* scan_multi.h — the linear scan of scan.h over a sequence split in time into G contiguous
 * pieces, one per GPU (or, on the CPU, one per array): the sequence-parallel scan.
 *
 * Piece p holds steps [T_0 + … + T_{p-1}, … + T_p) of every channel, as its own [T_p][C]
 * arrays. The state flows from piece to piece (forward: 0 → G-1; reversed: G-1 → 0), so
 * each piece needs the state that enters it, its carry. The algorithm:
 *
 *   1. summary  each piece composes its steps into one map per channel, x ↦ A·x + B (the
 *               map from the state entering the piece to the state leaving it; the piece
 *               where the state enters first applies it to h0, giving A = 0, B = the state
 *               leaving it). The composition runs from the piece's outflow end backwards
 *               over windows of doubling length and stops as soon as every channel's A is
 *               exactly 0: from there on nothing earlier can change the state leaving the
 *               piece (0 · anything finite is 0). With gates bounded away from 1 (a forget
 *               gate) that is after a few hundred steps, whatever T_p; with gates near 1 it
 *               is the whole piece (a read of a and b).
 *   2. exchange every piece's (A, B) to every piece: [G][2][C] floats (ncclAllGather on
 *               the GPUs; a copy on the CPU).
 *   3. carry    piece p folds the maps of the pieces before it: x = 0, x ↦ A_q·x + B_q.
 *   4. scan     piece p scans its steps from its carry (scan_cuda / scan_cpu), writing each
 *               output once.
 * Traffic per piece: the scan's 3·T_p·C elements, plus the summary's reads (a few hundred
 * steps, or 2·T_p·C with gates near 1), plus 2·G·C floats exchanged. The outflow piece
 * makes no summary (nothing after it needs one).
 *
 * Results equal the one-array scan up to rounding (the maps are composed in another order).
 */
#ifndef LOGT_SCAN_MULTI_H
#define LOGT_SCAN_MULTI_H

#include <stdint.h>

#include "../core/ctx.h"
#include "../core/status.h"
#include "../core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCAN_MULTI_MAX 16   /* pieces (GPUs) at most */

/* The float64 reference of the algorithm above: piece p's arrays a[p], b[p], h[p] are
 * [T[p]][C] doubles, h0 [C] (NULL: zeros) enters the first piece of the flow. Each step of
 * the algorithm is done as the GPUs do it, the exchange a copy. */
logt_status scan_pieces_cpu(int reverse, int G, const int64_t *T, int64_t C,
                            const double *const *a, const double *const *b, const double *h0,
                            double *const *h);

/* The pieces of a sequence of T steps split in time for G GPUs: n = min(G, T) pieces, the
 * first T mod n of them one step longer, into Tp[0 .. n-1]; returns n. */
int scan_pieces_split(int64_t T, int G, int64_t *Tp);
/* The n pieces of one [T][W] array a (NULL: n NULLs) by the split Tp: out[p] = row
 * Tp[0] + … + Tp[p-1] of a. */
void scan_pieces_of(const double *a, int n, const int64_t *Tp, int64_t W, double **out);

/* scan_cpu (reverse = 0) or scan_reverse_cpu (1) of one [T][C] array of doubles through
 * scan_pieces_cpu, its steps split into G pieces by scan_pieces_split: the float64 reference of
 * a model's scan in G GPUs' pieces. G = 1 is scan_cpu's (scan_reverse_cpu's) own result. */
logt_status scan_split_cpu(int G, int reverse, int64_t T, int64_t C, const double *a, const double *b,
                           const double *h0, double *h);
/* scan_backward_cpu with its reversed scan (g_t = a_{t+1} g_{t+1} + dh_t) in G pieces, as
 * scan_split_cpu; G = 1 is scan_backward_cpu's own result. */
logt_status scan_backward_split_cpu(int G, int64_t T, int64_t C, const double *a, const double *h0,
                                    const double *h, const double *dh, double *da, double *db,
                                    double *dh0);

/* Times of one scan_multi_run, ms: the slowest piece's summary, exchange and scan (CUDA
 * events on each GPU), and the wall clock of the whole call (host, all GPUs synchronised
 * before and after); rounds: the summary's windows on the slowest piece. */
typedef struct scan_multi_times {
    double summary_ms, exchange_ms, scan_ms, wall_ms;
    int rounds;
} scan_multi_times;

typedef struct scan_multi scan_multi;

/* One process driving GPUs 0 .. G-1 (NCCL communicators from ncclCommInitAll, a stream and
 * workspace per GPU). NVLink multicast (NVLS) is left off: NCCL_NVLS_ENABLE=0 unless the
 * environment sets it. Fails with a clear error when logt was built without CUDA or NCCL
 * or when fewer than G GPUs are visible. */
logt_status scan_multi_create(int G, scan_multi **out);
int scan_multi_gpus(const scan_multi *m);
/* The scan over G pieces: piece p's a[p], b[p], h[p] are [T[p]][C] arrays of dtype dt
 * (f32 or bf16, fp32 arithmetic) on GPU p; h0 [C] of dt (NULL: zeros) on the GPU where the
 * state enters (0 forward, G-1 reversed). Returns when every GPU is done; times may be NULL. */
logt_status scan_multi_run(scan_multi *m, int reverse, const int64_t *T, int64_t C, logt_dtype dt,
                           const void *const *a, const void *const *b, const void *h0,
                           void *const *h, scan_multi_times *times);
/* GPU p's context (its stream and cuBLAS handle) and NCCL communicator (an ncclComm_t of rank
 * p; NULL in a build without NCCL): for callers that queue their own work before and after
 * scan_multi_run on the same streams and exchange over the same communicators
 * (quasi-DEER over several GPUs, models/deer/deer_multi.cu). */
logt_ctx *scan_multi_ctx(scan_multi *m, int p);
void *scan_multi_comm(scan_multi *m, int p);
void scan_multi_destroy(scan_multi *m);

#ifdef __cplusplus
}
#endif
#endif
