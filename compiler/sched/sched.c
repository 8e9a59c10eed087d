/* sched: what every schedule shares: the action index and the
 * completeness check. */
#include "sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char sched_act_letter(act_type t) { return "FBIW"[t]; }

const char *sched_action_name(const sched *s, size_t i, char *buf, size_t cap)
{
    const sched_action *a = &s->actions[i];
    snprintf(buf, cap, "%u%c%u", a->stage, sched_act_letter((act_type)a->type), a->mb);
    return buf;
}

void sched_write_rank(const sched *s, uint32_t r, FILE *f)
{
    char a[32], b[32];
    for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++) {
        if (i > s->rank_start[r])
            fputc(',', f);
        if (s->actions[i].pair == SCHED_PAIR_FIRST && i + 1 < s->rank_start[r + 1]) {
            fprintf(f, "(%s;%s)OVERLAP_F_B", sched_action_name(s, i, a, sizeof a),
                    sched_action_name(s, i + 1, b, sizeof b));
            i++;
        } else {
            fputs(sched_action_name(s, i, a, sizeof a), f);
        }
    }
}

/* Where to report a problem with action i: its CSV cell, or the file. */
static void report(diag_list *d, const sched *s, const char *file, size_t i, const char *msg, const char *name)
{
    unsigned line = 0, col = 0;
    if (s->src && i != SIZE_MAX) {
        line = s->src[i].line;
        col = s->src[i].col;
    }
    diag_error(d, file, line, col, msg, name);
}

bool sched_index(sched *s, arena *a, diag_list *d, const char *file)
{
    size_t before = diag_count(d);
    size_t slots = (size_t)ACT_TYPES * s->n_stages * s->microbatches;
    s->index = arena_alloc_array(a, slots, sizeof *s->index);
    s->rank_of = arena_alloc_array(a, s->n_actions ? s->n_actions : 1, sizeof *s->rank_of);
    if (!s->index || !s->rank_of) {
        diag_nomem(d, "indexing %zu actions", s->n_actions);
        return false;
    }
    memset(s->index, 0xFF, slots * sizeof *s->index); /* SCHED_NONE */
    char name[32], msg[160];
    /* Each stage's first action, to point at when one of its (stage, mb)
     * pairs has no action at all. */
    size_t *first = malloc((s->n_stages ? s->n_stages : 1) * sizeof *first);
    if (!first) {
        diag_nomem(d, "indexing %zu actions", s->n_actions);
        return false;
    }
    for (uint32_t st = 0; st < s->n_stages; st++)
        first[st] = SIZE_MAX;
    for (size_t i = s->n_actions; i-- > 0;)
        first[s->actions[i].stage] = i;
    for (uint32_t r = 0; r < s->ranks; r++) {
        for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++) {
            const sched_action *act = &s->actions[i];
            s->rank_of[i] = r;
            sched_action_name(s, i, name, sizeof name);
            bool first_ok = act->pair != SCHED_PAIR_FIRST ||
                            (i + 1 < s->rank_start[r + 1] && s->actions[i + 1].pair == SCHED_PAIR_SECOND);
            bool second_ok = act->pair != SCHED_PAIR_SECOND || (i > s->rank_start[r] && s->actions[i - 1].pair == SCHED_PAIR_FIRST);
            if (!first_ok || !second_ok)
                report(d, s, file, i, "action %s is half of an overlapped pair without the other half next to it", name);
            if (s->stage_rank[act->stage] != r) {
                snprintf(msg, sizeof msg, "action %%s runs stage %u on rank %u, but stage %u runs on rank %u",
                         act->stage, r, act->stage, s->stage_rank[act->stage]);
                report(d, s, file, i, msg, name);
                continue;
            }
            uint32_t *slot = &s->index[((size_t)act->type * s->n_stages + act->stage) * s->microbatches + act->mb];
            if (*slot != SCHED_NONE) {
                report(d, s, file, i, "action %s appears twice", name);
                continue;
            }
            *slot = (uint32_t)i;
        }
    }
    /* Each (stage, mb): one F, and either one B or one I and one W. */
    for (uint32_t st = 0; st < s->n_stages && !diag_full(d); st++) {
        for (uint32_t mb = 0; mb < s->microbatches && !diag_full(d); mb++) {
            bool f = sched_find(s, ACT_F, st, mb) != SCHED_NONE, b = sched_find(s, ACT_B, st, mb) != SCHED_NONE;
            bool in = sched_find(s, ACT_I, st, mb) != SCHED_NONE, w = sched_find(s, ACT_W, st, mb) != SCHED_NONE;
            const char *problem = NULL;
            if (!f)
                problem = "has no forward F";
            else if (b && (in || w))
                problem = "has both a full backward B and a split one (I/W)";
            else if (!b && !in && !w)
                problem = "has no backward (B, or I and W)";
            else if (!b && !in)
                problem = "has a weight-gradient W but no input-gradient I";
            else if (!b && !w)
                problem = "has an input-gradient I but no weight-gradient W";
            if (problem) {
                snprintf(msg, sizeof msg, "stage %u microbatch %u %s", st, mb, problem);
                /* Point at an action of this (stage, mb), else at the stage's first. */
                size_t at = first[st];
                for (int t = 0; t < ACT_TYPES; t++)
                    if (sched_find(s, (act_type)t, st, mb) != SCHED_NONE) {
                        at = sched_find(s, (act_type)t, st, mb);
                        break;
                    }
                report(d, s, file, at, "%s", msg);
            }
        }
    }
    free(first);
    return diag_count(d) == before;
}
