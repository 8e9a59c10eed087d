/* lp_dw: Dantzig-Wolfe decomposition of the freeze LP (lp_dw.h).
 *
 * Master rows (1-based, as lp_solve numbers them): one budget row per
 * stage with freezable actions (sum of the stage's x <= cap * count; open,
 * rhs infinite, until a plan breaks it: phases12), then the convexity row
 * (the weights sum to 1). Master columns: one weight per subproblem
 * solution in the pool; in phase 2, whose subproblem keeps the deadline
 * T* (1 + tol) + tol itself (lp_price_solve_deadline), pool columns past
 * it sit at weight 0. The subproblem's prices are minus the master's duals
 * (lp_solve's duals are d objective / d rhs, so <= 0 on a binding <= row
 * of a minimisation).
 *
 * Phase 3 (the smallest largest ratio z among the fastest, least-freezing
 * plans) is a bisection on z: z is feasible when phases 1 and 2 with every
 * x_u capped at z still reach T* and phase 2's total (within the
 * tolerances). A column-generated phase 3 (rows x_u <= z in the master)
 * was tried and crawls: the 1e-9 slack in those two rows lets each round
 * lower z by about 1e-10 for hundreds of rounds. Leximin repeats the
 * bisection over the actions below the last maximum.
 *
 * Memory: everything of a fixed size comes from the solve's arena; the
 * column pool and the master's duals grow round by round and stay on
 * malloc (doubling in an arena would keep every outgrown copy, and the
 * pool is the largest thing the decomposition holds: one ratio per
 * freezable action per column). */
#define _POSIX_C_SOURCE 200809L
#include "lp_dw.h"

#include <lpsolve/lp_lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "lp_price.h"
#include "real.h"

/* A phase stops when the master's objective is within this of the best
 * Lagrangian bound, relative to the largest of 1, |objective|, the
 * subproblem's value and the convexity dual: the master's optimum is then
 * the LP's to within it (docs/freeze-lp.md). */
#define DW_RC_TOL 1e-10
/* A master's warm re-solve (from the last round's basis) takes a few
 * iterations, at most 224 in the specs measured; past DW_WARM_ITER_BASE +
 * DW_WARM_ITER_PER (rows + columns) it is stalling on the degenerate
 * master (17,602 to 156,201 iterations seen on a DualPipeV 16 x 2 x 32
 * spec's phase 2, where a solve from lp_solve's default basis took about
 * 250) and master_resolve starts it over from that basis. */
#define DW_WARM_ITER_BASE 1000LL
#define DW_WARM_ITER_PER 2LL
/* Wentges smoothing: the weight of the best prices so far. */
#define DW_SMOOTHING 0.3
/* Phase 3's bisection stops when the feasible and infeasible caps are this
 * close: the largest ratio is minimal to within it. */
#define DW_Z_TOL 1e-6
/* Phase 2's subproblem aims this much (relative to the unfrozen step)
 * under the deadline, so that its plans keep the deadline despite the
 * flow solver's rounding (its tolerance is 1e-11 of the same); at most a
 * quarter of the deadline's own room above T* (LP_T_REL_TOL T* +
 * LP_T_ABS_TOL_MS), which may be smaller when T* is a small part of the
 * unfrozen step: a deeper cut could fall under the fully frozen step. */
#define DW_DEADLINE_MARGIN 4e-11
/* Master rounds per phase before giving up (never reached in tests). */
#define DW_MAX_ROUNDS 20000
/* A phase 1 that starts from prices handed in (phases12, after budget
 * rows joined) and for this many rounds neither lowers the master's
 * objective nor raises the bound (each by 1e-9 of the objective) starts
 * over from the master's own prices on the pool it has: from the prices
 * handed in, lp_solve's master can sit on one degenerate vertex while
 * every round adds a column that prices out but moves nothing (LoopedBFS
 * 16 x 2 x 128 from Llama-3-8B's config: 2,083 such rounds, 26 s; 74
 * rounds in all from the master's prices). Otherwise no warm-started
 * phase 1 went 11 rounds without progress over 84 Llama-3-8B shapes of
 * every schedule (docs/freeze-lp.md). */
#define DW_STALL_ROUNDS 20

typedef struct dw {
    const lp_problem *pb;
    lp_price *pr;
    arena *a;            /* the solve's scratch */
    size_t n, K, S;      /* actions, freezable actions, budget rows */
    uint32_t *act;       /* K: the action of each freezable index */
    uint32_t *budget_of; /* K: its budget row (0-based) */
    double *budget;      /* S: cap * count */
    /* The column pool (malloc: it grows; dw_release frees it). */
    size_t ncol, colcap;
    double *T, *X, *Xs, *x; /* ncol; ncol; ncol * S; ncol * K */
    double *duals;          /* the master's duals, duals_cap entries (malloc: grows with the columns) */
    size_t duals_cap;
    double *seed;           /* nseed * K: the main phases' pool, phase 3's checks start from (malloc) */
    size_t nseed;
    /* Scratch. */
    double *c, *xa, *xbar, *row;
    double *lam, *lam_in, *lam_out; /* S: budget prices, smoothed / centre / master's */
    double *xs_new;                 /* S: scratch, a new column's stage sums */
    double *final_lam;              /* S: the last run's best-bound prices */
    bool *active;                   /* S: whether the master holds the stage's budget row (else it is open) */
    bool start[2];                  /* phase 1 / 2 runs start from these prices: */
    double *start_lam[2];
    int *rowcol;
    bool nomem;                     /* memory ran out (diag_nomem filed) */
    bool gave_up;                   /* phase 1 or 2 could not go on; nothing filed (lp_stats.dw_gave_up) */
    long long master_iters;         /* lp_stats.master_iterations */
    lp_phase gave_up_in;
    char gave_up_why[128];
    double last_lb;                 /* the last run_phase's best Lagrangian bound */
    const char *file;
    diag_list *d;
} dw;

static void dw_release(dw *w)
{
    free(w->T);
    free(w->X);
    free(w->Xs);
    free(w->x);
    free(w->duals);
    free(w->seed);
}

static bool oom(dw *w)
{
    w->nomem = true;
    diag_nomem(w->d, "in the freeze LP's decomposition (%zu actions)", w->n);
    return false;
}

