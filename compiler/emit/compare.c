/* compare: one plan per built-in schedule, then the table, CSV and chart. */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "embedded.h"
#include "json.h"
#include "real.h"
#include "spec_variant.h"
#include "tmpl.h"
#include "version.h"

/* The built-in schedules in the order rows tie-break in. */
static const spec_schedule candidates[] = {SCHED_GPIPE, SCHED_1F1B,        SCHED_INTERLEAVED_1F1B, SCHED_ZBH1,
                                           SCHED_ZBV,   SCHED_LOOPED_BFS, SCHED_DUALPIPEV};
enum { N_CANDIDATES = sizeof candidates / sizeof *candidates };

/* Stages per rank for kind: the spec's own for its schedule; two for the
 * V schedules; the spec's (at least two) for the looped ones; else one. */
static uint32_t candidate_v(const spec *sp, spec_schedule kind)
{
    if (kind == sp->schedule)
        return sp->stages_per_rank;
    switch (kind) {
    case SCHED_ZBV:
    case SCHED_DUALPIPEV: return 2;
    case SCHED_INTERLEAVED_1F1B:
    case SCHED_LOOPED_BFS: return sp->stages_per_rank >= 2 ? sp->stages_per_rank : 2;
    default: return 1;
    }
}

/* Per-stage means of the spec's own plan's durations (source measured or
 * trace: the timings are per action, not tables). */
static bool means_from_plan(const plan *p, arena *a, spec_times **out)
{
    size_t n = p->s->n_stages;
    spec_times *t = arena_alloc_array(a, n, sizeof *t);
    double *cnt = arena_alloc_array(a, n * 4, sizeof *cnt);
    if (!t || !cnt)
        return false;
    for (size_t i = 0; i < p->s->n_actions; i++) {
        const sched_action *x = &p->s->actions[i];
        spec_times *s = &t[x->stage];
        cnt[x->stage * 4 + x->type] += 1.0;
        switch ((act_type)x->type) {
        case ACT_F: s->f += p->dur[i]; break;
        case ACT_B: s->b += p->dur[i], s->bf += p->w_min[i]; break;
        case ACT_I: s->i += p->dur[i]; break;
        case ACT_W: s->w += p->dur[i], s->wf += p->w_min[i]; break;
        }
    }
    for (size_t st = 0; st < n; st++) {
        spec_times *s = &t[st];
        const double *c = &cnt[st * 4];
        s->f = c[ACT_F] ? s->f / c[ACT_F] : -1;
        s->b = c[ACT_B] ? s->b / c[ACT_B] : -1, s->bf = c[ACT_B] ? s->bf / c[ACT_B] : -1;
        s->i = c[ACT_I] ? s->i / c[ACT_I] : -1;
        s->w = c[ACT_W] ? s->w / c[ACT_W] : -1, s->wf = c[ACT_W] ? s->wf / c[ACT_W] : -1;
    }
    *out = t;
    return true;
}

/* The row's numbers from its plan. */
static void fill_row(compare_row *r, const plan *p, const spec *sp)
{
    r->applicable = true;
    r->actions = p->s->n_actions;
    r->baseline_ms = plan_step_ms(p, false);
    r->optimised_ms = plan_step_ms(p, true);
    double sum = 0;
    size_t cnt = 0;
    for (size_t u = 0; u < p->s->n_actions; u++)
        if (p->freezable[u]) {
            sum += p->x[u];
            cnt++;
        }
    r->mean_ratio = cnt ? sum / (double)cnt : 0.0;
    r->bytes_known = p->act_bytes_known;
    for (uint32_t k = 0; k < p->s->ranks; k++) {
        if (p->act_peak_sets[k] > r->peak_sets)
            r->peak_sets = p->act_peak_sets[k];
        if (p->act_peak_bytes[k] > r->peak_bytes)
            r->peak_bytes = p->act_peak_bytes[k];
    }
    r->fits = !sp->has_memory_limit || (r->bytes_known && r->peak_bytes <= sp->memory_limit_bytes);
    r->ttq_known = p->ttq_known;
    r->ttq_speedup = p->ttq_speedup;
    r->ttq_cap = p->sp->freeze.max_ratio;
}

/* One plan to make: the spec's own (var == NULL until taken: sp), or a
 * variant; run by the pool, each in its own arena and message list. */
typedef struct compare_job {
    compare_row *row;
    const spec *sp;
    const spec_times *base;
    unsigned base_how;
    plan_options opt;
    diag_list mine;
    tfc_status st;
} compare_job;

