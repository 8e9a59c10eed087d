/* lp_freeze + plan policies: the returned plan's makespan is the longest
 * path with the returned durations, caps hold, max_ratio 0 is the baseline
 * exactly, timely beats uniform, and T* equals a second formulation (one
 * constraint per source-to-sink path, written here from the DAG rules).
 * The decomposition (the default) against lp_solve on the whole LP
 * (--lp-method direct), and its flow subproblem against lp_solve on the
 * subproblem's LP written here with every DAG edge. */
#define _POSIX_C_SOURCE 200809L /* strdup, open_memstream */
#include <criterion/criterion.h>
#include <lpsolve/lp_lib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lp_direct.h"
#include "lp_dw.h"
#include "lp_price.h"
#include "plan.h"
#include "plan_print.h"
#include "rules.h"
#include "sim.h"
#include "specbuf.h"

static const char *const shapes[][2] = {
    {"GPipe", "1"}, {"1F1B", "1"}, {"Interleaved1F1B", "2"}, {"ZBH1", "1"}, {"ZBH1", "2"}, {"ZBV", "2"},
};

/* A small spec with deterministic pseudo-random timings. */
static char *small_spec(size_t shape, unsigned p, unsigned m, double cap, unsigned seed)
{
    const char *kind = shapes[shape][0];
    unsigned v = (unsigned)atoi(shapes[shape][1]), n = p * v;
    bool split = strcmp(kind, "ZBH1") == 0 || strcmp(kind, "ZBV") == 0;
    char *y = malloc(8192);
    size_t o = (size_t)sprintf(y, "tfc: 1\nname: s\nmodel:\n  stages:\n");
    for (unsigned i = 0; i < n; i++)
        o += (size_t)sprintf(y + o, "    - params: [{name: w, numel: 1}]\n");
    o += (size_t)sprintf(y + o, "pipeline: {schedule: %s, ranks: %u, stages_per_rank: %u, microbatches: %u}\n", kind,
                         p, v, m);
    char f[512] = "", b[512] = "", fz[512] = "";
    size_t fo = 0, bo = 0, zo = 0;
    for (unsigned i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        double fw = 1.0 + (double)(seed >> 16 & 1023) / 1705.0; /* 1.0 .. 1.6 */
        seed = seed * 1103515245u + 12345u;
        double bw = split ? fw * (0.8 + (double)(seed >> 16 & 1023) / 2557.0) : 2 * fw;
        fo += (size_t)sprintf(f + fo, "%s%.4f", i ? ", " : "", fw);
        bo += (size_t)sprintf(b + bo, "%s%.4f", i ? ", " : "", bw);
        zo += (size_t)sprintf(fz + zo, "%s%.4f", i ? ", " : "", fw);
    }
    if (split)
        o += (size_t)sprintf(y + o, "timing: {forward_ms: [%s], backward_input_ms: [%s], backward_weight_ms: [%s], "
                                    "comm_ms: 0.05}\n",
                             f, f, b);
    else
        o += (size_t)sprintf(y + o, "timing: {forward_ms: [%s], backward_ms: [%s], backward_frozen_ms: [%s], "
                                    "comm_ms: 0.05}\n",
                             f, b, fz);
    sprintf(y + o, "freeze: {max_ratio: %g}\n", cap);
    return y;
}

static plan *build_with(loaded *l, const char *yaml, freeze_policy pol, bool direct)
{
    load_str(l, yaml);
    cr_assert_eq(l->status, TFC_OK, "%s\n%s", l->dump, yaml);
    plan_options opt = {.policy = pol, .lp_timeout_s = 60, .lp_direct = direct};
    plan *p;
    tfc_status st = plan_build(l->s, &opt, &l->a, &l->d, &p);
    cr_assert_eq(st, TFC_OK, "%s", l->d.n ? l->d.items[0].msg : "?");
    return p;
}

static plan *build(loaded *l, const char *yaml, freeze_policy pol) { return build_with(l, yaml, pol, false); }

/* Phase 2 may give back up to the documented tolerance of T* to freeze
 * less (lp_freeze.h): a <= b up to that tolerance (and rounding). */
