/* test_core.c — tensors, dtype conversion, rng, parameter init and model configuration. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../core/tensor.h"
#include "../models/model.h"
#include "gpu.h"

Test(core, bf16_rounds_to_nearest_even)
{
    cr_assert_eq(logt_bf16_to_f32(logt_f32_to_bf16(1.0f)), 1.0f);
    /* 1 + 2^-8 lies exactly between two bf16 values (spacing 2^-7): ties go to even (1.0). */
    cr_assert_eq(logt_bf16_to_f32(logt_f32_to_bf16(1.0f + 0x1p-8f)), 1.0f);
    /* 1 + 3*2^-8 lies between 1+2^-7 and 1+2^-6: ties to even, 1 + 2^-6. */
    cr_assert_eq(logt_bf16_to_f32(logt_f32_to_bf16(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);
    cr_assert(isnan(logt_bf16_to_f32(logt_f32_to_bf16(NAN))));
    cr_assert(isinf(logt_bf16_to_f32(logt_f32_to_bf16(INFINITY))));
}

Test(core, copy_converts_dtypes)
{
    logt_tensor a, b, c;
    cr_assert_eq(logt_tensor_new2(&a, LOGT_CPU, LOGT_F64, 2, 3), LOGT_OK);
    cr_assert_eq(logt_tensor_new2(&b, LOGT_CPU, LOGT_F32, 3, 2), LOGT_OK);
    cr_assert_eq(logt_tensor_new1(&c, LOGT_CPU, LOGT_BF16, 6), LOGT_OK);
    double v[6] = {0.5, -1.25, 3.0, 1e-3, 7.0, -2.0}, back[6];
    cr_assert_eq(logt_tensor_from_f64(&a, v), LOGT_OK);
    cr_assert_eq(logt_tensor_copy(&b, &a), LOGT_OK);
    cr_assert_eq(logt_tensor_copy(&c, &b), LOGT_OK);
    cr_assert_eq(logt_tensor_to_f64(&c, back), LOGT_OK);
    for (int i = 0; i < 6; i++) cr_assert_float_eq(back[i], v[i], fabs(v[i]) * 0x1p-8, "element %d", i);
    logt_tensor d;
    cr_assert_eq(logt_tensor_new1(&d, LOGT_CPU, LOGT_F32, 5), LOGT_OK);
    cr_assert_eq(logt_tensor_copy(&d, &a), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "6") && strstr(logt_errmsg(), "5"), "%s", logt_errmsg());
    logt_tensor_free(&a), logt_tensor_free(&b), logt_tensor_free(&c), logt_tensor_free(&d);
}

Test(core, views_share_storage)
{
    logt_tensor a;
    cr_assert_eq(logt_tensor_new1(&a, LOGT_CPU, LOGT_F64, 12), LOGT_OK);
    for (int i = 0; i < 12; i++) ((double *)a.data)[i] = i;
    int64_t shape[2] = {2, 3};
    logt_tensor v = logt_tensor_view(&a, 6, 2, shape);
    cr_assert_eq(v.numel, 6);
    cr_assert_eq(((double *)v.data)[0], 6.0);
    cr_assert_eq(v.owns, 0);
    logt_tensor_free(&v);   /* frees nothing */
    cr_assert_eq(((double *)a.data)[11], 11.0);
    logt_tensor_free(&a);
}

Test(core, rng_is_counter_based_and_uniform)
{
    cr_assert_eq(logt_uniform(7, 3, 100), logt_uniform(7, 3, 100));
    cr_assert_neq(logt_uniform(7, 3, 100), logt_uniform(8, 3, 100));
    cr_assert_neq(logt_uniform(7, 3, 100), logt_uniform(7, 4, 100));
    double sum = 0, sq = 0;
    int n = 100000;
    for (int i = 0; i < n; i++) {
        double u = logt_uniform(1, 0, (uint64_t)i);
        cr_assert(u >= 0 && u < 1);
        sum += u, sq += u * u;
    }
    /* mean 1/2, variance 1/12; 5 standard errors */
    cr_assert_float_eq(sum / n, 0.5, 5 * sqrt(1.0 / 12 / n));
    cr_assert_float_eq(sq / n - (sum / n) * (sum / n), 1.0 / 12, 0.002);
}

