/* progress.c — the progress line of a sweep on stderr: which run of how many, its label,
 * what it is doing, the time elapsed and an ETA from the runs' estimated costs (r->cost).
 * On a terminal one line is rewritten in place; otherwise a line per finished run.
 */
#include "run_internal.h"

#include <stdio.h>

static void eta_text(const progress *p, double cost_now, char *buf, size_t n)
{
    char el[32], eta[32];
    double elapsed = logt_now() - p->t0;
    logt_fmt_duration(elapsed, el, sizeof el);
    if (cost_now > 0 && p->cost_total > cost_now) {
        logt_fmt_duration(elapsed * (p->cost_total - cost_now) / cost_now, eta, sizeof eta);
        snprintf(buf, n, "%s elapsed, ETA %s", el, eta);
    } else {
        snprintf(buf, n, "%s elapsed", el);
    }
}

void progress_line(progress *p, const logt_run_spec *r, const char *what, double cost_now,
                   int final)
{
    char eta[96];
    eta_text(p, cost_now, eta, sizeof eta);
    if (p->tty) {
        fprintf(stderr, "\r\033[K[%d/%d%s%s] %s  %s%s%s", p->index, p->total, *p->shard ? " of " : "",
                p->shard, r->label, what, *what ? "  " : "", eta);
        fflush(stderr);
    } else if (final) {
        fprintf(stderr, "[%d/%d%s%s] %s  %s%s%s\n", p->index, p->total, *p->shard ? " of " : "",
                p->shard, r->label, what, *what ? "  " : "", eta);
    }
    p->last_print = logt_now();
}
