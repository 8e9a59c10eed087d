# lcp/: the LCP index (tfc index and the tfc::lcp library).
# Sources, relative to the project root (docs/architecture.md is the map).
set(TFC_LCP_SOURCES
  lcp/lcp_index.c
  lcp/lcp_shard.c
  lcp/lcp_set.c
)
