/* lcp_setdir: an index set's merged directory (lcp_setdir.h). */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE */
#include "lcp_setdir.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "diag.h"
#include "lcp_merge.h"

/* A part's next entry in the merge. */
typedef struct head {
    uint64_t t, count; /* entry t (sorted position t step) of count */
    uint64_t key;      /* its first tokens, packed: the first comparison */
    uint64_t g;        /* its global number */
    const unsigned char *tok;
} head;

typedef struct merge {
    const lcp_index *const *parts;
    const uint64_t *first;
    head *h;
    uint32_t n, kt, seq_len, width, step;
} merge;

/* Entries fetched ahead of the merge (their tokens are all over the shards). */
enum { AHEAD = 8 };

/* Head p at its entry t: its number, tokens and key. */
static void head_load(merge *g, uint32_t p)
{
    head *h = &g->h[p];
    if (h->t >= h->count)
        return;
    const lcp_index *ix = g->parts[p];
    if (h->t + AHEAD < h->count)
        __builtin_prefetch(lcp_index_seq(ix, lcp_index_perm(ix, (h->t + AHEAD) * g->step)));
    uint32_t num = lcp_index_perm(ix, h->t * g->step);
    h->g = g->first[p] + num;
    h->tok = lcp_index_seq(ix, num);
    uint64_t k = 0; /* first token highest, as the index's keys (their leading equal tokens: clz) */
    for (uint32_t i = 0; i < 64u / (8u * g->width); i++) {
        uint32_t x = i >= g->kt ? 0u : g->width == 2 ? ((const uint16_t *)h->tok)[i] : ((const uint32_t *)h->tok)[i];
        k = (g->width == 2 ? k << 16 : k << 32) | x;
    }
    h->key = k;
}

/* Leading equal tokens of two entries. */
static uint32_t entries_lcp(const merge *g, const head *a, const head *b)
{
    if (a->key != b->key) /* they differ within the key: its tokens are packed first token highest */
        return (uint32_t)__builtin_clzll(a->key ^ b->key) / (8u * g->width);
    if (g->seq_len <= g->kt)
        return g->seq_len;
    return lcp_first_difference(a->tok, b->tok, g->seq_len, g->width);
}

/* Entries a and b in one index's order: tokens, then global number. */
static bool before(const merge *g, const head *a, const head *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    uint32_t j = g->seq_len <= g->kt ? g->seq_len : lcp_first_difference(a->tok, b->tok, g->seq_len, g->width);
    if (j == g->seq_len)
        return a->g < b->g;
    uint32_t x = g->width == 2 ? ((const uint16_t *)a->tok)[j] : ((const uint32_t *)a->tok)[j];
    uint32_t y = g->width == 2 ? ((const uint16_t *)b->tok)[j] : ((const uint32_t *)b->tok)[j];
    return x < y;
}

/* The winner of two parts' heads (-1: exhausted). */
static int32_t winner(const merge *g, int32_t a, int32_t b)
{
    if (a < 0 || g->h[a].t >= g->h[a].count)
        return b < 0 || g->h[b].t >= g->h[b].count ? -1 : b;
    if (b < 0 || g->h[b].t >= g->h[b].count)
        return a;
    return before(g, &g->h[b], &g->h[a]) ? b : a;
}

static bool applies(const lcp_index *const *parts, const uint64_t *first, uint32_t n, uint32_t step)
{
    if (n < 2 || n > LCP_SETDIR_MAX_PARTS || !step || step > LCP_INDEX_STEP || (step & (step - 1)))
        return false;
    uint64_t total = 0;
    for (uint32_t p = 0; p < n; p++) {
        const lcp_index *ix = parts[p];
        if (ix->docs || ix->token_bytes != parts[0]->token_bytes || ix->seq_len != parts[0]->seq_len ||
            ix->stride != parts[0]->stride || first[p] != total)
            return false;
        if (ix->n && (!ix->dir || !ix->deep || !ix->dtok)) /* an empty part has no entries, and needs none */
            return false;
        total += ix->n;
    }
    return total > 0 && total < UINT32_MAX;
}

