/* tiny_trainer: trains the example's models with the plan tfc generated
 * from tiny.yaml (the MLP) or tiny_gpt.yaml (the transformer)
 * (examples/tiny_trainer/README.md).
 *
 *   tiny_trainer profile DIR [--steps N]       measure every action: DIR/unfrozen.csv, DIR/frozen.csv
 *   tiny_trainer train [options]               train; --log FILE writes one CSV row per step
 *   tiny_trainer check [--steps N]             pipelined steps equal sequential ones, bit for bit
 *   tiny_trainer noise [--steps N] [--exact]   the gradient noise scale B_simple at fixed parameters
 *   tiny_trainer plot NOFREEZE.csv FREEZE.csv OUT.svg
 *
 * Options (usage() lists them with their defaults): --model mlp|gpt|mlp_narrow,
 * --data DIR (alias --corpus), --part all|pretrain|finetune, --val-max N,
 * --seed N, --mb-seqs N, --order grouped|shuffled, --init FILE, --save FILE, --steps N, --first-step S,
 * --no-freeze, --lr X, --lr-warmup W, --lr-horizon H, --lr-min F,
 * --grad share|mean|sqrt|linear, --wd X, --beta2 X, --eval-every K, --stop-below L, --stop-from N,
 * --log FILE. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"
#include "model.h"
#include "pipe.h"
#include "plot.h"
#include "tiny.h"

_Static_assert(sizeof(tiny_action) == sizeof(pipe_action), "generated and pipe actions differ");
_Static_assert(TINY_STAGES == MODEL_STAGES && TINY_RANKS == MODEL_STAGES, "the spec and model.h disagree");
_Static_assert(TINY_MASK_WORDS == 1, "masks of one word");
_Static_assert(MAX_TENSORS <= 64, "a stage's tensors fit one mask word");

enum { MB_SEQS_DEFAULT = 2, MB_SEQS_MAX = 4096, MAX_EVALS_KEPT = 3 };

typedef struct options {
    const char *data, *log, *dir, *init, *save;
    model_kind kind;
    corpus_part part;
    long steps, eval_every, lr_warmup, lr_horizon, stop_from, mb_seqs, probe_every;
    uint64_t first_step, seed, val_max;
    double lr, lr_min, wd, beta2, stop_below;
    grad_mode grad;
    bool no_freeze, shuffled, exact;
} options;

static const char *const kind_name[] = {"mlp", "gpt", "mlp_narrow"};
static const char *const kind_spec[] = {"tiny.yaml", "tiny_gpt.yaml", "tiny_narrow.yaml"};
static const char *const part_name[] = {"all", "pretrain", "finetune"};

typedef struct trainer {
    corpus c;
    stage_model sm[MODEL_STAGES];
    int mb_seqs;                 /* sequences per microbatch (--mb-seqs) */
    bool shuffled;               /* --order shuffled: sequences drawn one by one, not in runs */
    uint16_t *tok;               /* TINY_MICROBATCHES x mb_seqs x SEQ */
    const uint16_t *tok_p[TINY_MICROBATCHES];
    uint32_t *order;
    uint64_t order_n, epoch, cursor, seed;
} trainer;

/* Microbatch slot mb gets sequences seq[0..mb_seqs), back to back. */
static void load_mb(trainer *t, int mb, const uint32_t *seq)
{
    for (int s = 0; s < t->mb_seqs; s++)
        memcpy(&t->tok[((size_t)mb * t->mb_seqs + s) * SEQ], corpus_seq(&t->c, seq[s]), SEQ * sizeof(uint16_t));
}

static bool next_batch(trainer *t)
{
    const uint64_t need = (uint64_t)t->mb_seqs * TINY_MICROBATCHES;
    if (t->cursor + need > t->order_n) {
        t->order_n = corpus_epoch(&t->c, t->seed, t->epoch++, t->shuffled ? 1u : (uint32_t)need, t->order);
        t->cursor = 0;
        if (t->order_n < need)
            return false;
    }
    for (int mb = 0; mb < (int)TINY_MICROBATCHES; mb++)
        load_mb(t, mb, t->order + t->cursor + (uint64_t)mb * t->mb_seqs);
    t->cursor += need;
    return true;
}

/* The model's tensors against the compiled spec's (tiny_params): count,
 * names and sizes per stage. */
static bool matches_plan(const trainer *t, const options *o)
{
    const char *spec = kind_spec[o->kind];
    for (int s = 0; s < MODEL_STAGES; s++) {
        const stage_model *sm = &t->sm[s];
        bool ok = sm->n_tensors == (int)tiny_param_count[s];
        for (int k = 0; ok && k < sm->n_tensors; k++)
            if (strcmp(sm->tensor_name[k], tiny_params[s][k].name) != 0 || sm->numel[k] != tiny_params[s][k].numel) {
                fprintf(stderr,
                        "tiny_trainer: --model %s, stage %d tensor %d is %s (%llu elements); the compiled spec has "
                        "%s (%llu elements)\n",
                        kind_name[o->kind], s, k, sm->tensor_name[k], (unsigned long long)sm->numel[k],
                        tiny_params[s][k].name, (unsigned long long)tiny_params[s][k].numel);
                ok = false;
            }
        if (sm->n_tensors != (int)tiny_param_count[s])
            fprintf(stderr, "tiny_trainer: --model %s, stage %d has %d tensors; the compiled spec %u\n",
                    kind_name[o->kind], s, sm->n_tensors, tiny_param_count[s]);
        if (!ok) {
            fprintf(stderr, "tiny_trainer: this binary was built against another model's plan: build it against "
                            "what tfc compiles from %s to run --model %s\n",
                    spec, kind_name[o->kind]);
            return false;
        }
    }
    return true;
}

/* The parameter file of --save / --init: "TFCTINY1", then uint32 model
 * kind, sizeof(real), stages; per stage uint32 tensors and uint64 numel per
 * tensor; then every tensor's parameters, stage by stage, in order. */
static const char param_magic[8] = {'T', 'F', 'C', 'T', 'I', 'N', 'Y', '1'};

