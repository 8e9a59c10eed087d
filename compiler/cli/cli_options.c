/* cli_options: --policy, --lp-timeout and --lp-method read into
 * plan_options; usage errors. */
#include "cli_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "text.h"

const char *cli_plan_options(const char *policy, const char *timeout, const char *method, plan_options *opt,
                             const char **bad)
{
    *opt = plan_default_options();
    *bad = NULL;
    if (!policy || strcmp(policy, "timely") == 0)
        opt->policy = POLICY_TIMELY;
    else if (strcmp(policy, "uniform") == 0)
        opt->policy = POLICY_UNIFORM;
    else if (strcmp(policy, "none") == 0)
        opt->policy = POLICY_NONE;
    else
        return *bad = policy, "--policy must be timely, uniform or none, got";
    if (timeout) {
        char *end;
        double t = strtod(timeout, &end);
        if (end == timeout || *end || !(t >= 0 && t <= 1e6))
            return *bad = timeout, "--lp-timeout must be a number of seconds from 0 (no limit) to 1e6, got";
        opt->lp_timeout_s = t;
    }
    if (method) {
        if (strcmp(method, "direct") == 0)
            opt->lp_direct = true;
        else if (strcmp(method, "decompose") != 0)
            return *bad = method, "--lp-method must be decompose or direct, got";
    }
    return NULL;
}

int cli_usage_error(const char *verb, const char *msg, const char *arg)
{
    char q[TEXT_QUOTE_CAP];
    if (arg)
        fprintf(stderr, "tfc: error: %s: %s %s\nTry 'tfc %s --help'.\n", verb, msg,
                text_quote(q, sizeof q, arg, strlen(arg)), verb);
    else
        fprintf(stderr, "tfc: error: %s: %s\nTry 'tfc %s --help'.\n", verb, msg, verb);
    return EXIT_USAGE;
}
