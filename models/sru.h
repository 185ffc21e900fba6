/* sru.h — the Simple Recurrent Unit (Lei, Zhang, Wang, Dai & Artzi, "Simple Recurrent Units
 * for Highly Parallelizable Recurrence", EMNLP 2018, arXiv 1709.02755): every weight
 * multiplies the input only, so one product covers all T steps; what is left across time is
 * element-wise. The EMNLP form (paper §2, the SRU equations):
 *
 *   z_t = W x_t                                        the candidate ("W x_t" in the paper)
 *   f_t = σ(W_f x_t + v_f ⊙ c_{t-1} + b_f)            forget gate
 *   r_t = σ(W_r x_t + v_r ⊙ c_{t-1} + b_r)            reset (highway) gate
 *   c_t = f_t ⊙ c_{t-1} + (1 − f_t) ⊙ z_t
 *   h_t = r_t ⊙ c_t + (1 − r_t) ⊙ α x'_t               x'_t = x_t when I == D, else W_p x_t
 *
 * Knobs (values checked in layout, the error names the valid ones):
 *   v = on | zero           on (default): the EMNLP 2018 form. zero: the 2017 form, v ≡ 0,
 *                           no v parameters; c_t is then a linear recurrence in c.
 *   route = auto | loop | scan
 *                           how c is computed: loop walks t with both gates per step; scan
 *                           (v = zero only) makes f of every step at once and runs the
 *                           shared linear scan (kernels/scan.h) with a = f, b = (1 − f) ⊙ z.
 *                           auto = scan when v = zero, else loop. loop exists to test scan.
 *   highway_scale = off | sqrt3 | a positive number
 *                           α above. off (default) is α = 1. √3 is the scaling correction
 *                           for a highway bias initialised at 0 as the authors' code has it
 *                           (the paper's own text on it, §3.2, was not checked here): their code (asappresearch/sru,
 *                           sru/modules.py: scale_x = √(1 + 2·exp(highway_bias)), rescale =
 *                           True by default) applies it to x when I == D and, when I != D,
 *                           folds it into W_p's initial values. We apply α at run time in
 *                           both cases, as the paper writes it: the same at initialisation,
 *                           one multiply per element, and one formula for both shapes.
 *
 * Parameters, in this order (W and Wp adjacent: [W; Wp] is one [4D][I] matrix, one GEMM):
 *   W  [3D][I]  rows 0..D-1 W (candidate z), D..2D-1 W_f, 2D..3D-1 W_r (the authors' U order)
 *   Wp [D][I]   only when I != D: the projection of x on the highway path (a parameter)
 *   v  [2D]     only when v = on: v_f then v_r
 *   b  [2D]     b_f then b_r
 * Initialisation: W, Wp, b uniform ±1/√D like every logt model (the authors: W ±√(3/I),
 * gate rows × √½, b = 0). v uniform ±√(3/2), the authors' choice (variance ½, independent of
 * D: it multiplies one scalar of c, not a sum over D).
 *
 * State: SRU's recurrent state is c alone (h never feeds back), so nstate = 1 and the
 * model.h slot h0 holds c_{-1}; dh0 receives dL/dc_{-1}. A cell state c0 is refused.
 *
 * Activations are kept as planes [K][T·B][D] (z, f, r, and W_p x when I != D), so each plane
 * is the [T][C] array (C = B·D) the scan takes.
 */
#ifndef LOGT_SRU_H
#define LOGT_SRU_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sru_opts {
    int v_on;       /* 1: v_f, v_r are parameters; 0: v ≡ 0 (the 2017 form)   */
    int use_scan;   /* the route taken for c: 1 scan, 0 loop                  */
    double alpha;   /* highway scale α                                        */
} sru_opts;

typedef struct sru_model {
    logt_model base;
    sru_opts o;
    logt_tensor x, h;   /* views of forward's input and output, kept for backward          */
    logt_tensor gates;  /* [K][T·B][D]: z, activated f, activated r, (W_p x when I != D)   */
    logt_tensor c;      /* [T][B][D] cell states                                            */
} sru_model;

/* The knobs of cfg, checked: an error names the valid values. */
logt_status sru_parse_knobs(const logt_model_cfg *cfg, sru_opts *out);
logt_status logt_sru_layout(const logt_model_cfg *cfg, logt_layout *out);

logt_status sru_forward_cpu(sru_model *m, const logt_tensor *x, logt_tensor *h);
logt_status sru_backward_cpu(sru_model *m, const logt_tensor *dh, logt_tensor *dx);

#ifdef __cplusplus
}
#endif
#endif
