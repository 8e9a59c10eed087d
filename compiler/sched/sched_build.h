/* sched_build: the schedule a spec names, built-in or read from its CSV. */
#ifndef TFC_SCHED_BUILD_H
#define TFC_SCHED_BUILD_H

#include "arena.h"
#include "diag.h"
#include "sched.h"
#include "spec.h"

/* Builds the schedule the spec names. Configurations the schedule cannot
 * take are errors at the spec's position; custom CSV problems are errors at
 * the CSV's line and column. Returns TFC_INVALID or TFC_IO with errors in d. */
tfc_status sched_build(const spec *sp, arena *a, diag_list *d, sched **out);

#endif
