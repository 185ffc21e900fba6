/* fused_forward.cu — the forward of the head-wise LSTM / GRU / sLSTM in one persistent launch: all T
 * steps, each head's R^T in registers for the whole pass (the tiling: fused_common.cuh), only
 * the step's inputs and outputs in device memory. Layouts: fused.h.
 *
 * A step t: W x_{t+3} prefetched (cp.async, FLASHRNN_STAGES - 1 steps ahead; with
 * proj_overlap the copying threads first wait, between runs of steps, for its chunk of W x);
 * the products R^T h_{t-1} on tensor cores; the wk partial sums in shared memory; the cell
 * where the sums land, which stores h_t, the saved gates and c_t; h_t becomes the next step's
 * B operand: in shared memory where the block holds whole heads, else through the head's
 * exchange (exchange.cuh: the cell's stores to the cluster, or tagged words polled).
 *
 * Bounds per step: 2·B·D·G·dh flops of recurrent products, and B·D·(4·G + 16 + 4 + dtype
 * bytes) bytes moved (W x, saved gates, c, h; the slstm's 5 saved values and 3 states make it
 * 4·G + 20 + 12 + dtype bytes). Neither binds at FlashRNN's sizes: a pass is a
 * chain of T dependent steps, each the chain of one warp's dependent instructions (mma
 * latencies, the cell, a barrier); a split head adds the exchange's L2 round trips to it
 * (experiments/flashrnn-headdim has the numbers).
 */
#include "exchange.cuh"
#include "fused_kernels.cuh"

/* proj_overlap (flashrnn_cuda.cu): W x arrives in chunks of steps that a second stream
 * multiplies beside the forward and counts in w[0]; wait until chunk k is counted (acquire: the
 * copies this thread issues next read the GEMM's stores). A chunk that never comes (a GEMM that
 * could not start, a bug) ends the kernel after 10 s with a trap (the launch's error: unspecified
 * launch failure), not a hang. Inline and without a message: a printf here made the kernels
 * slower. */
__device__ __forceinline__ void wait_wx_chunk(const unsigned *w, unsigned k)
{
    const unsigned long long t0 = globaltimer_ns();
    for (;;) {
        unsigned v;
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(w) : "memory");
        if (v >= k) return;
        if (globaltimer_ns() - t0 > 10000000000ull) __trap();
    }
}

/* ---- the phases of forward_pass (below), each on the values it names --------------------- */

/* R^T slice into registers: strip q = gate q of the group's 16 units (from unit u0 of the
 * head), rows kw·KS .. of the head's dh; with WGATES, register f = q·NK + kt holds k tile
 * f % NKT of gate gg·WGATES + f / NKT, rows from ks·NKT·KT. */
template <class Cell, typename T, int KS, int WGATES>
__device__ __forceinline__ void fwd_load_r(uint32_t (&ra)[Cell::G][KS / Frag<T>::KT][4], int lane, const T *R,
                                           int head, int dh, int ks, int kw, int gg, int u0)
{
    constexpr int G = Cell::G, KT = Frag<T>::KT, NK = KS / KT, NKT = WGATES ? 16 / WGATES : NK;
#pragma unroll
    for (int q = 0; q < G; q++)
#pragma unroll
        for (int kt = 0; kt < NK; kt++)
            Frag<T>::a(ra[q][kt], lane, [&](int row, int col) {
                if (WGATES) {
                    const int f = q * NK + kt;
                    return ld(R + ((int64_t)head * dh + ks * NKT * KT + f % NKT * KT + col) * G * dh
                              + (gg * WGATES + f / NKT) * dh + u0 + row);
                }
                return ld(R + ((int64_t)head * dh + kw * KS + kt * KT + col) * G * dh + q * dh + u0 + row);
            });
}

/* The block's biases, b[G][U] then (gru) bn[U], into shared memory (read by the cell, not held
 * in registers: the split kernels are at their register cap); h_{-1} into operand buffer 0,
 * c_{-1} into the state cst (slstm: c, n, m into its three planes; rows past the batch zeros,
 * a fresh state). */
