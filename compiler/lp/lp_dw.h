/* lp_dw: the freeze LP (lp_problem.h) by Dantzig-Wolfe decomposition.
 *
 * The per-stage budget rows, which couple actions across the whole step,
 * stay in a small master LP that lp_solve solves (each only once a plan
 * breaks it); everything else (the DAG's timing rows, and in phase 2 the
 * deadline on T) is the subproblem lp_price.c solves exactly as a
 * minimum-cost flow. Phase 3 bisects on the largest ratio, each probe a
 * run of phases 1 and 2 under capped x. The master's columns are
 * subproblem solutions (x, makespan(x)); any convex combination of them
 * is a plan at most as long as the same combination of makespans, because
 * the makespan is convex in x. A phase ends when no subproblem solution
 * prices out, which proves the combination optimal for the whole LP.
 * docs/freeze-lp.md, "Decomposition". */
#ifndef TFC_LP_DW_H
#define TFC_LP_DW_H

#include "arena.h"
#include "diag.h"
#include "lp_problem.h"

/* Phases 1 and 2 (and 3 when pb->balance); writes the raw ratios (per
 * action, 0 when not freezable) to x and fills st's t_star,
 * t_star_uncapped, total_freeze, max_ratio, leximin_rounds, budget_rows,
 * budget_rounds, iterations (master rounds) and seconds. Memory comes from
 * a (the growing column pool excepted, freed before returning). Errors go
 * to d: TFC_NOMEM when memory ran out (or would have, inside lp_solve:
 * lp_problem_headroom), TFC_INFEASIBLE when lp_solve fails on the master,
 * the flow solver fails, or the time limit passes. */
tfc_status lp_dw_solve(const lp_problem *pb, arena *a, const char *file, diag_list *d, double *x, lp_stats *st);

#endif
