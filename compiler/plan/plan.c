/* plan: schedule -> DAG -> baseline step -> freezing policy -> optimised step. */
#include "plan.h"

#include <math.h>
#include <stdint.h>

#include "actmem.h"
#include "sched_build.h"
#include "timing_csv.h"

const char *plan_policy_name(freeze_policy p)
{
    switch (p) {
    case POLICY_TIMELY: return "timely";
    case POLICY_UNIFORM: return "uniform";
    case POLICY_NONE: return "none";
    }
    return "?";
}

static void action_bounds(plan *p)
{
    const spec_timing *t = &p->sp->timing;
    for (size_t i = 0; i < p->s->n_actions; i++) {
        const sched_action *x = &p->s->actions[i];
        p->freezable[i] = act_type_freezable(x->type);
        if (x->type == ACT_B && t->backward_frozen_ms)
            p->w_min[i] = t->backward_frozen_ms[x->stage];
        else if (x->type == ACT_B) /* timed as I + W (sim_durations): I + the frozen W */
            p->w_min[i] = t->backward_input_ms[x->stage] +
                          (t->backward_weight_frozen_ms ? t->backward_weight_frozen_ms[x->stage]
                                                        : SPEC_W_FLOOR_SHARE * t->backward_weight_ms[x->stage]);
        else if (x->type == ACT_W)
            p->w_min[i] = t->backward_weight_frozen_ms ? t->backward_weight_frozen_ms[x->stage]
                                                        : SPEC_W_FLOOR_SHARE * t->backward_weight_ms[x->stage];
        else
            p->w_min[i] = p->dur[i];
    }
}

/* x rounded down onto the grid, in grid units (x in [0, 1]; NaN counts as 0). */
static uint64_t grid_units(double x)
{
    if (!(x > 0.0))
        return 0;
    if (x >= 1.0)
        return (uint64_t)1 << PLAN_RATIO_GRID_BITS;
    return (uint64_t)floor(ldexp(x, PLAN_RATIO_GRID_BITS)); /* exact scaling by a power of two */
}

/* The policy's ratios onto the grid, each stage held to its cap. A stage
 * over the cap by solver tolerance (or rounding in cap * count) is first
 * scaled back onto it: a tiny loss of speed, never of accuracy. Then every
 * ratio is rounded down to the grid, and a stage whose grid units still sum
 * past its count times the cap's own units (sums of floors can pass the
 * floor of the sum by up to one unit an action) gives back the difference
 * from its first actions, in action order. In units the sums are exact, so
 * the mean of the printed ratios is at most the cap rounded down to the
 * grid, whatever the floating-point sum would say. Linear in the actions. */
static void ratios_on_grid(plan *p)
{
    const sched *s = p->s;
    double cap = p->sp->freeze.max_ratio;
    for (uint32_t st = 0; st < s->n_stages; st++)
        p->stage_freezable[st] = 0, p->stage_mean[st] = 0.0;
    for (size_t i = 0; i < s->n_actions; i++)
        if (p->freezable[i]) {
            p->stage_freezable[s->actions[i].stage]++;
            p->stage_mean[s->actions[i].stage] += p->x[i];
        }
    bool over = false;
    for (uint32_t st = 0; st < s->n_stages; st++) {
        double limit = cap * (double)p->stage_freezable[st];
        if (p->stage_mean[st] > limit) {
            p->stage_mean[st] = limit / p->stage_mean[st]; /* now the scale */
            over = true;
        } else {
            p->stage_mean[st] = -1.0; /* no scaling */
        }
    }
    if (over)
        for (size_t i = 0; i < s->n_actions; i++) {
            double scale = p->stage_mean[s->actions[i].stage];
            if (p->freezable[i] && scale >= 0.0)
                p->x[i] *= scale;
        }
    /* Rounded down; stage_max holds each stage's unit sum for a moment
     * (exact in a double: under 2^53 units for fewer than 2^21 actions). */
    for (uint32_t st = 0; st < s->n_stages; st++)
        p->stage_max[st] = 0.0;
    for (size_t i = 0; i < s->n_actions; i++) {
        uint64_t u = p->freezable[i] ? grid_units(p->x[i]) : 0;
        p->x[i] = ldexp((double)u, -PLAN_RATIO_GRID_BITS);
        p->stage_max[s->actions[i].stage] += (double)u;
    }
    uint64_t cap_units = grid_units(cap);
    for (size_t i = 0; i < s->n_actions; i++) {
        uint32_t st = s->actions[i].stage;
        double excess = p->stage_max[st] - (double)cap_units * (double)p->stage_freezable[st];
        if (!p->freezable[i] || !(p->x[i] > 0.0) || !(excess > 0.0))
            continue;
        double u = (double)grid_units(p->x[i]), take = u < excess ? u : excess;
        p->x[i] = ldexp(u - take, -PLAN_RATIO_GRID_BITS);
        p->stage_max[st] -= take;
    }
}

