/* timing_samples: the sample list and the file reading both measured-
 * timing readers share. */
#define _POSIX_C_SOURCE 200809L
#include "timing_samples.h"

#include <math.h>
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

/* One end of a sample's interval: +1 where it starts, -1 where it ends. */
typedef struct endpoint {
    double t;
    int delta;
} endpoint;

static int cmp_endpoint(const void *a, const void *b)
{
    const endpoint *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->delta > y->delta) - (x->delta < y->delta);
}

/* The index of t among the sorted times (t is one of them). */
static size_t find_time(const double *v, size_t n, double t)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= t)
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
    double *t = malloc(2 * m * sizeof *t), *w = malloc(2 * m * sizeof *w);
    if (!e || !t || !w) {
        free(e), free(t), free(w);
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const sample *x = &s->v[i];
        if (!isfinite(x->start_us))
            continue;
        e[k++] = (endpoint){x->start_us, +1};
        e[k++] = (endpoint){x->start_us + 1000.0 * x->ms, -1};
    }
    qsort(e, k, sizeof *e, cmp_endpoint);
    /* t: the distinct times; w[j]: work one running action has done from
     * t[0] to t[j], the rate min(1, P / running) in between. */
    size_t nt = 0;
    long running = 0;
    for (size_t i = 0; i < k; i++) {
        if (nt == 0 || e[i].t != t[nt - 1]) {
            double rate = running > (long)processors ? (double)processors / (double)running : 1.0;
            w[nt] = nt ? w[nt - 1] + (e[i].t - t[nt - 1]) * rate : 0.0;
            t[nt++] = e[i].t;
        }
        running += e[i].delta;
    }
    for (size_t i = 0; i < s->n; i++) {
        sample *x = &s->v[i];
        if (!isfinite(x->start_us))
            continue;
        double a = w[find_time(t, nt, x->start_us)], b = w[find_time(t, nt, x->start_us + 1000.0 * x->ms)];
        if (b - a > 0.0)
            x->ms = (b - a) / 1000.0;
    }
    free(e), free(t), free(w);
    return true;
}
