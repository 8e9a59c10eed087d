/* lp_direct: the whole freeze LP, built once as sparse rows and solved by
 * lp_solve phase after phase, each phase changing only bounds, the
 * objective and (phase 3) a few rows, so every solve starts from the last
 * basis (lp_direct.h). */
#define _POSIX_C_SOURCE 200809L
#include "lp_direct.h"

#include <lpsolve/lp_lib.h>
#include <math.h>
#include <string.h>

#include "clock.h"
#include "json.h"

/* Appends one row; terms with a zero coefficient are dropped. Past the
 * counted capacity (lp_problem_size) nothing more is written. */
static void add_row(lp_direct_lp *lp, const lp_size *cap, int k, const int *col, const double *val, bool le,
                    double rhs)
{
    if (lp->overflow)
        return;
    size_t terms = 0;
    for (int j = 0; j < k; j++)
        terms += val[j] != 0.0;
    if (lp->n_rows + 1 > cap->rows || lp->nz + terms > cap->nonzeros) {
        lp->overflow = true;
        return;
    }
    for (int j = 0; j < k; j++) {
        if (val[j] == 0.0)
            continue;
        lp->col[lp->nz] = col[j];
        lp->val[lp->nz] = val[j];
        lp->nz++;
    }
    lp->rhs[lp->n_rows] = rhs;
    lp->is_le[lp->n_rows] = le;
    lp->n_rows++;
    lp->start[lp->n_rows] = lp->nz;
}

