/* netflow: the network simplex against lp_solve on the same minimum-cost
 * flow written as an LP (conservation rows, arc bounds), on random
 * networks with fractional capacities and a unit of flow (as the freeze
 * LP's subproblem has); the returned flow is checked to conserve and
 * respect its bounds, the potentials to price every arc optimally, and the
 * final tree to be strongly feasible with the right subtree sizes. */
#include <criterion/criterion.h>
#include <lpsolve/lp_lib.h>
#include <math.h>
#include <stdlib.h>

#include "netflow.h"

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16 & 0x7fff;
}

/* Nodes 0..n-1 on an uncapacitated spine i -> i+1 (the start tree, rooted
 * at n-1, carrying the unit from node 0 to node n-1), plus random forward
 * arcs i -> j (i < j: no cycles, so negative costs are fine) with random
 * costs and capacities, some parallel to spine arcs. With circulate, no
 * supplies and one more arc, n-1 -> 0, of capacity 2.5: a circulation. */
static void random_network_ex(netflow *nf, arena *mem, uint32_t n, uint32_t extra, unsigned *seed, bool circulate)
{
    cr_assert(netflow_alloc(nf, mem, n, n - 1 + extra + circulate));
    uint32_t a = 0;
    for (uint32_t i = 0; i + 1 < n; i++, a++) {
        nf->src[a] = i, nf->dst[a] = i + 1;
        nf->cost[a] = (double)(rnd(seed) % 1000) / 100.0 - 5.0;
        nf->cap[a] = INFINITY;
    }
    for (uint32_t k = 0; k < extra; k++, a++) {
        uint32_t i = rnd(seed) % (n - 1);
        uint32_t j = i + 1 + rnd(seed) % (n - 1 - i);
        nf->src[a] = i, nf->dst[a] = j;
        nf->cost[a] = (double)(rnd(seed) % 1000) / 100.0 - 8.0;
        nf->cap[a] = rnd(seed) % 4 == 0 ? INFINITY : (double)(rnd(seed) % 1000) / 700.0;
    }
    if (circulate) {
        nf->src[a] = n - 1, nf->dst[a] = 0;
        nf->cost[a] = (double)(rnd(seed) % 1000) / 100.0 - 5.0;
        nf->cap[a] = 2.5;
        return;
    }
    nf->supply[0] = 1.0;
    nf->supply[n - 1] = -1.0;
}

static void random_network(netflow *nf, arena *mem, uint32_t n, uint32_t extra, unsigned *seed)
{
    random_network_ex(nf, mem, n, extra, seed, false);
}

static double lp_optimum(const netflow *nf)
{
    lprec *lp = make_lp((int)nf->n_nodes, 0);
    set_verbose(lp, NEUTRAL);
    for (uint32_t v = 0; v < nf->n_nodes; v++) {
        set_constr_type(lp, (int)v + 1, EQ);
        set_rh(lp, (int)v + 1, -nf->supply[v]); /* inflow - outflow = -supply */
    }
    for (uint32_t e = 0; e < nf->n_arcs; e++) {
        int rows[3] = {0, (int)nf->dst[e] + 1, (int)nf->src[e] + 1};
        double vals[3] = {nf->cost[e], 1.0, -1.0};
        cr_assert(add_columnex(lp, 3, vals, rows));
        if (isfinite(nf->cap[e]))
            set_upbo(lp, (int)e + 1, nf->cap[e]);
    }
    set_minim(lp);
    cr_assert_eq(solve(lp), OPTIMAL);
    double v = get_objective(lp);
    delete_lp(lp);
    return v;
}

