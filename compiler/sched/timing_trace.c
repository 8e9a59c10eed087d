/* timing_trace: Chrome trace files as measured timings. A small JSON
 * reader (recursive descent, nesting bounded at 64) that keeps only what a
 * complete event needs: its name, phase and duration. */
#define _POSIX_C_SOURCE 200809L
#include "timing_trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "real.h"

#define TRACE_MAX_DEPTH 64

typedef struct jp {
    const char *b;
    size_t n, i;
    const char *err; /* first problem, at err_at */
    size_t err_at;
} jp;

static bool fail(jp *p, const char *msg)
{
    if (!p->err) {
        p->err = msg;
        p->err_at = p->i < p->n ? p->i : p->n;
    }
    return false;
}

static void ws(jp *p)
{
    while (p->i < p->n && (p->b[p->i] == ' ' || p->b[p->i] == '\t' || p->b[p->i] == '\n' || p->b[p->i] == '\r'))
        p->i++;
}

/* A string; its first cap - 1 decoded bytes go to out (when not NULL),
 * *len gets the full decoded length (so a long name never matches). */
static bool string(jp *p, char *out, size_t cap, size_t *len)
{
    if (p->i >= p->n || p->b[p->i] != '"')
        return fail(p, "expected a string");
    p->i++;
    size_t k = 0;
    while (p->i < p->n && p->b[p->i] != '"') {
        char ch = p->b[p->i++];
        if ((unsigned char)ch < 0x20)
            return fail(p, "control character in a string");
        if (ch == '\\') {
            if (p->i >= p->n)
                break;
            char e = p->b[p->i++];
            if (e == 'u') {
                for (int h = 0; h < 4; h++, p->i++)
                    if (p->i >= p->n || !strchr("0123456789abcdefABCDEF", p->b[p->i]) || !p->b[p->i])
                        return fail(p, "bad \\u escape");
                ch = '?';
            } else if (strchr("\"\\/bfnrt", e) && e) {
                ch = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
            } else {
                return fail(p, "bad escape in a string");
            }
        }
        if (out && k + 1 < cap)
            out[k] = ch;
        k++;
    }
    if (p->i >= p->n)
        return fail(p, "unterminated string");
    p->i++;
    if (out)
        out[k < cap ? k : cap - 1] = '\0';
    if (len)
        *len = k;
    return true;
}

static bool number(jp *p, double *v)
{
    size_t s = p->i;
    while (p->i < p->n && strchr("+-0123456789.eE", p->b[p->i]) && p->b[p->i])
        p->i++;
    char buf[64];
    size_t k = p->i - s;
    if (k == 0 || k >= sizeof buf)
        return fail(p, "expected a number");
    memcpy(buf, p->b + s, k);
    buf[k] = '\0';
    char *end;
    *v = strtod(buf, &end);
    if (*end)
        return fail(p, "malformed number");
    return true;
}

static bool value(jp *p, int depth);

/* A member of an object (its key decoded, at most 23 bytes kept; key_len is
 * the full length) or an element of an array (key NULL): the callback reads
 * the value at p. */
typedef bool (*jp_item)(void *ctx, jp *p, const char *key, size_t key_len, int depth);

/* The object or array at p ('{' or '['), each item through f; nesting is
 * bounded at TRACE_MAX_DEPTH. */
