/* plan_print: text and JSON renderings of a plan. Output depends only on
 * the plan: same spec, same tfc, same bytes. */
#include "plan_print.h"

#include "json.h"
#include "version.h"

void plan_print_text(const plan *p, FILE *f)
{
    const spec *sp = p->sp;
    const sched *s = p->s;
    fprintf(f, "%s: %s, %u rank%s x %u stage%s per rank, %u microbatches, %zu actions\n", sp->name,
            spec_schedule_name(sp->schedule), sp->ranks, sp->ranks == 1 ? "" : "s", sp->stages_per_rank,
            sp->stages_per_rank == 1 ? "" : "s", sp->microbatches, s->n_actions);
    fprintf(f, "baseline makespan  %.3f ms (nothing frozen)\n", p->base.makespan);
    fprintf(f, "rank    busy ms    idle ms  bubble\n");
    for (uint32_t r = 0; r < s->ranks; r++)
        fprintf(f, "%4u %10.3f %10.3f  %5.1f%%\n", r, p->base.busy[r], p->base.idle[r], 100.0 * p->base.bubble[r]);
}

void plan_print_json(const plan *p, FILE *f)
{
    const spec *sp = p->sp;
    const sched *s = p->s;
    fputs("{\n  \"tfc_version\": ", f);
    json_string(f, version_string());
    fputs(",\n  \"name\": ", f);
    json_string(f, sp->name);
    fputs(",\n  \"schedule\": ", f);
    json_string(f, spec_schedule_name(sp->schedule));
    fprintf(f, ",\n  \"ranks\": %u,\n  \"stages\": %u,\n  \"microbatches\": %u,\n  \"comm_ms\": ", s->ranks,
            s->n_stages, s->microbatches);
    json_number(f, sp->timing.comm_ms);
    fputs(",\n  \"baseline_makespan_ms\": ", f);
    json_number(f, p->base.makespan);
    fputs(",\n  \"rank_stats\": [", f);
    for (uint32_t r = 0; r < s->ranks; r++) {
        fprintf(f, "%s\n    {\"rank\": %u, \"busy_ms\": ", r ? "," : "", r);
        json_number(f, p->base.busy[r]);
        fputs(", \"idle_ms\": ", f);
        json_number(f, p->base.idle[r]);
        fputs(", \"bubble_ratio\": ", f);
        json_number(f, p->base.bubble[r]);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"actions\": [", f);
    for (size_t i = 0; i < s->n_actions; i++) {
        const sched_action *x = &s->actions[i];
        fprintf(f, "%s\n    {\"rank\": %u, \"stage\": %u, \"microbatch\": %u, \"type\": \"%c\", \"start_ms\": ",
                i ? "," : "", s->rank_of[i], x->stage, x->mb, sched_act_letter((act_type)x->type));
        json_number(f, p->base.start[i]);
        fputs(", \"duration_ms\": ", f);
        json_number(f, p->dur[i]);
        fputc('}', f);
    }
    fputs("\n  ]\n}\n", f);
}
