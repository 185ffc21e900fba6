/* fused_backward.cu — the backward of the head-wise LSTM / GRU / sLSTM in one persistent launch: all
 * T steps from the last down, each head's R in registers for the whole pass (the tiling:
 * fused_common.cuh). Reads h, the saved gates and c of the forward and dH (and dhT, dcT into
 * the last step, where given); writes dL/d(W x) (= dL/d(R h) for the lstm), for the gru
 * dL/d(R h), and dL/dh_{-1}, dL/dc_{-1} (fused.h).
 *
 * A step t: its inputs prefetched FLASHRNN_STAGES - 1 steps ahead; the cell's backward where
 * the products of step t + 1 landed (the C fragments hold dL/dh_t of the cell's positions),
 * which makes dL/d(R h_t), every gate; that becomes the B operand of the products
 * R · dL/d(R h)^T, in shared memory where the block holds whole heads, else through the
 * head's exchange (exchange.cuh: the cell's stores or a copy to the cluster; or global
 * memory, the counter barrier and a reload, shared by a cluster with grid_share); one
 * barrier; the products and the wk partial sums into dL/dh_{t-1}.
 *
 * Bounds per step: 2·B·D·G·dh flops of recurrent products, as the forward; the exchange of a
 * split head moves G times the forward's values (bt·G·dh a block and step).
 */
#include "exchange.cuh"
#include "fused_kernels.cuh"

/* ---- the phases of backward_pass (below), each on the values it names -------------------- */

/* R slice into registers: the group's 16 units (rows, from unit u0 of the head) × gate columns
 * kw·G·KS .. of the head. */
template <class Cell, typename T, int KS>
__device__ __forceinline__ void bwd_load_r(uint32_t (&ra)[Cell::G * KS / Frag<T>::KT][4], int lane, const T *R,
                                           int head, int dh, int u0, int kw)
{
    constexpr int G = Cell::G, KT = Frag<T>::KT, NK = G * KS / KT;
#pragma unroll
    for (int kt = 0; kt < NK; kt++)
        Frag<T>::a(ra[kt], lane, [&](int row, int col) {
            return ld(R + ((int64_t)head * dh + u0 + row) * G * dh + kw * G * KS + kt * KT + col);
        });
}

/* grid_share: the mbarriers of the wk k slices set up, and both operand buffers zeroed (rows
 * past the batch are never copied into). */
template <typename T>
__device__ __forceinline__ void bwd_mcast_init(uint64_t *mbar, T *op, int wk, int bt, int L)
{
    if (threadIdx.x < wk) mbar_init(mbar + threadIdx.x);
    const int words = 2 * bt * L * (int)sizeof(T) / 16;   /* L·sizeof(T) is a multiple of 16 */
    for (int i = threadIdx.x; i < words; i += blockDim.x) reinterpret_cast<uint4 *>(op)[i] = make_uint4(0, 0, 0, 0);
}

/* Step t's inputs into prefetch stage t % FLASHRNN_STAGES (nothing for t < 0), one commit
 * group each: fp32 planes (pff) 0-3 the saved gates (elman: 0, h_t), (lstm) 4 c_t, 5 c_{t-1},
 * or (slstm) 0-4 its saved values, 5, 6 c_t, n_t, 7, 8 c_{t-1}, n_{t-1} (at t = 0 from st0); dtype planes
 * (pfd) 0 dH_t, (gru) 1 h_{t-1}; this thread's chunks by the walks wf, wd. Plane bases are
 * arithmetic in (plane, t), rows are ld apart. */
