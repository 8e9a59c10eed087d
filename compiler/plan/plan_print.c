/* plan_print: text and JSON renderings of a plan. Output depends only on
 * the plan: same spec, same tfc, same bytes (no timings of tfc itself). */
#include "plan_print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "real.h"
#include "select.h"
#include "ttq.h"
#include "version.h"

/* Milliseconds to 3 decimals, unless those would print a step of under a
 * microsecond as 0.000: then in full. */
static real_text ms_text(double ms)
{
    return ms > 0.0 && ms < 0.0005 ? real_shortest(ms) : real_fixed(ms, 3);
}

/* A learning-rate ratio to 4 decimals, unless those round it to the bound
 * the spec refuses (2): then in full. */
static real_text lr_text(double k)
{
    real_text t = real_fixed(k, 4);
    return k < TTQ_LR_RATIO_MAX && strtod(t.s, NULL) >= TTQ_LR_RATIO_MAX ? real_shortest(k) : t;
}

void plan_print_text(const plan *p, FILE *f)
{
    const spec *sp = p->sp;
    const sched *s = p->s;
    fprintf(f, "%s: %s, %u rank%s x %u stage%s per rank, %u microbatch%s, %zu actions\n", sp->name,
            spec_schedule_name(sp->schedule), sp->ranks, sp->ranks == 1 ? "" : "s", sp->stages_per_rank,
            sp->stages_per_rank == 1 ? "" : "s", sp->microbatches, sp->microbatches == 1 ? "" : "es", s->n_actions);
    fprintf(f, "baseline makespan   %10s ms  (nothing frozen)\n", ms_text(p->base.makespan).s);
    fprintf(f, "optimised makespan  %10s ms  (policy %s, freeze.max_ratio %s)\n", ms_text(p->opt.makespan).s,
            plan_policy_name(p->policy), real_shortest(sp->freeze.max_ratio).s);
    fprintf(f, "speed-up            %10sx\n",
            real_fixed(p->opt.makespan > 0 ? p->base.makespan / p->opt.makespan : 1.0, 4).s);
    if (p->shared)
        fprintf(f, "on %u processors    %10s ms -> %s ms, speed-up %sx (pipeline.processors: %u ranks share them; "
                   "the lines above give each rank its own)\n",
                sp->processors, ms_text(p->shared_base_makespan).s, ms_text(p->shared_opt_makespan).s,
                real_fixed(p->shared_opt_makespan > 0 ? p->shared_base_makespan / p->shared_opt_makespan : 1.0, 4).s,
                s->ranks);
    if (p->ttq_known) {
        fprintf(f, "time to quality     %10sx predicted (beta %s; %s)\n", real_fixed_apart(p->ttq_speedup, 4, 1.0).s,
                plan_beta_text(p->ttq_beta, p->ttq_break_even).s, p->ttq_reason);
        if (p->ttq_frozen_share > 0.0)
            fprintf(f, "at most             %10sx at any learning rate (lr_ratio 0: the rate, not the noise, limits "
                       "the run; optimiser %s%s%s)\n",
                    real_fixed_apart(p->ttq_upper_bound, 4, 1.0).s, ttq_optimizer_name(p->ttq_optimizer),
                    p->ttq_bound_beta < p->ttq_beta ? "; beta where freezing starts " : "",
                    p->ttq_bound_beta < p->ttq_beta ? real_brief(p->ttq_bound_beta).s : "");
        else
            fprintf(f, "at most             %10sx (nothing is frozen%s)\n",
                    real_fixed_apart(p->ttq_upper_bound, 4, 1.0).s,
                    p->ttq_auto && strstr(p->ttq_reason, "; at most ")
                        ? " at the cap auto chose; the reason above says what another cap could buy" : "");
    } else
        fprintf(f, "time to quality     not predicted: the spec has no training section (batch_tokens, "
                   "noise_scale_tokens, steps; docs/time-to-quality.md)\n");
    if (p->ttq_known && !isnan(p->ttq_lr_ratio)) {
        const spec_training *t = &sp->training;
        fprintf(f, "learning-rate ratio %10s   (%s%s%s%s; optimiser %s; docs/time-to-quality.md)\n",
                lr_text(p->ttq_lr_ratio).s, t->pilot ? "from the pilot's speed-up " : "training.lr_ratio",
                t->pilot ? real_shortest(t->pilot_speedup).s : "", t->pilot ? "x at cap " : "",
                t->pilot ? real_shortest(t->pilot_max_ratio).s : "", ttq_optimizer_name(p->ttq_optimizer));
    } else if (p->ttq_known && p->ttq_frozen_share > 0.0)
        /* Without k the model takes each run at its own best rate; with each
         * batch size's own k it fitted every measured run, and no formula
         * over the spec's keys gave k (docs/time-to-quality.md, "Is the run
         * shape or k the limit?", has the figures). */
        fprintf(f, "learning-rate ratio %10s   (each run at its own best rate: the input this prediction lacks; "
                   "a pilot pair, training.pilot, measures it; docs/time-to-quality.md)\n", "not given");
    if (p->ttq_known)
        fprintf(f, "optimiser contract  %s (beta %s 1; docs/optimizer-contract.md)\n",
                p->ttq_rescale ? "mean: rescale each tensor's gradient over the microbatches that computed it"
                               : "share: accumulate shares, never rescale",
                p->ttq_rescale ? "below" : "at or above");
    if (p->ttq_auto)
        fprintf(f, "note: freeze.max_ratio: auto chose %s\n", real_shortest(sp->freeze.max_ratio).s);
    if (p->lp_used && p->lp.t_star > p->lp.t_star_uncapped * (1 + 1e-9) + 1e-9)
        fprintf(f, "note: freeze.max_action_ratio %s lengthens the step: %s ms instead of %s ms\n",
                real_shortest(sp->freeze.max_action_ratio).s, ms_text(p->lp.t_star).s,
                ms_text(p->lp.t_star_uncapped).s);
    if (p->lp_used && p->lp.balance_incomplete)
        fprintf(f, "note: phase 3 (freeze.balance) ran past --lp-timeout: this is phase 2's plan (the same makespan and "
                   "total freezing), not balanced\n");
    fprintf(f, "stage  freezable  mean freeze   max     min     fully frozen  partly frozen\n");
    for (uint32_t st = 0; st < s->n_stages; st++)
        fprintf(f, "%5u  %9zu  %11s  %6s  %6s  %12zu  %13zu\n", st, p->stage_freezable[st],
                real_fixed(p->stage_mean[st], 4).s, real_fixed(p->stage_max[st], 4).s,
                real_fixed(p->stage_min[st], 4).s, p->stage_full[st], p->stage_partial[st]);
    fprintf(f, "rank  baseline bubble  optimised bubble  activations held at peak\n");
    for (uint32_t r = 0; r < s->ranks; r++) {
        fprintf(f, "%4u  %14s%%  %15s%%  %8u %s", r, real_fixed(100.0 * p->base.bubble[r], 1).s,
                real_fixed(100.0 * p->opt.bubble[r], 1).s, p->act_peak_sets[r],
                p->act_peak_sets[r] == 1 ? "set" : "sets");
        if (p->act_bytes_known)
            fprintf(f, ", %s", real_bytes(p->act_peak_bytes[r]).s);
        if (p->act_bytes_known && p->sp->has_memory_limit && p->act_peak_bytes[r] > p->sp->memory_limit_bytes)
            fputs("  over pipeline.memory_limit_bytes", f);
        fputc('\n', f);
    }
}