void lcp_setdir_free(lcp_setdir *m)
{
    if (m->arrays_len)
        munmap(m->perm, m->arrays_len);
    lcp_index_close(&m->ix); /* its derived arrays, shard table and starts */
    memset(m, 0, sizeof *m);
}

bool lcp_setdir_build(lcp_setdir *m, const lcp_index *const *parts, const uint64_t *first, uint32_t n,
                      uint32_t step)
{
    memset(m, 0, sizeof *m);
    if (!applies(parts, first, n, step))
        return false;
    uint32_t part_bits = 1;
    while ((1u << part_bits) < n)
        part_bits++;
    uint64_t total = 0, shards = 0;
    for (uint32_t p = 0; p < n; p++) {
        uint64_t count = (parts[p]->n + step - 1) / step;
        if (count >> (32 - part_bits)) {
            memset(m, 0, sizeof *m);
            return false;
        }
        if (parts[p]->n)
            m->live++;
        else
            m->empty |= (uint64_t)1 << p;
        total += count;
        shards += parts[p]->sh->n;
    }
    const lcp_index *p0 = parts[0];
    uint32_t lb = p0->lcp_bytes;
    /* perm, lcp and ref in one mapping, on huge pages where the kernel
     * gives them (every query reads a few lines of each). */
    size_t at_lcp = total * sizeof *m->perm, at_ref = (at_lcp + total * lb + 63) / 64 * 64;
    m->arrays_len = at_ref + total * sizeof *m->ref;
    void *arr = mmap(NULL, m->arrays_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (arr == MAP_FAILED) {
        memset(m, 0, sizeof *m);
        return false;
    }
#ifdef MADV_HUGEPAGE
    madvise(arr, m->arrays_len, MADV_HUGEPAGE); /* advice */
#endif
    m->perm = arr, m->lcp = (char *)arr + at_lcp, m->ref = (uint32_t *)((char *)arr + at_ref);
    const void **tokens = malloc((shards + 1) * sizeof *tokens);
    uint64_t *starts = malloc((shards + 1) * sizeof *starts);
    uint32_t size = 1;
    while (size < n)
        size *= 2;
    int32_t *tree = malloc(2 * size * sizeof *tree);
    merge g = {parts, first, calloc(n, sizeof(head)), n, 64u / (8u * p0->token_bytes), p0->seq_len, p0->token_bytes,
               step};
    if (g.seq_len < g.kt)
        g.kt = g.seq_len;
    m->ix.shard_tokens = tokens, m->ix.first = starts; /* freed by lcp_index_close */
    if (!tokens || !starts || !tree || !g.h) {
        free(tree);
        free(g.h);
        lcp_setdir_free(m);
        return false;
    }
    uint64_t s = 0;
    for (uint32_t p = 0; p < n; p++)
        for (uint32_t i = 0; i < parts[p]->sh->n; i++, s++)
            tokens[s] = parts[p]->shard_tokens[i], starts[s] = first[p] + parts[p]->first[i];
    starts[s] = first[n - 1] + parts[n - 1]->n;

    /* The merge: a tournament over the parts' heads, each output replaying
     * its leaf's path (log2 of the parts' comparisons). */
    for (uint32_t p = 0; p < n; p++) {
        g.h[p].count = (parts[p]->n + step - 1) / step;
        head_load(&g, p);
    }
    for (uint32_t i = 0; i < size; i++)
        tree[size + i] = i < n ? (int32_t)i : -1;
    for (uint32_t i = size - 1; i >= 1; i--)
        tree[i] = winner(&g, tree[2 * i], tree[2 * i + 1]);
    head prev = {0};
    for (uint64_t j = 0; j < total; j++) {
        int32_t w = tree[1];
        head *h = &g.h[w];
        uint32_t l = j ? entries_lcp(&g, &prev, h) : 0;
        m->perm[j] = (uint32_t)h->g;
        m->ref[j] = (uint32_t)h->t << part_bits | (uint32_t)w;
        if (lb == 1)
            ((uint8_t *)m->lcp)[j] = (uint8_t)l;
        else if (lb == 2)
            ((uint16_t *)m->lcp)[j] = (uint16_t)l;
        else
            ((uint32_t *)m->lcp)[j] = l;
        prev = *h;
        h->t++;
        head_load(&g, (uint32_t)w);
        for (uint32_t i = (size + (uint32_t)w) / 2; i >= 1; i /= 2)
            tree[i] = winner(&g, tree[2 * i], tree[2 * i + 1]);
    }
    free(tree);
    free(g.h);

    m->sh = (lcp_shards){NULL, (uint32_t)shards, p0->token_bytes};
    m->ix.token_bytes = p0->token_bytes, m->ix.seq_len = p0->seq_len, m->ix.stride = p0->stride;
    m->ix.lcp_bytes = lb, m->ix.n = total, m->ix.perm = m->perm, m->ix.perm_bits = 0, m->ix.lcp = m->lcp;
    m->ix.sh = &m->sh;
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    tfc_status st = lcp_index_derive(&m->ix, "the set's merged directory", &d);
    diag_free(&d);
    if (st != TFC_OK) {
        lcp_setdir_free(m);
        return false;
    }
    m->step = step, m->part_bits = part_bits, m->n_parts = n;
    m->bytes = m->arrays_len + (shards + 1) * 16 + m->ix.derived_bytes;
    return true;
}

void lcp_setdir_brackets(const lcp_setdir *m, const void *query, lcp_index_bracket *br)
{
    const lcp_index *ix = &m->ix;
    lcp_index_place pl;
    lcp_index_places(&ix, &query, 1, &pl);
    uint64_t l = pl.l, N = ix->n;
    int64_t lq = pl.lq, rq = pl.rq;
    if (l > 0 && lq < 0)
        lq = lcp_first_difference(query, lcp_index_seq(ix, m->perm[l - 1]), ix->seq_len, ix->token_bytes);
    if (l < N && rq < 0)
        rq = lcp_first_difference(query, lcp_index_seq(ix, m->perm[l]), ix->seq_len, ix->token_bytes);
    uint32_t mask = (1u << m->part_bits) - 1, left = m->live;
    for (uint32_t p = 0; p < m->n_parts; p++) /* an empty part is searched on its own: nothing to search */
        br[p].known = false;
    /* Before the place: each part's last entry there sorts below the
     * query, its LCP with it the least of the LCPs on the way. */
    uint64_t j = l, stop = l > LCP_SETDIR_SCAN ? l - LCP_SETDIR_SCAN : 0;
    int64_t run = lq;
    while (j > stop && left) {
        j--;
        uint32_t r = m->ref[j], p = r & mask;
        if (!br[p].known) {
            br[p] = (lcp_index_bracket){true, (int64_t)(r >> m->part_bits) * m->step, m->step, run, -1};
            left--;
        }
        uint32_t x = lcp_index_lcp(&m->ix, j);
        run = x < run ? x : run;
    }
    if (j == 0 && left) /* every entry of the others is at or above the query */
        for (uint32_t p = 0; p < m->n_parts; p++)
            if (!br[p].known && !(m->empty >> p & 1))
                br[p] = (lcp_index_bracket){true, -1, m->step, -1, -1};
    /* From the place on: each part's first entry there is the one after
     * its bracket's (none: its place is in its last stretch). A part not
     * bracketed yet whose first entry there is its entry 0 has every entry
     * at or above the query: its place is 0. */
    uint64_t seen = 0, end = N - l > LCP_SETDIR_SCAN ? l + LCP_SETDIR_SCAN : N;
    run = rq;
    left = m->live;
    for (j = l; j < end && left; j++) {
        if (j > l) {
            uint32_t x = lcp_index_lcp(&m->ix, j);
            run = x < run ? x : run;
        }
        uint32_t r = m->ref[j], p = r & mask;
        if (!(seen >> p & 1)) {
            seen |= (uint64_t)1 << p;
            left--;
            if (!br[p].known && r >> m->part_bits == 0)
                br[p] = (lcp_index_bracket){true, -1, m->step, -1, -1};
            br[p].ehi = run;
        }
    }
}
