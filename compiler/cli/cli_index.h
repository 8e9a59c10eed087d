/* cli_index: the `tfc index` verbs (build, query, dedup, order). Like
 * main.c, a command-line file: it prints and picks exit codes. */
#ifndef TFC_CLI_INDEX_H
#define TFC_CLI_INDEX_H

extern const char cli_index_help[];

/* argv holds what follows "index"; returns the exit code. */
int cli_index(int argc, char **argv);

#endif
