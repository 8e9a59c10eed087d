/* pipe: a step on two rank threads with message passing, or on one. */
#define _POSIX_C_SOURCE 200809L
#include "pipe.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_MB = 64, MASK_WORDS = 1 };
_Static_assert(MAX_TENSORS <= 64 * MASK_WORDS, "a stage's tensors fit one mask word");

typedef struct box {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    real *act[MAX_MB], *grad[MAX_MB]; /* stage 0 -> 1, stage 1 -> 0 */
    bool act_ready[MAX_MB], grad_ready[MAX_MB];
    double t0;
    pipe_step_io *io;
    int rank;
} box;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static void frozen_mask(pipe_step_io *io, const pipe_action *a, uint64_t *mask)
{
    memset(mask, 0, MASK_WORDS * sizeof *mask);
    if (io->mode == FREEZE_ALL)
        mask[0] = ~0ull;
    else if (io->mode == FREEZE_PLAN)
        io->frozen_numel[a->stage] += io->mask(a->stage, a->microbatch, io->step, mask);
}

/* Runs action a; in is its input message (or NULL), out where its output
 * message goes (or NULL). */
static void run_action(pipe_step_io *io, const pipe_action *a, const real *in, real *out)
{
    stage_model *sm = io->sm[a->stage];
    double positions = (double)sm->positions * io->microbatches;
    if (a->type == 0) {
        const real *y = model_forward(sm, (int)a->microbatch, in);
        if (out && y)
            memcpy(out, y, model_message_reals(sm) * sizeof(real));
    } else {
        uint64_t mask[MASK_WORDS];
        frozen_mask(io, a, mask);
        model_backward(sm, (int)a->microbatch, in, out, mask, positions);
    }
}

static real *wait_for(box *b, real **slot, bool *ready)
{
    pthread_mutex_lock(&b->mu);
    while (!*ready)
        pthread_cond_wait(&b->cv, &b->mu);
    real *p = *slot;
    pthread_mutex_unlock(&b->mu);
    return p;
}

static void post(box *b, bool *ready)
{
    pthread_mutex_lock(&b->mu);
    *ready = true;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

typedef struct rank_arg {
    box *b;
    int rank;
} rank_arg;

static void *rank_main(void *arg)
{
    rank_arg *ra = arg;
    box *b = ra->b;
    pipe_step_io *io = b->io;
    for (uint32_t i = io->program_start[ra->rank]; i < io->program_start[ra->rank + 1]; i++) {
        const pipe_action *a = &io->program[i];
        uint32_t mb = a->microbatch;
        const real *in = NULL;
        real *out = NULL;
        if (a->type == 0 && a->stage == 1)
            in = wait_for(b, &b->act[mb], &b->act_ready[mb]);
        if (a->type == 1 && a->stage == 0)
            in = wait_for(b, &b->grad[mb], &b->grad_ready[mb]);
        if (a->type == 0 && a->stage == 0)
            out = b->act[mb];
        if (a->type == 1 && a->stage == 1)
            out = b->grad[mb];
        io->start_ms[i] = now_ms() - b->t0;
        run_action(io, a, in, out);
        io->end_ms[i] = now_ms() - b->t0;
        if (out)
            post(b, a->type == 0 ? &b->act_ready[mb] : &b->grad_ready[mb]);
    }
    return NULL;
}

bool pipe_step(pipe_step_io *io)
{
    box b;
    memset(&b, 0, sizeof b);
    if (io->microbatches > MAX_MB)
        return false;
    size_t floats = model_message_reals(io->sm[0]);
    bool ok = true;
    for (uint32_t m = 0; m < io->microbatches; m++) {
        b.act[m] = malloc(floats * sizeof(real));
        b.grad[m] = malloc(floats * sizeof(real));
        ok = ok && b.act[m] && b.grad[m];
    }
    memset(io->frozen_numel, 0, sizeof io->frozen_numel);
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    b.io = io;
    pthread_t th[MODEL_STAGES];
    rank_arg ra[MODEL_STAGES];
    int started = 0;
    b.t0 = now_ms();
    for (int r = 0; ok && r < MODEL_STAGES; r++) {
        ra[r] = (rank_arg){&b, r};
        ok = pthread_create(&th[r], NULL, rank_main, &ra[r]) == 0;
        started += ok;
    }
    for (int r = 0; r < started; r++)
        pthread_join(th[r], NULL);
    io->makespan_ms = now_ms() - b.t0;
    pthread_mutex_destroy(&b.mu);
    pthread_cond_destroy(&b.cv);
    for (uint32_t m = 0; m < io->microbatches; m++) {
        free(b.act[m]);
        free(b.grad[m]);
    }
    return ok && started == MODEL_STAGES;
}

void pipe_step_sequential(pipe_step_io *io)
{
    size_t floats = model_message_reals(io->sm[0]);
    real *a = malloc(floats * sizeof(real)), *g = malloc(floats * sizeof(real));
    if (!a || !g)
        abort();
    memset(io->frozen_numel, 0, sizeof io->frozen_numel);
    double t0 = now_ms();
    for (uint32_t m = 0; m < io->microbatches; m++) {
        pipe_action f0 = {0, m, 0}, f1 = {1, m, 0}, b1 = {1, m, 1}, b0 = {0, m, 1};
        run_action(io, &f0, NULL, a);
        run_action(io, &f1, a, NULL);
        run_action(io, &b1, NULL, g);
        run_action(io, &b0, g, NULL);
    }
    io->makespan_ms = now_ms() - t0;
    free(a);
    free(g);
}
