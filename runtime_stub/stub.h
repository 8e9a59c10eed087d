/* stub: a pipeline executor with simulated compute, for checking a
 * generated plan on real execution. One thread per rank runs that rank's
 * program; activations and gradients travel as messages through bounded
 * per-rank queues (a rank blocks until an action's inputs have arrived);
 * each action "computes" by sleeping until an absolute deadline, its start
 * plus its duration, so many ranks share few cores. Durations come from the
 * caller (the generated masks decide the backward ones), every action's for
 * a step before that step's clock starts. */
#ifndef TFC_STUB_H
#define TFC_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { STUB_F = 0, STUB_B = 1, STUB_I = 2, STUB_W = 3 };

typedef struct stub_action {
    uint32_t stage, microbatch, type; /* STUB_F .. STUB_W, as the generated programs */
} stub_action;

typedef struct stub_plan {
    uint32_t ranks, stages, microbatches;
    const stub_action *program;     /* every rank's program, rank 0's first */
    const uint32_t *program_start;  /* ranks + 1 offsets */
    const uint32_t *stage_rank;     /* stages */
    double comm_ms;                 /* latency of every message between ranks */
} stub_plan;

/* The duration in ms of program action i at a training step. */
typedef double (*stub_duration_fn)(void *ctx, size_t i, uint64_t step);

typedef struct stub_step {
    double makespan_ms;  /* measured: first start to last end, wall clock, in plan ms */
    double *busy_ms;     /* per rank (caller-sized: ranks) */
    double *bubble;      /* per rank: 1 - busy / makespan */
} stub_step;

/* Runs one step at time_scale real seconds per plan second (e.g. 0.5 runs
 * a 10 ms forward in 5 ms). False with a reason on a schedule that cannot
 * run (an input that never comes: a deadlock) or a system failure. */
bool stub_run_step(const stub_plan *p, stub_duration_fn dur, void *ctx, uint64_t step, double time_scale,
                   stub_step *out, char *why, size_t cap);

#endif
