/* lp_freeze: building the reduced freeze LP once as sparse rows, handing it
 * to lp_solve for every phase (--lp-method direct) or to the decomposition
 * (lp_dw.c, the default), rounding either's answer the same way, or
 * writing the LP out for another solver.
 *
 * Columns (1-based, as lp_solve numbers them): t_u = 1 + u for each action
 * u; x_k = n + 1 + k for the k-th freezable action; T = n + K + 1.
 * Rows, all of the form  sum a_j y_j >= b  or  <= b:
 *   t_v - t_u + D_u x_u >= w_max_u + c_uv  for the program-order edge u -> v
 *     and for every cross-rank edge (same-rank edges other than program
 *     order are implied by it and left out; D_u = w_max_u - w_min_u, the
 *     x term only for freezable u, c_uv = comm on cross-rank edges);
 *   T - t_u + D_u x_u >= w_max_u           for every action without successors;
 *   sum over stage s of x_u <= cap * count_s   for every stage with freezable actions.
 * Bounds: t, T >= 0; 0 <= x <= 1. */
#define _POSIX_C_SOURCE 200809L
#include "lp_freeze.h"

#include <lpsolve/lp_lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "json.h"
#include "lp_dw.h"

typedef struct rows {
    size_t n, cap;          /* rows */
    size_t nz, nz_cap;      /* nonzeros */
    size_t *start;          /* n + 1 */
    int *col;               /* nz, 1-based */
    double *val;            /* nz */
    double *rhs;            /* n */
    unsigned char *is_le;   /* n: 1 for <=, 0 for >= */
    bool oom;
} rows;

static void rows_free(rows *r)
{
    free(r->start);
    free(r->col);
    free(r->val);
    free(r->rhs);
    free(r->is_le);
}

static size_t next_cap(size_t cap, size_t need)
{
    size_t c = cap ? cap : 1024;
    while (c < need)
        c *= 2;
    return c;
}

/* Appends one row; terms with a zero coefficient are dropped. */
static void add_row(rows *r, int k, const int *col, const double *val, bool le, double rhs)
{
    if (r->oom)
        return;
    if (r->n + 2 > r->cap) {
        size_t c = next_cap(r->cap, r->n + 2);
        double *rhs_v = realloc(r->rhs, c * sizeof *rhs_v);
        if (rhs_v)
            r->rhs = rhs_v;
        unsigned char *le_v = realloc(r->is_le, c * sizeof *le_v);
        if (le_v)
            r->is_le = le_v;
        size_t *start = realloc(r->start, c * sizeof *start);
        if (start)
            r->start = start;
        if (!rhs_v || !le_v || !start) {
            r->oom = true;
            return;
        }
        r->cap = c;
    }
    if (r->nz + (size_t)k > r->nz_cap) {
        size_t c = next_cap(r->nz_cap, r->nz + (size_t)k);
        int *cv = realloc(r->col, c * sizeof *cv);
        if (cv)
            r->col = cv;
        double *vv = realloc(r->val, c * sizeof *vv);
        if (vv)
            r->val = vv;
        if (!cv || !vv) {
            r->oom = true;
            return;
        }
        r->nz_cap = c;
    }
    if (r->n == 0)
        r->start[0] = 0;
    for (int j = 0; j < k; j++) {
        if (val[j] == 0.0)
            continue;
        r->col[r->nz] = col[j];
        r->val[r->nz] = val[j];
        r->nz++;
    }
    r->rhs[r->n] = rhs;
    r->is_le[r->n] = le;
    r->n++;
    r->start[r->n] = r->nz;
}

typedef struct layout {
    size_t n;      /* actions */
    size_t K;      /* freezable actions */
    int *xcol;     /* per action: its x column, 0 if not freezable */
    int tcol;      /* T */
    int ncols;
} layout;