typedef struct compare_pool {
    compare_job *job;
    size_t n, next;
    pthread_mutex_t lock;
} compare_pool;

/* A rough order of a job's solve time: its actions, DualPipeV's a little more. */
static double job_cost(const spec *sp, const compare_job *j)
{
    const compare_row *r = j->row;
    double actions = (double)sp->ranks * r->stages_per_rank * sp->microbatches * (spec_schedule_is_split(r->kind) ? 3 : 2);
    return actions * (r->kind == SCHED_DUALPIPEV ? 1.1 : 1.0);
}

static void run_job(compare_job *j)
{
    compare_row *r = j->row;
    arena tmp;
    arena_init(&tmp, 0);
    diag_init(&j->mine, 4);
    const spec *var = j->sp;
    j->st = TFC_OK;
    if (!r->is_spec) {
        var = spec_variant(j->sp, j->base, j->base_how, r->kind, r->stages_per_rank, &tmp, r->reason,
                           sizeof r->reason, &r->how);
        if (!var && strcmp(r->reason, "out of memory") == 0)
            j->st = diag_nomem(&j->mine, "comparing schedules");
    }
    plan *p;
    if (var && (j->st = plan_build(var, &j->opt, &tmp, &j->mine, &p)) == TFC_OK)
        fill_row(r, p, j->sp);
    arena_free(&tmp);
}

static void *pool_run(void *arg)
{
    compare_pool *pl = arg;
    for (;;) {
        pthread_mutex_lock(&pl->lock);
        size_t k = pl->next < pl->n ? pl->next++ : pl->n;
        pthread_mutex_unlock(&pl->lock);
        if (k == pl->n)
            return NULL;
        run_job(&pl->job[k]);
    }
}

/* Runs the jobs on up to one thread per job and processor (the plans are
 * independent, and each the same whatever thread runs it). */
static void run_pool(compare_job *job, size_t n)
{
    compare_pool pl = {job, n, 0, PTHREAD_MUTEX_INITIALIZER};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const char *cap = getenv("TFC_TEST_COMPARE_THREADS"); /* tests: the same rows on one thread */
    if (cap && atol(cap) > 0)
        cpus = atol(cap);
    size_t want = cpus > 1 ? (size_t)cpus : 1;
    if (want > n)
        want = n;
    pthread_t th[N_CANDIDATES + 1];
    size_t started = 0;
    for (size_t t = 1; t < want; t++)
        if (pthread_create(&th[started], NULL, pool_run, &pl) == 0)
            started++;
    pool_run(&pl); /* this thread too; with no threads, all of them */
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_mutex_destroy(&pl.lock);
}