static bool save_params(const trainer *t, const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return false;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return false;
    uint32_t hdr[3] = {(uint32_t)t->sm[0].kind, (uint32_t)sizeof(real), MODEL_STAGES};
    bool ok = fwrite(param_magic, 1, sizeof param_magic, f) == sizeof param_magic && fwrite(hdr, sizeof hdr, 1, f) == 1;
    for (int s = 0; ok && s < MODEL_STAGES; s++) {
        uint32_t n = (uint32_t)t->sm[s].n_tensors;
        ok = fwrite(&n, sizeof n, 1, f) == 1 && fwrite(t->sm[s].numel, sizeof(uint64_t), n, f) == n;
    }
    for (int s = 0; ok && s < MODEL_STAGES; s++)
        for (int k = 0; ok && k < t->sm[s].n_tensors; k++)
            ok = fwrite(t->sm[s].param[k], sizeof(real), t->sm[s].numel[k], f) == t->sm[s].numel[k];
    ok = fclose(f) == 0 && ok;
    if (ok)
        ok = rename(tmp, path) == 0;
    if (!ok)
        remove(tmp);
    return ok;
}

static bool load_params(trainer *t, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tiny_trainer: --init: cannot open %s\n", path);
        return false;
    }
    char magic[8];
    uint32_t hdr[3];
    const char *why = NULL;
    if (fread(magic, 1, sizeof magic, f) != sizeof magic || memcmp(magic, param_magic, sizeof magic) != 0 ||
        fread(hdr, sizeof hdr, 1, f) != 1)
        why = "not a tiny_trainer parameter file (--save writes them)";
    else if (hdr[0] != (uint32_t)t->sm[0].kind)
        why = hdr[0] == MODEL_GPT          ? "written for --model gpt"
              : hdr[0] == MODEL_MLP        ? "written for --model mlp"
              : hdr[0] == MODEL_MLP_NARROW ? "written for --model mlp_narrow"
                                           : "an unknown model kind";
    else if (hdr[1] != sizeof(real) || hdr[2] != MODEL_STAGES)
        why = "written with another real type or stage count";
    for (int s = 0; !why && s < MODEL_STAGES; s++) {
        uint32_t n;
        uint64_t numel[MAX_TENSORS];
        if (fread(&n, sizeof n, 1, f) != 1 || n != (uint32_t)t->sm[s].n_tensors ||
            fread(numel, sizeof(uint64_t), n, f) != n || memcmp(numel, t->sm[s].numel, n * sizeof(uint64_t)) != 0)
            why = "its tensors (count or sizes) differ from this model's";
    }
    for (int s = 0; !why && s < MODEL_STAGES; s++)
        for (int k = 0; !why && k < t->sm[s].n_tensors; k++)
            if (fread(t->sm[s].param[k], sizeof(real), t->sm[s].numel[k], f) != t->sm[s].numel[k])
                why = "truncated";
    if (!why && fgetc(f) != EOF)
        why = "longer than this model's parameters";
    fclose(f);
    if (why)
        fprintf(stderr, "tiny_trainer: --init %s: %s\n", path, why);
    return !why;
}

static bool trainer_init(trainer *t, const options *o)
{
    memset(t, 0, sizeof *t);
    t->seed = o->seed;
    t->mb_seqs = (int)o->mb_seqs;
    t->shuffled = o->shuffled;
    char why[4200];
    if (!corpus_load(&t->c, o->data, o->part, why, sizeof why)) {
        fprintf(stderr, "tiny_trainer: %s\n", why);
        return false;
    }
    const uint64_t need = (uint64_t)t->mb_seqs * TINY_MICROBATCHES;
    if (t->c.n_train < need) {
        uint32_t files = t->c.part_end - t->c.part_begin;
        fprintf(stderr, "tiny_trainer: --part %s of %s has %llu training sequences, fewer than one step's %llu%s\n",
                part_name[o->part], o->data, (unsigned long long)t->c.n_train, (unsigned long long)need,
                o->part != CORPUS_ALL && files == 0
                    ? " (the pretrain and finetune parts split the corpus by file: give it two files or more)"
                    : "");
        corpus_free(&t->c);
        return false;
    }
    t->order = malloc(t->c.n_train * sizeof *t->order);
    t->tok = malloc(need * SEQ * sizeof *t->tok);
    for (int s = 0; s < MODEL_STAGES; s++)
        if (!t->order || !t->tok || !model_init(&t->sm[s], o->kind, s, t->mb_seqs, TINY_MICROBATCHES, o->seed)) {
            fprintf(stderr, "tiny_trainer: out of memory\n");
            return false;
        }
    if (!matches_plan(t, o) || (o->init && !load_params(t, o->init)))
        return false;
    for (int mb = 0; mb < (int)TINY_MICROBATCHES; mb++)
        t->tok_p[mb] = t->tok + (size_t)mb * t->mb_seqs * SEQ;
    for (int s = 0; s < MODEL_STAGES; s++)
        t->sm[s].tokens = t->tok_p;
    return true;
}

static void trainer_free(trainer *t)
{
    for (int s = 0; s < MODEL_STAGES; s++)
        model_free(&t->sm[s]);
    corpus_free(&t->c);
    free(t->order);
    free(t->tok);
}

/* Evaluation as a two-stage pipeline: stage 0's forwards on a thread of
 * their own, handing each microbatch slot to stage 1 (this thread) and
 * reusing a slot only after stage 1 has read it. Stage 1 adds the losses in
 * microbatch order, as one thread would: the same sum, bit for bit. */
typedef struct eval_feed {
    trainer *t;
    uint64_t n_mb;
    const real *out[TINY_MICROBATCHES]; /* stage 0's output, per slot */
    uint64_t produced, consumed;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} eval_feed;

/* Stage 0's forward of validation microbatch i, in slot. */
static const real *eval_forward0(trainer *t, uint64_t i, int slot)
{
    load_mb(t, slot, t->c.val + i * (uint64_t)t->mb_seqs);
    return model_forward(&t->sm[0], slot, NULL);
}

static void *eval_stage0(void *arg)
{
    eval_feed *f = arg;
    for (uint64_t i = 0; i < f->n_mb; i++) {
        int slot = (int)(i % TINY_MICROBATCHES);
        pthread_mutex_lock(&f->mu);
        while (i - f->consumed >= TINY_MICROBATCHES)
            pthread_cond_wait(&f->cv, &f->mu);
        pthread_mutex_unlock(&f->mu);
        const real *y = eval_forward0(f->t, i, slot);
        pthread_mutex_lock(&f->mu);
        f->out[slot] = y;
        f->produced = i + 1;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
    }
    return NULL;
}

