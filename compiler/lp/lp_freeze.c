/* lp_freeze: the facade (lp_freeze.h). Refuses schedules past
 * LP_MAX_ACTIONS, fills the whole LP's statistics without building it
 * (lp_problem_size), hands the problem to the decomposition (lp_dw.c) or
 * to lp_solve on the whole LP (lp_direct.c) with one scratch arena for the
 * solve, and rounds either's raw ratios the same way (finish). */
#include "lp_freeze.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "lp_direct.h"
#include "lp_dw.h"

/* lp_solve leaves ratios that should be exactly the per-action bound a
 * little below it (1 - 1e-9 is typical). A trainer freezing "all but a
 * billionth" of a stage keeps its largest tensor, so ratios within
 * LP_SNAP_TOL of the bound become the bound. The stage's budget must still
 * hold: any excess is taken back from the stage's partly frozen actions,
 * largest first; where that is impossible the stage keeps the solver's
 * values. The makespan moves by at most the excess times the action's span
 * (nanoseconds). */
static bool snap_ratios(const lp_problem *pb, arena *a, double *x)
{
    const sched *s = pb->s;
    size_t n = s->n_actions;
    double *orig = arena_alloc_array(a, n ? n : 1, sizeof *orig);
    double *excess = arena_alloc_array(a, s->n_stages ? s->n_stages : 1, sizeof *excess);
    size_t *count = arena_alloc_array(a, s->n_stages ? s->n_stages : 1, sizeof *count);
    if (!orig || !excess || !count)
        return false;
    memcpy(orig, x, n * sizeof *x);
    for (size_t u = 0; u < n; u++) {
        if (!pb->freezable[u])
            continue;
        uint32_t st = s->actions[u].stage;
        count[st]++;
        double hi = lp_action_hi(pb, u);
        if (x[u] < hi && x[u] > hi - LP_SNAP_TOL)
            x[u] = hi;
        excess[st] += x[u];
    }
    for (uint32_t st = 0; st < s->n_stages; st++)
        excess[st] -= pb->cap * (double)count[st];
    /* Take the excess back, largest partial ratio first (one pass per unit
     * of work: stages rarely have more than a few snapped actions). */
    for (uint32_t st = 0; st < s->n_stages; st++) {
        while (excess[st] > 0.0) {
            size_t best = n;
            for (size_t u = 0; u < n; u++)
                if (pb->freezable[u] && s->actions[u].stage == st && x[u] > 0.0 && x[u] < lp_action_hi(pb, u) &&
                    (best == n || x[u] > x[best]))
                    best = u;
            if (best == n)
                break;
            double take = excess[st] < x[best] ? excess[st] : x[best];
            x[best] -= take;
            excess[st] -= take;
            if (x[best] < 1e-12) /* never leave noise behind */
                x[best] = 0.0;
        }
        if (excess[st] > 1e-12 * (double)count[st])
            for (size_t u = 0; u < n; u++)
                if (s->actions[u].stage == st)
                    x[u] = orig[u];
    }
    return true;
}

/* Either solver's raw ratios (x, per action) into the plan's: noise
 * rounded off, never up, the bound snapped (snap_ratios), phase 3's
 * objective re-read after the rounding. */
static tfc_status finish(const lp_problem *pb, arena *a, diag_list *d, double *x, lp_stats *st)
{
    size_t n = pb->s->n_actions;
    bool any = false;
    for (size_t u = 0; u < n; u++) {
        double v = x[u];
        if (!pb->freezable[u] || !(v > 1e-12))
            v = 0.0;
        if (v > 1.0)
            v = 1.0;
        x[u] = v;
        any |= pb->freezable[u];
    }
    if (!snap_ratios(pb, a, x))
        return diag_nomem(d, "rounding the freeze ratios");
    if (pb->balance && any) {
        st->max_ratio = 0.0;
        for (size_t u = 0; u < n; u++)
            if (x[u] > st->max_ratio)
                st->max_ratio = x[u];
    }
    return TFC_OK;
}

/* The LP's tolerances are partly absolute (LP_T_ABS_TOL_MS, lp_solve's own),
 * so a step of nanoseconds would sit inside them and plan less than the same
 * step in milliseconds. Below LP_SCALE_BELOW_MS the durations and latency
 * are multiplied by the power of 2 that brings the longest into [1, 2) ms:
 * exact in binary, and nothing changes for steps of a millisecond or more. */