template <class Cell, typename T>
__device__ __forceinline__ void bwd_fetch(const flashrnn_fused_args &a, const Geo &g, int t, float *pff, T *pfd,
                                          int bt, int P, int Pd, int B, int D, int U, int ub, int b0, const Walk &wf,
                                          const Walk &wd, const T *dH, const T *hin, const T *h0)
{
    constexpr int G = Cell::G, NSV = IsElman<Cell>::value ? 1 : 4;   /* saved values a unit */
    if (t >= 0) {
        const int64_t o = (int64_t)t * B;
        const int k = t % FLASHRNN_STAGES;
        float *ff = pff + k * g.nf * bt * P;
        T *fd = pfd + k * g.nd * bt * Pd;
        if constexpr (IsSlstm<Cell>::value)
            wf.each(g.nf, [&](int q, int n, int j) {
                const bool valid = b0 + n < B;
                const int64_t r = o + b0 + n;   /* the row of step t; of t - 1 for planes 7, 8 */
                const float *src = q < 5 ? a.s + r * 5 * D + q * D
                                   : q < 7 ? a.c + (r * 3 + q - 5) * D
                                   : t ? a.c + ((r - B) * 3 + q - 7) * D
                                       : a.st0 + ((int64_t)(b0 + n) * 3 + q - 7) * D;
                cp16(ff + (q * bt + n) * P + 4 * j, valid ? src + ub + 4 * j : a.s, valid);
            });
        /* at t = 0, c_{-1} (plane 5) is c0, of the activations' dtype: filled below */
        else wf.each(G == 4 && t == 0 ? 5 : g.nf, [&](int q, int n, int j) {
            const bool valid = b0 + n < B;
            const float *src = q < 4 ? a.s + (o + b0 + n) * NSV * D + q * D
                                     : a.c + (o - (q == 5 ? B : 0) + b0 + n) * D;
            cp16(ff + (q * bt + n) * P + 4 * j, valid ? src + ub + 4 * j : a.s, valid);
        });
        if (G == 4 && !IsSlstm<Cell>::value && t == 0)
            for (int i = threadIdx.x; i < bt * U; i += blockDim.x) {
                int n = i / U, u = i % U;
                ff[(5 * bt + n) * P + u] =
                    b0 + n < B ? ld(static_cast<const T *>(a.c0) + (int64_t)(b0 + n) * D + ub + u) : 0.0f;
            }
        constexpr int per = 16 / sizeof(T);
        wd.each(g.nd, [&](int q, int n, int j) {
            const bool valid = b0 + n < B;
            const T *src = q == 0 ? dH + (o + b0 + n) * D
                                  : (t ? hin + (o - B + b0 + n) * D : h0 + (int64_t)(b0 + n) * D);
            cp16(fd + (q * bt + n) * Pd + per * j, valid ? src + ub + per * j : dH, valid);
        });
    }
    cp_commit();
}

/* The cell's backward at unit row `row` of the group and batch row n of the tile, step t: its
 * inputs from the prefetch stages ff, fd and the state (dhs: what reaches h_t from step t + 1;
 * dcs: dL/dc_t; slstm, dcs + bt·P: dL/dn_t), the state made dL/dh_{t-1} (the part not through
 * R) and dL/dc_{t-1} (dL/dn_{t-1}); dL/d(R h) to the next products (dop, or the cluster's
 * buffers) and with dL/d(W x) to global memory. The slstm's dL/dm_{t-1} is not carried (m is
 * held constant within a step, SlstmCell): at t = 0 it is dL/dm0, stored to dst0 here. */
