# compiler/plan/: the plan: schedule + DAG + LP in one value, and its printing.
# Sources, relative to the project root (docs/architecture.md is the map).
set(TFC_PLAN_SOURCES
  compiler/plan/plan.c
  compiler/plan/plan_diff.c
  compiler/plan/plan_print.c
  compiler/plan/ttq.c
)
