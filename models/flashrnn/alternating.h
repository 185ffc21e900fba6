/* alternating.h — flashrnn's alternating path on CUDA (alternating.cu): per step a GEMM over
 * the heads and a pointwise kernel; the only path of the elman cell. The fused
 * kernels' arguments (fused.h) carry what both paths share: W x, h, the saved gates and
 * states, the gradients' buffers. */
#ifndef LOGT_FLASHRNN_ALTERNATING_H
#define LOGT_FLASHRNN_ALTERNATING_H

#include "../../core/ctx.h"
#include "flashrnn.h"
#include "fused.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The path's own buffers, kept between calls. */
typedef struct flashrnn_alt_scratch {
    logt_tensor rh, pk;       /* [H][B][G·dh] f32 R h of a step; dtype packed dRA of a step      */
    logt_tensor dhr, dcr;     /* [B][D] f32 dL/dh_{t-1} through R; [B][NST·D] dL/d(states)       */
    logt_tensor st0;          /* [B][NST·D] f32 states before step 0 (made by the forward)       */
    logt_tensor nm0;          /* slstm: [2][B][D] f32 n0, m0 from the host                        */
    logt_tensor dtmp;         /* [B][D] f32: one state's gradient gathered from dcr               */
} flashrnn_alt_scratch;

/* The recurrence over a->T steps from a->wx (W x, without b), writing h, the saved gates a->s
 * and the states a->c, for m's cell and a->dtype. */
logt_status flashrnn_alt_forward(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                                 const flashrnn_fused_args *a);
/* Back through the steps from a->dH (and a->dhT, a->dcT into the last step, where given):
 * a->dxa (and the gru's a->dra), a->dh0, a->dc0 and the slstm's m->dn0, m->dm0 where given. */
logt_status flashrnn_alt_backward(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                                  const flashrnn_fused_args *a);
void flashrnn_alt_free(flashrnn_alt_scratch *sc);

/* The slstm's states before step 0 into sc->st0 [B][3·D] fp32 (c from a->c0, n0 and m0 from
 * the model, zeros where not given), for either path's forward and backward. */
logt_status flashrnn_alt_slstm_initial(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                                       const flashrnn_fused_args *a);
/* The slstm's dn0, dm0 (planes 1 and 2 of sc->dcr, [B][3·D] fp32) into the model's host
 * float64 tensors, where n0, m0 were given: after either path's backward. */
logt_status flashrnn_alt_slstm_state_grads(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                                           int64_t B, int64_t D);

#ifdef __cplusplus
}
#endif
#endif
