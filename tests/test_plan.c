/* dag + sim + plan: acyclicity of the built-in schedules, the simulator
 * against an independent longest-path computation, GPipe's textbook
 * makespan, custom CSV validation and deadlock reports, and the JSON. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "plan.h"
#include "plan_print.h"
#include "sched_csv.h"
#include "sim.h"
#include "rules.h"
#include "specbuf.h"

static const spec_schedule kinds[] = {SCHED_GPIPE, SCHED_1F1B, SCHED_INTERLEAVED_1F1B, SCHED_ZBH1, SCHED_ZBV};

/* A deterministic pseudo-random stream for durations (xorshift). */
static double rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return 0.5 + (double)(*x % 1000) / 100.0;
}

/* The oracle: start times by relaxing every dependency, written from the
 * rules (not from dag.c's edge list), swept until nothing changes. */
static double oracle_makespan(const sched *s, const double *dur, double comm, double *start)
{
    size_t n = s->n_actions;
    for (size_t i = 0; i < n; i++)
        start[i] = 0.0;
    bool changed = true;
    size_t sweeps = 0;
    while (changed) {
        changed = false;
        cr_assert_lt(sweeps++, n + 2, "no fixpoint: the dependencies have a cycle");
        for (size_t v = 0; v < n; v++) {
            uint32_t rank = s->stage_rank[s->actions[v].stage];
            uint32_t preds[3];
            unsigned np = rules_preds(s, (uint32_t)v, preds);
            double t = 0.0;
            for (unsigned k = 0; k < np; k++) {
                cr_assert_neq(preds[k], SCHED_NONE);
                uint32_t p = preds[k];
                double ready = start[p] + dur[p] + (s->stage_rank[s->actions[p].stage] != rank ? comm : 0.0);
                if (ready > t)
                    t = ready;
            }
            if (t > start[v]) {
                start[v] = t;
                changed = true;
            }
        }
    }
    double makespan = 0.0;
    for (size_t i = 0; i < n; i++)
        if (start[i] + dur[i] > makespan)
            makespan = start[i] + dur[i];
    return makespan;
}

/* Schedule k at p ranks, v stages a rank, m microbatches, and its DAG, in
 * a: false when the schedule refuses that shape; a cycle fails the test. */
static bool built(spec_schedule k, uint32_t p, uint32_t v, uint32_t m, arena *a, sched **s, dag **g)
{
    char why[400];
    if (!builtin_why(k, p, v, m, a, why, sizeof why, s))
        return false;
    diag_list d;
    diag_init(&d, 4);
    bool acyclic = dag_build(*s, "t", (spec_pos){1, 1}, a, &d, g);
    cr_assert(acyclic, "%s p=%u v=%u m=%u: %s", spec_schedule_name(k), p, v, m, d.n ? d.items[0].msg : "?");
    diag_free(&d);
    return true;
}

Test(plan_props, builtin_schedules_are_acyclic_and_simulate_to_the_longest_path)
{
    uint64_t seed = 0x9E3779B97F4A7C15u;
    size_t checked = 0;
    for (size_t k = 0; k < 5; k++)
        for (uint32_t p = 1; p <= 6; p++)
            for (uint32_t v = 1; v <= 3; v++)
                for (uint32_t m = 1; m <= 13; m += 2) {
                    arena a;
                    arena_init(&a, 0);
                    sched *s;
                    dag *g;
                    if (!built(kinds[k], p, v, m, &a, &s, &g)) {
                        arena_free(&a);
                        continue;
                    }
                    /* Per-stage, per-type durations, like a spec's tables. */
                    double table[4][32];
                    for (int t = 0; t < 4; t++)
                        for (uint32_t st = 0; st < p * v; st++)
                            table[t][st] = rnd(&seed);
                    double comm = (double)(seed % 3) * 0.25;
                    size_t n = s->n_actions;
                    double *dur = malloc(n * sizeof *dur), *start = malloc(n * sizeof *start);
                    for (size_t i = 0; i < n; i++)
                        dur[i] = table[s->actions[i].type][s->actions[i].stage];
                    sim_result r;
                    cr_assert(sim_run(s, g, dur, comm, &a, &r));
                    double want = oracle_makespan(s, dur, comm, start);
                    cr_assert(fabs(r.makespan - want) <= 1e-9 * want, "%s p=%u v=%u m=%u: sim %.17g, oracle %.17g",
                              spec_schedule_name(kinds[k]), p, v, m, r.makespan, want);
                    for (size_t i = 0; i < n; i++)
                        cr_assert(fabs(r.start[i] - start[i]) <= 1e-9 * want, "start of action %zu", i);
                    for (uint32_t rk = 0; rk < p; rk++) {
                        cr_assert(fabs(r.busy[rk] + r.idle[rk] - r.makespan) <= 1e-9 * want);
                        cr_assert(r.bubble[rk] >= -1e-12 && r.bubble[rk] <= 1.0);
                    }
                    free(dur);
                    free(start);
                    arena_free(&a);
                    checked++;
                }
    cr_assert_geq(checked, 150);
}

/* The oracle for shared processors: each rank walks its own program; its
 * next action runs once rules_preds' actions have ended (plus comm across
 * ranks); every running action's remaining work drops at min(1, P /
 * running) per ms, advanced to the next end or the next action becoming
 * ready. Remaining work per action, not sim_shared.c's virtual clock. */