/* Per-stage means and counts of the ratios on the grid. */
static void stage_means(plan *p)
{
    const sched *s = p->s;
    for (uint32_t st = 0; st < s->n_stages; st++)
        p->stage_mean[st] = 0.0;
    for (size_t i = 0; i < s->n_actions; i++)
        if (p->freezable[i])
            p->stage_mean[s->actions[i].stage] += p->x[i];
    for (uint32_t st = 0; st < s->n_stages; st++) {
        if (p->stage_freezable[st])
            p->stage_mean[st] /= (double)p->stage_freezable[st];
        p->stage_max[st] = 0.0;
        p->stage_min[st] = p->stage_freezable[st] ? 1.0 : 0.0;
        p->stage_full[st] = p->stage_partial[st] = 0;
    }
    for (size_t i = 0; i < s->n_actions; i++) {
        if (!p->freezable[i])
            continue;
        uint32_t st = s->actions[i].stage;
        double x = p->x[i];
        if (x > p->stage_max[st])
            p->stage_max[st] = x;
        if (x < p->stage_min[st])
            p->stage_min[st] = x;
        /* Ratios within PLAN_RATIO_EPS of 1 count as fully frozen: solver
         * tolerances can shave 1e-9 off a ratio without changing anything. */
        if (x >= 1.0 - PLAN_RATIO_EPS)
            p->stage_full[st]++;
        else if (x > PLAN_RATIO_EPS)
            p->stage_partial[st]++;
    }
}

lp_problem plan_lp_problem(const plan *p)
{
    return (lp_problem){.s = p->s,
                        .g = p->g,
                        .w_max = p->dur,
                        .w_min = p->w_min,
                        .freezable = p->freezable,
                        .comm_ms = p->sp->timing.comm_ms,
                        .cap = p->sp->freeze.max_ratio,
                        .timeout_s = p->lp_timeout_s,
                        .direct = p->lp_direct,
                        .action_cap = p->sp->freeze.max_action_ratio,
                        .balance = p->sp->freeze.balance != BALANCE_NONE,
                        .leximin = p->sp->freeze.balance == BALANCE_LEXIMIN,
                        .progress = p->progress,
                        .progress_ctx = p->progress_ctx};
}

plan_options plan_default_options(void)
{
    return (plan_options){.policy = POLICY_TIMELY, .lp_timeout_s = LP_TIMEOUT_S};
}

