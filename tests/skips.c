/* skips.c — the run's last lines count the tests that skipped and why: Criterion leaves a
 * skipped test out of its "Tested" count without a word, and a CI log without a GPU should
 * say how many did not run. A test's skip message says its reason: no GPU ("no GPU", "no
 * usable CUDA device", "built without CUDA"), too few ("one GPU visible", "GPU(s) visible,
 * ... needs"), or another. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>
#include <string.h>

static size_t no_gpu, few_gpus, other;

ReportHook(POST_TEST)(struct criterion_test_stats *stats)
{
    if (stats->test_status != CR_STATUS_SKIPPED) return;
    const char *why = stats->message ? stats->message : "";
    if (strstr(why, "no GPU") || strstr(why, "no usable CUDA device") || strstr(why, "built without CUDA"))
        no_gpu++;
    else if (strstr(why, "one GPU visible") || (strstr(why, "GPU(s) visible") && strstr(why, "needs")))
        few_gpus++;
    else
        other++;
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    if (no_gpu) fprintf(stderr, "[====] %zu skipped: no GPU (the CUDA tests run on a GPU machine)\n", no_gpu);
    if (few_gpus) fprintf(stderr, "[====] %zu skipped: too few GPUs (they need two or more)\n", few_gpus);
    if (other) fprintf(stderr, "[====] %zu skipped for other reasons (--verbose names them)\n", other);
}
