/* timing_csv: timing.source: measured (and trace). Per-action durations
 * from CSV files of samples (docs/spec.md, "Measured timings"): rows
 * rank,stage,microbatch,type,duration_ms, any number of samples per action,
 * an optional header row; the median of each action's samples is its
 * duration, from timing.file with nothing frozen (w_max) and from
 * timing.frozen_file with everything frozen (w_min, for B and W). Each key
 * names one file or a list of them; a list's samples are pooled. */
#ifndef TFC_TIMING_CSV_H
#define TFC_TIMING_CSV_H

#include <stdbool.h>

#include "arena.h"
#include "diag.h"
#include "sched.h"
#include "spec.h"

/* Fills dur and w_min per action of s. Problems (unreadable files,
 * malformed rows, actions the schedule does not have or runs on another
 * rank, actions without samples, a frozen median longer than the unfrozen
 * one) are errors at FILE:LINE:COL; returns TFC_INVALID or TFC_IO. */
tfc_status timing_csv_load(const spec *sp, const sched *s, arena *a, double *dur, double *w_min, diag_list *d);

#endif