/* The memory probe (lp_problem_headroom) before lp_solve works on a master
 * of rows x cols with dense columns. */
static bool headroom(dw *w, size_t rows, size_t cols)
{
    if (lp_problem_headroom(rows, cols, cols * (rows + 1), w->d, "in lp_solve on the freeze LP's master") == TFC_OK)
        return true;
    w->nomem = true;
    return false;
}

/* Phase 1 or 2 cannot go on (why: for the warning lp_freeze_solve gives
 * when it solves the LP whole instead); nothing is filed. */
static void give_up(dw *w, lp_phase phase, const char *why)
{
    w->gave_up = true;
    w->gave_up_in = phase;
    snprintf(w->gave_up_why, sizeof w->gave_up_why, "%s", why);
}

static bool dw_init(dw *w, const lp_problem *pb, lp_price *pr, arena *a, const char *file, diag_list *d)
{
    memset(w, 0, sizeof *w);
    w->pb = pb;
    w->pr = pr;
    w->a = a;
    w->file = file;
    w->d = d;
    const sched *s = pb->s;
    size_t n = s->n_actions;
    w->n = n;
    for (size_t u = 0; u < n; u++)
        w->K += pb->freezable[u];
    size_t K = w->K ? w->K : 1, nst = s->n_stages ? s->n_stages : 1;
    w->act = arena_alloc_array(a, K, sizeof *w->act);
    w->budget_of = arena_alloc_array(a, K, sizeof *w->budget_of);
    w->budget = arena_alloc_array(a, nst, sizeof *w->budget);
    w->c = arena_alloc_array(a, n ? n : 1, sizeof *w->c);
    w->xa = arena_alloc_array(a, n ? n : 1, sizeof *w->xa);
    w->xbar = arena_alloc_array(a, K, sizeof *w->xbar);
    w->lam = arena_alloc_array(a, nst, sizeof *w->lam);
    w->lam_in = arena_alloc_array(a, nst, sizeof *w->lam_in);
    w->lam_out = arena_alloc_array(a, nst, sizeof *w->lam_out);
    w->xs_new = arena_alloc_array(a, nst, sizeof *w->xs_new);
    w->final_lam = arena_alloc_array(a, nst, sizeof *w->final_lam);
    w->active = arena_alloc_array(a, nst, sizeof *w->active);
    w->start_lam[0] = arena_alloc_array(a, nst, sizeof *w->start_lam[0]);
    w->start_lam[1] = arena_alloc_array(a, nst, sizeof *w->start_lam[1]);
    w->row = arena_alloc_array(a, nst + 4, sizeof *w->row);       /* a master column: objective, budgets, T, convexity */
    w->rowcol = arena_alloc_array(a, nst + 4, sizeof *w->rowcol);
    size_t *count = arena_alloc_array(a, nst, sizeof *count);
    int *bidx = arena_alloc_array(a, nst, sizeof *bidx);
    if (!w->act || !w->budget_of || !w->budget || !w->c || !w->xa || !w->xbar || !w->lam || !w->lam_in ||
        !w->lam_out || !w->xs_new || !w->final_lam || !w->active || !w->start_lam[0] || !w->start_lam[1] || !w->row ||
        !w->rowcol || !count || !bidx)
        return oom(w);
    for (size_t u = 0; u < n; u++)
        if (pb->freezable[u])
            count[s->actions[u].stage]++;
    for (size_t st = 0; st < s->n_stages; st++) {
        bidx[st] = count[st] ? (int)w->S : -1;
        if (count[st])
            w->budget[w->S++] = pb->cap * (double)count[st];
    }
    size_t k = 0;
    for (size_t u = 0; u < n; u++)
        if (pb->freezable[u]) {
            w->act[k] = (uint32_t)u;
            w->budget_of[k++] = (uint32_t)bidx[s->actions[u].stage];
        }
    w->K = k;
    return true;
}

/* *p resized to n doubles; on no memory false, *p untouched. */
static bool grow(double **p, size_t n)
{
    double *q = realloc(*p, n * sizeof *q);
    if (q)
        *p = q;
    return q != NULL;
}

/* Adds the subproblem solution xa (per action) with makespan T. */
static bool add_col(dw *w, double T)
{
    if (w->ncol == w->colcap) {
        size_t c = w->colcap ? 2 * w->colcap : 64;
        if (!grow(&w->T, c) || !grow(&w->X, c) || !grow(&w->Xs, c * (w->S ? w->S : 1)) ||
            !grow(&w->x, c * (w->K ? w->K : 1)))
            return oom(w);
        w->colcap = c;
    }
    size_t j = w->ncol++;
    double *xs = w->Xs + j * w->S, *xk = w->x + j * w->K;
    for (size_t b = 0; b < w->S; b++)
        xs[b] = 0.0;
    double tot = 0.0;
    for (size_t k = 0; k < w->K; k++) {
        double v = w->xa[w->act[k]];
        xk[k] = v;
        xs[w->budget_of[k]] += v;
        tot += v;
    }
    w->T[j] = T;
    w->X[j] = tot;
    return true;
}


typedef struct master {
    lprec *lp;
    lp_phase phase;         /* LP_PHASE_MAKESPAN or LP_PHASE_FREEZE */
    int conv_row;
    double t_lim;           /* phase 2's deadline: the subproblem's, and no pool column past it */
    size_t in_lp;           /* pool columns already in lp */
    bool polished;          /* rebuilt unscaled after its prices repeated a column (NEXT_POLISH) */
} master;

/* The column of pool entry j as (row, value) pairs, the objective as row 0. */
static int col_entries(const dw *w, const master *m, size_t j, double *val, int *row)
{
    int k = 0;
    double obj = m->phase == LP_PHASE_MAKESPAN ? w->T[j] : w->X[j];
    if (obj != 0.0)
        row[k] = 0, val[k++] = obj;
    for (size_t b = 0; b < w->S; b++)
        if (w->Xs[j * w->S + b] != 0.0)
            row[k] = (int)b + 1, val[k++] = w->Xs[j * w->S + b];
    row[k] = m->conv_row, val[k++] = 1.0;
    return k;
}

/* How far under the deadline phase 2's subproblem aims
 * (DW_DEADLINE_MARGIN). */