static double oracle_shared(const sched *s, const double *dur, double comm, uint32_t procs)
{
    size_t n = s->n_actions;
    double *left = malloc(n * sizeof *left), *end = malloc(n * sizeof *end);
    size_t *next = calloc(s->ranks, sizeof *next);
    bool *running = calloc(n, sizeof *running);
    for (size_t i = 0; i < n; i++)
        left[i] = dur[i], end[i] = -1.0;
    double now = 0.0, makespan = 0.0;
    for (size_t done = 0; done < n;) {
        size_t k = 0;
        double wake = INFINITY;
        for (uint32_t r = 0; r < s->ranks; r++) {
            size_t i = s->rank_start[r] + next[r];
            if (i >= s->rank_start[r + 1])
                continue;
            if (!running[i]) {
                uint32_t preds[3];
                unsigned np = rules_preds(s, (uint32_t)i, preds);
                double ready = 0.0;
                bool all = true;
                for (unsigned q = 0; q < np; q++) {
                    if (end[preds[q]] < 0.0) {
                        all = false;
                        break;
                    }
                    double t = end[preds[q]] + (s->rank_of[preds[q]] != r ? comm : 0.0);
                    ready = t > ready ? t : ready;
                }
                if (!all)
                    continue;
                if (ready > now) {
                    wake = ready < wake ? ready : wake;
                    continue;
                }
                running[i] = true;
            }
            k++;
        }
        if (k == 0) {
            cr_assert(isfinite(wake), "the oracle found nothing to run");
            now = wake;
            continue;
        }
        double rate = k > procs ? (double)procs / (double)k : 1.0, dt = wake - now;
        for (size_t i = 0; i < n; i++)
            if (running[i] && left[i] / rate < dt)
                dt = left[i] / rate;
        now += dt;
        for (uint32_t r = 0; r < s->ranks; r++) {
            size_t i = s->rank_start[r] + next[r];
            if (i >= s->rank_start[r + 1] || !running[i])
                continue;
            left[i] -= dt * rate;
            if (left[i] <= 1e-9 * (dur[i] > 1.0 ? dur[i] : 1.0)) {
                running[i] = false;
                end[i] = now;
                makespan = now > makespan ? now : makespan;
                next[r]++;
                done++;
            }
        }
    }
    free(left), free(end), free(next), free(running);
    return makespan;
}

Test(plan_props, shared_processors_match_an_oracle_and_bound_the_step)
{
    uint64_t seed = 0x2545F4914F6CDD1Du;
    size_t checked = 0;
    for (size_t k = 0; k < 5; k++)
        for (uint32_t p = 2; p <= 5; p++)
            for (uint32_t v = 1; v <= 2; v++)
                for (uint32_t m = 1; m <= 9; m += 2) {
                    arena a;
                    arena_init(&a, 0);
                    sched *s;
                    dag *g;
                    if (!built(kinds[k], p, v, m, &a, &s, &g)) {
                        arena_free(&a);
                        continue;
                    }
                    size_t n = s->n_actions;
                    double *dur = malloc(n * sizeof *dur), *start = malloc(n * sizeof *start), total = 0.0;
                    for (size_t i = 0; i < n; i++)
                        total += dur[i] = rnd(&seed);
                    double comm = (double)(seed % 3) * 0.25;
                    double longest = sim_longest_path(s, g, dur, comm, start), prev = INFINITY;
                    for (uint32_t procs = 1; procs <= p + 1; procs++) {
                        double got = sim_shared(s, g, dur, comm, procs, &a, NULL);
                        double want = oracle_shared(s, dur, comm, procs);
                        const char *name = spec_schedule_name(kinds[k]);
                        cr_assert(fabs(got - want) <= 1e-7 * want, "%s p=%u v=%u m=%u P=%u: %.17g, oracle %.17g",
                                  name, p, v, m, procs, got, want);
                        /* Never shorter than the longest path or the work over the processors; more
                         * processors never lengthen it; a processor per rank is the longest path. */
                        cr_assert(got >= longest * (1 - 1e-12) && got >= total / procs * (1 - 1e-12));
                        cr_assert(got <= prev * (1 + 1e-12), "%s P=%u: %.17g after %.17g", name, procs, got, prev);
                        if (procs >= p)
                            cr_assert(fabs(got - longest) <= 1e-9 * longest, "%s P=%u", name, procs);
                        if (procs == 1 && comm == 0.0) /* one processor never idles: the total work */
                            cr_assert(fabs(got - total) <= 1e-9 * total, "%s: %.17g, work %.17g", name, got, total);
                        prev = got;
                    }
                    free(dur);
                    free(start);
                    arena_free(&a);
                    checked++;
                }
    cr_assert_geq(checked, 90, "%zu configurations", checked);
}

/* The schedules the oracle's rules do not cover (DualPipeV's overlapped
 * pairs, LoopedBFS's orders) still hold the properties that need none: a
 * processor per rank is the longest path, one processor without latency is
 * the total work, and the step lies between the two bounds. */
Test(plan_props, shared_processors_bound_every_schedule)
{
    static const spec_schedule more[] = {SCHED_DUALPIPEV, SCHED_LOOPED_BFS};
    uint64_t seed = 0x9E3779B97F4A7C15u;
    size_t checked = 0;
    for (size_t k = 0; k < 2; k++)
        for (uint32_t p = 2; p <= 4; p++)
            for (uint32_t m = 2; m <= 12; m += 2) {
                arena a;
                arena_init(&a, 0);
                sched *s;
                dag *g;
                if (!built(more[k], p, 2, m, &a, &s, &g)) {
                    arena_free(&a);
                    continue;
                }
                size_t n = s->n_actions;
                double *dur = malloc(n * sizeof *dur), *start = malloc(n * sizeof *start), total = 0.0;
                for (size_t i = 0; i < n; i++)
                    total += dur[i] = rnd(&seed);
                double longest = sim_longest_path(s, g, dur, 0.0, start);
                for (uint32_t procs = 1; procs <= p; procs++) {
                    double got = sim_shared(s, g, dur, 0.0, procs, &a, NULL);
                    cr_assert(got >= longest * (1 - 1e-12) && got >= total / procs * (1 - 1e-12));
                    if (procs == p)
                        cr_assert(fabs(got - longest) <= 1e-9 * longest, "%s p=%u m=%u", spec_schedule_name(more[k]),
                                  p, m);
                    if (procs == 1)
                        cr_assert(fabs(got - total) <= 1e-9 * total, "%s p=%u m=%u: %.17g, work %.17g",
                                  spec_schedule_name(more[k]), p, m, got, total);
                }
                free(dur);
                free(start);
                arena_free(&a);
                checked++;
            }
    cr_assert_geq(checked, 24, "%zu configurations", checked);
}

