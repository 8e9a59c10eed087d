/* diag: diagnostics as values. Library code appends; only main prints.
 * Printed GCC-style: FILE:LINE:COL: error: MESSAGE (line 0 = no position);
 * warnings likewise with "warning:", and they count as no error. */
#ifndef TFC_DIAG_H
#define TFC_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "status.h"

typedef struct diag {
    const char *file; /* not owned; NULL prints as "tfc" */
    unsigned line, col; /* 1-based; 0 = unknown */
    char *msg;
    char *note; /* optional follow-up, printed as "note:" at note_line:note_col */
    const char *note_file; /* NULL: the error's file */
    unsigned note_line, note_col;
    size_t seq; /* insertion order, keeps sorting stable */
    bool warning; /* printed as a warning; not an error */
} diag;

typedef struct diag_list {
    diag *items;
    size_t n, cap;
    size_t max_errors; /* items kept: past it an error takes a warning's place, or the place of the
                        * error latest in position when it comes before that one; the other of the
                        * two is counted in n_dropped */
    size_t n_dropped;
    size_t n_warnings; /* of the n items */
    bool oom; /* a message could not be stored */
    bool nomem; /* diag_nomem was called (or a message could not be stored) */
    bool nomem_shown; /* an "out of memory" message is among items */
    size_t last; /* the item the latest diagnostic went to (its note's), SIZE_MAX when it was dropped */
} diag_list;

enum { DIAG_DEFAULT_MAX = 20 };

void diag_init(diag_list *d, size_t max_errors);
void diag_free(diag_list *d);

#if defined(__GNUC__)
#define DIAG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DIAG_PRINTF(a, b)
#endif

void diag_error(diag_list *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
    DIAG_PRINTF(5, 6);
/* A warning: printed with the errors, but counted as none (diag_count,
 * diag_full) and no reason to fail. Kept while fewer than max_errors
 * items are stored; dropped silently after. */
void diag_warning(diag_list *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
    DIAG_PRINTF(5, 6);
/* Attach a note to the most recent error or warning (ignored when it was dropped). */
void diag_note(diag_list *d, unsigned line, unsigned col, const char *fmt, ...) DIAG_PRINTF(4, 5);
/* The same, for a note about another file (the spec that named a CSV). */
void diag_note_in(diag_list *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
    DIAG_PRINTF(5, 6);

/* Running out of memory, anywhere: files "out of memory WHAT" without a
 * position (memory is the machine's limit, not the input's fault), marks
 * the list so the exit is TFC_NOMEM whatever status the caller passes up,
 * and returns TFC_NOMEM. Works when even the message cannot be stored. */
tfc_status diag_nomem(diag_list *d, const char *fmt, ...) DIAG_PRINTF(2, 3);
/* st, or TFC_NOMEM when memory ran out on the way (the one rule callers
 * apply before turning a status into an exit code). */
tfc_status diag_status(const diag_list *d, tfc_status st);

/* Appends from's errors and notes to to (which keeps its own cap), and
 * frees from. */
void diag_move(diag_list *to, diag_list *from);

size_t diag_count(const diag_list *d); /* errors reported, including dropped ones; no warnings */
bool diag_full(const diag_list *d);     /* an error past the cap was dropped: callers may stop early */

/* Prints errors ordered by position (ties by insertion order), then, when
 * the cap was reached, a line saying the checks stopped there. */
void diag_print(diag_list *d, FILE *out);

#endif