template <class Cell, typename T>
__device__ __forceinline__ void fwd_load_state(const flashrnn_fused_args &a, const Geo &g, float *bias, T *op,
                                               float *cst, int U, int D, int ub, int bt, int L, int dh, int hg,
                                               int b0, int B, int P)
{
    constexpr int G = Cell::G;
    for (int i = threadIdx.x; i < (G + 1) * U; i += blockDim.x) {
        const int q = i / U, u = i % U;
        bias[i] = q < G ? a.bias[q * D + ub + u] : a.bn ? a.bn[ub + u] : 0.0f;
    }
    for (int hh = 0; hh < g.hpb; hh++)
        rows_to_smem(op + hh * bt * L, L, static_cast<const T *>(a.h0), D, (hg * g.hpb + hh) * dh,
                     dh, b0, bt, B);
    if constexpr (IsSlstm<Cell>::value) {
        for (int i = threadIdx.x; i < 3 * bt * U; i += blockDim.x) {
            const int k = i / (bt * U), n = i / U % bt, u = i % U;
            cst[(k * bt + n) * P + u] = b0 + n < B ? a.st0[((int64_t)(b0 + n) * 3 + k) * D + ub + u] : 0.0f;
        }
    } else if (G == 4)
        for (int i = threadIdx.x; i < bt * U; i += blockDim.x) {
            int n = i / U, u = i % U;
            cst[n * P + u] = b0 + n < B ? ld(static_cast<const T *>(a.c0) + (int64_t)(b0 + n) * D + ub + u) : 0.0f;
        }
}

/* A thread's share of a step's W x is the same every step: where it is at most MAXC 16-byte
 * chunks (pre), their shared (soff) and global (goff) offsets are worked out here, once
 * (faster than walking them every step); more, or offsets beyond 32 bits, take the walk.
 * nmine: the thread's chunks; valid: bit k set where chunk k is in the batch. Split kernels
 * count from the last thread down, so that the copies are issued by warps off the cell's path
 * (the spreading threads are the first 128). */
template <int G, int MAXC, bool SPLIT>
__device__ __forceinline__ void fwd_plan_prefetch(bool &pre, int (&soff)[MAXC], int (&goff)[MAXC], int &nmine,
                                                  unsigned &valid, int U, int bt, int B, int D, int P, int b0, int ub)
{
    const int chunks = U / 4, total = G * bt * chunks;
    pre = total <= MAXC * (int)blockDim.x && (int64_t)B * G * D < INT32_MAX;
    nmine = 0, valid = 0;
    const int tid = SPLIT ? (int)blockDim.x - 1 - (int)threadIdx.x : (int)threadIdx.x;
    if (pre)
#pragma unroll
        for (int k = 0; k < MAXC; k++) {
            const int i = tid + k * blockDim.x;
            const int q = i / (bt * chunks), n = (i / chunks) % bt, j = (i % chunks) * 4;
            soff[k] = (q * bt + n) * P + j;
            goff[k] = (b0 + n) * G * D + q * D + ub + j;
            if (i < total) nmine = k + 1, valid |= (unsigned)(b0 + n < B) << k;
        }
}

/* The inputs of step t into prefetch stage t % FLASHRNN_STAGES of pff, FLASHRNN_STAGES - 1
 * steps ahead: this thread's chunks of W x_t (fwd_plan_prefetch's, else its walk wf). One
 * commit group per step, empty past the end, keeps the count uniform. */
template <int G, int MAXC>
__device__ __forceinline__ void fwd_fetch(const flashrnn_fused_args &a, int t, int T_, float *pff, int bt, int P,
                                          int B, int D, int ub, int b0, bool pre, const int (&soff)[MAXC],
                                          const int (&goff)[MAXC], int nmine, unsigned valid, const Walk &wf)
{
    if (t < T_) {
        float *dst = pff + (t % FLASHRNN_STAGES) * G * bt * P;
        const float *base = a.wx + (int64_t)t * B * G * D;
        if (pre) {
#pragma unroll
            for (int k = 0; k < MAXC; k++)
                if (k < nmine) cp16(dst + soff[k], valid >> k & 1 ? base + goff[k] : a.wx, valid >> k & 1);
        } else {
            wf.each(G, [&](int q, int n, int j) {
                const bool ok = b0 + n < B;
                cp16(dst + (q * bt + n) * P + 4 * j, ok ? base + (int64_t)(b0 + n) * G * D + q * D + ub + 4 * j : a.wx, ok);
            });
        }
    }
    cp_commit();
}