bool lp_direct_build(const lp_problem *pb, arena *a, lp_direct_lp *lp)
{
    const sched *s = pb->s;
    const dag *g = pb->g;
    size_t n = s->n_actions;
    lp_size z = lp_problem_size(pb);
    memset(lp, 0, sizeof *lp);
    lp->n = n;
    lp->xcol = arena_alloc_array(a, n ? n : 1, sizeof *lp->xcol);
    lp->start = arena_alloc_array(a, z.rows + 1, sizeof *lp->start);
    lp->col = arena_alloc_array(a, z.nonzeros ? z.nonzeros : 1, sizeof *lp->col);
    lp->val = arena_alloc_array(a, z.nonzeros ? z.nonzeros : 1, sizeof *lp->val);
    lp->rhs = arena_alloc_array(a, z.rows ? z.rows : 1, sizeof *lp->rhs);
    lp->is_le = arena_alloc_array(a, z.rows ? z.rows : 1, sizeof *lp->is_le);
    /* per stage: where its budget row's terms start, then how many are in */
    size_t *first = arena_alloc_array(a, (size_t)s->n_stages + 1, sizeof *first);
    size_t *fill = arena_alloc_array(a, (size_t)s->n_stages + 1, sizeof *fill);
    if (!lp->xcol || !lp->start || !lp->col || !lp->val || !lp->rhs || !lp->is_le || !first || !fill)
        return false;
    size_t K = 0;
    for (size_t u = 0; u < n; u++)
        if (pb->freezable[u])
            lp->xcol[u] = (int)(n + 1 + K++);
    lp->K = K;
    lp->tcol = (int)(n + K + 1);
    lp->ncols = lp->tcol;

    int col[3];
    double val[3];
    for (size_t u = 0; u < n; u++) {
        double delta = pb->w_max[u] - pb->w_min[u];
        int k = 0;
        col[k] = (int)u + 1, val[k++] = -1.0;
        if (lp->xcol[u])
            col[k] = lp->xcol[u], val[k++] = delta;
        uint32_t deg = g->succ_start[u + 1] - g->succ_start[u];
        bool program_done = false;
        for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++) {
            uint32_t v = g->succ[e];
            if (!lp_kept_edge(s, (uint32_t)u, v, &program_done))
                continue;
            bool cross = dag_cross_rank(s, (uint32_t)u, v);
            col[k] = (int)v + 1, val[k] = 1.0;
            add_row(lp, &z, k + 1, col, val, false, pb->w_max[u] + (cross ? pb->comm_ms : 0.0));
        }
        if (deg == 0) {
            col[k] = lp->tcol, val[k] = 1.0;
            add_row(lp, &z, k + 1, col, val, false, pb->w_max[u]);
        }
    }
    /* Budget rows, one per stage with freezable actions, in stage order:
     * each stage's x columns in action order, placed by a counting sort
     * straight into the row arrays. */
    uint32_t n_stages = s->n_stages;
    for (size_t u = 0; u < n; u++)
        if (lp->xcol[u])
            first[s->actions[u].stage + 1]++;
    for (uint32_t st = 0; st < n_stages; st++)
        first[st + 1] += first[st];
    if (lp->overflow || lp->nz + K > z.nonzeros) {
        lp->overflow = true;
        return false;
    }
    size_t base = lp->nz;
    for (size_t u = 0; u < n; u++)
        if (lp->xcol[u]) {
            uint32_t st = s->actions[u].stage;
            lp->col[base + first[st] + fill[st]++] = lp->xcol[u];
        }
    for (uint32_t st = 0; st < n_stages; st++) {
        size_t count = first[st + 1] - first[st];
        if (!count)
            continue;
        if (lp->n_rows + 1 > z.rows) {
            lp->overflow = true;
            return false;
        }
        for (size_t j = 0; j < count; j++)
            lp->val[lp->nz + j] = 1.0;
        lp->nz += count;
        lp->rhs[lp->n_rows] = pb->cap * (double)count;
        lp->is_le[lp->n_rows] = 1;
        lp->n_rows++;
        lp->start[lp->n_rows] = lp->nz;
    }
    /* Shared processors: T >= (sum of w_max - sum of x_u (w_max_u - w_min_u)) / P,
     * written T + sum x_u (w_max_u - w_min_u) / P >= sum of w_max / P. */
    if (lp_work_row(pb)) {
        double work = 0.0, procs = (double)pb->processors;
        for (size_t u = 0; u < n; u++)
            work += pb->w_max[u];
        if (lp->n_rows + 1 > z.rows || lp->nz + 1 > z.nonzeros) {
            lp->overflow = true;
            return false;
        }
        lp->col[lp->nz] = lp->tcol, lp->val[lp->nz++] = 1.0;
        for (size_t u = 0; u < n; u++)
            if (lp->xcol[u] && pb->w_max[u] != pb->w_min[u]) {
                if (lp->nz + 1 > z.nonzeros) {
                    lp->overflow = true;
                    return false;
                }
                lp->col[lp->nz] = lp->xcol[u];
                lp->val[lp->nz++] = (pb->w_max[u] - pb->w_min[u]) / procs;
            }
        lp->rhs[lp->n_rows] = work / procs;
        lp->is_le[lp->n_rows] = 0;
        lp->n_rows++;
        lp->start[lp->n_rows] = lp->nz;
    }
    return true;
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

/* lp_solve's model as it stands, for the memory probe before a call. */
static tfc_status headroom(lprec *lp, diag_list *d)
{
    return lp_problem_headroom((size_t)get_Nrows(lp), (size_t)get_Ncolumns(lp), (size_t)get_nonzeros(lp), d,
                               "in lp_solve on the whole freeze LP");
}

/* solve(), and when lp_solve reports a numerical failure, once more from
 * its default basis with its default anti-degeneracy settings. The same
 * input always takes the same path, so plans stay reproducible. Before
 * each solve, the memory probe (lp_problem_headroom): *nomem and NOMEMORY
 * when it fails. */
static int solve_robust(lprec *lp, diag_list *d, bool *nomem)
{
    if (headroom(lp, d) != TFC_OK) {
        *nomem = true;
        return NOMEMORY;
    }
    int ret = lp_problem_solve(lp);
    if (ret != NUMFAILURE && ret != ACCURACYERROR && ret != DEGENERATE && ret != SUBOPTIMAL)
        return ret;
    int mode = get_anti_degen(lp);
    set_anti_degen(lp, ANTIDEGEN_DEFAULT);
    default_basis(lp);
    ret = lp_problem_solve(lp);
    set_anti_degen(lp, mode);
    return ret;
}

