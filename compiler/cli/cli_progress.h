/* cli_progress: a long solve's progress on standard error, for a person at
 * a terminal: nothing for the first second, then one line rewritten in
 * place (phase, round, bound, gap), cleared when the solve ends. Nothing
 * at all when standard error is not a terminal or with -q, so logs and
 * pipes see the same bytes as before. */
#ifndef TFC_CLI_PROGRESS_H
#define TFC_CLI_PROGRESS_H

#include <stdbool.h>

#include "lp_problem.h"

typedef struct cli_progress {
    bool on;    /* a terminal, not -q */
    bool shown; /* a line is on the screen */
    double t0, last;
} cli_progress;

void cli_progress_init(cli_progress *p, bool quiet);
/* An lp_progress_fn; ctx is a cli_progress. */
void cli_progress_report(void *ctx, const lp_progress *pr);
/* Clears the line, if one was shown. */
void cli_progress_done(cli_progress *p);

#endif
