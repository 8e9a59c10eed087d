/* cli_exit: the one mapping from a status to tfc's exit code (DESIGN.md,
 * "Exit codes"). Only the command line (main.c, cli_index.c) exits. */
#ifndef TFC_CLI_EXIT_H
#define TFC_CLI_EXIT_H

#include <stdio.h>

#include "diag.h"
#include "status.h"

enum cli_exit {
    EXIT_OK = 0,
    EXIT_INVALID = 1,    /* invalid spec or input */
    EXIT_USAGE = 2,      /* bad command line */
    EXIT_INFEASIBLE = 3, /* no plan */
    EXIT_IO = 4,         /* a file could not be read or written */
    EXIT_NVRTC = 5,      /* generated CUDA failed the NVRTC check */
    EXIT_NOMEM = 6,      /* out of memory */
};

static inline int cli_exit_code(tfc_status st)
{
    switch (st) {
    case TFC_OK: return EXIT_OK;
    case TFC_INVALID: return EXIT_INVALID;
    case TFC_INFEASIBLE: return EXIT_INFEASIBLE;
    case TFC_IO: return EXIT_IO;
    case TFC_NVRTC: return EXIT_NVRTC;
    case TFC_NOMEM: return EXIT_NOMEM;
    }
    return EXIT_INVALID;
}

/* Prints d's diagnostics to stderr, frees d, and returns st, or TFC_NOMEM
 * when memory ran out on the way. */
static inline tfc_status cli_report(diag_list *d, tfc_status st)
{
    st = diag_status(d, st);
    diag_print(d, stderr);
    diag_free(d);
    return st;
}

#endif
