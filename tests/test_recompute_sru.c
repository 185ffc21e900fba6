/* test_recompute_sru.c — recompute = K (net.c) for sru: a training pass in segments against
 * the plain pass (recompute.h). The nets have two layers, so the first has a projection
 * (I = 3 != D = 4, or I = 7 != D = 24) and the second none (I == D).
 *
 * CPU: the same bits on every route: the recurrence's carry across a segment's end is the one
 * the whole sequence carries, and the weight sums run from the last row to the first
 * (dense_cpu.c). route = newton too: its solve starts each segment from zeros, but the gates
 * and c are then recomputed step by step from the solved c_{t-1}, as the loop does.
 * CUDA: the segments round the state handed over to the dtype (the plain pass keeps c in
 * f32 within a layer) and sum the weight gradients in another order: f32 to 2e-5, bf16 and
 * f16 to 3e-2 (a few roundings of 2^-8 handed between segments and layers). */
#include "recompute.h"

Test(recompute_sru, cpu_loop_same_bits) { cpu_case("sru", NULL, NULL, 0); }
Test(recompute_sru, cpu_loop_scaled_same_bits) { cpu_case("sru", NULL, "highway_scale=sqrt3", 0); }
Test(recompute_sru, cpu_v_zero_scan_same_bits) { cpu_case("sru", NULL, "v=zero", 0); }
Test(recompute_sru, cpu_v_zero_loop_same_bits) { cpu_case("sru", NULL, "v=zero,route=loop", 0); }

Test(recompute_sru, cpu_newton_same_bits) { cpu_case("sru", NULL, "route=newton", 0); }

static const char *const CUDA_RCS[] = {"8", "1", "36", "auto", "100", NULL};

static void cuda_case(const char *knobs, logt_dtype dt, double tol)
{
    for (int state = 0; state < 2; state++) {
        setup s = {"sru", NULL, knobs, LOGT_CUDA, dt, 37, 5, 7, 24, 0, 2, state};
        expect_same(&s, CUDA_RCS, tol);
    }
}

Test(recompute_sru, cuda_f32_matches)
{
    SKIP_WITHOUT_GPU("sru recompute (f32)");
    cuda_case(NULL, LOGT_F32, 2e-5);
    cuda_case("v=zero", LOGT_F32, 2e-5);
    cuda_case("v=zero,route=loop", LOGT_F32, 2e-5);
    cuda_case("math=3xtf32", LOGT_F32, 2e-5);
}

/* route = newton stops at a residual of 1e-6 of c's size, from zeros in every segment */
Test(recompute_sru, cuda_newton_matches)
{
    SKIP_WITHOUT_GPU("sru recompute (route = newton)");
    cuda_case("route=newton", LOGT_F32, 1e-4);
}

Test(recompute_sru, cuda_16bit_matches)
{
    SKIP_WITHOUT_GPU("sru recompute (bf16, f16)");
    const logt_dtype dts[] = {LOGT_BF16, LOGT_F16};
    for (int i = 0; i < 2; i++) {
        cuda_case(NULL, dts[i], 3e-2);
        cuda_case("v=zero", dts[i], 3e-2);
    }
}