tfc_status compare_run(const spec *sp, const plan_options *opt, arena *a, diag_list *d, compare_result *out)
{
    memset(out, 0, sizeof *out);
    out->recommended = out->spec_row = out->fastest_to_quality = -1;
    tfc_status pst = plan_resolve_pilot(sp, opt, a, d, &sp); /* the pilot ran the spec's schedule */
    if (pst != TFC_OK)
        return pst;
    size_t cap = N_CANDIDATES + 1;
    compare_row *rows = arena_alloc_array(a, cap, sizeof *rows);
    compare_job *job = arena_alloc_array(a, cap, sizeof *job);
    spec_times *base = arena_alloc_array(a, sp->n_stages, sizeof *base);
    if (!rows || !job || !base)
        return diag_nomem(d, "comparing schedules");
    size_t n;
    rows[0] = (compare_row){.kind = sp->schedule, .stages_per_rank = sp->stages_per_rank, .is_spec = true};
    job[0] = (compare_job){.row = &rows[0], .sp = sp, .opt = *opt};
    n = 1;
    unsigned base_how = 0;
    if (!spec_times_from_tables(sp, base, &base_how)) {
        /* Measured timings are per action: the spec's own plan first, and
         * the others timed by its per-stage means. */
        arena own;
        arena_init(&own, 0);
        plan *p;
        tfc_status st = plan_build(sp, opt, &own, d, &p);
        spec_times *m = NULL;
        if (st == TFC_OK && !means_from_plan(p, &own, &m))
            st = diag_nomem(d, "comparing schedules");
        if (st != TFC_OK) {
            arena_free(&own);
            return st;
        }
        fill_row(&rows[0], p, sp);
        base_how = VARIANT_MEASURED;
        for (size_t i = 0; i < sp->n_stages; i++) {
            base[i] = m[i];
            base_how |= spec_times_complete(&base[i]);
        }
        arena_free(&own);
        n = 0; /* the spec's row is done: no job for it */
    }
    size_t jobs = n;
    /* Rows 1.. are the other schedules, in candidate order. */
    size_t nrows = 1;
    for (size_t c = 0; c < N_CANDIDATES; c++) {
        spec_schedule kind = candidates[c];
        uint32_t v = candidate_v(sp, kind);
        if (kind == sp->schedule && v == sp->stages_per_rank)
            continue;
        rows[nrows] = (compare_row){.kind = kind, .stages_per_rank = v};
        job[jobs++] = (compare_job){.row = &rows[nrows], .sp = sp, .base = base, .base_how = base_how, .opt = *opt};
        nrows++;
    }
    for (size_t j = 0; j < jobs; j++) /* one progress line cannot show several solves at once */
        job[j].opt.progress = NULL, job[j].opt.progress_ctx = NULL;
    /* The longest solves first, so that no thread is left with one at the
     * end: more stages first, split backwards (more actions) first, the
     * overlapped pairs of DualPipeV first among those. Only the order the
     * pool takes them in; the rows keep theirs. */
    for (size_t i = 1; i < jobs; i++) {
        compare_job key = job[i];
        size_t j = i;
        while (j > 0 && job_cost(sp, &job[j - 1]) < job_cost(sp, &key)) {
            job[j] = job[j - 1];
            j--;
        }
        job[j] = key;
    }
    run_pool(job, jobs);
    tfc_status st = TFC_OK;
    for (size_t j = 0; j < jobs; j++) {
        compare_job *x = &job[j];
        if (x->st == TFC_OK) {
            diag_free(&x->mine);
        } else if (x->row->is_spec || x->st == TFC_NOMEM || x->mine.nomem || x->st == TFC_IO) {
            /* The spec's own plan failing is the spec's error, as for tfc plan. */
            if (st == TFC_OK)
                st = x->st;
            diag_move(d, &x->mine);
        } else {
            x->row->applicable = false;
            if (x->mine.n || !x->row->reason[0])
                snprintf(x->row->reason, sizeof x->row->reason, "%s",
                         x->mine.n ? x->mine.items[0].msg
                         : x->st == TFC_INFEASIBLE ? "the freeze LP has no plan" : "not planned");
            diag_free(&x->mine);
        }
    }
    if (st != TFC_OK)
        return diag_status(d, st);
    n = nrows;
    /* By optimised makespan; among equal ones (to 1e-9: the LP's optimum
     * reached by other schedules) the spec's own schedule first (switching
     * buys nothing), then the least freezing (it costs steps), then the
     * baseline; then candidate order (stable). Rows that could not be
     * planned last. */
    for (size_t i = 1; i < n; i++) {
        compare_row key = rows[i];
        size_t j = i;
        while (j > 0) {
            const compare_row *q = &rows[j - 1];
            bool after = !q->applicable && key.applicable;
            if (q->applicable && key.applicable) {
                bool tie = fabs(key.optimised_ms - q->optimised_ms) <= 1e-9 * fmax(key.optimised_ms, q->optimised_ms);
                after = tie ? (key.is_spec != q->is_spec ? key.is_spec
                               : key.mean_ratio != q->mean_ratio ? key.mean_ratio < q->mean_ratio
                                                                 : key.baseline_ms < q->baseline_ms)
                            : key.optimised_ms < q->optimised_ms;
            }
            if (!after)
                break;
            rows[j] = rows[j - 1];
            j--;
        }
        rows[j] = key;
    }
    for (size_t i = 0; i < n; i++) {
        if (rows[i].ttq_known)
            out->ttq_known = true;
        if (rows[i].is_spec)
            out->spec_row = (long)i;
        if (out->recommended < 0 && rows[i].applicable && rows[i].fits)
            out->recommended = (long)i;
        if (rows[i].applicable && rows[i].fits && rows[i].ttq_known && isfinite(compare_ttq_ms(&rows[i])) &&
            (out->fastest_to_quality < 0 ||
             compare_ttq_ms(&rows[i]) < compare_ttq_ms(&rows[out->fastest_to_quality])))
            out->fastest_to_quality = (long)i; /* the first (fastest step) among equals */
    }
    out->row = rows;
    out->n = n;
    return TFC_OK;
}