/* Mean loss per prediction over the first `limit` validation sequences
 * of the part (all when 0; a whole number of microbatches), forward only:
 * the same set at every evaluation. NAN when there is none. Pipelined
 * (eval_feed) unless one_thread, or when the thread cannot start. */
static double evaluate_on(trainer *t, uint64_t limit, bool one_thread)
{
    uint64_t n = t->c.n_val;
    if (limit && limit < n)
        n = limit;
    n -= n % (uint64_t)t->mb_seqs;
    if (!n)
        return NAN;
    double saved = t->sm[1].loss_sum;
    t->sm[1].loss_sum = 0.0;
    eval_feed f = {.t = t, .n_mb = n / (uint64_t)t->mb_seqs};
    pthread_t th;
    bool threaded = !one_thread && pthread_mutex_init(&f.mu, NULL) == 0;
    if (threaded && pthread_cond_init(&f.cv, NULL) != 0) {
        pthread_mutex_destroy(&f.mu);
        threaded = false;
    }
    if (threaded && pthread_create(&th, NULL, eval_stage0, &f) != 0) {
        pthread_cond_destroy(&f.cv);
        pthread_mutex_destroy(&f.mu);
        threaded = false;
    }
    for (uint64_t i = 0; i < f.n_mb; i++) {
        int slot = (int)(i % TINY_MICROBATCHES);
        const real *y;
        if (threaded) {
            pthread_mutex_lock(&f.mu);
            while (f.produced <= i)
                pthread_cond_wait(&f.cv, &f.mu);
            y = f.out[slot];
            pthread_mutex_unlock(&f.mu);
        } else {
            y = eval_forward0(t, i, slot);
        }
        model_forward(&t->sm[1], slot, y);
        if (threaded) {
            pthread_mutex_lock(&f.mu);
            f.consumed = i + 1;
            pthread_cond_broadcast(&f.cv);
            pthread_mutex_unlock(&f.mu);
        }
    }
    if (threaded) {
        pthread_join(th, NULL);
        pthread_cond_destroy(&f.cv);
        pthread_mutex_destroy(&f.mu);
    }
    double loss = t->sm[1].loss_sum / (double)(f.n_mb * (uint64_t)t->sm[1].positions);
    t->sm[1].loss_sum = saved;
    return loss;
}

static double evaluate(trainer *t, uint64_t limit) { return evaluate_on(t, limit, false); }

static uint64_t val_used(const trainer *t, const options *o)
{
    uint64_t n = o->val_max && o->val_max < t->c.n_val ? o->val_max : t->c.n_val;
    return n - n % (uint64_t)t->mb_seqs;
}

/* The learning rate of the run's step s (0, 1, ...): linear warm-up
 * peak * (s + 1) / W for s < W; then cosine from the peak at step W to
 * lr_min x peak at step H; lr_min x peak after H. H = 0: the peak after
 * the warm-up, constant. */
static double lr_at(const options *o, long s)
{
    double peak = o->lr;
    if (s < o->lr_warmup)
        return peak * (double)(s + 1) / (double)o->lr_warmup;
    if (o->lr_horizon <= 0)
        return peak;
    double lo = o->lr_min * peak;
    if (s >= o->lr_horizon)
        return lo;
    double r = (double)(s - o->lr_warmup) / (double)(o->lr_horizon - o->lr_warmup);
    return lo + 0.5 * (1.0 + cos(3.14159265358979323846 * r)) * (peak - lo);
}

static optim optim_at(const options *o, long s)
{
    return (optim){.lr = lr_at(o, s), .beta1 = 0.9, .beta2 = o->beta2, .eps = 1e-8, .weight_decay = o->wd, .grad = o->grad};
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
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

/* One step: the pipeline, then AdamW on both stages (timed on this
 * thread: *optim_ms). */
static bool train_step(trainer *t, pipe_step_io *io, const optim *op, double *optim_ms)
{
    for (int s = 0; s < MODEL_STAGES; s++)
        model_zero_grad(&t->sm[s]);
    if (!next_batch(t) || !pipe_step(io)) {
        fprintf(stderr, "tiny_trainer: %s\n", "no batch, or a rank thread did not start");
        return false;
    }
    double t0 = now_ms();
    for (int s = 0; s < MODEL_STAGES; s++)
        model_adam(&t->sm[s], op);
    if (optim_ms)
        *optim_ms = now_ms() - t0;
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
    /* The two passes alternate step by step, so a stretch in which the
     * machine is busy elsewhere slows both alike instead of one of them. */
    char path[2][4096];
    FILE *f[2] = {NULL, NULL};
    for (int pass = 0; pass < 2; pass++) {
        snprintf(path[pass], sizeof path[pass], "%s/%s", o->dir, pass ? "frozen.csv" : "unfrozen.csv");
        f[pass] = fopen(path[pass], "w");
        if (!f[pass]) {
            fprintf(stderr, "tiny_trainer: cannot write %s\n", path[pass]);
            rc = 1;
            break;
        }
        fprintf(f[pass], "rank,stage,microbatch,type,duration_ms\n");
    }
    /* Freezing only removes work, so a frozen B or W that took longer than
     * the same action unfrozen in the step just before it was slowed by
     * something else on the machine: such a sample is written as the
     * unfrozen one (and counted), which keeps every frozen median at or
     * below its unfrozen median, as tfc requires of measured timings. */
    double unfrozen_ms[TINY_ACTIONS];
    long clamped = 0, backward = 0;
    for (long s = 0; s < warm + o->steps && rc == 0; s++) {
        for (int pass = 0; pass < 2 && rc == 0; pass++) {
            io.mode = pass ? FREEZE_ALL : FREEZE_NONE;
            optim op = optim_at(o, s);
            if (!train_step(&t, &io, &op, NULL))
                rc = 1;
            for (uint32_t i = 0; s >= warm && rc == 0 && i < TINY_ACTIONS; i++) {
                const tiny_action *a = &tiny_program[i];
                double ms = end[i] - start[i];
                if (pass == 0)
                    unfrozen_ms[i] = ms;
                else if (type_name[a->type] == 'B' || type_name[a->type] == 'W') {
                    backward++;
                    if (ms > unfrozen_ms[i]) {
                        ms = unfrozen_ms[i];
                        clamped++;
                    }
                }
                fprintf(f[pass], "%u,%u,%u,%c,%.4f\n", tiny_stage_rank[a->stage], a->stage, a->microbatch,
                        type_name[a->type], ms);
            }
        }
    }
    if (clamped > 0 && rc == 0)
        printf("profile: %ld of %ld frozen backward samples took longer than the same action unfrozen; written "
               "as the unfrozen sample\n", clamped, backward);
    for (int pass = 0; pass < 2; pass++) {
        if (f[pass] && fclose(f[pass]) != 0)
            rc = 1;
        if (rc == 0)
            printf("profile: %ld steps with %s frozen -> %s\n", o->steps, pass ? "everything" : "nothing",
                   path[pass]);
    }
    trainer_free(&t);
    return rc;
}

/* The step's line search (--probe-every): the validation loss along the
 * update a step just made, at PROBE_SCALES times its length, from the
 * parameters before it (before) to after it and beyond; the parameters
 * after it are restored. Printed as one PROBE line, for fitting the
 * progress a step makes against its length (docs/time-to-quality.md, "A
 * step's line search"). False when out of memory. */
static const double probe_scales[] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0};
enum { PROBE_SCALES = sizeof probe_scales / sizeof probe_scales[0] };

