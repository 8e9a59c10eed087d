# compiler/lp/: the freeze LP: the problem, lp_solve on the whole LP, the decomposition.
# Sources, relative to the project root (docs/architecture.md is the map).
set(TFC_LP_SOURCES
  compiler/lp/lp_dw.c
  compiler/lp/lp_freeze.c
  compiler/lp/lp_price.c
  compiler/lp/netflow.c
)