static bool leq_tol(double a, double b) { return a <= b * (1 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS + 1e-12 * b; }

static double total_freeze(const plan *p)
{
    double t = 0;
    for (size_t i = 0; i < p->s->n_actions; i++)
        t += p->x[i];
    return t;
}

Test(lp_props, plans_hold_their_invariants_across_schedules_and_caps)
{
    const double caps[] = {0.0, 0.3, 0.9, 1.0};
    size_t checked = 0;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (unsigned p = 2; p <= 3; p++)
            for (size_t c = 0; c < 4; c++) {
                unsigned m = 2 * p;
                char *yaml = small_spec(sh, p, m, caps[c], (unsigned)(sh * 31 + p * 7 + c));
                loaded lt, lu;
                plan *t = build(&lt, yaml, POLICY_TIMELY);
                plan *u = build(&lu, yaml, POLICY_UNIFORM);
                const char *what = shapes[sh][0];
                /* The makespan tfc reports is the simulated longest path with
                 * the returned durations; it must be the LP's T*. */
                cr_assert(fabs(t->opt.makespan - t->lp.t_star) <= 1e-6 * t->lp.t_star, "%s p=%u cap=%g: sim %.12g T* %.12g",
                          what, p, caps[c], t->opt.makespan, t->lp.t_star);
                for (size_t i = 0; i < t->s->n_actions; i++) {
                    cr_assert(t->x[i] >= 0.0 && t->x[i] <= 1.0);
                    if (!t->freezable[i])
                        cr_assert_eq(t->x[i], 0.0);
                }
                for (uint32_t st = 0; st < t->s->n_stages; st++) {
                    cr_assert_leq(t->stage_mean[st], caps[c] + 1e-9, "%s stage %u mean %.12g", what, st,
                                  t->stage_mean[st]);
                    /* The per-stage statistics, recounted from the ratios. */
                    double mx = 0, mn = 1, sum = 0;
                    size_t k = 0, full = 0, part = 0;
                    for (size_t i = 0; i < t->s->n_actions; i++) {
                        if (!t->freezable[i] || t->s->actions[i].stage != st)
                            continue;
                        double x = t->x[i];
                        mx = x > mx ? x : mx;
                        mn = x < mn ? x : mn;
                        sum += x;
                        k++;
                        full += x >= 1.0 - PLAN_RATIO_EPS;
                        part += x > PLAN_RATIO_EPS && x < 1.0 - PLAN_RATIO_EPS;
                    }
                    cr_assert_eq(k, t->stage_freezable[st]);
                    cr_assert(fabs(sum / (double)k - t->stage_mean[st]) < 1e-12);
                    cr_assert(mx == t->stage_max[st] && mn == t->stage_min[st]);
                    cr_assert(full == t->stage_full[st] && part == t->stage_partial[st]);
                }
                /* Never slower than the baseline or than uniform freezing at
                 * the same cap, and never freezing more than uniform. */
                cr_assert_leq(t->opt.makespan, t->base.makespan * (1 + 1e-12));
                cr_assert(leq_tol(t->opt.makespan, u->opt.makespan), "%s: timely %.12g uniform %.12g", what,
                          t->opt.makespan, u->opt.makespan);
                cr_assert_leq(total_freeze(t), total_freeze(u) + 1e-9, "%s: timely froze more", what);
                if (caps[c] == 0.0) {
                    /* No budget: exactly the baseline, bit for bit. */
                    cr_assert_eq(t->opt.makespan, t->base.makespan);
                    for (size_t i = 0; i < t->s->n_actions; i++) {
                        cr_assert_eq(t->x[i], 0.0);
                        cr_assert_eq(t->opt.start[i], t->base.start[i]);
                    }
                }
                loaded_free(&lt);
                loaded_free(&lu);
                free(yaml);
                checked++;
            }
    cr_assert_eq(checked, 6 * 2 * 4);
}

/* ---- a second formulation: one row per source-to-sink path ---- */

typedef struct pathlp {
    const plan *p;
    lprec *lp;
    int *xcol; /* per action */
    int tcol;
    uint32_t *path;
    size_t rows;
} pathlp;

/* Walks every path ending at v backwards; at a source, adds the row
 * T + sum D_u x_u >= sum w_u + latency for the path. */
static void walk(pathlp *pl, uint32_t v, size_t depth, double fixed)
{
    const plan *p = pl->p;
    const sched *s = p->s;
    pl->path[depth] = v;
    fixed += p->dur[v];
    uint32_t pr[3];
    unsigned k = rules_preds(s, v, pr);
    if (k == 0) {
        int cols[512];
        double vals[512];
        int n = 0;
        cols[n] = pl->tcol, vals[n++] = 1.0;
        for (size_t i = 0; i <= depth; i++) {
            uint32_t u = pl->path[i];
            if (pl->xcol[u])
                cols[n] = pl->xcol[u], vals[n++] = p->dur[u] - p->w_min[u];
        }
        cr_assert(add_constraintex(pl->lp, n, vals, cols, GE, fixed));
        pl->rows++;
        cr_assert_lt(pl->rows, 2000000, "too many paths for the brute-force formulation");
        return;
    }
    for (unsigned j = 0; j < k; j++) {
        uint32_t u = pr[j];
        bool cross = s->stage_rank[s->actions[u].stage] != s->stage_rank[s->actions[v].stage];
        walk(pl, u, depth + 1, fixed + (cross ? p->sp->timing.comm_ms : 0.0));
    }
}

static double path_formulation_t_star_with(const plan *p, uint32_t processors);

static double path_formulation_t_star(const plan *p) { return path_formulation_t_star_with(p, 0); }

/* processors > 0: also T >= the step's work over them, written from the
 * plan's durations here (every action's w_max, less x (w_max - w_min) for
 * the freezable ones). */
static double path_formulation_t_star_with(const plan *p, uint32_t processors)
{
    const sched *s = p->s;
    size_t n = s->n_actions;
    pathlp pl = {.p = p, .xcol = calloc(n, sizeof(int)), .path = malloc(n * sizeof(uint32_t))};
    int K = 0;
    for (size_t u = 0; u < n; u++)
        if (p->freezable[u])
            pl.xcol[u] = ++K;
    pl.tcol = K + 1;
    pl.lp = make_lp(0, K + 1);
    set_verbose(pl.lp, NEUTRAL);
    set_add_rowmode(pl.lp, TRUE);
    /* Paths end at actions with no successors: none depends on them. */
    bool *has_succ = calloc(n, sizeof *has_succ);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t pr[3];
        unsigned k = rules_preds(s, v, pr);
        for (unsigned j = 0; j < k; j++)
            has_succ[pr[j]] = true;
    }
    for (uint32_t v = 0; v < n; v++)
        if (!has_succ[v])
            walk(&pl, v, 0, 0.0);
    /* Budgets. */
    for (uint32_t st = 0; st < s->n_stages; st++) {
        int cols[4096];
        double ones[4096];
        int k = 0;
        for (size_t u = 0; u < n; u++)
            if (pl.xcol[u] && s->actions[u].stage == st)
                cols[k] = pl.xcol[u], ones[k++] = 1.0;
        if (k)
            add_constraintex(pl.lp, k, ones, cols, LE, p->sp->freeze.max_ratio * k);
    }
    if (processors) {
        int *cols = malloc((size_t)(K + 1) * sizeof *cols);
        double *vals = malloc((size_t)(K + 1) * sizeof *vals), work = 0.0;
        int k = 0;
        for (size_t u = 0; u < n; u++) {
            work += p->dur[u];
            if (pl.xcol[u])
                cols[k] = pl.xcol[u], vals[k++] = (p->dur[u] - p->w_min[u]) / processors;
        }
        cols[k] = pl.tcol, vals[k++] = 1.0;
        add_constraintex(pl.lp, k, vals, cols, GE, work / processors);
        free(cols);
        free(vals);
    }
    set_add_rowmode(pl.lp, FALSE);
    for (int c = 1; c <= K; c++)
        set_upbo(pl.lp, c, 1.0);
    double one = 1.0;
    set_obj_fnex(pl.lp, 1, &one, &pl.tcol);
    set_minim(pl.lp);
    cr_assert_eq(solve(pl.lp), OPTIMAL);
    double t = get_objective(pl.lp);
    delete_lp(pl.lp);
    free(pl.xcol);
    free(pl.path);
    free(has_succ);
    return t;
}

Test(lp_second_formulation, t_star_equals_the_path_formulation_on_small_instances)
{
    size_t checked = 0;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (unsigned p = 2; p <= 3; p++) {
            /* Paths multiply with every rank and microbatch: keep them few. */
            unsigned m = atoi(shapes[sh][1]) == 2 ? 2 : p == 2 ? 4 : 3; /* 1F1B needs m >= p */
            char *yaml = small_spec(sh, p, m, 0.6, (unsigned)(sh * 13 + p));
            loaded l;
            plan *pl = build(&l, yaml, POLICY_TIMELY);
            double paths = path_formulation_t_star(pl);
            cr_assert(fabs(paths - pl->lp.t_star) <= 1e-7 * paths, "%s p=%u m=%u: edge LP %.12g, path LP %.12g",
                      shapes[sh][0], p, m, pl->lp.t_star, paths);
            loaded_free(&l);
            free(yaml);
            checked++;
        }
    cr_assert_eq(checked, 12);
}

/* pipeline.processors below the ranks adds T >= the work over them: the
 * path formulation with that row written here agrees; T* bounds the plan's
 * step on the shared processors from below; and the row shortens those
 * steps over the instances (it freezes for the work, not only for the
 * critical path). */