Test(core, seed_gives_the_same_parameters)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 3, 5);
    cfg.layers = 2;
    cfg.seed = 42;
    logt_net *a, *b;
    cr_assert_eq(logt_net_create(&cfg, &a), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_create(&cfg, &b), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(memcmp(a->w.data, b->w.data, logt_tensor_bytes(&a->w)), 0);
    /* sizes: per layer W[4D][I], R[4D][D], b[4D] */
    cr_assert_eq(a->w.numel, (4 * 5 * 3 + 4 * 5 * 5 + 4 * 5) + (4 * 5 * 5 + 4 * 5 * 5 + 4 * 5));
    double bound = 1 / sqrt(5.0);
    const double *w = a->w.data;
    for (int64_t i = 0; i < a->w.numel; i++) cr_assert(fabs(w[i]) <= bound);
    cfg.seed = 43;
    logt_net *c;
    cr_assert_eq(logt_net_create(&cfg, &c), LOGT_OK);
    cr_assert_neq(memcmp(a->w.data, c->w.data, logt_tensor_bytes(&a->w)), 0);
    char name[64];
    int64_t off, n;
    cr_assert_eq(logt_net_nslices(a), 6);
    cr_assert_eq(logt_net_slice(a, 4, name, sizeof name, &off, &n), LOGT_OK);
    cr_assert_str_eq(name, "l1.R");
    cr_assert_eq(n, 100);
    logt_net_destroy(a), logt_net_destroy(b), logt_net_destroy(c);
}

/* ---- bad configurations are refused with a message that says what would be right ---- */

static logt_status make(const char *model, logt_device dev, int I, int D, int head_dim,
                        const char *knob, const char *val)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, model, dev, I, D);
    cfg.head_dim = head_dim;
    if (knob) logt_cfg_set_knob(&cfg, knob, val);
    logt_net *net = NULL;
    logt_status s = logt_net_create(&cfg, &net);
    logt_net_destroy(net);
    return s;
}

Test(core, unknown_model_lists_the_known_ones)
{
    cr_assert_eq(make("lsmt", LOGT_CPU, 2, 4, 0, NULL, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "unknown model 'lsmt'") && strstr(logt_errmsg(), "lstm"), "%s",
              logt_errmsg());
}

Test(core, head_dim_must_divide_hidden)
{
    cr_assert_eq(make("flashrnn", LOGT_CPU, 2, 12, 5, NULL, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "head dim 5 does not divide the hidden size D = 12"), "%s",
              logt_errmsg());
    cr_assert(strstr(logt_errmsg(), "1, 2, 3, 4, 6, 12"), "%s", logt_errmsg());
}

Test(core, unknown_knob_is_named)
{
    cr_assert_eq(make("lstm", LOGT_CPU, 2, 4, 0, "algo", "standard"), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "model lstm has no setting 'algo'"), "%s", logt_errmsg());
}

Test(core, sizes_must_be_positive)
{
    cr_assert_eq(make("lstm", LOGT_CPU, 2, 0, 0, NULL, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "hidden size D = 0"), "%s", logt_errmsg());
    cr_assert_eq(make("lstm", LOGT_CPU, 0, 4, 0, NULL, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "input size 0"), "%s", logt_errmsg());
}

Test(core, empty_sequence_is_refused)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 2, 4);
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK);
    logt_tensor x;
    cr_assert_eq(logt_tensor_new3(&x, LOGT_CPU, LOGT_F64, 0, 3, 2), LOGT_OK);
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "T = 0") && strstr(logt_errmsg(), "T >= 1"), "%s", logt_errmsg());
    logt_tensor_free(&x);
    cr_assert_eq(logt_tensor_new3(&x, LOGT_CPU, LOGT_F64, 4, 3, 5), LOGT_OK);
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "width 5 but the model expects 2"), "%s", logt_errmsg());
    logt_tensor_free(&x);
    logt_net_destroy(net);
}

Test(core, cpu_reference_is_f64_only)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 2, 4);
    cfg.dtype = LOGT_F32;
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "set dtype = f64"), "%s", logt_errmsg());
}

Test(core, cuda_backend_without_gpu_is_a_clear_error)
{
    if (logt_backend_available(LOGT_CUDA)) cr_skip_test("a GPU is present: this checks the no-GPU message");
    logt_ctx *ctx = NULL;
    cr_assert_neq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK);
    cr_assert(strstr(logt_errmsg(), "--backend cpu"), "%s", logt_errmsg());
}