static size_t params_numel(const trainer *t)
{
    size_t n = 0;
    for (int s = 0; s < MODEL_STAGES; s++)
        for (int k = 0; k < t->sm[s].n_tensors; k++)
            n += t->sm[s].numel[k];
    return n;
}

static void params_copy(trainer *t, real *buf, bool out)
{
    size_t at = 0;
    for (int s = 0; s < MODEL_STAGES; s++)
        for (int k = 0; k < t->sm[s].n_tensors; k++) {
            size_t n = t->sm[s].numel[k];
            if (out)
                memcpy(buf + at, t->sm[s].param[k], n * sizeof *buf);
            else
                memcpy(t->sm[s].param[k], buf + at, n * sizeof *buf);
            at += n;
        }
}

static bool probe_step(trainer *t, const options *o, long s, double lr, const real *before)
{
    size_t n = params_numel(t);
    real *after = malloc(n * sizeof *after);
    if (!after)
        return false;
    params_copy(t, after, true);
    printf("PROBE step=%ld lr=%.6g scales=", s, lr);
    for (int j = 0; j < PROBE_SCALES; j++)
        printf("%s%g", j ? "," : "", probe_scales[j]);
    printf(" losses=");
    for (int j = 0; j < PROBE_SCALES; j++) {
        size_t at = 0;
        for (int st = 0; st < MODEL_STAGES; st++)
            for (int k = 0; k < t->sm[st].n_tensors; k++)
                for (uint64_t i = 0; i < t->sm[st].numel[k]; i++, at++)
                    t->sm[st].param[k][i] = (real)(before[at] + probe_scales[j] * ((double)after[at] - before[at]));
        printf("%s%.9f", j ? "," : "", evaluate(t, o->val_max));
    }
    printf("\n");
    params_copy(t, after, false);
    free(after);
    return true;
}

/* A run's evaluations need one whole microbatch of validation sequences
 * (evaluate_on takes whole microbatches): say so instead of a NaN loss. */
static bool can_evaluate(const trainer *t, const options *o)
{
    if (val_used(t, o))
        return true;
    if (o->val_max && o->val_max < (uint64_t)t->mb_seqs)
        fprintf(stderr, "tiny_trainer: --val-max %llu is less than one microbatch's %d sequences\n",
                (unsigned long long)o->val_max, t->mb_seqs);
    else
        fprintf(stderr, "tiny_trainer: --part %s of %s has %llu validation sequences, fewer than one microbatch's %d: "
                "the loss cannot be evaluated (give it more text)\n",
                part_name[o->part], o->data, (unsigned long long)t->c.n_val, t->mb_seqs);
    return false;
}