/* freeze.max_ratio 0 is the baseline, bit for bit (docs/freeze-lp.md),
 * on shared processors too: there the freeze LP carries the work row, and
 * on this spec (from a random sweep) lp_solve cycled in its phase 1, so
 * the plan failed with exit 3. Nothing can freeze: no LP is needed, and
 * T* is the larger of the longest path and the work over the processors. */
Test(plan_props, cap_zero_on_shared_processors_is_the_baseline)
{
    loaded l;
    load_file(&l, TFC_SOURCE_DIR "/tests/specs/shared_cap0.yaml");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    plan *p;
    plan_options opt = {.policy = POLICY_TIMELY};
    cr_assert_eq(plan_build(l.s, &opt, &l.a, &l.d, &p), TFC_OK, "%s", l.d.n ? l.d.items[0].msg : "?");
    double work = 0.0;
    for (size_t i = 0; i < p->s->n_actions; i++) {
        cr_assert_eq(p->x[i], 0.0);
        work += p->dur[i];
    }
    cr_assert(p->shared);
    cr_assert_eq(p->opt.makespan, p->base.makespan);
    cr_assert_eq(p->shared_opt_makespan, p->shared_base_makespan);
    cr_assert_eq(p->lp.t_star, fmax(p->base.makespan, work / 3.0), "T* %.17g", p->lp.t_star);
    loaded_free(&l);
}

/* With nothing that can freeze (no freeze section, or a cap of 0) the plan
 * is the baseline without an LP, below the LP's limit too: T* is the
 * baseline's makespan bit for bit. The LP reached it within rounding only
 * (47.79999999999999 for 47.8 here), and at a cap of 0 its phase 1 crawled:
 * 1F1B 24 x 24 took 40 s and more (tests/test_cli.c). */
Test(plan_props, nothing_to_freeze_is_the_baseline_without_an_lp)
{
    static const char *const tails[] = {"", "freeze: {max_ratio: 0}\n"};
    for (size_t k = 0; k < 2; k++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "tfc: 1\nname: n\nmodel:\n  stages:\n    - params: [{name: a, numel: 1}]\n"
                 "    - params: [{name: a, numel: 1}]\n    - params: [{name: a, numel: 1}]\n"
                 "    - params: [{name: a, numel: 1}]\n"
                 "pipeline: {schedule: 1F1B, ranks: 4, microbatches: 8}\n"
                 "timing: {forward_ms: [1.0, 1.3, 1.6, 1.9], backward_ms: [2.0, 2.6, 3.2, 3.8],\n"
                 "  backward_frozen_ms: [1.0, 1.3, 1.6, 1.9], comm_ms: 0.05}\n%s",
                 tails[k]);
        loaded l;
        load_str(&l, yaml);
        cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
        plan *p;
        plan_options opt = {.policy = POLICY_TIMELY};
        cr_assert_eq(plan_build(l.s, &opt, &l.a, &l.d, &p), TFC_OK, "%s", l.d.n ? l.d.items[0].msg : "?");
        for (size_t i = 0; i < p->s->n_actions; i++)
            cr_assert_eq(p->x[i], 0.0);
        cr_assert_eq(p->opt.makespan, p->base.makespan);
        cr_assert_eq(p->lp.t_star, p->base.makespan, "T* %.17g, baseline %.17g", p->lp.t_star, p->base.makespan);
        cr_assert_eq(p->lp.total_freeze, 0.0);
        loaded_free(&l);
    }
}

Test(plan_props, gpipe_makespan_is_the_textbook_formula)
{
    /* Uniform f and b, no latency: (m + p - 1)(f + b). */
    for (uint32_t p = 1; p <= 8; p++)
        for (uint32_t m = 1; m <= 16; m++) {
            arena a;
            arena_init(&a, 0);
            char why[200];
            sched *s;
            cr_assert(builtin_why(SCHED_GPIPE, p, 1, m, &a, why, sizeof why, &s));
            diag_list d;
            diag_init(&d, 4);
            dag *g;
            cr_assert(dag_build(s, "t", (spec_pos){1, 1}, &a, &d, &g));
            diag_free(&d);
            const double f = 1.5, b = 3.25;
            double *dur = malloc(s->n_actions * sizeof *dur);
            for (size_t i = 0; i < s->n_actions; i++)
                dur[i] = s->actions[i].type == ACT_F ? f : b;
            sim_result r;
            cr_assert(sim_run(s, g, dur, 0.0, &a, &r));
            cr_assert(fabs(r.makespan - (m + p - 1) * (f + b)) < 1e-9, "p=%u m=%u: %g", p, m, r.makespan);
            free(dur);
            arena_free(&a);
        }
}

/* ---- custom CSV ---- */

static const char *const custom_spec = "tfc: 1\nname: c\nmodel:\n  stages:\n"
                                       "    - params: [{name: a, numel: 1}]\n"
                                       "    - params: [{name: a, numel: 1}]\n"
                                       "pipeline: {schedule: custom, ranks: 2, microbatches: 2, order: o.csv}\n"
                                       "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n";

typedef struct csv_case {
    loaded l;
    sched *s;
    bool ok;
} csv_case;

/* csv read as the order of the spec already loaded in c, diagnostics anew. */
static void reparse_csv(csv_case *c, const char *csv)
{
    diag_free(&c->l.d);
    diag_init(&c->l.d, 50);
    c->ok = sched_csv_parse(c->l.s, "o.csv", csv, strlen(csv), &c->l.a, &c->l.d, &c->s);
}