static bool container_with(jp *p, int depth, jp_item f, void *ctx)
{
    if (depth >= TRACE_MAX_DEPTH)
        return fail(p, "nested deeper than 64");
    char open = p->b[p->i], close = open == '{' ? '}' : ']';
    p->i++;
    ws(p);
    if (p->i < p->n && p->b[p->i] == close) {
        p->i++;
        return true;
    }
    for (;;) {
        ws(p);
        char key[24] = ""; /* "baseTimeNanoseconds" is the longest key read */
        size_t key_len = 0;
        if (open == '{') {
            if (!string(p, key, sizeof key, &key_len))
                return false;
            ws(p);
            if (p->i >= p->n || p->b[p->i] != ':')
                return fail(p, "expected ':'");
            p->i++;
        }
        ws(p);
        if (p->i >= p->n)
            return fail(p, "unexpected end of file");
        if (!f(ctx, p, open == '{' ? key : NULL, key_len, depth + 1))
            return false;
        ws(p);
        if (p->i < p->n && p->b[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->b[p->i] == close) {
            p->i++;
            return true;
        }
        return fail(p, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static bool skip_item(void *ctx, jp *p, const char *key, size_t key_len, int depth)
{
    (void)ctx, (void)key, (void)key_len;
    return value(p, depth);
}

static bool literal(jp *p, const char *word)
{
    size_t k = strlen(word);
    if (p->n - p->i < k || memcmp(p->b + p->i, word, k) != 0)
        return fail(p, "expected a JSON value");
    p->i += k;
    return true;
}

/* Skips one value. */
static bool value(jp *p, int depth)
{
    ws(p);
    if (p->i >= p->n)
        return fail(p, "unexpected end of file");
    char c = p->b[p->i];
    if (c == '{' || c == '[')
        return container_with(p, depth, skip_item, NULL);
    if (c == '"')
        return string(p, NULL, 0, NULL);
    if (c == 't')
        return literal(p, "true");
    if (c == 'f')
        return literal(p, "false");
    if (c == 'n')
        return literal(p, "null");
    double v;
    return number(p, &v);
}

typedef struct reader {
    jp p;
    const spec *sp;
    const sched *s;
    const char *path;
    samples *out;
    diag_list *d;
    tfc_status st;
    bool found; /* a traceEvents array was there */
    size_t first; /* out->n when this file's reading began */
    bool gpu;     /* a gpu_user_annotation PP: event was seen in this file */
    int64_t base_ns; /* the top-level "baseTimeNanoseconds" (torch.profiler's clock), when has_base */
    bool has_base;
} reader;

static void at(const reader *r, size_t off, unsigned *line, unsigned *col)
{
    text_position(r->p.b, r->p.n, off, line, col);
}

/* The fields of one trace event that matter. */
typedef struct event_fields {
    char name[64], ph[8], cat[24];
    size_t name_len, ph_len, cat_len, dur_at;
    double dur, pid, ts;
    size_t not_number_at; /* where "dur" or "ts" holds something else, + 1; 0: none */
    const char *not_number; /* which of the two */
} event_fields;

static bool event_member(void *ctx, jp *p, const char *key, size_t key_len, int depth)
{
    event_fields *e = ctx;
    if (key_len == 4 && strcmp(key, "name") == 0 && p->b[p->i] == '"')
        return string(p, e->name, sizeof e->name, &e->name_len);
    if (key_len == 2 && strcmp(key, "ph") == 0 && p->b[p->i] == '"')
        return string(p, e->ph, sizeof e->ph, &e->ph_len);
    bool dur = key_len == 3 && strcmp(key, "dur") == 0, ts = key_len == 2 && strcmp(key, "ts") == 0;
    if ((dur || ts) && (p->b[p->i] == '"' || p->b[p->i] == '{' || p->b[p->i] == '[')) {
        if (!e->not_number_at) {
            e->not_number_at = p->i + 1;
            e->not_number = dur ? "dur" : "ts";
        }
        return value(p, depth);
    }
    if (dur) {
        e->dur_at = p->i;
        return number(p, &e->dur);
    }
    if (ts)
        return number(p, &e->ts);
    if (key_len == 3 && strcmp(key, "cat") == 0 && p->b[p->i] == '"')
        return string(p, e->cat, sizeof e->cat, &e->cat_len);
    if (key_len == 3 && strcmp(key, "pid") == 0 && p->b[p->i] != '"' && p->b[p->i] != '{' && p->b[p->i] != '[')
        return number(p, &e->pid);
    return value(p, depth);
}

/* One element of the event array: an object read as an event, anything
 * else skipped. */
static bool event(void *ctx, jp *p, const char *key, size_t key_len, int depth)
{
    (void)key, (void)key_len;
    reader *r = ctx;
    size_t start = p->i;
    if (p->b[p->i] != '{')
        return value(p, depth);
    event_fields e = {.dur = NAN, .pid = NAN, .ts = NAN};
    if (!container_with(p, depth, event_member, &e))
        return false;
    if (diag_full(r->d))
        return fail(p, "too many errors");
    const char *name = e.name;
    size_t name_len = e.name_len, ph_len = e.ph_len, dur_at = e.dur_at;
    const char *ph = e.ph;
    double dur = e.dur;
    /* A complete event named PP:<stage><type><microbatch> (PyTorch's
     * profiler), or an event of tfc's own timeline.json: named
     * <stage><type><microbatch>, its "cat" the type, in process 1 (the
     * baseline, nothing frozen: the durations the plan assumed). */
    if (name_len >= sizeof e.name || !(ph_len == 1 && ph[0] == 'X'))
        return true;
    const char *q;
    if (strncmp(name, "PP:", 3) == 0) {
        /* With CUDA activity on, torch.profiler writes each PP: range twice:
         * on the CPU (the launches) and on the GPU ("gpu_user_annotation",
         * the kernels' time, the step's). A file's GPU ranges are its
         * samples when it has any; its CPU ones then are not. */
        bool gpu = e.cat_len == 19 && strcmp(e.cat, "gpu_user_annotation") == 0;
        if (gpu && !r->gpu) {
            r->gpu = true;
            r->out->n = r->first;
        } else if (!gpu && r->gpu) {
            return true;
        }
        q = name + 3;
    }
    else if (e.cat_len == 1 && e.pid == 1.0 && strchr(name, e.cat[0]) && strchr("FBIW", e.cat[0]))
        q = name;
    else
        return true;
    char *end;
    unsigned line, col;
    if (*q < '0' || *q > '9')
        return true;
    unsigned long stage = strtoul(q, &end, 10);
    char type = *end;
    if (!strchr("FBIW", type) || !type || end[1] < '0' || end[1] > '9')
        return true;
    unsigned long mb = strtoul(end + 1, &end, 10);
    if (*end)
        return true;
    at(r, start, &line, &col);
    if (e.not_number_at) {
        unsigned l2, c2;
        at(r, e.not_number_at - 1, &l2, &c2);
        diag_error(r->d, r->path, l2, c2, "event %s: \"%s\" must be a number (microseconds), not a %s", name,
                   e.not_number, p->b[e.not_number_at - 1] == '"' ? "string" : "container");
        r->st = TFC_INVALID;
        return true;
    }
    if (isnan(dur)) {
        diag_error(r->d, r->path, line, col, "event %s has no \"dur\"", name);
        r->st = TFC_INVALID;
        return true;
    }
    double ms = dur / 1000.0;
    if (!(ms > 0) || !isfinite(ms) || ms > SPEC_MAX_MS) {
        unsigned l2, c2;
        at(r, dur_at, &l2, &c2);
        diag_error(r->d, r->path, l2, c2, "event %s: \"dur\" must be > 0 and at most 1e10 microseconds, got %s", name,
                   real_shortest(dur).s);
        r->st = TFC_INVALID;
        return true;
    }
    act_type t = type == 'F' ? ACT_F : type == 'B' ? ACT_B : type == 'I' ? ACT_I : ACT_W;
    if (stage >= r->s->n_stages || mb >= r->s->microbatches) {
        diag_error(r->d, r->path, line, col, "event %s: the schedule has no such action (%u stages, %u microbatches, %s)",
                   name, r->s->n_stages, r->s->microbatches, timing_backward_kinds(r->s));
        r->st = TFC_INVALID;
        return true;
    }
    uint32_t u = sched_find(r->s, t, (uint32_t)stage, (uint32_t)mb);
    if (u == SCHED_NONE) {
        char why[320];
        diag_error(r->d, r->path, line, col, "event %s: %s", name,
                   timing_no_action(r->s, t, (uint32_t)stage, (uint32_t)mb, why, sizeof why));
        r->st = TFC_INVALID;
        return true;
    }
    /* The start matters only to sharing (samples_shared_work); an event
     * without one, or one no clock could hold, is timed alone, and so is
     * every event of tfc's own timeline.json (a simulated step, a processor
     * per rank: its overlaps are not contention). */
    bool own = q == name;
    double begin_us = !own && isfinite(e.ts) && fabs(e.ts) <= 1e18 ? e.ts : NAN;
    if (!samples_push(r->out, (sample){.action = u, .line = line, .ms = ms, .start_us = begin_us})) {
        r->st = TFC_IO;
        return fail(p, "out of memory");
    }
    return true;
}

/* The top-level object: its traceEvents array read as events, any other
 * member skipped. */
static bool top_member(void *ctx, jp *p, const char *key, size_t key_len, int depth)
{
    reader *r = ctx;
    if (key_len == 11 && strcmp(key, "traceEvents") == 0 && p->b[p->i] == '[') {
        r->found = true;
        return container_with(p, depth, event, r);
    }
    if (key_len == 19 && strcmp(key, "baseTimeNanoseconds") == 0 && p->b[p->i] != '"' && p->b[p->i] != '{' &&
        p->b[p->i] != '[') {
        /* Nanoseconds since the epoch pass 2^53: read as an integer, exactly. */
        size_t from = p->i;
        double v;
        if (!number(p, &v))
            return false;
        char digits[24];
        size_t k = p->i - from;
        if (k > 0 && k < sizeof digits && strspn(p->b + from, "0123456789") == k) {
            memcpy(digits, p->b + from, k);
            digits[k] = '\0';
            errno = 0;
            unsigned long long b = strtoull(digits, NULL, 10);
            r->has_base = errno == 0 && b <= (unsigned long long)INT64_MAX / 2;
            r->base_ns = r->has_base ? (int64_t)b : 0;
        }
        return true;
    }
    return value(p, depth);
}

tfc_status timing_trace_read(const spec *sp, const sched *s, const char *path, spec_pos named_at, const char *key,
                              samples *out, int64_t *base_ns, bool *has_base, diag_list *d)
{
    *has_base = false;
    char *buf;
    size_t len;
    tfc_status in = timing_read_input(sp, path, named_at, key, &buf, &len, d);
    if (in != TFC_OK)
        return in;
    reader r = {{buf, len, 0, NULL, 0}, sp, s, path, out, d, TFC_OK, false, out->n, false, 0, false};
    jp *p = &r.p;
    ws(p);
    bool ok;
    if (p->i < p->n && p->b[p->i] == '[') {
        r.found = true;
        ok = container_with(p, 0, event, &r);
    } else if (p->i < p->n && p->b[p->i] == '{') {
        ok = container_with(p, 0, top_member, &r);
    } else {
        ok = fail(p, "a Chrome trace is a JSON object with \"traceEvents\" or a JSON array of events");
    }
    if (ok) {
        ws(p);
        if (p->i < p->n)
            ok = fail(p, "extra data after the trace");
    }
    if (!ok && p->err && !diag_full(d)) {
        unsigned line, col;
        text_position(buf, len, p->err_at, &line, &col);
        diag_error(d, path, line, col, "%s", p->err);
        if (r.st == TFC_OK)
            r.st = TFC_INVALID;
    } else if (ok && !r.found) {
        diag_error(d, path, 1, 1, "no \"traceEvents\" array in the trace");
        r.st = TFC_INVALID;
    }
    free(buf);
    *base_ns = r.base_ns;
    *has_base = r.has_base;
    return r.st;
}