Test(core, one_seed_same_parameters_on_cpu_and_cuda)
{
    if (!logt_backend_available(LOGT_CUDA)) cr_skip_test("no GPU: skipping the CPU/CUDA parameter check");
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 7, 33);
    cfg.layers = 2;
    cfg.seed = 5;
    logt_net *cpu, *gpu;
    cr_assert_eq(logt_net_create(&cfg, &cpu), LOGT_OK, "%s", logt_errmsg());
    cfg.device = LOGT_CUDA;
    cfg.dtype = LOGT_F32;
    cr_assert_eq(logt_net_create(&cfg, &gpu), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(cpu->w.numel, gpu->w.numel);
    double *g = malloc(sizeof(double) * (size_t)gpu->w.numel);
    cr_assert_eq(logt_tensor_to_f64(&gpu->w, g), LOGT_OK, "%s", logt_errmsg());
    const double *c = cpu->w.data;
    for (int64_t i = 0; i < cpu->w.numel; i++)   /* the CUDA copy is the f64 value rounded to f32 */
        cr_assert_eq(g[i], (double)(float)c[i], "parameter %lld: %.17g vs %.17g", (long long)i, g[i], c[i]);
    free(g);
    logt_net_destroy(cpu), logt_net_destroy(gpu);
}

Test(core, uniform_fill_equals_the_counter_form)
{
    double v[100];
    logt_uniform_fill(9, 4, v, 100, -0.5, 0.5);
    for (int i = 0; i < 100; i++)
        cr_assert_float_eq(v[i], logt_uniform(9, 4, (uint64_t)i) - 0.5, 1e-16, "element %d", i);
}

Test(core, out_of_gpu_memory_is_a_clear_error)
{
    SKIP_WITHOUT_GPU("the out-of-GPU-memory message");
    logt_tensor t;
    size_t before = logt_mem_current();
    /* 2^40 floats = 4 TiB: more than any GPU has */
    cr_assert_eq(logt_tensor_new1(&t, LOGT_CUDA, LOGT_F32, (int64_t)1 << 40), LOGT_ENOMEM);
    cr_assert(strstr(logt_errmsg(), "out of GPU memory") && strstr(logt_errmsg(), "4096.000 GiB") &&
                  strstr(logt_errmsg(), "HINT"),
              "%s", logt_errmsg());
    cr_assert_eq(t.data, NULL);
    cr_assert_eq(logt_mem_current(), before, "a failed allocation must not count");
    /* and the GPU is still usable afterwards */
    cr_assert_eq(logt_tensor_new1(&t, LOGT_CUDA, LOGT_F32, 1024), LOGT_OK, "%s", logt_errmsg());
    logt_tensor_free(&t);
}

/* logt_tensor_onehot: ±e_k rows by hand on the cpu, every device and dtype against them
 * (±1 and 0 are exact in bf16, so equality), and the code out of range named. */
Test(core, onehot_rows_on_every_device_and_dtype)
{
    const int I = 5;
    const int32_t code[] = {0, 4, ~0, ~4, 2, ~2, 3};
    const int64_t n = sizeof code / sizeof code[0];
    double want[7 * 5] = {0};
    for (int64_t i = 0; i < n; i++) want[i * I + (code[i] < 0 ? ~code[i] : code[i])] = code[i] < 0 ? -1 : 1;
    const logt_device devs[] = {LOGT_CPU, LOGT_CUDA};
    const logt_dtype dts[] = {LOGT_F64, LOGT_F32, LOGT_BF16};
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 3; k++) {
            if (devs[d] == LOGT_CUDA && !logt_backend_available(LOGT_CUDA)) continue;
            if (devs[d] == LOGT_CUDA && dts[k] == LOGT_F64) continue;
            logt_tensor x;
            cr_assert_eq(logt_tensor_new2(&x, devs[d], dts[k], n, I), LOGT_OK, "%s", logt_errmsg());
            cr_assert_eq(logt_tensor_onehot(&x, code, I), LOGT_OK, "%s", logt_errmsg());
            double got[7 * 5];
            cr_assert_eq(logt_tensor_to_f64(&x, got), LOGT_OK, "%s", logt_errmsg());
            for (int64_t e = 0; e < n * I; e++)
                cr_assert_eq(got[e], want[e], "%s %s element %lld: %g, want %g", logt_device_name(devs[d]),
                             logt_dtype_name(dts[k]), (long long)e, got[e], want[e]);
            const int32_t bad[] = {0, 5, 1, 1, 1, 1, 1};
            cr_assert_eq(logt_tensor_onehot(&x, bad, I), LOGT_EINVAL);
            cr_assert(strstr(logt_errmsg(), "code 5 at row 1") && strstr(logt_errmsg(), "[-5, 5)"), "%s",
                      logt_errmsg());
            cr_assert_eq(logt_tensor_onehot(&x, code, 3), LOGT_EINVAL, "rows of 3 do not tile 35");
            logt_tensor_free(&x);
        }
}

