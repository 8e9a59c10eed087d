/* rules: predecessors from the schedule's definition, for test oracles. */
#include "rules.h"

unsigned rules_preds(const sched *s, uint32_t v, uint32_t out[3])
{
    const sched_action *x = &s->actions[v];
    uint32_t rank = s->stage_rank[x->stage];
    unsigned k = 0;
    if (v > s->rank_start[rank])
        out[k++] = v - 1;
    if (x->type == ACT_F && x->stage > 0)
        out[k++] = sched_find(s, ACT_F, x->stage - 1, x->mb);
    if (x->type == ACT_B || x->type == ACT_I) {
        out[k++] = sched_find(s, ACT_F, x->stage, x->mb);
        if (x->stage + 1 < s->n_stages) {
            uint32_t u = sched_find(s, ACT_B, x->stage + 1, x->mb);
            out[k++] = u != SCHED_NONE ? u : sched_find(s, ACT_I, x->stage + 1, x->mb);
        }
    }
    if (x->type == ACT_W)
        out[k++] = sched_find(s, ACT_I, x->stage, x->mb);
    return k;
}