/* proj_overlap, after a run of steps ending at step t: the chunk of W x that the next prefetch
 * reaches, asked for (block 0 counts the chunks asked for: proj_overlap = late waits on
 * that) and waited for by the threads that copy */
__device__ __forceinline__ void fwd_wait_chunk(const flashrnn_fused_args &a, int t, int T_, bool copies)
{
    if (t + FLASHRNN_STAGES - 1 < T_) {   /* past the end nothing is fetched */
        const unsigned k = (unsigned)((t + FLASHRNN_STAGES - 1) / a.wx_chunk);
        if (blockIdx.x == 0 && threadIdx.x == 0)
            asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(a.wx_sync + 1), "r"(k + 1) : "memory");
        if (copies) wait_wx_chunk(a.wx_sync, k);
    }
}

/* Step t's outputs at batch row b, unit ul of the block (from ub): h, the saved gates s and
 * (lstm) c; slstm: its 5 saved values and the states c, n, m; elman: h in fp32 (fused.h). */
template <int G, typename T>
__device__ __forceinline__ void fwd_store_out(const flashrnn_fused_args &a, T *hout, int B, int D, int ub, int t,
                                              int b, int ul, float h, const float (&s)[4], float c)
{
    const int64_t o = (int64_t)t * B + b;
    st(hout + o * D + ub + ul, h);
#pragma unroll
    for (int q = 0; q < 4; q++) a.s[o * 4 * D + q * D + ub + ul] = s[q];
    if (G == 4) a.c[o * D + ub + ul] = c;
}
template <int G, typename T>   /* elman: its saved value h_t */
__device__ __forceinline__ void fwd_store_out(const flashrnn_fused_args &a, T *hout, int B, int D, int ub, int t,
                                              int b, int ul, float h, const float (&s)[1], float)
{
    const int64_t o = (int64_t)t * B + b;
    st(hout + o * D + ub + ul, h);
    a.s[o * D + ub + ul] = s[0];
}
template <int G, typename T>
__device__ __forceinline__ void fwd_store_out(const flashrnn_fused_args &a, T *hout, int B, int D, int ub, int t,
                                              int b, int ul, float h, const float (&s)[5], const float (&sv)[3])
{
    const int64_t o = (int64_t)t * B + b;
    st(hout + o * D + ub + ul, h);
#pragma unroll
    for (int q = 0; q < 5; q++) a.s[o * 5 * D + q * D + ub + ul] = s[q];
#pragma unroll
    for (int k = 0; k < 3; k++) a.c[(o * 3 + k) * D + ub + ul] = sv[k];
}

/* The products of 8-row tile nt on h_{t-1} (operand rows hop): acc[q] the C fragment of gate
 * q, or with WGATES of gate gg·WGATES + q, made in CH chains added at the end. */
template <typename T, int G, int KS, int WGATES>
__device__ __forceinline__ void fwd_products(float (&acc)[G][4], const uint32_t (&ra)[G][KS / Frag<T>::KT][4],
                                             const T *hop, int nt, int lane, int L, int ks, int kw)
{
    constexpr int KT = Frag<T>::KT, NK = KS / KT, NKT = WGATES ? 16 / WGATES : NK, CH = WGATES ? 4 / WGATES : 1;
#pragma unroll
    for (int q = 0; q < G; q++) acc[q][0] = acc[q][1] = acc[q][2] = acc[q][3] = 0.0f;
    if constexpr (WGATES > 0) {
        float w[WGATES * CH][4] = {};
        const unsigned hs = smem_addr(hop + (lane & 7) * L + ks * NKT * KT + (lane >> 3) * 8);
#pragma unroll
        for (int kt = 0; kt < NKT; kt += 2) {   /* two k tiles: b0, b1 of kt, then of kt + 1 */
            uint32_t b[4];
            ldmatrix_x4(b, hs + kt * KT * (unsigned)sizeof(T));
#pragma unroll
            for (int gi = 0; gi < WGATES; gi++) {
                const int f = gi * NKT + kt;
                Frag<T>::mma(w[gi * CH + kt % CH], ra[f / NK][f % NK], b[0], b[1]);
                Frag<T>::mma(w[gi * CH + (kt + 1) % CH], ra[(f + 1) / NK][(f + 1) % NK], b[2], b[3]);
            }
        }
#pragma unroll
        for (int gi = 0; gi < WGATES; gi++)
#pragma unroll
            for (int c = 0; c < CH; c++)
#pragma unroll
                for (int e = 0; e < 4; e++) acc[gi][e] += w[gi * CH + c][e];
    } else {
#pragma unroll
        for (int kt = 0; kt < NK; kt++) {
            uint32_t x0, x1;
            Frag<T>::b(x0, x1, hop + nt * 8 * L + kw * KS + kt * KT, L, lane);
#pragma unroll
            for (int q = 0; q < G; q++) Frag<T>::mma(acc[q], ra[q][kt], x0, x1);
        }
    }
}

