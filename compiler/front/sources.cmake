# compiler/front/: the front end: spec v1 from YAML, the cost model, the selection weights.
# Sources, relative to the project root (docs/architecture.md is the map).
set(TFC_FRONT_SOURCES
  compiler/front/cost_model.c
  compiler/front/select.c
  compiler/front/spec.c
  compiler/front/spec_freeze.c
  compiler/front/spec_inputs.c
  compiler/front/spec_model.c
  compiler/front/spec_names.c
  compiler/front/spec_read.c
  compiler/front/spec_timing.c
  compiler/front/spec_variant.c
  compiler/front/ydoc.c
  compiler/front/ydoc_scalar.c
)
