/* status: the outcome of every step of tfc that can fail, one type for the
 * whole project. What went wrong is in a diag_list (diag.h), never in the
 * status; the command line alone turns a status into an exit code
 * (cli_exit.h). The values are those exit codes, so a status printed in a
 * log reads the same as the exit it causes. */
#ifndef TFC_STATUS_H
#define TFC_STATUS_H

typedef enum tfc_status {
    TFC_OK = 0,
    TFC_INVALID = 1,    /* the input is wrong: spec, CSV, shard, index file */
    TFC_INFEASIBLE = 3, /* no plan: the freeze LP found none, or gave up */
    TFC_IO = 4,         /* a file could not be read or written */
    TFC_NVRTC = 5,      /* generated CUDA failed the NVRTC check */
    TFC_NOMEM = 6,      /* out of memory, wherever it happened */
} tfc_status;

/* The worse of two outcomes, for steps that go on after a failure to
 * collect more errors: out of memory wins, then the first failure. */
static inline tfc_status tfc_status_worse(tfc_status a, tfc_status b)
{
    if (a == TFC_NOMEM || b == TFC_NOMEM)
        return TFC_NOMEM;
    return a != TFC_OK ? a : b;
}

#endif
