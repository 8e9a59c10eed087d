/* cli_options: the planning options plan, compile and verify share
 * (--policy, --lp-timeout, --lp-method), read one way, and the one way
 * every verb says a usage error. */
#ifndef TFC_CLI_OPTIONS_H
#define TFC_CLI_OPTIONS_H

#include "plan.h"

/* *opt from the three options' texts (NULL: not given; policy NULL is
 * timely). NULL when they are valid; else what is wrong ("--policy must be
 * timely, uniform or none, got"), with the text at fault in *bad. */
const char *cli_plan_options(const char *policy, const char *timeout, const char *method, plan_options *opt,
                             const char **bad);

/* Prints "tfc: error: VERB: MSG ARG" (ARG quoted and escaped, omitted when
 * NULL) and "Try 'tfc VERB --help'." on stderr; returns EXIT_USAGE. */
int cli_usage_error(const char *verb, const char *msg, const char *arg);

#endif
