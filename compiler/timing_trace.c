/* timing_trace: Chrome trace files as measured timings. A small JSON
 * reader (recursive descent, nesting bounded at 64) that keeps only what a
 * complete event needs: its name, phase and duration. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "text.h"
#include "timing_samples.h"

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

static bool container(jp *p, int depth, char open)
{
    if (depth >= TRACE_MAX_DEPTH)
        return fail(p, "nested deeper than 64");
    char close = open == '{' ? '}' : ']';
    p->i++;
    ws(p);
    if (p->i < p->n && p->b[p->i] == close) {
        p->i++;
        return true;
    }
    for (;;) {
        ws(p);
        if (open == '{') {
            if (!string(p, NULL, 0, NULL))
                return false;
            ws(p);
            if (p->i >= p->n || p->b[p->i] != ':')
                return fail(p, "expected ':'");
            p->i++;
            ws(p);
        }
        if (!value(p, depth + 1))
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
        return container(p, depth, c);
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
    spec_status st;
} reader;

static void at(const reader *r, size_t off, unsigned *line, unsigned *col)
{
    text_position(r->p.b, r->p.n, off, line, col);
}

/* One trace event (an object in the event array). */
static bool event(reader *r, int depth)
{
    jp *p = &r->p;
    size_t start = p->i;
    if (p->b[p->i] != '{')
        return value(p, depth);
    if (depth >= TRACE_MAX_DEPTH)
        return fail(p, "nested deeper than 64");
    char name[64] = "", ph[8] = "";
    size_t name_len = 0, ph_len = 0, dur_at = 0;
    double dur = NAN;
    p->i++;
    ws(p);
    if (p->i < p->n && p->b[p->i] == '}') {
        p->i++;
        return true;
    }
    for (;;) {
        ws(p);
        char key[16];
        size_t key_len;
        if (!string(p, key, sizeof key, &key_len))
            return false;
        ws(p);
        if (p->i >= p->n || p->b[p->i] != ':')
            return fail(p, "expected ':'");
        p->i++;
        ws(p);
        bool ok;
        if (key_len == 4 && strcmp(key, "name") == 0 && p->i < p->n && p->b[p->i] == '"')
            ok = string(p, name, sizeof name, &name_len);
        else if (key_len == 2 && strcmp(key, "ph") == 0 && p->i < p->n && p->b[p->i] == '"')
            ok = string(p, ph, sizeof ph, &ph_len);
        else if (key_len == 3 && strcmp(key, "dur") == 0 && p->i < p->n && p->b[p->i] != '"') {
            dur_at = p->i;
            ok = number(p, &dur);
        } else
            ok = value(p, depth + 1);
        if (!ok)
            return false;
        ws(p);
        if (p->i < p->n && p->b[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->b[p->i] == '}') {
            p->i++;
            break;
        }
        return fail(p, "expected ',' or '}'");
    }
    /* PP:<stage><type><microbatch>, a complete event. */
    if (name_len >= sizeof name || strncmp(name, "PP:", 3) != 0 || !(ph_len == 1 && ph[0] == 'X'))
        return true;
    const char *q = name + 3;
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
    if (isnan(dur)) {
        diag_error(r->d, r->path, line, col, "event %s has no \"dur\"", name);
        r->st = SPEC_INVALID;
        return true;
    }
    double ms = dur / 1000.0;
    if (!(ms > 0) || !isfinite(ms) || ms > SPEC_MAX_MS) {
        unsigned l2, c2;
        at(r, dur_at, &l2, &c2);
        diag_error(r->d, r->path, l2, c2, "event %s: \"dur\" must be > 0 and at most 1e10 microseconds, got %g", name,
                   dur);
        r->st = SPEC_INVALID;
        return true;
    }
    act_type t = type == 'F' ? ACT_F : type == 'B' ? ACT_B : type == 'I' ? ACT_I : ACT_W;
    uint32_t u = stage < r->s->n_stages && mb < r->s->microbatches
                     ? sched_find(r->s, t, (uint32_t)stage, (uint32_t)mb)
                     : SCHED_NONE;
    if (u == SCHED_NONE) {
        diag_error(r->d, r->path, line, col, "event %s: the schedule has no such action (%u stages, %u microbatches%s)",
                   name, r->s->n_stages, r->s->microbatches,
                   spec_schedule_is_split(r->sp->schedule) ? ", backward split into I and W" : ", backward as one B");
        r->st = SPEC_INVALID;
        return true;
    }
    if (!samples_push(r->out, (sample){u, line, ms})) {
        r->st = SPEC_IO;
        return fail(p, "out of memory");
    }
    return true;
}

static bool events(reader *r, int depth)
{
    jp *p = &r->p;
    if (depth >= TRACE_MAX_DEPTH)
        return fail(p, "nested deeper than 64");
    p->i++; /* '[' */
    ws(p);
    if (p->i < p->n && p->b[p->i] == ']') {
        p->i++;
        return true;
    }
    for (;;) {
        ws(p);
        if (p->i >= p->n)
            return fail(p, "unexpected end of file");
        if (!event(r, depth + 1) || diag_full(r->d))
            return false;
        ws(p);
        if (p->i < p->n && p->b[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->b[p->i] == ']') {
            p->i++;
            return true;
        }
        return fail(p, "expected ',' or ']'");
    }
}

spec_status timing_trace_read(const spec *sp, const sched *s, const char *path, spec_pos named_at, const char *key,
                              samples *out, diag_list *d)
{
    char *buf;
    size_t len;
    fio_status fs = fio_read_all(path, SPEC_MAX_FILE_BYTES, &buf, &len, d);
    if (fs != FIO_OK) {
        diag_note_in(d, sp->path, named_at.line, named_at.col, "named by timing.%s here", key);
        return fs == FIO_TOO_LARGE ? SPEC_INVALID : SPEC_IO;
    }
    reader r = {{buf, len, 0, NULL, 0}, sp, s, path, out, d, SPEC_OK};
    jp *p = &r.p;
    ws(p);
    bool ok = true, found = false;
    if (p->i < p->n && p->b[p->i] == '[') {
        found = true;
        ok = events(&r, 0);
    } else if (p->i < p->n && p->b[p->i] == '{') {
        /* {"traceEvents": [...], ...}: the events, anything else skipped. */
        p->i++;
        ws(p);
        if (p->i < p->n && p->b[p->i] == '}')
            p->i++;
        else
            for (;;) {
                ws(p);
                char k[16];
                size_t kl;
                if (!(ok = string(p, k, sizeof k, &kl)))
                    break;
                ws(p);
                if (p->i >= p->n || p->b[p->i] != ':') {
                    ok = fail(p, "expected ':'");
                    break;
                }
                p->i++;
                ws(p);
                if (kl == 11 && strcmp(k, "traceEvents") == 0 && p->i < p->n && p->b[p->i] == '[') {
                    found = true;
                    ok = events(&r, 1);
                } else {
                    ok = value(p, 1);
                }
                if (!ok)
                    break;
                ws(p);
                if (p->i < p->n && p->b[p->i] == ',') {
                    p->i++;
                    continue;
                }
                if (p->i < p->n && p->b[p->i] == '}') {
                    p->i++;
                    break;
                }
                ok = fail(p, "expected ',' or '}'");
                break;
            }
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
        if (r.st == SPEC_OK)
            r.st = SPEC_INVALID;
    } else if (ok && !found) {
        diag_error(d, path, 1, 1, "no \"traceEvents\" array in the trace");
        r.st = SPEC_INVALID;
    }
    free(buf);
    return r.st;
}
