/* cli_options: the planning options plan, compile and verify share
 * (--policy, --lp-timeout, --lp-method), read one way. */
#ifndef TFC_CLI_OPTIONS_H
#define TFC_CLI_OPTIONS_H

#include "plan.h"

/* *opt from the three options' texts (NULL: not given; policy NULL is
 * timely). NULL when they are valid; else what is wrong ("--policy must be
 * timely, uniform or none, got"), with the text at fault in *bad. */
const char *cli_plan_options(const char *policy, const char *timeout, const char *method, plan_options *opt,
                             const char **bad);

#endif
