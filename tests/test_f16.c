/* test_f16.c — the f16 dtype: its host rounding, its name, its conversions on both devices,
 * and the one check that refuses it, with a message naming what is taken, in every model that
 * does not declare it (all but lstm-cudnn, sru, gilr and gilr-lstm, on cuda). Tests that need a
 * GPU skip themselves without one.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tensor.h"
#include "../models/model.h"
#include "gpu.h"

/* The value of f16 bit pattern h, computed independently of logt_f16_to_f32. */
static double f16_value(uint16_t h)
{
    const int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0x1f ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return s ? -v : v;
}

Test(f16, rounds_to_nearest_even)
{
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(1.0f)), 1.0f);
    /* 1 + 2^-11 lies exactly between two f16 values (spacing 2^-10): ties go to even (1.0). */
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(1.0f + 0x1p-11f)), 1.0f);
    /* 1 + 3*2^-11 lies between 1+2^-10 and 1+2^-9: ties to even, 1 + 2^-9. */
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(1.0f + 3 * 0x1p-11f)), 1.0f + 0x1p-9f);
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(-2.5f)), -2.5f);
    /* the largest finite value, and the tie above it, which rounds to infinity */
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(65504.0f)), 65504.0f);
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(65519.0f)), 65504.0f);
    cr_assert(isinf(logt_f16_to_f32(logt_f32_to_f16(65520.0f))));
    cr_assert(isinf(logt_f16_to_f32(logt_f32_to_f16(-1e6f))) && logt_f16_to_f32(logt_f32_to_f16(-1e6f)) < 0);
    /* subnormals: 2^-24 is the smallest; 2^-25 ties to 0, just above it rounds up; 2^-14 is
     * the smallest normal, reached by rounding the largest subnormal's upper half */
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(0x1p-24f)), 0x1p-24f);
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(0x1p-25f)), 0.0f);
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(0x1.000002p-25f)), 0x1p-24f);
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(3 * 0x1p-25f)), 2 * 0x1p-24f);   /* tie: even */
    cr_assert_eq(logt_f16_to_f32(logt_f32_to_f16(0x1p-14f - 0x1p-26f)), 0x1p-14f);
    cr_assert_eq(logt_f32_to_f16(-0.0f), 0x8000);
    cr_assert(isnan(logt_f16_to_f32(logt_f32_to_f16(NAN))));
    cr_assert(isinf(logt_f16_to_f32(logt_f32_to_f16(INFINITY))));
}

/* Every one of the 65536 patterns: its value, and back to the same pattern (NaN to a NaN). */
Test(f16, every_pattern_round_trips)
{
    for (uint32_t h = 0; h < 65536; h++) {
        const float f = logt_f16_to_f32((uint16_t)h);
        const double want = f16_value((uint16_t)h);
        if (isnan(want)) {
            cr_assert(isnan(f) && isnan(logt_f16_to_f32(logt_f32_to_f16(f))), "pattern 0x%04x", h);
            continue;
        }
        cr_assert_eq((double)f, want, "pattern 0x%04x: %.9g, expected %.9g", h, f, want);
        cr_assert_eq(logt_f32_to_f16(f), h, "pattern 0x%04x came back as 0x%04x", h, logt_f32_to_f16(f));
    }
}

/* Floats spread over every binade f16 covers, and beyond: the pattern chosen is no farther
 * from f than its two neighbours, and on a tie it is the even one. */
Test(f16, rounds_to_the_nearest_pattern)
{
    uint32_t state = 12345;
    for (int i = 0; i < 200000; i++) {
        state = state * 1664525u + 1013904223u;
        const int e = (int)(state >> 27) - 27;   /* 2^-27 .. 2^4, then scaled up to 2^16 below */
        const float f = ldexpf(1.0f + (float)(state & 0xffffu) / 65536.0f, e + (i % 3 ? 0 : 11));
        const uint16_t h = logt_f32_to_f16(f);
        if (h == 0x7c00) {   /* infinity: f must round past 65504 */
            cr_assert(f >= 65520.0f, "%.9g became infinity", f);
            continue;
        }
        const double d = fabs(f16_value(h) - f);
        const double below = h > 0 ? fabs(f16_value(h - 1) - f) : INFINITY;
        const double above = h < 0x7bff ? fabs(f16_value(h + 1) - f) : INFINITY;
        cr_assert(d <= below && d <= above, "%.9g became %.9g (neighbours %.9g, %.9g)", f,
                  f16_value(h), h > 0 ? f16_value(h - 1) : NAN, f16_value(h + 1));
        if (d == below || d == above) cr_assert_eq(h & 1, 0, "%.9g: a tie rounded to odd", f);
    }
}

