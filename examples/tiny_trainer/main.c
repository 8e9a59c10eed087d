/* tiny_trainer: trains the example's model with the plan tfc generated
 * from tiny.yaml (examples/tiny_trainer/README.md).
 *
 *   tiny_trainer profile DIR [--steps N]       measure every action: DIR/unfrozen.csv, DIR/frozen.csv
 *   tiny_trainer train [--steps N] [--no-freeze] [--first-step S] [--log FILE] [--eval-every K]
 *   tiny_trainer check                         pipelined steps equal sequential ones, bit for bit
 *   tiny_trainer plot NOFREEZE.csv FREEZE.csv OUT.svg
 *
 * Common options: --corpus DIR (default /usr/share/common-licenses),
 * --seed N, --lr X. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "model.h"
#include "pipe.h"
#include "plot.h"
#include "tiny.h"

_Static_assert(sizeof(tiny_action) == sizeof(pipe_action), "generated and pipe actions differ");
_Static_assert(TINY_STAGES == MODEL_STAGES && TINY_RANKS == MODEL_STAGES, "tiny.yaml and model.h disagree");
_Static_assert(TINY_MASK_WORDS == 1, "masks of one word");

enum { SEQ_PER_MB = 2, TARGETS = SEQ - CTX, POSITIONS = SEQ_PER_MB * TARGETS };

typedef struct options {
    const char *corpus, *log, *dir;
    long steps, eval_every;
    uint64_t first_step, seed;
    double lr;
    bool no_freeze;
} options;

typedef struct trainer {
    corpus c;
    stage_model sm[MODEL_STAGES];
    uint16_t ctx[TINY_MICROBATCHES][POSITIONS * CTX];
    uint16_t tgt[TINY_MICROBATCHES][POSITIONS];
    uint32_t *order;
    uint64_t order_n, epoch, cursor;
} trainer;

/* Microbatch slot mb gets sequences seq[0..SEQ_PER_MB). */
static void load_mb(trainer *t, int mb, const uint32_t *seq)
{
    for (int s = 0; s < SEQ_PER_MB; s++) {
        const uint16_t *x = corpus_seq(&t->c, seq[s]);
        for (int j = 0; j < TARGETS; j++) {
            int p = s * TARGETS + j;
            memcpy(&t->ctx[mb][p * CTX], x + j, CTX * sizeof(uint16_t));
            t->tgt[mb][p] = x[j + CTX];
        }
    }
}

static bool next_batch(trainer *t)
{
    const uint64_t need = (uint64_t)SEQ_PER_MB * TINY_MICROBATCHES;
    if (t->cursor + need > t->order_n) {
        t->order_n = corpus_epoch(&t->c, t->epoch++, (uint32_t)need, t->order);
        t->cursor = 0;
        if (t->order_n < need)
            return false;
    }
    for (int mb = 0; mb < (int)TINY_MICROBATCHES; mb++)
        load_mb(t, mb, t->order + t->cursor + (uint64_t)mb * SEQ_PER_MB);
    t->cursor += need;
    return true;
}

static bool trainer_init(trainer *t, const options *o)
{
    memset(t, 0, sizeof *t);
    char why[512];
    if (!corpus_load(&t->c, o->corpus, why, sizeof why)) {
        fprintf(stderr, "tiny_trainer: %s\n", why);
        return false;
    }
    t->order = malloc((t->c.n_train ? t->c.n_train : 1) * sizeof *t->order);
    for (int s = 0; s < MODEL_STAGES; s++) {
        if (!t->order || !model_init(&t->sm[s], s, POSITIONS, TINY_MICROBATCHES, o->seed)) {
            fprintf(stderr, "tiny_trainer: out of memory\n");
            return false;
        }
        if (t->sm[s].n_tensors != (int)tiny_param_count[s]) {
            fprintf(stderr, "tiny_trainer: stage %d has %d tensors, tiny.yaml %u\n", s, t->sm[s].n_tensors,
                    tiny_param_count[s]);
            return false;
        }
        for (int k = 0; k < t->sm[s].n_tensors; k++)
            if (t->sm[s].numel[k] != tiny_params[s][k].numel) {
                fprintf(stderr, "tiny_trainer: stage %d tensor %s: %llu elements, tiny.yaml %llu\n", s,
                        tiny_params[s][k].name, (unsigned long long)t->sm[s].numel[k],
                        (unsigned long long)tiny_params[s][k].numel);
                return false;
            }
    }
    t->sm[0].ctx_tokens = (const uint16_t **)calloc(TINY_MICROBATCHES, sizeof(uint16_t *));
    t->sm[1].targets = (const uint16_t **)calloc(TINY_MICROBATCHES, sizeof(uint16_t *));
    if (!t->sm[0].ctx_tokens || !t->sm[1].targets)
        return false;
    for (int mb = 0; mb < (int)TINY_MICROBATCHES; mb++) {
        t->sm[0].ctx_tokens[mb] = t->ctx[mb];
        t->sm[1].targets[mb] = t->tgt[mb];
    }
    return true;
}