Test(lp_second_formulation, the_work_row_equals_the_path_formulation_with_it)
{
    size_t checked = 0, binding = 0;
    double with_row = 0.0, without_row = 0.0;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (unsigned p = 2; p <= 3; p++)
            for (unsigned procs = 1; procs < p; procs++) {
                unsigned m = atoi(shapes[sh][1]) == 2 ? 2 : p == 2 ? 4 : 3;
                char *yaml = small_spec(sh, p, m, 0.6, (unsigned)(sh * 13 + p));
                char *at = strstr(yaml, "pipeline: {");
                cr_assert(at);
                char *with = malloc(strlen(yaml) + 32);
                sprintf(with, "%.*spipeline: {processors: %u, %s", (int)(at - yaml), yaml, procs,
                        at + strlen("pipeline: {"));
                loaded l, l0;
                plan *pl = build(&l, with, POLICY_TIMELY), *p0 = build(&l0, yaml, POLICY_TIMELY);
                double paths = path_formulation_t_star_with(pl, procs);
                cr_assert(fabs(paths - pl->lp.t_star) <= 1e-7 * paths, "%s p=%u m=%u P=%u: tfc %.12g, paths %.12g",
                          shapes[sh][0], p, m, procs, pl->lp.t_star, paths);
                cr_assert(pl->shared && p0->shared == false);
                /* T* bounds the step on the shared processors from below (the longest path and the
                 * work over them both do); the row is a bound, not the simulation, so one plan can
                 * come out a little longer than without it, but not the instances together. */
                cr_assert(pl->shared_opt_makespan >= pl->lp.t_star * (1 - 1e-9), "%s p=%u P=%u: %.12g below T* %.12g",
                          shapes[sh][0], p, procs, pl->shared_opt_makespan, pl->lp.t_star);
                with_row += pl->shared_opt_makespan;
                without_row += sim_shared(p0->s, p0->g, p0->opt_dur, p0->sp->timing.comm_ms, procs, &l0.a, NULL);
                binding += pl->lp.t_star > p0->lp.t_star * (1 + 1e-6);
                loaded_free(&l);
                loaded_free(&l0);
                free(with);
                free(yaml);
                checked++;
            }
    cr_assert_geq(checked, 18, "%zu", checked);
    cr_assert_geq(binding, 6, "the work row bound T* in only %zu of %zu instances", binding, checked);
    cr_assert_lt(with_row, without_row, "the shared steps: %.12g ms with the row, %.12g without", with_row, without_row);
}

Test(lp_second_formulation, two_stage_gpipe_matches_a_grid_search)
{
    /* 2 stages, 1 microbatch: path F0 F1 B1 B0. Freezing B1 and B0 (caps
     * per stage; one action each) shortens the only path linearly, so T* is
     * the path with both at the cap, which a grid over (x0, x1) confirms. */
    char *yaml = strdup("tfc: 1\nname: g\nmodel:\n  stages:\n    - params: [{name: w, numel: 1}]\n"
                        "    - params: [{name: w, numel: 1}]\n"
                        "pipeline: {schedule: GPipe, ranks: 2, microbatches: 1}\n"
                        "timing: {forward_ms: [1, 1.5], backward_ms: [2, 3], backward_frozen_ms: [1, 1.5], comm_ms: 0.1}\n"
                        "freeze: {max_ratio: 0.4}\n");
    loaded l;
    plan *p = build(&l, yaml, POLICY_TIMELY);
    double best = INFINITY;
    for (int i = 0; i <= 400; i++)
        for (int j = 0; j <= 400; j++) {
            double x0 = 0.4 * i / 400.0, x1 = 0.4 * j / 400.0;
            double t = 1 + 0.1 + 1.5 + (3 - 1.5 * x1) + 0.1 + (2 - 1 * x0);
            if (t < best)
                best = t;
        }
    /* The grid holds the optimum (both caps); the decomposition stops at a
     * relative gap of 1e-10. */
    cr_assert(fabs(p->lp.t_star - best) < 1e-10 * best, "T* %.15g vs grid %.15g", p->lp.t_star, best);
    cr_assert(p->opt.makespan >= best - 1e-12 && leq_tol(p->opt.makespan, best), "%.15g", p->opt.makespan);
    /* Phase 2 freezes nothing it does not need: here it needs both caps. */
    cr_assert(fabs(total_freeze(p) - 0.8) < 1e-6, "%.12g", total_freeze(p));
    loaded_free(&l);
    free(yaml);
}

Test(lp_second_formulation, phase_two_leaves_off_path_actions_unfrozen)
{
    /* 1F1B, 2 ranks, 2 microbatches, the last stage much slower: stage 0's
     * backwards hide behind stage 1's work except at the very end, so the
     * least-freezing optimum freezes stage 0 only where it shortens the step. */
    char *yaml = strdup("tfc: 1\nname: h\nmodel:\n  stages:\n    - params: [{name: w, numel: 1}]\n"
                        "    - params: [{name: w, numel: 1}]\n"
                        "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 2}\n"
                        "timing: {forward_ms: [1, 4], backward_ms: [2, 8], backward_frozen_ms: [1, 4]}\n"
                        "freeze: {max_ratio: 1}\n");
    loaded l;
    plan *p = build(&l, yaml, POLICY_TIMELY);
    loaded lu;
    plan *u = build(&lu, yaml, POLICY_UNIFORM);
    /* Everything frozen (uniform at cap 1) gives the same makespan here... */
    cr_assert(leq_tol(p->opt.makespan, u->opt.makespan) && u->opt.makespan <= p->opt.makespan + 1e-12, "%.12g %.12g",
              p->opt.makespan, u->opt.makespan);
    /* ...but timely gets there freezing strictly less. */
    cr_assert_lt(total_freeze(p), total_freeze(u) - 0.5, "timely %g uniform %g", total_freeze(p), total_freeze(u));
    loaded_free(&l);
    loaded_free(&lu);
    free(yaml);
}

/* ---- phase 3 and the per-action cap ---- */

static char *with_freeze(const char *yaml, const char *extra)
{
    /* small_spec ends with "freeze: {max_ratio: C}\n": add keys inside it. */
    size_t n = strlen(yaml);
    char *out = malloc(n + strlen(extra) + 8);
    memcpy(out, yaml, n - 2); /* drop "}\n" */
    sprintf(out + n - 2, ", %s}\n", extra);
    return out;
}

