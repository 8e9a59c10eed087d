/* lp_freeze: the TimelyFreeze linear program, solved with lp_solve.
 *
 * Each freezable action u (B, or W in split schedules) has a duration
 * d_u = w_max_u - x_u (w_max_u - w_min_u) for its freeze ratio x_u in [0, 1].
 * Phase 1 minimises the makespan T over start times t and ratios x, subject
 * to the DAG and a per-stage cap on the mean ratio; phase 2 keeps T within a
 * tolerance of phase 1's optimum T* and minimises the total freezing; phase 3
 * (optional) also keeps the total within a tolerance of phase 2's and
 * minimises the largest single ratio. By default the LP is solved by
 * decomposition (lp_dw.c: lp_solve on a master over the budgets, the
 * timing rows as a flow, lp_price.c); `direct` hands lp_solve the whole LP
 * built here. The formulation, its reductions, tolerances and both
 * methods are in docs/freeze-lp.md. */
#ifndef TFC_LP_FREEZE_H
#define TFC_LP_FREEZE_H

#include <stdbool.h>
#include <stdio.h>

#include "arena.h"
#include "dag.h"
#include "diag.h"
#include "sched.h"
#include "spec.h"

/* T <= T* (1 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS in phase 2. */
#define LP_T_REL_TOL 1e-9
#define LP_T_ABS_TOL_MS 1e-9
/* A ratio this close below its bound (1, or freeze.max_action_ratio) is
 * the bound: solver noise (docs/freeze-lp.md). */
#define LP_SNAP_TOL 1e-7
/* Leximin: at most this many rounds after the first minmax. */
#define LP_LEXIMIN_ROUNDS 16
/* Larger schedules are refused before building the LP (exit 3): even the
 * decomposition would take far longer than any time limit
 * (docs/freeze-lp.md, "Speed"). */
#define LP_MAX_ACTIONS 100000u
/* Default limit on each phase's solve, seconds (tfc plan --lp-timeout). */
#define LP_TIMEOUT_S 300.0

/* The problem, independent of the solver. */
typedef struct lp_problem {
    const sched *s;
    const dag *g;
    const double *w_max; /* per action: its duration with nothing frozen */
    const double *w_min; /* per action: with everything frozen (== w_max if not freezable) */
    const bool *freezable;
    double comm_ms;
    double cap; /* freeze.max_ratio */
    double action_cap; /* freeze.max_action_ratio: upper bound of every x */
    bool balance; /* run phase 3 (freeze.balance: minmax or leximin) */
    bool leximin; /* then repeat it over the actions below the maximum (freeze.balance: leximin) */
    double timeout_s; /* per phase; 0 = none */
    bool direct; /* hand lp_solve the whole LP instead of decomposing it (tfc plan --lp-method direct) */
} lp_problem;

typedef struct lp_stats {
    int rows, cols;          /* of the whole LP, whichever method solved it */
    long long nonzeros;
    long long iterations[3]; /* phases 1, 2 and 3: master rounds (subproblems solved), or lp_solve's simplex iterations with direct */
    double seconds[3];       /* solve time, phases 1, 2 and 3 */
    double t_star;           /* phase 1's makespan */
    double t_star_uncapped;  /* phase 1's makespan without max_action_ratio (== t_star when it is 1) */
    double total_freeze;     /* phase 2's objective */
    int leximin_rounds;      /* rounds after the first minmax that lowered a maximum */
    int budget_rounds;       /* decomposition: times phases 1 and 2 ran again because budget rows joined */
    int budget_rows;         /* decomposition: budget rows in the master at the end (of the stages with freezable actions) */
    double max_ratio;        /* phase 3's objective: the largest per-action ratio after rounding (snap_ratios); phase 2's when not run */
} lp_stats;

/* Whether the LP keeps dependency u -> v (walking u's successors in order,
 * program_done false before the first): every cross-rank edge, and the
 * program-order edge once; the other same-rank edges are implied by it.
 * The whole LP and the decomposition's flow network use the same edges. */
bool lp_kept_edge(const sched *s, uint32_t u, uint32_t v, bool *program_done);

/* Solves both phases (and phase 3 when asked) by pb->direct's method;
 * writes each action's freeze ratio to x (0 for actions that are not
 * freezable). An infeasible, unbounded, timed-out or numerically failed LP
 * is TFC_INFEASIBLE with the reason in words. */
tfc_status lp_freeze_solve(const lp_problem *pb, const char *file, diag_list *d, double *x, lp_stats *st);

/* Writes the phase-1 LP as JSON (docs/freeze-lp.md, "The dump format"), for
 * checking tfc against another solver on exactly the same problem. */
bool lp_freeze_dump(const lp_problem *pb, FILE *f);

#endif