static void trainer_free(trainer *t)
{
    free((void *)t->sm[0].ctx_tokens);
    free((void *)t->sm[1].targets);
    t->sm[0].ctx_tokens = t->sm[1].targets = NULL;
    for (int s = 0; s < MODEL_STAGES; s++)
        model_free(&t->sm[s]);
    corpus_free(&t->c);
    free(t->order);
}

/* Mean loss per position over the first `limit` validation sequences
 * (all when 0), forward only, in microbatch slot 0. */
static double evaluate(trainer *t, uint64_t limit)
{
    uint64_t n = t->c.n_val;
    if (limit && limit < n)
        n = limit;
    n -= n % SEQ_PER_MB;
    double saved = t->sm[1].loss_sum;
    t->sm[1].loss_sum = 0.0;
    for (uint64_t i = 0; i < n; i += SEQ_PER_MB) {
        load_mb(t, 0, t->c.val + i);
        const real *y = model_forward(&t->sm[0], 0, NULL);
        model_forward(&t->sm[1], 0, y);
    }
    double loss = t->sm[1].loss_sum / (double)(n / SEQ_PER_MB * POSITIONS);
    t->sm[1].loss_sum = saved;
    return loss;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The makespan the plan's dependencies give for per-action durations d
 * (program order on each rank; F of stage s after F of stage s - 1, B of
 * stage s after B of stage s + 1, plus the spec's comm_ms across ranks):
 * what the step should have taken with exactly these compute times. */
static double replay_ms(const double *d)
{
    double f_end[TINY_STAGES][TINY_MICROBATCHES], b_end[TINY_STAGES][TINY_MICROBATCHES], span = 0;
    uint32_t next[TINY_RANKS];
    double free_at[TINY_RANKS];
    for (uint32_t st = 0; st < TINY_STAGES; st++)
        for (uint32_t m = 0; m < TINY_MICROBATCHES; m++)
            f_end[st][m] = b_end[st][m] = NAN;
    for (uint32_t r = 0; r < TINY_RANKS; r++)
        next[r] = tiny_program_start[r], free_at[r] = 0;
    for (bool moved = true; moved;) { /* until no rank can take its next action */
        moved = false;
        for (uint32_t r = 0; r < TINY_RANKS; r++) {
            for (; next[r] < tiny_program_start[r + 1]; next[r]++) {
                const tiny_action *a = &tiny_program[next[r]];
                double ready = free_at[r];
                if (a->type == TINY_F && a->stage > 0) {
                    if (isnan(f_end[a->stage - 1][a->microbatch]))
                        break;
                    ready = fmax(ready, f_end[a->stage - 1][a->microbatch] + TINY_COMM_MS);
                }
                if (a->type == TINY_B && a->stage + 1 < TINY_STAGES) {
                    if (isnan(b_end[a->stage + 1][a->microbatch]))
                        break;
                    ready = fmax(ready, b_end[a->stage + 1][a->microbatch] + TINY_COMM_MS);
                }
                free_at[r] = ready + d[next[r]];
                (a->type == TINY_F ? f_end : b_end)[a->stage][a->microbatch] = free_at[r];
                span = fmax(span, free_at[r]);
                moved = true;
            }
        }
    }
    return span;
}

static void io_init(pipe_step_io *io, trainer *t, double *start, double *end)
{
    memset(io, 0, sizeof *io);
    for (int s = 0; s < MODEL_STAGES; s++)
        io->sm[s] = &t->sm[s];
    io->program = (const pipe_action *)tiny_program;
    io->program_start = tiny_program_start;
    io->microbatches = TINY_MICROBATCHES;
    io->mask = tiny_frozen_mask;
    io->start_ms = start;
    io->end_ms = end;
}

static bool train_step(trainer *t, pipe_step_io *io, const options *o, uint64_t n)
{
    for (int s = 0; s < MODEL_STAGES; s++)
        model_zero_grad(&t->sm[s]);
    if (!next_batch(t) || !pipe_step(io)) {
        fprintf(stderr, "tiny_trainer: %s\n", "no batch, or a rank thread did not start");
        return false;
    }
    for (int s = 0; s < MODEL_STAGES; s++)
        model_adam(&t->sm[s], o->lr, TINY_MICROBATCHES, n);
    return true;
}

static const char *const type_name = "FBIW";

static int cmd_profile(const options *o)
{
    trainer t;
    if (!trainer_init(&t, o))
        return 1;
    double start[TINY_ACTIONS], end[TINY_ACTIONS];
    pipe_step_io io;
    io_init(&io, &t, start, end);
    const long warm = 3;
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", o->dir, pass ? "frozen.csv" : "unfrozen.csv");
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "tiny_trainer: cannot write %s\n", path);
            rc = 1;
            break;
        }
        fprintf(f, "rank,stage,microbatch,type,duration_ms\n");
        io.mode = pass ? FREEZE_ALL : FREEZE_NONE;
        for (long s = 0; s < warm + o->steps && rc == 0; s++) {
            if (!train_step(&t, &io, o, (uint64_t)(pass * (warm + o->steps) + s + 1)))
                rc = 1;
            for (uint32_t i = 0; s >= warm && rc == 0 && i < TINY_ACTIONS; i++) {
                const tiny_action *a = &tiny_program[i];
                fprintf(f, "%u,%u,%u,%c,%.4f\n", tiny_stage_rank[a->stage], a->stage, a->microbatch,
                        type_name[a->type], end[i] - start[i]);
            }
        }
        if (fclose(f) != 0)
            rc = 1;
        printf("profile: %ld steps with %s frozen -> %s\n", o->steps, pass ? "everything" : "nothing", path);
    }
    trainer_free(&t);
    return rc;
}