Test(lp_phase3, minmax_keeps_the_makespan_and_total_and_never_raises_the_largest_ratio)
{
    size_t checked = 0;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (unsigned p = 2; p <= 3; p++) {
            char *base = small_spec(sh, p, 2 * p, 0.5, (unsigned)(sh * 17 + p));
            char *none_yaml = with_freeze(base, "balance: none");
            loaded lm, ln;
            plan *m = build(&lm, base, POLICY_TIMELY); /* minmax is the default */
            plan *n = build(&ln, none_yaml, POLICY_TIMELY);
            cr_assert(fabs(m->lp.t_star - n->lp.t_star) <= 1e-9 * n->lp.t_star);
            cr_assert(fabs(m->lp.total_freeze - n->lp.total_freeze) <= 1e-9 * (1 + n->lp.total_freeze));
            double sum = total_freeze(m);
            /* Ratios within LP_SNAP_TOL of 1 are reported as 1 (lp_freeze.c,
             * snap_ratios): each may add up to that much to the total. */
            size_t at_one = 0;
            for (size_t i = 0; i < m->s->n_actions; i++)
                at_one += m->x[i] == 1.0;
            cr_assert(sum <= n->lp.total_freeze * (1 + LP_BALANCE_TOTAL_REL_TOL) + LP_T_ABS_TOL_MS + 1e-9 +
                                 LP_SNAP_TOL * (double)at_one,
                      "%.12g", sum);
            cr_assert(leq_tol(m->opt.makespan, n->lp.t_star * (1 + LP_T_REL_TOL) + LP_T_ABS_TOL_MS));
            double max_m = 0, max_n = 0;
            for (size_t i = 0; i < m->s->n_actions; i++) {
                max_m = fmax(max_m, m->x[i]);
                max_n = fmax(max_n, n->x[i]);
            }
            cr_assert(max_m <= max_n + 1e-9, "%s p=%u: minmax max %.12g > none max %.12g", shapes[sh][0], p, max_m,
                      max_n);
            cr_assert(fabs(max_m - m->lp.max_ratio) < 1e-9);
            loaded_free(&lm);
            loaded_free(&ln);
            free(base);
            free(none_yaml);
            checked++;
        }
    cr_assert_eq(checked, 12);
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Leximin's ratios, largest first, are no larger than minmax's at the first
 * place they differ (each round's start is feasible for the next); true
 * when they differ there (leximin strictly more even). */
static bool assert_leximin_no_less_even(const plan *lex, const plan *mm, const char *what)
{
    size_t n = mm->s->n_actions;
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    for (size_t i = 0; i < n; i++)
        a[i] = lex->x[i], b[i] = mm->x[i];
    qsort(a, n, sizeof *a, cmp_desc);
    qsort(b, n, sizeof *b, cmp_desc);
    bool strictly = false;
    for (size_t i = 0; i < n && !strictly; i++) {
        strictly = a[i] < b[i] - 1e-7;
        cr_assert(strictly || a[i] <= b[i] + 1e-7, "%s: leximin's %zu-th largest %.9g > minmax's %.9g", what, i, a[i],
                  b[i]);
    }
    free(a);
    free(b);
    return strictly;
}

/* Leximin keeps T* and the phase-2 total, and its ratios sorted largest
 * first are lexicographically no larger than minmax's (each round's start
 * is feasible for the next, so no round can do worse). */
Test(lp_phase3, leximin_is_never_less_even_than_minmax)
{
    size_t checked = 0, strictly = 0;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (unsigned p = 2; p <= 3; p++) {
            char *base = small_spec(sh, p, 2 * p, 0.5, (unsigned)(sh * 17 + p));
            char *lex_yaml = with_freeze(base, "balance: leximin");
            loaded lm, ll;
            plan *m = build(&lm, base, POLICY_TIMELY);
            plan *l = build(&ll, lex_yaml, POLICY_TIMELY);
            cr_assert(fabs(m->lp.t_star - l->lp.t_star) <= 1e-9 * m->lp.t_star);
            cr_assert(fabs(m->lp.total_freeze - l->lp.total_freeze) <= 1e-9 * (1 + m->lp.total_freeze));
            /* The plan's makespan is T* to 1e-7: the rounding after the LP
             * (ratios snapped onto their bound and the excess taken back,
             * caps restored exactly) can lengthen leximin's plan by ~1e-8
             * of the step, beyond phase 2's 1e-9. */
            cr_assert(fabs(l->opt.makespan - m->lp.t_star) <= 1e-7 * m->lp.t_star, "sh %zu p %u: %.17g vs T* %.17g",
                      sh, p, l->opt.makespan, m->lp.t_star);
            char what[64];
            snprintf(what, sizeof what, "%s p=%u", shapes[sh][0], p);
            strictly += assert_leximin_no_less_even(l, m, what);
            loaded_free(&lm);
            loaded_free(&ll);
            free(base);
            free(lex_yaml);
            checked++;
        }
    cr_assert_eq(checked, 12);
    cr_log_info("leximin strictly more even than minmax on %zu of %zu instances", strictly, checked);
}

Test(lp_phase3, max_action_ratio_caps_every_action_and_says_when_it_costs_time)
{
    /* GPipe, 2 ranks, 4 microbatches, uniform timings, cap 0.5: the fastest
     * plan needs some backwards fully frozen (see the phase-2 answer), so a
     * 0.7 per-action cap must lengthen the step. */
    char *base = strdup("tfc: 1\nname: c\nmodel:\n  stages:\n    - params: [{name: w, numel: 1}]\n"
                        "    - params: [{name: w, numel: 1}]\n"
                        "pipeline: {schedule: GPipe, ranks: 2, microbatches: 4}\n"
                        "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n"
                        "freeze: {max_ratio: 0.5, max_action_ratio: 0.7}\n");
    loaded l;
    plan *p = build(&l, base, POLICY_TIMELY);
    for (size_t i = 0; i < p->s->n_actions; i++)
        cr_assert_leq(p->x[i], 0.7 + 1e-12);
    cr_assert_gt(p->lp.t_star, p->lp.t_star_uncapped + 1e-6, "%.9g vs %.9g", p->lp.t_star, p->lp.t_star_uncapped);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    plan_print_text(p, mem);
    fclose(mem);
    cr_assert_not_null(strstr(buf, "freeze.max_action_ratio 0.7 lengthens the step"), "%s", buf);
    free(buf);
    loaded_free(&l);
    free(base);
}

/* ---- the decomposition against the whole LP ---- */

static double max_ratio(const plan *p)
{
    double m = 0;
    for (size_t i = 0; i < p->s->n_actions; i++)
        m = fmax(m, p->x[i]);
    return m;
}

Test(lp_decompose, equals_lp_solve_on_the_whole_lp)
{
    const double caps[] = {0.2, 0.5, 0.9, 1.0};
    const char *extras[] = {"balance: none", "balance: minmax", "max_action_ratio: 0.8", "balance: leximin"};
    size_t checked = 0;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (unsigned p = 2; p <= 4; p++)
            for (size_t c = 0; c < 4; c++) {
                char *base = small_spec(sh, p, p * (2 + c % 2), caps[c], (unsigned)(sh * 101 + p * 13 + c * 7 + 5));
                char *yaml = with_freeze(base, extras[(sh + p + c) % 4]);
                loaded ld, lw;
                plan *dw = build_with(&ld, yaml, POLICY_TIMELY, false);
                plan *lp = build_with(&lw, yaml, POLICY_TIMELY, true);
                const char *what = shapes[sh][0];
                cr_assert(fabs(dw->lp.t_star - lp->lp.t_star) <= 1e-8 * lp->lp.t_star,
                          "%s p=%u cap=%g %s: T* decomposed %.12g, whole %.12g", what, p, caps[c],
                          extras[(sh + p + c) % 4], dw->lp.t_star, lp->lp.t_star);
                cr_assert(fabs(dw->lp.t_star_uncapped - lp->lp.t_star_uncapped) <= 1e-8 * lp->lp.t_star_uncapped);
                cr_assert(fabs(dw->lp.total_freeze - lp->lp.total_freeze) <= 1e-7 * (1 + lp->lp.total_freeze),
                          "%s p=%u cap=%g: total decomposed %.12g, whole %.12g", what, p, caps[c],
                          dw->lp.total_freeze, lp->lp.total_freeze);
                /* Phase 3 by bisection: the largest ratio within its
                 * tolerance (1e-6) and the snapping (1e-7) of the LP's. */
                if (strcmp(extras[(sh + p + c) % 4], "balance: minmax") == 0)
                    cr_assert(fabs(max_ratio(dw) - max_ratio(lp)) <= 2e-6, "%s p=%u: max ratio %.9g vs %.9g", what,
                              p, max_ratio(dw), max_ratio(lp));
                /* The plan itself: the simulated makespan is T*, caps hold. */
                cr_assert(fabs(dw->opt.makespan - dw->lp.t_star) <= 1e-6 * dw->lp.t_star);
                for (uint32_t st = 0; st < dw->s->n_stages; st++)
                    cr_assert_leq(dw->stage_mean[st], caps[c] + 1e-9);
                loaded_free(&ld);
                loaded_free(&lw);
                free(base);
                free(yaml);
                checked++;
            }
    cr_assert_eq(checked, 6 * 3 * 4);
}

static char *read_spec(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    cr_assert_gt(n, 0);
    return buf;
}

/* Two small interleaved specs (found by a review) on which the
 * decomposition failed: on the first, lp_solve cycled without end on a
 * phase-3 master (leximin; no --lp-timeout could stop it); on the second,
 * it called phase 2's master infeasible (lp_solve's status 2), exit 3.
 * Each now plans, with the whole LP's T* and total freezing, leximin no
 * less even than minmax, and the second says it solved the LP whole. */
Test(lp_decompose, specs_that_defeated_its_master_plan_as_the_whole_lp_does, .timeout = 120)
{
    const char *cycled =
        "tfc: 1\nname: t\nmodel:\n  stages:\n"
        "    - params: [{name: w0, numel: 10}]\n    - params: [{name: w1, numel: 10}]\n"
        "    - params: [{name: w2, numel: 10}]\n    - params: [{name: w3, numel: 10}]\n"
        "    - params: [{name: w4, numel: 10}]\n    - params: [{name: w5, numel: 10}]\n"
        "    - params: [{name: w6, numel: 10}]\n    - params: [{name: w7, numel: 10}]\n"
        "    - params: [{name: w8, numel: 10}]\n    - params: [{name: w9, numel: 10}]\n"
        "pipeline: {schedule: Interleaved1F1B, ranks: 5, stages_per_rank: 2, microbatches: 5}\n"
        "timing: {forward_ms: [0.5, 2, 2, 3, 1, 2.5, 2, 1, 2, 1.5], "
        "backward_ms: [0.75, 5.0, 5.0, 4.5, 2, 5.0, 5.0, 2.5, 4, 3.75], "
        "backward_frozen_ms: [0.375, 2.5, 2.5, 1.35, 1.0, 3.5, 1.5, 1.25, 2.8, 2.625], comm_ms: 0.5}\n"
        "freeze: {max_ratio: 0.25, balance: leximin}\n";
    const char *infeasible =
        "tfc: 1\nname: small\nmodel:\n  stages:\n"
        "    - params: [{name: w0, numel: 1000}]\n    - params: [{name: w1, numel: 2000}]\n"
        "    - params: [{name: w2, numel: 3000}]\n    - params: [{name: w3, numel: 4000}]\n"
        "    - params: [{name: w4, numel: 5000}]\n    - params: [{name: w5, numel: 6000}]\n"
        "    - params: [{name: w6, numel: 7000}]\n    - params: [{name: w7, numel: 8000}]\n"
        "pipeline: {schedule: Interleaved1F1B, ranks: 4, stages_per_rank: 2, microbatches: 2}\n"
        "timing: {forward_ms: [1,2,1,2,1,2,1,3], backward_ms: [2,4,2,4,2,4,2,6], "
        "backward_frozen_ms: [1,2,1,2,1,2,1,3], comm_ms: 0.5}\n"
        "freeze: {max_ratio: 0.5}\n";
    const char *specs[] = {cycled, infeasible};
    for (size_t k = 0; k < 2; k++) {
        loaded ld, lw, lm;
        plan *dw = build_with(&ld, specs[k], POLICY_TIMELY, false);
        plan *lp = build_with(&lw, specs[k], POLICY_TIMELY, true);
        cr_assert(fabs(dw->lp.t_star - lp->lp.t_star) <= 1e-8 * lp->lp.t_star, "spec %zu: T* %.12g vs %.12g", k,
                  dw->lp.t_star, lp->lp.t_star);
        cr_assert(fabs(dw->lp.total_freeze - lp->lp.total_freeze) <= 1e-7 * (1 + lp->lp.total_freeze),
                  "spec %zu: total %.12g vs %.12g", k, dw->lp.total_freeze, lp->lp.total_freeze);
        cr_assert(fabs(dw->opt.makespan - dw->lp.t_star) <= 1e-6 * dw->lp.t_star);
        for (uint32_t st = 0; st < dw->s->n_stages; st++)
            cr_assert_leq(dw->stage_mean[st], (k ? 0.5 : 0.25) + 1e-9);
        bool warned = false;
        for (size_t i = 0; i < ld.d.n; i++)
            warned = warned || strstr(ld.d.items[i].msg, "solved the LP whole instead") != NULL;
        cr_assert_eq(warned, k == 1, "spec %zu: the fallback to the whole LP %s", k, warned ? "said" : "not said");
        if (k == 0) {
            char *mm = strdup(specs[k]);
            char *at = strstr(mm, "leximin");
            memcpy(at, "minmax ", 7);
            plan *m = build_with(&lm, mm, POLICY_TIMELY, false);
            assert_leximin_no_less_even(dw, m, "the spec lp_solve cycled on");
            free(mm);
            loaded_free(&lm);
        }
        loaded_free(&ld);
        loaded_free(&lw);
    }
}

/* Specs from a random sweep: on the first three lp_solve called a leximin
 * round of the whole LP infeasible (exit 3 under --lp-method direct); on
 * the fourth, a decomposed phase-3 check repeated a column (exit 3 by
 * default); on the fifth, lp_solve ended a decomposed phase-3 check's
 * master OPTIMAL but gave no duals for it (exit 3 by default). Each plans:
 * the whole LP and the decomposition agree on T* and the total (the fourth
 * against its own balance: none plan: the whole LP takes minutes there),
 * the makespan is T*, and leximin is no less even than minmax. */
Test(lp_phase3, specs_whose_leximin_rounds_failed_plan, .timeout = 300)
{
    const char *files[] = {"lp_leximin_round_187.yaml", "lp_leximin_round_194.yaml", "lp_leximin_round_307.yaml",
                           "lp_phase3_repeat.yaml", "lp_no_duals.yaml"};
    /* Whether T* and the total are checked against the whole LP (else
     * against the decomposition's balance: none plan), and whether the
     * evenness is checked on the whole LP's plan (else the decomposition's:
     * where each failed). */
    const bool whole[] = {true, true, true, false, true};
    const bool even_whole[] = {true, true, true, false, false};
    for (size_t k = 0; k < 5; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/specs/%s", TFC_SOURCE_DIR, files[k]);
        char *lex = read_spec(path);
        char *mm = strdup(lex), *none = strdup(lex);
        char *at = strstr(mm, "leximin"), *at2 = strstr(none, "leximin");
        cr_assert(at && at2);
        memcpy(at, "minmax ", 7);
        memcpy(at2, "none   ", 7);
        loaded ld, lw, lm;
        plan *dw = build_with(&ld, lex, POLICY_TIMELY, false);
        plan *ref = build_with(&lw, whole[k] ? lex : none, POLICY_TIMELY, whole[k]);
        cr_assert(fabs(dw->lp.t_star - ref->lp.t_star) <= 1e-8 * ref->lp.t_star, "%s: T* %.12g vs %.12g", files[k],
                  dw->lp.t_star, ref->lp.t_star);
        cr_assert(fabs(dw->lp.total_freeze - ref->lp.total_freeze) <= 1e-6 * (1 + ref->lp.total_freeze),
                  "%s: total %.12g vs %.12g", files[k], dw->lp.total_freeze, ref->lp.total_freeze);
        for (int which = 0; which < 2; which++) {
            const plan *p = which ? ref : dw;
            cr_assert(fabs(p->opt.makespan - p->lp.t_star) <= 1e-6 * p->lp.t_star, "%s: makespan %.12g, T* %.12g",
                      files[k], p->opt.makespan, p->lp.t_star);
        }
        plan *m = build_with(&lm, mm, POLICY_TIMELY, even_whole[k]);
        assert_leximin_no_less_even(even_whole[k] ? ref : dw, m, files[k]);
        loaded_free(&ld);
        loaded_free(&lw);
        loaded_free(&lm);
        free(lex);
        free(mm);
        free(none);
    }
}

/* The subproblem min nu T + sum c x as an LP over start times, written
 * from the dependency rules with every edge and a T row per action. */
/* With t_lim >= 0: nu is 0 and T <= t_lim (the deadline subproblem);
 * returns NAN when that is infeasible. */
static double subproblem_lp_at(const plan *p, double nu, const double *c, const double *hi, double t_lim)
{
    const sched *s = p->s;
    size_t n = s->n_actions;
    int tcol = (int)(2 * n + 1);
    lprec *lp = make_lp(0, tcol);
    set_verbose(lp, NEUTRAL);
    set_add_rowmode(lp, TRUE);
    double comm = p->sp->timing.comm_ms;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t pr[3];
        unsigned k = rules_preds(s, v, pr);
        for (unsigned j = 0; j < k; j++) {
            uint32_t u = pr[j];
            bool cross = s->stage_rank[s->actions[u].stage] != s->stage_rank[s->actions[v].stage];
            int cols[3] = {(int)v + 1, (int)u + 1, (int)(n + u + 1)};
            double vals[3] = {1.0, -1.0, p->dur[u] - p->w_min[u]};
            add_constraintex(lp, 3, vals, cols, GE, p->dur[u] + (cross ? comm : 0.0));
        }
        int cols[3] = {tcol, (int)v + 1, (int)(n + v + 1)};
        double vals[3] = {1.0, -1.0, p->dur[v] - p->w_min[v]};
        add_constraintex(lp, 3, vals, cols, GE, p->dur[v]);
    }
    set_add_rowmode(lp, FALSE);
    double *obj = calloc((size_t)tcol + 1, sizeof *obj);
    for (size_t u = 0; u < n; u++) {
        set_upbo(lp, (int)(n + u + 1), p->freezable[u] ? hi[u] : 0.0);
        obj[n + u + 1] = p->freezable[u] ? c[u] : 0.0;
    }
    obj[tcol] = t_lim >= 0.0 ? 0.0 : nu;
    if (t_lim >= 0.0)
        set_upbo(lp, tcol, t_lim);
    set_obj_fn(lp, obj);
    set_minim(lp);
    int ret = solve(lp);
    double v = ret == INFEASIBLE && t_lim >= 0.0 ? NAN : get_objective(lp);
    if (!(ret == INFEASIBLE && t_lim >= 0.0))
        cr_assert_eq(ret, OPTIMAL);
    delete_lp(lp);
    free(obj);
    return v;
}

static double subproblem_lp(const plan *p, double nu, const double *c, const double *hi)
{
    return subproblem_lp_at(p, nu, c, hi, -1.0);
}

Test(lp_subproblem, the_flow_subproblem_equals_its_lp)
{
    size_t checked = 0;
    unsigned seed = 12345;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (unsigned p = 2; p <= 3; p++) {
            char *yaml = small_spec(sh, p, 2 * p, 0.7, (unsigned)(sh * 7 + p));
            loaded l;
            plan *pl = build_with(&l, yaml, POLICY_NONE, false);
            lp_problem pb = plan_lp_problem(pl);
            lp_price pr;
            arena mem;
            arena_init(&mem, 0);
            cr_assert(lp_price_init(&pr, &pb, &mem));
            size_t n = pl->s->n_actions;
            double *c = calloc(n, sizeof *c), *x = calloc(n, sizeof *x), *hi = calloc(n, sizeof *hi);
            for (int trial = 0; trial < 12; trial++) {
                /* Prices from cheap to dear (some negative: freezing pays
                 * by itself), the time's weight 0 to 3, some caps below 1. */
                double nu = trial == 0 ? 0.0 : 0.25 * (double)(trial % 13);
                for (size_t u = 0; u < n; u++) {
                    seed = seed * 1103515245u + 12345u;
                    c[u] = ((double)(seed >> 16 & 1023) / 1023.0 - 0.1) * 3.0 * (double)(trial % 4);
                    seed = seed * 1103515245u + 12345u;
                    hi[u] = trial % 3 == 2 ? 0.3 + 0.7 * (double)(seed >> 16 & 1023) / 1023.0 : 1.0;
                    lp_price_set_cap(&pr, (uint32_t)u, hi[u]);
                }
                double T, val;
                cr_assert(lp_price_solve(&pr, nu, c, x, &T, &val));
                double want = subproblem_lp(pl, nu, c, hi);
                cr_assert(fabs(val - want) <= 1e-8 * (1 + fabs(want)), "%s p=%u trial %d nu %g: flow %.12g, LP %.12g",
                          shapes[sh][0], p, trial, nu, val, want);
                /* The returned x is a plan worth exactly that: its own
                 * makespan, within its caps. */
                for (size_t u = 0; u < n; u++)
                    cr_assert(x[u] >= 0.0 && x[u] <= (pl->freezable[u] ? hi[u] : 0.0) + 1e-12);
                checked++;
            }
            arena_free(&mem); /* frees pr */
            free(c);
            free(x);
            free(hi);
            loaded_free(&l);
            free(yaml);
        }
    cr_assert_eq(checked, 6 * 2 * 12);
}

/* Phase 2's subproblem: the least priced freezing within a deadline, as a
 * circulation, against lp_solve on its LP (the dependency rules, every
 * edge, T bounded by the deadline). Each deadline gets a run of price
 * vectors, as phase 2's rounds do, so all but the first start warm from
 * the last tree; a deadline under the fully frozen step is beyond reach. */
Test(lp_subproblem, the_deadline_subproblem_equals_its_lp)
{
    size_t checked = 0;
    long long warm = 0;
    unsigned seed = 777;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (unsigned p = 2; p <= 3; p++) {
            char *yaml = small_spec(sh, p, 2 * p, 0.7, (unsigned)(sh * 5 + p));
            loaded l;
            plan *pl = build_with(&l, yaml, POLICY_NONE, false);
            lp_problem pb = plan_lp_problem(pl);
            lp_price pr;
            arena mem;
            arena_init(&mem, 0);
            cr_assert(lp_price_init(&pr, &pb, &mem));
            size_t n = pl->s->n_actions;
            double *c = calloc(n, sizeof *c), *x = calloc(n, sizeof *x), *hi = calloc(n, sizeof *hi);
            double *dur = calloc(n, sizeof *dur), *start = calloc(n, sizeof *start);
            for (size_t u = 0; u < n; u++) {
                hi[u] = 1.0;
                dur[u] = pl->freezable[u] ? pl->w_min[u] : pl->dur[u];
            }
            double t_min = sim_longest_path(pl->s, pl->g, dur, pl->sp->timing.comm_ms, start);
            double t_max = pl->base.makespan;
            double T, val;
            for (size_t u = 0; u < n; u++)
                c[u] = 1.0;
            cr_assert_eq(lp_price_solve_deadline(&pr, t_min * 0.99, c, x, &T, &val), LP_PRICE_BEYOND_REACH);
            for (int d = 0; d < 3; d++) {
                double t_lim = t_min + (t_max - t_min) * (0.05 + 0.4 * d);
                for (int trial = 0; trial < 6; trial++) {
                    for (size_t u = 0; u < n; u++) {
                        seed = seed * 1103515245u + 12345u;
                        c[u] = 1.0 + (double)(seed >> 16 & 1023) / 1023.0 * (double)(trial % 3) * 2.0;
                    }
                    cr_assert_eq(lp_price_solve_deadline(&pr, t_lim, c, x, &T, &val), LP_PRICE_OK);
                    double want = subproblem_lp_at(pl, 0.0, c, hi, t_lim);
                    cr_assert(fabs(val - want) <= 1e-8 * (1 + fabs(want)), "%s p=%u deadline %d trial %d: flow %.12g, LP %.12g",
                              shapes[sh][0], p, d, trial, val, want);
                    /* The plan keeps the deadline, within its caps. */
                    cr_assert(T <= t_lim * (1 + 1e-11), "%.15g > %.15g", T, t_lim);
                    for (size_t u = 0; u < n; u++)
                        cr_assert(x[u] >= 0.0 && x[u] <= (pl->freezable[u] ? hi[u] : 0.0) + 1e-12);
                    checked++;
                }
            }
            warm += pr.warm_solves;
            arena_free(&mem); /* frees pr */
            free(c);
            free(x);
            free(hi);
            free(dur);
            free(start);
            loaded_free(&l);
            free(yaml);
        }
    cr_assert_eq(checked, 6 * 2 * 3 * 6);
    cr_assert_gt(warm, (long long)checked / 2, "warm starts %lld of %zu", warm, checked);
}

/* A step whose fully frozen length is a small part of the unfrozen one
 * (backward 100x forward, frozen backward = forward): the first phase-2
 * deadline is the fully frozen step plus 1e-9 of it, less room than the
 * flow solver's margin on the unfrozen step. Phase 2 must still solve,
 * and agree with lp_solve on the whole LP. */
/* The decomposition's T* and phase-2 total equal lp_solve's on the whole LP. */
static void expect_whole_lp_agrees(const char *yaml)
{
    loaded ld, lw;
    plan *dw = build_with(&ld, yaml, POLICY_TIMELY, false);
    plan *lp = build_with(&lw, yaml, POLICY_TIMELY, true);
    cr_assert(fabs(dw->lp.t_star - lp->lp.t_star) <= 1e-8 * lp->lp.t_star, "%.12g vs %.12g", dw->lp.t_star,
              lp->lp.t_star);
    cr_assert(fabs(dw->lp.total_freeze - lp->lp.total_freeze) <= 1e-7 * (1 + lp->lp.total_freeze), "%.12g vs %.12g",
              dw->lp.total_freeze, lp->lp.total_freeze);
    loaded_free(&ld);
    loaded_free(&lw);
}

Test(lp_decompose, a_deadline_with_little_room_still_solves)
{
    expect_whole_lp_agrees("tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: w, numel: 1}]\n"
                           "    - params: [{name: w, numel: 1}]\n"
                           "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 64}\n"
                           "timing: {forward_ms: 0.2, backward_ms: 20, backward_frozen_ms: 0.2}\n"
                           "freeze: {max_ratio: 0.9}\n");
}

/* Llama-3-8B's shape as python/tfc_spec.py from-hf writes it (one layer a
 * stage, cost-model timings), LoopedBFS on 16 ranks: once budget rows
 * joined, phase 1 started from the prices handed in sat on one degenerate
 * master vertex, 2,083 rounds at 128 microbatches (26 s; the plan was
 * right). DW_STALL_ROUNDS starts it over from the master's prices: about
 * 100 rounds. At 64 microbatches, where the whole LP solves in seconds,
 * the plan agrees with it. */
static char *looped_llama_spec(unsigned microbatches)
{
    char *y = malloc(8192);
    size_t o = (size_t)sprintf(y, "tfc: 1\nname: t\nmodel:\n  stages:\n");
    for (int s = 0; s < 32; s++)
        o += (size_t)sprintf(y + o, "    - params: [{name: w, numel: 1}]\n");
    sprintf(y + o,
            "pipeline: {schedule: LoopedBFS, ranks: 16, stages_per_rank: 2, microbatches: %u}\n"
            "timing:\n  source: model\n  transformer: {layers: 32, hidden: 4096, ffn: 14336, heads: 32, "
            "kv_heads: 8, vocab: 128256, seq_len: 4096, microbatch_size: 1,\n    stage_layers: [1, 1, 1, 1, 1, 1, "
            "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}\n"
            "  device: {peak_tflops: 989, mfu: 0.4}\n  comm_ms: 0.6711\nfreeze: {max_ratio: 0.5}\n",
            microbatches);
    return y;
}

Test(lp_decompose, a_warm_phase_one_that_stalls_starts_over)
{
    char *yaml = looped_llama_spec(128);
    loaded l;
    plan *pl = build_with(&l, yaml, POLICY_TIMELY, false);
    cr_assert_gt(pl->lp.budget_rounds, 0, "no budget rows joined: phase 1 never started warm");
    cr_assert_leq(pl->lp.iterations[0], 400, "phase 1 took %lld rounds", pl->lp.iterations[0]);
    cr_assert(fabs(pl->opt.makespan - pl->lp.t_star) <= 1e-6 * pl->lp.t_star);
    loaded_free(&l);
    free(yaml);

    yaml = looped_llama_spec(64);
    expect_whole_lp_agrees(yaml);
    free(yaml);
}

/* The decomposition alone, as lp_freeze_solve calls it, on tests/specs/NAME:
 * its status and statistics, never the whole LP's fallback. */
static tfc_status decompose_file(const char *name, lp_stats *st, double *baseline)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/specs/%s", TFC_SOURCE_DIR, name);
    char *yaml = read_text_file(path);
    cr_assert(yaml, "%s", path);
    loaded l;
    plan *pl = build_with(&l, yaml, POLICY_NONE, false);
    lp_problem pb = plan_lp_problem(pl);
    arena mem;
    arena_init(&mem, 0);
    double *x = calloc(pl->s->n_actions, sizeof *x);
    cr_assert(x);
    memset(st, 0, sizeof *st);
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    tfc_status r = lp_dw_solve(&pb, &mem, name, &d, x, st);
    *baseline = pl->base.makespan;
    diag_free(&d);
    free(x);
    arena_free(&mem);
    loaded_free(&l);
    free(yaml);
    return r;
}