/* The derivation bits as words: JSON names or prose. */
static const struct {
    unsigned bit;
    const char *json, *text;
} how_names[] = {
    {VARIANT_MEASURED, "measured_means", "per-stage means of the measured actions"},
    {VARIANT_RESPLIT, "resplit", "tensors re-split, timings by parameter share"},
    {VARIANT_MODEL, "cost_model", "the cost model at this stage count"},
    {VARIANT_SPLIT_FROM_B, "split_from_b", "I and W from B"},
    {VARIANT_B_FROM_SPLIT, "b_from_split", "B = I + W"},
};
enum { N_HOW = sizeof how_names / sizeof *how_names };

static const char *row_name(const compare_row *r, char *buf, size_t cap)
{
    if (r->kind == SCHED_INTERLEAVED_1F1B || r->kind == SCHED_LOOPED_BFS ||
        (r->stages_per_rank > 1 && r->kind != SCHED_ZBV && r->kind != SCHED_DUALPIPEV))
        snprintf(buf, cap, "%s(v=%u)", spec_schedule_name(r->kind), r->stages_per_rank);
    else
        snprintf(buf, cap, "%s", spec_schedule_name(r->kind));
    return buf;
}

static void print_bytes(FILE *f, uint64_t b) { fputs(real_bytes(b).s, f); }

double compare_ttq_ms(const compare_row *w)
{
    return w->ttq_speedup > 0.0 ? w->baseline_ms / w->ttq_speedup : INFINITY;
}

void compare_print_text(const spec *sp, const char *label, const compare_result *r, FILE *f)
{
    fprintf(f, "%s: %s: every built-in schedule on %u rank%s, %u microbatch%s, freeze.max_ratio %s", label,
            sp->name, sp->ranks, sp->ranks == 1 ? "" : "s", sp->microbatches, sp->microbatches == 1 ? "" : "es",
            sp->freeze.max_ratio_auto ? "auto (each schedule its own cap)" : real_shortest(sp->freeze.max_ratio).s);
    if (sp->has_memory_limit) {
        fputs(", memory limit ", f);
        print_bytes(f, sp->memory_limit_bytes);
        fputs(" a rank", f);
    }
    fputs("\n\n", f);
    fprintf(f, "  %-22s %6s %12s %13s %9s %12s %9s %12s  %s\n", "schedule", "stages", "baseline ms", "optimised ms",
            "speed-up", "mean freeze", "peak sets", "peak bytes", "timings");
    unsigned used = 0;
    for (size_t i = 0; i < r->n; i++) {
        const compare_row *w = &r->row[i];
        char name[48];
        row_name(w, name, sizeof name);
        const char *mark = (long)i == r->recommended ? "*" : " ";
        if (!w->applicable) {
            fprintf(f, "%s %-22s %6u  does not fit: %s\n", mark, name, sp->ranks * w->stages_per_rank, w->reason);
            continue;
        }
        fprintf(f, "%s %-22s %6u %12s %13s %8sx %12s %9u ", mark, name, sp->ranks * w->stages_per_rank,
                real_fixed(w->baseline_ms, 3).s, real_fixed(w->optimised_ms, 3).s,
                real_fixed(w->optimised_ms > 0 ? w->baseline_ms / w->optimised_ms : 1.0, 4).s,
                real_fixed(w->mean_ratio, 4).s, w->peak_sets);
        if (w->bytes_known) {
            char b[32];
            FILE *m = fmemopen(b, sizeof b, "w");
            if (m) {
                print_bytes(m, w->peak_bytes);
                fputc('\0', m);
                fclose(m);
            } else {
                snprintf(b, sizeof b, "%llu", (unsigned long long)w->peak_bytes);
            }
            fprintf(f, "%12s", b);
        } else {
            fprintf(f, "%12s", "-");
        }
        if (w->is_spec)
            fputs("  the spec's", f);
        else if (!w->how)
            fputs("  the spec's tables", f);
        else {
            fputs("  re-derived:", f);
            const char *sep = " ";
            for (size_t k = 0; k < N_HOW; k++)
                if (w->how & how_names[k].bit) {
                    fprintf(f, "%s%s", sep, how_names[k].json);
                    sep = ", ";
                    used |= how_names[k].bit;
                }
        }
        if (!w->fits)
            fputs("  (over the memory limit)", f);
        fputc('\n', f);
    }
    fputc('\n', f);
    if (r->recommended >= 0) {
        const compare_row *w = &r->row[r->recommended];
        char name[48];
        fprintf(f, "recommended (*): %s, %s ms with freezing", row_name(w, name, sizeof name),
                real_fixed(w->optimised_ms, 3).s);
        if (r->spec_row >= 0 && r->spec_row != r->recommended && r->row[r->spec_row].applicable)
            fprintf(f, ", %sx the spec's %s (%s ms)",
                    real_fixed(w->optimised_ms > 0 ? r->row[r->spec_row].optimised_ms / w->optimised_ms : 1.0, 4).s,
                    row_name(&r->row[r->spec_row], name, sizeof name),
                    real_fixed(r->row[r->spec_row].optimised_ms, 3).s);
        else if (r->spec_row == r->recommended)
            fputs(", the spec's own schedule", f);
        fputs(sp->has_memory_limit ? ": the fastest within the memory limit\n" : ": the fastest\n", f);
    } else {
        fputs(sp->has_memory_limit ? "recommended: none: no schedule fits the memory limit\n"
                                   : "recommended: none: no schedule could be planned\n",
              f);
    }
    if (used)
        for (size_t k = 0; k < N_HOW; k++)
            if (used & how_names[k].bit)
                fprintf(f, "  %s: %s\n", how_names[k].json, how_names[k].text);
    if (used)
        fputs("  (docs/schedules.md, \"Comparing schedules\")\n", f);
    if (r->ttq_known) {
        fprintf(f, "predicted time to quality (beta %s, the batch regime of the spec's training section):\n",
                real_brief(sp->training.noise_scale_tokens / (double)sp->training.batch_tokens).s);
        for (size_t i = 0; i < r->n; i++) {
            const compare_row *w = &r->row[i];
            char name[48];
            if (w->applicable && w->ttq_known) {
                double ms = compare_ttq_ms(w);
                fprintf(f, "  %-22s %8sx at cap %-4s %12s ms a no-freezing step's progress%s\n",
                        row_name(w, name, sizeof name), real_fixed_apart(w->ttq_speedup, 4, 1.0).s, real_shortest(w->ttq_cap).s,
                        isfinite(ms) ? real_fixed(ms, 3).s : "never",
                        w->ttq_speedup > 1.0 ? "" : " (freezing does not pay)");
            }
        }
        if (r->fastest_to_quality >= 0) {
            const compare_row *w = &r->row[r->fastest_to_quality];
            char name[48];
            fprintf(f, "fastest to quality: %s, %s ms a no-freezing step's progress (its step without freezing over its "
                    "predicted speed-up)%s\n",
                    row_name(w, name, sizeof name), real_fixed(compare_ttq_ms(w), 3).s,
                    sp->has_memory_limit ? ", within the memory limit" : "");
        } else {
            fprintf(f, "fastest to quality: none (no schedule%s is predicted to reach the no-freezing run's loss)\n",
                    sp->has_memory_limit ? " within the memory limit" : "");
        }
    }
}