static int cmd_train(const options *o)
{
    trainer t;
    if (!trainer_init(&t, o))
        return 1;
    printf("corpus: %u files, %llu sequences of %d bytes, %llu prefix repeats dropped (first %d tokens), "
           "%llu train, %llu validation; LCP index built in %.3f ms\n",
           t.c.n_shards, (unsigned long long)t.c.n_seq, SEQ, (unsigned long long)t.c.n_dup, DEDUP_LCP,
           (unsigned long long)t.c.n_train, (unsigned long long)t.c.n_val, 1e3 * t.c.build_s);
    FILE *log = o->log ? fopen(o->log, "w") : NULL;
    if (o->log && !log) {
        fprintf(stderr, "tiny_trainer: cannot write %s\n", o->log);
        trainer_free(&t);
        return 1;
    }
    if (log)
        fprintf(log, "step,train_loss,val_loss,makespan_ms,planned_ratio,frozen_share,dw_skipped_share\n");
    double start[TINY_ACTIONS], end[TINY_ACTIONS];
    pipe_step_io io;
    io_init(&io, &t, start, end);
    io.mode = o->no_freeze ? FREEZE_NONE : FREEZE_PLAN;
    double *ms = malloc(3 * (size_t)o->steps * sizeof *ms), *rep = ms + o->steps, *model = rep + o->steps;
    size_t n_ms = 0;
    double planned_sum = 0, frozen_sum = 0, dw_sum = 0, dw_skip_sum = 0;
    const uint64_t steady = TINY_WARMUP_STEPS + TINY_RAMP_STEPS;
    int rc = ms ? 0 : 1;
    for (long s = 0; s < o->steps && rc == 0; s++) {
        uint64_t step = o->first_step + (uint64_t)s;
        io.step = step;
        if (!train_step(&t, &io, o, (uint64_t)s + 1)) {
            rc = 1;
            break;
        }
        double loss = t.sm[1].loss_sum / ((double)POSITIONS * TINY_MICROBATCHES);
        double planned = 0, share = 0, dw = 0, skip = 0;
        for (uint32_t st = 0; st < TINY_STAGES; st++) {
            for (uint32_t m = 0; m < TINY_MICROBATCHES; m++)
                planned += o->no_freeze ? 0.0 : tiny_freeze_ratio(st, m, step);
            share += (double)io.frozen_numel[st] / (double)tiny_stage_numel[st];
            dw += t.sm[st].dw_flops;
            skip += t.sm[st].dw_flops_skipped;
        }
        planned /= TINY_STAGES * TINY_MICROBATCHES;
        share /= TINY_STAGES * TINY_MICROBATCHES;
        bool in_window = o->no_freeze || step >= steady;
        if (in_window) {
            double d[TINY_ACTIONS], dm[TINY_ACTIONS];
            uint64_t mask[TINY_MASK_WORDS];
            for (uint32_t i = 0; i < TINY_ACTIONS; i++) {
                const tiny_action *a = &tiny_program[i];
                d[i] = end[i] - start[i];
                double sh = 0;
                if (a->type == TINY_B && !o->no_freeze)
                    sh = (double)tiny_frozen_mask(a->stage, a->microbatch, step, mask) / (double)tiny_stage_numel[a->stage];
                dm[i] = tiny_action_ms[i] - sh * (tiny_action_ms[i] - tiny_action_frozen_ms[i]);
            }
            rep[n_ms] = replay_ms(d);
            model[n_ms] = replay_ms(dm);
            ms[n_ms++] = io.makespan_ms;
            planned_sum += planned, frozen_sum += share, dw_sum += dw, dw_skip_sum += skip;
        }
        double val = NAN;
        if (o->eval_every > 0 && ((s + 1) % o->eval_every == 0 || s + 1 == o->steps))
            val = evaluate(&t, s + 1 == o->steps ? 0 : 256);
        if (log) {
            fprintf(log, "%llu,%.6f,", (unsigned long long)step, loss);
            if (!isnan(val))
                fprintf(log, "%.6f", val);
            fprintf(log, ",%.4f,%.6f,%.6f,%.6f\n", io.makespan_ms, planned, share, dw > 0 ? skip / dw : 0.0);
        }
        if (!isnan(val))
            printf("step %llu: train loss %.4f, validation loss %.4f, step %.2f ms\n", (unsigned long long)step,
                   loss, val, io.makespan_ms);
    }
    if (rc == 0) {
        double final = evaluate(&t, 0);
        double med = median(ms, n_ms), med_rep = median(rep, n_ms), med_model = median(model, n_ms);
        double predicted = o->no_freeze ? TINY_BASELINE_MAKESPAN_MS : TINY_PLANNED_MAKESPAN_MS;
        printf("final validation loss %.4f (%llu sequences)\n", final, (unsigned long long)t.c.n_val);
        if (n_ms) {
            printf("step time (pipeline only, median of %zu steps %s): measured %.2f ms, predicted %.2f ms (%+.1f%%)\n",
                   n_ms, o->no_freeze ? "without freezing" : "at the full planned ratios", med, predicted,
                   100 * (med - predicted) / predicted);
            printf("  the plan's durations with the masks actually drawn: %.2f ms; the dependencies replayed "
                   "with the measured action times: %.2f ms\n",
                   med_model, med_rep);
        }
        if (!o->no_freeze && n_ms)
            printf("freezing over those steps: planned ratio %.4f, frozen element share %.4f, "
                   "weight-gradient multiply-adds skipped %.4f\n",
                   planned_sum / (double)n_ms, frozen_sum / (double)n_ms, dw_sum > 0 ? dw_skip_sum / dw_sum : 0.0);
        printf("RESULT val_loss=%.6f step_ms=%.4f predicted_ms=%.4f mask_model_ms=%.4f replay_ms=%.4f planned=%.6f "
               "frozen=%.6f dw_skipped=%.6f\n",
               final, med, predicted, med_model, med_rep, n_ms ? planned_sum / (double)n_ms : 0.0, n_ms ? frozen_sum / (double)n_ms : 0.0,
               dw_sum > 0 ? dw_skip_sum / dw_sum : 0.0);
    }
    free(ms);
    if (log && fclose(log) != 0)
        rc = 1;
    trainer_free(&t);
    return rc;
}

