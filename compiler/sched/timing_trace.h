/* timing_trace: Chrome trace files as measured timings
 * (timing.source: trace; docs/spec.md). */
#ifndef TFC_TIMING_TRACE_H
#define TFC_TIMING_TRACE_H

#include "diag.h"
#include "sched.h"
#include "spec.h"
#include "timing_samples.h"

/* Reads a Chrome trace (timing.source: trace): every complete event ("ph":
 * "X") named PP:<stage><type><microbatch> is a sample of that action, its
 * "dur" in microseconds. Errors at FILE:LINE:COL. */
tfc_status timing_trace_read(const spec *sp, const sched *s, const char *path, spec_pos named_at, const char *key,
                              samples *out, diag_list *d);

#endif