Test(f16, dtype_parsed_named_and_sized)
{
    logt_dtype dt = LOGT_F32;
    cr_assert_eq(logt_dtype_parse("f16", &dt), LOGT_OK);
    cr_assert_eq(dt, LOGT_F16);
    dt = LOGT_F32;
    cr_assert_eq(logt_dtype_parse("float16", &dt), LOGT_OK);
    cr_assert_eq(dt, LOGT_F16);
    cr_assert_str_eq(logt_dtype_name(LOGT_F16), "f16");
    cr_assert_eq(logt_dtype_size(LOGT_F16), 2);
    cr_assert_eq(logt_dtype_parse("f8", &dt), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "'f8'") && strstr(logt_errmsg(), "bf16 or f16"), "%s", logt_errmsg());
}

/* Values exact in f32 or far from an f16 tie, so that f64 -> f16 in one rounding (the device)
 * and through f32 (the host) agree: ties, subnormals, the largest finite value, one that
 * overflows. */
static const double probe[] = {0.5, -1.25, 1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11, 0x1p-24, 3 * 0x1p-25,
                               65504.0, 65520.0, -7.0e-3, 1234.5678};
#define NPROBE ((int)(sizeof probe / sizeof probe[0]))

static void expect_rounded(const double *got, const char *how)
{
    for (int i = 0; i < NPROBE; i++) {
        const double want = logt_f16_to_f32(logt_f32_to_f16((float)probe[i]));
        cr_expect(got[i] == want, "%s: %.9g became %.9g, expected %.9g", how, probe[i], got[i], want);
    }
}

Test(f16, host_copy_rounds)
{
    logt_tensor a, h, b;
    cr_assert_eq(logt_tensor_new1(&a, LOGT_CPU, LOGT_F64, NPROBE), LOGT_OK);
    cr_assert_eq(logt_tensor_new1(&h, LOGT_CPU, LOGT_F16, NPROBE), LOGT_OK);
    cr_assert_eq(logt_tensor_new1(&b, LOGT_CPU, LOGT_F32, NPROBE), LOGT_OK);
    double back[NPROBE];
    cr_assert_eq(logt_tensor_from_f64(&a, probe), LOGT_OK);
    cr_assert_eq(logt_tensor_copy(&h, &a), LOGT_OK);
    cr_assert_eq(logt_tensor_copy(&b, &h), LOGT_OK);
    cr_assert_eq(logt_tensor_to_f64(&b, back), LOGT_OK);
    expect_rounded(back, "cpu f64 -> f16 -> f32");
    logt_tensor_free(&a), logt_tensor_free(&h), logt_tensor_free(&b);
}

/* On the device: f64 -> f16 and f16 -> f32, f16 <-> bf16 by the conversion kernels, and a
 * copy across devices into f16 (host staging), each against the host's rounding. */
Test(f16, cuda_conversions_round_as_the_host)
{
    SKIP_WITHOUT_GPU("f16 conversions on the GPU");
    logt_tensor a, h, f, h2, bf;
    cr_assert_eq(logt_tensor_new1(&a, LOGT_CUDA, LOGT_F64, NPROBE), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_new1(&h, LOGT_CUDA, LOGT_F16, NPROBE), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_new1(&f, LOGT_CUDA, LOGT_F32, NPROBE), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_new1(&h2, LOGT_CUDA, LOGT_F16, NPROBE), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_new1(&bf, LOGT_CUDA, LOGT_BF16, NPROBE), LOGT_OK, "%s", logt_errmsg());
    double back[NPROBE];
    cr_assert_eq(logt_tensor_from_f64(&a, probe), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_copy(&h, &a), LOGT_OK, "%s", logt_errmsg());   /* the kernel */
    cr_assert_eq(logt_tensor_copy(&f, &h), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_to_f64(&f, back), LOGT_OK, "%s", logt_errmsg());
    expect_rounded(back, "cuda f64 -> f16 -> f32");
    cr_assert_eq(logt_tensor_from_f64(&h2, probe), LOGT_OK, "%s", logt_errmsg());   /* staged */
    cr_assert_eq(logt_tensor_to_f64(&h2, back), LOGT_OK, "%s", logt_errmsg());
    expect_rounded(back, "host f64 -> cuda f16 -> host f64");
    /* f16 -> bf16 -> f64: bf16 rounds the f16 value again (8 bits), on the host alike */
    cr_assert_eq(logt_tensor_copy(&bf, &h), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_to_f64(&bf, back), LOGT_OK, "%s", logt_errmsg());
    for (int i = 0; i < NPROBE; i++) {
        const float v = logt_f16_to_f32(logt_f32_to_f16((float)probe[i]));
        const double want = isinf(v) ? v : logt_bf16_to_f32(logt_f32_to_bf16(v));
        cr_expect(back[i] == want, "cuda f16 -> bf16: %.9g became %.9g, expected %.9g", probe[i], back[i], want);
    }
    logt_tensor_free(&a), logt_tensor_free(&h), logt_tensor_free(&f), logt_tensor_free(&h2);
    logt_tensor_free(&bf);
}

