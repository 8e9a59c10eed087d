/* plan: everything tfc works out for one spec: the schedule, its DAG, the
 * simulated step with nothing frozen (the baseline), and the step under a
 * freezing policy (the optimised plan; the TimelyFreeze LP by default).
 * Printing lives in plan_print.c; emitters read a plan, never the YAML. */
#ifndef TFC_PLAN_H
#define TFC_PLAN_H

#include <stdio.h>

#include "arena.h"
#include "dag.h"
#include "diag.h"
#include "lp_freeze.h"
#include "real.h"
#include "sched.h"
#include "sim.h"
#include "spec.h"
#include "ttq.h"

typedef enum {
    POLICY_TIMELY,  /* the freeze LP: fastest step, then least freezing */
    POLICY_UNIFORM, /* every freezable action at the cap, wherever it is */
    POLICY_NONE,    /* nothing frozen */
} freeze_policy;

const char *plan_policy_name(freeze_policy p);

/* Fully frozen: ratio >= 1 - eps; partly: eps < ratio < 1 - eps. */
#define PLAN_RATIO_EPS 1e-6

/* A time-to-quality reason's room (plan.ttq_reason holds one with a prefix). */
#define PLAN_REASON_CAP 320

/* Freeze ratios live on the masks' grid: every ratio a plan holds is a
 * multiple of 2^-PLAN_RATIO_GRID_BITS, rounded down once from what the
 * policy gave, before durations, start times and makespans are computed
 * from it. So the printed ratio (real_shortest reads back exactly), the
 * mask's fixed-point q = ratio * 2^32 (an integer, no rounding left) and
 * the printed makespan all rest on the same value, and rounding down keeps
 * every cap (plan_ratios_on_grid; docs/codegen.md, "Reals"). */
#define PLAN_RATIO_GRID_BITS 32

typedef struct plan_options {
    freeze_policy policy;
    double lp_timeout_s; /* per LP phase; 0 = no limit */
    bool lp_direct;      /* tfc plan --lp-method direct: lp_solve on the whole LP */
    lp_progress_fn progress; /* the LP's progress (lp_problem.h); NULL: none */
    void *progress_ctx;
    /* tfc check: freeze.max_ratio: auto is not chosen (that solves an LP per
     * cap); the plan keeps cap 0. */
    bool skip_auto;
} plan_options;

/* timely, with the default LP time limit. */
plan_options plan_default_options(void);

typedef struct plan {
    const spec *sp;
    sched *s;
    dag *g;
    /* Per action. */
    double *dur;    /* unfrozen duration (w_max) */
    double *w_min;  /* everything frozen (== dur when not freezable) */
    bool *freezable; /* B, or W in split schedules */
    double *x;       /* freeze ratio under the policy */
    double *opt_dur; /* dur - x (dur - w_min) */
    sim_result base; /* nothing frozen */
    sim_result opt;  /* under the policy */
    /* With pipeline.processors below the ranks: the two steps on the shared
     * processors (sim_shared), the steps tfc predicts then (the time-to-
     * quality step ratio is theirs); else shared is false and both 0. */
    bool shared;
    double shared_base_makespan, shared_opt_makespan;
    freeze_policy policy;
    double lp_timeout_s;
    bool lp_direct;
    lp_progress_fn progress;
    void *progress_ctx;
    /* Per stage: freezable actions and their freeze ratios: mean, max, min,
     * how many are fully frozen (x = 1) and how many partly (0 < x < 1). */
    size_t *stage_freezable;
    double *stage_mean, *stage_max, *stage_min;
    size_t *stage_full, *stage_partial;
    /* Per stage, the most its masks can freeze (select_stage_top: below 1
     * where freeze_weight 0 keeps tensors out); NULL when 1 everywhere.
     * Every ratio stays at or under it. */
    double *stage_top;
    bool lp_used;
    lp_stats lp;
    /* Time to quality (ttq.h), when the spec has a training section:
     * beta = noise_scale_tokens / batch_tokens, the frozen element share
     * (each stage's mean ratio weighted by its elements), the step ratio
     * (optimised over baseline makespan), the predicted speed-up to the
     * no-freezing run's loss and the break-even beta at this plan (-1:
     * never pays, INFINITY: always). With freeze.max_ratio: auto the cap
     * was chosen (ttq_auto) among PLAN_AUTO_CAPS + 1 caps, and ttq_reason
     * says which and why. */
    bool ttq_known, ttq_auto;
    bool ttq_rescale; /* beta below 1: the optimiser contract to use is mean (docs/optimizer-contract.md) */
    double ttq_beta, ttq_frozen_share, ttq_step_ratio, ttq_speedup, ttq_break_even;
    double ttq_upper_bound; /* the most freezing buys at any learning rate (ttq_upper_bound) */
    double ttq_bound_beta;  /* its beta: the smaller of ttq_beta and where freezing starts (if given) */
    double ttq_lr_ratio; /* training.lr_ratio, given or from the pilot; NAN: neither (ttq_rho) */
    ttq_optimizer ttq_optimizer; /* training.optimizer: what a frozen step costs at ttq_lr_ratio */
    /* room for a prefix before auto's reason (PLAN_REASON_CAP), and for the
     * note after it where the plan freezes more than the pilot did */
    char ttq_reason[PLAN_REASON_CAP + 256];
    /* Per rank: the most activation sets held at once, and bytes (actmem.h);
     * act_bytes_known when every stage gives model.stages[i].activation_bytes. */
    uint32_t *act_peak_sets;
    uint64_t *act_peak_bytes;
    bool act_bytes_known;
} plan;

