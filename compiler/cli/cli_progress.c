/* cli_progress: the progress line. */
#define _POSIX_C_SOURCE 200809L
#include "cli_progress.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "clock.h"
#include "real.h"

/* Quiet for this long: most plans finish first. */
#define PROGRESS_AFTER_S 1.0
/* At most this often. */
#define PROGRESS_EVERY_S 0.2

void cli_progress_init(cli_progress *p, bool quiet)
{
    p->on = !quiet && isatty(STDERR_FILENO);
    p->shown = false;
    p->t0 = clock_now_s();
    p->last = -INFINITY;
}

/* 4 decimals, unless they would print a nonzero value (a makespan of a
 * step written in nanoseconds) as 0.0000: then in full. */
static real_text value_text(double v)
{
    return v != 0.0 && fabs(v) < 0.00005 ? real_shortest(v) : real_fixed(v, 4);
}

void cli_progress_report(void *ctx, const lp_progress *pr)
{
    cli_progress *p = ctx;
    if (!p->on)
        return;
    double now = clock_now_s();
    if (now - p->t0 < PROGRESS_AFTER_S || now - p->last < PROGRESS_EVERY_S)
        return;
    p->last = now;
    fprintf(stderr, "\rtfc: %s s, %s", real_fixed(now - p->t0, 1).s, lp_phase_name(pr->phase));
    if (pr->round)
        fprintf(stderr, ", round %lld", pr->round);
    if (pr->phase == LP_PHASE_BALANCE && isfinite(pr->bound) && isfinite(pr->best))
        fprintf(stderr, ": largest ratio in [%s, %s]", real_fixed(pr->bound, 4).s, real_fixed(pr->best, 4).s);
    else if (isfinite(pr->bound) && isfinite(pr->best)) {
        /* Phase 1's gap relative to its makespan, phase 2's to its total
         * or 1 (a total of 0 is possible there). */
        double scale = pr->phase == LP_PHASE_MAKESPAN ? fabs(pr->best) : fmax(1.0, fabs(pr->best));
        double gap = scale > 0.0 ? (pr->best - pr->bound) / scale : 0.0;
        fprintf(stderr, ": bound %s, best %s, gap %s%%", value_text(pr->bound).s, value_text(pr->best).s,
                real_fixed(100.0 * (gap > 0 ? gap : 0), 4).s);
    }
    fputs("\033[K", stderr); /* the rest of an earlier, longer line */
    fflush(stderr);
    p->shown = true;
}

void cli_progress_done(cli_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = false;
}
