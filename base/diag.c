/* diag: storage, ordering and GCC-style printing of diagnostics. */
#include "diag.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void diag_init(diag_list *d, size_t max_errors)
{
    memset(d, 0, sizeof *d);
    d->max_errors = max_errors ? max_errors : DIAG_DEFAULT_MAX;
    d->last = SIZE_MAX;
}

void diag_free(diag_list *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->items[i].msg);
        free(d->items[i].note);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

static char *vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int len = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (len < 0)
        return NULL;
    char *s = malloc((size_t)len + 1);
    if (s)
        vsnprintf(s, (size_t)len + 1, fmt, ap);
    return s;
}

static int by_position(const void *pa, const void *pb);

/* At the cap, the slot an error at (line, col) may take: a warning's (the
 * last stored), else the error latest in position when the new one comes
 * before it, so that the errors kept are the first by position of those
 * found, as printed, not the first found; d->n when none. */
static size_t slot_at_cap(const diag_list *d, unsigned line, unsigned col)
{
    for (size_t i = d->n; i-- > 0;)
        if (d->items[i].warning)
            return i;
    size_t last = 0;
    for (size_t i = 1; i < d->n; i++)
        if (by_position(&d->items[i], &d->items[last]) > 0)
            last = i;
    diag probe = {.line = line, .col = col, .seq = (size_t)-1};
    return d->n && by_position(&probe, &d->items[last]) < 0 ? last : d->n;
}

static bool same_file(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* Whether a warning with this text at this place is stored already (work
 * repeated, e.g. a timing file read again for each cap auto plans). */
static bool repeated_warning(const diag_list *d, const char *file, unsigned line, unsigned col, const char *fmt,
                             va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    char *msg = vformat(fmt, copy);
    va_end(copy);
    bool found = false;
    for (size_t i = 0; msg && !found && i < d->n; i++) {
        const diag *e = &d->items[i];
        found = e->warning && e->line == line && e->col == col && same_file(e->file, file) && strcmp(e->msg, msg) == 0;
    }
    free(msg);
    return found;
}

/* Stores one item; a warning that finds no room is dropped silently (it
 * must never read as an error), and so is one said already. */
static void add(diag_list *d, bool warning, const char *file, unsigned line, unsigned col, const char *fmt,
                va_list ap)
{
    d->last = SIZE_MAX; /* until stored below */
    if (warning && repeated_warning(d, file, line, col, fmt, ap))
        return;
    if (d->n >= d->max_errors) {
        if (warning)
            return;
        size_t k = slot_at_cap(d, line, col);
        /* An error is dropped, this one or the one it displaces, unless it
         * displaces a warning. */
        d->n_dropped += k == d->n || !d->items[k].warning;
        char *msg = k < d->n ? vformat(fmt, ap) : NULL;
        if (!msg) {
            if (k < d->n) { /* the message could not be stored */
                d->oom = d->nomem = true;
                d->n_dropped += d->items[k].warning;
            }
            return;
        }
        diag *e = &d->items[k];
        size_t seq = 0;
        for (size_t i = 0; i < d->n; i++)
            seq = d->items[i].seq >= seq ? d->items[i].seq + 1 : seq;
        d->n_warnings -= e->warning;
        free(e->msg);
        free(e->note);
        *e = (diag){.file = file, .line = line, .col = col, .msg = msg, .seq = seq};
        d->last = k;
        return;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        diag *items = realloc(d->items, cap * sizeof *items);
        if (!items) {
            if (!warning) {
                d->oom = d->nomem = true;
                d->n_dropped++;
            }
            return;
        }
        d->items = items;
        d->cap = cap;
    }
    char *msg = vformat(fmt, ap);
    if (!msg) {
        if (!warning) {
            d->oom = d->nomem = true;
            d->n_dropped++;
        }
        return;
    }
    diag *e = &d->items[d->n];
    memset(e, 0, sizeof *e);
    e->file = file;
    e->line = line;
    e->col = col;
    e->msg = msg;
    e->seq = d->n;
    e->warning = warning;
    d->n++;
    d->n_warnings += warning;
    d->last = d->n - 1;
}

void diag_error(diag_list *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, false, file, line, col, fmt, ap);
    va_end(ap);
}

