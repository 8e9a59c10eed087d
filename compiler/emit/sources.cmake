# compiler/emit/: emission: the generated folder's files from templates/, the sweep's files, the NVRTC check.
# Sources, relative to the project root (docs/architecture.md is the map).
set(TFC_EMIT_SOURCES
  compiler/emit/compare.c
  compiler/emit/embedded.c
  compiler/emit/emit.c
  compiler/emit/emit_c.c
  compiler/emit/emit_cuda.c
  compiler/emit/emit_lcp.c
  compiler/emit/emit_plan.c
  compiler/emit/emit_util.c
  compiler/emit/nvrtc_check.c
  compiler/emit/sweep.c
)
