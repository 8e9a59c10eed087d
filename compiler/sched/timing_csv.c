/* timing_csv: parse, collect samples per action (from every file a key
 * names), take medians. */
#define _POSIX_C_SOURCE 200809L
#include "timing_csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "timing_samples.h"
#include "fio.h"
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
        uint64_t first_num;
        if (line == 1 && !parse_uint(f[0], UINT32_MAX, &first_num)) {
            /* A header: the columns' names in their order, or a row of
             * names in another order (its rows would be misread). */
            static const char *const names[] = {"rank", "stage", "microbatch", "type", "duration_ms"};
            size_t misplaced = 0;
            for (size_t k = 0; k < nf; k++)
                for (size_t j = 0; j < 5; j++)
                    if (j != k && (size_t)(f[k].e - f[k].b) == strlen(names[j]) &&
                        memcmp(f[k].b, names[j], strlen(names[j])) == 0)
                        misplaced++;
            if (!misplaced && f[0].e - f[0].b == 4 && memcmp(f[0].b, "rank", 4) == 0)
                continue; /* the header (its other columns named as one likes, where no name is misplaced) */
            if (misplaced) {
                diag_error(d, path, 1, 1,
                           "row 1 reads as a header (\"%.*s\"), but not rank,stage,microbatch,type,duration_ms: "
                           "every row is read in that order; write that header, or none",
                           (int)row_len, row);
                st = TFC_INVALID;
                continue;
            }
        }
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
            char why[320];
            diag_error(d, path, line, f[3].col, "%s",
                       timing_no_action(s, (act_type)type, (uint32_t)stage, (uint32_t)mb, why, sizeof why));
            st = TFC_INVALID;
            continue;
        }
        if (rank != s->rank_of[u]) {
            diag_error(d, path, line, f[0].col, "stage %llu runs on rank %u in this schedule, not rank %llu",
                       (unsigned long long)stage, s->rank_of[u], (unsigned long long)rank);
            st = TFC_INVALID;
            continue;
        }
        if (!samples_push(out, (sample){.action = u, .line = line, .ms = ms, .start_us = NAN})) {
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

/* Where an action's samples start: its first file in the key's order, and
 * the first line there. Messages about the action point at it. */
typedef struct first_at {
    uint32_t file, line;
} first_at;

/* median[u] (NAN without samples) and where each action's samples start.
 * The median of the pooled samples does not depend on the order of the
 * files they came from. */
static void medians(samples *s, size_t n, double *median, first_at *first)
{
    for (size_t u = 0; u < n; u++)
        median[u] = NAN, first[u] = (first_at){0, 0};
    if (s->n) /* qsort must not see a null pointer, even for no elements */
        qsort(s->v, s->n, sizeof *s->v, cmp_sample);
    for (size_t i = 0; i < s->n;) {
        size_t j = i;
        first_at at = {s->v[i].file, s->v[i].line};
        while (j < s->n && s->v[j].action == s->v[i].action) {
            if (s->v[j].file < at.file || (s->v[j].file == at.file && s->v[j].line < at.line))
                at = (first_at){s->v[j].file, s->v[j].line};
            j++;
        }
        size_t k = j - i;
        median[s->v[i].action] = k % 2 ? s->v[i + k / 2].ms : 0.5 * (s->v[i + k / 2 - 1].ms + s->v[i + k / 2].ms);
        first[s->v[i].action] = at;
        i = j;
    }
}

/* Several files' outcome as one: an I/O error wins (exit 4, as for one
 * missing file), else the first problem. */
static tfc_status worse(tfc_status st, tfc_status next)
{
    if (st == TFC_OK)
        return next;
    return next == TFC_IO ? TFC_IO : st;
}

/* The paths of one key, resolved against the spec's folder; NULL on out of
 * memory. */
static const char **resolve(const spec *sp, const spec_files *f, arena *a)
{
    const char **v = arena_alloc_array(a, f->n ? f->n : 1, sizeof *v);
    for (size_t i = 0; v && i < f->n; i++)
        if (!(v[i] = spec_relative_path(sp, f->path[i], a)))
            return NULL;
    return v;
}

/* Every file of one key (timing.file or timing.frozen_file) into out, each
 * sample marked with its file's index in the key. All files are read, so
 * that one run reports the problems of every one of them. */
static tfc_status read_key(const spec *sp, const sched *s, const spec_files *f, const char *key, const char **paths,
                           samples *out, diag_list *d)
{
    bool trace = sp->timing.source == TIMING_TRACE;
    tfc_status st = TFC_OK;
    /* One file named twice (t.csv and ./t.csv, a relative and an absolute
     * path, a link): its samples would count twice, and a trace's ranks
     * twice in the contention count. The spec's own check sees only equal
     * strings. */
    for (size_t i = 1; i < f->n; i++) {
        struct stat si;
        if (stat(paths[i], &si) != 0 || !S_ISREG(si.st_mode))
            continue;
        for (size_t j = 0; j < i; j++)
            if (fio_same_file(paths[j], &si)) {
                diag_error(d, sp->path, f->pos[i].line, f->pos[i].col,
                           "timing.%s[%zu] (%s) is the same file as timing.%s[%zu] (%s): its samples would count "
                           "twice",
                           key, i, f->path[i], key, j, f->path[j]);
                st = TFC_INVALID;
                break;
            }
    }
    if (st != TFC_OK)
        return st;
    int64_t base0 = 0; /* the first file's clock base: the others' starts are moved onto it */
    bool have0 = false;
    for (size_t i = 0; i < f->n; i++) {
        char named[32]; /* "named by timing.file[3] here" in a note on a file that cannot be read */
        if (f->listed)
            snprintf(named, sizeof named, "%s[%zu]", key, i);
        else
            snprintf(named, sizeof named, "%s", key);
        size_t from = out->n;
        int64_t base = 0;
        bool has_base = false;
        tfc_status fs = trace ? timing_trace_read(sp, s, paths[i], f->pos[i], named, out, &base, &has_base, d)
                              : read_file(sp, s, paths[i], f->pos[i], named, out, d);
        if (has_base && !have0)
            base0 = base, have0 = true;
        double shift = has_base ? (double)(base - base0) / 1000.0 : 0.0; /* both up to 2^62: no overflow */
        for (size_t k = from; k < out->n; k++) {
            out->v[k].file = (uint32_t)i;
            out->v[k].start_us += shift;
        }
        st = worse(st, fs);
        if (out->n > TIMING_MAX_SAMPLES) { /* reading on would only cost more memory */
            diag_error(d, paths[i], 0, 0,
                       "the files of timing.%s up to this one hold %zu samples, more than the limit of %u: "
                       "profile fewer steps",
                       key, out->n, TIMING_MAX_SAMPLES);
            return worse(st, TFC_INVALID);
        }
    }
    return st;
}

/* "no samples ... for action A": at the key in the spec, one path or a
 * list alike (which file should have had the action is the user's to say;
 * the rank that runs it is the hint), with how many other actions have
 * none. */
static void report_missing(const spec *sp, const sched *s, const spec_files *f, const char *key, const char *what,
                           size_t missing, uint32_t u, diag_list *d)
{
    char name[32];
    sched_action_name(s, u, name, sizeof name);
    char files[64] = "", more[48] = "";
    if (f->n != 1)
        snprintf(files, sizeof files, "any of the %zu files timing.%s lists", f->n, key);
    if (missing > 1)
        snprintf(more, sizeof more, "; %zu more action%s %s none", missing - 1, missing > 2 ? "s" : "",
                 missing > 2 ? "have" : "has");
    if (f->n == 1) /* written as one path or a list of one: the same words */
        diag_error(d, sp->path, f->at.line, f->at.col,
                   "no samples%s for action %s (the schedule runs it on rank %u) in timing.%s (%s)%s", what, name,
                   s->rank_of[u], key, f->path[0], more);
    else
        diag_error(d, sp->path, f->at.line, f->at.col,
                   "no samples%s for action %s (the schedule runs it on rank %u) in %s%s", what, name, s->rank_of[u],
                   files, more);
}

/* Frozen medians longer than the unfrozen ones: noise when some are (a
 * warning; they count as no saving), the two keys swapped when most are
 * (an error). Reported at the first such action's first frozen sample,
 * the medians in brief (a scaled sample reads 0.42, not 0.42000000000000004),
 * each with the digits that keep it on its side of the other. */
static tfc_status report_longer(const sched *s, const char **paths, const char **fpaths, const first_at *at,
                                const first_at *fat, const double *dur, const double *frozen, uint32_t u,
                                size_t longer, size_t compared, bool trace, diag_list *d)
{
    char name[32], more[64] = "";
    sched_action_name(s, u, name, sizeof name);
    if (longer > 1)
        snprintf(more, sizeof more, "; %zu of the %zu freezable actions are", longer, compared);
    if (longer >= 2 && 2 * longer > compared) {
        diag_error(d, fpaths[fat[u].file], fat[u].line, trace ? 1 : 5,
                   "action %s: median %s ms with everything frozen is longer than the median %s ms with "
                   "nothing frozen (%s line %u)%s: are timing.file and timing.frozen_file swapped?",
                   name, real_apart(frozen[u], dur[u]).s, real_apart(dur[u], frozen[u]).s, paths[at[u].file],
                   at[u].line, more);
        return TFC_INVALID;
    }
    diag_warning(d, fpaths[fat[u].file], fat[u].line, trace ? 1 : 5,
                 "action %s: median %s ms with everything frozen is longer than the median %s ms with nothing "
                 "frozen (%s line %u)%s; taken as no saving from freezing (measurement noise, or little "
                 "weight-gradient work: more profiled steps narrow it)",
                 name, real_apart(frozen[u], dur[u]).s, real_apart(dur[u], frozen[u]).s, paths[at[u].file],
                 at[u].line, more);
    return TFC_OK;
}

tfc_status timing_csv_load(const spec *sp, const sched *s, arena *a, double *dur, double *w_min, diag_list *d)
{
    const spec_timing *tm = &sp->timing;
    const char **paths = resolve(sp, &tm->file, a), **fpaths = resolve(sp, &tm->frozen_file, a);
    size_t n = s->n_actions;
    double *frozen = arena_alloc_array(a, n ? n : 1, sizeof *frozen);
    first_at *at = arena_alloc_array(a, n ? n : 1, sizeof *at);
    first_at *fat = arena_alloc_array(a, n ? n : 1, sizeof *fat);
    if (!paths || !fpaths || !frozen || !at || !fat) {
        return diag_nomem(d, "reading the timings");
    }
    samples su = {0}, sf = {0};
    bool trace = tm->source == TIMING_TRACE;
    tfc_status st = read_key(sp, s, &tm->file, "file", paths, &su, d);
    st = worse(st, read_key(sp, s, &tm->frozen_file, "frozen_file", fpaths, &sf, d));
    /* Ranks that shared processors while they were traced: each sample as
     * the time it would have taken alone, then timing.scale. */
    if (st == TFC_OK && trace && sp->processors && sp->processors < s->ranks &&
        (!samples_shared_work(&su, sp->processors) || !samples_shared_work(&sf, sp->processors)))
        st = diag_nomem(d, "reading the timings");
    samples *keys[2] = {&su, &sf};
    for (int k = 0; k < 2 && st == TFC_OK; k++)
        for (size_t i = 0; i < keys[k]->n; i++)
            if ((keys[k]->v[i].ms *= tm->scale) > SPEC_MAX_MS) {
                diag_error(d, sp->path, tm->scale_at.line, tm->scale_at.col,
                           "timing.scale %s makes a sample longer than 1e7 ms", real_shortest(tm->scale).s);
                st = TFC_INVALID;
                break;
            }
    if (st == TFC_OK) {
        medians(&su, n, dur, at);
        medians(&sf, n, frozen, fat);
        size_t missing = 0, missing_frozen = 0, compared = 0, longer = 0;
        uint32_t first = 0, first_frozen = 0, first_longer = 0;
        for (size_t u = 0; u < n; u++) {
            bool freezable = act_type_freezable(s->actions[u].type);
            if (isnan(dur[u]) && missing++ == 0)
                first = (uint32_t)u;
            if (freezable && isnan(frozen[u]) && missing_frozen++ == 0)
                first_frozen = (uint32_t)u;
            if (!freezable || isnan(dur[u]) || isnan(frozen[u]))
                continue;
            compared++;
            /* Freezing only removes work: a frozen median above the
             * unfrozen one is the measurement's noise (an action with
             * little weight-gradient work, ranks sharing cores), so it
             * counts as no saving. */
            w_min[u] = frozen[u] > dur[u] ? dur[u] : frozen[u];
            if (frozen[u] > dur[u] && longer++ == 0)
                first_longer = (uint32_t)u;
        }
        if (longer)
            st = worse(st, report_longer(s, paths, fpaths, at, fat, dur, frozen, first_longer, longer, compared,
                                         trace, d));
        if (missing) {
            report_missing(sp, s, &tm->file, "file", "", missing, first, d);
            st = TFC_INVALID;
        }
        if (missing_frozen) {
            report_missing(sp, s, &tm->frozen_file, "frozen_file", " with everything frozen", missing_frozen,
                           first_frozen, d);
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
