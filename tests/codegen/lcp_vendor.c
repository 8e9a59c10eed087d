/* A data loader's view of generated/llama8b_1f1b/llama8b_1f1b_lcp_index.c:
 * builds the index of an llm.c shard (of the spec's token width) with the generated code, and answers
 * top-k queries; tests/codegen/check.sh compares both with `tfc index`.
 * Also checks find_prefix on every query window's prefixes of several
 * lengths, by brute force: each sorted position in the range starts with
 * the prefix, and the positions just outside it do not.
 * With SEP and DOCS_OUT, also the documents between SEP tokens
 * (NAME_lcp_docs_*): their top-k answers to the same queries, then the
 * documents whose first min-lcp 64 tokens repeat an earlier one's, as
 * `tfc index query` and `tfc index dedup` print them for an index built
 * with --doc-sep.
 *   lcp_vendor SHARD QUERIES STRIDE K ORDER_OUT [SEP DOCS_OUT]   (answers on stdout) */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama8b_1f1b_lcp_index.h"

static bool starts_with(const llama8b_1f1b_lcp_data *d, uint32_t seq, const llama8b_1f1b_lcp_token *p, uint32_t plen)
{
    const llama8b_1f1b_lcp_token *s = d->shard[0] + (uint64_t)seq * d->stride;
    for (uint32_t i = 0; i < plen; i++)
        if (s[i] != p[i])
            return false;
    return true;
}

static llama8b_1f1b_lcp_token *read_shard(const char *path, uint64_t *n)
{
    FILE *f = fopen(path, "rb");
    int32_t h[256];
    /* llm.c's header: magic 20240520 for uint16 tokens, 20240801 for uint32. */
    const int32_t magic = sizeof(llama8b_1f1b_lcp_token) == 2 ? 20240520 : 20240801;
    if (!f || fread(h, sizeof h, 1, f) != 1 || h[0] != magic)
        return NULL;
    *n = (uint64_t)(uint32_t)h[2];
    llama8b_1f1b_lcp_token *t = malloc(*n * sizeof *t + 1);
    if (!t || fread(t, sizeof *t, *n, f) != *n)
        return NULL;
    fclose(f);
    return t;
}

/* The documents of the shard, indexed with the generated documents API
 * and every derived set; answers and duplicates written to path. */