void compare_print_json(const spec *sp, const char *label, const compare_result *r, FILE *f)
{
    fputs("{\n  \"format\": \"tfc-compare-1\",\n  \"tfc_version\": ", f);
    json_string(f, version_string());
    fputs(",\n  \"spec\": ", f);
    json_string(f, label);
    fputs(",\n  \"name\": ", f);
    json_string(f, sp->name);
    fputs(",\n  \"spec_sha256\": ", f);
    json_string(f, sp->sha256);
    fprintf(f, ",\n  \"ranks\": %u,\n  \"microbatches\": %u,\n  \"max_ratio\": ", sp->ranks, sp->microbatches);
    if (sp->freeze.max_ratio_auto) /* each row's cap is its time_to_quality.cap */
        fputs("\"auto\"", f);
    else
        json_number(f, sp->freeze.max_ratio);
    fputs(",\n  \"memory_limit_bytes\": ", f);
    if (sp->has_memory_limit)
        fprintf(f, "%llu", (unsigned long long)sp->memory_limit_bytes);
    else
        fputs("null", f);
    fputs(",\n  \"recommended\": ", f);
    if (r->recommended >= 0)
        json_string(f, spec_schedule_name(r->row[r->recommended].kind));
    else
        fputs("null", f);
    if (r->ttq_known) { /* with training: the row that reaches the loss soonest (compare_ttq_ms) */
        fputs(",\n  \"fastest_to_quality\": ", f);
        if (r->fastest_to_quality >= 0)
            json_string(f, spec_schedule_name(r->row[r->fastest_to_quality].kind));
        else
            fputs("null", f);
    }
    fputs(",\n  \"schedules\": [", f);
    for (size_t i = 0; i < r->n; i++) {
        const compare_row *w = &r->row[i];
        fputs(i ? ",\n    {\"schedule\": " : "\n    {\"schedule\": ", f);
        json_string(f, spec_schedule_name(w->kind));
        fprintf(f, ", \"stages_per_rank\": %u, \"stage_count\": %u, \"spec_schedule\": %s, \"applicable\": %s",
                w->stages_per_rank, sp->ranks * w->stages_per_rank, w->is_spec ? "true" : "false",
                w->applicable ? "true" : "false");
        if (!w->applicable) {
            fputs(", \"reason\": ", f);
            json_string(f, w->reason);
            fputc('}', f);
            continue;
        }
        fprintf(f, ", \"actions\": %zu, \"baseline_makespan_ms\": ", w->actions);
        json_number(f, w->baseline_ms);
        fputs(", \"makespan_ms\": ", f);
        json_number(f, w->optimised_ms);
        fputs(", \"speedup\": ", f);
        json_number(f, w->optimised_ms > 0 ? w->baseline_ms / w->optimised_ms : 1.0);
        fputs(", \"mean_freeze_ratio\": ", f);
        json_number(f, w->mean_ratio);
        fprintf(f, ", \"peak_activation_sets\": %u, \"peak_activation_bytes\": ", w->peak_sets);
        if (w->bytes_known)
            fprintf(f, "%llu", (unsigned long long)w->peak_bytes);
        else
            fputs("null", f);
        if (w->ttq_known) {
            fputs(", \"time_to_quality\": {\"predicted_speedup\": ", f);
            json_number(f, w->ttq_speedup);
            fputs(", \"cap\": ", f);
            json_number(f, w->ttq_cap);
            fputs(", \"ms_per_step_of_progress\": ", f);
            if (isfinite(compare_ttq_ms(w)))
                json_number(f, compare_ttq_ms(w));
            else
                fputs("null", f);
            fputc('}', f);
        }
        fprintf(f, ", \"within_memory_limit\": %s, \"rederived\": %s, \"derivation\": [", w->fits ? "true" : "false",
                w->how ? "true" : "false");
        const char *sep = "";
        for (size_t k = 0; k < N_HOW; k++)
            if (w->how & how_names[k].bit) {
                fprintf(f, "%s\"%s\"", sep, how_names[k].json);
                sep = ", ";
            }
        fputs("]}", f);
    }
    fputs("\n  ]\n}\n", f);
}