/* A phase-2 master that lp_solve solved scaled priced a column the pool
 * already had below zero, beyond the noise the test allows: the
 * decomposition gave up and the LP was solved whole (over 13 minutes at
 * these 9,600 actions). Re-solved unscaled once, its prices end the phase.
 * The decomposition must not give up; the plan's T* and total are
 * HiGHS's (ctest lp_oracle_specs). */
Test(lp_decompose, a_master_whose_prices_repeat_a_column_is_solved_again_unscaled)
{
    lp_stats st;
    double base;
    tfc_status r = decompose_file("lp_polish_gpipe.yaml", &st, &base);
    cr_assert(!st.dw_gave_up, "the decomposition gave up in phase %d: %s", (int)st.dw_gave_up_in, st.dw_gave_up_why);
    cr_assert_eq(r, TFC_OK);
    cr_assert(st.t_star > 0.0 && st.t_star < base);
}

/* A master re-solved from the last round's basis stalled, degenerate, for
 * up to 156,201 simplex iterations a round where lp_solve's default basis
 * takes about 250 (85 s in all on these 2,424 actions): a warm re-solve
 * stops past DW_WARM_ITER_* and starts over. Iterations counted, not
 * timed; T* and the total are HiGHS's (ctest lp_oracle_specs). */
Test(lp_decompose, a_stalling_warm_master_starts_over_from_the_default_basis)
{
    lp_stats st;
    double base;
    tfc_status r = decompose_file("lp_warm_stall.yaml", &st, &base);
    cr_assert_eq(r, TFC_OK);
    cr_assert(!st.dw_gave_up, "%s", st.dw_gave_up_why);
    cr_assert_leq(st.master_iterations, 200000, "%lld simplex iterations on the masters", st.master_iterations);
}