static double deadline_margin(const dw *w, const master *m)
{
    double t_star = (m->t_lim - LP_T_ABS_TOL_MS) / (1.0 + LP_T_REL_TOL);
    return fmin(DW_DEADLINE_MARGIN * w->pr->scale, 0.25 * (m->t_lim - t_star));
}

/* Whether pool column j is a point of phase 2's subproblem: a makespan
 * within the deadline. */
static bool within_deadline(const dw *w, const master *m, size_t j)
{
    return w->T[j] <= m->t_lim;
}

static bool master_sync(dw *w, master *m)
{
    /* lp_solve grows its matrix for the new columns (unchecked). */
    if (m->in_lp < w->ncol && !headroom(w, (size_t)w->S + 1, w->ncol))
        return false;
    for (; m->in_lp < w->ncol; m->in_lp++) {
        int k = col_entries(w, m, m->in_lp, w->row, w->rowcol);
        if (!add_columnex(m->lp, k, w->row, w->rowcol))
            return oom(w);
        /* Columns past phase 2's deadline stay in the pool (and the
         * master, so its columns stay the pool's) at weight 0. */
        if (m->phase == LP_PHASE_FREEZE && !within_deadline(w, m, m->in_lp) &&
            !set_upbo(m->lp, (int)m->in_lp + 1, 0.0))
            return oom(w);
    }
    return true;
}

static void master_free(master *m)
{
    if (m->lp)
        delete_lp(m->lp);
    m->lp = NULL;
}

static bool master_make(dw *w, master *m, lp_phase phase, double t_lim)
{
    memset(m, 0, sizeof *m);
    m->phase = phase;
    m->t_lim = t_lim;
    int nrows = (int)w->S + 1;
    if (!headroom(w, (size_t)nrows, w->ncol))
        return false;
    m->lp = make_lp(nrows, 0);
    if (!m->lp)
        return oom(w);
    set_verbose(m->lp, NEUTRAL);
    set_minim(m->lp);
    bool ok = true;
    int r = 0;
    for (size_t b = 0; b < w->S && ok; b++)
        ok = set_constr_type(m->lp, ++r, LE) &&
             set_rh(m->lp, r, w->active[b] ? w->budget[b] : get_infinite(m->lp));
    m->conv_row = ++r;
    ok = ok && set_constr_type(m->lp, r, EQ) && set_rh(m->lp, r, 1.0);
    if (!ok)
        return oom(w);
    return master_sync(w, m);
}

/* The combined ratios of the master's current solution into w->xbar. */
static bool combine(dw *w, const master *m)
{
    REAL *vars;
    if (!get_ptr_variables(m->lp, &vars))
        return false;
    for (size_t q = 0; q < w->K; q++)
        w->xbar[q] = 0.0;
    for (size_t j = 0; j < w->ncol; j++) {
        double mu = vars[j];
        if (mu == 0.0)
            continue;
        const double *xk = w->x + j * w->K;
        for (size_t q = 0; q < w->K; q++)
            w->xbar[q] += mu * xk[q];
    }
    return true;
}

/* Whether the pool has a column with the subproblem's answer's (w->xa, T)
 * makespan and stage sums, to 1e-12 relative. */
static bool in_pool(dw *w, double T)
{
    for (size_t b = 0; b < w->S; b++)
        w->xs_new[b] = 0.0;
    for (size_t q = 0; q < w->K; q++)
        w->xs_new[w->budget_of[q]] += w->xa[w->act[q]];
    for (size_t j = 0; j < w->ncol; j++) {
        if (fabs(w->T[j] - T) > 1e-12 * fmax(1.0, fabs(T)))
            continue;
        const double *xs = w->Xs + j * w->S;
        size_t b = 0;
        while (b < w->S && fabs(xs[b] - w->xs_new[b]) <= 1e-12 * fmax(1.0, fabs(xs[b])))
            b++;
        if (b == w->S)
            return true;
    }
    return false;
}

/* RUN_NUMERIC: lp_solve failed on the master every way it was tried (no
 * diagnostic written; phase 3's checks treat it as "not shown feasible"). */
/* RUN_STALLED: a warm-started phase 1 made no progress for
 * DW_STALL_ROUNDS rounds (phases12 runs it again from the master's
 * prices). */
typedef enum { RUN_OPTIMAL, RUN_BELOW, RUN_ABOVE, RUN_NUMERIC, RUN_TIMEOUT, RUN_ERROR, RUN_STALLED } run_result;

typedef enum { MASTER_SOLVED, MASTER_UNSOLVED, MASTER_ERROR } master_result;

/* The master built afresh from the pool, without lp_solve's scaling (its
 * tolerances then hold on the master's own values); polished kept. */
static bool master_rebuild_unscaled(dw *w, master *m)
{
    lp_phase ph = m->phase;
    double lim = m->t_lim;
    bool polished = m->polished;
    master_free(m);
    if (!master_make(w, m, ph, lim))
        return false;
    m->polished = polished;
    set_scaling(m->lp, SCALE_NONE);
    return true;
}

/* Step 1 of a round, the robust master re-solve. The last basis can
 * mislead lp_solve on this small but very degenerate LP (columns exactly
 * at a row's bound), or stall it (past DW_WARM_ITER_*): once more from
 * its default basis, then once more on
 * a master built afresh, unscaled, with the primal simplex in both phases.
 * MASTER_UNSOLVED with lp_solve's last status in *ret when all three fail;
 * MASTER_ERROR (filed) when memory runs out. */
static master_result master_resolve(dw *w, master *m, int *ret)
{
    if (!headroom(w, (size_t)w->S + 1, w->ncol))
        return MASTER_ERROR;
    *ret = lp_problem_solve_within(m->lp, DW_WARM_ITER_BASE +
                                              DW_WARM_ITER_PER * ((long long)get_Nrows(m->lp) + get_Ncolumns(m->lp)));
    w->master_iters += (long long)get_total_iter(m->lp);
    if (*ret != OPTIMAL) {
        default_basis(m->lp);
        *ret = lp_problem_solve(m->lp);
        w->master_iters += (long long)get_total_iter(m->lp);
        if (*ret != OPTIMAL) {
            if (!master_rebuild_unscaled(w, m))
                return MASTER_ERROR;
            set_simplextype(m->lp, SIMPLEX_PRIMAL_PRIMAL);
            *ret = lp_problem_solve(m->lp);
            w->master_iters += (long long)get_total_iter(m->lp);
        }
    }
    return *ret == OPTIMAL ? MASTER_SOLVED : MASTER_UNSOLVED;
}