template <class Cell, typename T, bool SPLIT>
__device__ __forceinline__ void bwd_cell(const flashrnn_fused_args &a, const Geo &g, int t, int row, int n,
                                         const float *ff, const T *fd, float *dhs, float *dcs, T *dop, bool cl, int gu,
                                         int b0, int bt, int P, int Pd, int L, int dh, int u0, int B, int D, int ub)
{
    constexpr int G = Cell::G;
    const int ul = gu + row, b = b0 + n, i = n * P + ul, id = n * Pd + ul;
    float dxa[G], dra[G];
    if constexpr (IsSlstm<Cell>::value) {
        float sv[5], st_t[2], st_p[2], ds[3] = {dcs[i], dcs[bt * P + i], 0.0f};
#pragma unroll
        for (int q = 0; q < 5; q++) sv[q] = ff[q * bt * P + i];
#pragma unroll
        for (int k = 0; k < 2; k++) st_t[k] = ff[(5 + k) * bt * P + i], st_p[k] = ff[(7 + k) * bt * P + i];
        Cell::backward(sv, st_p, st_t, ld(fd + id) + dhs[i], ds, dxa);
        if (b >= B) {   /* a padding row's zero n makes NaN: keep it out of the operand and state */
#pragma unroll
            for (int q = 0; q < G; q++) dxa[q] = 0.0f;
            ds[0] = ds[1] = ds[2] = 0.0f;
        }
        dhs[i] = 0.0f;   /* all of dL/dh_{t-1} goes through R */
        dcs[i] = ds[0], dcs[bt * P + i] = ds[1];
#pragma unroll
        for (int q = 0; q < G; q++) dra[q] = dxa[q];
        if (t == 0 && b < B && a.dst0) a.dst0[((int64_t)b * 3 + 2) * D + ub + ul] = ds[2];
    } else if constexpr (IsElman<Cell>::value) {
        const float sv[1] = {ff[i]};
        Cell::backward(sv, nullptr, nullptr, ld(fd + id) + dhs[i], nullptr, dxa);
        dra[0] = dxa[0];
        dhs[i] = 0.0f;   /* all of dL/dh_{t-1} goes through R */
    } else {
        float sv[4];
#pragma unroll
        for (int q = 0; q < 4; q++) sv[q] = ff[q * bt * P + i];
        float c = G == 4 ? ff[4 * bt * P + i] : 0.0f, cp = G == 4 ? ff[5 * bt * P + i] : 0.0f;
        float hp = G == 3 ? ld(fd + bt * Pd + id) : 0.0f;
        float dc = G == 4 ? dcs[i] : 0.0f;
        float dh_ = ld(fd + id) + dhs[i];
        dhs[i] = Cell::backward(sv, c, cp, hp, dh_, dc, dxa, dra);
        if (G == 4) dcs[i] = dc;
    }
    if (!SPLIT || cl)
#pragma unroll
        for (int q = 0; q < G; q++) st_operand(g, cl, dop, n * L + q * dh + u0 + row, dra[q]);
    if (b < B) {
        const int64_t o = ((int64_t)t * B + b) * G * D + ub + ul;
#pragma unroll
        for (int q = 0; q < G; q++) {
            st(static_cast<T *>(a.dxa) + o + q * D, dxa[q]);
            if (G == 3) st(static_cast<T *>(a.dra) + o + q * D, dra[q]);
        }
    }
}

/* The cells of a step: spread, a spreading thread's position in each 8-row tile; else warp
 * kw = 0's fragment positions (a twin: its half of them). */