Test(netflow, matches_lp_solve_on_random_networks)
{
    unsigned seed = 2024;
    for (int trial = 0; trial < 2000; trial++) {
        uint32_t n = 3 + rnd(&seed) % 40, extra = rnd(&seed) % (3 * n);
        netflow nf;
        arena mem;
        arena_init(&mem, 0);
        random_network(&nf, &mem, n, extra, &seed);
        uint32_t *tree = malloc(n * sizeof *tree);
        for (uint32_t v = 0; v + 1 < n; v++)
            tree[v] = v; /* the spine arc v -> v+1 */
        tree[n - 1] = NETFLOW_NONE;
        cr_assert(netflow_init(&nf, n - 1, tree));
        cr_assert_eq(netflow_solve(&nf, 1e-12, 0), NETFLOW_OPTIMAL, "trial %d", trial);
        double want = lp_optimum(&nf);
        cr_assert(fabs(netflow_cost(&nf) - want) <= 1e-9 * (1 + fabs(want)), "trial %d (n %u, %u arcs): %.12g vs LP %.12g",
                  trial, n, nf.n_arcs, netflow_cost(&nf), want);
        /* Feasible, and the potentials certify it optimal. */
        double *net = calloc(n, sizeof *net);
        for (uint32_t e = 0; e < nf.n_arcs; e++) {
            cr_assert(nf.flow[e] >= -1e-12 && nf.flow[e] <= nf.cap[e] + 1e-12);
            net[nf.src[e]] -= nf.flow[e];
            net[nf.dst[e]] += nf.flow[e];
            double rc = nf.cost[e] + nf.pi[nf.src[e]] - nf.pi[nf.dst[e]];
            if (nf.flow[e] < nf.cap[e] - 1e-12)
                cr_assert_geq(rc, -1e-9, "trial %d arc %u below its capacity prices out: %g", trial, e, rc);
            if (nf.flow[e] > 1e-12)
                cr_assert_leq(rc, 1e-9, "trial %d arc %u carries flow at a loss: %g", trial, e, rc);
        }
        for (uint32_t v = 0; v < n; v++)
            cr_assert(fabs(net[v] + nf.supply[v]) <= 1e-12, "trial %d node %u unbalanced", trial, v);
        /* The final tree is strongly feasible (what rules out cycling): an
         * empty tree arc points to the root, a full one away from it; and
         * every subtree size is right. */
        uint32_t *count = calloc(n, sizeof *count);
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t w = v; w != NETFLOW_NONE; w = nf.parent[w])
                count[w]++;
        for (uint32_t v = 0; v < n; v++) {
            cr_assert_eq(count[v], nf.size[v], "trial %d node %u: subtree size %u, counted %u", trial, v, nf.size[v],
                         count[v]);
            if (v == nf.root)
                continue;
            uint32_t a = nf.pred[v];
            if (nf.flow[a] <= 1e-12)
                cr_assert(nf.up[v], "trial %d: empty tree arc %u points away from the root", trial, a);
            if (isfinite(nf.cap[a]) && nf.cap[a] - nf.flow[a] <= 1e-12)
                cr_assert(!nf.up[v], "trial %d: full tree arc %u points to the root", trial, a);
        }
        free(count);
        free(net);
        free(tree);
        arena_free(&mem); /* frees nf */
    }
}

Test(netflow, refuses_a_start_that_is_not_a_tree_or_not_feasible)
{
    unsigned seed = 7;
    netflow nf;
    arena mem;
    arena_init(&mem, 0);
    random_network(&nf, &mem, 5, 0, &seed);
    uint32_t loop[5] = {0, 0, 2, 3, NETFLOW_NONE}; /* nodes 0 and 1 hang from each other by arc 0 */
    cr_assert_not(netflow_init(&nf, 4, loop));
    /* A finite spine arc too small for the unit. */
    nf.cap[2] = 0.5;
    uint32_t spine[5] = {0, 1, 2, 3, NETFLOW_NONE};
    cr_assert_not(netflow_init(&nf, 4, spine));
    arena_free(&mem); /* frees nf */
}

/* Conserving, within bounds, and priced optimally by the potentials. */
static void check_optimal(const netflow *nf, int trial, int round)
{
    uint32_t n = nf->n_nodes;
    double *net = calloc(n, sizeof *net);
    for (uint32_t e = 0; e < nf->n_arcs; e++) {
        cr_assert(nf->flow[e] >= -1e-12 && nf->flow[e] <= nf->cap[e] + 1e-12, "trial %d round %d arc %u", trial, round,
                  e);
        net[nf->src[e]] -= nf->flow[e];
        net[nf->dst[e]] += nf->flow[e];
        double rc = nf->cost[e] + nf->pi[nf->src[e]] - nf->pi[nf->dst[e]];
        if (nf->flow[e] < nf->cap[e] - 1e-12)
            cr_assert_geq(rc, -1e-9, "trial %d round %d arc %u below its capacity prices out: %g", trial, round, e, rc);
        if (nf->flow[e] > 1e-12)
            cr_assert_leq(rc, 1e-9, "trial %d round %d arc %u carries flow at a loss: %g", trial, round, e, rc);
    }
    for (uint32_t v = 0; v < n; v++)
        cr_assert(fabs(net[v] + nf->supply[v]) <= 1e-9, "trial %d round %d node %u unbalanced", trial, round, v);
    free(net);
}

