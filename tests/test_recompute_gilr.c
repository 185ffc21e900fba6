/* test_recompute_gilr.c — recompute = K (net.c) for gilr and gilr-lstm: a training pass in
 * segments against the plain pass (recompute.h). gilr hands h from segment to segment,
 * gilr-lstm the surrogate h̃ (h0's slot) and c (c0's). gilr's backward restores a segment
 * from its output (f32, f64), gilr-lstm's runs it forward again.
 *
 * CPU: the same bits. The reversed scans start from the carry the whole sequence's scans
 * would add at that step, gilr-lstm's dL/dh̃_{-1} adds the gates' share summed first (as
 * a row of dL/dh̃ is in a longer sequence), and the weight sums run from the last row to the
 * first (dense_cpu.c).
 * CUDA: the scans of a segment group their steps otherwise than the whole sequence's, and the
 * weight gradients sum over rows in other chunks: f32 to 2e-5. In bf16 and f16 the states and
 * carries handed between segments are rounded to the dtype (the plain pass keeps them in f32
 * within a layer): 3e-2. */
#include "recompute.h"

Test(recompute_gilr, gilr_cpu_same_bits) { cpu_case("gilr", NULL, NULL, 0); }
Test(recompute_gilr, gilr_lstm_cpu_same_bits) { cpu_case("gilr-lstm", NULL, NULL, 0); }

/* gilr's state is its output: the backward restores a segment's planes from x (ops->restore)
 * and runs no scan of it again; gilr-lstm's h̃ and c are not in its output, so it runs each
 * segment but the last forward again. T = 10, K = 3: 4 segments, 2 layers. */
static void expect_paths(logt_device dev, logt_dtype dt, int gilr_restores)
{
    const char *const models[] = {"gilr", "gilr-lstm"};
    for (int i = 0; i < 2; i++) {
        const setup s = {models[i], NULL, NULL, dev, dt, 10, 2, 3, 8, 0, 2, 1};
        pass p = run(&s, "3");
        const int r = i == 0 && gilr_restores;
        cr_assert(p.S == 4 && p.restored == (r ? 6 : 0) && p.recomputed == (r ? 0 : 6),
                  "%s %s: %lld segments, %lld restored, %lld run again", models[i], logt_dtype_name(dt),
                  (long long)p.S, (long long)p.restored, (long long)p.recomputed);
        free_pass(&p);
    }
}

Test(recompute_gilr, cpu_gilr_restores) { expect_paths(LOGT_CPU, LOGT_F64, 1); }

/* on cuda f32 as on the cpu; in 16 bits the backward reads f32 states that h only rounds, so
 * gilr runs the forward again there */
Test(recompute_gilr, cuda_gilr_restores_in_f32)
{
    SKIP_WITHOUT_GPU("gilr restore");
    expect_paths(LOGT_CUDA, LOGT_F32, 1);
    expect_paths(LOGT_CUDA, LOGT_BF16, 0);
}

static const char *const CUDA_RCS[] = {"8", "1", "36", "auto", "100", NULL};

static void cuda_case(const char *model, const char *knobs, logt_dtype dt, double tol)
{
    for (int state = 0; state < 2; state++) {
        setup s = {model, NULL, knobs, LOGT_CUDA, dt, 37, 5, 7, 24, 0, 2, state};
        expect_same(&s, CUDA_RCS, tol);
    }
}

Test(recompute_gilr, cuda_f32_matches)
{
    SKIP_WITHOUT_GPU("gilr, gilr-lstm recompute (f32)");
    cuda_case("gilr", NULL, LOGT_F32, 2e-5);
    cuda_case("gilr", "scan=serial", LOGT_F32, 2e-5);
    cuda_case("gilr-lstm", NULL, LOGT_F32, 2e-5);
    cuda_case("gilr-lstm", "scan=serial", LOGT_F32, 2e-5);
}

Test(recompute_gilr, cuda_16bit_matches)
{
    SKIP_WITHOUT_GPU("gilr, gilr-lstm recompute (bf16, f16)");
    const logt_dtype dts[] = {LOGT_BF16, LOGT_F16};
    for (int i = 0; i < 2; i++) {
        cuda_case("gilr", NULL, dts[i], 3e-2);
        cuda_case("gilr-lstm", NULL, dts[i], 3e-2);
    }
}
