/* pipe: one training step of the two-stage model, run the way the plan
 * says: one thread per rank walking the generated per-rank program,
 * activations and gradients handed over as messages (a rank blocks until
 * the microbatch's input has arrived), every action timed. The same
 * actions also run on one thread in plain microbatch order
 * (pipe_step_sequential), the reference the pipelined step must match bit
 * for bit. */
#ifndef TINY_PIPE_H
#define TINY_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct pipe_action {
    uint32_t stage, microbatch, type; /* type: 0 F, 1 B (as the generated program) */
} pipe_action;

typedef enum { FREEZE_PLAN, FREEZE_NONE, FREEZE_ALL } freeze_mode;

typedef uint64_t (*mask_fn)(uint32_t stage, uint32_t microbatch, uint64_t step, uint64_t *mask);

typedef struct pipe_step_io {
    /* in */
    stage_model *sm[MODEL_STAGES];
    const pipe_action *program;
    const uint32_t *program_start; /* ranks + 1; rank r runs stage r */
    uint32_t microbatches;
    mask_fn mask;
    freeze_mode mode;
    uint64_t step;                 /* the step the masks are drawn for */
    /* out, per program action: start and end in ms from the step's start */
    double *start_ms, *end_ms;
    double makespan_ms;
    uint64_t frozen_numel[MODEL_STAGES]; /* summed over microbatches */
} pipe_step_io;

/* Forward and backward of every microbatch (gradients accumulate into the
 * stages' grad; the caller zeroes them and steps the optimiser). False
 * when a thread cannot start. */
bool pipe_step(pipe_step_io *io);
void pipe_step_sequential(pipe_step_io *io);

#endif
