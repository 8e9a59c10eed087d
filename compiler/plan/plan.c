/* plan: schedule -> DAG -> baseline step -> freezing policy -> optimised step. */
#include "plan.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "actmem.h"
#include "real.h"
#include "sched_build.h"
#include "select.h"
#include "timing_csv.h"
#include "ttq.h"

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

/* floor(cap * count * 2^GRID), exactly, for a cap in [0, 1] and fewer than
 * 2^32 actions: the most grid units a stage's ratios may sum to. The cap is
 * M 2^(e - 53) with M an integer below 2^53, so this is M count shifted
 * right by 53 - GRID - e, worked out in 128 bits (no rounding anywhere). */
static uint64_t cap_units(double cap, uint64_t count)
{
    if (!(cap > 0.0) || count == 0)
        return 0;
    if (cap >= 1.0)
        return count << PLAN_RATIO_GRID_BITS;
    int e;
    uint64_t m = (uint64_t)ldexp(frexp(cap, &e), 53); /* e <= 0 */
    uint64_t ll = (m & 0xffffffffu) * (count & 0xffffffffu), lh = (m & 0xffffffffu) * (count >> 32);
    uint64_t hl = (m >> 32) * (count & 0xffffffffu), hh = (m >> 32) * (count >> 32);
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    uint64_t lo = (ll & 0xffffffffu) | (mid << 32), hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    int shift = 53 - PLAN_RATIO_GRID_BITS - e; /* at least 21 */
    if (shift >= 128)
        return 0;
    if (shift >= 64)
        return hi >> (shift - 64);
    return (hi >> shift) ? UINT64_MAX : (lo >> shift) | (hi << (64 - shift));
}