/* The whole LP's size as tfc plan reports it on the default path, counted
 * from the DAG without writing a row (lp_problem_size), equals the LP that
 * lp_direct_build writes, on every schedule at several sizes, and with a
 * freezable action whose frozen and unfrozen durations are equal (its x
 * term is zero and dropped). */
static void expect_size_of_built_lp(const char *yaml, const char *what)
{
    loaded l;
    plan *pl = build_with(&l, yaml, POLICY_NONE, false);
    lp_problem pb = plan_lp_problem(pl);
    arena mem;
    arena_init(&mem, 0);
    lp_direct_lp w;
    cr_assert(lp_direct_build(&pb, &mem, &w), "%s: the LP does not fit its count (overflow %d)", what, w.overflow);
    lp_size z = lp_problem_size(&pb);
    cr_assert_eq(z.rows, w.n_rows, "%s: %zu rows counted, %zu built", what, z.rows, w.n_rows);
    cr_assert_eq(z.nonzeros, w.nz, "%s: %zu nonzeros counted, %zu built", what, z.nonzeros, w.nz);
    cr_assert_eq(z.cols, (size_t)w.ncols, "%s: %zu columns counted, %d built", what, z.cols, w.ncols);
    cr_assert_eq(z.freezable, w.K, "%s", what);
    arena_free(&mem);
    loaded_free(&l);
}