tfc_status plan_build(const spec *sp, const plan_options *opt, arena *a, diag_list *d, plan **out)
{
    freeze_policy policy = opt->policy;
    *out = NULL;
    plan *p = arena_alloc(a, sizeof *p);
    if (!p)
        return diag_nomem(d, "planning");
    p->sp = sp;
    p->policy = policy;
    p->lp_timeout_s = opt->lp_timeout_s;
    p->lp_direct = opt->lp_direct;
    p->progress = opt->progress;
    p->progress_ctx = opt->progress_ctx;
    tfc_status st = sched_build(sp, a, d, &p->s);
    if (st != TFC_OK)
        return st;
    if (!dag_build(p->s, sp->path, sp->pos_schedule, a, d, &p->g))
        return diag_status(d, TFC_INVALID);
    size_t n = p->s->n_actions ? p->s->n_actions : 1;
    p->dur = arena_alloc_array(a, n, sizeof *p->dur);
    p->w_min = arena_alloc_array(a, n, sizeof *p->w_min);
    p->freezable = arena_alloc_array(a, n, sizeof *p->freezable);
    p->x = arena_alloc_array(a, n, sizeof *p->x);
    p->opt_dur = arena_alloc_array(a, n, sizeof *p->opt_dur);
    p->stage_freezable = arena_alloc_array(a, p->s->n_stages, sizeof *p->stage_freezable);
    p->stage_mean = arena_alloc_array(a, p->s->n_stages, sizeof *p->stage_mean);
    p->stage_max = arena_alloc_array(a, p->s->n_stages, sizeof *p->stage_max);
    p->stage_min = arena_alloc_array(a, p->s->n_stages, sizeof *p->stage_min);
    p->stage_full = arena_alloc_array(a, p->s->n_stages, sizeof *p->stage_full);
    p->stage_partial = arena_alloc_array(a, p->s->n_stages, sizeof *p->stage_partial);
    p->act_peak_sets = arena_alloc_array(a, p->s->ranks, sizeof *p->act_peak_sets);
    p->act_peak_bytes = arena_alloc_array(a, p->s->ranks, sizeof *p->act_peak_bytes);
    if (!p->dur || !p->w_min || !p->freezable || !p->x || !p->opt_dur || !p->stage_freezable || !p->stage_mean ||
        !p->stage_max || !p->stage_min || !p->stage_full || !p->stage_partial || !p->act_peak_sets ||
        !p->act_peak_bytes)
        return diag_nomem(d, "planning");
    p->act_bytes_known = actmem_peaks(p->s, sp, p->act_peak_sets, p->act_peak_bytes);
    if (sp->timing.source == TIMING_MEASURED || sp->timing.source == TIMING_TRACE) {
        st = timing_csv_load(sp, p->s, a, p->dur, p->w_min, d);
        if (st != TFC_OK)
            return st;
        for (size_t i = 0; i < p->s->n_actions; i++)
            p->freezable[i] = act_type_freezable(p->s->actions[i].type);
    } else {
        if (!sim_durations(sp, p->s, p->dur, d))
            return diag_status(d, TFC_INVALID);
        action_bounds(p);
    }
    if (!sim_run(p->s, p->g, p->dur, sp->timing.comm_ms, a, &p->base))
        return diag_nomem(d, "simulating %zu actions", p->s->n_actions);

    double cap = sp->freeze.max_ratio;
    switch (policy) {
    case POLICY_NONE:
        break; /* x is zeroed by the arena */
    case POLICY_UNIFORM:
        for (size_t i = 0; i < p->s->n_actions; i++)
            p->x[i] = p->freezable[i] ? fmin(cap, sp->freeze.max_action_ratio) : 0.0;
        break;
    case POLICY_TIMELY: {
        lp_problem pb = plan_lp_problem(p);
        st = lp_freeze_solve(&pb, sp->path, d, p->x, &p->lp);
        if (st != TFC_OK)
            return st;
        p->lp_used = true;
        break;
    }
    }
    ratios_on_grid(p);
    stage_means(p);
    for (size_t i = 0; i < p->s->n_actions; i++)
        p->opt_dur[i] = p->dur[i] - p->x[i] * (p->dur[i] - p->w_min[i]);
    if (!sim_run(p->s, p->g, p->opt_dur, sp->timing.comm_ms, a, &p->opt))
        return diag_nomem(d, "simulating %zu actions", p->s->n_actions);
    *out = p;
    return TFC_OK;
}
