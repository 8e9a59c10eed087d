# compiler/lp/: the freeze LP: the problem, lp_solve on the whole LP, the decomposition.
# Sources, relative to the project root (docs/architecture.md is the map).
# Layers, bottom up: lp_problem; netflow; lp_price, lp_direct; lp_dw; lp_freeze (the facade).
set(TFC_LP_SOURCES
  compiler/lp/lp_direct.c
  compiler/lp/lp_dw.c
  compiler/lp/lp_freeze.c
  compiler/lp/lp_price.c
  compiler/lp/lp_problem.c
  compiler/lp/netflow.c
)