/* WGATES: the wk / NGG k slices' partial sums (slice ks, gate group gg) added by the
 * spreading threads, each of which runs the cell for its position (unit row sp % 16, batch
 * row sn). Its cell inputs (W x + b from the stage wxs, c from cst) are read before the
 * barrier, off the sums' path (here they fit the registers; every gate a warp, they did not). */
template <int G, int WGATES, class CellFn>
__device__ __forceinline__ void fwd_gate_sums(const Geo &g, const float (&acc)[G][4], const float *wxs,
                                              const float *bias, float *cst, float *red, int bt, int P, int U,
                                              int gu, int sp, int sn, int ks, int gg, int c0, int r0, bool spreader,
                                              CellFn &cell)
{
    constexpr int NGG = 4 / WGATES;
    float pav[G], pc = 0.0f;
    if (spreader) {
#pragma unroll
        for (int q = 0; q < G; q++) pav[q] = wxs[(q * bt + sn) * P + gu + (sp & 15)] + bias[q * U + gu + (sp & 15)];
        pc = cst[sn * P + gu + (sp & 15)];
    }
    float *rs = red + ks * RED_FWD_KW + gg * WGATES;
#pragma unroll
    for (int e = 0; e < 4; e++) {
        float *d = rs + ((c0 + (e & 1)) * RED_P4 + r0 + 8 * (e >> 1)) * 4;
        if (WGATES == 1) *d = acc[0][e];
        else *reinterpret_cast<float2 *>(d) = make_float2(acc[0][e], acc[WGATES - 1][e]);
    }
    __syncthreads();
    PROBE(1);
    if (spreader) {
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int j = 0; j < 12 / NGG; j++) {   /* all loads in flight: wk <= 12 here */
            if (j >= g.wk / NGG) break;
            const float4 v = *reinterpret_cast<const float4 *>(red + j * RED_FWD_KW + (sn * RED_P4 + (sp & 15)) * 4);
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
        const float rv[G] = {sum.x, sum.y, sum.z, sum.w};
        PROBE(5);
        cell(sp & 15, sn, rv, pav, pc);
    }
}

/* Every gate a warp, wk > 1: warp kw's C fragments (not a twin's copy) into its slots rd of the
 * group's reduction buffer, laid out for the spread threads or as they are (RED_SLOT). */
template <int G>
__device__ __forceinline__ void fwd_store_partials(const Geo &g, const float (&acc)[G][4], float *rd, int kw,
                                                   int half, int lane, int c0, int r0)
{
    if (half == 0 && g.spread)
#pragma unroll
        for (int e = 0; e < 4; e++)
            *reinterpret_cast<float4 *>(rd + kw * RED_FWD_KW + ((c0 + (e & 1)) * RED_P4 + r0 + 8 * (e >> 1)) * 4) =
                make_float4(acc[0][e], acc[1 % G][e], acc[2 % G][e], G == 4 ? acc[3 % G][e] : 0.0f);
    else if (half == 0)
#pragma unroll
        for (int q = 0; q < G; q++)
            *reinterpret_cast<float4 *>(rd + kw * RED_FWD_KW + q * RED_SLOT + lane * 4) =
                make_float4(acc[q][0], acc[q][1], acc[q][2], acc[q][3]);
    __syncthreads();
}