template <class CellFn>
__device__ __forceinline__ void bwd_cells(const Geo &g, int bt, bool spreader, int srow, int sn, int kw, int half,
                                          int r0, int c0, CellFn &cell)
{
    if (g.spread) {
        if (spreader)
            for (int nt = 0; nt < bt / 8; nt++) cell(srow, nt * 8 + sn);
    } else if (kw == 0)
        for (int nt = 0; nt < bt / 8; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (g.split == 1 || (e >> 1) == half) cell(r0 + 8 * (e >> 1), nt * 8 + c0 + (e & 1));
}

/* grid_share: the reload of dL/d(R h_{t-1}) (from src, the head's columns of step t) by the
 * copy engine. Once every block of the head has stored its part (head_barrier), the block
 * issues its pieces, (row n, slice sl) = p for p = its rank mod mc, one a thread, a slice's
 * G·KS columns of the head cut where a gate's dh columns end, multicast to the cluster and
 * counted on the slice's mbarrier; every warp waits for its own slice (kw), armed here by its
 * lane 0 before the arrival at the counter, so that the copies find it armed. Issuing them from
 * warp 0 with no second block barrier was slower (experiments/flashrnn-headdim, Design notes). */
template <typename T, int G, int KS>
__device__ __forceinline__ void bwd_reload_multicast(const flashrnn_fused_args &a, const Geo &g, T *dop, const T *src,
                                                     uint64_t *mbar, int t, int T_, int lane, int kw, int part,
                                                     int mc, int nvalid, int hg, int bb, int b0, int D, int dh, int L)
{
    if (lane == 0) mbar_expect(mbar + kw, (unsigned)(nvalid * G * KS * sizeof(T)));
    head_barrier(a.sync + hg * g.nbb + bb, (unsigned)(g.bph * (T_ - t)));
    const unsigned short mask = (unsigned short)((1u << mc) - 1);
    const int npieces = nvalid * g.wk;
    int p = part % mc + (int)threadIdx.x * mc;
    if (p < npieces) fence_proxy_async();
    for (; p < npieces; p += (int)blockDim.x * mc) {
        const int n = p / g.wk, sl = p % g.wk;
        for (int c = sl * G * KS, e = c + G * KS; c < e;) {
            const int q = c / dh, ce = e < (q + 1) * dh ? e : (q + 1) * dh;
            bulk_multicast(dop + n * L + c, src + (int64_t)(b0 + n) * G * D + q * D + c % dh,
                           (unsigned)((ce - c) * sizeof(T)), mbar + sl, mask);
            c = ce;
        }
    }
    PROBE(1);
    cp_wait_next();   /* step t-1's inputs: the products' reduction barrier publishes them */
    mbar_wait(mbar + kw, (unsigned)(T_ - 1 - t) & 1u);
}

/* The products of 8-row tile nt on dL/d(R h) (operand rows dop): the G·KS/KT mmas into one
 * output tile in CH independent chains, added at the end, so that they overlap instead of
 * waiting on each other; acc the C fragment. */
template <typename T, int NK>
__device__ __forceinline__ void bwd_products(float (&acc)[4], const uint32_t (&ra)[NK][4], const T *dop, int nt,
                                             int L, int k0, int lane)
{
    constexpr int KT = Frag<T>::KT, CH = NK >= 4 ? 4 : NK;
    float part[CH][4];
#pragma unroll
    for (int c = 0; c < CH; c++) part[c][0] = part[c][1] = part[c][2] = part[c][3] = 0.0f;
#pragma unroll
    for (int kt = 0; kt < NK; kt++) {
        uint32_t x0, x1;
        Frag<T>::b(x0, x1, dop + nt * 8 * L + k0 + kt * KT, L, lane);
        Frag<T>::mma(part[kt % CH], ra[kt], x0, x1);
    }
#pragma unroll
    for (int e = 0; e < 4; e++) {
        acc[e] = part[0][e];
#pragma unroll
        for (int c = 1; c < CH; c++) acc[e] += part[c][e];
    }
}

/* Warp kw = 0: its fragment's sums of 8-row tile nt added to dL/dh_{t-1} (a twin: its half). */
__device__ __forceinline__ void bwd_add_fragment(const Geo &g, const float (&acc)[4], float *dhs, int nt, int P, int gu,
                                                 int half, int c0, int r0)
{
#pragma unroll
    for (int e = 0; e < 4; e++)
        if (g.split == 1 || (e >> 1) == half)
            dhs[(nt * 8 + c0 + (e & 1)) * P + gu + r0 + 8 * (e >> 1)] += acc[e];
}

/* The final dL/dh_{-1}, dL/dc_{-1} of warp kw = 0's fragment positions (a twin: its half);
 * slstm, dL/dc_{-1} and dL/dn_{-1} to dst0 too. */
template <int G, bool SL, typename T>
__device__ __forceinline__ void bwd_store_initial(const flashrnn_fused_args &a, const Geo &g, const float *dhs,
                                                  const float *dcs, int bt, int P, int b0, int B, int D, int ub,
                                                  int gu, int half, int c0, int r0)
{
    for (int nt = 0; nt < bt / 8; nt++)
        for (int e = 0; e < 4; e++) {
            const int row = r0 + 8 * (e >> 1), n = nt * 8 + c0 + (e & 1), b = b0 + n;
            if (b >= B || (g.split == 2 && (e >> 1) != half)) continue;
            const int64_t o = (int64_t)b * D + ub + gu + row;
            if (a.dh0) st(static_cast<T *>(a.dh0) + o, dhs[n * P + gu + row]);
            if (G == 4 && a.dc0) st(static_cast<T *>(a.dc0) + o, dcs[n * P + gu + row]);
            if (SL && a.dst0)
#pragma unroll
                for (int k = 0; k < 2; k++)
                    a.dst0[((int64_t)b * 3 + k) * D + ub + gu + row] = dcs[(k * bt + n) * P + gu + row];
        }
}

/* dL/dh and dL/dc reaching the last step from after the pass (a segment's a.dhT, a.dcT; NULL:
 * the zeros already there) into the state dhs [bt][P], dcs after it: each position by the
 * thread that zeroed it, so no barrier comes between. */
template <typename T>
__device__ __forceinline__ void bwd_final_grads(const flashrnn_fused_args &a, float *dhs, int bt, int P, int U,
                                                int b0, int B, int D, int ub)
{
    for (int i = threadIdx.x; i < 2 * bt * P; i += blockDim.x) {
        const int n = i / P % bt, u = i % P;
        const T *from = static_cast<const T *>(i < bt * P ? a.dhT : a.dcT);
        if (from && u < U && b0 + n < B) dhs[i] = ld(from + (int64_t)(b0 + n) * D + ub + u);
    }
}

/* ---- the pass ------------------------------------------------------------------------------ */

/* The backward of one block, from step T - 1 down: a step's cell (on dL/dh_t from the step
 * after), its dL/d(R h) to the next products (through the head's exchange where the head is
 * split), the step's one barrier, then the products R dL/d(R h)^T and their partial sums
 * into dL/dh_{t-1}. */
template <class Cell, typename T, int KS, bool SPLIT>
__device__ __forceinline__ void backward_pass(const flashrnn_fused_args &a, const Geo &g)
{
    constexpr int G = Cell::G, KT = Frag<T>::KT, NK = G * KS / KT;
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int dh = a.dh, D = a.H * dh, B = a.B, T_ = a.T, U = g.U, bt = g.bt, L = g.oprow;
    const bool cl = SPLIT && g.cl;   /* whole heads (SPLIT false) have no exchange code at all */
    const int mc = SPLIT && !cl && g.mc > 1 ? g.mc : 1;   /* grid: clusters sharing the reload */
    int bb, part, hg;
    g.coords(bb, part, hg);
    const int b0 = bb * bt;
    const int ub = hg * g.hpb * dh + part * U;
    /* a group's warps: wk k slices × split halves; the halves make the same products and
     * each runs the cell for its own 8 of the group's 16 units (C fragment rows e >> 1) */
    const int grp = warp / (g.wk * g.split), kw = warp / g.split % g.wk, half = warp % g.split;
    const int gu = grp * 16;
    const int head = (ub + gu) / dh, u0 = (ub + gu) % dh;
    const int hl = SPLIT ? 0 : gu / dh;
    const int r0 = lane >> 2, c0 = (lane & 3) * 2;
    const int sp = (kw * g.split + half) * 32 + lane;   /* spread: as in the forward */
    const bool spreader = g.spread && sp < 128;
    const int srow = sp & 15, sn = sp >> 4;
    T *op = reinterpret_cast<T *>(smem + g.op);
    float *pff = reinterpret_cast<float *>(smem + g.pff);
    T *pfd = reinterpret_cast<T *>(smem + g.pfd);
    const int P = U + 4, Pd = U + 16 / (int)sizeof(T);   /* row pitches: see the forward */
    float *dhs = reinterpret_cast<float *>(smem + g.state), *dcs = dhs + bt * P;
    float *red = reinterpret_cast<float *>(smem + g.red);
    const T *R = static_cast<const T *>(a.R), *hin = static_cast<const T *>(a.h);
    /* dL/d(R h) of the head, as the next blocks read it back (bph > 1) */
    const T *drx = static_cast<const T *>(G == 3 ? a.dra : a.dxa);

    /* the state from zeros, or a segment's from its final state's gradients; before R's
     * registers are loaded (the split kernels spill least so) */
    for (int i = threadIdx.x; i < (IsSlstm<Cell>::value ? 3 : 2) * bt * P; i += blockDim.x) dhs[i] = 0.0f;
    if (a.dhT || a.dcT) bwd_final_grads<T>(a, dhs, bt, P, U, b0, B, D, ub);
    uint32_t ra[NK][4];
    bwd_load_r<Cell, T, KS>(ra, lane, R, head, dh, u0, kw);
    /* the prefetch's copies counted from the last thread down with head_sync = grid, so that
     * the cell's threads (the first) issue few or none of them (not in clusters, where it was
     * slower: experiments/flashrnn-headdim, Design notes) */
    const int ftid = SPLIT && !cl ? (int)blockDim.x - 1 - (int)threadIdx.x : (int)threadIdx.x;
    const Walk wf(bt, U / 4, ftid), wd(bt, U / (16 / (int)sizeof(T)), ftid), wx(bt, dh / (16 / (int)sizeof(T)));
    /* own (grid, wk > 1, no twins, which would copy twice): each warp reloads only its k slice
     * of dL/d(R h) (G·KS columns, cpr 16-byte chunks a row, one a lane) and waits for its own
     * copies, and no block barrier ends the step: the products' reduction barrier publishes
     * the next cell's inputs and orders the reuse of buffers. mcast (own, in clusters of mc):
     * the reload by the copy engine (bwd_reload_multicast). */
    constexpr int cpr = G * KS * (int)sizeof(T) / 16;
    static_assert(cpr <= 32, "a warp's k slice of dL/d(R h) is at most one 16-byte chunk a lane");
    const bool own = SPLIT && !cl && g.wk > 1 && g.split == 1;
    const bool mcast = own && mc > 1;
    uint64_t *mbar = reinterpret_cast<uint64_t *>(smem + g.mbar);
    const int nvalid = B - b0 < bt ? B - b0 : bt;
    if (mcast) bwd_mcast_init<T>(mbar, op, g.wk, bt, L);
    const int own_c = kw * G * KS + lane * (16 / (int)sizeof(T));   /* the lane's column */
    const int own_s = own_c, own_g = own_c / dh * D + own_c % dh;
    const T *dH = static_cast<const T *>(a.dH), *h0 = static_cast<const T *>(a.h0);
    auto fetch = [&](int t) { bwd_fetch<Cell, T>(a, g, t, pff, pfd, bt, P, Pd, B, D, U, ub, b0, wf, wd, dH, hin, h0); };
    for (int j = 0; j < FLASHRNN_STAGES - 1; j++) fetch(T_ - 1 - j);
    cp_wait_next();
    __syncthreads();
    if (cl || mc > 1) cluster_barrier();   /* every block of the cluster runs (its barriers set up) before any stores to it */

    PROBE_START;
    for (int t = T_ - 1; t >= 0; t--) {
        const int cur = t & 1;
        PROBE(4);
        fetch(t - (FLASHRNN_STAGES - 1));
        T *dop = op + (cur * g.hpb + hl) * bt * L;
        const float *ff = pff + (t % FLASHRNN_STAGES) * g.nf * bt * P;
        const T *fd = pfd + (t % FLASHRNN_STAGES) * g.nd * bt * Pd;
        auto cell = [&](int row, int n) {
            bwd_cell<Cell, T, SPLIT>(a, g, t, row, n, ff, fd, dhs, dcs, dop, cl, gu, b0, bt, P, Pd, L, dh, u0, B, D, ub);
        };
        bwd_cells(g, bt, spreader, srow, sn, kw, half, r0, c0, cell);
        PROBE(0);
        if (cl && g.push) {   /* the block's units of dL/d(R h), every gate, to the cluster */
            push_to_cluster(g, dop, L, G, dh, part * U, U);
        } else if (SPLIT && !cl) {   /* dL/d(R h_{t-1}) of the whole head, as its blocks stored it */
            const T *src = drx + (int64_t)t * B * G * D + hg * dh;
            if (mcast) {
                bwd_reload_multicast<T, G, KS>(a, g, dop, src, mbar, t, T_, lane, kw, part, mc, nvalid, hg, bb, b0, D,
                                               dh, L);
            } else {   /* once every block of the head has stored its part */
                head_barrier(a.sync + hg * g.nbb + bb, (unsigned)(g.bph * (T_ - t)));
                PROBE(1);
                if (own) {   /* each warp its own k slice: lane `lane`'s column chunk, every row */
                    if (lane < cpr)
                        for (int n = 0; n < bt; n++) {
                            const bool ok = b0 + n < B;
                            cp16(dop + n * L + own_s, ok ? src + (int64_t)(b0 + n) * G * D + own_g : src, ok);
                        }
                    cp_commit();
                    cp_wait_all();
                    __syncwarp();
                } else {
                    /* every gate q of the head (dh columns, G·D apart by row) at once: all of a
                     * thread's copies in flight together (one L2 round trip), then waited for */
                    constexpr int per = 16 / sizeof(T);
                    wx.each(G, [&](int q, int n, int j) {
                        const bool ok = b0 + n < B;
                        cp16(dop + n * L + q * dh + per * j, ok ? src + (int64_t)(b0 + n) * G * D + q * D + per * j : src, ok);
                    });
                    cp_commit();
                    cp_wait_all();
                }
            }
        }
        PROBE(2);
        /* The step's one barrier: it publishes dL/d(R h) to the products and step t-1's inputs
         * to the next cell; what the next step overwrites before its own barrier (the prefetch
         * stage of step t, the operand buffer of step t+1) was last read before this one. */
        if (!own) {
            cp_wait_next();
            if (cl) cluster_barrier();   /* with clusters, the same barrier for the whole cluster */
            else __syncthreads();
        }
        PROBE(3);
        for (int nt = 0; nt < bt / 8; nt++) {
            float acc[4];
            bwd_products<T, NK>(acc, ra, dop, nt, L, kw * G * KS, lane);
            if (g.wk > 1) {
                float *rd = red + (int64_t)(((nt & 1) * g.gpb + grp) * g.wk) * RED_SLOT;
                if (half == 0 && g.spread)
#pragma unroll
                    for (int e = 0; e < 4; e++) rd[kw * RED_SLOT + (c0 + (e & 1)) * RED_PITCH + r0 + 8 * (e >> 1)] = acc[e];
                else if (half == 0)
                    *reinterpret_cast<float4 *>(rd + kw * RED_SLOT + lane * 4) = make_float4(acc[0], acc[1], acc[2], acc[3]);
                __syncthreads();
                if (g.spread) {   /* the position's wk partial sums, in kw order as below */
                    if (spreader) {
                        float sum = 0.0f;
#pragma unroll 4
                        for (int j = 0; j < g.wk; j++) sum += rd[j * RED_SLOT + sn * RED_PITCH + srow];
                        dhs[(nt * 8 + sn) * P + gu + srow] += sum;
                    }
                    continue;
                }
                if (kw == 0)
                    for (int j = 1; j < g.wk; j++) {
                        float4 v = *reinterpret_cast<const float4 *>(rd + j * RED_SLOT + lane * 4);
                        acc[0] += v.x, acc[1] += v.y, acc[2] += v.z, acc[3] += v.w;
                    }
            }
            if (kw == 0) bwd_add_fragment(g, acc, dhs, nt, P, gu, half, c0, r0);
        }
    }
    PROBE(4);
    PROBE_END(1);
    if (mcast) cluster_barrier();   /* no copy into a block of the cluster is left when it exits */
    if (g.spread) __syncthreads();   /* the spread threads' last sums, to warp kw = 0 */
    if (kw == 0)
        bwd_store_initial<G, IsSlstm<Cell>::value, T>(a, g, dhs, dcs, bt, P, b0, B, D, ub, gu, half, c0, r0);
}

/* The kernels: whole heads, and split heads capped at FLASHRNN_MAX_REGS (as the forward's). */
template <class Cell, typename T, int KS>
__global__ void flashrnn_bwd_kernel(const flashrnn_fused_args a, const Geo g) { backward_pass<Cell, T, KS, false>(a, g); }
template <class Cell, typename T, int KS>
__global__ void __maxnreg__(FLASHRNN_MAX_REGS) flashrnn_bwd_split_kernel(const flashrnn_fused_args a, const Geo g)
{
    backward_pass<Cell, T, KS, true>(a, g);
}

template <class Cell, typename T, int KS> PassKernels backward_kernels()
{
    return {{flashrnn_bwd_kernel<Cell, T, KS>, flashrnn_bwd_split_kernel<Cell, T, KS>}, {NULL, NULL}};
}
#define FLASHRNN_BACKWARD_ROW(C, T, K) template PassKernels backward_kernels<C, T, K>();
FLASHRNN_INSTANCES(FLASHRNN_BACKWARD_ROW)

#ifdef FLASHRNN_PROBE
cudaError_t backward_probe(long long (*cycles)[PROBE_PHASES], long long *ns) { return probe_read(1, cycles, ns); }
#endif
