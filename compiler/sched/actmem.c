/* actmem: one pass over each rank's program. */
#include "actmem.h"

bool actmem_peaks(const sched *s, const spec *sp, uint32_t *peak_sets, uint64_t *peak_bytes)
{
    bool all_bytes = sp->n_stages > 0;
    for (size_t st = 0; st < sp->n_stages; st++)
        all_bytes = all_bytes && sp->stages[st].has_activation_bytes;
    for (uint32_t r = 0; r < s->ranks; r++) {
        uint32_t held = 0, most = 0;
        uint64_t bytes = 0, most_bytes = 0;
        for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++) {
            const sched_action *x = &s->actions[i];
            uint64_t b = x->stage < sp->n_stages ? sp->stages[x->stage].activation_bytes : 0;
            if (x->type == ACT_F) {
                held++;
                bytes += b;
                most = held > most ? held : most;
                most_bytes = bytes > most_bytes ? bytes : most_bytes;
            } else if (x->type == ACT_W || (x->type == ACT_B && sched_find(s, ACT_W, x->stage, x->mb) == SCHED_NONE)) {
                /* The set's last user: W, or B when there is no W. */
                held--;
                bytes -= b;
            }
        }
        peak_sets[r] = most;
        peak_bytes[r] = most_bytes;
    }
    return all_bytes;
}
