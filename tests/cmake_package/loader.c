/* A data loader linking the installed LCP index library (tfc::lcp): writes
 * a small raw token file, indexes it, and checks every query's best match
 * against a brute-force scan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp_index.h"

enum { SEQ = 8, NSEQ = 64 };

static uint32_t common(const uint16_t *a, const uint16_t *b)
{
    uint32_t n = 0;
    while (n < SEQ && a[n] == b[n])
        n++;
    return n;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    char shard[4096], index[4096];
    snprintf(shard, sizeof shard, "%s/tokens.bin", dir);
    snprintf(index, sizeof index, "%s/tokens.idx", dir);
    uint16_t tok[NSEQ * SEQ];
    uint32_t x = 12345;
    for (size_t i = 0; i < NSEQ * SEQ; i++) {
        x = x * 1103515245u + 12345u;
        tok[i] = (uint16_t)((x >> 16) % 3); /* three symbols: many shared prefixes */
    }
    FILE *f = fopen(shard, "wb");
    if (!f || fwrite(tok, sizeof tok, 1, f) != 1 || fclose(f) != 0)
        return 1;
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    const char *paths[] = {shard};
    lcp_shards sh;
    lcp_index ix;
    lcp_build_stats st;
    if (lcp_shards_open(paths, 1, true, 2, &sh, &d) != TFC_OK ||
        lcp_index_build(&sh, SEQ, SEQ, index, false, &d, &st) != TFC_OK ||
        lcp_index_open(index, &sh, true, &ix, &d) != TFC_OK || lcp_index_derive(&ix, index, &d) != TFC_OK) {
        diag_print(&d, stderr);
        return 1;
    }
    int bad = 0;
    for (uint32_t q = 0; q < NSEQ; q++) {
        uint16_t query[SEQ];
        memcpy(query, tok + q * SEQ, sizeof query);
        query[SEQ - 1] ^= 1; /* perturbed: the best match is not always q */
        uint32_t seq[1], lcp[1];
        if (lcp_index_topk(&ix, query, 1, seq, lcp) != 1)
            bad++;
        uint32_t best = 0, best_lcp = 0;
        for (uint32_t i = 0; i < NSEQ; i++) {
            uint32_t c = common(query, tok + i * SEQ);
            if (c > best_lcp) /* ties: the smaller number, as tfc index */
                best = i, best_lcp = c;
        }
        if (seq[0] != best || lcp[0] != best_lcp) {
            fprintf(stderr, "query %u: index %u:%u, brute force %u:%u\n", q, seq[0], lcp[0], best, best_lcp);
            bad++;
        }
    }
    lcp_index_close(&ix);
    lcp_shards_close(&sh);
    diag_free(&d);
    printf("loader: tfc::lcp indexed %d sequences; %d queries agree with brute force\n", NSEQ, NSEQ - bad);
    return bad != 0;
}
