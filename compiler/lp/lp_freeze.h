/* lp_freeze: the TimelyFreeze linear program, the facade of compiler/lp/.
 *
 * Each freezable action u (B, or W in split schedules) has a duration
 * d_u = w_max_u - x_u (w_max_u - w_min_u) for its freeze ratio x_u in [0, 1].
 * Phase 1 minimises the makespan T over start times t and ratios x, subject
 * to the DAG and a per-stage cap on the mean ratio; phase 2 keeps T within a
 * tolerance of phase 1's optimum T* and minimises the total freezing; phase 3
 * (optional) also keeps the total within a tolerance of phase 2's and
 * minimises the largest single ratio. The problem, its statistics and
 * tolerances are lp_problem.h's (included here for callers). By default the
 * LP is solved by decomposition (lp_dw.c: lp_solve on a master over the
 * budgets, the timing rows as a flow, lp_price.c); `direct` hands lp_solve
 * the whole LP (lp_direct.c). This facade checks the size, picks the
 * method, and rounds either's answer the same way. The formulation, its
 * reductions, tolerances and both methods are in docs/freeze-lp.md. */
#ifndef TFC_LP_FREEZE_H
#define TFC_LP_FREEZE_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "lp_problem.h"

/* Solves both phases (and phase 3 when asked) by pb->direct's method;
 * writes each action's freeze ratio to x (0 for actions that are not
 * freezable). An infeasible, unbounded, timed-out or numerically failed LP
 * is TFC_INFEASIBLE with the reason in words; running out of memory
 * (anywhere, lp_solve's own allocations guarded by lp_problem_headroom) is
 * TFC_NOMEM. The solver's memory is one arena, freed before returning. */
tfc_status lp_freeze_solve(const lp_problem *pb, const char *file, diag_list *d, double *x, lp_stats *st);

/* Writes the phase-1 LP as JSON (docs/freeze-lp.md, "The dump format"), for
 * checking tfc against another solver on exactly the same problem. */
bool lp_freeze_dump(const lp_problem *pb, FILE *f);

#endif