tfc_status plan_ratios_on_grid(plan *p, arena *a, diag_list *d)
{
    const sched *s = p->s;
    double cap = p->sp->freeze.max_ratio;
    uint64_t *units = arena_alloc_array(a, s->n_stages ? s->n_stages : 1, sizeof *units);
    if (!units)
        return diag_nomem(d, "planning");
    for (uint32_t st = 0; st < s->n_stages; st++)
        p->stage_freezable[st] = 0, p->stage_mean[st] = 0.0, units[st] = 0;
    for (size_t i = 0; i < s->n_actions; i++)
        if (p->freezable[i]) {
            p->stage_freezable[s->actions[i].stage]++;
            p->stage_mean[s->actions[i].stage] += p->x[i];
        }
    /* Scaled back onto the cap where the solver's tolerance went past it. */
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
    /* Rounded down onto the grid; each stage's units summed exactly. */
    for (size_t i = 0; i < s->n_actions; i++) {
        uint64_t u = p->freezable[i] ? grid_units(p->x[i]) : 0;
        p->x[i] = ldexp((double)u, -PLAN_RATIO_GRID_BITS);
        units[s->actions[i].stage] += u;
    }
    /* Still past the cap (a sum of floors can pass the floor of the sum by
     * up to one unit an action): the excess is given back by the stage's
     * partly frozen actions first, in action order, where a unit moves a
     * mask's budget by a 2^-32 share of the stage; then by the fully frozen
     * ones. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < s->n_actions; i++) {
            uint32_t st = s->actions[i].stage;
            uint64_t limit = cap_units(cap, p->stage_freezable[st]), u = grid_units(p->x[i]);
            if (!p->freezable[i] || u == 0 || units[st] <= limit || (pass == 0 && p->x[i] >= 1.0))
                continue;
            uint64_t take = u < units[st] - limit ? u : units[st] - limit;
            p->x[i] = ldexp((double)(u - take), -PLAN_RATIO_GRID_BITS);
            units[st] -= take;
        }
    return TFC_OK;
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
                        .processors = p->sp->processors,
                        .action_cap = p->sp->freeze.max_action_ratio,
                        .stage_top = p->stage_top,
                        .balance = p->sp->freeze.balance != BALANCE_NONE,
                        .leximin = p->sp->freeze.balance == BALANCE_LEXIMIN,
                        .progress = p->progress,
                        .progress_ctx = p->progress_ctx};
}

plan_options plan_default_options(void) { return (plan_options){.policy = POLICY_TIMELY, .lp_timeout_s = LP_TIMEOUT_S}; }

_Static_assert((int)SPEC_OPTIMIZER_ADAM == (int)TTQ_ADAM && (int)SPEC_OPTIMIZER_SGD == (int)TTQ_SGD,
               "spec.h's training.optimizer values are ttq.h's");

static ttq_optimizer optimizer_of(const spec *sp)
{
    return sp->training.optimizer == SPEC_OPTIMIZER_SGD ? TTQ_SGD : TTQ_ADAM;
}

/* A break-even beta for the reasons (ttq_break_even: INFINITY where any
 * beta pays), on its side of the beta the reason names beside it. */
static real_text be_text(double be, double beta)
{
    real_text t;
    if (isinf(be)) {
        snprintf(t.s, sizeof t.s, "%s", "infinite (any beta pays)");
        return t;
    }
    return real_apart(be, beta);
}

real_text plan_beta_text(double beta, double be)
{
    return be >= 0.0 ? real_apart(beta, be) : real_brief(beta);
}

/* What a reason adds where the model's prediction does not pay and the
 * learning-rate ratio is unknown: the upper bound (ttq_upper_bound), the
 * most freezing buys if the run's rate rather than its noise limits it,
 * and so whether a pilot could find a gain. at_cap: the cap it is at
 * (NULL: the reason's own). */
static void bound_note(char *buf, size_t cap, double bound, const char *at_cap)
{
    char where[REAL_TEXT_CAP + 16] = "";
    if (at_cap)
        snprintf(where, sizeof where, " at cap %s", at_cap);
    if (bound > 1.0)
        snprintf(buf, cap, "; at most %sx%s if the rate, not the noise, limits the run (a pilot run tells)",
                 real_apart(bound, 1.0).s, where);
    else
        snprintf(buf, cap, "; not even if the rate limits the run (at most %sx%s)", real_apart(bound, 1.0).s,
                 where);
}

/* The spec's step at which freezing takes hold (ttq_takes_hold). */
static double takes_hold(const spec *sp)
{
    return ttq_takes_hold((double)sp->freeze.warmup_steps, (double)sp->freeze.ramp_steps);
}

/* The reason where the run ends before freezing takes hold at step w
 * (the model's warmup + ramp / 2): no cap changes its time to quality. */
static void late_note(char *buf, size_t cap, const spec *sp, double w)
{
    snprintf(buf, cap,
             "freezing does not pay: it takes hold at step %s (freeze.warmup_steps + ramp_steps / 2), not before the "
             "run's %llu steps end",
             real_shortest(w).s, (unsigned long long)sp->training.steps);
}

/* Time to quality of a built plan (ttq.h), when the spec has a training
 * section, and the reason text for a cap the spec gave. */
static void plan_ttq(plan *p)
{
    const spec *sp = p->sp;
    if (!sp->training.present)
        return;
    double numel = 0.0, frozen = 0.0;
    for (size_t st = 0; st < sp->n_stages; st++) {
        numel += (double)sp->stages[st].numel;
        frozen += (double)sp->stages[st].numel * p->stage_mean[st];
    }
    p->ttq_known = true;
    p->ttq_beta = sp->training.noise_scale_tokens / (double)sp->training.batch_tokens;
    p->ttq_frozen_share = numel > 0.0 ? frozen / numel : 0.0;
    double base = plan_step_ms(p, false), step = plan_step_ms(p, true);
    p->ttq_step_ratio = base > 0.0 ? step / base : 1.0;
    p->ttq_lr_ratio = sp->training.lr_ratio;
    p->ttq_optimizer = optimizer_of(sp);
    p->ttq_speedup = ttq_speedup(p->ttq_beta, p->ttq_frozen_share, p->ttq_step_ratio, (double)sp->training.steps,
                                 (double)sp->freeze.warmup_steps, (double)sp->freeze.ramp_steps, p->ttq_lr_ratio,
                                 p->ttq_optimizer);
    /* the bound at the smaller beta: where the noise scale falls by the time
     * freezing starts, a frozen step costs less than at the run's start */
    p->ttq_bound_beta = p->ttq_beta;
    double fb = sp->training.freeze_noise_scale_tokens / (double)sp->training.batch_tokens;
    if (fb < p->ttq_bound_beta) /* false for NAN: not given */
        p->ttq_bound_beta = fb;
    p->ttq_upper_bound = ttq_upper_bound(p->ttq_bound_beta, p->ttq_frozen_share, p->ttq_step_ratio,
                                         (double)sp->training.steps, (double)sp->freeze.warmup_steps,
                                         (double)sp->freeze.ramp_steps, p->ttq_optimizer);
    /* A run that ends before freezing takes hold gains nothing at any beta:
     * no break-even (the reason says why). */
    double w = takes_hold(sp);
    p->ttq_break_even = (double)sp->training.steps > w ? ttq_break_even(p->ttq_frozen_share, p->ttq_step_ratio,
                                                                         p->ttq_lr_ratio, p->ttq_optimizer)
                                                       : -1.0;
    p->ttq_rescale = p->ttq_beta < TTQ_RESCALE_BELOW;
    real_text beta = plan_beta_text(p->ttq_beta, p->ttq_break_even), cap = real_shortest(sp->freeze.max_ratio);
    if (!(p->ttq_frozen_share > 0.0))
        snprintf(p->ttq_reason, sizeof p->ttq_reason, "nothing is frozen at cap %s", cap.s);
    else if (!((double)sp->training.steps > w))
        late_note(p->ttq_reason, sizeof p->ttq_reason, sp, w);
    else if (p->ttq_speedup > 1.0)
        snprintf(p->ttq_reason, sizeof p->ttq_reason, "freezing pays at beta %s: break-even %s at cap %s", beta.s,
                 p->ttq_break_even < 0 ? "none" : be_text(p->ttq_break_even, p->ttq_beta).s, cap.s);
    else {
        /* no break-even: a step no shorter, or everything frozen (said below) */
        const char *none = p->ttq_step_ratio >= 1.0 ? "none (the step is no shorter)" : "none";
        int n = snprintf(p->ttq_reason, sizeof p->ttq_reason,
                         "freezing does not pay at beta %s: break-even %s at cap %s", beta.s,
                         p->ttq_break_even >= 0 ? be_text(p->ttq_break_even, p->ttq_beta).s : none, cap.s);
        if (p->ttq_speedup == 0.0 && n > 0 && (size_t)n < sizeof p->ttq_reason) { /* never reaches the loss */
            int m = p->ttq_frozen_share >= 1.0
                        ? snprintf(p->ttq_reason + n, sizeof p->ttq_reason - (size_t)n,
                                   "; everything is frozen, so the run never reaches the loss")
                        : snprintf(p->ttq_reason + n, sizeof p->ttq_reason - (size_t)n,
                                   "; a frozen step makes no progress at lr_ratio %s, so the run never reaches the loss",
                                   real_shortest(p->ttq_lr_ratio).s);
            n = m > 0 ? n + m : n;
        }
        if (isnan(p->ttq_lr_ratio) && n > 0 && (size_t)n < sizeof p->ttq_reason)
            bound_note(p->ttq_reason + n, sizeof p->ttq_reason - (size_t)n, p->ttq_upper_bound, NULL);
    }
}

/* The reason's note where the plan freezes more than the pilot's did: its
 * prediction extrapolates from the pilot's k, which one seed's pilot pins
 * worst at caps above its own (docs/time-to-quality.md, "One seed's
 * pilot"). */
static void pilot_note(plan *p)
{
    const spec_training *tr = &p->sp->training;
    if (!tr->pilot || !(p->ttq_frozen_share > tr->pilot_frozen_share + PLAN_RATIO_EPS))
        return;
    size_t n = strlen(p->ttq_reason);
    if (p->sp->freeze.max_ratio > tr->pilot_max_ratio)
        snprintf(p->ttq_reason + n, sizeof p->ttq_reason - n,
                 "; extrapolated: cap %s freezes more than the pilot's cap %s (%s of the elements against %s); a "
                 "pilot at the largest cap you would use pins the prediction best",
                 real_shortest(p->sp->freeze.max_ratio).s, real_shortest(tr->pilot_max_ratio).s,
                 real_brief(p->ttq_frozen_share).s, real_brief(tr->pilot_frozen_share).s);
    else if (p->policy == POLICY_TIMELY) /* the LP at a smaller cap can freeze more to reach its longer step */
        snprintf(p->ttq_reason + n, sizeof p->ttq_reason - n,
                 "; extrapolated: the plan at cap %s freezes more than the pilot's at cap %s (%s of the elements "
                 "against %s)",
                 real_shortest(p->sp->freeze.max_ratio).s, real_shortest(tr->pilot_max_ratio).s,
                 real_brief(p->ttq_frozen_share).s, real_brief(tr->pilot_frozen_share).s);
    else /* the pilot is planned with the freeze LP; another policy can freeze more at the same cap */
        snprintf(p->ttq_reason + n, sizeof p->ttq_reason - n,
                 "; extrapolated: the %s policy freezes more at cap %s than the freeze LP's plan of the pilot's cap %s "
                 "(%s of the elements against %s)",
                 plan_policy_name(p->policy), real_shortest(p->sp->freeze.max_ratio).s,
                 real_shortest(tr->pilot_max_ratio).s, real_brief(p->ttq_frozen_share).s,
                 real_brief(tr->pilot_frozen_share).s);
}

/* The spec planned at `cap` (in an arena of its own, freed before
 * returning): the plan's time-to-quality numbers. */
typedef struct cap_ttq {
    double speedup, break_even, beta, frozen_share, step_ratio, upper_bound;
} cap_ttq;

static tfc_status plan_at_cap(const spec *sp, const plan_options *opt, double cap, diag_list *d, cap_ttq *out)
{
    arena tmp;
    arena_init(&tmp, 0);
    spec *c = arena_alloc(&tmp, sizeof *c);
    plan *q = NULL;
    tfc_status st = c ? TFC_OK : diag_nomem(d, "planning");
    if (st == TFC_OK) {
        *c = *sp;
        c->freeze.max_ratio = cap;
        c->freeze.max_ratio_auto = false;
        c->training.pilot = false; /* the pilot's own plan derives nothing */
        st = plan_build(c, opt, &tmp, d, &q);
    }
    if (st == TFC_OK)
        *out = (cap_ttq){q->ttq_speedup, q->ttq_frozen_share > 0.0 ? q->ttq_break_even : -1.0, q->ttq_beta,
                         q->ttq_frozen_share, q->ttq_step_ratio, q->ttq_upper_bound};
    arena_free(&tmp);
    return st;
}

_Static_assert((int)SPEC_LR_RATIO_MAX == (int)TTQ_LR_RATIO_MAX, "spec.h and ttq.h bound training.lr_ratio alike");

tfc_status plan_resolve_pilot(const spec *sp, const plan_options *opt, arena *a, diag_list *d, const spec **out)
{
    *out = sp;
    const spec_training *tr = &sp->training;
    if (!tr->present || !tr->pilot || !isnan(tr->lr_ratio))
        return TFC_OK;
    /* The pilot ran tfc's plan at its cap, the freeze LP's, whatever
     * --policy this plan is made under (none, uniform; and tfc check). */
    plan_options po = *opt;
    po.policy = POLICY_TIMELY;
    cap_ttq at;
    tfc_status st = plan_at_cap(sp, &po, tr->pilot_max_ratio, d, &at);
    if (st != TFC_OK)
        return st;
    ttq_optimizer form = optimizer_of(sp);
    double k = ttq_lr_ratio(at.beta, at.frozen_share, at.step_ratio, (double)tr->steps, (double)sp->freeze.warmup_steps,
                            (double)sp->freeze.ramp_steps, tr->pilot_speedup, form);
    /* what the shorter step alone gives (SGD's bound: a frozen step costs nothing) */
    double alone = ttq_upper_bound(at.beta, at.frozen_share, at.step_ratio, (double)tr->steps,
                                   (double)sp->freeze.warmup_steps, (double)sp->freeze.ramp_steps, TTQ_SGD);
    if (isnan(k) || tr->pilot_speedup > alone) {
        real_text cap = real_shortest(tr->pilot_max_ratio), sp_ = real_shortest(tr->pilot_speedup);
        double w = takes_hold(sp);
        if (!(at.frozen_share > 0.0 && at.frozen_share < 1.0))
            diag_error(d, sp->path, tr->pos_pilot_max_ratio.line, tr->pos_pilot_max_ratio.col,
                       "training.pilot: the plan at cap %s freezes %s of the elements, so its speed-up cannot say "
                       "what a frozen step costs; pilot a cap that freezes some but not all",
                       cap.s, at.frozen_share > 0.0 ? "all" : "none");
        else if (!((double)tr->steps > w))
            diag_error(d, sp->path, tr->pos_pilot.line, tr->pos_pilot.col,
                       "training.pilot: freezing takes hold at step %s (freeze.warmup_steps + ramp_steps / 2), not "
                       "before the run's %llu steps end, so the pilot's speed-up cannot say what a frozen step costs",
                       real_shortest(w).s, (unsigned long long)tr->steps);
        else if (!(tr->pilot_speedup > alone))
            /* k at or above 2: n, (1 + beta / (1 - f)) / (1 + beta),
             * rounds to 1 (a beta far below 1, or a frozen share near
             * 0), so only a step making no progress could cost what the
             * pilot measured */
            diag_error(d, sp->path, tr->pos_pilot_speedup.line, tr->pos_pilot_speedup.col,
                       "training.pilot: no learning-rate ratio below 2 gives a speed-up of %s at cap %s at beta %s: "
                       "with a frozen share of %s, a frozen step's gradient is noisier than a full one's by too "
                       "little for double precision to tell (beta / (1 - share) against beta), so the model cannot "
                       "say what the pilot's cost was (the shorter step alone gives %s)",
                       sp_.s, cap.s, real_brief(at.beta).s, real_brief(at.frozen_share).s, real_brief(alone).s);
        else
            diag_error(d, sp->path, tr->pos_pilot_speedup.line, tr->pos_pilot_speedup.col,
                       "training.pilot: a speed-up of %s at cap %s is more than the shorter step alone gives, %s "
                       "(step ratio %s, frozen share %s, %llu steps, freezing taking hold at step %s); measure it "
                       "to the no-freezing run's loss, the steps timed at the plan's step (docs/time-to-quality.md)",
                       sp_.s, cap.s, real_apart(alone, tr->pilot_speedup).s, real_brief(at.step_ratio).s,
                       real_brief(at.frozen_share).s,
                       (unsigned long long)tr->steps, real_shortest(w).s);
        return diag_status(d, TFC_INVALID);
    }
    /* The most the model gives: at k = 0 (ttq_upper_bound). */
    double most = ttq_upper_bound(at.beta, at.frozen_share, at.step_ratio, (double)tr->steps,
                                  (double)sp->freeze.warmup_steps, (double)sp->freeze.ramp_steps, form);
    if (k == 0.0 && tr->pilot_speedup > most) {
        /* The prediction keeps the start's noise scale; the bound may take
         * the smaller one where freezing starts (at.upper_bound): say so
         * where the two differ, so the warning and plan.json agree. */
        char fall[160] = "";
        if (at.upper_bound > most)
            snprintf(fall, sizeof fall, "; %s the %s bound at the noise scale where freezing starts",
                     tr->pilot_speedup > at.upper_bound ? "above even" : "within",
                     real_apart(at.upper_bound, tr->pilot_speedup).s);
        /* (Adam's only: SGD's least cost is the shorter step alone, an error above) */
        diag_warning(d, sp->path, tr->pos_pilot_speedup.line, tr->pos_pilot_speedup.col,
                     "training.pilot: a speed-up of %s at cap %s is above the %s the model gives at the least cost%s; "
                     "taken as lr_ratio 0 (a run its rate limits: a frozen step costs Adam only its noisier "
                     "gradient's weaker signal)",
                     real_shortest(tr->pilot_speedup).s, real_shortest(tr->pilot_max_ratio).s,
                     real_apart(most, tr->pilot_speedup).s,
                     fall);
    }
    spec *c = arena_alloc(a, sizeof *c);
    if (!c)
        return diag_nomem(d, "planning");
    *c = *sp;
    c->training.lr_ratio = k;
    c->training.pilot_frozen_share = at.frozen_share;
    *out = c;
    return TFC_OK;
}

/* freeze.max_ratio: auto: every cap of PLAN_AUTO_CAPS planned (each in an
 * arena of its own) and its time to quality predicted; the best is kept,
 * the lowest cap among equals (so 0, which predicts 1, unless a cap beats
 * no freezing). Returns a copy of sp with that cap in *chosen (allocated
 * in a), the reason in reason. */
static tfc_status choose_cap(const spec *sp, const plan_options *opt_in, arena *a, diag_list *d, const spec **chosen,
                             char *reason, size_t cap)
{
    /* Under --policy none (and --dump-lp) the cap is still the one the freeze
     * LP's plans choose: the policy freezes nothing, the cap is the spec's. */
    plan_options po = *opt_in;
    if (po.policy == POLICY_NONE)
        po.policy = POLICY_TIMELY;
    const plan_options *opt = &po;
    double speed[PLAN_AUTO_CAPS + 1], be[PLAN_AUTO_CAPS + 1], bound[PLAN_AUTO_CAPS + 1], beta = 0.0;
    int best = 0, easiest = -1, hope = -1;
    for (int i = 0; i <= PLAN_AUTO_CAPS; i++) {
        cap_ttq at;
        tfc_status st = plan_at_cap(sp, opt, (double)i / PLAN_AUTO_CAPS, d, &at);
        if (st != TFC_OK)
            return st;
        speed[i] = at.speedup, be[i] = at.break_even, bound[i] = at.upper_bound, beta = at.beta;
        if (speed[i] > speed[best])
            best = i;
        if (at.frozen_share > 0.0 && (hope < 0 || bound[i] > bound[hope])) /* among the caps that freeze */
            hope = i;
        if (i > 0 && be[i] >= 0.0 && (easiest < 0 || be[i] > be[easiest]))
            easiest = i;
    }
    /* Cap 0 freezes nothing and predicts 1: a cap is kept only when it beats that. */
    spec *c = arena_alloc(a, sizeof *c);
    if (!c)
        return diag_nomem(d, "planning");
    *c = *sp;
    c->freeze.max_ratio = (double)best / PLAN_AUTO_CAPS;
    *chosen = c;
    double w = takes_hold(sp);
    if (!((double)sp->training.steps > w))
        late_note(reason, cap, sp, w); /* every cap predicts 1: 0 is kept */
    else if (best > 0)
        snprintf(reason, cap, "cap %s predicts the best time to quality of caps 0 to 1 at beta %s: %sx (break-even %s)",
                 real_shortest(c->freeze.max_ratio).s, plan_beta_text(beta, be[best]).s, real_apart(speed[best], 1.0).s,
                 be_text(be[best], beta).s);
    else {
        int n = easiest > 0 ? snprintf(reason, cap, "freezing does not pay at beta %s: break-even %s at cap %s",
                                       plan_beta_text(beta, be[easiest]).s, be_text(be[easiest], beta).s,
                                       real_shortest((double)easiest / PLAN_AUTO_CAPS).s)
                            : snprintf(reason, cap, "freezing does not pay at beta %s: no cap shortens the step",
                                       real_brief(beta).s);
        /* and whether a cap could, were the rate to limit the run */
        if (hope >= 0 && isnan(sp->training.lr_ratio) && n > 0 && (size_t)n < cap)
            bound_note(reason + n, cap - (size_t)n, bound[hope],
                       real_shortest((double)hope / PLAN_AUTO_CAPS).s);
    }
    return TFC_OK;
}

/* Whether the LP has nothing to freeze: a cap of 0, or no freezable action
 * that freezing would shorten. */
static bool nothing_to_freeze(const plan *p, double cap)
{
    if (!(cap > 0.0))
        return true;
    for (size_t i = 0; i < p->s->n_actions; i++)
        if (p->freezable[i] && p->w_min[i] < p->dur[i])
            return false;
    return true;
}

tfc_status plan_build(const spec *sp, const plan_options *opt, arena *a, diag_list *d, plan **out)
{
    freeze_policy policy = opt->policy;
    *out = NULL;
    char auto_reason[PLAN_REASON_CAP] = "";
    tfc_status pst = plan_resolve_pilot(sp, opt, a, d, &sp);
    if (pst != TFC_OK)
        return pst;
    if (sp->freeze.max_ratio_auto && sp->training.present && !opt->skip_auto) {
        tfc_status st = choose_cap(sp, opt, a, d, &sp, auto_reason, sizeof auto_reason);
        if (st != TFC_OK)
            return st;
    }
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
    p->stage_top = NULL;
    for (uint32_t st_i = 0; st_i < p->s->n_stages && st_i < sp->n_stages; st_i++) {
        double top = select_stage_top(sp->freeze.select, &sp->stages[st_i]);
        if (top < 1.0 && !p->stage_top) {
            p->stage_top = arena_alloc_array(a, p->s->n_stages, sizeof *p->stage_top);
            if (!p->stage_top)
                return diag_nomem(d, "planning");
            for (uint32_t k = 0; k < p->s->n_stages; k++)
                p->stage_top[k] = 1.0;
        }
        if (p->stage_top)
            p->stage_top[st_i] = top;
    }
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
            p->x[i] = p->freezable[i] ? fmin(fmin(cap, sp->freeze.max_action_ratio),
                                             p->stage_top ? p->stage_top[p->s->actions[i].stage] : 1.0)
                                      : 0.0;
        break;
    case POLICY_TIMELY: {
        lp_problem pb = plan_lp_problem(p);
        if (nothing_to_freeze(p, cap)) {
            /* With nothing that can freeze the LP's answer is known: no
             * freezing, T* the baseline's makespan, or with the shared
             * processors' work row the larger of it and the work over the
             * processors. It is not solved, at any size: past the LP's
             * limit it could not be; with the work row lp_solve can cycle
             * on it (exit 3 where the plan is the baseline;
             * tests/specs/shared_cap0.yaml); and with a cap of 0 every
             * budget row is 0, which the decomposition's phase 1 crawls
             * towards in thousands of rounds (1F1B 24 x 24 without a
             * freeze section took 40 s and more, with cap 0.9 0.02 s). */
            double t_star = p->base.makespan;
            if (lp_work_row(&pb)) {
                double work = 0.0;
                for (size_t u = 0; u < p->s->n_actions; u++)
                    work += p->dur[u];
                t_star = fmax(t_star, work / (double)pb.processors);
            }
            lp_size z = lp_problem_size(&pb);
            p->lp = (lp_stats){.rows = (int)z.rows, .cols = (int)z.cols, .nonzeros = (long long)z.nonzeros,
                               .t_star = t_star, .t_star_uncapped = t_star};
            p->lp_used = true;
            break;
        }
        st = lp_freeze_solve(&pb, sp->path, d, p->x, &p->lp);
        if (st != TFC_OK && p->s->n_actions > LP_MAX_ACTIONS && sp->pos_microbatches.line)
            /* the refusal of the schedule's size: where that size is set */
            diag_note(d, sp->pos_microbatches.line, sp->pos_microbatches.col,
                      "the actions are ranks x stages_per_rank x microbatches x the schedule's passes");
        if (st != TFC_OK)
            return st;
        p->lp_used = true;
        break;
    }
    }
    st = plan_ratios_on_grid(p, a, d);
    if (st != TFC_OK)
        return st;
    stage_means(p);
    for (size_t i = 0; i < p->s->n_actions; i++)
        p->opt_dur[i] = p->dur[i] - p->x[i] * (p->dur[i] - p->w_min[i]);
    if (!sim_run(p->s, p->g, p->opt_dur, sp->timing.comm_ms, a, &p->opt))
        return diag_nomem(d, "simulating %zu actions", p->s->n_actions);
    if (sp->processors && sp->processors < p->s->ranks) {
        p->shared = true;
        p->shared_base_makespan = sim_shared(p->s, p->g, p->dur, sp->timing.comm_ms, sp->processors, a, NULL);
        p->shared_opt_makespan = sim_shared(p->s, p->g, p->opt_dur, sp->timing.comm_ms, sp->processors, a, NULL);
        if (p->shared_base_makespan < 0.0 || p->shared_opt_makespan < 0.0)
            return diag_nomem(d, "simulating %zu actions on %u processors", p->s->n_actions, sp->processors);
    }
    plan_ttq(p);
    if (sp->freeze.max_ratio_auto && p->ttq_known) {
        p->ttq_auto = true;
        if (policy == POLICY_NONE && sp->freeze.max_ratio > 0.0) /* the cap is chosen, nothing frozen at it */
            snprintf(p->ttq_reason, sizeof p->ttq_reason, "nothing is frozen under --policy none at the cap auto "
                     "chose, %s: %s", real_shortest(sp->freeze.max_ratio).s, auto_reason);
        else
            snprintf(p->ttq_reason, sizeof p->ttq_reason, "%s", auto_reason);
    }
    if (p->ttq_known)
        pilot_note(p);
    *out = p;
    return TFC_OK;
}