/* A large one on the device: T·B rows of 128 (2b's shape at T = 4096, B = 8), random codes,
 * against the host's expansion. */
Test(core, onehot_large_on_the_gpu)
{
    SKIP_WITHOUT_GPU("one-hot rows written on the device");
    const int I = 128;
    const int64_t n = 4096 * 8;
    int32_t *code = malloc((size_t)n * sizeof *code);
    double *want = malloc((size_t)(n * I) * sizeof *want), *got = malloc((size_t)(n * I) * sizeof *got);
    cr_assert(code && want && got);
    logt_rng r = logt_rng_make(5, 0);
    for (int64_t i = 0; i < n; i++) {
        const int32_t k = (int32_t)logt_rng_below(&r, I);
        code[i] = logt_rng_below(&r, 2) ? ~k : k;
    }
    logt_tensor h = {.data = want, .dtype = LOGT_F64, .device = LOGT_CPU, .ndim = 1, .shape = {n * I},
                     .numel = n * I};
    cr_assert_eq(logt_tensor_onehot(&h, code, I), LOGT_OK, "%s", logt_errmsg());
    logt_tensor x;
    cr_assert_eq(logt_tensor_new2(&x, LOGT_CUDA, LOGT_F32, n, I), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_onehot(&x, code, I), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_to_f64(&x, got), LOGT_OK, "%s", logt_errmsg());
    cr_assert(!memcmp(got, want, (size_t)(n * I) * sizeof *got), "device rows differ from the host's");
    logt_tensor_free(&x);
    free(code), free(want), free(got);
}

/* logt_ctx_head_start keeps the GPU busy for the time asked: a timed region holding only a
 * 2 ms head start lasts 2 ms (and on the CPU it is a no-op). */
Test(core, head_start_holds_the_gpu_for_its_time)
{
    logt_ctx *cpu;
    cr_assert_eq(logt_ctx_create(LOGT_CPU, &cpu), LOGT_OK);
    cr_assert_eq(logt_ctx_head_start(cpu, 1000), LOGT_OK);
    cr_assert_neq(logt_ctx_head_start(cpu, -1), LOGT_OK, "a negative head start is refused");
    logt_ctx_destroy(cpu);
    SKIP_WITHOUT_GPU("the head start's kernel");
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    /* never shorter than asked; not much longer at best of three (a GPU shared with other
     * processes, as under a parallel suite, can stretch any one call) */
    double ms = 0, best = 1e30;
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(logt_timer_begin(ctx), LOGT_OK);
        cr_assert_eq(logt_ctx_head_start(ctx, 2000), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_timer_end(ctx, &ms), LOGT_OK, "%s", logt_errmsg());
        cr_expect(ms >= 1.99, "a 2000 us head start took only %.4f ms", ms);
        best = ms < best ? ms : best;
    }
    cr_expect(best < 2.5, "a 2000 us head start took at least %.4f ms in three calls", best);
    logt_ctx_destroy(ctx);
}

/* The context's device scratch (logt_ctx_workspace, logt_ctx_tagged) on a CPU context: a
 * clear error naming the context, no pointer, no call number. */
Test(core, device_scratch_needs_a_cuda_context)
{
    logt_ctx *cpu;
    cr_assert_eq(logt_ctx_create(LOGT_CPU, &cpu), LOGT_OK);
    void *p = (void *)1;
    uint32_t tag = 7;
    cr_assert_neq(logt_ctx_tagged(cpu, 64, &p, &tag), LOGT_OK);
    cr_assert(strstr(logt_errmsg(), "device memory") && strstr(logt_errmsg(), "cpu"), "%s", logt_errmsg());
    cr_assert(p == NULL && tag == 0, "p %p, tag %u", p, (unsigned)tag);
    p = (void *)1;
    cr_assert_neq(logt_ctx_workspace(cpu, 64, &p), LOGT_OK);
    cr_assert(strstr(logt_errmsg(), "device memory") && p == NULL, "%s", logt_errmsg());
    logt_ctx_destroy(cpu);
}