void compare_write_csv(const compare_result *r, FILE *f)
{
    fputs("schedule,stages_per_rank,applicable,baseline_ms,optimised_ms,speedup,mean_freeze_ratio,"
          "peak_activation_sets,peak_activation_bytes,within_memory_limit,spec_schedule,derivation,recommended",
          f);
    fputs(r->ttq_known ? ",predicted_time_to_quality,time_to_quality_cap,ms_per_step_of_progress,fastest_to_quality\n"
                       : "\n",
          f);
    for (size_t i = 0; i < r->n; i++) {
        const compare_row *w = &r->row[i];
        fprintf(f, "%s,%u,%s,", spec_schedule_name(w->kind), w->stages_per_rank, w->applicable ? "yes" : "no");
        if (w->applicable) {
            json_number(f, w->baseline_ms);
            fputc(',', f);
            json_number(f, w->optimised_ms);
            fputc(',', f);
            json_number(f, w->optimised_ms > 0 ? w->baseline_ms / w->optimised_ms : 1.0);
            fputc(',', f);
            json_number(f, w->mean_ratio);
            fprintf(f, ",%u,", w->peak_sets);
            if (w->bytes_known)
                fprintf(f, "%llu", (unsigned long long)w->peak_bytes);
            fprintf(f, ",%s,", w->fits ? "yes" : "no");
        } else {
            fputs(",,,,,,,", f);
        }
        fprintf(f, "%s,", w->is_spec ? "yes" : "no");
        const char *sep = "";
        for (size_t k = 0; k < N_HOW; k++)
            if (w->how & how_names[k].bit) {
                fprintf(f, "%s%s", sep, how_names[k].json);
                sep = "+";
            }
        fprintf(f, ",%s", (long)i == r->recommended ? "yes" : "no");
        if (r->ttq_known) {
            fputc(',', f);
            if (w->applicable && w->ttq_known)
                json_number(f, w->ttq_speedup);
            fputc(',', f);
            if (w->applicable && w->ttq_known)
                json_number(f, w->ttq_cap);
            fputc(',', f);
            if (w->applicable && w->ttq_known && isfinite(compare_ttq_ms(w)))
                json_number(f, compare_ttq_ms(w));
            fprintf(f, ",%s", (long)i == r->fastest_to_quality ? "yes" : "no");
        }
        fputc('\n', f);
    }
}