/* The master's prices: minus the duals of the <= budget rows into
 * w->lam_out (clamped at 0: a Lagrangian bound needs them non-negative),
 * the convexity row's dual into *sigma. False when lp_solve gives no duals
 * (nothing filed: the caller takes the master as unsolved) or memory runs
 * out (filed, w->nomem). lp_solve can end a solve OPTIMAL with a rebase
 * still pending (seen on a phase-3 check's master of an interleaved 6 x 2
 * spec, tests/specs/lp_no_duals.yaml), and then has no duals to give: one
 * more solve from its default basis, as master_resolve does, usually
 * clears it. */
static bool master_prices(dw *w, const master *m, double *sigma)
{
    /* lp_solve writes 1 + rows + columns duals (index 0 unused). */
    size_t need = 1 + (size_t)get_Nrows(m->lp) + (size_t)get_Ncolumns(m->lp);
    if (need > w->duals_cap) {
        REAL *grown = realloc(w->duals, sizeof *grown * need);
        if (!grown)
            return oom(w);
        w->duals = grown;
        w->duals_cap = need;
    }
    if (!get_dual_solution(m->lp, w->duals)) {
        default_basis(m->lp);
        int ret = lp_problem_solve(m->lp);
        w->master_iters += (long long)get_total_iter(m->lp);
        if (ret != OPTIMAL || !get_dual_solution(m->lp, w->duals))
            return false;
    }
    *sigma = w->duals[m->conv_row];
    for (size_t b = 0; b < w->S; b++)
        w->lam_out[b] = fmax(0.0, -w->duals[1 + b]);
    return true;
}

/* Step 2, smoothing (Wentges): price at a point between the best prices
 * so far (by their bound: the centre, w->lam_in) and the master's, which
 * damps the master's swings; after a round whose column did not help the
 * master (mispriced), price at the master's own; with prices handed in
 * (w->start: phase 1 after budget rows joined, phases12; phase 3's checks,
 * from the main phases' final prices), the first round prices at them. The
 * prices go to w->lam, the priced right-hand sides to *bound_const; returns
 * the centre's weight. */
static double smooth_prices(dw *w, const master *m, long long round, bool mispriced, double *bound_const)
{
    bool warm = round == 0 && w->start[m->phase - 1];
    if (round == 0) /* the first centre: the prices handed in, else the master's */
        memcpy(w->lam_in, warm ? w->start_lam[m->phase - 1] : w->lam_out, w->S * sizeof *w->lam_in);
    double a = warm ? 1.0 : mispriced ? 0.0 : DW_SMOOTHING;
    *bound_const = 0.0;
    for (size_t b = 0; b < w->S; b++) {
        w->lam[b] = a * w->lam_in[b] + (1.0 - a) * w->lam_out[b];
        *bound_const += w->lam[b] * w->budget[b];
    }
    return a;
}

/* Step 3, pricing: the subproblem at w->lam, its answer in w->xa with its
 * makespan *T and value *val. Phase 1 prices time at 1; phase 2 bounds it
 * by its deadline. */
static lp_price_status price(dw *w, const master *m, double *T, double *val)
{
    for (size_t q = 0; q < w->K; q++)
        w->c[w->act[q]] = (m->phase == LP_PHASE_FREEZE ? 1.0 : 0.0) + w->lam[w->budget_of[q]];
    if (m->phase == LP_PHASE_MAKESPAN)
        return lp_price_solve(w->pr, 1.0, w->c, w->xa, T, val) ? LP_PRICE_OK : LP_PRICE_FAILED;
    return lp_price_solve_deadline(w->pr, m->t_lim - deadline_margin(w, m), w->c, w->xa, T, val);
}

/* One round's numbers, for the convergence test. */
typedef struct round_vals {
    double obj;         /* the master's objective */
    double sigma;       /* the convexity row's dual */
    double a;           /* the smoothing centre's weight (smooth_prices) */
    double bound_const; /* the priced right-hand sides */
    double T, val;      /* the subproblem's makespan and value */
} round_vals;

typedef enum { NEXT_ADD, NEXT_REPRICE, NEXT_POLISH, NEXT_STOP } next_step;

/* Step 4, the convergence test. The Lagrangian bound at the round's prices
 * bounds the phase's optimum from below; the best one (*lb) is the next
 * smoothing centre. NEXT_STOP with *res once the bound passes `above`,
 * meets the master's objective (to DW_RC_TOL), or the column prices out
 * only by noise; NEXT_REPRICE when the column did not price out at the
 * master's own prices (mispriced: the next round prices there);
 * NEXT_POLISH when, in phase 1 or 2, one the pool holds prices out at the
 * master's own prices beyond the noise: its prices are wrong, and the
 * master is rebuilt unscaled once (give_up the second time); else
 * NEXT_ADD: the column joins the master. */
