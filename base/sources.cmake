# base/: the ground floor both products stand on: status, arena, diagnostics, text, files, hashing, templates, the output folder.
# Sources, relative to the project root (docs/architecture.md is the map).
set(TFC_BASE_SOURCES
  base/arena.c
  base/diag.c
  base/fio.c
  base/gen.c
  base/json.c
  base/json_read.c
  base/outdir.c
  base/real.c
  base/sha256.c
  base/text.c
  base/tmpl.c
  base/version.c
)
# The part of base/ that lcp/ needs: libtfc_lcp.so and python/setup.py's
# build of the same are made of these, lcp/'s sources and lcp/lcp_ffi.c.
set(TFC_BASE_LCP_SOURCES
  base/arena.c
  base/diag.c
  base/fio.c
  base/json.c
  base/json_read.c
  base/real.c
  base/sha256.c
  base/text.c
)