static int cmd_train(const options *o)
{
    trainer t;
    if (!trainer_init(&t, o))
        return 1;
    if (!can_evaluate(&t, o)) {
        trainer_free(&t);
        return 1;
    }
    printf("corpus: %u files, %llu tokens, %llu sequences of %d bytes, %llu prefix repeats dropped (first %d tokens), "
           "%llu train, %llu validation; LCP index built in %.3f ms\n",
           t.c.n_shards, (unsigned long long)t.c.n_tokens_all, (unsigned long long)t.c.n_seq, SEQ,
           (unsigned long long)t.c.n_dup, DEDUP_LCP, (unsigned long long)t.c.n_train_all,
           (unsigned long long)t.c.n_val_all, 1e3 * t.c.build_s);
    printf("part %s: files %u..%u of %u (pretrain: the first %u), %llu train, %llu validation (%llu evaluated); "
           "model %s%s%s\n",
           part_name[o->part], t.c.part_begin + 1, t.c.part_end, t.c.n_shards, t.c.pretrain_shards,
           (unsigned long long)t.c.n_train, (unsigned long long)t.c.n_val, (unsigned long long)val_used(&t, o),
           kind_name[o->kind], o->init ? ", initial parameters from " : "", o->init ? o->init : "");
    FILE *log = o->log ? fopen(o->log, "w") : NULL;
    if (o->log && !log) {
        fprintf(stderr, "tiny_trainer: cannot write %s\n", o->log);
        trainer_free(&t);
        return 1;
    }
    if (log)
        fprintf(log, "step,train_loss,val_loss,step_ms,optim_ms,wall_s,lr,planned_ratio,frozen_share,dw_skipped_share,"
                     "plan_ms\n");
    double start[TINY_ACTIONS], end[TINY_ACTIONS];
    pipe_step_io io;
    io_init(&io, &t, start, end);
    io.mode = o->no_freeze ? FREEZE_NONE : FREEZE_PLAN;
    double *ms = malloc(3 * (size_t)o->steps * sizeof *ms), *rep = ms + o->steps, *model = rep + o->steps;
    size_t n_ms = 0;
    double planned_sum = 0, frozen_sum = 0, dw_sum = 0, dw_skip_sum = 0, full_ms_sum = 0, wall_ms = 0;
    double evals[MAX_EVALS_KEPT];
    long n_evals = 0, steps_run = 0;
    double last_val = NAN;
    const uint64_t steady = TINY_WARMUP_STEPS + TINY_RAMP_STEPS;
    const double positions = (double)t.sm[1].positions * TINY_MICROBATCHES;
    real *probe_before = o->probe_every > 0 ? malloc(params_numel(&t) * sizeof *probe_before) : NULL;
    int rc = ms ? 0 : 1;
    for (long s = 0; s < o->steps && rc == 0; s++) {
        uint64_t step = o->first_step + (uint64_t)s;
        io.step = step;
        optim op = optim_at(o, s);
        double optim_ms = 0;
        bool probe = o->probe_every > 0 && (s + 1) % o->probe_every == 0;
        if (probe && probe_before)
            params_copy(&t, probe_before, true);
        bool stepped = train_step(&t, &io, &op, &optim_ms); /* then the line search along its update */
        if (!stepped || (probe && !(probe_before && probe_step(&t, o, s, op.lr, probe_before)))) {
            rc = 1;
            break;
        }
        steps_run = s + 1;
        wall_ms += io.makespan_ms + optim_ms;
        double loss = t.sm[1].loss_sum / positions;
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
            full_ms_sum += io.makespan_ms + optim_ms;
            planned_sum += planned, frozen_sum += share, dw_sum += dw, dw_skip_sum += skip;
        }
        /* The plan's step at this step's ratios (warm-up and ramp
         * included): the profile's action times, each freezable one
         * shortened by its ratio, replayed over the program. A step time
         * free of the machine's drift, for comparing runs. */
        double plan_d[TINY_ACTIONS];
        for (uint32_t i = 0; i < TINY_ACTIONS; i++) {
            const tiny_action *a = &tiny_program[i];
            double r = a->type == TINY_B && !o->no_freeze ? tiny_freeze_ratio(a->stage, a->microbatch, step) : 0.0;
            plan_d[i] = tiny_action_ms[i] - r * (tiny_action_ms[i] - tiny_action_frozen_ms[i]);
        }
        double plan_ms = replay_ms(plan_d);
        double val = NAN;
        bool last = s + 1 == o->steps;
        if (o->eval_every > 0 && ((s + 1) % o->eval_every == 0 || last)) {
            val = last_val = evaluate(&t, o->val_max);
            evals[n_evals++ % MAX_EVALS_KEPT] = val;
        }
        if (log) {
            fprintf(log, "%llu,%.6f,", (unsigned long long)step, loss);
            if (!isnan(val)) /* to 1e-9: --stop-below compares the unrounded value */
                fprintf(log, "%.9f", val);
            fprintf(log, ",%.4f,%.4f,%.6f,%.6g,%.6f,%.6f,%.6f,%.6f\n", io.makespan_ms, optim_ms, 1e-3 * wall_ms, op.lr,
                    planned, share, dw > 0 ? skip / dw : 0.0, plan_ms);
        }
        if (!isnan(val))
            printf("step %llu: train loss %.4f, validation loss %.4f, step %.2f ms + optimiser %.2f ms, lr %.3g\n",
                   (unsigned long long)step, loss, val, io.makespan_ms, optim_ms, op.lr);
        if (!isnan(o->stop_below) && n_evals >= MAX_EVALS_KEPT && steps_run >= o->stop_from &&
            (evals[0] + evals[1] + evals[2]) / MAX_EVALS_KEPT <= o->stop_below) {
            printf("stopping after step %llu: the mean of the last %d validation losses is at most %g\n",
                   (unsigned long long)step, MAX_EVALS_KEPT, o->stop_below);
            break;
        }
    }
    if (rc == 0) {
        /* The final loss: the last evaluation (every run with --eval-every
         * evaluates its last step), else one now. */
        if (n_evals == 0) {
            last_val = evaluate(&t, o->val_max);
            evals[n_evals++] = last_val;
        }
        long k = n_evals < MAX_EVALS_KEPT ? n_evals : MAX_EVALS_KEPT;
        double last3 = 0;
        for (long i = 0; i < k; i++)
            last3 += evals[(n_evals - 1 - i) % MAX_EVALS_KEPT];
        last3 /= (double)k;
        double med = median(ms, n_ms), med_rep = median(rep, n_ms), med_model = median(model, n_ms);
        double predicted = o->no_freeze ? TINY_BASELINE_MAKESPAN_MS : TINY_PLANNED_MAKESPAN_MS;
        printf("final validation loss %.4f (%llu sequences)\n", last_val, (unsigned long long)val_used(&t, o));
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
               "frozen=%.6f dw_skipped=%.6f steps=%ld wall_s=%.6f step_ms_mean=%.4f val_loss_last3=%.6f\n",
               last_val, med, predicted, med_model, med_rep, n_ms ? planned_sum / (double)n_ms : 0.0,
               n_ms ? frozen_sum / (double)n_ms : 0.0, dw_sum > 0 ? dw_skip_sum / dw_sum : 0.0, steps_run,
               1e-3 * wall_ms, n_ms ? full_ms_sum / (double)n_ms : NAN, last3);
        if (o->save && !save_params(&t, o->save)) {
            fprintf(stderr, "tiny_trainer: cannot write %s\n", o->save);
            rc = 1;
        }
    }
    free(ms);
    free(probe_before);
    if (log && fclose(log) != 0)
        rc = 1;
    trainer_free(&t);
    return rc;
}

/* Both stages' forward and backward of microbatch mb, nothing frozen, the
 * loss scaled by 1 / scale_positions: adds its gradient to every tensor's. */
static void noise_grad(trainer *t, int mb, real *din, double scale_positions)
{
    const real *y = model_forward(&t->sm[0], mb, NULL);
    model_forward(&t->sm[1], mb, y);
    model_backward(&t->sm[1], mb, NULL, din, NULL, scale_positions);
    model_backward(&t->sm[0], mb, din, NULL, NULL, scale_positions);
}

