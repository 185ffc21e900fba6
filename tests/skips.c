/* skips.c — the run's last line counts the tests that skipped and why: Criterion reports a
 * skipped test as passed, and a CI log without a GPU should say how many did not run. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>
#include <string.h>

static size_t no_gpu, other;

ReportHook(POST_TEST)(struct criterion_test_stats *stats)
{
    if (stats->test_status != CR_STATUS_SKIPPED) return;
    const char *why = stats->message ? stats->message : "";
    if (strstr(why, "no GPU") || strstr(why, "built without CUDA") || strstr(why, "GPU(s) visible"))
        no_gpu++;
    else
        other++;
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    if (no_gpu) fprintf(stderr, "[====] %zu skipped: no GPU (or too few GPUs; CUDA tests run on a GPU machine)\n", no_gpu);
    if (other) fprintf(stderr, "[====] %zu skipped for other reasons (--verbose names them)\n", other);
}
