/* stub: threads, queues and deadlines. */
#define _POSIX_C_SOURCE 200809L
#include "stub.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct msg {
    uint32_t stage, microbatch;
    uint8_t grad;      /* 0: activation from F(stage), 1: gradient from B/I(stage) */
    double deliver_s;  /* monotonic seconds when it may be used (send + latency) */
} msg;

/* A bounded FIFO; a sender blocks while it is full. */
typedef struct queue {
    msg *m;
    size_t cap, head, len;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} queue;

typedef struct run {
    const stub_plan *p;
    double scale, t0;
    queue *q; /* per rank */
    double *dur_ms; /* per program action: its duration this step, computed before the step starts */
    double *busy, *last_end;
    int failed;
    char why[160];
    pthread_mutex_t fail_mu;
} run;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void fail(run *r, const char *what)
{
    pthread_mutex_lock(&r->fail_mu);
    if (!r->failed)
        snprintf(r->why, sizeof r->why, "%s", what);
    r->failed = 1;
    pthread_mutex_unlock(&r->fail_mu);
}

static void send(queue *q, msg m)
{
    pthread_mutex_lock(&q->mu);
    while (q->len == q->cap)
        pthread_cond_wait(&q->cv, &q->mu);
    q->m[(q->head + q->len++) % q->cap] = m;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* Waits at most until deadline for a message; false on timeout. */
static bool receive(queue *q, msg *out, double deadline)
{
    pthread_mutex_lock(&q->mu);
    while (q->len == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        double wait = deadline - now_s();
        if (wait <= 0) {
            pthread_mutex_unlock(&q->mu);
            return false;
        }
        double t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + wait;
        ts.tv_sec = (time_t)t;
        ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
        pthread_cond_timedwait(&q->cv, &q->mu, &ts);
    }
    *out = q->m[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return true;
}

typedef struct rank_arg {
    run *r;
    uint32_t rank;
} rank_arg;

static void *rank_main(void *arg)
{
    rank_arg *ra = arg;
    run *r = ra->r;
    const stub_plan *p = r->p;
    uint32_t k = ra->rank;
    size_t cells = (size_t)p->stages * p->microbatches;
    /* When each input arrived (deliver time), or < 0 while not yet. */
    double *act = malloc(cells * sizeof *act), *grad = malloc(cells * sizeof *grad);
    if (!act || !grad) {
        fail(r, "out of memory");
        free(act);
        free(grad);
        return NULL;
    }
    for (size_t i = 0; i < cells; i++)
        act[i] = grad[i] = -1;
    double free_at = r->t0; /* the rank is busy until then */
    /* A deadlock shows as an input that never comes: give up well after any
     * plausible step (60 s of real time). */
    double give_up = r->t0 + 60.0;
    for (uint32_t i = p->program_start[k]; i < p->program_start[k + 1] && !r->failed; i++) {
        const stub_action *a = &p->program[i];
        size_t cell = (size_t)a->stage * p->microbatches + a->microbatch;
        double *need = NULL;
        if (a->type == STUB_F && a->stage > 0)
            need = &act[cell - p->microbatches];
        else if ((a->type == STUB_B || a->type == STUB_I) && a->stage + 1 < p->stages)
            need = &grad[cell + p->microbatches];
        while (need && *need < 0) {
            msg m;
            if (!receive(&r->q[k], &m, give_up)) {
                fail(r, "a rank waited 60 s for an input: the schedule deadlocks");
                break;
            }
            size_t c = (size_t)m.stage * p->microbatches + m.microbatch;
            (m.grad ? grad : act)[c] = m.deliver_s;
        }
        if (r->failed)
            break;
        /* The action starts when its input is delivered and the rank is
         * free, by the clock the messages carry (absolute deadlines): a
         * thread that wakes late does not push the schedule back, it only
         * catches up. The step's makespan is still measured by the wall
         * clock when the last rank is done. */
        double ready = need ? *need : r->t0;
        double start = ready > free_at ? ready : free_at;
        double d = r->dur_ms[i] * 1e-3 * r->scale;
        double end = start + d;
        sleep_until(end);
        r->busy[k] += d;
        free_at = end;
        /* Outputs: activations forward, gradients backward. */
        if (a->type == STUB_F && a->stage + 1 < p->stages) {
            uint32_t to = p->stage_rank[a->stage + 1];
            send(&r->q[to], (msg){a->stage, a->microbatch, 0, end + (to != k ? p->comm_ms * 1e-3 * r->scale : 0)});
        } else if ((a->type == STUB_B || a->type == STUB_I) && a->stage > 0) {
            uint32_t to = p->stage_rank[a->stage - 1];
            send(&r->q[to], (msg){a->stage, a->microbatch, 1, end + (to != k ? p->comm_ms * 1e-3 * r->scale : 0)});
        }
    }
    r->last_end[k] = now_s(); /* real time the rank finished */
    free(act);
    free(grad);
    return NULL;
}

bool stub_run_step(const stub_plan *p, stub_duration_fn dur, void *ctx, uint64_t step, double time_scale,
                   stub_step *out, char *why, size_t cap)
{
    run r = {.p = p, .scale = time_scale};
    pthread_mutex_init(&r.fail_mu, NULL);
    size_t n_actions = p->program_start[p->ranks];
    r.q = calloc(p->ranks, sizeof *r.q);
    r.busy = calloc(p->ranks, sizeof *r.busy);
    r.last_end = calloc(p->ranks, sizeof *r.last_end);
    r.dur_ms = calloc(n_actions ? n_actions : 1, sizeof *r.dur_ms);
    pthread_t *th = calloc(p->ranks, sizeof *th);
    rank_arg *args = calloc(p->ranks, sizeof *args);
    bool ok = r.q && r.busy && r.last_end && r.dur_ms && th && args;
    /* Every duration (the masks behind the backward ones) before the step's
     * clock starts: what is timed is the plan's compute and waits, not the
     * caller's bookkeeping, which at a small time scale would be a large
     * part of a scaled-down action (a mask takes about a microsecond, a
     * frozen weight gradient at 1/10 scale 0.1 ms). */
    for (size_t i = 0; ok && i < n_actions; i++)
        r.dur_ms[i] = dur(ctx, i, step);
    for (uint32_t k = 0; ok && k < p->ranks; k++) {
        /* Room for every message the rank can receive: no sender ever waits forever. */
        r.q[k].cap = (size_t)(p->program_start[k + 1] - p->program_start[k]) + 1;
        r.q[k].m = calloc(r.q[k].cap, sizeof *r.q[k].m);
        ok = r.q[k].m != NULL;
        pthread_mutex_init(&r.q[k].mu, NULL);
        pthread_cond_init(&r.q[k].cv, NULL);
    }
    /* Start a little in the future so every thread is ready at t0. */
    r.t0 = now_s() + 0.005;
    uint32_t started = 0;
    for (uint32_t k = 0; ok && k < p->ranks; k++) {
        args[k] = (rank_arg){&r, k};
        ok = pthread_create(&th[k], NULL, rank_main, &args[k]) == 0;
        started += ok;
    }
    for (uint32_t k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    if (!ok)
        snprintf(why, cap, "could not start the rank threads");
    else if (r.failed) {
        snprintf(why, cap, "%s", r.why);
        ok = false;
    } else {
        double end = r.t0;
        for (uint32_t k = 0; k < p->ranks; k++)
            end = r.last_end[k] > end ? r.last_end[k] : end;
        out->makespan_ms = (end - r.t0) * 1e3 / time_scale;
        for (uint32_t k = 0; k < p->ranks; k++) {
            out->busy_ms[k] = r.busy[k] * 1e3 / time_scale;
            out->bubble[k] = out->makespan_ms > 0 ? 1.0 - out->busy_ms[k] / out->makespan_ms : 0.0;
        }
    }
    for (uint32_t k = 0; r.q && k < p->ranks; k++) {
        free(r.q[k].m);
        pthread_mutex_destroy(&r.q[k].mu);
        pthread_cond_destroy(&r.q[k].cv);
    }
    pthread_mutex_destroy(&r.fail_mu);
    free(r.q);
    free(r.busy);
    free(r.last_end);
    free(r.dur_ms);
    free(th);
    free(args);
    return ok;
}
