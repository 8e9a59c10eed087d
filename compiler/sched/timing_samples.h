/* timing_samples: duration samples per action, as the measured-timing
 * readers collect them (timing_csv.c reads CSV files, timing_trace.c
 * Chrome traces); timing_csv.c takes the medians. */
#ifndef TFC_TIMING_SAMPLES_H
#define TFC_TIMING_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "sched.h"
#include "spec.h"

typedef struct sample {
    uint32_t action;
    uint32_t file; /* which of the key's files (timing_csv.c sets it), and */
    uint32_t line; /* the line it was read at, for messages about the action */
    double ms;
    double start_us; /* traces: when it started, on the clock the key's files share; NAN unknown */
} sample;

/* The files of one key (timing.file, timing.frozen_file) hold at most this
 * many samples. Checked after each file, so a list of files costs no more
 * memory than this plus one file's samples; a single file never reaches it
 * (a 64 MiB CSV holds fewer than 7 million rows). */
#define TIMING_MAX_SAMPLES (1u << 23)

typedef struct samples {
    sample *v;
    size_t n, cap;
} samples;

bool samples_push(samples *s, sample x);

/* Samples taken while the ranks shared `processors` processors (pipeline.
 * processors), each turned into the time it would have taken alone: under
 * fair sharing, an action running beside k - 1 others for dt did
 * dt * min(1, processors / k) of its work, k counted over every sample with
 * a start (the key's files, all on one clock, as one run's per-rank traces
 * are). So each ms becomes the integral of min(1, processors / k(t)) over
 * its interval. Samples without a start keep their ms. False when memory
 * runs out (the samples unchanged). */
bool samples_shared_work(samples *s, uint32_t processors);

/* Reads one timing file (path, named by timing.KEY at named_at in the spec;
 * KEY is "file[2]" for the third path of a list) into a malloc'd buffer and
 * records its sha256 for the MANIFEST (spec_input_read); on failure the
 * error carries a note pointing at the spec. TFC_OK, TFC_INVALID (too large)
 * or TFC_IO. */
tfc_status timing_read_input(const spec *sp, const char *path, spec_pos named_at, const char *key, char **buf,
                              size_t *len, diag_list *d);

/* Which backwards the schedule runs: "backward as one B", "backward split
 * into I and W", or, for one that runs both (DualPipeV, a custom order),
 * "backward as B for some microbatches, I and W for others". */
const char *timing_backward_kinds(const sched *s);

/* Why a sample of (t, stage, mb), both in range, names no action of the
 * schedule, into buf: the backward it runs there instead, a full B where I
 * or W was given, I and W where B was ("the schedule runs a full backward B
 * for stage 0 microbatch 0 (0B0), not I and W: ..."). Every (stage, mb) has
 * an F and either a B or an I and a W (sched_index), so that is the only
 * way to miss. */
const char *timing_no_action(const sched *s, act_type t, uint32_t stage, uint32_t mb, char *buf, size_t cap);

#endif