/* |G|^2 and tr(Sigma) from the mean squared norms of microbatch gradients
 * (gs, b predictions each) and of their step means (gb, M b). */
static void noise_estimate(double gs, double gb, double b, int M, double *g2, double *tr)
{
    *g2 = ((double)M * gb - gs) / (double)(M - 1);
    *tr = (gs - gb) / (1.0 / b - 1.0 / (b * M));
}

/* noise --exact: the same quantities over the whole part, no sampling:
 * every training sequence's own mean gradient g_i, G their mean and
 * tr(Sigma) = P (mean |g_i|^2 - |G|^2) per prediction (P predictions a
 * sequence; the sequence is the draw), B_simple = tr(Sigma) / |G|^2. What
 * the sampled estimate is tested against (tests/tiny_trainer/check.sh). */
static int noise_exact(const options *o)
{
    trainer t;
    options own = *o;
    own.mb_seqs = 1;
    if (!trainer_init(&t, &own))
        return 1;
    const double P = (double)t.sm[1].positions;
    size_t msg = model_message_reals(&t.sm[1]);
    real *din = calloc(msg ? msg : 1, sizeof *din);
    double *sum[MODEL_STAGES][MAX_TENSORS] = {{0}};
    double sq = 0;
    int rc = din ? 0 : 1;
    for (int s = 0; s < MODEL_STAGES && rc == 0; s++)
        for (int k = 0; k < t.sm[s].n_tensors; k++)
            if (!(sum[s][k] = calloc(t.sm[s].numel[k] ? t.sm[s].numel[k] : 1, sizeof(double))))
                rc = 1;
    const uint64_t n = t.c.n_train;
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        load_mb(&t, 0, &t.c.train[i]);
        for (int s = 0; s < MODEL_STAGES; s++)
            model_zero_grad(&t.sm[s]);
        noise_grad(&t, 0, din, P);
        for (int s = 0; s < MODEL_STAGES; s++)
            for (int k = 0; k < t.sm[s].n_tensors; k++)
                for (uint64_t j = 0; j < t.sm[s].numel[k]; j++) {
                    double g = t.sm[s].grad[k][j];
                    sum[s][k][j] += g, sq += g * g;
                }
    }
    if (rc == 0 && n > 0) {
        double g2 = 0;
        for (int s = 0; s < MODEL_STAGES; s++)
            for (int k = 0; k < t.sm[s].n_tensors; k++)
                for (uint64_t j = 0; j < t.sm[s].numel[k]; j++) {
                    double m = sum[s][k][j] / (double)n;
                    g2 += m * m;
                }
        double tr = P * (sq / (double)n - g2);
        printf("noise: exact over the part's %llu training sequences\n", (unsigned long long)n);
        double batch = P * (double)o->mb_seqs * TINY_MICROBATCHES;
        printf("RESULT b_simple=%.1f batch=%.0f ratio=%.4f g2=%.6g trace=%.6g\n", tr / g2, batch, tr / g2 / batch, g2,
               tr);
    }
    for (int s = 0; s < MODEL_STAGES; s++)
        for (int k = 0; k < MAX_TENSORS; k++)
            free(sum[s][k]);
    free(din);
    trainer_free(&t);
    return rc;
}

/* The gradient noise scale B_simple = tr(Sigma) / |G|^2 at fixed
 * parameters (the model --init gives, or the seed's), from --steps batches:
 * each batch's microbatch gradients g_m (batch b predictions each) and their
 * mean G (M b), unbiased as |G|^2 ~ (M |G_big|^2 - |g_small|^2) / (M - 1)
 * and tr(Sigma) ~ (|g_small|^2 - |G_big|^2) / (1 / b - 1 / (M b)), each
 * averaged over the batches before the ratio (docs/time-to-quality.md,
 * "The batch regime"). Per tensor, per stage and for the whole model, in
 * predictions. Sequences are drawn one by one (--order shuffled) whatever
 * --order says. */