static void parse_csv(csv_case *c, const char *csv)
{
    load_str(&c->l, custom_spec);
    cr_assert_eq(c->l.status, TFC_OK, "%s", c->l.dump);
    reparse_csv(c, csv);
}

#define CSV_ERROR(c, line, col, frag)                                                                     \
    cr_assert((c)->l.d.n > 0 && has_error(&(c)->l, line, col, frag), "want %u:%u %s, got %s", line, col, \
              frag, (c)->l.d.n ? (c)->l.d.items[0].msg : "no error")

Test(csv, a_valid_order_with_idle_cells_and_spaces_loads)
{
    csv_case c;
    parse_csv(&c, " 0F0 , 0F1,0B0,0B1\r\n,1F0,1B0, 1F1 ,1B1\n");
    cr_assert(c.ok, "%s", c.l.d.n ? c.l.d.items[0].msg : "");
    cr_assert_eq(c.s->n_actions, 8);
    cr_assert_eq(c.s->stage_rank[1], 1);
    cr_assert_eq(c.s->src[6].line, 2);
    cr_assert_eq(c.s->src[6].col, 11); /* " 1F1 " starts after the space */
    loaded_free(&c.l);
}

/* Spreadsheets and csv writers that quote every cell: PyTorch's loader reads
 * them through csv.reader, which takes the quotes off. */
Test(csv, quoted_cells_load_as_plain_ones)
{
    csv_case c;
    parse_csv(&c, "\"0F0\",\"0F1\", \"0B0\" ,\"0B1\"\n1F0,1B0,\"1F1\",1B1\n");
    cr_assert(c.ok, "%s", c.l.d.n ? c.l.d.items[0].msg : "");
    cr_assert_eq(c.s->n_actions, 8);
    cr_assert_eq(c.s->src[2].col, 15); /* inside the quotes */
    loaded_free(&c.l);
    parse_csv(&c, "\"0F0\"\"\",0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 2, "is not an action");
    loaded_free(&c.l);
}

/* PyTorch's compute-only CSV has no header: a first row without an action
 * is said to be one, once (not an error a cell, then a row too many). */
Test(csv, a_header_row_is_one_error)
{
    csv_case c;
    parse_csv(&c, "rank,actions\n0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
    cr_assert_not(c.ok);
    CSV_ERROR(&c, 1, 1, "row 1 reads as a header (\"rank,actions\"), but a compute-only CSV has none: row r is "
                        "rank r's program");
    cr_assert_eq(c.l.d.n, 1, "%zu errors", c.l.d.n);
    loaded_free(&c.l);
    /* a timing CSV given as the order, quoted cells, a byte order mark */
    parse_csv(&c, "\xEF\xBB\xBF\"rank\",\"stage\",microbatch,type,duration_ms\n0,0,0,F,1\n");
    CSV_ERROR(&c, 1, 1, "row 1 reads as a header");
    cr_assert_eq(c.l.d.n, 1);
    loaded_free(&c.l);
    /* a first row with an action in it is no header: its other cells are errors of their own */
    parse_csv(&c, "F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 1, "\"F0\" is not an action");
    loaded_free(&c.l);
}

#define REPEAT4(x) x x x x

/* A row with no stage of its own: PyTorch cannot build that rank's schedule.
 * Stages spread unevenly over the ranks only draw a warning. */
Test(csv, every_rank_runs_a_stage)
{
    csv_case c;
    parse_csv(&c, "0F0,1F0,1B0,0B0,0F1,1F1,1B1,0B1\n\n");
    cr_assert_not(c.ok);
    CSV_ERROR(&c, 2, 1, "rank 1 runs no stage");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
    cr_assert(c.ok);
    cr_assert_eq(c.l.d.n, 0, "%s", c.l.d.n ? c.l.d.items[0].msg : "");
    loaded_free(&c.l);
    /* Four stages, two a rank by the spec, three on rank 0 by the CSV. */
    load_str(&c.l, "tfc: 1\nname: c\nmodel:\n  stages:\n" REPEAT4("    - params: [{name: a, numel: 1}]\n")
                   "pipeline: {schedule: custom, ranks: 2, stages_per_rank: 2, microbatches: 1, order: o.csv}\n"
                   "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n");
    cr_assert_eq(c.l.status, TFC_OK, "%s", c.l.dump);
    reparse_csv(&c, "0F0,1F0,2F0,3F0,3B0,2B0,1B0,0B0\n\n");
    cr_assert_not(c.ok);
    CSV_ERROR(&c, 2, 1, "rank 1 runs no stage");
    reparse_csv(&c, "0F0,1F0,2F0,2B0,1B0,0B0\n3F0,3B0\n");
    cr_assert(c.ok);
    cr_assert(c.l.d.n == 2 && c.l.d.items[0].warning && c.l.d.items[1].warning, "want two warnings");
    CSV_ERROR(&c, 1, 1, "rank 0 runs 3 stages, but pipeline.stages_per_rank is 2");
    CSV_ERROR(&c, 2, 1, "rank 1 runs 1 stage, but pipeline.stages_per_rank is 2");
    loaded_free(&c.l);
}

Test(csv, lower_case_types_are_named_as_such)
{
    csv_case c;
    parse_csv(&c, "0f0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 1, "action types are upper case");
    loaded_free(&c.l);
}

Test(csv, row_count_must_equal_ranks)
{
    csv_case c;
    parse_csv(&c, "0F0,0F1,0B0,0B1\n");
    CSV_ERROR(&c, 2, 1, "the CSV has 1 row, but pipeline.ranks is 2");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n0F0\n");
    CSV_ERROR(&c, 3, 1, "row 3 would be rank 2");
    loaded_free(&c.l);
}

Test(csv, malformed_cells_name_their_line_and_column)
{
    csv_case c;
    parse_csv(&c, "0F0,0X1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 5, "not a compute action");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1,7F0\n");
    CSV_ERROR(&c, 2, 17, "stage out of range");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0B9\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 13, "microbatch out of range");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0SEND_F1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 13, "not a compute action");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,F1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 13, "is not an action");
    loaded_free(&c.l);
}

