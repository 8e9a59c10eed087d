/* timing_csv: parse, collect samples per action, take medians. */
#define _POSIX_C_SOURCE 200809L
#include "timing_csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timing_samples.h"
#include "real.h"
#include "timing_trace.h"

/* One field of a row: [b, e), trimmed of spaces and tabs. */
typedef struct field {
    const char *b, *e;
    unsigned col;
} field;

static bool parse_uint(field f, uint64_t max, uint64_t *out)
{
    if (f.b == f.e)
        return false;
    uint64_t v = 0;
    for (const char *p = f.b; p < f.e; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > max)
            return false;
    }
    *out = v;
    return true;
}

static bool parse_ms(field f, double *out)
{
    char buf[64];
    size_t n = (size_t)(f.e - f.b);
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, f.b, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* Reads one file's rows into out; false after reporting what is wrong. */
static tfc_status read_file(const spec *sp, const sched *s, const char *path, spec_pos named_at, const char *key,
                             samples *out, diag_list *d)
{
    char *buf;
    size_t len;
    tfc_status in = timing_read_input(sp, path, named_at, key, &buf, &len, d);
    if (in != TFC_OK)
        return in;
    tfc_status st = TFC_OK;
    size_t pos = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    for (unsigned line = 1; pos < len && !diag_full(d); line++) {
        size_t end = pos;
        while (end < len && buf[end] != '\n' && buf[end] != '\r')
            end++;
        const char *row = buf + pos;
        size_t row_len = end - pos;
        pos = end + (end < len && buf[end] == '\r' && end + 1 < len && buf[end + 1] == '\n' ? 2 : 1);
        field f[6];
        size_t nf = 0;
        const char *p = row, *stop = row + row_len;
        bool blank = true;
        for (const char *q = row; q < stop; q++)
            blank = blank && (*q == ' ' || *q == '\t');
        if (blank)
            continue;
        while (nf < 6) {
            const char *c = p;
            while (c < stop && *c != ',')
                c++;
            field x = {p, c, (unsigned)(p - row) + 1};
            while (x.b < x.e && (*x.b == ' ' || *x.b == '\t'))
                x.b++, x.col++;
            while (x.e > x.b && (x.e[-1] == ' ' || x.e[-1] == '\t'))
                x.e--;
            f[nf++] = x;
            if (c == stop)
                break;
            p = c + 1;
        }
        if (line == 1 && f[0].e - f[0].b == 4 && memcmp(f[0].b, "rank", 4) == 0)
            continue; /* the header */
        if (nf != 5) {
            diag_error(d, path, line, nf > 5 ? f[5].col : (unsigned)row_len + 1,
                       "expected 5 fields (rank,stage,microbatch,type,duration_ms), got %s", nf > 5 ? "more" : "fewer");
            st = TFC_INVALID;
            continue;
        }
        uint64_t rank, stage, mb;
        double ms;
        if (!parse_uint(f[0], UINT32_MAX, &rank) || !parse_uint(f[1], UINT32_MAX, &stage) ||
            !parse_uint(f[2], UINT32_MAX, &mb)) {
            field bad = !parse_uint(f[0], UINT32_MAX, &rank) ? f[0] : !parse_uint(f[1], UINT32_MAX, &stage) ? f[1] : f[2];
            diag_error(d, path, line, bad.col, "expected a non-negative integer, got \"%.*s\"", (int)(bad.e - bad.b),
                       bad.b);
            st = TFC_INVALID;
            continue;
        }
        int type = f[3].e - f[3].b == 1 ? (*f[3].b == 'F' ? ACT_F : *f[3].b == 'B' ? ACT_B : *f[3].b == 'I' ? ACT_I
                                                                        : *f[3].b == 'W' ? ACT_W : -1)
                                        : -1;
        if (type < 0) {
            diag_error(d, path, line, f[3].col, "type must be F, B, I or W, got \"%.*s\"", (int)(f[3].e - f[3].b),
                       f[3].b);
            st = TFC_INVALID;
            continue;
        }
        if (!parse_ms(f[4], &ms) || !(ms > 0) || ms > SPEC_MAX_MS) {
            diag_error(d, path, line, f[4].col, "duration_ms must be a number > 0 and <= 1e7, got \"%.*s\"",
                       (int)(f[4].e - f[4].b), f[4].b);
            st = TFC_INVALID;
            continue;
        }
        if (stage >= s->n_stages || mb >= s->microbatches) {
            diag_error(d, path, line, stage >= s->n_stages ? f[1].col : f[2].col,
                       "%s %llu is out of range (the spec has %u stages and %u microbatches)",
                       stage >= s->n_stages ? "stage" : "microbatch",
                       (unsigned long long)(stage >= s->n_stages ? stage : mb), s->n_stages, s->microbatches);
            st = TFC_INVALID;
            continue;
        }
        uint32_t u = sched_find(s, (act_type)type, (uint32_t)stage, (uint32_t)mb);
        if (u == SCHED_NONE) {
            diag_error(d, path, line, f[3].col, "the schedule has no %c actions (%s)", sched_act_letter((act_type)type),
                       spec_schedule_is_split(sp->schedule) ? "its backward is split into I and W"
                                                            : "its backward is one B");
            st = TFC_INVALID;
            continue;
        }
        if (rank != s->rank_of[u]) {
            diag_error(d, path, line, f[0].col, "stage %llu runs on rank %u in this schedule, not rank %llu",
                       (unsigned long long)stage, s->rank_of[u], (unsigned long long)rank);
            st = TFC_INVALID;
            continue;
        }
        if (!samples_push(out, (sample){u, line, ms})) {
            st = diag_nomem(d, "reading the timings");
            break;
        }
    }
    free(buf);
    return st;
}

static int cmp_sample(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    if (x->action != y->action)
        return x->action < y->action ? -1 : 1;
    return (x->ms > y->ms) - (x->ms < y->ms);
}

/* median[u] (NAN without samples) and the first line of each action. */
static void medians(samples *s, size_t n, double *median, uint32_t *first_line)
{
    for (size_t u = 0; u < n; u++)
        median[u] = NAN, first_line[u] = 0;
    if (s->n) /* qsort must not see a null pointer, even for no elements */
        qsort(s->v, s->n, sizeof *s->v, cmp_sample);
    for (size_t i = 0; i < s->n;) {
        size_t j = i;
        uint32_t line = s->v[i].line;
        while (j < s->n && s->v[j].action == s->v[i].action) {
            if (s->v[j].line < line)
                line = s->v[j].line;
            j++;
        }
        size_t k = j - i;
        median[s->v[i].action] = k % 2 ? s->v[i + k / 2].ms : 0.5 * (s->v[i + k / 2 - 1].ms + s->v[i + k / 2].ms);
        first_line[s->v[i].action] = line;
        i = j;
    }
}

tfc_status timing_csv_load(const spec *sp, const sched *s, arena *a, double *dur, double *w_min, diag_list *d)
{
    const spec_timing *tm = &sp->timing;
    const char *path = spec_relative_path(sp, tm->file, a), *fpath = spec_relative_path(sp, tm->frozen_file, a);
    size_t n = s->n_actions;
    double *frozen = arena_alloc_array(a, n ? n : 1, sizeof *frozen);
    uint32_t *line = arena_alloc_array(a, n ? n : 1, sizeof *line);
    uint32_t *fline = arena_alloc_array(a, n ? n : 1, sizeof *fline);
    if (!path || !fpath || !frozen || !line || !fline) {
        return diag_nomem(d, "reading the timings");
    }
    samples su = {0}, sf = {0};
    bool trace = tm->source == TIMING_TRACE;
    tfc_status st = trace ? timing_trace_read(sp, s, path, tm->pos_file, "file", &su, d)
                           : read_file(sp, s, path, tm->pos_file, "file", &su, d);
    tfc_status st2 = trace ? timing_trace_read(sp, s, fpath, tm->pos_frozen_file, "frozen_file", &sf, d)
                            : read_file(sp, s, fpath, tm->pos_frozen_file, "frozen_file", &sf, d);
    if (st == TFC_OK)
        st = st2;
    else if (st2 == TFC_IO)
        st = TFC_IO;
    if (st == TFC_OK) {
        medians(&su, n, dur, line);
        medians(&sf, n, frozen, fline);
        size_t missing = 0, missing_frozen = 0;
        char name[32], first[32] = "", first_frozen[32] = "";
        for (size_t u = 0; u < n; u++) {
            bool freezable = act_type_freezable(s->actions[u].type);
            if (isnan(dur[u]) && missing++ == 0)
                sched_action_name(s, u, first, sizeof first);
            if (freezable && isnan(frozen[u]) && missing_frozen++ == 0)
                sched_action_name(s, u, first_frozen, sizeof first_frozen);
            if (!freezable || isnan(dur[u]) || isnan(frozen[u]))
                continue;
            if (frozen[u] > dur[u]) {
                diag_error(d, fpath, fline[u], trace ? 1 : 5,
                           "action %s: median %s ms with everything frozen is longer than "
                           "the median %s ms with nothing frozen (%s line %u)",
                           sched_action_name(s, u, name, sizeof name), real_shortest(frozen[u]).s,
                           real_shortest(dur[u]).s, path, line[u]);
                st = TFC_INVALID;
            }
            w_min[u] = frozen[u];
        }
        if (missing) {
            diag_error(d, path, 0, 0, "no samples for action %s%s%zu more)", first, missing > 1 ? " (and " : " (",
                       missing - 1);
            st = TFC_INVALID;
        }
        if (missing_frozen) {
            diag_error(d, fpath, 0, 0, "no samples with everything frozen for action %s%s%zu more)", first_frozen,
                       missing_frozen > 1 ? " (and " : " (", missing_frozen - 1);
            st = TFC_INVALID;
        }
        for (size_t u = 0; u < n; u++)
            if (!act_type_freezable(s->actions[u].type))
                w_min[u] = dur[u];
    }
    free(su.v);
    free(sf.v);
    return st;
}
