/* bench_lp: tfc's two-phase freeze LP on one spec: the whole LP's rows,
 * columns and nonzeros, then seconds and iterations per phase (rounds of
 * the decomposition, or lp_solve's simplex iterations with direct).
 * bench/lp_speed.sh runs it next to scipy's HiGHS on the same LP and
 * prints the ratio.
 *
 *   bench_lp SPEC [TIMEOUT_S] [decompose|direct]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_lp SPEC [TIMEOUT_S] [decompose|direct]\n");
        return 2;
    }
    arena a;
    arena_init(&a, 0);
    diag_list d;
    diag_init(&d, 8);
    const spec *s;
    if (spec_load_file(argv[1], &a, &d, &s) != TFC_OK) {
        diag_print(&d, stderr);
        return 1;
    }
    plan_options opt = {.policy = POLICY_TIMELY,
                        .lp_timeout_s = argc > 2 ? atof(argv[2]) : LP_TIMEOUT_S,
                        .lp_direct = argc > 3 && strcmp(argv[3], "direct") == 0};
    plan *p;
    tfc_status st = plan_build(s, &opt, &a, &d, &p);
    if (st != TFC_OK) {
        diag_print(&d, stderr);
        printf("tfc: no result (%s)\n", st == TFC_INFEASIBLE ? "LP failed or timed out" : "error");
        return 3;
    }
    printf("tfc (%s): %zu actions, the LP has %d rows, %d cols, %lld nonzeros\n",
           opt.lp_direct ? "lp_solve on the whole LP" : "decomposition", p->s->n_actions, p->lp.rows, p->lp.cols,
           p->lp.nonzeros);
    printf("  phase 1 %.3f s (%lld iterations), phase 2 %.3f s (%lld iterations), total %.3f s\n", p->lp.seconds[0],
           p->lp.iterations[0], p->lp.seconds[1], p->lp.iterations[1], p->lp.seconds[0] + p->lp.seconds[1]);
    if (!opt.lp_direct)
        printf("  budget rows in the master: %d of %u, phases 1 and 2 run %d time(s)\n", p->lp.budget_rows,
               p->s->n_stages, p->lp.budget_rounds + 1);
    if (p->sp->freeze.balance != BALANCE_NONE)
        printf("  phase 3 %.3f s (%lld rounds, %.0f%% of phases 1 + 2)\n", p->lp.seconds[2], p->lp.iterations[2],
               100.0 * p->lp.seconds[2] / (p->lp.seconds[0] + p->lp.seconds[1]));
    printf("  T* %.9g ms, total freeze %.9g, speed-up %.4fx\n", p->lp.t_star, p->lp.total_freeze,
           p->base.makespan / p->opt.makespan);
    printf("TOTAL_SECONDS %.6f\n", p->lp.seconds[0] + p->lp.seconds[1]);
    diag_free(&d);
    arena_free(&a);
    return 0;
}