void diag_warning(diag_list *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, true, file, line, col, fmt, ap);
    va_end(ap);
}

tfc_status diag_nomem(diag_list *d, const char *fmt, ...)
{
    /* On the stack: the heap is what ran out. */
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (n < 0)
        what[0] = '\0';
    d->nomem = true;
    size_t before = d->n;
    diag_error(d, NULL, 0, 0, "out of memory%s%s", what[0] ? " " : "", what);
    if (d->n > before)
        d->nomem_shown = true;
    return TFC_NOMEM;
}

tfc_status diag_status(const diag_list *d, tfc_status st)
{
    return d->nomem && st != TFC_OK ? TFC_NOMEM : st;
}

static void note(diag_list *d, const char *file, unsigned line, unsigned col, const char *fmt, va_list ap)
{
    if (d->last >= d->n)
        return;
    diag *e = &d->items[d->last];
    if (e->note)
        return;
    e->note = vformat(fmt, ap);
    e->note_file = file;
    e->note_line = line;
    e->note_col = col;
}

void diag_note(diag_list *d, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note(d, NULL, line, col, fmt, ap);
    va_end(ap);
}

void diag_note_in(diag_list *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note(d, file, line, col, fmt, ap);
    va_end(ap);
}

void diag_move(diag_list *to, diag_list *from)
{
    for (size_t i = 0; i < from->n; i++) {
        const diag *x = &from->items[i];
        if (x->warning)
            diag_warning(to, x->file, x->line, x->col, "%s", x->msg);
        else
            diag_error(to, x->file, x->line, x->col, "%s", x->msg);
        if (x->note)
            diag_note_in(to, x->note_file ? x->note_file : x->file, x->note_line, x->note_col, "%s", x->note);
    }
    to->n_dropped += from->n_dropped;
    if (from->nomem && !from->nomem_shown)
        diag_nomem(to, "%s", "");
    else if (from->nomem)
        to->nomem = to->nomem_shown = true;
    diag_free(from);
}

size_t diag_count(const diag_list *d) { return d->n - d->n_warnings + d->n_dropped; }

/* Full once an error found no room: a check that stops at the cap itself
 * would stop before the error that tells diag_print to say it stopped. */
bool diag_full(const diag_list *d) { return d->n_dropped > 0; }

static int by_position(const void *pa, const void *pb)
{
    const diag *a = pa, *b = pb;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void print_prefix(FILE *out, const char *file, unsigned line, unsigned col)
{
    fputs(file ? file : "tfc", out);
    if (line) {
        fprintf(out, ":%u", line);
        if (col)
            fprintf(out, ":%u", col);
    }
    fputs(": ", out);
}

void diag_print(diag_list *d, FILE *out)
{
    if (d->n > 1)
        qsort(d->items, d->n, sizeof *d->items, by_position);
    for (size_t i = 0; i < d->n; i++) {
        const diag *e = &d->items[i];
        print_prefix(out, e->file, e->line, e->col);
        fprintf(out, "%s: %s\n", e->warning ? "warning" : "error", e->msg);
        if (e->note) {
            print_prefix(out, e->note_file ? e->note_file : e->file, e->note_line, e->note_col);
            fprintf(out, "note: %s\n", e->note);
        }
    }
    if (d->nomem && !d->nomem_shown && !d->oom)
        fprintf(out, "tfc: error: out of memory\n");
    if (d->n_dropped) {
        const char *file = d->n ? d->items[0].file : NULL;
        print_prefix(out, file, 0, 0);
        /* Checks stop early once the cap is reached, so n_dropped is a lower bound. */
        if (d->oom)
            fprintf(out, "error: out of memory while storing diagnostics; some are not shown\n");
        else
            fprintf(out, "error: too many errors; stopped after %zu\n", d->n - d->n_warnings);
    }
}