#define LP_SCALE_BELOW_MS 1.0
static bool scale_up(const lp_problem *pb, arena *a, lp_problem *out, double *scale)
{
    *out = *pb;
    *scale = 1.0;
    size_t n = pb->s->n_actions;
    double longest = pb->comm_ms;
    for (size_t u = 0; u < n; u++)
        longest = pb->w_max[u] > longest ? pb->w_max[u] : longest;
    if (!(longest > 0.0) || longest >= LP_SCALE_BELOW_MS)
        return true;
    int e;
    frexp(longest, &e); /* longest = m 2^e, m in [0.5, 1) */
    *scale = ldexp(1.0, 1 - e);
    double *w_max = arena_alloc_array(a, n ? n : 1, sizeof *w_max);
    double *w_min = arena_alloc_array(a, n ? n : 1, sizeof *w_min);
    if (!w_max || !w_min)
        return false;
    for (size_t u = 0; u < n; u++) {
        w_max[u] = pb->w_max[u] * *scale;
        w_min[u] = pb->w_min[u] * *scale;
    }
    out->w_max = w_max;
    out->w_min = w_min;
    out->comm_ms = pb->comm_ms * *scale;
    return true;
}

/* The progress of a scaled solve, reported in the spec's milliseconds:
 * phase 1's bound and best are makespans (phase 2's are sums of ratios and
 * phase 3's ratios, neither scaled). */
typedef struct unscaled_progress {
    lp_progress_fn fn;
    void *ctx;
    double scale;
} unscaled_progress;

static void report_unscaled(void *ctx, const lp_progress *p)
{
    const unscaled_progress *u = ctx;
    lp_progress q = *p;
    if (q.phase == LP_PHASE_MAKESPAN) {
        q.bound /= u->scale; /* exact: a power of 2 */
        q.best /= u->scale;
    }
    u->fn(u->ctx, &q);
}

tfc_status lp_freeze_solve(const lp_problem *pb, const char *file, diag_list *d, double *x, lp_stats *st)
{
    memset(st, 0, sizeof *st);
    size_t n = pb->s->n_actions;
    for (size_t u = 0; u < n; u++)
        x[u] = 0.0;
    if (n > LP_MAX_ACTIONS) {
        diag_error(d, file, 0, 0,
                   "no plan: the schedule has %zu actions; the freeze LP is limited to %u (lp_solve would not "
                   "finish); compare with --policy uniform or none",
                   n, LP_MAX_ACTIONS);
        return TFC_INFEASIBLE;
    }
    lp_size z = lp_problem_size(pb);
    st->rows = (int)z.rows;
    st->cols = (int)z.cols;
    st->nonzeros = (long long)z.nonzeros;
    arena scratch;
    arena_init(&scratch, 0);
    lp_problem scaled;
    double scale = 1.0;
    if (!scale_up(pb, &scratch, &scaled, &scale)) {
        arena_free(&scratch);
        return diag_nomem(d, "scaling the freeze LP");
    }
    unscaled_progress watch = {pb->progress, pb->progress_ctx, scale};
    if (scale != 1.0 && pb->progress) {
        scaled.progress = report_unscaled;
        scaled.progress_ctx = &watch;
    }
    tfc_status result = scaled.direct || lp_work_row(&scaled) ? lp_direct_solve(&scaled, &scratch, file, d, x, st)
                                                              : lp_dw_solve(&scaled, &scratch, file, d, x, st);
    if (result == TFC_INFEASIBLE && st->dw_gave_up) {
        /* The decomposition's master defeated lp_solve (or its rounds ran
         * out): the whole LP, which has the same optimum, decides instead,
         * the same way on every machine. */
        diag_warning(d, file, 0, 0,
                     "the freeze LP's decomposition could not solve %s (%s): solved the LP whole instead, as "
                     "--lp-method direct does",
                     lp_phase_name(st->dw_gave_up_in), st->dw_gave_up_why);
        lp_stats keep = *st;
        memset(st, 0, sizeof *st);
        st->rows = keep.rows, st->cols = keep.cols, st->nonzeros = keep.nonzeros;
        for (size_t u = 0; u < n; u++)
            x[u] = 0.0;
        result = lp_direct_solve(&scaled, &scratch, file, d, x, st);
    }
    if (result == TFC_OK)
        result = finish(&scaled, &scratch, d, x, st);
    st->t_star /= scale; /* exact: scale is a power of 2 */
    st->t_star_uncapped /= scale;
    arena_free(&scratch);
    return result;
}

bool lp_freeze_dump(const lp_problem *pb, FILE *f)
{
    arena scratch;
    arena_init(&scratch, 0);
    bool ok = lp_direct_dump(pb, &scratch, f);
    arena_free(&scratch);
    return ok;
}
