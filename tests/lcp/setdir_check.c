/* setdir_check: an index set's top-k with its merged directory at every
 * step (lcp_set_directory: 1, 2, 4, ..., 32) against the same set with
 * none (each part searched from its own directory, a path that shares none
 * of the merged directory's code), for every query of a shard and each k
 * given: the numbers and LCPs must be the same, and the batch
 * (lcp_set_topk_batch) must give the single queries' answers. set_check.py
 * runs it on each of its sets, whose answers through the CLI (the default
 * directory) it checks against one index over all the shards. Printed: the
 * directories built and how many parts' places they bracketed (the rest
 * were searched on their own), so a directory that stopped being used
 * shows.
 *   setdir_check SET QUERIES K...   exit 0 when nothing differs */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp_set.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: setdir_check SET QUERIES K...\n");
        return 2;
    }
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    lcp_set s;
    lcp_shards qs;
    const char *qp[1] = {argv[2]};
    tfc_status st = lcp_set_open(argv[1], false, true, &s, &d);
    if (st == TFC_OK)
        st = lcp_shards_open(qp, 1, s.raw, s.token_bytes, &qs, &d);
    if (st != TFC_OK) {
        diag_print(&d, stderr);
        return 1;
    }
    size_t qbytes = (size_t)s.seq_len * s.token_bytes;
    uint64_t nq = qs.s[0].n_tokens / s.seq_len, bad = 0, built = 0, bracketed = 0;
    for (int a = 3; a < argc; a++) {
        uint64_t k = strtoull(argv[a], NULL, 10);
        lcp_set_work w;
        uint64_t *seq = malloc(2 * nq * k * sizeof *seq);
        uint32_t *lcp = malloc(2 * nq * k * sizeof *lcp);
        uint64_t *cnt = malloc(nq * sizeof *cnt);
        if (!k || !seq || !lcp || !cnt || !lcp_set_work_init(&w, k)) {
            fprintf(stderr, "setdir_check: no memory for k %llu\n", (unsigned long long)k);
            return 1;
        }
        lcp_set_directory(&s, 0);
        for (uint64_t i = 0; i < nq; i++)
            cnt[i] = lcp_set_topk(&s, (const unsigned char *)qs.s[0].tokens + i * qbytes, &w, seq + i * k, lcp + i * k);
        for (uint32_t step = 1; step <= 32; step *= 2) {
            if (!lcp_set_directory(&s, step))
                continue;
            built++;
            for (uint64_t i = 0; i < nq; i++) {
                const unsigned char *qi = (const unsigned char *)qs.s[0].tokens + i * qbytes;
                uint64_t *sq = seq + (nq + i) * k;
                uint32_t *lq = lcp + (nq + i) * k;
                uint64_t c = lcp_set_topk(&s, qi, &w, sq, lq);
                if (c != cnt[i] || memcmp(sq, seq + i * k, c * sizeof *sq) || memcmp(lq, lcp + i * k, c * sizeof *lq)) {
                    if (bad++ < 5)
                        fprintf(stderr, "setdir_check: %s: step %u, k %llu: query %llu differs (%llu answers, %llu without)\n",
                                argv[1], step, (unsigned long long)k, (unsigned long long)i, (unsigned long long)c,
                                (unsigned long long)cnt[i]);
                }
                lcp_index_bracket br[LCP_SETDIR_MAX_PARTS];
                lcp_setdir_brackets(s.dir, qi, br);
                for (uint32_t p = 0; p < s.n_parts; p++)
                    bracketed += br[p].known;
            }
            /* The batch: every query's answer at [i c, (i + 1) c). */
            uint64_t c = lcp_set_topk_batch(&s, qs.s[0].tokens, nq, &w, seq + nq * k, lcp + nq * k);
            for (uint64_t i = 0; i < nq; i++)
                if (memcmp(seq + nq * k + i * c, seq + i * k, c * sizeof *seq) ||
                    memcmp(lcp + nq * k + i * c, lcp + i * k, c * sizeof *lcp)) {
                    if (bad++ < 5)
                        fprintf(stderr, "setdir_check: %s: step %u, k %llu: the batch's answer to query %llu differs\n",
                                argv[1], step, (unsigned long long)k, (unsigned long long)i);
                }
        }
        lcp_set_work_free(&w);
        free(seq);
        free(lcp);
        free(cnt);
    }
    printf("setdir_check: %s: %llu queries, %llu directories, %llu places bracketed, %llu differences\n", argv[1],
           (unsigned long long)nq, (unsigned long long)built, (unsigned long long)bracketed, (unsigned long long)bad);
    lcp_shards_close(&qs);
    lcp_set_close(&s);
    diag_free(&d);
    return bad ? 1 : 0;
}
