/* test_model.c — every model's declared capabilities, and the one check of a configuration
 * against them (logt_model_check): each wrong thing gets its own message, the same for every
 * model, and a configuration inside the declaration passes it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../models/model.h"

/* cfg for model `name` on the first backend it declares, in that backend's first dtype. */
static void valid_cfg(const logt_model_ops *ops, logt_model_cfg *cfg)
{
    const logt_device dev = (ops->devices & LOGT_BIT(LOGT_CPU)) ? LOGT_CPU : LOGT_CUDA;
    logt_model_cfg_init(cfg, ops->name, dev, 3, 16);
    for (int d = LOGT_F64; d < LOGT_NDTYPES; d++)
        if (ops->dtypes[dev] & LOGT_BIT(d)) {
            cfg->dtype = (logt_dtype)d;
            break;
        }
}

static void expect(const logt_model_ops *ops, const logt_model_cfg *cfg, logt_status want,
                   const char *says)
{
    logt_errclear();
    logt_status s = logt_model_check(ops, cfg);
    cr_assert_eq(s, want, "%s: got %s (%s), want %s", ops->name, logt_status_name(s), logt_errmsg(),
                 logt_status_name(want));
    if (says) cr_assert(strstr(logt_errmsg(), says), "%s: got '%s', want '%s'", ops->name, logt_errmsg(), says);
}

Test(model, every_model_declares_what_it_takes)
{
    cr_assert_geq(logt_model_count(), 7);
    for (int i = 0; i < logt_model_count(); i++) {
        const logt_model_ops *ops = logt_model_at(i);
        cr_assert(ops->name && ops->summary && ops->layout && ops->create, "model %d", i);
        cr_assert(ops->devices, "%s declares no backend", ops->name);
        for (int d = LOGT_CPU; d <= LOGT_CUDA; d++)
            cr_assert_eq(!!(ops->devices & LOGT_BIT(d)), !!ops->dtypes[d],
                         "%s: dtypes declared for exactly the backends it runs on (%s)", ops->name,
                         logt_device_name((logt_device)d));
        if (ops->cells) cr_assert(ops->cells[0], "%s: an empty cell list: declare NULL instead", ops->name);
        logt_model_cfg cfg;
        valid_cfg(ops, &cfg);
        expect(ops, &cfg, LOGT_OK, NULL);
    }
}

Test(model, one_message_for_each_wrong_thing)
{
    for (int i = 0; i < logt_model_count(); i++) {
        const logt_model_ops *ops = logt_model_at(i);
        logt_model_cfg cfg;
        char want[160];

        /* a backend the model does not declare */
        for (int d = LOGT_CPU; d <= LOGT_CUDA; d++)
            if (!(ops->devices & LOGT_BIT(d))) {
                valid_cfg(ops, &cfg);
                cfg.device = (logt_device)d;
                snprintf(want, sizeof want, "model %s does not run on the %s backend", ops->name,
                         logt_device_name((logt_device)d));
                expect(ops, &cfg, LOGT_EUNSUPPORTED, want);
            }
        /* a dtype the backend does not take: named, with the ones it does */
        for (int dev = LOGT_CPU; dev <= LOGT_CUDA; dev++)
            for (int d = LOGT_F64; d < LOGT_NDTYPES; d++)
                if ((ops->devices & LOGT_BIT(dev)) && !(ops->dtypes[dev] & LOGT_BIT(d))) {
                    valid_cfg(ops, &cfg);
                    cfg.device = (logt_device)dev;
                    cfg.dtype = (logt_dtype)d;
                    snprintf(want, sizeof want, "%s on %s", ops->name, logt_device_name((logt_device)dev));
                    expect(ops, &cfg, LOGT_EUNSUPPORTED, want);
                    cr_assert(strstr(logt_errmsg(), "set dtype = "), "%s", logt_errmsg());
                }
        /* heads: a divisor of D is a head dim only where the model has heads */
        valid_cfg(ops, &cfg);
        cfg.head_dim = 4;
        if (ops->heads) {
            expect(ops, &cfg, LOGT_OK, NULL);
        } else {
            snprintf(want, sizeof want, "%s has one head: head_dim must be 0 or D = 16, not 4", ops->name);
            expect(ops, &cfg, LOGT_EINVAL, want);
            cr_assert(strstr(logt_errmsg(), "the models with heads: flashrnn"), "%s", logt_errmsg());
        }
        cfg.head_dim = 16;   /* dh = D: one head, for every model */
        expect(ops, &cfg, LOGT_OK, NULL);
        cfg.head_dim = 5;   /* no divisor of D: the divisors where the model has heads */
        if (ops->heads)
            expect(ops, &cfg, LOGT_EINVAL, "head dim 5 does not divide the hidden size D = 16: choose "
                                           "one of 1, 2, 4, 8, 16 (or 0 for one head of dh = D)");
        else
            expect(ops, &cfg, LOGT_EINVAL, "has one head: head_dim must be 0 or D = 16, not 5");
        /* cells: each declared one passes, another is named with the valid ones */
        valid_cfg(ops, &cfg);
        for (int c = 0; ops->cells && ops->cells[c]; c++) {
            snprintf(cfg.cell, sizeof cfg.cell, "%s", ops->cells[c]);
            expect(ops, &cfg, LOGT_OK, NULL);
            cr_assert_eq(logt_model_cell(ops, &cfg), c);
        }
        snprintf(cfg.cell, sizeof cfg.cell, "mlstm");
        snprintf(want, sizeof want, ops->cells ? "%s has no cell 'mlstm': the valid cells are "
                                               : "%s has no choice of cell: leave cell empty, not 'mlstm'",
                 ops->name);
        expect(ops, &cfg, LOGT_EINVAL, want);
        cr_assert_eq(logt_model_cell(ops, &cfg), -1);
        /* a knob the model does not take */
        valid_cfg(ops, &cfg);
        cr_assert_eq(logt_cfg_set_knob(&cfg, "no_such_knob", "1"), LOGT_OK);
        snprintf(want, sizeof want, "model %s has no setting 'no_such_knob' (it takes: ", ops->name);
        expect(ops, &cfg, LOGT_EINVAL, want);
        /* sizes */
        valid_cfg(ops, &cfg);
        cfg.hidden_size = 0;
        expect(ops, &cfg, LOGT_EINVAL, "hidden size D = 0: it must be at least 1");
        valid_cfg(ops, &cfg);
        cfg.input_size = -2;
        expect(ops, &cfg, LOGT_EINVAL, "input size -2: it must be at least 1");
    }
}