Test(lp_size, counted_without_building_equals_the_built_lp)
{
    char what[96];
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (unsigned p = 2; p <= 4; p += 2)
            for (unsigned k = 2; k <= 3; k++) {
                char *yaml = small_spec(sh, p, k * p, 0.7, (unsigned)(sh * 11 + p + k));
                snprintf(what, sizeof what, "%s x %s, %u ranks, %u microbatches", shapes[sh][0], shapes[sh][1], p,
                         k * p);
                expect_size_of_built_lp(yaml, what);
                free(yaml);
            }
    expect_size_of_built_lp("tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: w, numel: 1}]\n"
                            "    - params: [{name: w, numel: 1}]\n"
                            "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 4}\n"
                            "timing: {forward_ms: [1, 1], backward_ms: [2, 2], backward_frozen_ms: [2, 1]}\n"
                            "freeze: {max_ratio: 0.5}\n",
                            "1F1B with a stage that freezing cannot shorten");
    expect_size_of_built_lp("tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: w, numel: 1}]\n"
                            "    - params: [{name: w, numel: 1}]\n"
                            "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 4, processors: 1}\n"
                            "timing: {forward_ms: [1, 1], backward_ms: [2, 2], backward_frozen_ms: [2, 1]}\n"
                            "freeze: {max_ratio: 0.5}\n",
                            "the same on one shared processor (the work row)");
}