static next_step convergence_test(dw *w, const master *m, lp_phase phase, const round_vals *r, double above,
                                  double *lb, run_result *res)
{
    double bound = r->val - r->bound_const;
    if (bound > *lb) {
        *lb = bound;
        memcpy(w->lam_in, w->lam, w->S * sizeof *w->lam_in);
    }
    if (*lb > above) {
        *res = RUN_ABOVE;
        return NEXT_STOP;
    }
    /* The gap's noise scales with the terms of the bound (lp_solve's
     * duals carry about 1e-11 relative error). */
    double scale = fmax(1.0, fmax(fabs(r->obj), fmax(fabs(r->val), fabs(r->sigma))));
    if (r->obj - *lb <= DW_RC_TOL * scale) {
        *res = RUN_OPTIMAL;
        return NEXT_STOP;
    }
    /* The column's reduced cost at the master's own prices. */
    double rc = (m->phase == LP_PHASE_MAKESPAN ? r->T : 0.0) - r->sigma;
    for (size_t q = 0; q < w->K; q++)
        rc += ((m->phase == LP_PHASE_FREEZE ? 1.0 : 0.0) + w->lam_out[w->budget_of[q]]) * w->xa[w->act[q]];
    if (rc >= -DW_RC_TOL * scale) {
        if (r->a == 0.0) {
            /* Nothing prices out at the master's prices: optimal up to
             * the noise the bound's gap shows. */
            *res = RUN_OPTIMAL;
            return NEXT_STOP;
        }
        return NEXT_REPRICE;
    }
    /* A column the master already has (the same makespan and stage
     * sums), priced out only by noise: a second copy only makes lp_solve's
     * master degenerate. Found at the master's own prices, nothing is left
     * to gain; found at other prices (smoothed, or handed in), it says
     * nothing of the master's: in phases 1 and 2 the next round prices
     * there. Phase 3's checks stop (a cap called infeasible that is not
     * only leaves the largest ratio higher, within what
     * tests/lp_oracle.py --balance-random checks; repricing there took the
     * 98,304-action spec's phase 3 from 1 round to over 400). */
    if (in_pool(w, r->T)) {
        if (r->a != 0.0 && phase != LP_PHASE_BALANCE)
            return NEXT_REPRICE;
        if (rc >= -1e3 * DW_RC_TOL * scale) {
            *res = RUN_OPTIMAL;
            return NEXT_STOP;
        }
        if (phase == LP_PHASE_BALANCE) {
            *res = RUN_NUMERIC; /* not shown feasible: the check's cap is not taken */
            return NEXT_STOP;
        }
        if (!m->polished)
            return NEXT_POLISH;
        char why[96];
        snprintf(why, sizeof why, "it repeats a column, reduced cost %s", real_shortest(rc).s);
        give_up(w, phase, why); /* the caller solves the LP whole */
        return NEXT_STOP;
    }
    return NEXT_ADD;
}

/* Column generation until nothing prices out (RUN_OPTIMAL), or, for a
 * feasibility question, until the master's objective is at most `below`
 * (RUN_BELOW: a combination that good exists) or the Lagrangian lower
 * bound exceeds `above` (RUN_ABOVE: none does). On return the master
 * holds its last solution. `phase` names errors (LP_PHASE_BALANCE for
 * phase 3's checks, whose masters lp_solve cannot solve are RUN_NUMERIC
 * rather than errors). Each round: the master re-solve, smoothing,
 * pricing, the convergence test, and the new column. */
static run_result run_phase(dw *w, master *m, lp_phase phase, double below, double above, double deadline,
                            long long *rounds)
{
    run_result res = RUN_ERROR;
    double lb = -INFINITY;
    bool mispriced = false;
    /* Progress, for DW_STALL_ROUNDS: the least objective and the best
     * bound so far, and the rounds since either moved. */
    bool may_stall = phase == LP_PHASE_MAKESPAN && w->start[0];
    double least_obj = INFINITY, best_lb = -INFINITY;
    long long stalled = 0;
    for (long long round = 0;; round++) {
        if (round >= DW_MAX_ROUNDS) {
            if (phase == LP_PHASE_BALANCE)
                diag_error(w->d, w->file, 0, 0, "no plan: %s did not converge in %d rounds of its decomposition",
                           lp_phase_name(phase), DW_MAX_ROUNDS);
            else /* the caller solves the LP whole */
                give_up(w, phase, "its rounds ran out");
            break;
        }
        if (deadline > 0.0 && clock_now_s() > deadline && phase == LP_PHASE_BALANCE) {
            res = RUN_TIMEOUT; /* phase 3: the caller keeps phase 2's plan */
            break;
        }
        if (deadline > 0.0 && clock_now_s() > deadline) {
            diag_error(w->d, w->file, 0, 0,
                       "no plan: %s failed: it ran past the time limit (raise it with --lp-timeout, or compare "
                       "policies with --policy uniform)",
                       lp_phase_name(phase));
            break;
        }
        int ret = OPTIMAL;
        master_result mr = master_resolve(w, m, &ret);
        if (mr == MASTER_ERROR)
            break;
        if (mr == MASTER_UNSOLVED) {
            if (phase == LP_PHASE_BALANCE) {
                res = RUN_NUMERIC;
                break;
            }
            char why[64];
            snprintf(why, sizeof why, "lp_solve's status %d on its master", ret);
            give_up(w, phase, why); /* the caller solves the LP whole */
            break;
        }
        round_vals r = {.obj = get_objective(m->lp)};
        if (r.obj <= below) {
            res = RUN_BELOW;
            break;
        }
        if (!master_prices(w, m, &r.sigma)) {
            if (w->nomem)
                break;
            /* No duals: as a master lp_solve cannot solve (above). */
            if (phase == LP_PHASE_BALANCE) {
                res = RUN_NUMERIC;
                break;
            }
            give_up(w, phase, "lp_solve gave no duals for its master"); /* the caller solves the LP whole */
            break;
        }
        r.a = smooth_prices(w, m, round, mispriced, &r.bound_const);
        lp_price_status ps = price(w, m, &r.T, &r.val);
        if (ps == LP_PRICE_BEYOND_REACH && phase == LP_PHASE_BALANCE) {
            /* A cap under phase 3's check that cannot reach the deadline
             * even fully frozen (phase 1 reached it only up to rounding). */
            res = RUN_NUMERIC;
            break;
        }
        if (ps != LP_PRICE_OK) {
            diag_error(w->d, w->file, 0, 0, "no plan: %s failed: the flow subproblem did not solve (%s)",
                       lp_phase_name(phase),
                       ps == LP_PRICE_BEYOND_REACH ? "its deadline is shorter than the fully frozen step"
                                                   : "out of memory, or its pivot limit");
            break;
        }
        (*rounds)++;
        next_step next = convergence_test(w, m, phase, &r, above, &lb, &res);
        if (phase != LP_PHASE_BALANCE) /* phase 3 reports its bisection instead */
            lp_report(w->pb, phase, *rounds, lb, r.obj);
        if (next == NEXT_STOP)
            break;
        double noise = 1e-9 * fmax(1.0, fabs(r.obj));
        stalled = r.obj < least_obj - noise || lb > best_lb + noise ? 0 : stalled + 1;
        least_obj = fmin(least_obj, r.obj);
        best_lb = fmax(best_lb, lb);
        if (may_stall && stalled >= DW_STALL_ROUNDS) {
            res = RUN_STALLED;
            break;
        }
        if (next == NEXT_POLISH) { /* its prices, re-solved unscaled, at the next round */
            if (!master_rebuild_unscaled(w, m))
                break;
            m->polished = true;
            mispriced = true;
            continue;
        }
        mispriced = next == NEXT_REPRICE;
        if (mispriced)
            continue;
        if (!add_col(w, r.T) || !master_sync(w, m))
            break;
    }
    w->last_lb = lb;
    /* The best-bound prices, for later runs to start from. */
    memcpy(w->final_lam, w->lam_in, w->S * sizeof *w->final_lam);
    return res;
}