bool lp_kept_edge(const sched *s, uint32_t u, uint32_t v, bool *program_done)
{
    if (dag_cross_rank(s, u, v))
        return true;
    /* Same rank: only the program-order edge carries information. */
    if (v != u + 1 || *program_done)
        return false;
    *program_done = true;
    return true;
}

static bool build(const lp_problem *pb, layout *lay, rows *r)
{
    const sched *s = pb->s;
    const dag *g = pb->g;
    size_t n = s->n_actions;
    memset(r, 0, sizeof *r);
    lay->n = n;
    lay->xcol = calloc(n ? n : 1, sizeof *lay->xcol);
    if (!lay->xcol)
        return false;
    size_t K = 0;
    for (size_t u = 0; u < n; u++)
        if (pb->freezable[u])
            lay->xcol[u] = (int)(n + 1 + K++);
    lay->K = K;
    lay->tcol = (int)(n + K + 1);
    lay->ncols = lay->tcol;

    int col[3];
    double val[3];
    for (size_t u = 0; u < n; u++) {
        double delta = pb->w_max[u] - pb->w_min[u];
        int k = 0;
        col[k] = (int)u + 1, val[k++] = -1.0;
        if (lay->xcol[u])
            col[k] = lay->xcol[u], val[k++] = delta;
        uint32_t deg = g->succ_start[u + 1] - g->succ_start[u];
        bool program_done = false;
        for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++) {
            uint32_t v = g->succ[e];
            if (!lp_kept_edge(s, (uint32_t)u, v, &program_done))
                continue;
            bool cross = dag_cross_rank(s, (uint32_t)u, v);
            col[k] = (int)v + 1, val[k] = 1.0;
            add_row(r, k + 1, col, val, false, pb->w_max[u] + (cross ? pb->comm_ms : 0.0));
        }
        if (deg == 0) {
            col[k] = lay->tcol, val[k] = 1.0;
            add_row(r, k + 1, col, val, false, pb->w_max[u]);
        }
    }
    /* Budget rows, one per stage with freezable actions: x columns bucketed
     * by stage (counting sort), so this is linear too. */
    uint32_t n_stages = s->n_stages;
    size_t *first = calloc((size_t)n_stages + 1, sizeof *first);
    int *cols = malloc((K ? K : 1) * sizeof *cols);
    double *ones = malloc((K ? K : 1) * sizeof *ones);
    if (!first || !cols || !ones) {
        free(first);
        free(cols);
        free(ones);
        return false;
    }
    for (size_t u = 0; u < n; u++)
        if (lay->xcol[u])
            first[s->actions[u].stage + 1]++;
    for (uint32_t st = 0; st < n_stages; st++)
        first[st + 1] += first[st];
    size_t *fill = calloc((size_t)n_stages, sizeof *fill);
    if (!fill) {
        free(first);
        free(cols);
        free(ones);
        return false;
    }
    for (size_t u = 0; u < n; u++)
        if (lay->xcol[u]) {
            uint32_t st = s->actions[u].stage;
            cols[first[st] + fill[st]++] = lay->xcol[u];
        }
    for (size_t k = 0; k < K; k++)
        ones[k] = 1.0;
    for (uint32_t st = 0; st < n_stages; st++) {
        size_t count = first[st + 1] - first[st];
        if (count)
            add_row(r, (int)count, cols + first[st], ones, true, pb->cap * (double)count);
    }
    free(first);
    free(fill);
    free(cols);
    free(ones);
    return !r->oom;
}

static const char *status_words(int ret)
{
    switch (ret) {
    case NOMEMORY: return "lp_solve ran out of memory";
    case SUBOPTIMAL: return "lp_solve stopped before proving optimality (sub-optimal)";
    case INFEASIBLE: return "the LP is infeasible: no start times satisfy the schedule's dependencies";
    case UNBOUNDED: return "the LP is unbounded";
    case DEGENERATE: return "the LP is degenerate";
    case NUMFAILURE: return "lp_solve failed numerically";
    case USERABORT: return "the solve was aborted";
    case TIMEOUT: return "lp_solve ran past the time limit (raise it with --lp-timeout, or compare policies with --policy uniform)";
    case PRESOLVED: return "presolve alone decided the problem";
    case ACCURACYERROR: return "lp_solve could not reach the required accuracy";
    default: return "lp_solve reported an unknown status";
    }
}

