# compiler/cli/: the command line: the verbs, the compile driver, exit codes.
# Sources, relative to the project root (docs/architecture.md is the map).
set(TFC_CLI_SOURCES
  compiler/cli/cli_index.c
  compiler/cli/cli_options.c
  compiler/cli/cli_progress.c
  compiler/cli/cli_verify.c
  compiler/cli/compile.c
)
