/* lcp_merge: merging top-k answers and searching one index for another's
 * sequences (lcp_merge.h). */
#include "lcp_merge.h"

#include <stdlib.h>
#include <string.h>

uint64_t lcp_topk_merge(const uint64_t *as, const uint32_t *al, uint64_t na, const uint64_t *bs, const uint32_t *bl,
                        uint64_t nb, uint64_t k, uint64_t *os, uint32_t *ol)
{
    uint64_t i = 0, j = 0, m = 0;
    while (m < k && (i < na || j < nb)) {
        bool take_a = j >= nb || (i < na && (al[i] > bl[j] || (al[i] == bl[j] && as[i] < bs[j])));
        if (take_a)
            os[m] = as[i], ol[m] = al[i], i++;
        else
            os[m] = bs[j], ol[m] = bl[j], j++;
        m++;
    }
    return m;
}

uint32_t lcp_first_difference(const unsigned char *a, const unsigned char *b, uint32_t seq_len, uint32_t width)
{
    size_t bytes = (size_t)seq_len * width, i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return (uint32_t)((i + (size_t)__builtin_ctzll(x ^ y) / 8) / width);
#else
            break;
#endif
        }
    }
    for (; i < bytes; i++)
        if (a[i] != b[i])
            return (uint32_t)(i / width);
    return seq_len;
}

/* Token j of sequence i in canonical form. */
static inline uint32_t canon_at(const lcp_index *ix, const void *seq, uint32_t j)
{
    if (ix->docs) {
        uint32_t u = ((const uint32_t *)seq)[j];
        return u >= ix->pad_base ? LCP_END : u;
    }
    return ix->token_bytes == 2 ? ((const uint16_t *)seq)[j] : ((const uint32_t *)seq)[j];
}

void lcp_seq_canon(const lcp_index *ix, uint64_t i, uint32_t m, uint32_t *out)
{
    const void *seq = lcp_index_seq(ix, i);
    for (uint32_t j = 0; j < m; j++)
        out[j] = canon_at(ix, seq, j);
}

/* Sequence i of ix against the canonical tokens t over the first m
 * positions: <0, 0 or >0 (two documents that both ended compare equal). */
static int compare_canon(const lcp_index *ix, uint64_t i, const uint32_t *t, uint32_t m)
{
    const void *seq = lcp_index_seq(ix, i);
    for (uint32_t j = 0; j < m; j++) {
        uint32_t a = canon_at(ix, seq, j);
        if (a != t[j])
            return a < t[j] ? -1 : 1;
        if (ix->docs && a == LCP_END)
            return 0;
    }
    return 0;
}

/* The first sorted position of ix whose sequence (numbered from first) is
 * not before (t's first m tokens, number g): tokens first, then numbers
 * (g 0: the first sequence starting with t or after it). */
static uint64_t lower_bound(const lcp_index *ix, uint64_t first, const uint32_t *t, uint32_t m, uint64_t g)
{
    uint64_t lo = 0, hi = ix->n; /* the answer is in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2, i = lcp_index_perm(ix, mid);
        int c = compare_canon(ix, i, t, m);
        if (c < 0 || (c == 0 && first + i < g))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint64_t lcp_index_count_before(const lcp_index *ix, uint64_t first, const uint32_t *t, uint64_t g)
{
    return lower_bound(ix, first, t, ix->seq_len, g);
}

/* has_prefix by bisection over the sorted order, comparing canonical
 * tokens: where no buffer for the index's own search can be had. */
static bool has_prefix_bisect(const lcp_index *ix, const uint32_t *t, uint32_t m)
{
    uint64_t lo = lower_bound(ix, 0, t, m, 0);
    return lo < ix->n && compare_canon(ix, lcp_index_perm(ix, lo), t, m) == 0;
}

bool lcp_index_has_prefix(const lcp_index *ix, const uint32_t *t, uint32_t m)
{
    if (m > ix->seq_len || ix->n == 0)
        return false;
    /* The prefix in the index's token width, for its own search (its
     * directory: several times faster than bisecting the order). */
    enum { LOCAL = 256 };
    uint32_t local[LOCAL];
    void *buf = m <= LOCAL ? local : malloc((size_t)m * 4);
    if (!buf)
        return has_prefix_bisect(ix, t, m);
    bool fits = true;
    for (uint32_t j = 0; j < m && fits; j++) {
        if ((ix->docs && t[j] == LCP_END) || (ix->token_bytes == 2 && t[j] > UINT16_MAX) || (ix->docs && t[j] == ix->doc_sep))
            fits = false; /* no sequence holds such a token there */
        else if (ix->token_bytes == 2)
            ((uint16_t *)buf)[j] = (uint16_t)t[j];
        else
            ((uint32_t *)buf)[j] = t[j];
    }
    uint64_t lo = 0, hi = 0;
    if (fits)
        lcp_index_prefix_range(ix, buf, m, &lo, &hi);
    if (buf != local)
        free(buf);
    return lo < hi;
}

void lcp_index_has_prefixes_sorted(const lcp_index *ix, const uint32_t *t, uint64_t cnt, uint32_t m, uint8_t *out)
{
    uint64_t j = 0;
    for (uint64_t i = 0; i < cnt; i++) {
        const uint32_t *q = t + (size_t)i * m;
        int c = 1;
        if (m > ix->seq_len) {
            out[i] = 0;
            continue;
        }
        while (j < ix->n && (c = compare_canon(ix, lcp_index_perm(ix, j), q, m)) < 0)
            j++;
        out[i] = j < ix->n && c == 0;
    }
}
