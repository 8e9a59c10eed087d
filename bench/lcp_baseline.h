/* lcp_baseline: the plain sorted-array top-k that bench_lcp measures the
 * LCP index against (bench/lcp_baseline.c). */
#ifndef TFC_LCP_BASELINE_H
#define TFC_LCP_BASELINE_H

#include <stdbool.h>
#include <stdint.h>

#define LCP_BASELINE_MAX_K 64

typedef struct lcp_baseline {
    const uint32_t *perm; /* sorted sequence numbers */
    const uint8_t *lcp;   /* adjacent LCPs (seq_len <= 255) */
    uint64_t n, nb;       /* positions, blocks of 64 */
    const uint16_t *tok;  /* sequence i at tok + i * L */
    uint32_t L;
    int levels;
    uint8_t *lmin[40];  /* lmin[j][b]: smallest LCP in blocks [b, b + 2^j) */
    uint32_t *imin[40]; /* imin[j][b]: position of the smallest number there */
    uint64_t bytes;     /* of the two tables */
} lcp_baseline;

/* Builds the tables; -1 when memory runs out. */
int lcp_baseline_init(lcp_baseline *b, const uint32_t *perm, const uint8_t *lcp, uint64_t n, const uint16_t *tok,
                      uint32_t seq_len);
void lcp_baseline_free(lcp_baseline *b);
/* The same answer as lcp_index_topk (k <= LCP_BASELINE_MAX_K). */
uint64_t lcp_baseline_topk(const lcp_baseline *b, const uint16_t *q, uint64_t k, uint32_t *seq, uint32_t *lcp);

#endif