/* A failed phase: out of memory when the probe said so or lp_solve did,
 * else no plan with lp_solve's status in words. */
static tfc_status phase_failed(int ret, bool nomem, lp_phase phase, const char *file, diag_list *d)
{
    if (nomem)
        return TFC_NOMEM; /* the probe filed it */
    if (ret == NOMEMORY)
        return diag_nomem(d, "in lp_solve, %s", lp_phase_name(phase));
    diag_error(d, file, 0, 0, "no plan: %s failed: %s (status %d)", lp_phase_name(phase), status_words(ret), ret);
    return TFC_INFEASIBLE;
}

/* Phase 3: keep T (bounded since phase 2) and the total freezing within
 * the same tolerance of phase 2's optimum, and minimise z >= every x_u: the
 * largest single freeze ratio. Adds one row for the total, one column z and
 * one row x_u - z <= 0 per freezable action. */
static tfc_status phase3(lprec *lp, const lp_direct_lp *w, arena *a, bool leximin, const char *file, diag_list *d,
                         lp_stats *st, REAL *phase2, REAL *round_start, int nsaved, REAL **use)
{
    size_t K = w->K, n = w->n;
    /* The rows and the column about to be added, for the probe. */
    if (lp_problem_headroom((size_t)get_Nrows(lp) + K + 1, (size_t)get_Ncolumns(lp) + 1,
                            (size_t)get_nonzeros(lp) + 3 * K, d, "in lp_solve, setting up phase 3 of the freeze LP") !=
        TFC_OK)
        return TFC_NOMEM;
    int *cols = arena_alloc_array(a, K + 1, sizeof *cols);
    double *vals = arena_alloc_array(a, K + 1, sizeof *vals);
    bool *fixed = arena_alloc_array(a, K ? K : 1, sizeof *fixed);
    if (!cols || !vals || !fixed)
        return diag_nomem(d, "in phase 3 of the freeze LP");
    bool ok = true;
    for (size_t k = 0; k < K; k++)
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
    if (!ok) {
        diag_error(d, file, 0, 0, "lp_solve refused a row (or ran out of memory) setting up phase 3 of the freeze LP");
        return TFC_INFEASIBLE;
    }
    bool nomem = false;
    double t0 = clock_now_s();
    int ret = solve_robust(lp, d, &nomem);
    st->seconds[2] = clock_now_s() - t0;
    st->iterations[2] = (long long)get_total_iter(lp);
    if (ret == TIMEOUT && !nomem) { /* --lp-timeout: the caller keeps phase 2's plan */
        st->balance_incomplete = true;
        *use = phase2;
        return TFC_OK;
    }
    if (ret != OPTIMAL && (nomem || ret == NOMEMORY))
        return phase_failed(ret, nomem, LP_PHASE_BALANCE, file, d);
    if (ret != OPTIMAL) { /* phase 2's plan (the optimal T* and total) stands, unbalanced */
        diag_warning(d, file, 0, 0,
                     "%s failed: %s (status %d); the plan is phase 2's: the best makespan with the least freezing, "
                     "not balanced",
                     lp_phase_name(LP_PHASE_BALANCE), status_words(ret), ret);
        st->balance_failed = true;
        *use = phase2;
        return TFC_OK;
    }
    st->max_ratio = get_objective(lp);
    if (!leximin)
        return TFC_OK;
    /* Leximin: the actions at the maximum keep it as their bound (x_u <= z*,
     * the z term dropped from their row); minimise the largest ratio of the
     * others, and again, until a round lowers nothing or every action is
     * bounded. Each round only changes bounds and the objective's meaning,
     * so lp_solve restarts from the last basis. */
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
                ok2 = ok2 && set_mat(lp, first_row + (int)k, zcol, 0.0) && set_rh(lp, first_row + (int)k, z + LP_SNAP_TOL);
            }
            left += !fixed[k];
        }
        if (!ok2 || left == 0)
            break;
        /* This round's start, the plan if the next round fails. */
        REAL *now_vars;
        if (get_ptr_variables(lp, &now_vars))
            memcpy(round_start, now_vars, (size_t)nsaved * sizeof *round_start);
        else
            ok2 = false;
        if (!ok2)
            break;
        t0 = clock_now_s();
        ret = solve_robust(lp, d, &nomem);
        st->seconds[2] += clock_now_s() - t0;
        st->iterations[2] += (long long)get_total_iter(lp);
        if (ret == TIMEOUT && !nomem) {
            st->balance_incomplete = true;
            *use = phase2; /* phase 2's plan whole, not a partly balanced one (docs/freeze-lp.md) */
            return TFC_OK;
        }
        if (ret != OPTIMAL) {
            if (nomem || ret == NOMEMORY)
                return phase_failed(ret, nomem, LP_PHASE_BALANCE, file, d);
            /* lp_solve failed on a round (a bound it calls infeasible by
             * its tolerances): the last round's plan stands, as even as
             * the rounds before made it. */
            diag_warning(d, file, 0, 0,
                         "a leximin round of the freeze LP failed (lp_solve's status %d on the round's bounds); the "
                         "plan is the round before's: its largest ratio minimised, the others as far as the rounds "
                         "before went",
                         ret);
            *use = round_start;
            return TFC_OK;
        }
        double z2 = get_objective(lp);
        if (z2 >= z - LP_SNAP_TOL)
            break;
        z = z2;
        st->leximin_rounds++;
    }
    if (!ok2) {
        diag_error(d, file, 0, 0, "lp_solve refused a leximin bound of the freeze LP");
        return TFC_INFEASIBLE;
    }
    return TFC_OK;
}

