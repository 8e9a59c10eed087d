/* lp_problem: the freeze LP as data, the bottom of compiler/lp/.
 *
 * Each freezable action u (B, or W in split schedules) has a duration
 * d_u = w_max_u - x_u (w_max_u - w_min_u) for its freeze ratio x_u in
 * [0, 1]. The three phases (lp_phase) minimise the makespan, then the total
 * freezing at that makespan, then the largest single ratio. This header
 * holds what every solver of it shares: the problem, its statistics, the
 * rule for which dependencies it keeps, its tolerances, and the memory
 * probe that guards lp_solve. It includes nothing else of compiler/lp/;
 * lp_direct (lp_solve on the whole LP) and lp_dw (the decomposition) sit
 * above it, lp_freeze (the facade) on top. docs/freeze-lp.md. */
#ifndef TFC_LP_PROBLEM_H
#define TFC_LP_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dag.h"
#include "diag.h"
#include "sched.h"

/* T <= T* (1 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS in phase 2. */
#define LP_T_REL_TOL 1e-9
#define LP_T_ABS_TOL_MS 1e-9
/* Phase 3 keeps sum x <= (phase 2's total) (1 + this) + LP_T_ABS_TOL_MS at
 * worst: the decomposition's checks stop within about 1e-8 of an optimum,
 * and a plan they could not show within LP_T_REL_TOL may count when within
 * this (lp_dw.c, check_caps). */
#define LP_BALANCE_TOTAL_REL_TOL 1e-8
/* A ratio this close below its bound (1, or freeze.max_action_ratio) is
 * the bound: solver noise (docs/freeze-lp.md). */
#define LP_SNAP_TOL 1e-7
/* Leximin: at most this many rounds after the first minmax. */
#define LP_LEXIMIN_ROUNDS 16
/* Larger schedules are refused before building the LP (exit 3): even the
 * decomposition would take far longer than any time limit
 * (docs/freeze-lp.md, "Speed"). */
#define LP_MAX_ACTIONS 100000u
/* Default wall-clock limit on each phase's solve, seconds (tfc plan
 * --lp-timeout): none. Plans must not depend on the machine, so by
 * default only work is limited (the decomposition's rounds, the
 * bisection's steps); a user who wants a time limit sets one, and a phase 3
 * that runs past it leaves phase 2's plan, said so (docs/freeze-lp.md,
 * "Limits"). */
#define LP_TIMEOUT_S 0.0

/* The phases, in the order they run (docs/freeze-lp.md, "The program"). */
typedef enum {
    LP_PHASE_MAKESPAN = 1, /* minimise the makespan T: T* */
    LP_PHASE_FREEZE = 2,   /* keep T* (to the tolerance), minimise the total freezing */
    LP_PHASE_BALANCE = 3,  /* keep both, minimise the largest ratio (freeze.balance) */
} lp_phase;

/* What the phase does, in words, for messages: "phase 1 of the freeze LP
 * (minimise the makespan)". */
const char *lp_phase_name(lp_phase phase);

/* The problem, independent of the solver. */
/* How far a solve has come, for a person waiting on it: reported at each
 * phase's start and each round of the decomposition. bound and best are
 * the phase's lower bound and its best objective so far (NAN when the
 * method has none); phase 3 reports its bisection's interval of ratios. */
typedef struct lp_progress {
    lp_phase phase;
    long long round;
    double bound, best;
} lp_progress;
typedef void (*lp_progress_fn)(void *ctx, const lp_progress *p);

typedef struct lp_problem {
    const sched *s;
    const dag *g;
    const double *w_max; /* per action: its duration with nothing frozen */
    const double *w_min; /* per action: with everything frozen (== w_max if not freezable) */
    const bool *freezable;
    double comm_ms;
    double cap; /* freeze.max_ratio */
    double action_cap; /* freeze.max_action_ratio: upper bound of every x */
    /* Per stage, the largest ratio its masks can freeze (freeze.select:
     * weights with freeze_weight 0 tensors: the share of the rest, on the
     * ratio grid); NULL: 1 everywhere. Unlike action_cap, a fact, not a
     * choice: it bounds x in every phase. */
    const double *stage_top;
    bool balance; /* run phase 3 (freeze.balance: minmax or leximin) */
    bool leximin; /* then repeat it over the actions below the maximum (freeze.balance: leximin) */
    double timeout_s; /* per phase; 0 = none */
    bool direct; /* hand lp_solve the whole LP instead of decomposing it (tfc plan --lp-method direct) */
    /* pipeline.processors below the ranks: one more row, T >= the step's
     * total work over the processors (every rank's bubble can be filled by
     * another's work, so the shared step is at least that); solved direct
     * (the decomposition's subproblem is a longest path, which this row is
     * not). 0: none. */
    uint32_t processors;
    lp_progress_fn progress; /* NULL: nobody is watching */
    void *progress_ctx;
} lp_problem;