static int documents(const llama8b_1f1b_lcp_token *tok, uint64_t nt, const llama8b_1f1b_lcp_token *qs, uint64_t nq,
                     uint32_t sep, uint32_t k, const char *path)
{
    const uint32_t L = LLAMA8B_1F1B_LCP_SEQ_LEN;
    const llama8b_1f1b_lcp_token *shards[1] = {tok};
    uint64_t n = 0;
    uint32_t pad = 0;
    if (!llama8b_1f1b_lcp_docs_pack(shards, &nt, 1, L, sep, NULL, &n, &pad))
        return 1;
    uint32_t *docs = malloc(n * L * 4 + 4), *perm = malloc(n * 4 + 4), *lcp = malloc(n * 4 + 4);
    uint64_t again = 0;
    if (!docs || !perm || !lcp || !llama8b_1f1b_lcp_docs_pack(shards, &nt, 1, L, sep, docs, &again, &pad) ||
        again != n)
        return 1;
    const uint32_t *dshards[1] = {docs};
    uint64_t first[2] = {0, n};
    llama8b_1f1b_lcpd_data d = {L, L, 1, dshards, first};
    if (!llama8b_1f1b_lcp_docs_build_index(&d, perm, lcp))
        return 1;
    uint16_t *lcp16 = malloc(n * 2 + 2); /* as the file stores them for seq_len 1024 */
    for (uint64_t i = 0; i < n; i++)
        lcp16[i] = (uint16_t)lcp[i];
    llama8b_1f1b_lcpd_index ix = {.perm = perm, .lcp = lcp16, .lcp_bytes = 2, .n = n};
    uint64_t nd = llama8b_1f1b_lcp_derived_size(n);
    uint64_t *dir = malloc(nd * 8 + 8), *top = malloc((llama8b_1f1b_lcp_derived_size(nd) + 1) * 8);
    uint32_t *idmin = malloc(nd * 4 + 4), *idmin2 = malloc(nd * 4 + 4);
    uint8_t *lcpmin = malloc(nd + 1), *dtok = malloc(llama8b_1f1b_lcp_dtok_bytes(n) + 1);
    llama8b_1f1b_lcpd_deep *deep = malloc((nd + 1) * sizeof *deep);
    llama8b_1f1b_lcpd_deep *deep_up = malloc((llama8b_1f1b_lcp_derived_deep_up_size(n) + 1) * sizeof *deep_up);
    uint32_t *up = malloc(llama8b_1f1b_lcp_derived_up_size(n) * 4 + 4);
    llama8b_1f1b_lcp_docs_derive(&d, &ix, dir, idmin, lcpmin, top);
    ix.dir = dir, ix.n_dir = nd, ix.idmin = idmin, ix.lcpmin = lcpmin, ix.top = top;
    llama8b_1f1b_lcp_docs_derive_deep(&d, &ix, deep, idmin2, dtok);
    ix.deep = deep, ix.idmin2 = idmin2, ix.dtok = dtok;
    llama8b_1f1b_lcp_docs_derive_up(&ix, up);
    llama8b_1f1b_lcp_docs_derive_deep_up(&d, &ix, deep_up);
    ix.up = up, ix.deep_up = deep_up;
    llama8b_1f1b_lcpd_run *runs = malloc(llama8b_1f1b_lcp_derived_runs_size(n) * sizeof *runs);
    uint32_t *run_hash = malloc(llama8b_1f1b_lcp_derived_run_hash_size(n) * 4);
    llama8b_1f1b_lcp_docs_derive_runs(&d, &ix, runs, run_hash);
    ix.runs = runs, ix.run_hash = run_hash, ix.run_mask = llama8b_1f1b_lcp_derived_run_hash_size(n) - 1;
    FILE *f = fopen(path, "w");
    uint32_t *q = malloc(L * 4), *rs = malloc(k * 4), *rl = malloc(k * 4);
    uint8_t *dup = malloc(n + 1);
    if (!f || !q || !rs || !rl || !dup)
        return 1;
    for (uint64_t at = 0; at + L <= nq; at += L) {
        llama8b_1f1b_lcp_docs_query_tokens(qs + at, L, sep, pad, q);
        uint64_t got = llama8b_1f1b_lcp_docs_query(&d, &ix, q, k, rs, rl);
        for (uint64_t i = 0; i < got; i++)
            fprintf(f, "%s%u:%u", i ? " " : "", rs[i], rl[i]);
        fputc('\n', f);
    }
    llama8b_1f1b_lcp_docs_find_duplicates(&ix, 64, dup);
    for (uint64_t i = 0; i < n; i++)
        if (dup[i])
            fprintf(f, "%llu\n", (unsigned long long)i);
    fprintf(stderr, "lcp_vendor: %llu documents\n", (unsigned long long)n);
    return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 8)
        return 2;
    uint64_t nt, nq;
    llama8b_1f1b_lcp_token *tok = read_shard(argv[1], &nt), *qs = read_shard(argv[2], &nq);
    if (!tok || !qs)
        return 1;
    uint32_t stride = (uint32_t)atoi(argv[3]), k = (uint32_t)atoi(argv[4]);
    uint64_t first[2];
    llama8b_1f1b_lcp_count(&nt, 1, LLAMA8B_1F1B_LCP_SEQ_LEN, stride, first);
    const llama8b_1f1b_lcp_token *shards[1] = {tok};
    llama8b_1f1b_lcp_data d = {LLAMA8B_1F1B_LCP_SEQ_LEN, stride, 1, shards, first};
    uint64_t n = first[1];
    uint32_t *perm = malloc(n * 4), *lcp = malloc(n * 4);
    if (!llama8b_1f1b_lcp_build_index(&d, perm, lcp))
        return 1;
    /* LCPs as the file stores them for seq_len 1024: two bytes each. */
    uint16_t *lcp16 = malloc(n * 2);
    for (uint64_t i = 0; i < n; i++)
        lcp16[i] = (uint16_t)lcp[i];
    llama8b_1f1b_lcp_index ix = {.perm = perm, .lcp = lcp16, .lcp_bytes = 2, .n = n};
    uint64_t nd = llama8b_1f1b_lcp_derived_size(n);
    uint64_t *dir = malloc(nd * 8), *top = malloc((llama8b_1f1b_lcp_derived_size(nd) + 1) * 8);
    uint32_t *idmin = malloc(nd * 4), *idmin2 = malloc(nd * 4);
    uint8_t *lcpmin = malloc(nd);
    llama8b_1f1b_lcp_deep *deep = malloc(nd * sizeof *deep);
    uint8_t *dtok = malloc(llama8b_1f1b_lcp_dtok_bytes(n));
    llama8b_1f1b_lcp_derive(&d, &ix, dir, idmin, lcpmin, top);
    ix.dir = dir, ix.n_dir = nd, ix.idmin = idmin, ix.lcpmin = lcpmin, ix.top = top;
    /* The first set alone, then with the second: the answers must agree. */
    llama8b_1f1b_lcp_index first_set = ix;
    llama8b_1f1b_lcp_derive_deep(&d, &ix, deep, idmin2, dtok);
    ix.deep = deep, ix.idmin2 = idmin2, ix.dtok = dtok;
    /* And the third set (the up levels): the answers printed are with all three. */
    uint32_t *up = malloc(llama8b_1f1b_lcp_derived_up_size(n) * 4 + 4);
    llama8b_1f1b_lcp_derive_up(&ix, up);
    ix.up = up;
    llama8b_1f1b_lcp_deep *deep_up = malloc((llama8b_1f1b_lcp_derived_deep_up_size(n) + 1) * sizeof *deep_up);
    llama8b_1f1b_lcp_derive_deep_up(&d, &ix, deep_up);
    ix.deep_up = deep_up;
    /* And the fifth (the run table). */
    llama8b_1f1b_lcp_run *runs = malloc(llama8b_1f1b_lcp_derived_runs_size(n) * sizeof *runs);
    uint32_t *run_hash = malloc(llama8b_1f1b_lcp_derived_run_hash_size(n) * 4);
    uint64_t n_runs = llama8b_1f1b_lcp_derive_runs(&d, &ix, runs, run_hash);
    ix.runs = runs, ix.run_hash = run_hash, ix.run_mask = llama8b_1f1b_lcp_derived_run_hash_size(n) - 1;
    fprintf(stderr, "lcp_vendor: %llu runs in the run table\n", (unsigned long long)n_runs);
    /* The answers printed come from the permutation packed as index files
     * hold it; the plain one (first_set) must agree. */
    uint32_t bits = llama8b_1f1b_lcp_perm_bits(n);
    uint32_t *words = malloc(llama8b_1f1b_lcp_perm_words(n, bits) * 4);
    llama8b_1f1b_lcp_pack_perm(perm, n, bits, words);
    ix.perm = words, ix.perm_bits = bits;
    uint32_t *rs = malloc(k * 4), *rl = malloc(k * 4), *fs = malloc(k * 4), *fl = malloc(k * 4);
    long disagree = 0;
    for (uint64_t q = 0; q + LLAMA8B_1F1B_LCP_SEQ_LEN <= nq; q += LLAMA8B_1F1B_LCP_SEQ_LEN) {
        uint64_t got = llama8b_1f1b_lcp_query(&d, &ix, qs + q, k, rs, rl);
        uint64_t got1 = llama8b_1f1b_lcp_query(&d, &first_set, qs + q, k, fs, fl);
        disagree += got1 != got || memcmp(fs, rs, got * 4) || memcmp(fl, rl, got * 4);
        for (uint64_t i = 0; i < got; i++)
            printf("%s%u:%u", i ? " " : "", rs[i], rl[i]);
        putchar('\n');
    }
    fprintf(stderr, "lcp_vendor: %ld queries answered differently with the first derived set alone\n", disagree);
    if (disagree)
        return 1;
    static const uint32_t plens[] = {0, 1, 2, 3, 4, 5, 8, 17, 64, 100, 333, LLAMA8B_1F1B_LCP_SEQ_LEN};
    long checked = 0, bad = 0;
    llama8b_1f1b_lcp_token *p = malloc(LLAMA8B_1F1B_LCP_SEQ_LEN * sizeof *p);
    for (uint64_t q = 0; q + LLAMA8B_1F1B_LCP_SEQ_LEN <= nq; q += LLAMA8B_1F1B_LCP_SEQ_LEN)
        for (size_t j = 0; j < sizeof plens / sizeof plens[0]; j++)
            for (int variant = 0; variant < 2; variant++) {
                uint32_t plen = plens[j];
                for (uint32_t i = 0; i < plen; i++)
                    p[i] = qs[q + i];
                if (variant && plen)
                    p[plen - 1] = (llama8b_1f1b_lcp_token)(p[plen - 1] + 1); /* a prefix just after it */
                uint64_t a, b, a1, b1;
                llama8b_1f1b_lcp_find_prefix(&d, &ix, p, plen, &a, &b);
                llama8b_1f1b_lcp_find_prefix(&d, &first_set, p, plen, &a1, &b1);
                bool ok = a == a1 && b == b1 && a <= b && b <= n && (a == 0 || !starts_with(&d, perm[a - 1], p, plen)) &&
                          (b == n || !starts_with(&d, perm[b], p, plen));
                for (uint64_t i = a; ok && i < b; i++)
                    ok = starts_with(&d, perm[i], p, plen);
                if (!ok && bad++ < 5)
                    fprintf(stderr, "lcp_vendor: find_prefix wrong for window %llu, %u tokens (variant %d): [%llu, %llu)\n",
                            (unsigned long long)(q / LLAMA8B_1F1B_LCP_SEQ_LEN), plen, variant, (unsigned long long)a,
                            (unsigned long long)b);
                checked++;
            }
    fprintf(stderr, "lcp_vendor: find_prefix checked on %ld prefixes, %ld wrong\n", checked, bad);
    if (bad)
        return 1;
    FILE *o = fopen(argv[5], "wb");
    if (!o || fwrite(perm, 4, n, o) != n || fclose(o) != 0)
        return 1;
    return argc == 8 ? documents(tok, nt, qs, nq, (uint32_t)strtoul(argv[6], NULL, 10), k, argv[7]) : 0;
}