/* Spread: a spreading thread adds the wk partial sums of its position (unit row sp % 16,
 * batch row nt·8 + sn), in kw order as fwd_add_partials does, and runs its cell. */
template <int G, class CellFn>
__device__ __forceinline__ void fwd_spread_cell(const Geo &g, const float *rd, int nt, int sp, int sn, CellFn &cell)
{
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 4
    for (int j = 0; j < g.wk; j++) {
        const float4 v = *reinterpret_cast<const float4 *>(rd + j * RED_FWD_KW + (sn * RED_P4 + (sp & 15)) * 4);
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    const float all[4] = {sum.x, sum.y, sum.z, sum.w};
    float rv[G];
#pragma unroll
    for (int q = 0; q < G; q++) rv[q] = all[q];
    PROBE(5);
    cell(sp & 15, nt * 8 + sn, rv);
}

/* Not spread: warp kw = 0 adds the other warps' partial sums to its own fragments. */
template <int G>
__device__ __forceinline__ void fwd_add_partials(const Geo &g, float (&acc)[G][4], const float *rd, int lane)
{
    for (int j = 1; j < g.wk; j++)
#pragma unroll
        for (int q = 0; q < G; q++) {
            float4 v = *reinterpret_cast<const float4 *>(rd + j * RED_FWD_KW + q * RED_SLOT + lane * 4);
            acc[q][0] += v.x, acc[q][1] += v.y, acc[q][2] += v.z, acc[q][3] += v.w;
        }
}

/* The cells of a warp's C fragment positions of 8-row tile nt (a twin: its half of them). */
template <int G, class CellFn>
__device__ __forceinline__ void fwd_fragment_cells(const Geo &g, const float (&acc)[G][4], int nt, int half, int c0,
                                                   int r0, CellFn &cell)
{
#pragma unroll
    for (int e = 0; e < 4; e++) {
        if (g.split == 2 && (e >> 1) != half) continue;
        float rv[G];
#pragma unroll
        for (int q = 0; q < G; q++) rv[q] = acc[q][e];
        cell(r0 + 8 * (e >> 1), nt * 8 + c0 + (e & 1), rv);
    }
}

/* h_t (made at step t) of the whole head into operand buffer nxt, where the block holds part
 * of the head: its own units pushed to the cluster (Geo::push), or the head's tagged words
 * polled (grid). The poll comes after the block's own cells (the words cannot carry the step
 * much earlier, every block's cells finish about together, and warps polling while the cells
 * run slow them down) and poll_delay cycles more (a poll that reaches L2 before a word lands
 * costs a whole round trip more), in which `during_wait` runs. */
template <bool SPLIT, class X, typename T, class WaitFn>
__device__ __forceinline__ void fwd_exchange(const flashrnn_fused_args &a, const Geo &g, const TaggedShare<X> &share,
                                             bool cl, T *op, typename X::W *xw, int t, int nxt, int bt, int L, int U,
                                             int part, int B, int D, int hg, int dh, int b0, WaitFn &during_wait)
{
    if (cl && g.push) {
        push_to_cluster(g, op + nxt * bt * L, L, 1, 0, part * U, U);
    } else if (SPLIT && !cl) {
        __syncthreads();
        const unsigned c0 = (unsigned)clock();
        during_wait();
        while ((unsigned)clock() - c0 < (unsigned)a.poll_delay) {}
        tagged_to_smem(share, op + nxt * bt * L, L, xw + (int64_t)((t + 1) & 1) * B * D + hg * dh, D, dh,
                       b0, bt, B, (unsigned)(t + 1));
    }
}

/* ---- the pass ------------------------------------------------------------------------------ */

/* The forward of one block: the thread's place, R, the state and the first prefetches, then
 * the steps, in runs up to proj_overlap's next chunk. WGATES (flashrnn_fused_warp_gates; 0:
 * every gate) = 1 or 2: a warp's products cover WGATES gates of the group's 16 units over a k
 * slice 4 / WGATES times as long (the same registers of R), so that the partial sums to add
 * are wk·WGATES / 4 instead of wk (12 at the dense head of 768), each position's 4 gates side
 * by side; the warp reads its longer slice of h with ldmatrix. Only for the tiling
 * flashrnn_fused_warp_gates admits. */
template <class Cell, typename T, int KS, bool SPLIT, int WGATES = 0>
__device__ __forceinline__ void forward_pass(const flashrnn_fused_args &a, const Geo &g)
{
    constexpr int G = Cell::G, NK = KS / Frag<T>::KT;
    constexpr bool SL = IsSlstm<Cell>::value, EL = IsElman<Cell>::value;
    static_assert(!WGATES || (G == 4 && !SL && sizeof(T) == 2 && SPLIT && KS == 64 && (WGATES == 1 || WGATES == 2)),
                  "warp_gates: the lstm's 16-bit split forward, k_slice 64");
    constexpr int NGG = WGATES ? 4 / WGATES : 1;   /* WGATES: warp = k slice ks, gate group gg of NGG */
    /* W x chunks a thread copies at most with offsets worked out once (fwd_plan_prefetch):
     * the split tilings' blocks of 16-32 units have at most one a thread, and with 4 the lstm
     * bf16 split kernel spilled twice as much */
    constexpr int MAXC = SPLIT ? 1 : 4;
    /* warp_gates (the dense lstm head, grid): a spreading thread's outputs of its one position
     * a step are kept from the cell until the block waits before its poll, and stored then,
     * off the step's path (faster there, slower for the gru's spread cell:
     * experiments/flashrnn-headdim, Design notes) */
    constexpr bool DEFER = WGATES > 0;
    typedef typename TagOf<Cell, T>::type X;   /* head_sync = grid: the exchange's words */
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int dh = a.dh, D = a.H * dh, B = a.B, T_ = a.T, U = g.U, bt = g.bt, L = g.oprow;
    const bool cl = SPLIT && g.cl;   /* whole heads (SPLIT false) have no exchange code at all */
    int bb, part, hg;
    g.coords(bb, part, hg);
    const int b0 = bb * bt;
    const int ub = hg * g.hpb * dh + part * U;               /* the block's first unit in D */
    /* a group's warps: wk k slices × split halves; the halves make the same products and
     * each runs the cell for its own 8 of the group's 16 units (C fragment rows e >> 1) */
    const int grp = warp / (g.wk * g.split), kw = warp / g.split % g.wk, half = warp % g.split;
    const int gu = grp * 16;
    const int head = (ub + gu) / dh, u0 = (ub + gu) % dh;     /* the group's head and unit */
    const int hl = SPLIT ? 0 : gu / dh;                       /* its head within the block */
    const int r0 = lane >> 2, c0 = (lane & 3) * 2;
    const int gg = warp % NGG, ks = warp / NGG;
    /* spread: thread sp < 128 of the group owns unit row sp % 16 and batch row nt·8 + sp / 16
     * of each 8-row tile (the reduction slots' layout, RED_SLOT) */
    const int sp = (kw * g.split + half) * 32 + lane, sn = sp >> 4;
    const bool spreader = g.spread && sp < 128;
    T *op = reinterpret_cast<T *>(smem + g.op);
    float *pff = reinterpret_cast<float *>(smem + g.pff);
    float *cst = reinterpret_cast<float *>(smem + g.state);
    float *red = reinterpret_cast<float *>(smem + g.red);
    const int P = U + 4;   /* row pitch of the fp32 [bt][U] arrays: lanes of 4 rows apart in distinct banks */
    const T *R = static_cast<const T *>(a.R);
    T *hout = static_cast<T *>(a.h);
    typename X::W *xw = static_cast<typename X::W *>(a.xchg);
    if (a.wx_chunk && blockIdx.x == 0 && threadIdx.x == 0)   /* proj_overlap: the kernel runs (chunk 0 asked for) */
        asm volatile("st.relaxed.gpu.global.u32 [%0], 1;" ::"l"(a.wx_sync + 1) : "memory");

    uint32_t ra[G][NK][4];
    fwd_load_r<Cell, T, KS, WGATES>(ra, lane, R, head, dh, ks, kw, gg, u0);
    float *bias = reinterpret_cast<float *>(smem + g.bias);
    fwd_load_state<Cell, T>(a, g, bias, op, cst, U, D, ub, bt, L, dh, hg, b0, B, P);
    bool pre;
    int soff[MAXC], goff[MAXC], nmine;
    unsigned valid;
    fwd_plan_prefetch<G, MAXC, SPLIT>(pre, soff, goff, nmine, valid, U, bt, B, D, P, b0, ub);
    const Walk wf(bt, U / 4);
    auto fetch = [&](int t) { fwd_fetch<G, MAXC>(a, t, T_, pff, bt, P, B, D, ub, b0, pre, soff, goff, nmine, valid, wf); };
    for (int t = 0; t < FLASHRNN_STAGES - 1; t++) fetch(t);
    /* grid: this thread's share of polling h (its offsets), rows past the batch zeroed */
    const TaggedShare<X> share = SPLIT && !cl ? TaggedShare<X>(op, op + bt * L, L, D, dh, b0, bt, B)
                                              : TaggedShare<X>();
    cp_wait_next();
    __syncthreads();
    if (cl) cluster_barrier();   /* every block of the cluster runs before any stores to it */

    /* proj_overlap: the steps whose prefetch reaches a new chunk of W x; before each, the
     * threads that copy wait until the chunk is counted (between runs of steps: the step
     * itself tests nothing) */
    int wx_wait = a.wx_chunk > 0 ? a.wx_chunk - (FLASHRNN_STAGES - 1) : T_;
    auto store_out = [&](int t, int b, int ul, float h, const auto &s, const auto &c) {
        fwd_store_out<G>(a, hout, B, D, ub, t, b, ul, h, s, c);
    };
    PROBE_START;
    for (int t = 0; t < T_;) {   /* runs of steps up to the next chunk's wait */
    for (const int tend = wx_wait < T_ ? wx_wait : T_; t < tend; t++) {   /* a step */
        const int cur = t & 1, nxt = cur ^ 1;
        float kept_h, kept_s[4], kept_c;   /* DEFER */
        PROBE(4);
        fetch(t + FLASHRNN_STAGES - 1);
        const T *hop = op + (cur * g.hpb + hl) * bt * L;
        const float *wxs = pff + (t % FLASHRNN_STAGES) * G * bt * P;
        for (int nt = 0; nt < bt / 8; nt++) {
            float acc[G][4];
            fwd_products<T, G, KS, WGATES>(acc, ra, hop, nt, lane, L, ks, kw);
            /* the cell at unit row `row` of the group and batch row n of the tile, on the
             * products rv (pav, pc: its W x + b and c where read already) */
            auto cell = [&](int row, int n, const float (&rv)[G], const float *pav = NULL, float pc = 0.0f) {
                const int ul = gu + row, b = b0 + n;
                float av[G], s[SL ? 5 : EL ? 1 : 4];
#pragma unroll
                for (int q = 0; q < G; q++) av[q] = pav ? pav[q] : wxs[(q * bt + n) * P + ul] + bias[q * U + ul];
                float h, c = 0.0f, sv[3];   /* sv: the slstm's states c, n, m */
                if constexpr (SL) {
                    float sp[3];
#pragma unroll
                    for (int k = 0; k < 3; k++) sp[k] = cst[(k * bt + n) * P + ul];
                    h = Cell::forward(av, rv, sp, sv, s);
#pragma unroll
                    for (int k = 0; k < 3; k++) cst[(k * bt + n) * P + ul] = sv[k];
                } else if constexpr (EL) {
                    h = Cell::forward(av, rv, nullptr, nullptr, s);
                } else {
                    float hp = G == 3 ? ld(hop + n * L + u0 + row) : 0.0f;
                    c = G == 4 ? (pav ? pc : cst[n * P + ul]) : 0.0f;
                    h = Cell::forward(av, rv, bias[G * U + ul], hp, c, s);
                    if (G == 4) cst[n * P + ul] = c;
                }
                if (!SPLIT || cl) st_operand(g, cl, op, ((nxt * g.hpb + hl) * bt + n) * L + u0 + row, h);
                if (b < B) {
                    if (SPLIT && !cl) X::put(xw + ((int64_t)((t + 1) & 1) * B + b) * D + ub + ul, h, t + 1);
                    if constexpr (SL) {
                        store_out(t, b, ul, h, s, sv);
                    } else if constexpr (!DEFER) {
                        store_out(t, b, ul, h, s, c);
                    } else {
                        kept_h = h, kept_c = c;
#pragma unroll
                        for (int q = 0; q < 4; q++) kept_s[q] = s[q];
                    }
                }
            };
            PROBE(0);
            if constexpr (WGATES > 0) {
                fwd_gate_sums<G, WGATES>(g, acc, wxs, bias, cst, red, bt, P, U, gu, sp, sn, ks, gg, c0, r0, spreader, cell);
                continue;
            }
            if (g.wk > 1) {   /* the group's wk partial sums meet in warp kw = 0, or spread */
                float *rd = red + (int64_t)(((nt & 1) * g.gpb + grp) * g.wk) * RED_FWD_KW;
                fwd_store_partials<G>(g, acc, rd, kw, half, lane, c0, r0);
                PROBE(1);
                if (g.spread) {
                    if (spreader) fwd_spread_cell<G>(g, rd, nt, sp, sn, cell);
                    continue;
                }
                if (kw == 0) fwd_add_partials<G>(g, acc, rd, lane);
            }
            if (kw != 0) continue;
            fwd_fragment_cells<G>(g, acc, nt, half, c0, r0, cell);
        }
        PROBE(2);
        auto deferred = [&] {   /* DEFER: the kept outputs, stored while the block waits to poll */
            if constexpr (DEFER)
                if (spreader && b0 + sn < B) store_out(t, b0 + sn, gu + (sp & 15), kept_h, kept_s, kept_c);
        };
        fwd_exchange<SPLIT, X>(a, g, share, cl, op, xw, t, nxt, bt, L, U, part, B, D, hg, dh, b0, deferred);
        PROBE(3);
        cp_wait_next();
        if (cl) cluster_barrier();   /* h_t of the whole head is in every block's buffer */
        else __syncthreads();
    }
    fwd_wait_chunk(a, t, T_, !pre || nmine > 0);
    wx_wait += a.wx_chunk;
    }
    PROBE(4);
    PROBE_END(0);
}

/* The kernels: whole heads, and split heads capped at FLASHRNN_MAX_REGS (the same cap on the
 * whole-head kernels made ptxas give them more registers, not fewer). The whole-head kernels
 * are compiled without any exchange code (SPLIT false), which would cost them registers and
 * time (experiments/flashrnn-headdim, Design notes). */
template <class Cell, typename T, int KS>
__global__ void flashrnn_fwd_kernel(const flashrnn_fused_args a, const Geo g) { forward_pass<Cell, T, KS, false>(a, g); }
template <class Cell, typename T, int KS>
__global__ void __maxnreg__(FLASHRNN_MAX_REGS) flashrnn_fwd_split_kernel(const flashrnn_fused_args a, const Geo g)
{
    forward_pass<Cell, T, KS, true>(a, g);
}
template <class Cell, typename T, int KS, int WGATES>
__global__ void __maxnreg__(FLASHRNN_MAX_REGS) flashrnn_fwd_gates_kernel(const flashrnn_fused_args a, const Geo g)
{
    forward_pass<Cell, T, KS, true, WGATES>(a, g);
}

template <class Cell, typename T, int KS> PassKernels forward_kernels()
{
    PassKernels k = {{flashrnn_fwd_kernel<Cell, T, KS>, flashrnn_fwd_split_kernel<Cell, T, KS>}, {NULL, NULL}};
    if constexpr (Cell::G == 4 && !IsSlstm<Cell>::value && sizeof(T) == 2 && KS == 64)
        k.gates[0] = flashrnn_fwd_gates_kernel<Cell, T, KS, 1>, k.gates[1] = flashrnn_fwd_gates_kernel<Cell, T, KS, 2>;
    return k;
}
#define FLASHRNN_FORWARD_ROW(C, T, K) template PassKernels forward_kernels<C, T, K>();
FLASHRNN_INSTANCES(FLASHRNN_FORWARD_ROW)

#ifdef FLASHRNN_PROBE
cudaError_t forward_probe(long long (*cycles)[PROBE_PHASES], long long *ns) { return probe_read(0, cycles, ns); }
#endif
