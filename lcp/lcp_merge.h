/* lcp_merge: what answering several indexes as one needs, in one process
 * (lcp_set) or across processes (python/tfc_lcp_dist.py): the top-k
 * merge, sequences in a form that travels, and the two searches a part
 * answers for another part's sequences (docs/lcp-index.md, "Index sets"). */
#ifndef TFC_LCP_MERGE_H
#define TFC_LCP_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "lcp_index.h"

/* A document's position past its end, in canonical tokens: above every
 * token (a document's tokens are below its index's pad_base <= this). */
#define LCP_END UINT32_MAX

/* Merges two top-k answers, each by LCP descending then number ascending,
 * into the first k of their union in that order; returns the count. The
 * output must not overlap either input. */
uint64_t lcp_topk_merge(const uint64_t *as, const uint32_t *al, uint64_t na, const uint64_t *bs, const uint32_t *bl,
                        uint64_t nb, uint64_t k, uint64_t *os, uint32_t *ol);

/* The first token at which two windows of seq_len tokens, width bytes
 * each, differ, or seq_len: eight bytes at a time (the merges compare long
 * shared prefixes). */
uint32_t lcp_first_difference(const unsigned char *a, const unsigned char *b, uint32_t seq_len, uint32_t width);

/* The first m tokens of sequence i of ix as uint32: a window's tokens
 * widened, a document's tokens with LCP_END past its end. */
void lcp_seq_canon(const lcp_index *ix, uint64_t i, uint32_t m, uint32_t *out);

/* How many of ix's sequences (numbered from first) come before the one
 * with canonical tokens t (seq_len of them) and number g in one index's
 * order: tokens (a document's end above every token), then number. */
uint64_t lcp_index_count_before(const lcp_index *ix, uint64_t first, const uint32_t *t, uint64_t g);

/* Whether a sequence of ix starts with the m canonical tokens t (a
 * document shorter than m tokens starts with nothing that long: in a
 * documents index no prefix holding LCP_END is found; in a windows index
 * UINT32_MAX is a token like any other). */
bool lcp_index_has_prefix(const lcp_index *ix, const uint32_t *t, uint32_t m);
/* The same for cnt prefixes of m tokens each, given in ascending order (as
 * one index sorts them): one walk along ix's sorted order instead of a
 * search each, for many prefixes at once (python/tfc_lcp_dist.py's dedup). */
void lcp_index_has_prefixes_sorted(const lcp_index *ix, const uint32_t *t, uint64_t cnt, uint32_t m, uint8_t *out);

#endif