/* A beta as the time-to-quality reasons write it: on its side of the
 * break-even written beside it (none: be < 0), so "pays at beta 0.8477:
 * break-even 0.848" reads as it is. */
real_text plan_beta_text(double beta, double be);

/* The step tfc predicts, nothing frozen or under the policy: on the shared
 * processors when there are fewer than ranks (pipeline.processors), else
 * the longest path. What the sweep and --compare rank by. */
static inline double plan_step_ms(const plan *p, bool optimised)
{
    if (p->shared)
        return optimised ? p->shared_opt_makespan : p->shared_base_makespan;
    return optimised ? p->opt.makespan : p->base.makespan;
}

/* freeze.max_ratio: auto tries caps 0, 1 / N, ..., 1 (tfc plan --sweep's). */
#define PLAN_AUTO_CAPS 10

/* Builds the schedule, checks it cannot deadlock, simulates the baseline,
 * and applies the policy; with freeze.max_ratio: auto, first plans every
 * cap of PLAN_AUTO_CAPS and keeps the one with the best predicted time to
 * quality (0 when none pays), p->sp then being a copy of sp with that cap
 * (and with training.pilot, the learning-rate ratio it implies).
 * TFC_INFEASIBLE when the LP finds no plan. */
tfc_status plan_build(const spec *sp, const plan_options *opt, arena *a, diag_list *d, plan **out);

/* With training.pilot and no lr_ratio yet: plans the spec at the pilot's
 * cap and derives the learning-rate ratio its measured speed-up implies
 * (ttq_lr_ratio); *out is then a copy of sp (in a) with it. Otherwise *out
 * is sp. The pilot's plan is opt's policy's, the freeze LP's under
 * POLICY_NONE. plan_build does this itself; --sweep and --compare do it
 * first so every cap and schedule they plan uses the spec's own pilot plan.
 * TFC_INVALID (at training.pilot) when the speed-up says nothing. */
tfc_status plan_resolve_pilot(const spec *sp, const plan_options *opt, arena *a, diag_list *d, const spec **out);

/* The policy's ratios in p->x onto the grid, each stage held to its cap
 * (plan_build runs it between the policy and the simulated step; exposed
 * for tests). Freezable actions only, each ratio clamped to [0, 1] and
 * rounded down to a multiple of 2^-PLAN_RATIO_GRID_BITS; a stage whose
 * ratios still sum past max_ratio x its freezable actions (a sum of floors
 * can pass the floor of the sum, the solver's tolerance can pass the cap)
 * is brought back onto it: the mean of the printed ratios is at most the
 * cap, exactly. Sets stage_freezable. */
tfc_status plan_ratios_on_grid(plan *p, arena *a, diag_list *d);

/* The LP problem of p (for dumping or re-solving). */
lp_problem plan_lp_problem(const plan *p);

#endif
