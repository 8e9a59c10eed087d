/* lcp_ffi: the LCP index and index sets behind one opaque handle and flat
 * functions of plain C types, for callers through a foreign-function
 * interface (python/tfc_lcp.py binds it with ctypes; docs/lcp-index.md,
 * "From Python"). A handle is read-only once open: any number of threads
 * may query it at once. Functions that can fail take err (cap bytes),
 * where they leave the diagnostics as tfc prints them. */
#ifndef TFC_LCP_FFI_H
#define TFC_LCP_FFI_H

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever a signature below changes: the binding checks it. */
#define TFC_LCP_ABI 2

typedef struct tfc_lcp tfc_lcp;

/* The shared library (libtfc_lcp.so, python/setup.py's _tfc_lcp) is built
 * with hidden visibility: these are all it exports. */
#if defined(__GNUC__)
#define TFC_LCP_API __attribute__((visibility("default")))
#else
#define TFC_LCP_API
#endif

TFC_LCP_API int tfc_lcp_abi(void);

/* Opens, with the search arrays derived:
 *  - n_shards 0, part < 0: the index set at path;
 *  - n_shards 0, part >= 0: part `part` of the set alone (numbers global;
 *    the others are not opened);
 *  - n_shards > 0: the index at path over those shards (raw_token_bytes 2
 *    or 4 for raw shards, 0 for llm.c's).
 * NULL on failure, *status the exit status tfc would give (1 invalid, 4 I/O,
 * 6 out of memory). */
TFC_LCP_API tfc_lcp *tfc_lcp_open(const char *path, const char *const *shards, uint32_t n_shards, uint32_t raw_token_bytes,
                      int64_t part, int verify, int *status, char *err, size_t cap);
TFC_LCP_API void tfc_lcp_close(tfc_lcp *h);

/* out[0..7]: sequences h answers for, seq_len, token_bytes, documents (0
 * or 1), doc_sep, parts (1 for an index), the first number h answers
 * for (a part's; 0 otherwise), sequences in the whole set. */
TFC_LCP_API void tfc_lcp_info(const tfc_lcp *h, uint64_t out[8]);

/* Top-k for nq queries of seq_len tokens each, contiguous: query q's
 * numbers and LCPs at [q * c, (q + 1) * c), c = min(k, sequences), best
 * first. Returns c, or -1 (out of memory). */
TFC_LCP_API int64_t tfc_lcp_topk(const tfc_lcp *h, const void *queries, uint64_t nq, uint64_t k, uint64_t *seq, uint32_t *lcp,
                     char *err, size_t cap);
/* The numbers of the sequences sharing min_lcp leading tokens with a
 * smaller-numbered one (a part: within itself), ascending, in *out
 * (tfc_lcp_free it). Returns how many, or -1. */
TFC_LCP_API int64_t tfc_lcp_dedup(const tfc_lcp *h, uint32_t min_lcp, uint64_t **out, char *err, size_t cap);
/* The sorted order: out[j] the number of the j-th sequence (sequences
 * entries). 0, or -1. */
TFC_LCP_API int tfc_lcp_order(const tfc_lcp *h, uint64_t *out, char *err, size_t cap);
TFC_LCP_API void tfc_lcp_free(void *p);

/* nq pairs of top-k answers (a: na per query, b: nb per query, each best
 * first) merged into out, min(k, na + nb) per query; returns that count. */
TFC_LCP_API int64_t tfc_lcp_topk_merge(uint64_t nq, uint64_t k, const uint64_t *as, const uint32_t *al, uint64_t na,
                           const uint64_t *bs, const uint32_t *bl, uint64_t nb, uint64_t *os, uint32_t *ol);

/* What a process answering for one part does for another's sequences
 * (python/tfc_lcp_dist.py; index, set or part handles alike, numbers
 * global, tokens canonical: lcp_merge.h):
 *  - canon: the first m tokens of each of the cnt sequences numbered nums
 *    (ones h answers for) into out, m per sequence; -1 for a number out of
 *    range;
 *  - count_before: for each of cnt sequences (seq_len canonical tokens
 *    and its number), how many of h's sequences come before it in the
 *    order;
 *  - has_prefix: for each of cnt prefixes of m canonical tokens, whether a
 *    sequence of h starts with it; sorted != 0 promises the prefixes in
 *    ascending order (one walk along each index's order, not a search each). */
TFC_LCP_API int tfc_lcp_canon(const tfc_lcp *h, const uint64_t *nums, uint64_t cnt, uint32_t m, uint32_t *out);
TFC_LCP_API void tfc_lcp_count_before(const tfc_lcp *h, const uint32_t *tokens, const uint64_t *nums, uint64_t cnt, uint64_t *out);
TFC_LCP_API void tfc_lcp_has_prefix(const tfc_lcp *h, const uint32_t *tokens, uint64_t cnt, uint32_t m, int sorted,
                                    uint8_t *out);

#endif