Test(csv, a_stage_runs_on_one_rank_only)
{
    csv_case c;
    parse_csv(&c, "0F0,0F1,0B0\n1F0,1B0,1F1,1B1,0B1\n");
    CSV_ERROR(&c, 2, 17, "runs stage 0 on rank 1, but stage 0 runs on rank 0");
    loaded_free(&c.l);
}

Test(csv, every_stage_and_microbatch_needs_f_and_a_backward)
{
    csv_case c;
    parse_csv(&c, "0F0,0F1,0B0\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 5, "stage 0 microbatch 1 has no backward");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0B1,0F1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 17, "action 0F1 appears twice");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0I1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 5, "has an input-gradient I but no weight-gradient W");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0B1\n\n");
    CSV_ERROR(&c, 0, 0, "stage 1 has no actions");
    loaded_free(&c.l);
}

Test(csv, a_deadlocking_order_is_refused_with_its_cycle)
{
    csv_case c;
    parse_csv(&c, "0F0,0F1,0B0,0B1\n1F0,1B1,1F1,1B0\n");
    cr_assert(c.ok);
    dag *g;
    cr_assert_not(dag_build(c.s, "t.yaml", (spec_pos){7, 11}, &c.l.a, &c.l.d, &g));
    /* 1B1 waits for 1F1 (its forward), which follows 1B1 on rank 1. */
    CSV_ERROR(&c, 2, 5, "deadlocks");
    CSV_ERROR(&c, 2, 5, "1B1 (rank 1) -> 1F1 (rank 1) -> 1B1 (rank 1)");
    loaded_free(&c.l);
}

/* A weight gradient needs its own input gradient's result (dag.h: I(s,m) ->
 * W(s,m)): rank 0 running 0W0 before 0I0 waits for itself. Without that edge
 * nothing else in this order would wait in a cycle. */
Test(csv, a_weight_gradient_before_its_input_gradient_is_refused)
{
    csv_case c;
    parse_csv(&c, "0F0,0F1,0W0,0I0,0I1,0W1\n1F0,1I0,1W0,1F1,1I1,1W1\n");
    cr_assert(c.ok, "%s", c.l.d.n ? c.l.d.items[0].msg : "");
    dag *g;
    cr_assert_not(dag_build(c.s, "t.yaml", (spec_pos){7, 11}, &c.l.a, &c.l.d, &g));
    CSV_ERROR(&c, 1, 9, "0W0 (rank 0) -> 0I0 (rank 0) -> 0W0 (rank 0)");
    loaded_free(&c.l);
    /* The same actions with each I before its W: accepted. */
    parse_csv(&c, "0F0,0F1,0I0,0W0,0I1,0W1\n1F0,1I0,1W0,1F1,1I1,1W1\n");
    cr_assert(c.ok);
    cr_assert(dag_build(c.s, "t.yaml", (spec_pos){7, 11}, &c.l.a, &c.l.d, &g), "%s",
              c.l.d.n ? c.l.d.items[0].msg : "");
    loaded_free(&c.l);
}

/* An overlapped pair (DualPipeV's): timed by hand from the rules in dag.h,
 * which are how PyTorch's runtime runs a pair (its halves in turn, each at
 * its own input, the sends after both). Rank 0: 0F0, (0F1;0B0) as a pair,
 * 0B1; rank 1: 1F0, 1B0, 1F1, 1B1; F 1 ms, B 2 ms, no latency. 0F0 0-1;
 * 0F1 needs only its data: 1-2; 1F0 1-2, 1B0 2-4; 0B0 after 0F1 and 1B0:
 * 4-6; 1F1's input leaves with the pair's end: 6-7; 1B1 7-9; 0B1 9-11.
 * Without the send rule 1F1 would start at 4; with the forward waiting for
 * the backward's input too, 0F1 would start at 4 and the step end at 12. */
Test(csv, an_overlapped_pair_runs_its_halves_in_turn_and_sends_at_its_end)
{
    csv_case c;
    parse_csv(&c, "0F0, (0F1 ; 0B0)OVERLAP_F_B ,0B1\n1F0,1B0,1F1,1B1\n");
    cr_assert(c.ok, "%s", c.l.d.n ? c.l.d.items[0].msg : "");
    cr_assert_eq(c.s->n_actions, 8);
    cr_assert_eq(c.s->actions[1].pair, SCHED_PAIR_FIRST);
    cr_assert_eq(c.s->actions[2].pair, SCHED_PAIR_SECOND);
    cr_assert_eq(c.s->src[1].col, 6);
    dag *g;
    cr_assert(dag_build(c.s, "t.yaml", (spec_pos){7, 11}, &c.l.a, &c.l.d, &g));
    double dur[8], start[8];
    cr_assert(sim_durations(c.l.s, c.s, dur, &c.l.d));
    double makespan = sim_longest_path(c.s, g, dur, 0.0, start);
    static const double want[8] = {0, 1, 4, 9, 1, 2, 6, 7}; /* 0F0 0F1 0B0 0B1 1F0 1B0 1F1 1B1 */
    for (int i = 0; i < 8; i++)
        cr_assert_float_eq(start[i], want[i], 1e-12, "action %d starts at %g, want %g", i, start[i], want[i]);
    cr_assert_float_eq(makespan, 11.0, 1e-12);
    loaded_free(&c.l);
}