/* A fresh pool holding the baseline (nothing frozen: within every budget). */
static bool start_pool(dw *w)
{
    for (size_t u = 0; u < w->n; u++)
        w->xa[u] = 0.0, w->c[u] = 1.0;
    double T, val;
    return lp_price_solve(w->pr, 0.0, w->c, w->xa, &T, &val) && add_col(w, T);
}

/* The phase-1 master's combination as one more column: (its x, its
 * objective) is a point of the subproblem's set (the makespan is convex),
 * and on its own it satisfies phase 2's rows, which keeps lp_solve from
 * calling phase 2's first master infeasible over rounding (seen once on
 * 1F1B 16 x 256). */
static bool add_combination(dw *w, const master *m)
{
    if (!combine(w, m))
        return false;
    for (size_t q = 0; q < w->K; q++)
        w->xa[w->act[q]] = w->xbar[q];
    return add_col(w, get_objective(m->lp));
}

/* The deadline of a phase that has already spent `spent` seconds. */
static double phase_deadline(const dw *w, double spent)
{
    return w->pb->timeout_s > 0 ? clock_now_s() + w->pb->timeout_s - spent : 0.0;
}

/* After rows joined: each pool column that breaks a held budget, scaled
 * down stage by stage onto those budgets, as one more column (a plan
 * within the caps and the budgets, its makespan taken again), so that the
 * master's first rounds combine plans the rows allow rather than only the
 * baseline against plans far past them. (xs_new holds the scale factors
 * until in_pool reuses it.) */
static bool scaled_pool(dw *w)
{
    size_t n0 = w->ncol;
    for (size_t j = 0; j < n0; j++) {
        const double *xs = w->Xs + j * w->S, *xk = w->x + j * w->K;
        bool any = false;
        for (size_t b = 0; b < w->S; b++) {
            w->xs_new[b] = w->active[b] && xs[b] > w->budget[b] ? w->budget[b] / xs[b] : 1.0;
            any = any || w->xs_new[b] < 1.0;
        }
        if (!any)
            continue;
        for (size_t u = 0; u < w->n; u++)
            w->xa[u] = 0.0;
        for (size_t q = 0; q < w->K; q++)
            w->xa[w->act[q]] = xk[q] * w->xs_new[w->budget_of[q]];
        double T = lp_price_makespan(w->pr, w->xa);
        if (!in_pool(w, T) && !add_col(w, T))
            return false;
    }
    return true;
}

/* Phases 1 and 2 on pr's caps, on a fresh pool: *t_star, *total, and
 * phase 2's plan in w->xbar. Budget rows join the master only once a plan
 * breaks them: phase 1 on the rows held so far gives T_A <= T*; phase 2
 * then finds the least freezing within T_A's deadline on those rows. When
 * that plan keeps every other budget too, it is feasible for the whole LP,
 * so T* = T_A (to the tolerance) and, being optimal for a relaxation of
 * phase 2, it is phase 2's optimum. Otherwise the broken rows join and both
 * run again on the same pool, with phase 1 starting from prices: the rows
 * held before at their last phase 1's, the new ones at the inverse of phase
 * 2's price of time, and from the pool's columns scaled onto the budgets.
 * (From the master's first prices instead, phase 1 took 25 rounds at ZBV
 * 32 x 2 x 512; now 7: docs/freeze-lp.md.) Usually only the stages on the
 * critical ranks ever join. */
