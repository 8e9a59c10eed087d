/* sched_csv: custom schedules from PyTorch's compute-only CSV: one row per
 * rank, one action per cell ("0F0", "1B3", "2I0", "2W0"; stage, type,
 * microbatch), empty cells for idle slots. */
#ifndef TFC_SCHED_CSV_H
#define TFC_SCHED_CSV_H

#include <stdbool.h>

#include "arena.h"
#include "diag.h"
#include "sched.h"
#include "spec.h"

/* Reads sp->order (relative paths are taken from the spec's folder). Each
 * stage runs on the rank of the row it first appears in; errors name the
 * CSV's line and column. TFC_IO when the file cannot be read. */
tfc_status sched_csv_read(const spec *sp, arena *a, diag_list *d, sched **out);

/* The same for CSV text already in memory; file names it in messages. */
bool sched_csv_parse(const spec *sp, const char *file, const char *buf, size_t len, arena *a, diag_list *d,
                     sched **out);

#endif