Test(csv, malformed_overlapped_pairs_name_their_line_and_column)
{
    csv_case c;
    parse_csv(&c, "0F0,(0F1;0F0)OVERLAP_F_B,0B0,0B1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 5, "an overlapped pair is a forward then a backward");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0B1\n1F0,(1F1;1B0)OVERLAP,1B1\n");
    CSV_ERROR(&c, 2, 5, "not an overlapped pair");
    loaded_free(&c.l);
    parse_csv(&c, "0F0,0F1,0B0,0B1\n1F0,(1F1;1X0)OVERLAP_F_B,1B1\n");
    CSV_ERROR(&c, 2, 5, "not a compute action");
    loaded_free(&c.l);
}

Test(csv, a_cross_rank_deadlock_lists_every_action_of_the_cycle)
{
    /* Rank 0 wants 0B0 (needs 1B0) before 0F1; rank 1 wants 1F1 (needs 0F1)
     * before 1B0: 0B0 <- 1B0 <- 1F1 <- 0F1 <- 0B0. */
    csv_case c;
    parse_csv(&c, "0F0,0B0,0F1,0B1\n1F0,1F1,1B0,1B1\n");
    cr_assert(c.ok);
    dag *g;
    cr_assert_not(dag_build(c.s, "t.yaml", (spec_pos){7, 11}, &c.l.a, &c.l.d, &g));
    CSV_ERROR(&c, 1, 5, "these 4 actions wait for each other in a cycle: 0B0 (rank 0) -> 0F1 (rank 0) -> 1F1 (rank 1) -> "
                        "1B0 (rank 1) -> 0B0 (rank 0)");
    loaded_free(&c.l);
}

Test(csv, builtin_orders_written_as_csv_read_back_identically)
{
    for (size_t k = 0; k < 5; k++) {
        arena a;
        arena_init(&a, 0);
        char why[200];
        sched *s;
        uint32_t p = 3, v = kinds[k] == SCHED_INTERLEAVED_1F1B || kinds[k] == SCHED_ZBV ? 2 : 1, m = 6;
        cr_assert(builtin_why(kinds[k], p, v, m, &a, why, sizeof why, &s), "%s", why);
        char *csv = malloc(s->n_actions * 16 + 16);
        size_t o = 0;
        for (uint32_t r = 0; r < p; r++) {
            for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++) {
                char name[24];
                o += (size_t)sprintf(csv + o, "%s%s", i > s->rank_start[r] ? "," : "",
                                     sched_action_name(s, i, name, sizeof name));
            }
            csv[o++] = '\n';
        }
        csv[o] = '\0';
        char yaml[1024];
        size_t y = (size_t)snprintf(yaml, sizeof yaml, "tfc: 1\nname: r\nmodel:\n  stages:\n");
        for (uint32_t st = 0; st < p * v; st++)
            y += (size_t)snprintf(yaml + y, sizeof yaml - y, "    - params: [{name: a, numel: 1}]\n");
        snprintf(yaml + y, sizeof yaml - y,
                 "pipeline: {schedule: custom, ranks: %u, stages_per_rank: %u, microbatches: %u, order: o.csv}\n"
                 "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1, backward_input_ms: 1,\n"
                 "         backward_weight_ms: 1}\n",
                 p, v, m);
        loaded l;
        load_str(&l, yaml);
        cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
        sched *back;
        cr_assert(sched_csv_parse(l.s, "o.csv", csv, o, &l.a, &l.d, &back), "%s", l.d.n ? l.d.items[0].msg : "");
        cr_assert_eq(back->n_actions, s->n_actions);
        for (size_t i = 0; i < s->n_actions; i++)
            cr_assert(back->actions[i].stage == s->actions[i].stage && back->actions[i].mb == s->actions[i].mb &&
                      back->actions[i].type == s->actions[i].type);
        for (uint32_t st = 0; st < p * v; st++)
            cr_assert_eq(back->stage_rank[st], s->stage_rank[st], "%s stage %u", spec_schedule_name(kinds[k]), st);
        loaded_free(&l);
        free(csv);
        arena_free(&a);
    }
}

/* ---- JSON ---- */

/* A strict JSON syntax check (RFC 8259 values), enough to prove the output parses. */
static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *value(const char *p);

static const char *string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p && *p != '"') {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (!strchr("\"\\/bfnrtu", *p))
                return NULL;
        }
        p++;
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *number(const char *p)
{
    const char *s = p;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p > s ? p : NULL;
}

static const char *value(const char *p)
{
    p = ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        bool obj = *p == '{';
        p = ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = string(ws(p));
                if (!p || *(p = ws(p)) != ':')
                    return NULL;
                p++;
            }
            p = value(p);
            if (!p)
                return NULL;
            p = ws(p);
            if (*p == ',')
                p++;
            else if (*p == close)
                return p + 1;
            else
                return NULL;
        }
    }
    if (*p == '"')
        return string(p);
    if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    return number(p);
}

