/* fused_kernels.cuh — the instantiated fused kernels, as the launch (fused_launch.cu) sees
 * them: the one table of compiled sizes, and each pass's kernels of a row of it, returned by
 * a getter that fused_forward.cu and fused_backward.cu instantiate for every row. */
#ifndef LOGT_FLASHRNN_FUSED_KERNELS_CUH
#define LOGT_FLASHRNN_FUSED_KERNELS_CUH

#include "fused_common.cuh"

/* The only compile-time specialisation: (cell, dtype, k_slice). The registers R takes per
 * thread are G·k_slice/4 (bf16, f16) or G·k_slice/2 (tf32): 64 at most here. f16 has bf16's
 * k_slices (the same registers, the same tilings), and every cell the same k_slices. */
#define FLASHRNN_INSTANCES(X)                                                                   \
    X(LstmCell, bf16, 16) X(LstmCell, bf16, 32) X(LstmCell, bf16, 64)                          \
    X(LstmCell, float, 16) X(LstmCell, float, 32)                                              \
    X(GruCell, bf16, 16) X(GruCell, bf16, 32) X(GruCell, bf16, 64)                             \
    X(GruCell, float, 16) X(GruCell, float, 32)                                                \
    X(LstmCell, f16, 16) X(LstmCell, f16, 32) X(LstmCell, f16, 64)                             \
    X(GruCell, f16, 16) X(GruCell, f16, 32) X(GruCell, f16, 64)                                \
    X(SlstmCell, bf16, 16) X(SlstmCell, bf16, 32) X(SlstmCell, bf16, 64)                       \
    X(SlstmCell, float, 16) X(SlstmCell, float, 32)                                            \
    X(SlstmCell, f16, 16) X(SlstmCell, f16, 32) X(SlstmCell, f16, 64)                          \
    X(ElmanCell, bf16, 16) X(ElmanCell, bf16, 32) X(ElmanCell, bf16, 64)                       \
    X(ElmanCell, float, 16) X(ElmanCell, float, 32)                                            \
    X(ElmanCell, f16, 16) X(ElmanCell, f16, 32) X(ElmanCell, f16, 64)

/* The sLSTM's and the Elman cell's differences in the kernels (the sLSTM's more saved values
 * and states, the Elman's one gate and one saved value) are compiled in only where Cell is
 * theirs, so that the lstm's and gru's kernels do not carry them. */
template <class Cell> struct IsSlstm { static constexpr bool value = false; };
template <> struct IsSlstm<SlstmCell> { static constexpr bool value = true; };
template <class Cell> struct IsElman { static constexpr bool value = false; };
template <> struct IsElman<ElmanCell> { static constexpr bool value = true; };

/* the logt_dtype of a kernel's element type */
template <typename T> struct DtypeOf;
template <> struct DtypeOf<float> { static constexpr logt_dtype value = LOGT_F32; };
template <> struct DtypeOf<bf16> { static constexpr logt_dtype value = LOGT_BF16; };
template <> struct DtypeOf<f16> { static constexpr logt_dtype value = LOGT_F16; };

typedef void (*kernel_fn)(const flashrnn_fused_args, const Geo);

/* A pass's kernels of one row: head[0] whole heads (no exchange code), head[1] split heads
 * (grid or cluster); gates[w - 1] the split forward with w = 1 or 2 gates a warp, where the
 * row has it (lstm, bf16, k_slice 64), else NULL. */
struct PassKernels { kernel_fn head[2], gates[2]; };

template <class Cell, typename T, int KS> PassKernels forward_kernels();    /* fused_forward.cu */
template <class Cell, typename T, int KS> PassKernels backward_kernels();   /* fused_backward.cu */

#ifdef FLASHRNN_PROBE
/* the probe's sums of the pass's last launch, from its file's copy (probe_read) */
cudaError_t forward_probe(long long (*cycles)[PROBE_PHASES], long long *ns);
cudaError_t backward_probe(long long (*cycles)[PROBE_PHASES], long long *ns);
#endif

#endif
