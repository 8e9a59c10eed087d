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
 * "dur" in microseconds, its "ts" the sample's start_us. *base_ns gets the
 * file's "baseTimeNanoseconds" (torch.profiler's: its ts count from it) and
 * *has_base whether it has one (a non-negative integer up to 2^62).
 * Errors at FILE:LINE:COL. */
tfc_status timing_trace_read(const spec *sp, const sched *s, const char *path, spec_pos named_at, const char *key,
                              samples *out, int64_t *base_ns, bool *has_base, diag_list *d);

#endif