/* solve(), and when lp_solve reports a numerical failure, once more from
 * its default basis with its default anti-degeneracy settings. The same
 * input always takes the same path, so plans stay reproducible. */
static int solve_robust(lprec *lp)
{
    int ret = solve(lp);
    if (ret != NUMFAILURE && ret != ACCURACYERROR && ret != DEGENERATE && ret != SUBOPTIMAL)
        return ret;
    int mode = get_anti_degen(lp);
    set_anti_degen(lp, ANTIDEGEN_DEFAULT);
    default_basis(lp);
    ret = solve(lp);
    set_anti_degen(lp, mode);
    return ret;
}

/* Phase 3: keep T (bounded since phase 2) and the total freezing within
 * the same tolerance of phase 2's optimum, and minimise z >= every x_u: the
 * largest single freeze ratio. Adds one row for the total, one column z and
 * one row x_u - z <= 0 per freezable action. */
static bool phase3(lprec *lp, const layout *lay, size_t n, bool leximin, const char *file, diag_list *d,
                   lp_stats *st)
{
    size_t K = lay->K;
    int *cols = malloc((K + 1) * sizeof *cols);
    double *vals = malloc((K + 1) * sizeof *vals);
    bool ok = cols && vals;
    for (size_t k = 0; ok && k < K; k++)
        cols[k] = (int)(n + 1 + k), vals[k] = 1.0;
    ok = ok && add_constraintex(lp, (int)K, vals, cols, LE, st->total_freeze * (1.0 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS);
    ok = ok && add_columnex(lp, 0, NULL, NULL);
    int zcol = get_Ncolumns(lp);
    ok = ok && set_upbo(lp, zcol, 1.0);
    int first_row = get_Nrows(lp) + 1; /* x_k - z <= 0 is row first_row + k */
    for (size_t k = 0; ok && k < K; k++) {
        int c2[2] = {(int)(n + 1 + k), zcol};
        double v2[2] = {1.0, -1.0};
        ok = add_constraintex(lp, 2, v2, c2, LE, 0.0);
    }
    double one = 1.0;
    ok = ok && set_obj_fnex(lp, 1, &one, &zcol);
    free(cols);
    free(vals);
    if (!ok) {
        diag_error(d, file, 0, 0, "lp_solve refused a row (or ran out of memory) setting up phase 3 of the freeze LP");
        return false;
    }
    double t0 = clock_now_s();
    int ret = solve_robust(lp);
    st->seconds[2] = clock_now_s() - t0;
    st->iterations[2] = (long long)get_total_iter(lp);
    if (ret != OPTIMAL) {
        diag_error(d, file, 0, 0, "no plan: phase 3 of the freeze LP (the most even freezing) failed: %s (status %d)",
                   status_words(ret), ret);
        return false;
    }
    st->max_ratio = get_objective(lp);
    if (!leximin)
        return true;
    /* Leximin: the actions at the maximum keep it as their bound (x_u <= z*,
     * the z term dropped from their row); minimise the largest ratio of the
     * others, and again, until a round lowers nothing or every action is
     * bounded. Each round only changes bounds and the objective's meaning,
     * so lp_solve restarts from the last basis. */
    bool *fixed = calloc(K ? K : 1, sizeof *fixed);
    if (!fixed) {
        diag_nomem(d, "in phase 3 of the freeze LP");
        return false;
    }
    double z = st->max_ratio;
    bool ok2 = true;
    for (int round = 0; ok2 && round < LP_LEXIMIN_ROUNDS; round++) {
        REAL *vars;
        if (!get_ptr_variables(lp, &vars)) {
            ok2 = false;
            break;
        }
        size_t left = 0;
        for (size_t k = 0; k < K; k++) {
            if (!fixed[k] && vars[n + k] >= z - LP_SNAP_TOL) {
                fixed[k] = true;
                ok2 = ok2 && set_mat(lp, first_row + (int)k, zcol, 0.0) && set_rh(lp, first_row + (int)k, z);
            }
            left += !fixed[k];
        }
        if (!ok2 || left == 0)
            break;
        t0 = clock_now_s();
        ret = solve_robust(lp);
        st->seconds[2] += clock_now_s() - t0;
        st->iterations[2] += (long long)get_total_iter(lp);
        if (ret != OPTIMAL) {
            diag_error(d, file, 0, 0, "no plan: a leximin round of the freeze LP failed: %s (status %d)",
                       status_words(ret), ret);
            free(fixed);
            return false;
        }
        double z2 = get_objective(lp);
        if (z2 >= z - LP_SNAP_TOL)
            break;
        z = z2;
        st->leximin_rounds++;
    }
    free(fixed);
    if (!ok2) {
        diag_error(d, file, 0, 0, "lp_solve refused a leximin bound of the freeze LP");
        return false;
    }
    return true;
}

/* lp_solve leaves ratios that should be exactly the per-action bound a
 * little below it (1 - 1e-9 is typical). A trainer freezing "all but a
 * billionth" of a stage keeps its largest tensor, so ratios within
 * LP_SNAP_TOL of the bound become the bound. The stage's budget must still
 * hold: any excess is taken back from the stage's partly frozen actions,
 * largest first; where that is impossible the stage keeps the solver's
 * values. The makespan moves by at most the excess times the action's span
 * (nanoseconds). */
static bool snap_ratios(const lp_problem *pb, const layout *lay, double *x)
{
    const sched *s = pb->s;
    size_t n = s->n_actions;
    double hi = pb->action_cap < 1.0 ? pb->action_cap : 1.0;
    double *orig = malloc((n ? n : 1) * sizeof *orig);
    double *excess = calloc(s->n_stages ? s->n_stages : 1, sizeof *excess);
    if (!orig || !excess) {
        free(orig);
        free(excess);
        return false;
    }
    memcpy(orig, x, n * sizeof *x);
    size_t *count = (size_t *)calloc(s->n_stages ? s->n_stages : 1, sizeof *count);
    if (!count) {
        free(orig);
        free(excess);
        return false;
    }
    for (size_t u = 0; u < n; u++) {
        if (!lay->xcol[u])
            continue;
        uint32_t st = s->actions[u].stage;
        count[st]++;
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
                if (lay->xcol[u] && s->actions[u].stage == st && x[u] > 0.0 && x[u] < hi &&
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
    free(orig);
    free(excess);
    free(count);
    return true;
}

/* Either solver's raw ratios (x, per action) into the plan's: noise
 * rounded off, never up, the bound snapped (snap_ratios), phase 3's
 * objective re-read after the rounding. */
static tfc_status finish(const lp_problem *pb, const layout *lay, diag_list *d, double *x, lp_stats *st)
{
    size_t n = pb->s->n_actions;
    for (size_t u = 0; u < n; u++) {
        double v = x[u];
        if (!lay->xcol[u] || !(v > 1e-12))
            v = 0.0;
        if (v > 1.0)
            v = 1.0;
        x[u] = v;
    }
    if (!snap_ratios(pb, lay, x)) {
        return diag_nomem(d, "rounding the freeze ratios");
    }
    if (pb->balance && lay->K) {
        st->max_ratio = 0.0;
        for (size_t u = 0; u < n; u++)
            if (x[u] > st->max_ratio)
                st->max_ratio = x[u];
    }
    return TFC_OK;
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
    layout lay = {0};
    rows r;
    if (!build(pb, &lay, &r)) {
        free(lay.xcol);
        rows_free(&r);
        return diag_nomem(d, "building the freeze LP of %zu actions", n);
    }
    st->rows = (int)r.n;
    st->cols = lay.ncols;
    st->nonzeros = (long long)r.nz;

    tfc_status result = TFC_OK;
    lprec *lp = NULL;
    if (!pb->direct) {
        /* The default: the decomposition (lp_dw.c), lp_solve on its master. */
        rows_free(&r);
        memset(&r, 0, sizeof r);
        if (!lp_dw_solve(pb, file, d, x, st))
            result = TFC_INFEASIBLE;
        else
            result = finish(pb, &lay, d, x, st);
        goto out;
    }
    lp = make_lp(0, lay.ncols);
    if (!lp) {
        diag_error(d, file, 0, 0, "lp_solve could not allocate the freeze LP (%d columns)", lay.ncols);
        result = TFC_INFEASIBLE;
        goto out;
    }
    set_verbose(lp, NEUTRAL);
    (void)resize_lp(lp, (int)r.n, lay.ncols); /* a capacity hint; rows are added below either way */
    set_add_rowmode(lp, TRUE);
    for (size_t i = 0; i < r.n && result == TFC_OK; i++) {
        int k = (int)(r.start[i + 1] - r.start[i]);
        if (!add_constraintex(lp, k, r.val + r.start[i], r.col + r.start[i], r.is_le[i] ? LE : GE, r.rhs[i])) {
            diag_error(d, file, 0, 0, "lp_solve refused row %zu of the freeze LP", i + 1);
            result = TFC_INFEASIBLE;
        }
    }
    set_add_rowmode(lp, FALSE);
    if (result != TFC_OK)
        goto out;
    bool set_ok = true;
    for (size_t u = 0; u < n; u++)
        if (lay.xcol[u])
            set_ok &= set_upbo(lp, lay.xcol[u], 1.0) != 0;

    /* A plan that takes longer than this is no plan: say so (exit 3) rather
     * than hang. lp_solve checks the limit per solve. */
    set_timeout(lp, pb->timeout_s > 0 ? (long)ceil(pb->timeout_s) : 0);
    /* No scaling: the coefficients are 1 and durations in ms, already well
     * scaled, and lp_solve's default scaling was 1.3-4x slower on this LP
     * family (docs/freeze-lp.md, "Speed"). Bound flipping was faster still
     * on some sizes but gave a wrong phase-2 optimum on random instances
     * (tests/lp_oracle.py --random 300), so lp_solve's default
     * anti-degeneracy stays. */
    set_scaling(lp, SCALE_NONE);

    /* Phase 1: min T. */
    int tcol = lay.tcol;
    double one = 1.0;
    set_ok &= set_obj_fnex(lp, 1, &one, &tcol) != 0;
    set_minim(lp);
    if (!set_ok) {
        diag_error(d, file, 0, 0, "lp_solve refused the freeze LP's bounds or objective");
        result = TFC_INFEASIBLE;
        goto out;
    }
    bool action_capped = pb->action_cap < 1.0 && lay.K;
    double t0 = clock_now_s();
    int ret = OPTIMAL;
    if (action_capped) {
        /* First without the per-action cap, to say whether the cap costs time. */
        ret = solve_robust(lp);
        if (ret == OPTIMAL) {
            st->t_star_uncapped = get_objective(lp);
            for (size_t u = 0; u < n; u++)
                if (lay.xcol[u] && !set_upbo(lp, lay.xcol[u], pb->action_cap))
                    ret = NUMFAILURE;
        }
    }
    if (ret == OPTIMAL)
        ret = solve_robust(lp);
    st->seconds[0] = clock_now_s() - t0;
    st->iterations[0] = (long long)get_total_iter(lp);
    if (ret != OPTIMAL) {
        diag_error(d, file, 0, 0, "no plan: phase 1 of the freeze LP (minimise the makespan) failed: %s (status %d)",
                   status_words(ret), ret);
        result = TFC_INFEASIBLE;
        goto out;
    }
    st->t_star = get_objective(lp);
    if (!action_capped)
        st->t_star_uncapped = st->t_star;

    /* Phase 2: T within tolerance of T*, min total freezing. Only a bound
     * and the objective change, so the last basis stays primal feasible and
     * lp_solve starts from it. */
    if (!set_upbo(lp, tcol, st->t_star * (1.0 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS)) {
        diag_error(d, file, 0, 0, "lp_solve refused the phase-2 bound on the makespan");
        result = TFC_INFEASIBLE;
        goto out;
    }
    if (lay.K) {
        int *cols = malloc(lay.K * sizeof *cols);
        double *ones = malloc(lay.K * sizeof *ones);
        if (!cols || !ones) {
            free(cols);
            free(ones);
            diag_nomem(d, "in phase 2 of the freeze LP");
            result = TFC_INFEASIBLE;
            goto out;
        }
        for (size_t k = 0; k < lay.K; k++)
            cols[k] = (int)(n + 1 + k), ones[k] = 1.0;
        bool obj_ok = set_obj_fnex(lp, (int)lay.K, ones, cols) != 0;
        free(cols);
        free(ones);
        if (!obj_ok) {
            diag_error(d, file, 0, 0, "lp_solve refused the phase-2 objective");
            result = TFC_INFEASIBLE;
            goto out;
        }
        t0 = clock_now_s();
        ret = solve_robust(lp);
        st->seconds[1] = clock_now_s() - t0;
        st->iterations[1] = (long long)get_total_iter(lp); /* counted per solve */
        if (ret != OPTIMAL) {
            diag_error(d, file, 0, 0,
                       "no plan: phase 2 of the freeze LP (least freezing at the best makespan) failed: %s (status %d)",
                       status_words(ret), ret);
            result = TFC_INFEASIBLE;
            goto out;
        }
        st->total_freeze = get_objective(lp);
        if (pb->balance && !phase3(lp, &lay, n, pb->leximin, file, d, st)) {
            result = TFC_INFEASIBLE;
            goto out;
        }
    }
    REAL *vars;
    if (!get_ptr_variables(lp, &vars)) {
        diag_error(d, file, 0, 0, "lp_solve returned no solution");
        result = TFC_INFEASIBLE;
        goto out;
    }
    for (size_t u = 0; u < n; u++)
        x[u] = lay.xcol[u] ? vars[lay.xcol[u] - 1] : 0.0;
    result = finish(pb, &lay, d, x, st);
out:
    if (lp)
        delete_lp(lp);
    free(lay.xcol);
    rows_free(&r);
    return result;
}

bool lp_freeze_dump(const lp_problem *pb, FILE *f)
{
    layout lay = {0};
    rows r;
    bool ok = build(pb, &lay, &r);
    if (ok) {
        fprintf(f, "{\n  \"format\": \"tfc-freeze-lp-1\",\n  \"cols\": %d,\n  \"t_col\": %d,\n", lay.ncols,
                lay.tcol - 1);
        fputs("  \"x_cols\": [", f);
        for (size_t k = 0; k < lay.K; k++)
            fprintf(f, "%s%zu", k ? ", " : "", lay.n + k);
        fputs("],\n  \"rel_tol\": ", f);
        json_number(f, LP_T_REL_TOL);
        fputs(", \"abs_tol\": ", f);
        json_number(f, LP_T_ABS_TOL_MS);
        fputs(",\n  \"rows\": [", f);
        for (size_t i = 0; i < r.n; i++) {
            fprintf(f, "%s\n    [\"%s\", ", i ? "," : "", r.is_le[i] ? "<=" : ">=");
            json_number(f, r.rhs[i]);
            for (size_t j = r.start[i]; j < r.start[i + 1]; j++) {
                fprintf(f, ", %d, ", r.col[j] - 1);
                json_number(f, r.val[j]);
            }
            fputc(']', f);
        }
        fputs("\n  ]\n}\n", f);
    }
    free(lay.xcol);
    rows_free(&r);
    return ok && !ferror(f);
}