/* Two trainers from the same seed: one runs steps pipelined, the other
 * sequentially; after every step all parameters must be equal bit for bit. */
static int cmd_check(const options *o)
{
    trainer a, b;
    if (!trainer_init(&a, o) || !trainer_init(&b, o))
        return 1;
    double s1[TINY_ACTIONS], e1[TINY_ACTIONS], s2[TINY_ACTIONS], e2[TINY_ACTIONS];
    pipe_step_io ia, ib;
    io_init(&ia, &a, s1, e1);
    io_init(&ib, &b, s2, e2);
    int rc = 0;
    uint64_t frozen_steps = 0;
    for (long s = 0; s < o->steps && rc == 0; s++) {
        uint64_t step = o->first_step + (uint64_t)s;
        ia.step = ib.step = step;
        ia.mode = ib.mode = FREEZE_PLAN;
        for (int k = 0; k < MODEL_STAGES; k++)
            model_zero_grad(&a.sm[k]), model_zero_grad(&b.sm[k]);
        if (!next_batch(&a) || !next_batch(&b) || !pipe_step(&ia)) {
            rc = 1;
            break;
        }
        pipe_step_sequential(&ib);
        for (int k = 0; k < MODEL_STAGES; k++) {
            model_adam(&a.sm[k], o->lr, TINY_MICROBATCHES, (uint64_t)s + 1);
            model_adam(&b.sm[k], o->lr, TINY_MICROBATCHES, (uint64_t)s + 1);
            frozen_steps += ia.frozen_numel[k] > 0;
            for (int t = 0; t < a.sm[k].n_tensors; t++)
                if (memcmp(a.sm[k].param[t], b.sm[k].param[t], a.sm[k].numel[t] * sizeof(real)) != 0) {
                    printf("check: step %llu: stage %d tensor %s differs between pipelined and sequential\n",
                           (unsigned long long)step, k, tiny_params[k][t].name);
                    rc = 1;
                }
        }
        if (a.sm[1].loss_sum != b.sm[1].loss_sum) {
            printf("check: step %llu: loss differs\n", (unsigned long long)step);
            rc = 1;
        }
    }
    if (rc == 0)
        printf("check: %ld pipelined steps equal the sequential ones bit for bit (%llu stage-steps with "
               "frozen tensors)\n",
               o->steps, (unsigned long long)frozen_steps);
    trainer_free(&a);
    trainer_free(&b);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: tiny_trainer profile DIR | train | check | plot NOFREEZE.csv FREEZE.csv OUT.svg "
                    "[--steps N] [--no-freeze] [--first-step S] [--log FILE] [--eval-every K] [--corpus DIR] "
                    "[--seed N] [--lr X]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    const char *cmd = argv[1];
    if (!strcmp(cmd, "plot"))
        return argc == 5 ? plot_losses(argv[2], argv[3], argv[4]) : usage();
    options o = {"/usr/share/common-licenses", NULL, NULL, 600, 25, 0, 1, 2e-3, false};
    int i = 2;
    if (!strcmp(cmd, "profile")) {
        if (argc < 3)
            return usage();
        o.dir = argv[i++];
        o.steps = 30;
    }
    if (!strcmp(cmd, "check"))
        o.steps = 3, o.first_step = TINY_WARMUP_STEPS + TINY_RAMP_STEPS;
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-freeze"))
            o.no_freeze = true;
        else if (v && !strcmp(a, "--steps"))
            o.steps = atol(v), i++;
        else if (v && !strcmp(a, "--first-step"))
            o.first_step = strtoull(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--log"))
            o.log = v, i++;
        else if (v && !strcmp(a, "--eval-every"))
            o.eval_every = atol(v), i++;
        else if (v && !strcmp(a, "--corpus"))
            o.corpus = v, i++;
        else if (v && !strcmp(a, "--seed"))
            o.seed = strtoull(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--lr"))
            o.lr = atof(v), i++;
        else
            return usage();
    }
    if (o.steps < 1 || !(o.lr > 0))
        return usage();
    if (!strcmp(cmd, "profile"))
        return cmd_profile(&o);
    if (!strcmp(cmd, "train"))
        return cmd_train(&o);
    if (!strcmp(cmd, "check"))
        return cmd_check(&o);
    return usage();
}
