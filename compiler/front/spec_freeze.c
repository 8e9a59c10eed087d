/* spec_freeze: the freeze and training sections, and the checks that tie
 * them to each other and to the model (spec_read.h). */
#include "spec.h"

#include <math.h>
#include <string.h>

#include "real.h"
#include "spec_read.h"
#include "text.h"

/* SPEC_OPTIMIZER_* order; AdamW scales its step as Adam does */
static const char *const optimizer_names[] = {"adam", "sgd", "adamw", NULL};

void spec_read_freeze(spec_reader *c, const ydoc_node *f)
{
    spec_freeze *fr = &c->s->freeze;
    if (!spec_check_map(c, f, "freeze", spec_freeze_keys))
        return;
    const ydoc_node *v;
    if ((v = spec_require(c, f, "freeze", "max_ratio", spec_freeze_keys))) {
        fr->pos_max_ratio = (spec_pos){v->line, v->col};
        char q[TEXT_QUOTE_CAP];
        bool str = v->kind == YDOC_SCALAR && ydoc_scalar_type(v) == YDOC_STR;
        if (str && v->n == 4 && memcmp(v->u.str, "auto", 4) == 0)
            fr->max_ratio_auto = true; /* the plan chooses; spec_check_auto holds it to a training section */
        else if (str)
            SPEC_ERR(c, v, "freeze.max_ratio must be a number from 0 to 1, or auto, got %s",
                     spec_describe(v, q, sizeof q));
        else
            spec_get_number(c, v, "freeze.max_ratio", 0.0, false, 1.0, &fr->max_ratio);
    }
    static const char *const balances[] = {[BALANCE_MINMAX] = "minmax", [BALANCE_NONE] = "none",
                                           [BALANCE_LEXIMIN] = "leximin", NULL};
    if ((v = ydoc_get(f, "balance"))) {
        int b = spec_get_enum(c, v, "freeze.balance", balances);
        if (b >= 0)
            fr->balance = (spec_balance)b;
    }
    if ((v = ydoc_get(f, "max_action_ratio")))
        spec_get_number(c, v, "freeze.max_action_ratio", 0.0, false, 1.0, &fr->max_action_ratio);
    const uint64_t max_steps = UINT64_C(1) << 40;
    if ((v = ydoc_get(f, "warmup_steps")))
        spec_get_uint(c, v, "freeze.warmup_steps", 0, max_steps, &fr->warmup_steps);
    if ((v = ydoc_get(f, "ramp_steps")))
        spec_get_uint(c, v, "freeze.ramp_steps", 0, max_steps, &fr->ramp_steps);
    if ((v = ydoc_get(f, "reselect_every")))
        spec_get_uint(c, v, "freeze.reselect_every", 1, max_steps, &fr->reselect_every);
    if ((v = ydoc_get(f, "seed")))
        spec_get_uint(c, v, "freeze.seed", 0, UINT64_MAX, &fr->seed);
    if ((v = ydoc_get(f, "select"))) {
        int r = spec_get_enum(c, v, "freeze.select", spec_select_names);
        if (r >= 0)
            fr->select = (spec_select)r;
    }
}