/* x of a row: its peak bytes in GiB when every row has bytes, else sets. */
static double row_x(const compare_row *w, bool bytes) { return bytes ? (double)w->peak_bytes / 1073741824.0 : w->peak_sets; }

bool compare_write_svg(const spec *sp, const char *label, const compare_result *r, FILE *f)
{
    const char *text = tmpl_get("compare.svg.in");
    if (!text)
        return false;
    const double x0 = 90, y0 = 80, w = 560, h = 340;
    bool bytes = true, any = false;
    double lo = INFINITY, hi = -INFINITY, xmax = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->row[i].applicable) {
            any = true;
            bytes = bytes && r->row[i].bytes_known;
            lo = fmin(lo, r->row[i].optimised_ms);
            hi = fmax(hi, r->row[i].baseline_ms);
        }
    if (!any)
        lo = 0, hi = 1;
    for (size_t i = 0; i < r->n; i++)
        if (r->row[i].applicable)
            xmax = fmax(xmax, row_x(&r->row[i], bytes));
    double limit = sp->has_memory_limit && bytes ? (double)sp->memory_limit_bytes / 1073741824.0 : -1;
    xmax = fmax(xmax, limit);
    chart_axis ay = chart_axis_for(hi - lo > 0 ? hi - lo : hi * 0.1 + 1, 6.0);
    chart_axis_cover(&ay, lo, hi);
    lo = chart_tick(&ay, ay.first);
    hi = chart_tick(&ay, ay.last);
    chart_axis ax = chart_axis_for(xmax > 0 ? xmax : 1, 6.0);
    chart_axis_cover(&ax, 0.0, xmax * 1.05);
    double xhi = chart_tick(&ax, ax.last);
    char *body = NULL;
    size_t len = 0;
    FILE *b = open_memstream(&body, &len);
    if (!b)
        return false;
