# lcp/: the LCP index (tfc index and the tfc::lcp library).
# Sources, relative to the project root (docs/architecture.md is the map).
set(TFC_LCP_SOURCES
  lcp/lcp_index.c
  lcp/lcp_shard.c
  lcp/lcp_set.c
  lcp/lcp_merge.c
  lcp/lcp_setdir.c
)
# The flat handle API for foreign callers (python/tfc_lcp.py), built as the
# shared library libtfc_lcp.so with the library's sources and the base
# files they need (base/sources.cmake's TFC_BASE_LCP_SOURCES);
# python/setup.py reads these lists to build the same.
set(TFC_LCP_FFI_SOURCES
  lcp/lcp_ffi.c
)
