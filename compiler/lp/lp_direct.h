/* lp_direct: the freeze LP (lp_problem.h) written out whole as sparse
 * rows and handed to lp_solve for every phase (tfc plan --lp-method
 * direct), or written as JSON for another solver (--dump-lp).
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
 * Bounds: t, T >= 0; 0 <= x <= 1. docs/freeze-lp.md, "The LP tfc builds". */
#ifndef TFC_LP_DIRECT_H
#define TFC_LP_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "lp_problem.h"

/* The whole LP as rows (compressed sparse rows, 1-based columns). */
typedef struct lp_direct_lp {
    size_t n;             /* actions */
    size_t K;             /* freezable actions */
    int *xcol;            /* per action: its x column, 0 if not freezable */
    int tcol;             /* T */
    int ncols;
    size_t n_rows, nz;    /* as written */
    size_t *start;        /* n_rows + 1 offsets into col and val */
    int *col;             /* nz */
    double *val;          /* nz */
    double *rhs;          /* n_rows */
    unsigned char *is_le; /* n_rows: 1 for <=, 0 for >= */
    bool overflow;        /* more rows or nonzeros than lp_problem_size counted (a bug; never in tests) */
} lp_direct_lp;

/* Writes the LP into arrays from a, sized by lp_problem_size; false when a
 * runs out of memory, or (with lp->overflow set) when the count was short. */
bool lp_direct_build(const lp_problem *pb, arena *a, lp_direct_lp *lp);

/* Phases 1 and 2 (and 3 when pb->balance) with lp_solve on the whole LP;
 * writes the raw ratios (per action, 0 when not freezable) to x and fills
 * st's t_star, t_star_uncapped, total_freeze, max_ratio, leximin_rounds,
 * iterations and seconds. Scratch memory comes from a. TFC_INFEASIBLE when
 * lp_solve fails (the reason in d), TFC_NOMEM when memory runs out, or
 * would run out inside lp_solve (lp_problem_headroom). */
tfc_status lp_direct_solve(const lp_problem *pb, arena *a, const char *file, diag_list *d, double *x,
                           lp_stats *st);

/* Writes the phase-1 LP as JSON (docs/freeze-lp.md, "The dump format");
 * false on no memory or a write error. */
bool lp_direct_dump(const lp_problem *pb, arena *a, FILE *f);

#endif