/* lp_solve's model of the whole LP w, with its settings; NULL with the
 * reason in d (*st_out: TFC_NOMEM or TFC_INFEASIBLE). */
static lprec *make_model(const lp_problem *pb, const lp_direct_lp *w, const char *file, diag_list *d,
                         tfc_status *st_out)
{
    size_t n = w->n;
    /* make_lp and adding the rows allocate in proportion to the LP. */
    *st_out = lp_problem_headroom(w->n_rows, (size_t)w->ncols, w->nz, d, "handing the freeze LP to lp_solve");
    if (*st_out != TFC_OK)
        return NULL;
    lprec *lp = make_lp(0, w->ncols);
    if (!lp) {
        diag_error(d, file, 0, 0, "lp_solve could not allocate the freeze LP (%d columns)", w->ncols);
        *st_out = TFC_INFEASIBLE;
        return NULL;
    }
    set_verbose(lp, NEUTRAL);
    (void)resize_lp(lp, (int)w->n_rows, w->ncols); /* a capacity hint; rows are added below either way */
    set_add_rowmode(lp, TRUE);
    for (size_t i = 0; i < w->n_rows; i++) {
        int k = (int)(w->start[i + 1] - w->start[i]);
        if (!add_constraintex(lp, k, w->val + w->start[i], w->col + w->start[i], w->is_le[i] ? LE : GE, w->rhs[i])) {
            diag_error(d, file, 0, 0, "lp_solve refused row %zu of the freeze LP", i + 1);
            *st_out = TFC_INFEASIBLE;
            delete_lp(lp);
            return NULL;
        }
    }
    set_add_rowmode(lp, FALSE);
    bool set_ok = true;
    for (size_t u = 0; u < n; u++)
        if (w->xcol[u])
            set_ok &= set_upbo(lp, w->xcol[u], lp_action_top(pb, u)) != 0;

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

    /* Phase 1's objective: min T. */
    int tcol = w->tcol;
    double one = 1.0;
    set_ok &= set_obj_fnex(lp, 1, &one, &tcol) != 0;
    set_minim(lp);
    if (!set_ok) {
        diag_error(d, file, 0, 0, "lp_solve refused the freeze LP's bounds or objective");
        *st_out = TFC_INFEASIBLE;
        delete_lp(lp);
        return NULL;
    }
    *st_out = TFC_OK;
    return lp;
}