/* The models with an f16 path on cuda. */
static const char *const f16_models[] = {"lstm-cudnn", "sru", "gilr", "gilr-lstm", "flashrnn"};
#define NF16 ((int)(sizeof f16_models / sizeof f16_models[0]))

static int has_f16_path(const char *name)
{
    for (int i = 0; i < NF16; i++)
        if (!strcmp(f16_models[i], name)) return 1;
    return 0;
}

/* f16 is declared on cuda by the models of f16_models alone; every other model, on each backend
 * it runs on, refuses it in the one check (no GPU needed), naming itself, the dtype and what it
 * takes. */
Test(f16, refused_by_every_model_that_does_not_declare_it)
{
    int takers = 0;
    for (int i = 0; i < logt_model_count(); i++) {
        const logt_model_ops *ops = logt_model_at(i);
        for (int d = LOGT_CPU; d <= LOGT_CUDA; d++) {
            if (!(ops->devices & LOGT_BIT(d))) continue;
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, ops->name, (logt_device)d, 5, 8);
            cfg.dtype = LOGT_F16;
            logt_status s = logt_model_check(ops, &cfg);
            if (ops->dtypes[d] & LOGT_BIT(LOGT_F16)) {
                takers++;
                cr_expect_eq(s, LOGT_OK, "%s on %s declares f16 but refuses it: %s", ops->name,
                             logt_device_name((logt_device)d), logt_errmsg());
                continue;
            }
            cr_expect_eq(s, LOGT_EUNSUPPORTED, "%s on %s: %s", ops->name, logt_device_name((logt_device)d),
                         logt_errmsg());
            const char *m = logt_errmsg();
            char want[64];
            snprintf(want, sizeof want, "%s on %s", ops->name, logt_device_name((logt_device)d));
            cr_expect(strstr(m, want) && strstr(m, "not f16") && strstr(m, "set dtype = "), "%s", m);
            for (int t = 0; t < LOGT_NDTYPES; t++)   /* every dtype it takes is named */
                if (ops->dtypes[d] & LOGT_BIT(t))
                    cr_expect(strstr(m, logt_dtype_name((logt_dtype)t)), "%s: should name %s", m,
                              logt_dtype_name((logt_dtype)t));
        }
        cr_expect(!(ops->dtypes[LOGT_CUDA] & LOGT_BIT(LOGT_F16)) || has_f16_path(ops->name),
                  "%s declares f16 and has no f16 path", ops->name);
        cr_expect(!(ops->dtypes[LOGT_CPU] & LOGT_BIT(LOGT_F16)), "%s declares f16 on the cpu", ops->name);
    }
    cr_expect_eq(takers, NF16, "lstm-cudnn, sru, gilr, gilr-lstm and flashrnn on cuda should be the models "
                               "taking f16");
}

/* Through logt_net_create, as a run makes its net: the messages a user reads. */
Test(f16, net_create_names_what_the_model_takes)
{
    static const struct { const char *model, *want; } cases[] = {
        {"lstm", "lstm on cuda computes in f32, not f16: set dtype = f32"},
        {"deer", "deer on cuda computes in f32, not f16: set dtype = f32"},
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, cases[i].model, LOGT_CUDA, 5, 8);
        cfg.dtype = LOGT_F16;
        logt_net *net = NULL;
        cr_expect_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED, "%s: %s", cases[i].model, logt_errmsg());
        cr_expect(strstr(logt_errmsg(), cases[i].want), "%s: '%s' should contain '%s'", cases[i].model,
                  logt_errmsg(), cases[i].want);
        logt_net_destroy(net);
    }
}
