/* sched_build: the choice between built-in and custom orders. */
#include "sched_build.h"

#include "sched_builtin.h"
#include "sched_csv.h"

tfc_status sched_build(const spec *sp, arena *a, diag_list *d, sched **out)
{
    *out = NULL;
    if (sp->schedule == SCHED_CUSTOM)
        return sched_csv_read(sp, a, d, out);
    return sched_builtin(sp->schedule, sp->ranks, sp->stages_per_rank, sp->microbatches, a, d, sp->path,
                         sp->pos_microbatches, out);
}