static int cmd_noise(const options *o)
{
    if (o->exact)
        return noise_exact(o);
    trainer t;
    options own = *o;
    own.shuffled = true; /* the estimate needs independent microbatches; a run of sorted neighbours is not */
    if (!trainer_init(&t, &own))
        return 1;
    const int M = (int)TINY_MICROBATCHES;
    const double b = (double)t.sm[1].positions;
    size_t msg = model_message_reals(&t.sm[1]);
    real *din = calloc(msg ? msg : 1, sizeof *din);
    real *prev[MODEL_STAGES][MAX_TENSORS] = {{0}};
    double small2[MODEL_STAGES + 1] = {0}, big2[MODEL_STAGES + 1] = {0};
    double tsmall2[MODEL_STAGES][MAX_TENSORS] = {{0}}, tbig2[MODEL_STAGES][MAX_TENSORS] = {{0}};
    int rc = din ? 0 : 1;
    for (int s = 0; s < MODEL_STAGES && rc == 0; s++)
        for (int k = 0; k < t.sm[s].n_tensors; k++)
            if (!(prev[s][k] = malloc((t.sm[s].numel[k] ? t.sm[s].numel[k] : 1) * sizeof(real))))
                rc = 1;
    long n = 0;
    for (; n < o->steps && rc == 0; n++) {
        if (!next_batch(&t)) {
            rc = 1;
            break;
        }
        for (int s = 0; s < MODEL_STAGES; s++) {
            model_zero_grad(&t.sm[s]);
            for (int k = 0; k < t.sm[s].n_tensors; k++)
                memset(prev[s][k], 0, t.sm[s].numel[k] * sizeof(real));
        }
        for (int mb = 0; mb < M; mb++) {
            noise_grad(&t, mb, din, b * M);
            for (int s = 0; s < MODEL_STAGES; s++) /* g_m = M x this microbatch's share */
                for (int k = 0; k < t.sm[s].n_tensors; k++)
                    for (uint64_t i = 0; i < t.sm[s].numel[k]; i++) {
                        double g = (double)M * ((double)t.sm[s].grad[k][i] - (double)prev[s][k][i]);
                        small2[s] += g * g / M, small2[MODEL_STAGES] += g * g / M, tsmall2[s][k] += g * g / M;
                        prev[s][k][i] = t.sm[s].grad[k][i];
                    }
        }
        for (int s = 0; s < MODEL_STAGES; s++)
            for (int k = 0; k < t.sm[s].n_tensors; k++)
                for (uint64_t i = 0; i < t.sm[s].numel[k]; i++) {
                    double g = t.sm[s].grad[k][i];
                    big2[s] += g * g, big2[MODEL_STAGES] += g * g, tbig2[s][k] += g * g;
                }
    }
    if (rc == 0 && n > 0) {
        printf("noise: %ld batches of %d microbatches x %.0f predictions (%s, model %s%s%s)\n", n, M, b, o->data,
               kind_name[o->kind], o->init ? ", parameters from " : "", o->init ? o->init : "");
        for (int s = 0; s < MODEL_STAGES; s++)
            for (int k = 0; k < t.sm[s].n_tensors; k++) {
                double g2, tr;
                noise_estimate(tsmall2[s][k] / (double)n, tbig2[s][k] / (double)n, b, M, &g2, &tr);
                printf("noise: stage %d tensor %s: |G|^2 %.4g, tr(Sigma) %.4g, B_simple %.0f predictions\n", s,
                       t.sm[s].tensor_name[k], g2, tr, tr / g2);
            }
        for (int s = 0; s <= MODEL_STAGES; s++) {
            double g2, tr;
            noise_estimate(small2[s] / (double)n, big2[s] / (double)n, b, M, &g2, &tr);
            double bn = tr / g2;
            if (s < MODEL_STAGES)
                printf("noise: stage %d: |G|^2 %.4g, tr(Sigma) %.4g, B_simple %.0f predictions\n", s, g2, tr, bn);
            else
                printf("RESULT b_simple=%.1f batch=%.0f ratio=%.4f g2=%.6g trace=%.6g\n", bn, b * M, bn / (b * M),
                       g2, tr);
        }
    }
    for (int s = 0; s < MODEL_STAGES; s++)
        for (int k = 0; k < MAX_TENSORS; k++)
            free(prev[s][k]);
    free(din);
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
    if (!can_evaluate(&a, o)) {
        trainer_free(&a);
        trainer_free(&b);
        return 1;
    }
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
        optim op = optim_at(o, s);
        for (int k = 0; k < MODEL_STAGES; k++) {
            model_adam(&a.sm[k], &op);
            model_adam(&b.sm[k], &op);
            frozen_steps += ia.frozen_numel[k] > 0;
            for (int t = 0; t < a.sm[k].n_tensors; t++)
                if (memcmp(a.sm[k].param[t], b.sm[k].param[t], a.sm[k].numel[t] * sizeof(real)) != 0) {
                    printf("check: step %llu: stage %d tensor %s differs between pipelined and sequential\n",
                           (unsigned long long)step, k, a.sm[k].tensor_name[t]);
                    rc = 1;
                }
        }
        if (a.sm[1].loss_sum != b.sm[1].loss_sum) {
            printf("check: step %llu: loss differs\n", (unsigned long long)step);
            rc = 1;
        }
    }
    /* The evaluation too: pipelined against one thread, the same sum. */
    double vp = evaluate_on(&a, o->val_max, false), vs = evaluate_on(&a, o->val_max, true);
    if (rc == 0 && !(vp == vs)) {
        printf("check: the pipelined evaluation (%.17g) differs from one thread's (%.17g)\n", vp, vs);
        rc = 1;
    }
    if (rc == 0)
        printf("check: --model %s: %ld pipelined steps equal the sequential ones bit for bit (%llu stage-steps with "
               "frozen tensors), and so does the evaluation (%llu validation sequences)\n",
               kind_name[o->kind], o->steps, (unsigned long long)frozen_steps, (unsigned long long)val_used(&a, o));
    trainer_free(&a);
    trainer_free(&b);
    return rc;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: tiny_trainer profile DIR | train | check | noise | plot NOFREEZE.csv FREEZE.csv OUT.svg, with\n"
            "  --model mlp|gpt|mlp_narrow  the model (default mlp; mlp_narrow: the MLP 48 wide); the binary must\n"
            "                       be built against its spec's plan (tiny.yaml, tiny_gpt.yaml, tiny_narrow.yaml)\n"
            "  --data DIR           text files under DIR, recursively (default /usr/share/common-licenses);\n"
            "                       --corpus DIR is the same\n"
            "  --part all|pretrain|finetune  the shards trained and validated on (default all)\n"
            "  --val-max N          evaluate on the part's first N validation sequences (default 0: all)\n"
            "  --seed N             initial weights and data order (default 1)\n"
            "  --mb-seqs N          sequences per microbatch, 1 to 4096 (default 2; the step: 8 microbatches)\n"
            "  --order grouped|shuffled  a step's sequences: a run of neighbours in sorted order, shuffled\n"
            "                       runs (default grouped); or each drawn on its own from the epoch's shuffle\n"
            "  --init FILE          start from parameters --save wrote (no optimiser state)\n"
            "  --save FILE          write both stages' parameters at the end (train)\n"
            "  --steps N            steps at most (train 600, profile 30, check 3, noise: batches, 600)\n"
            "  --first-step S       the step the first step's masks are drawn for (default 0; check: warm-up + ramp)\n"
            "  --no-freeze          freeze nothing\n"
            "  --lr X               peak learning rate (default 2e-3)\n"
            "  --lr-warmup W        linear warm-up over W steps (default 0)\n"
            "  --lr-horizon H       cosine from the peak at step W to lr-min x peak at step H (default 0: constant)\n"
            "  --lr-min F           the floor as a fraction of the peak (default 0.1)\n"
            "  --grad share|mean|sqrt|linear\n"
            "                       a partly computed gradient: the sum of shares, the mean, or the sum with the\n"
            "                       tensor's step size times sqrt(c / M) or c / M (default share; model.h)\n"
            "  --wd X               AdamW decoupled weight decay (default 0)\n"
            "  --beta2 X            AdamW's second-moment decay, 0 < X < 1 (default 0.999)\n"
            "  --eval-every K       validate at steps K, 2K, ... and the last (default 25; 0: at the end only)\n"
            "  --stop-below L       stop once the mean of the last 3 validation losses is <= L\n"
            "  --stop-from N        ... but not before N steps have run (default 0)\n"
            "  --log FILE           one CSV row per step\n"
            "  --probe-every K      train: after steps K, 2K, ... the validation loss along the step's update at\n"
            "                       0, 0.5, 1, 1.5, 2 and 3 times its length (one PROBE line each; 0: never)\n"
            "  --exact              noise: over every training sequence of the part instead of --steps batches\n");
    return 2;
}