static bool phases12(dw *w, double *t_star, double *total, lp_stats *st)
{
    w->start[0] = false; /* the first phase 1 from the master's prices */
    for (size_t b = 0; b < w->S; b++)
        w->active[b] = false;
    w->ncol = 0;
    if (!start_pool(w))
        return false;
    for (;;) {
        master m = {0};
        double t0 = clock_now_s();
        run_result r1 = RUN_ERROR;
        if (master_make(w, &m, LP_PHASE_MAKESPAN, 0.0))
            r1 = run_phase(w, &m, LP_PHASE_MAKESPAN, -INFINITY, INFINITY, phase_deadline(w, st->seconds[0]),
                           &st->iterations[0]);
        if (r1 == RUN_STALLED) { /* once more, from the master's prices (DW_STALL_ROUNDS) */
            master_free(&m);
            w->start[0] = false;
            if (master_make(w, &m, LP_PHASE_MAKESPAN, 0.0))
                r1 = run_phase(w, &m, LP_PHASE_MAKESPAN, -INFINITY, INFINITY, phase_deadline(w, st->seconds[0]),
                               &st->iterations[0]);
            else
                r1 = RUN_ERROR;
        }
        bool ok = r1 == RUN_OPTIMAL;
        if (ok) {
            *t_star = get_objective(m.lp);
            memcpy(w->start_lam[0], w->final_lam, w->S * sizeof *w->final_lam);
            ok = add_combination(w, &m);
        }
        master_free(&m);
        st->seconds[0] += clock_now_s() - t0;
        if (!ok)
            return false;
        if (!w->K) {
            *total = 0.0;
            return true;
        }
        t0 = clock_now_s();
        double t_lim = *t_star * (1.0 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS;
        ok = master_make(w, &m, LP_PHASE_FREEZE, t_lim) &&
             run_phase(w, &m, LP_PHASE_FREEZE, -INFINITY, INFINITY, phase_deadline(w, st->seconds[1]),
                       &st->iterations[1]) == RUN_OPTIMAL;
        /* The price of time the last deadline subproblem found (its
         * circulation's return flow: freezing per ms); a budget row that
         * joins starts priced at its inverse (ms per unit of freezing), the
         * rate at which that phase traded one for the other. */
        double mu = lp_price_time_price(w->pr);
        if (ok) {
            *total = get_objective(m.lp);
            memcpy(w->start_lam[1], w->final_lam, w->S * sizeof *w->final_lam);
            ok = combine(w, &m);
        }
        master_free(&m);
        st->seconds[1] += clock_now_s() - t0;
        if (!ok)
            return false;
        /* The rows the plan breaks (beyond the master's own tolerance). */
        for (size_t b = 0; b < w->S; b++)
            w->xs_new[b] = 0.0;
        for (size_t q = 0; q < w->K; q++)
            w->xs_new[w->budget_of[q]] += w->xbar[q];
        bool joined = false;
        for (size_t b = 0; b < w->S; b++)
            if (!w->active[b] && w->xs_new[b] > w->budget[b] * (1.0 + 1e-9) + 1e-9) {
                w->active[b] = joined = true;
                w->start_lam[0][b] = mu > 0.0 ? 1.0 / mu : 0.0;
            }
        if (!joined) {
            st->budget_rows = 0;
            for (size_t b = 0; b < w->S; b++)
                st->budget_rows += w->active[b];
            return true;
        }
        /* The next phase 1 starts at these prices (smooth_prices), and from
         * plans within the budgets (scaled_pool). */
        w->start[0] = true;
        if (!scaled_pool(w))
            return false;
        st->budget_rounds++;
    }
}

typedef enum { CHECK_FEASIBLE, CHECK_INFEASIBLE, CHECK_TIMEOUT, CHECK_ERROR } check_result;

/* Keeps the pool the main phases ended with (w->seed), for phase 3's
 * checks to start from. */
static bool save_seed(dw *w)
{
    w->seed = malloc((w->ncol ? w->ncol : 1) * (w->K ? w->K : 1) * sizeof *w->seed);
    if (!w->seed)
        return oom(w);
    memcpy(w->seed, w->x, w->ncol * w->K * sizeof *w->seed);
    w->nseed = w->ncol;
    return true;
}

/* A fresh pool for pr's current caps: the baseline, and each column of
 * the main phases' pool clipped to the caps with its makespan taken again
 * (a plan within the caps, so a point of the check's subproblem; columns
 * under larger caps are not, as they are). Near the optimum from the first
 * round, the check's bounds close in a few rounds instead of rebuilding the
 * pool from nothing. */
static bool seed_pool(dw *w)
{
    w->ncol = 0;
    if (!start_pool(w))
        return false;
    for (size_t j = 0; j < w->nseed; j++) {
        const double *xk = w->seed + j * w->K;
        for (size_t q = 0; q < w->K; q++)
            w->xa[w->act[q]] = fmin(xk[q], w->pr->hi[w->act[q]]);
        double T = lp_price_makespan(w->pr, w->xa);
        if (!in_pool(w, T) && !add_col(w, T))
            return false;
    }
    return true;
}

/* Whether a plan within pr's current caps reaches T <= t_lim and a total
 * <= total_lim (with the budgets), from the seeded pool (seed_pool). The
 * plan in w->xbar. When lp_solve fails on a master, the caps count as
 * infeasible: the bisection keeps its last feasible plan, less even by at
 * most its bracket. A phase 2 that stops with nothing left to price (to
 * the noise) above total_lim but with its bound below it has not decided:
 * its plan counts when its total is within LP_BALANCE_TOTAL_REL_TOL of
 * phase 2's (seen 1.3e-8 over, on a ZBH1 2 x 6 spec whose largest ratio
 * then came out 2e-5 high); a bound past total_lim still decides. */
static check_result check_caps(dw *w, double t_lim, double total_lim, double total_noise, double deadline,
                               long long *rounds)
{
    master m = {0};
    check_result res = CHECK_ERROR;
    if (!seed_pool(w) || !master_make(w, &m, LP_PHASE_MAKESPAN, 0.0))
        goto out;
    run_result r = run_phase(w, &m, LP_PHASE_BALANCE, t_lim, t_lim, deadline, rounds);
    if (r == RUN_TIMEOUT)
        res = CHECK_TIMEOUT;
    if (r == RUN_ERROR || r == RUN_TIMEOUT)
        goto out;
    if (r == RUN_ABOVE || r == RUN_NUMERIC || (r == RUN_OPTIMAL && get_objective(m.lp) > t_lim)) {
        res = CHECK_INFEASIBLE;
        goto out;
    }
    if (!add_combination(w, &m))
        goto out;
    master_free(&m);
    if (!master_make(w, &m, LP_PHASE_FREEZE, t_lim))
        goto out;
    r = run_phase(w, &m, LP_PHASE_BALANCE, total_lim, total_lim, deadline, rounds);
    if (r == RUN_TIMEOUT)
        res = CHECK_TIMEOUT;
    if (r == RUN_ERROR || r == RUN_TIMEOUT)
        goto out;
    double total = get_objective(m.lp);
    bool undecided = w->last_lb <= total_lim && total <= total_noise;
    if (r == RUN_ABOVE || r == RUN_NUMERIC || (r == RUN_OPTIMAL && total > total_lim && !undecided)) {
        res = CHECK_INFEASIBLE;
        goto out;
    }
    res = combine(w, &m) ? CHECK_FEASIBLE : CHECK_ERROR;
out:
    master_free(&m);
    return res;
}

/* Phase 3 and leximin by bisection (module comment). best: per freezable
 * index, phase 2's plan on entry, the most even one found on return. */
static bool balance(dw *w, double t_lim, double total_lim, double total_noise, double deadline, double *best,
                    lp_stats *st)
{
    const lp_problem *pb = w->pb;
    double hi = pb->action_cap < 1.0 ? pb->action_cap : 1.0;
    /* Per freezable index: leximin's cap once fixed, else NAN. */
    double *fixed_cap = arena_alloc_array(w->a, w->K ? w->K : 1, sizeof *fixed_cap);
    double *phase2 = arena_alloc_array(w->a, w->K ? w->K : 1, sizeof *phase2);
    if (!fixed_cap || !phase2)
        return oom(w);
    memcpy(phase2, best, w->K * sizeof *best);
    for (size_t q = 0; q < w->K; q++)
        fixed_cap[q] = NAN;
    bool ok = true;
    double z_prev = INFINITY;
    for (int round = 0; ok && round <= (pb->leximin ? LP_LEXIMIN_ROUNDS : 0); round++) {
        /* The free actions' largest ratio is feasible; their floor is
         * infeasible or the total spread evenly over the free actions. */
        double z_ok = 0.0, fixed_sum = 0.0;
        size_t free_n = 0;
        for (size_t q = 0; q < w->K; q++) {
            if (!isnan(fixed_cap[q])) {
                fixed_sum += fixed_cap[q]; /* x_q <= its cap: the free ones carry at least the rest */
                continue;
            }
            free_n++;
            if (best[q] > z_ok)
                z_ok = best[q];
        }
        if (free_n == 0)
            break;
        double z_bad = (st->total_freeze - fixed_sum) / (double)free_n - DW_Z_TOL;
        if (z_bad < 0.0)
            z_bad = 0.0;
        bool first = true;
        /* The bracket is closed at DW_Z_TOL, with room for the rounding of
         * z_ok - DW_Z_TOL: the first check's bracket is DW_Z_TOL exactly. */
        while (ok && z_ok - z_bad > DW_Z_TOL * (1.0 + 1e-6)) {
            /* First just under the feasible end: usually infeasible, and
             * then the bisection is over at once. */
            double z = first ? z_ok - DW_Z_TOL : 0.5 * (z_ok + z_bad);
            first = false;
            for (size_t q = 0; q < w->K; q++)
                lp_price_set_cap(w->pr, w->act[q], !isnan(fixed_cap[q]) ? fixed_cap[q] : fmin(z, hi));
            lp_report(pb, LP_PHASE_BALANCE, st->iterations[2], z_bad, z_ok);
            check_result r = check_caps(w, t_lim, total_lim, total_noise, deadline, &st->iterations[2]);
            if (r == CHECK_TIMEOUT) { /* --lp-timeout: phase 2's plan, whole, not a part-balanced one */
                memcpy(best, phase2, w->K * sizeof *best);
                st->balance_incomplete = true;
                st->max_ratio = 0.0;
                for (size_t q = 0; q < w->K; q++)
                    st->max_ratio = best[q] > st->max_ratio ? best[q] : st->max_ratio;
                return true;
            }
            if (r == CHECK_ERROR)
                ok = false;
            else if (r == CHECK_INFEASIBLE)
                z_bad = z;
            else {
                double zmax = 0.0;
                for (size_t q = 0; q < w->K; q++) {
                    if (isnan(fixed_cap[q]) && w->xbar[q] > zmax)
                        zmax = w->xbar[q];
                    best[q] = w->xbar[q];
                }
                z_ok = zmax;
            }
        }
        if (!ok)
            break;
        if (round == 0)
            st->max_ratio = z_ok;
        else if (z_ok >= z_prev - LP_SNAP_TOL)
            break;
        else
            st->leximin_rounds++;
        z_prev = z_ok;
        /* Leximin: the actions at this round's maximum keep their ratio as
         * their cap from now on. */
        for (size_t q = 0; q < w->K; q++)
            if (isnan(fixed_cap[q]) && best[q] >= z_ok - LP_SNAP_TOL)
                fixed_cap[q] = fmin(z_ok, hi);
    }
    return ok;
}

tfc_status lp_dw_solve(const lp_problem *pb, arena *a, const char *file, diag_list *d, double *x, lp_stats *st)
{
    lp_price pr;
    if (!lp_price_init(&pr, pb, a))
        return diag_nomem(d, "building the freeze LP's flow network (%zu actions)", pb->s->n_actions);
    dw w;
    bool ok = dw_init(&w, pb, &pr, a, file, d);
    double t_star = 0.0, total = 0.0;
    if (ok && pb->action_cap < 1.0 && w.K) {
        /* Phases 1 and 2 without the per-action cap, to say whether the cap
         * costs time, on their own pool (its columns break the cap). */
        for (size_t q = 0; q < w.K; q++)
            lp_price_set_cap(&pr, w.act[q], 1.0);
        ok = phases12(&w, &st->t_star_uncapped, &total, st);
        for (size_t q = 0; q < w.K; q++)
            lp_price_set_cap(&pr, w.act[q], pb->action_cap);
    }
    ok = ok && phases12(&w, &t_star, &total, st);
    if (ok) {
        st->t_star = t_star;
        st->total_freeze = total;
        if (!(pb->action_cap < 1.0 && w.K))
            st->t_star_uncapped = t_star;
    }
    double *best = NULL;
    if (ok && w.K) {
        best = arena_alloc_array(a, w.K, sizeof *best);
        if (!best)
            ok = oom(&w);
        if (ok) {
            memcpy(best, w.xbar, w.K * sizeof *best);
            if (pb->balance) {
                double t0 = clock_now_s();
                double deadline = pb->timeout_s > 0 ? t0 + pb->timeout_s : 0.0;
                double t_lim = st->t_star * (1.0 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS;
                double total_lim = st->total_freeze * (1.0 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS;
                double total_noise = st->total_freeze * (1.0 + LP_BALANCE_TOTAL_REL_TOL) + LP_T_ABS_TOL_MS;
                /* Each check holds every budget row (a lower cap may break
                 * rows the main phases never needed) and starts from the
                 * main phases' final prices: with a cap that binds, the
                 * first bound often proves it at once. */
                for (size_t b = 0; b < w.S; b++)
                    w.active[b] = true;
                w.start[0] = w.start[1] = true;
                ok = save_seed(&w) && balance(&w, t_lim, total_lim, total_noise, deadline, best, st);
                st->seconds[2] = clock_now_s() - t0;
            }
        }
    }
    st->master_iterations = w.master_iters;
    for (size_t u = 0; u < w.n; u++)
        x[u] = 0.0;
    if (ok)
        for (size_t q = 0; q < w.K; q++)
            x[w.act[q]] = best ? best[q] : w.xbar[q];
    dw_release(&w);
    if (ok)
        return TFC_OK;
    st->dw_gave_up = !w.nomem && w.gave_up;
    st->dw_gave_up_in = w.gave_up_in;
    memcpy(st->dw_gave_up_why, w.gave_up_why, sizeof st->dw_gave_up_why);
    return w.nomem ? TFC_NOMEM : TFC_INFEASIBLE;
}