Test(model, the_cells_and_their_default)
{
    const logt_model_ops *fr = logt_model_find("flashrnn"), *deer = logt_model_find("deer");
    cr_assert(fr && deer);
    logt_model_cfg cfg;
    valid_cfg(fr, &cfg);
    cr_assert_eq(logt_model_cell(fr, &cfg), 0, "empty means the first, lstm");
    cr_assert_str_eq(fr->cells[0], "lstm");
    valid_cfg(deer, &cfg);
    cr_assert_str_eq(deer->cells[logt_model_cell(deer, &cfg)], "gru");
    snprintf(cfg.cell, sizeof cfg.cell, "slstm");
    expect(deer, &cfg, LOGT_EINVAL, "deer has no cell 'slstm': the valid cells are gru (the default, "
                                    "also when cell is empty), tanh and lstm");
    /* a model without a choice of cell takes an empty cell only */
    const logt_model_ops *sru = logt_model_find("sru");
    valid_cfg(sru, &cfg);
    cr_assert_eq(logt_model_cell(sru, &cfg), 0);
}

Test(model, layout_checks_before_the_model_sees_cfg)
{
    const logt_model_ops *ops = logt_model_find("lstm");
    logt_model_cfg cfg;
    logt_layout l;
    valid_cfg(ops, &cfg);
    cfg.head_dim = 8;
    cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "lstm has one head"), "%s", logt_errmsg());
    cfg.head_dim = 0;
    cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(l.numel, 4 * 16 * (3 + 16 + 1));
}

/* f16: flashrnn takes it on cuda, every cell, with the parameters laid out as in f32 (they are
 * f32 in every dtype); where a model or backend does not take it, the one check refuses it by
 * name, saying what it takes. */
Test(model, flashrnn_takes_f16_on_cuda_deer_does_not)
{
    const logt_model_ops *fr = logt_model_find("flashrnn"), *deer = logt_model_find("deer");
    cr_assert(fr && deer);
    for (int c = 0; fr->cells[c]; c++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 3, 32);
        snprintf(cfg.cell, sizeof cfg.cell, "%s", fr->cells[c]);
        cfg.head_dim = 16;
        cfg.dtype = LOGT_F32;
        logt_layout l32, l16;
        cr_assert_eq(logt_model_layout(fr, &cfg, &l32), LOGT_OK, "%s", logt_errmsg());
        cfg.dtype = LOGT_F16;
        expect(fr, &cfg, LOGT_OK, NULL);
        cr_assert_eq(logt_model_layout(fr, &cfg, &l16), LOGT_OK, "%s f16: %s", fr->cells[c], logt_errmsg());
        cr_assert_eq(l16.n, l32.n, "%s", fr->cells[c]);
        cr_assert_eq(l16.numel, l32.numel, "%s", fr->cells[c]);
        cr_assert_str_eq(l16.s[1].name, "R");
    }
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 32);
    cfg.dtype = LOGT_F16;
    expect(fr, &cfg, LOGT_EUNSUPPORTED, "flashrnn on cpu computes in f64, not f16: set dtype = f64");
    logt_model_cfg_init(&cfg, "deer", LOGT_CUDA, 3, 32);
    cfg.dtype = LOGT_F16;
    expect(deer, &cfg, LOGT_EUNSUPPORTED, "deer on cuda computes in f32, not f16: set dtype = f32");
    logt_layout l;
    cr_assert_eq(logt_model_layout(deer, &cfg, &l), LOGT_EUNSUPPORTED, "the layout checks the dtype too");
    cr_assert(strstr(logt_errmsg(), "deer on cuda") && strstr(logt_errmsg(), "not f16"), "%s", logt_errmsg());
}