static void rank_stats(FILE *f, const char *key, const plan *p, const sim_result *r)
{
    fprintf(f, ",\n  \"%s\": [", key);
    for (uint32_t k = 0; k < p->s->ranks; k++) {
        fprintf(f, "%s\n    {\"rank\": %u, \"busy_ms\": ", k ? "," : "", k);
        json_number(f, r->busy[k]);
        fputs(", \"idle_ms\": ", f);
        json_number(f, r->idle[k]);
        fputs(", \"bubble_ratio\": ", f);
        json_number(f, r->bubble[k]);
        fputc('}', f);
    }
    fputs("\n  ]", f);
}

/* ",\n  \"key\": number" at the top level of the object. */
static void top_number(FILE *f, const char *key, double v)
{
    fprintf(f, ",\n  \"%s\": ", key);
    json_number(f, v);
}

void plan_print_json(const plan *p, FILE *f)
{
    const spec *sp = p->sp;
    const sched *s = p->s;
    fputs("{\n  \"format\": \"" PLAN_JSON_FORMAT "\",\n  \"tfc_version\": ", f);
    json_string(f, version_string());
    fputs(",\n  \"name\": ", f);
    json_string(f, sp->name);
    fputs(",\n  \"spec_sha256\": ", f);
    json_string(f, sp->sha256);
    fputs(",\n  \"schedule\": ", f);
    json_string(f, spec_schedule_name(sp->schedule));
    fprintf(f, ",\n  \"ranks\": %u,\n  \"stage_count\": %u,\n  \"microbatches\": %u", s->ranks, s->n_stages,
            s->microbatches);
    top_number(f, "comm_ms", sp->timing.comm_ms);
    fputs(",\n  \"policy\": ", f);
    json_string(f, plan_policy_name(p->policy));
    top_number(f, "max_ratio", sp->freeze.max_ratio);
    fprintf(f, ",\n  \"freeze\": {\"warmup_steps\": %llu, \"ramp_steps\": %llu, \"reselect_every\": %llu, "
               "\"seed\": %llu, \"select\": ",
            (unsigned long long)sp->freeze.warmup_steps, (unsigned long long)sp->freeze.ramp_steps,
            (unsigned long long)sp->freeze.reselect_every, (unsigned long long)sp->freeze.seed);
    json_string(f, spec_select_name(sp->freeze.select));
    fputc('}', f);
    bool weighted = sp->freeze.select == SELECT_FRONT_FIRST || sp->freeze.select == SELECT_WEIGHTS;
    fputs(",\n  \"stage_params\": [", f);
    for (size_t st = 0; st < sp->n_stages; st++) {
        fprintf(f, "%s\n    [", st ? "," : "");
        for (size_t i = 0; i < sp->stages[st].n_params; i++) {
            fputs(i ? ", {\"name\": " : "{\"name\": ", f);
            json_string(f, sp->stages[st].params[i].name);
            fprintf(f, ", \"numel\": %llu", (unsigned long long)sp->stages[st].params[i].numel);
            if (weighted)
                fprintf(f, ", \"weight\": %llu",
                        (unsigned long long)select_weight(sp->freeze.select, &sp->stages[st], i));
            fputc('}', f);
        }
        fputc(']', f);
    }
    fputs("\n  ]", f);
    top_number(f, "baseline_makespan_ms", p->base.makespan);
    top_number(f, "makespan_ms", p->opt.makespan);
    top_number(f, "speedup", p->opt.makespan > 0 ? p->base.makespan / p->opt.makespan : 1.0);
    if (p->shared) {
        fprintf(f, ",\n  \"shared\": {\"processors\": %u, \"baseline_makespan_ms\": ", sp->processors);
        json_number(f, p->shared_base_makespan);
        fputs(", \"makespan_ms\": ", f);
        json_number(f, p->shared_opt_makespan);
        fputs(", \"speedup\": ", f);
        json_number(f, p->shared_opt_makespan > 0 ? p->shared_base_makespan / p->shared_opt_makespan : 1.0);
        fputc('}', f);
    }
    if (p->ttq_known) {
        const spec_training *t = &sp->training;
        fputs(",\n  \"time_to_quality\": {\"beta\": ", f);
        json_number(f, p->ttq_beta);
        fputs(", \"predicted_speedup\": ", f);
        json_number(f, p->ttq_speedup);
        fputs(", \"cap\": ", f);
        json_number(f, sp->freeze.max_ratio);
        fprintf(f, ", \"auto\": %s, \"reason\": ", p->ttq_auto ? "true" : "false");
        json_string(f, p->ttq_reason);
        fprintf(f, ", \"batch_tokens\": %llu, \"noise_scale_tokens\": ", (unsigned long long)t->batch_tokens);
        json_number(f, t->noise_scale_tokens);
        fprintf(f, ", \"steps\": %llu, \"frozen_share\": ", (unsigned long long)t->steps);
        json_number(f, p->ttq_frozen_share);
        fputs(", \"step_ratio\": ", f);
        json_number(f, p->ttq_step_ratio);
        fputs(", \"break_even_beta\": ", f);
        json_number(f, p->ttq_break_even < 0 ? NAN : p->ttq_break_even); /* null: none, or any beta pays */
        fprintf(f, ", \"optimizer_contract\": \"%s\"", p->ttq_rescale ? "mean" : "share");
        fputs(", \"upper_bound\": ", f);
        json_number(f, p->ttq_upper_bound);
        if (!isnan(t->freeze_noise_scale_tokens)) { /* as the spec gave it */
            fputs(", \"freeze_noise_scale_tokens\": ", f);
            json_number(f, t->freeze_noise_scale_tokens);
        }
        fprintf(f, ", \"optimizer\": \"%s\"", ttq_optimizer_name(p->ttq_optimizer));
        if (!isnan(p->ttq_lr_ratio)) { /* only with training.lr_ratio or .pilot */
            fputs(", \"lr_ratio\": ", f);
            json_number(f, p->ttq_lr_ratio);
            if (t->pilot) {
                fputs(", \"pilot\": {\"max_ratio\": ", f);
                json_number(f, t->pilot_max_ratio);
                fputs(", \"speedup\": ", f);
                json_number(f, t->pilot_speedup);
                fputc('}', f);
            }
        }
        fputc('}', f);
    }
    if (p->lp_used) {
        fprintf(f, ",\n  \"lp\": {\"rows\": %d, \"cols\": %d, \"nonzeros\": %lld, \"t_star_ms\": ", p->lp.rows,
                p->lp.cols, p->lp.nonzeros);
        json_number(f, p->lp.t_star);
        fputs(", \"t_star_uncapped_ms\": ", f);
        json_number(f, p->lp.t_star_uncapped);
        fputs(", \"total_freeze\": ", f);
        json_number(f, p->lp.total_freeze);
        fputs(", \"balance\": ", f);
        json_string(f, p->sp->freeze.balance == BALANCE_MINMAX    ? "minmax"
                       : p->sp->freeze.balance == BALANCE_LEXIMIN ? "leximin"
                                                                  : "none");
        fprintf(f, ", \"balance_complete\": %s}", p->lp.balance_incomplete || p->lp.balance_failed ? "false" : "true");
    }
    fputs(",\n  \"stages\": [", f);
    for (uint32_t st = 0; st < s->n_stages; st++) {
        fprintf(f, "%s\n    {\"stage\": %u, \"rank\": %u, \"freezable_actions\": %zu, \"mean_freeze_ratio\": ",
                st ? "," : "", st, s->stage_rank[st], p->stage_freezable[st]);
        json_number(f, p->stage_mean[st]);
        fputs(", \"max_freeze_ratio\": ", f);
        json_number(f, p->stage_max[st]);
        fputs(", \"min_freeze_ratio\": ", f);
        json_number(f, p->stage_min[st]);
        fprintf(f, ", \"fully_frozen_actions\": %zu, \"partially_frozen_actions\": %zu}", p->stage_full[st],
                p->stage_partial[st]);
    }
    fputs("\n  ]", f);
    rank_stats(f, "rank_stats", p, &p->base);
    rank_stats(f, "optimised_rank_stats", p, &p->opt);
    fputs(",\n  \"activation_memory\": [", f);
    for (uint32_t r = 0; r < s->ranks; r++) {
        fprintf(f, "%s\n    {\"rank\": %u, \"peak_sets\": %u, \"peak_bytes\": ", r ? "," : "", r, p->act_peak_sets[r]);
        if (p->act_bytes_known)
            fprintf(f, "%llu}", (unsigned long long)p->act_peak_bytes[r]);
        else
            fputs("null}", f);
    }
    fputs("\n  ]", f);
    fputs(",\n  \"actions\": [", f);
    for (size_t i = 0; i < s->n_actions; i++) {
        const sched_action *x = &s->actions[i];
        fprintf(f, "%s\n    {\"rank\": %u, \"stage\": %u, \"microbatch\": %u, \"type\": \"%c\", \"start_ms\": ",
                i ? "," : "", s->rank_of[i], x->stage, x->mb, sched_act_letter((act_type)x->type));
        json_number(f, p->opt.start[i]);
        fputs(", \"duration_ms\": ", f);
        json_number(f, p->opt_dur[i]);
        fputs(", \"freeze_ratio\": ", f);
        json_number(f, p->x[i]);
        fputs(", \"baseline_start_ms\": ", f);
        json_number(f, p->base.start[i]);
        fputs(", \"baseline_duration_ms\": ", f);
        json_number(f, p->dur[i]);
        fputc('}', f);
    }
    fputs("\n  ]\n}\n", f);
}
