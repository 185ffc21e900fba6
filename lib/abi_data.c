/* abi_data.c — the runner's inputs through the C ABI (lib/logt.h): its uniform fill, its
 * training tasks and its readout's initial parameters, so that a caller can feed a layer what
 * `logt run` feeds it and compare the results bit for bit or loss for loss.
 */
#include "logt.h"

#include <string.h>

#include "../core/rng.h"
#include "../core/status.h"
#include "../datasets/dataset.h"
#include "../train/train.h"

int logt_abi_uniform(uint64_t seed, uint64_t stream, int64_t n, double lo, double hi, double *out)
{
    if (n < 0 || (n > 0 && !out))
        return LOGT_FAIL(LOGT_EINVAL, "logt_abi_uniform: n = %lld values into %s: n must be >= 0 "
                         "and out given", (long long)n, out ? "out" : "NULL");
    logt_uniform_fill(seed, stream, out, n, lo, hi);
    return LOGT_OK;
}

static logt_status task_open(const char *task, int T, uint64_t seed, logt_dataset *ds)
{
    if (!task) {
        char names[256];
        logt_dataset_names(names, sizeof names);
        return LOGT_FAIL(LOGT_EINVAL, "no task named: one of %s", names);
    }
    return logt_dataset_open(task, T, seed, ds);
}

int logt_task_info(const char *task, int T, uint64_t seed, int *input_size, int *output_size,
                   int *out_steps, int *loss)
{
    logt_dataset ds;
    LOGT_TRY(task_open(task, T, seed, &ds));
    if (input_size) *input_size = ds.input_size;
    if (output_size) *output_size = ds.output_size;
    if (out_steps) *out_steps = ds.out_steps;
    if (loss) *loss = ds.loss == LOGT_LOSS_XENT;
    logt_dataset_close(&ds);
    return LOGT_OK;
}

int logt_task_batch(const char *task, int T, uint64_t seed, int split, uint64_t index, int B,
                    double *x, double *target)
{
    if (split < LOGT_SPLIT_TRAIN || split > LOGT_SPLIT_TEST || B < 1 || !x || !target)
        return LOGT_FAIL(LOGT_EINVAL, "logt_task_batch: split %d, B = %d: split 0 (train), 1 "
                         "(validation) or 2 (test), B >= 1, x and target given", split, B);
    logt_dataset ds;
    LOGT_TRY(task_open(task, T, seed, &ds));
    logt_status s = logt_dataset_batch(&ds, split, index, B, x, target);
    logt_dataset_close(&ds);
    return s;
}

int logt_readout_init_params(int D, int O, uint64_t seed, double *w)
{
    if (!w) return LOGT_FAIL(LOGT_EINVAL, "logt_readout_init_params: w must be given");
    logt_readout r;
    LOGT_TRY(logt_readout_init(&r, D, O, seed));
    memcpy(w, r.w.data, logt_tensor_bytes(&r.w));
    logt_readout_free(&r);
    return LOGT_OK;
}