/* The most action u can be frozen: its stage's top (stage_top), 1 without one. */
static inline double lp_action_top(const lp_problem *pb, size_t u)
{
    double t = pb->stage_top ? pb->stage_top[pb->s->actions[u].stage] : 1.0;
    return t < 1.0 ? t : 1.0;
}

/* x's upper bound for action u: lp_action_top under freeze.max_action_ratio. */
static inline double lp_action_hi(const lp_problem *pb, size_t u)
{
    double t = lp_action_top(pb, u);
    return pb->action_cap < t ? pb->action_cap : t;
}

/* Whether the LP has the work row (pipeline.processors below the ranks). */
static inline bool lp_work_row(const lp_problem *pb) { return pb->processors && pb->processors < pb->s->ranks; }

/* Calls pb->progress when there is one. */
static inline void lp_report(const lp_problem *pb, lp_phase phase, long long round, double bound, double best)
{
    if (pb->progress) {
        lp_progress p = {phase, round, bound, best};
        pb->progress(pb->progress_ctx, &p);
    }
}

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
    long long master_iterations; /* decomposition: lp_solve's simplex iterations on its masters, every phase */
    double max_ratio;        /* phase 3's objective: the largest per-action ratio after rounding (snap_ratios); phase 2's when not run */
    bool balance_incomplete; /* phase 3 ran past --lp-timeout: the plan is phase 2's (optimal T* and total), not balanced */
    bool balance_failed;     /* lp_solve failed on phase 3's first solve (whole LP; warned): phase 2's plan as well */
    bool dw_gave_up;         /* decomposition: phase 1 or 2 could not go on, and lp_dw_solve filed nothing:
                              * lp_freeze_solve solves the LP whole instead */
    lp_phase dw_gave_up_in;  /* the phase it gave up in */
    char dw_gave_up_why[128]; /* why, for the warning */
} lp_stats;

/* The size of the whole LP (lp_direct.h spells out its rows and columns). */
typedef struct lp_size {
    size_t actions;    /* n: one start-time column each */
    size_t freezable;  /* K: one ratio column each */
    size_t cols;       /* n + K + 1 (the makespan T) */
    size_t rows;       /* kept dependencies, actions without successors, stages with freezable actions */
    size_t nonzeros;
} lp_size;

/* The whole LP's size, counted from the DAG without writing a row: equal
 * to what lp_direct_build writes (tested). */
lp_size lp_problem_size(const lp_problem *pb);

/* Whether the LP keeps dependency u -> v (walking u's successors in order,
 * program_done false before the first): every cross-rank edge, and the
 * program-order edge once; the other same-rank edges are implied by it.
 * The whole LP and the decomposition's flow network use the same edges. */
bool lp_kept_edge(const sched *s, uint32_t u, uint32_t v, bool *program_done);

/* A heuristic guard for lp_solve 5.5, which does not check its own
 * allocations (out of memory it crashes, in presolve or mat_validate):
 * before a call that can allocate in proportion to an LP of rows x cols
 * with nonzeros entries (make_lp and adding rows, solve), try to allocate
 * a block sized generously from those counts and free it at once. When
 * even that fails, lp_solve would likely have crashed: diag_nomem with
 * `what` and TFC_NOMEM; else TFC_OK. Not a guarantee (memory can run out
 * between the probe and the call), only a wide margin, calibrated with
 * ulimit -v sweeps (docs/freeze-lp.md, "Out of memory"). */
tfc_status lp_problem_headroom(size_t rows, size_t cols, size_t nonzeros, diag_list *d, const char *what);

/* lp_solve's solve() under one lock for the whole process: its LU
 * factorisation (LUSOL) keeps working variables in statics, so solves on
 * two threads at once (tfc plan --compare plans schedules on threads) must
 * not overlap. Everything else tfc does between solves runs in parallel.
 * At most LP_SOLVE_ITER_BASE + LP_SOLVE_ITER_PER (rows + columns) simplex
 * iterations (lp_solve can cycle on a degenerate LP): past them the solve
 * ends with USERABORT. */
#define LP_SOLVE_ITER_BASE 100000LL
#define LP_SOLVE_ITER_PER 100LL
struct _lprec;
int lp_problem_solve(struct _lprec *lp);
/* The same with at most max_iter iterations (a warm start that would take
 * more than a solve from scratch: lp_dw.c's masters). */
int lp_problem_solve_within(struct _lprec *lp, long long max_iter);

#endif
