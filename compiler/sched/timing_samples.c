/* timing_samples: the sample list, the file reading and the messages about
 * actions the schedule does not have that both measured-timing readers
 * share. */
#define _POSIX_C_SOURCE 200809L
#include "timing_samples.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fio.h"

bool samples_push(samples *s, sample x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        sample *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return false;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return true;
}

tfc_status timing_read_input(const spec *sp, const char *path, spec_pos named_at, const char *key, char **buf,
                              size_t *len, diag_list *d)
{
    tfc_status fs = fio_read_all(path, SPEC_MAX_FILE_BYTES, buf, len, d);
    if (fs == TFC_OK)
        spec_input_read(sp, path, *buf, *len);
    if (fs == TFC_OK || fs == TFC_NOMEM)
        return fs;
    diag_note_in(d, sp->path, named_at.line, named_at.col, "named by timing.%s here", key);
    return fs;
}

static bool has_type(const sched *s, act_type t)
{
    for (size_t i = 0; i < s->n_actions; i++)
        if (s->actions[i].type == t)
            return true;
    return false;
}

const char *timing_backward_kinds(const sched *s)
{
    bool b = has_type(s, ACT_B), split = has_type(s, ACT_I);
    return b && split ? "backward as B for some microbatches, I and W for others"
           : split    ? "backward split into I and W"
                      : "backward as one B";
}

const char *timing_no_action(const sched *s, act_type t, uint32_t stage, uint32_t mb, char *buf, size_t cap)
{
    uint32_t b = sched_find(s, ACT_B, stage, mb), in = sched_find(s, ACT_I, stage, mb);
    uint32_t w = sched_find(s, ACT_W, stage, mb);
    char x[24], y[24], tail[160];
    /* A schedule that has no action of this type anywhere says just that;
     * one that runs both kinds of backward (DualPipeV: B in its overlapped
     * pairs, I and W at the ends) says where the user can see which. */
    if (has_type(s, t))
        snprintf(tail, sizeof tail, "it runs B for some microbatches and I and W for others "
                                    "(schedule.csv's rows and plan.json's actions say which)");
    else
        snprintf(tail, sizeof tail, "it has no %c actions", sched_act_letter(t));
    if ((t == ACT_I || t == ACT_W) && b != SCHED_NONE)
        snprintf(buf, cap, "the schedule runs a full backward B for stage %u microbatch %u (%s), not I and W: %s",
                 stage, mb, sched_action_name(s, b, x, sizeof x), tail);
    else if (t == ACT_B && in != SCHED_NONE && w != SCHED_NONE)
        snprintf(buf, cap, "the schedule splits the backward of stage %u microbatch %u into I and W (%s, %s), not "
                 "one B: %s",
                 stage, mb, sched_action_name(s, in, x, sizeof x), sched_action_name(s, w, y, sizeof y), tail);
    else /* sched_index rules this out */
        snprintf(buf, cap, "the schedule has no action %u%c%u", stage, sched_act_letter(t), mb);
    return buf;
}

/* One end of a sample's interval: aux +1 where it starts, -1 where it
 * ends; once swept, the distinct times with aux the work done up to them. */
typedef struct endpoint {
    double t, aux;
} endpoint;

static int cmp_endpoint(const void *a, const void *b)
{
    const endpoint *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->aux > y->aux) - (x->aux < y->aux);
}

/* Where t is among the first n swept endpoints (t is one of their times). */
static size_t find_time(const endpoint *v, size_t n, double t)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

bool samples_shared_work(samples *s, uint32_t processors)
{
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++)
        m += isfinite(s->v[i].start_us);
    if (m == 0 || processors == 0)
        return true;
    endpoint *e = malloc(2 * m * sizeof *e);
    if (!e)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const sample *x = &s->v[i];
        if (!isfinite(x->start_us))
            continue;
        e[k++] = (endpoint){x->start_us, +1.0};
        e[k++] = (endpoint){x->start_us + 1000.0 * x->ms, -1.0};
    }
    qsort(e, k, sizeof *e, cmp_endpoint);
    /* In place: e[0..nt) become the distinct times, each with the work one
     * running action has done since e[0].t, at min(1, P / running) between
     * them. e[i] is read before e[nt] (nt <= i) is written. */
    size_t nt = 0;
    long running = 0;
    for (size_t i = 0; i < k; i++) {
        double t = e[i].t, delta = e[i].aux;
        if (nt == 0 || t != e[nt - 1].t) {
            double rate = running > (long)processors ? (double)processors / (double)running : 1.0;
            double w = nt ? e[nt - 1].aux + (t - e[nt - 1].t) * rate : 0.0;
            e[nt++] = (endpoint){t, w};
        }
        running += delta > 0 ? 1 : -1;
    }
    for (size_t i = 0; i < s->n; i++) {
        sample *x = &s->v[i];
        if (!isfinite(x->start_us))
            continue;
        double a = e[find_time(e, nt, x->start_us)].aux, b = e[find_time(e, nt, x->start_us + 1000.0 * x->ms)].aux;
        if (b - a > 0.0)
            x->ms = (b - a) / 1000.0;
    }
    free(e);
    return true;
}