Test(plan_json, output_is_valid_json_with_every_action)
{
    loaded l;
    load_file(&l, TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml");
    cr_assert_eq(l.status, TFC_OK);
    plan *p;
    plan_options opt = {.policy = POLICY_NONE};
    cr_assert_eq(plan_build(l.s, &opt, &l.a, &l.d, &p), TFC_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    plan_print_json(p, mem);
    fclose(mem);
    const char *end = value(buf);
    cr_assert_not_null(end, "not JSON");
    cr_assert_str_eq(ws(end), "");
    size_t actions = 0;
    for (const char *q = buf; (q = strstr(q, "\"type\": ")); q++)
        actions++;
    cr_assert_eq(actions, p->s->n_actions);
    cr_assert_eq(actions, 4 * 8 * 2);
    cr_assert_not_null(strstr(buf, "\"baseline_makespan_ms\": "));
    cr_assert_not_null(strstr(buf, "\"name\": \"llama8b_1f1b\""));
    /* 1F1B on these timings, by hand: the last stage (13 + 26 ms per
     * microbatch) is the bottleneck: 7 x 39, plus one microbatch through
     * every stage and back (43 + 86), plus 6 hops of 0.2 ms. */
    cr_assert(fabs(p->base.makespan - (7 * 39.0 + 43 + 86 + 6 * 0.2)) < 1e-9, "%g", p->base.makespan);
    free(buf);
    loaded_free(&l);
}

Test(csv, byte_order_mark_and_lone_cr_line_ends_are_read)
{
    csv_case c;
    parse_csv(&c, "\xEF\xBB\xBF" "0F0,0F1,0B0,0B1\r1F0,1B0,1F1,1B1\r");
    cr_assert(c.ok, "%s", c.l.d.n ? c.l.d.items[0].msg : "");
    cr_assert_eq(c.s->n_actions, 8);
    cr_assert_eq(c.s->src[4].line, 2);
    loaded_free(&c.l);
}

Test(csv, columns_count_characters_not_bytes)
{
    csv_case c;
    /* "é" is two bytes but one column: the bad cell "0X1" starts at column 14. */
    parse_csv(&c, "0F0,0F1,0B0,\xC3\xA9,0X1\n1F0,1B0,1F1,1B1\n");
    CSV_ERROR(&c, 1, 13, "is not an action");
    CSV_ERROR(&c, 1, 15, "not a compute action");
    loaded_free(&c.l);
}

/* ---- ratios on the masks' grid ---- */

/* yaml's plan with nothing frozen (the ratios are the test's to set). */
static plan *plan_none(loaded *l, const char *yaml)
{
    load_str(l, yaml);
    cr_assert_eq(l->status, TFC_OK, "%s", l->dump);
    plan *p;
    plan_options opt = {.policy = POLICY_NONE};
    cr_assert_eq(plan_build(l->s, &opt, &l->a, &l->d, &p), TFC_OK);
    return p;
}

/* A stage whose ratios, already on the grid, sum to exactly the cap as the
 * floating-point product cap x 3 has it, while the exact product is below:
 * Fraction(0.8721292599414785) * 3 * 2**32 = 11237299947.99999999..., and
 * the double cap * 3 rounds up to 11237299948 x 2^-32 (both worked out
 * outside this program with exact rational arithmetic). Nothing needs
 * scaling, yet the ratios are one grid unit past the cap: that unit comes
 * back from the partly frozen actions first, never from a fully frozen one,
 * and the printed mean is within the cap. */
Test(plan_grid, a_stage_one_unit_past_its_cap_gives_it_back_from_a_partly_frozen_action)
{
    loaded l;
    plan *p = plan_none(&l, "tfc: 1\nname: g\nmodel: {stages: [{params: [{name: w, numel: 1000}]}]}\n"
                            "pipeline: {schedule: GPipe, ranks: 1, microbatches: 3}\n"
                            "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n"
                            "freeze: {max_ratio: 0.8721292599414785}\n");
    const double unit = ldexp(1.0, -PLAN_RATIO_GRID_BITS);
    const double want_units[3] = {4294967296.0, 3471166326.0, 3471166326.0}; /* 11237299948 in all */
    uint32_t b[3];
    for (uint32_t m = 0; m < 3; m++) {
        b[m] = sched_find(p->s, ACT_B, 0, m);
        cr_assert_neq(b[m], SCHED_NONE);
        p->x[b[m]] = want_units[m] * unit;
    }
    cr_assert_eq(l.s->freeze.max_ratio * 3.0, 11237299948.0 * unit, "the case needs cap x 3 to round up");
    cr_assert_eq(plan_ratios_on_grid(p, &l.a, &l.d), TFC_OK);
    cr_assert_eq(p->x[b[0]], 1.0, "a fully frozen action gave back a unit: %a", p->x[b[0]]);
    cr_assert_eq(p->x[b[1]], 3471166325.0 * unit, "%a", p->x[b[1]]);
    cr_assert_eq(p->x[b[2]], 3471166326.0 * unit, "%a", p->x[b[2]]);
    loaded_free(&l);
}

/* Whatever the policy gives, ratios come out on the grid, within [0, 1],
 * zero where nothing can freeze, and never above the policy's own value. */
Test(plan_grid, every_ratio_is_a_multiple_of_the_grid_unit_and_never_rounded_up)
{
    loaded l;
    plan *p = plan_none(&l, "tfc: 1\nname: g\nmodel: {stages: [{params: [{name: w, numel: 1}]}, "
                            "{params: [{name: w, numel: 1}]}]}\n"
                            "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 4}\n"
                            "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n"
                            "freeze: {max_ratio: 1}\n");
    const double given[] = {-0.5, NAN, 0.0, 1e-300, 0.1, 0.3, 2.0 / 3, 0.7, 0.9999999999, 1.0, 1.5};
    size_t n = p->s->n_actions, k = 0;
    double *before = malloc(n * sizeof *before);
    for (size_t i = 0; i < n; i++)
        before[i] = p->x[i] = given[k++ % (sizeof given / sizeof *given)];
    cr_assert_eq(plan_ratios_on_grid(p, &l.a, &l.d), TFC_OK);
    for (size_t i = 0; i < n; i++) {
        double u = ldexp(p->x[i], PLAN_RATIO_GRID_BITS);
        cr_assert_eq(u, floor(u), "action %zu: %a is off the grid", i, p->x[i]);
        cr_assert(p->x[i] >= 0.0 && p->x[i] <= 1.0, "action %zu: %a", i, p->x[i]);
        if (!p->freezable[i])
            cr_assert_eq(p->x[i], 0.0, "action %zu cannot freeze", i);
        else if (before[i] >= 0.0 && before[i] <= 1.0) /* rounded down, at most one unit */
            cr_assert(p->x[i] <= before[i] && before[i] - p->x[i] < ldexp(1.0, -PLAN_RATIO_GRID_BITS),
                      "action %zu: %a from %a", i, p->x[i], before[i]);
    }
    free(before);
    loaded_free(&l);
}

/* ---- units ---- */

/* The plan does not depend on the unit the step is written in: the same
 * step in nanoseconds-sized milliseconds (x 1e-9, and x 1e-300) plans the
 * same speed-up and ratios as in milliseconds. The LP's tolerances are
 * partly absolute; without its scaling the speed-up fell from 1.2623 to
 * 1.15 at 1e-9 and to 1 (nothing frozen) at 1e-12. */
Test(plan_units, a_step_of_nanoseconds_plans_as_one_of_milliseconds)
{
    static const char *fmt = "tfc: 1\nname: u\nmodel:\n  stages:\n"
                             "    - params: [{name: a, numel: 100}]\n    - params: [{name: b, numel: 100}]\n"
                             "    - params: [{name: c, numel: 100}]\n"
                             "pipeline: {schedule: 1F1B, ranks: 3, microbatches: 6}\n"
                             "timing: {forward_ms: [%.17g, %.17g, %.17g], backward_ms: [%.17g, %.17g, %.17g], "
                             "backward_frozen_ms: [%.17g, %.17g, %.17g], comm_ms: %.17g}\n"
                             "freeze: {max_ratio: 0.5}\n";
    static const double ms[10] = {1.3, 0.9, 1.1, 2.9, 2.2, 2.5, 1.2, 0.7, 1.6, 0.15};
    static const double units[3] = {1.0, 1e-9, 1e-300};
    plan *p[3];
    loaded l[3];
    for (int k = 0; k < 3; k++) {
        double t[10];
        for (int i = 0; i < 10; i++)
            t[i] = ms[i] * units[k];
        char yaml[1024];
        snprintf(yaml, sizeof yaml, fmt, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9]);
        load_str(&l[k], yaml);
        cr_assert_eq(l[k].status, TFC_OK, "%s", l[k].dump);
        plan_options opt = plan_default_options();
        cr_assert_eq(plan_build(l[k].s, &opt, &l[k].a, &l[k].d, &p[k]), TFC_OK, "%s", l[k].dump);
    }
    double s0 = p[0]->base.makespan / p[0]->opt.makespan;
    cr_assert_gt(s0, 1.1, "the step in milliseconds plans freezing: %g", s0);
    for (int k = 1; k < 3; k++) {
        double sk = p[k]->base.makespan / p[k]->opt.makespan;
        cr_assert_float_eq(sk, s0, 1e-9 * s0, "x %g: speed-up %.12g, in milliseconds %.12g", units[k], sk, s0);
        for (size_t u = 0; u < p[0]->s->n_actions; u++)
            cr_assert_float_eq(p[k]->x[u], p[0]->x[u], 1e-6, "x %g: action %zu's ratio %.9g, in milliseconds %.9g",
                               units[k], u, p[k]->x[u], p[0]->x[u]);
    }
    for (int k = 0; k < 3; k++)
        loaded_free(&l[k]);
}

/* Phase 1's progress of a scaled solve, recorded. */
typedef struct phase1_reports {
    size_t n;
    double lo, hi; /* the smallest bound and the largest best seen */
} phase1_reports;

static void record_phase1(void *ctx, const lp_progress *pr)
{
    phase1_reports *r = ctx;
    if (pr->phase != LP_PHASE_MAKESPAN || !isfinite(pr->bound) || !isfinite(pr->best))
        return;
    r->n++;
    r->lo = fmin(r->lo, pr->bound);
    r->hi = fmax(r->hi, pr->best);
}

/* The progress a person watches is in the spec's unit too: phase 1's
 * bounds of a step of nanoseconds lie between the optimised makespan's
 * neighbourhood and the baseline, not 2^30 times that (the LP's scaling). */
Test(plan_units, the_progress_of_a_scaled_solve_is_in_milliseconds)
{
    const char *yaml = "tfc: 1\nname: u\nmodel:\n  stages:\n"
                       "    - params: [{name: a, numel: 100}]\n    - params: [{name: b, numel: 100}]\n"
                       "    - params: [{name: c, numel: 100}]\n"
                       "pipeline: {schedule: 1F1B, ranks: 3, microbatches: 6}\n"
                       "timing: {forward_ms: [1.3e-9, 0.9e-9, 1.1e-9], backward_ms: [2.9e-9, 2.2e-9, 2.5e-9], "
                       "backward_frozen_ms: [1.2e-9, 0.7e-9, 1.6e-9], comm_ms: 0.15e-9}\n"
                       "freeze: {max_ratio: 0.5}\n";
    loaded l;
    load_str(&l, yaml);
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    phase1_reports r = {0, INFINITY, -INFINITY};
    plan_options opt = plan_default_options();
    opt.progress = record_phase1;
    opt.progress_ctx = &r;
    plan *p;
    cr_assert_eq(plan_build(l.s, &opt, &l.a, &l.d, &p), TFC_OK, "%s", l.dump);
    cr_assert_gt(r.n, 0, "phase 1 reported no bounds");
    double t_star = p->lp.t_star, base = p->base.makespan;
    cr_assert(t_star < base * (1 - 1e-3), "the step freezes: T* %g, baseline %g", t_star, base);
    cr_assert(r.lo <= t_star * (1 + 1e-9), "phase 1's bound %g above T* %g", r.lo, t_star);
    cr_assert(r.lo >= 0.25 * t_star, "phase 1's bound %g far below T* %g", r.lo, t_star);
    cr_assert(r.hi >= t_star * (1 - 1e-9) && r.hi <= base * (1 + 1e-9), "phase 1's best %g outside [T* %g, %g]",
              r.hi, t_star, base);
    loaded_free(&l);
}