/* Arcs off the tree whose reduced cost has the wrong sign for the bound
 * they sit at. */
static uint32_t wrong_signs(const netflow *nf)
{
    uint32_t k = 0;
    for (uint32_t e = 0; e < nf->n_arcs; e++) {
        double rc = nf->cost[e] + nf->pi[nf->src[e]] - nf->pi[nf->dst[e]];
        k += nf->cap[e] > 0.0 && ((nf->state[e] == 1 && rc < -1e-9) || (nf->state[e] == -1 && rc > 1e-9));
    }
    return k;
}

/* The freeze LP's phase 2 changes capacities between solves and restarts
 * from the last optimal tree: dual pivots, then primal ones. After each
 * change (capacities scaled, some to 0, some reopened), the warm answer
 * is lp_solve's optimum, for unit flows and circulations alike. */
Test(netflow, restarts_from_its_last_tree_after_capacities_change)
{
    unsigned seed = 99;
    long long dual = 0, warm = 0, cold = 0;
    for (int trial = 0; trial < 600; trial++) {
        bool circulate = trial % 2;
        uint32_t n = 3 + rnd(&seed) % 40, extra = rnd(&seed) % (3 * n);
        netflow nf;
        arena mem;
        arena_init(&mem, 0);
        random_network_ex(&nf, &mem, n, extra, &seed, circulate);
        uint32_t *tree = malloc(n * sizeof *tree);
        for (uint32_t v = 0; v + 1 < n; v++)
            tree[v] = v;
        tree[n - 1] = NETFLOW_NONE;
        cr_assert(netflow_init(&nf, n - 1, tree));
        cr_assert_eq(netflow_solve(&nf, 1e-12, 0), NETFLOW_OPTIMAL);
        for (int round = 0; round < 6; round++) {
            for (uint32_t e = n - 1; e < nf.n_arcs; e++) {
                if (!isfinite(nf.cap[e]) || rnd(&seed) % 3 == 0)
                    continue;
                unsigned r = rnd(&seed) % 8;
                nf.cap[e] = r == 0 ? 0.0 : r == 1 ? (double)(rnd(&seed) % 1000) / 700.0 : nf.cap[e] * (0.5 + r / 8.0);
                if (nf.state[e] == -1)
                    nf.flow[e] = nf.cap[e]; /* at its capacity: moves with it */
            }
            cr_assert(netflow_restart(&nf));
            /* Dual pivots keep every reduced cost's sign (arcs reopened
             * from capacity 0 may have started wrong: never more). */
            uint32_t wrong = wrong_signs(&nf);
            netflow_status st = netflow_dual(&nf, 1e-11, 0);
            if (st == NETFLOW_UNBOUNDED && wrong > 0) {
                /* Only arcs already priced wrong could take the change: a
                 * cold start, as lp_price.c would. */
                cr_assert(netflow_init(&nf, n - 1, tree));
                cold++;
            } else {
                cr_assert_eq(st, NETFLOW_OPTIMAL, "trial %d round %d: dual %d", trial, round, st);
                cr_assert_leq(wrong_signs(&nf), wrong, "trial %d round %d", trial, round);
                dual += nf.pivots;
                warm++;
            }
            nf.pivots = 0;
            cr_assert_eq(netflow_solve(&nf, 1e-12, 0), NETFLOW_OPTIMAL, "trial %d round %d", trial, round);
            double want = lp_optimum(&nf);
            cr_assert(fabs(netflow_cost(&nf) - want) <= 1e-9 * (1 + fabs(want)),
                      "trial %d round %d (n %u, %u arcs): warm %.12g vs LP %.12g", trial, round, n, nf.n_arcs,
                      netflow_cost(&nf), want);
            check_optimal(&nf, trial, round);
        }
        free(tree);
        arena_free(&mem); /* frees nf */
    }
    cr_assert_eq(warm + cold, 3600);
    cr_assert_gt(warm, 3000, "warm %lld, cold %lld", warm, cold);
    cr_assert_gt(dual, 1000, "the changes should need dual pivots (%lld)", dual);
}