static bool parse_u64(const char *v, uint64_t *out)
{
    char *end;
    if (!v || !*v || *v == '-')
        return false;
    *out = strtoull(v, &end, 10);
    return *end == '\0';
}

static bool parse_long(const char *v, long *out)
{
    char *end;
    if (!v || !*v)
        return false;
    *out = strtol(v, &end, 10);
    return *end == '\0';
}

static bool parse_double(const char *v, double *out)
{
    char *end;
    if (!v || !*v)
        return false;
    *out = strtod(v, &end);
    return *end == '\0';
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    const char *cmd = argv[1];
    if (!strcmp(cmd, "plot"))
        return argc == 5 ? plot_losses(argv[2], argv[3], argv[4]) : usage();
    options o = {.data = "/usr/share/common-licenses",
                 .kind = MODEL_MLP,
                 .part = CORPUS_ALL,
                 .steps = 600,
                 .eval_every = 25,
                 .seed = 1,
                 .mb_seqs = MB_SEQS_DEFAULT,
                 .lr = 2e-3,
                 .lr_min = 0.1,
                 .beta2 = 0.999,
                 .stop_below = NAN,
                 .grad = GRAD_SHARE};
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
        bool ok = v != NULL;
        if (!strcmp(a, "--no-freeze")) {
            o.no_freeze = true;
            continue;
        }
        if (!strcmp(a, "--exact")) {
            o.exact = true;
            continue;
        }
        if (!strcmp(a, "--steps"))
            ok = ok && parse_long(v, &o.steps);
        else if (!strcmp(a, "--first-step"))
            ok = ok && parse_u64(v, &o.first_step);
        else if (!strcmp(a, "--log"))
            o.log = v;
        else if (!strcmp(a, "--eval-every"))
            ok = ok && parse_long(v, &o.eval_every) && o.eval_every >= 0;
        else if (!strcmp(a, "--corpus") || !strcmp(a, "--data"))
            o.data = v;
        else if (!strcmp(a, "--order") && v && (!strcmp(v, "grouped") || !strcmp(v, "shuffled")))
            o.shuffled = !strcmp(v, "shuffled");
        else if (!strcmp(a, "--mb-seqs"))
            ok = ok && parse_long(v, &o.mb_seqs) && o.mb_seqs >= 1 && o.mb_seqs <= MB_SEQS_MAX;
        else if (!strcmp(a, "--seed"))
            ok = ok && parse_u64(v, &o.seed);
        else if (!strcmp(a, "--lr"))
            ok = ok && parse_double(v, &o.lr) && o.lr > 0;
        else if (!strcmp(a, "--lr-warmup"))
            ok = ok && parse_long(v, &o.lr_warmup) && o.lr_warmup >= 0;
        else if (!strcmp(a, "--lr-horizon"))
            ok = ok && parse_long(v, &o.lr_horizon) && o.lr_horizon >= 0;
        else if (!strcmp(a, "--lr-min"))
            ok = ok && parse_double(v, &o.lr_min) && o.lr_min >= 0 && o.lr_min <= 1;
        else if (!strcmp(a, "--wd"))
            ok = ok && parse_double(v, &o.wd) && o.wd >= 0;
        else if (!strcmp(a, "--beta2"))
            ok = ok && parse_double(v, &o.beta2) && o.beta2 > 0 && o.beta2 < 1;
        else if (!strcmp(a, "--stop-below"))
            ok = ok && parse_double(v, &o.stop_below);
        else if (!strcmp(a, "--stop-from"))
            ok = ok && parse_long(v, &o.stop_from) && o.stop_from >= 0;
        else if (!strcmp(a, "--probe-every"))
            ok = ok && parse_long(v, &o.probe_every) && o.probe_every >= 0;
        else if (!strcmp(a, "--val-max"))
            ok = ok && parse_u64(v, &o.val_max);
        else if (!strcmp(a, "--init"))
            o.init = v;
        else if (!strcmp(a, "--save"))
            o.save = v;
        else if (!strcmp(a, "--model") && v && (!strcmp(v, "mlp") || !strcmp(v, "gpt") || !strcmp(v, "mlp_narrow")))
            o.kind = !strcmp(v, "gpt") ? MODEL_GPT : !strcmp(v, "mlp") ? MODEL_MLP : MODEL_MLP_NARROW;
        else if (!strcmp(a, "--grad") && v &&
                 (!strcmp(v, "share") || !strcmp(v, "mean") || !strcmp(v, "sqrt") || !strcmp(v, "linear")))
            o.grad = !strcmp(v, "mean") ? GRAD_MEAN : !strcmp(v, "sqrt") ? GRAD_SQRT : !strcmp(v, "linear") ? GRAD_LINEAR : GRAD_SHARE;
        else if (!strcmp(a, "--part") && v && !strcmp(v, "all"))
            o.part = CORPUS_ALL;
        else if (!strcmp(a, "--part") && v && !strcmp(v, "pretrain"))
            o.part = CORPUS_PRETRAIN;
        else if (!strcmp(a, "--part") && v && !strcmp(v, "finetune"))
            o.part = CORPUS_FINETUNE;
        else
            ok = false;
        if (!ok) {
            fprintf(stderr, "tiny_trainer: bad option %s%s%s\n", a, v ? " " : "", v ? v : "");
            return usage();
        }
        i++;
    }
    if (o.steps < 1)
        return usage();
    if (o.lr_horizon > 0 && o.lr_horizon <= o.lr_warmup) {
        fprintf(stderr, "tiny_trainer: --lr-horizon must be 0 or above --lr-warmup\n");
        return 2;
    }
    if (!strcmp(cmd, "profile"))
        return cmd_profile(&o);
    if (!strcmp(cmd, "train"))
        return cmd_train(&o);
    if (!strcmp(cmd, "check"))
        return cmd_check(&o);
    if (!strcmp(cmd, "noise"))
        return cmd_noise(&o);
    return usage();
}
