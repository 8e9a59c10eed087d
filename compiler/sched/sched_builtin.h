/* sched_builtin: the built-in schedules (GPipe, 1F1B, Interleaved1F1B, ZBH1,
 * ZBV) as per-rank orders equal to PyTorch's (docs/schedules.md). */
#ifndef TFC_SCHED_BUILTIN_H
#define TFC_SCHED_BUILTIN_H

#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "sched.h"
#include "spec.h"

/* A built-in schedule for (ranks, stages_per_rank, microbatches), without a
 * spec: the generators alone. A configuration the schedule refuses is
 * TFC_INVALID with the reason filed at file:at (file NULL: no file). */
tfc_status sched_builtin(spec_schedule kind, uint32_t ranks, uint32_t stages_per_rank, uint32_t microbatches,
                         arena *a, diag_list *d, const char *file, spec_pos at, sched **out);

#endif