/* Phase 1 (min T, first without freeze.max_action_ratio when it is below
 * 1, to say whether it costs time), then phase 2 (T bounded, min the total)
 * and phase 3 on the model. */
static tfc_status solve_phases(const lp_problem *pb, const lp_direct_lp *w, lprec *lp, arena *a, const char *file,
                               diag_list *d, lp_stats *st, REAL **use)
{
    size_t n = w->n;
    bool nomem = false;
    bool action_capped = pb->action_cap < 1.0 && w->K;
    double t0 = clock_now_s();
    int ret = OPTIMAL;
    lp_report(pb, LP_PHASE_MAKESPAN, 0, NAN, NAN);
    if (action_capped) {
        /* First without the per-action cap, to say whether the cap costs time. */
        ret = solve_robust(lp, d, &nomem);
        if (ret == OPTIMAL) {
            st->t_star_uncapped = get_objective(lp);
            for (size_t u = 0; u < n; u++)
                if (w->xcol[u] && !set_upbo(lp, w->xcol[u], lp_action_hi(pb, u)))
                    ret = NUMFAILURE;
        }
    }
    if (ret == OPTIMAL)
        ret = solve_robust(lp, d, &nomem);
    st->seconds[0] = clock_now_s() - t0;
    st->iterations[0] = (long long)get_total_iter(lp);
    if (ret != OPTIMAL)
        return phase_failed(ret, nomem, LP_PHASE_MAKESPAN, file, d);
    st->t_star = get_objective(lp);
    if (!action_capped)
        st->t_star_uncapped = st->t_star;

    /* Phase 2: T within tolerance of T*, min total freezing. Only a bound
     * and the objective change, so the last basis stays primal feasible and
     * lp_solve starts from it. */
    if (!set_upbo(lp, w->tcol, st->t_star * (1.0 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS)) {
        diag_error(d, file, 0, 0, "lp_solve refused the phase-2 bound on the makespan");
        return TFC_INFEASIBLE;
    }
    if (!w->K)
        return TFC_OK;
    int *cols = arena_alloc_array(a, w->K, sizeof *cols);
    double *ones = arena_alloc_array(a, w->K, sizeof *ones);
    if (!cols || !ones)
        return diag_nomem(d, "in phase 2 of the freeze LP");
    for (size_t k = 0; k < w->K; k++)
        cols[k] = (int)(n + 1 + k), ones[k] = 1.0;
    if (!set_obj_fnex(lp, (int)w->K, ones, cols)) {
        diag_error(d, file, 0, 0, "lp_solve refused the phase-2 objective");
        return TFC_INFEASIBLE;
    }
    t0 = clock_now_s();
    lp_report(pb, LP_PHASE_FREEZE, 0, NAN, NAN);
    ret = solve_robust(lp, d, &nomem);
    st->seconds[1] = clock_now_s() - t0;
    st->iterations[1] = (long long)get_total_iter(lp); /* counted per solve */
    if (ret != OPTIMAL)
        return phase_failed(ret, nomem, LP_PHASE_FREEZE, file, d);
    st->total_freeze = get_objective(lp);
    if (pb->balance) {
        /* Phase 2's solution, kept in case phase 3 runs past --lp-timeout
         * or fails, and room for a leximin round's start, in case the
         * round fails. */
        REAL *vars;
        int nc = get_Ncolumns(lp);
        REAL *phase2 = arena_alloc_array(a, (size_t)nc + 1, sizeof *phase2);
        REAL *round_start = arena_alloc_array(a, (size_t)nc + 1, sizeof *round_start);
        if (!phase2 || !round_start)
            return diag_nomem(d, "in phase 3 of the freeze LP");
        if (!get_ptr_variables(lp, &vars)) {
            diag_error(d, file, 0, 0, "lp_solve returned no solution");
            return TFC_INFEASIBLE;
        }
        memcpy(phase2, vars, (size_t)nc * sizeof *phase2);
        lp_report(pb, LP_PHASE_BALANCE, 0, NAN, NAN);
        return phase3(lp, w, a, pb->leximin, file, d, st, phase2, round_start, nc, use);
    }
    return TFC_OK;
}

tfc_status lp_direct_solve(const lp_problem *pb, arena *a, const char *file, diag_list *d, double *x,
                           lp_stats *st)
{
    size_t n = pb->s->n_actions;
    lp_direct_lp w;
    if (!lp_direct_build(pb, a, &w)) {
        if (w.overflow) {
            diag_error(d, file, 0, 0, "internal error: the freeze LP has more rows or nonzeros than counted");
            return TFC_INFEASIBLE;
        }
        return diag_nomem(d, "building the freeze LP of %zu actions", n);
    }
    tfc_status result;
    lprec *lp = make_model(pb, &w, file, d, &result);
    if (!lp)
        return result;
    REAL *use = NULL; /* a solution phase 3 kept (phase 2's, or a leximin round's start), else lp's own */
    result = solve_phases(pb, &w, lp, a, file, d, st, &use);
    if (result == TFC_OK) {
        REAL *vars = use;
        if (!vars && !get_ptr_variables(lp, &vars)) {
            diag_error(d, file, 0, 0, "lp_solve returned no solution");
            result = TFC_INFEASIBLE;
        } else {
            for (size_t u = 0; u < n; u++)
                x[u] = w.xcol[u] ? vars[w.xcol[u] - 1] : 0.0;
        }
    }
    delete_lp(lp);
    return result;
}

bool lp_direct_dump(const lp_problem *pb, arena *a, FILE *f)
{
    lp_direct_lp w;
    if (!lp_direct_build(pb, a, &w))
        return false;
    fprintf(f, "{\n  \"format\": \"tfc-freeze-lp-1\",\n  \"cols\": %d,\n  \"t_col\": %d,\n", w.ncols, w.tcol - 1);
    fputs("  \"x_cols\": [", f);
    for (size_t k = 0; k < w.K; k++)
        fprintf(f, "%s%zu", k ? ", " : "", w.n + k);
    fputs("],\n  \"x_max\": ", f);
    json_number(f, pb->action_cap < 1.0 ? pb->action_cap : 1.0);
    if (pb->stage_top) { /* each x column's own bound, in x_cols' order */
        fputs(",\n  \"x_max_each\": [", f);
        for (size_t u = 0, k = 0; u < w.n; u++)
            if (w.xcol[u]) {
                fputs(k++ ? ", " : "", f);
                json_number(f, lp_action_hi(pb, u));
            }
        fputs("]", f);
    }
    fputs(",\n  \"rel_tol\": ", f);
    json_number(f, LP_T_REL_TOL);
    fputs(", \"abs_tol\": ", f);
    json_number(f, LP_T_ABS_TOL_MS);
    fputs(",\n  \"rows\": [", f);
    for (size_t i = 0; i < w.n_rows; i++) {
        fprintf(f, "%s\n    [\"%s\", ", i ? "," : "", w.is_le[i] ? "<=" : ">=");
        json_number(f, w.rhs[i]);
        for (size_t j = w.start[i]; j < w.start[i + 1]; j++) {
            fprintf(f, ", %d, ", w.col[j] - 1);
            json_number(f, w.val[j]);
        }
        fputc(']', f);
    }
    fputs("\n  ]\n}\n", f);
    return !ferror(f);
}