#define PX(v_) (x0 + (v_) / xhi * w)
#define PY(ms_) (y0 + h - ((ms_) - lo) / (hi - lo) * h)
    chart_frame(b, &ay, x0, y0, w, h);
    for (int64_t k = 0; k <= ax.last; k++)
        fprintf(b, "  <text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n",
                real_fixed(PX(chart_tick(&ax, k)), 1).s, real_fixed(y0 + h + 18, 1).s, chart_tick_label(&ax, k).s);
    fprintf(b, "  <text x=\"%s\" y=\"%s\" text-anchor=\"middle\">peak activation memory of a rank (%s)</text>\n",
            real_fixed(x0 + w / 2, 1).s, real_fixed(y0 + h + 38, 1).s, bytes ? "GiB" : "activation sets held at once");
    fprintf(b, "  <text x=\"18\" y=\"%s\" transform=\"rotate(-90 18 %s)\" text-anchor=\"middle\">makespan "
               "(ms)</text>\n",
            real_fixed(y0 + h / 2, 1).s, real_fixed(y0 + h / 2, 1).s);
    if (limit > 0)
        fprintf(b,
                "  <line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#7f7f7f\" stroke-width=\"1.5\" "
                "stroke-dasharray=\"5 4\"/><text x=\"%s\" y=\"%s\" fill=\"#555555\">memory limit</text>\n",
                real_fixed(PX(limit), 1).s, real_fixed(y0, 1).s, real_fixed(PX(limit), 1).s, real_fixed(y0 + h, 1).s,
                real_fixed(PX(limit) + 4, 1).s, real_fixed(y0 + 14, 1).s);
    /* Each point numbered by its row; the rows listed on the right. */
    const double lx = x0 + w + 30;
    fprintf(b, "  <text x=\"%s\" y=\"%s\" font-weight=\"bold\">schedule, with freezing (none)</text>\n",
            real_fixed(lx, 1).s, real_fixed(y0 + 4, 1).s);
    for (size_t i = 0; i < r->n; i++) {
        const compare_row *q = &r->row[i];
        char name[48];
        row_name(q, name, sizeof name);
        double ly = y0 + 24 + 30.0 * (double)i;
        if (!q->applicable) {
            fprintf(b, "  <text x=\"%s\" y=\"%s\" fill=\"#999999\">%s: does not fit</text>\n", real_fixed(lx, 1).s,
                    real_fixed(ly, 1).s, name);
            continue;
        }
        double x = PX(row_x(q, bytes)), yb = PY(q->baseline_ms), yo = PY(q->optimised_ms);
        const char *col = (long)i == r->recommended ? "#2ca02c" : q->fits ? "#d62728" : "#bbbbbb";
        fprintf(b, "  <line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                real_fixed(x, 1).s, real_fixed(yb, 1).s, real_fixed(x, 1).s, real_fixed(yo, 1).s, col);
        fprintf(b, "  <circle cx=\"%s\" cy=\"%s\" r=\"4\" fill=\"#ffffff\" stroke=\"#1f77b4\" stroke-width=\"2\">"
                   "<title>%s, none: %s ms</title></circle>\n",
                real_fixed(x, 1).s, real_fixed(yb, 1).s, name, real_fixed(q->baseline_ms, 3).s);
        fprintf(b,
                "  <circle cx=\"%s\" cy=\"%s\" r=\"4.5\" fill=\"%s\"><title>%s, timely: %s ms, speed-up "
                "%sx</title></circle>\n",
                real_fixed(x, 1).s, real_fixed(yo, 1).s, col, name, real_fixed(q->optimised_ms, 3).s,
                real_fixed(q->optimised_ms > 0 ? q->baseline_ms / q->optimised_ms : 1.0, 4).s);
        /* The number beside the point, left and right by turns so that
         * neighbours in the same column stay apart. */
        fprintf(b, "  <text x=\"%s\" y=\"%s\" font-size=\"10\" fill=\"%s\"%s>%zu</text>\n",
                real_fixed(i % 2 ? x - 7 : x + 7, 1).s, real_fixed(yo + 4, 1).s, col,
                i % 2 ? " text-anchor=\"end\"" : "", i + 1);
        fprintf(b, "  <text x=\"%s\" y=\"%s\"%s><tspan fill=\"%s\">%zu</tspan> %s%s%s</text>\n", real_fixed(lx, 1).s,
                real_fixed(ly, 1).s, (long)i == r->recommended ? " font-weight=\"bold\"" : "", col, i + 1, name,
                q->how ? " (re-derived)" : "", (long)i == r->recommended ? " *" : "");
        fprintf(b, "  <text x=\"%s\" y=\"%s\" font-size=\"10\" fill=\"#555555\">%s ms (%s ms), ",
                real_fixed(lx + 12, 1).s, real_fixed(ly + 13, 1).s, real_fixed(q->optimised_ms, 1).s,
                real_fixed(q->baseline_ms, 1).s);
        if (bytes)
            fprintf(b, "%s GiB%s</text>\n", real_fixed(row_x(q, true), 2).s, q->fits ? "" : ", over the limit");
        else
            fprintf(b, "%u sets</text>\n", q->peak_sets);
    }
#undef PX
#undef PY
    bool ok = !ferror(b);
    ok = (fclose(b) == 0) && ok;
    char title[160];
    snprintf(title, sizeof title, "%s: schedules on %u rank%s, %u microbatch%s", sp->name, sp->ranks,
             sp->ranks == 1 ? "" : "s", sp->microbatches, sp->microbatches == 1 ? "" : "es");
    char safe[256];
    chart_comment_text(label, safe, sizeof safe);
    tmpl_var vars[] = {{"SPEC_FILE", safe}, {"NAME", sp->name}, {"VERSION", version_string()},
                       {"TITLE", title},     {"BODY", body ? body : ""}};
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    ok = ok && tmpl_render(f, text, vars, sizeof vars / sizeof *vars, &d);
    diag_free(&d); /* the template is tfc's own: a failure here is out of memory or a bug */
    free(body);
    return ok && !ferror(f);
}

bool compare_folder(const spec *sp, const char *label, const compare_result *r, gen_folder *out, diag_list *d)
{
    gen_writer w;
    if (!gen_open(&w)) {
        diag_nomem(d, "writing compare.csv");
        return false;
    }
    compare_write_csv(r, w.f);
    if (!gen_close(out, "compare.csv", &w)) {
        diag_nomem(d, "writing compare.csv");
        return false;
    }
    if (!gen_open(&w)) {
        diag_nomem(d, "writing compare.svg");
        return false;
    }
    bool ok = compare_write_svg(sp, label, r, w.f);
    if (!gen_close(out, "compare.svg", &w)) {
        diag_nomem(d, "writing compare.svg");
        return false;
    }
    if (!ok)
        diag_error(d, NULL, 0, 0, "internal error: the template compare.svg.in is missing from this build");
    return ok;
}
