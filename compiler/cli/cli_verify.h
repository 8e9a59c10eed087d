/* cli_verify: tfc verify DIR [SPEC] and tfc diff PLAN_A PLAN_B. */
#ifndef TFC_CLI_VERIFY_H
#define TFC_CLI_VERIFY_H

extern const char cli_verify_help[];
extern const char cli_diff_help[];

int cli_verify(int argc, char **argv);
int cli_diff(int argc, char **argv);

#endif