void spec_read_training(spec_reader *c, const ydoc_node *t)
{
    spec_training *tr = &c->s->training;
    if (!spec_check_map(c, t, "training", spec_training_keys))
        return;
    tr->present = true;
    const ydoc_node *v;
    if ((v = spec_require(c, t, "training", "batch_tokens", spec_training_keys)))
        spec_get_uint(c, v, "training.batch_tokens", 1, UINT64_C(1) << 53, &tr->batch_tokens);
    if ((v = spec_require(c, t, "training", "noise_scale_tokens", spec_training_keys)))
        spec_get_number(c, v, "training.noise_scale_tokens", 0.0, true, 1e18, &tr->noise_scale_tokens);
    if ((v = spec_require(c, t, "training", "steps", spec_training_keys))) {
        spec_get_uint(c, v, "training.steps", 1, UINT64_C(1) << 40, &tr->steps);
        tr->pos_steps = (spec_pos){v->line, v->col};
    }
    tr->freeze_noise_scale_tokens = NAN;
    if ((v = ydoc_get(t, "freeze_noise_scale_tokens")))
        spec_get_number(c, v, "training.freeze_noise_scale_tokens", 0.0, true, 1e18, &tr->freeze_noise_scale_tokens);
    if ((v = ydoc_get(t, "optimizer"))) {
        int o = spec_get_enum(c, v, "training.optimizer", optimizer_names);
        if (o >= 0)
            tr->optimizer = o == 1 ? SPEC_OPTIMIZER_SGD : SPEC_OPTIMIZER_ADAM;
    }
    tr->lr_ratio = NAN;
    tr->pilot_frozen_share = NAN;
    const ydoc_node *lr = ydoc_get(t, "lr_ratio"), *pl = ydoc_get(t, "pilot");
    /* below 2: at 2 a full step makes no progress */
    if (lr && !spec_get_number_range(c, lr, "training.lr_ratio", 0.0, false, SPEC_LR_RATIO_MAX, true, &tr->lr_ratio))
        tr->lr_ratio = NAN;
    if (lr && pl) {
        SPEC_ERR(c, pl, "training.pilot and training.lr_ratio both give the learning-rate ratio; keep one");
        return;
    }
    if (!pl || !spec_check_map(c, pl, "training.pilot", spec_pilot_keys))
        return;
    tr->pilot = true;
    tr->pos_pilot = (spec_pos){pl->line, pl->col};
    tr->pos_pilot_max_ratio = tr->pos_pilot_speedup = tr->pos_pilot;
    if ((v = spec_require(c, pl, "training.pilot", "max_ratio", spec_pilot_keys))) {
        tr->pos_pilot_max_ratio = (spec_pos){v->line, v->col};
        spec_get_number(c, v, "training.pilot.max_ratio", 0.0, true, 1.0, &tr->pilot_max_ratio);
    }
    if ((v = spec_require(c, pl, "training.pilot", "speedup", spec_pilot_keys))) {
        tr->pos_pilot_speedup = (spec_pos){v->line, v->col};
        spec_get_number(c, v, "training.pilot.speedup", 0.0, true, 1e6, &tr->pilot_speedup);
    }
}

/* freeze.max_ratio: auto chooses the cap by predicted time to quality,
 * which needs the batch regime. */
void spec_check_auto(spec_reader *c)
{
    const spec *s = c->s;
    if (s->freeze.max_ratio_auto && !s->training.present)
        diag_error(c->d, c->file, s->freeze.pos_max_ratio.line, s->freeze.pos_max_ratio.col,
                   "freeze.max_ratio: auto chooses the cap by predicted time to quality, which needs a training "
                   "section (batch_tokens, noise_scale_tokens, steps; docs/time-to-quality.md)");
}

/* A run that ends before freezing takes hold (the time-to-quality model's
 * w = warmup_steps + ramp_steps / 2, ttq.h) gains nothing from any cap:
 * said once here, where the plan's reason says it too. */
void spec_check_training_window(spec_reader *c)
{
    const spec *s = c->s;
    double w = (double)s->freeze.warmup_steps + (double)s->freeze.ramp_steps / 2.0;
    bool freezes = s->freeze.max_ratio_auto || s->freeze.max_ratio > 0.0;
    if (s->training.present && s->training.steps > 0 && freezes && !((double)s->training.steps > w))
        diag_warning(c->d, c->file, s->training.pos_steps.line, s->training.pos_steps.col,
                     "training.steps %llu ends before freezing takes hold at step %s (freeze.warmup_steps + "
                     "ramp_steps / 2): no cap can shorten this run's time to quality",
                     (unsigned long long)s->training.steps, real_shortest(w).s);
}

/* freeze_weight means something only to the weights rule: anywhere else it
 * would be silently ignored, so it is an error. */
void spec_check_freeze_weights(spec_reader *c)
{
    const spec *s = c->s;
    if (s->freeze.select == SELECT_WEIGHTS || !s->stages)
        return;
    for (size_t st = 0; st < s->n_stages; st++)
        for (size_t i = 0; s->stages[st].params && i < s->stages[st].n_params; i++) {
            const spec_param *p = &s->stages[st].params[i];
            if (p->has_freeze_weight) {
                diag_error(c->d, c->file, p->pos_freeze_weight.line, p->pos_freeze_weight.col,
                           "freeze_weight is used only with freeze.select: weights (select is %s)",
                           spec_select_name(s->freeze.select));
                return;
            }
        }
}
