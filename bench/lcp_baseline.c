/* The reference the LCP index is measured against (bench/lcp_speed.sh): a
 * plain sorted array with adjacent LCPs and range-minimum structures, the
 * textbook answer to top-k by longest common prefix.
 *
 *   - the query's place by binary search over the sorted sequences;
 *   - each LCP level's run ends by "previous / next smaller LCP", with a
 *     sparse table over the LCP minima of blocks of 64 positions;
 *   - the level's smallest numbers by range minimum over numbers (a sparse
 *     table over blocks of 64 holding each range's position of its smallest
 *     number), popping the smallest and splitting its range, k times.
 *
 * It shares the sorted permutation with tfc's index (the same sort), not
 * its search: no directory, no derived arrays. Only what bench_lcp needs:
 * 2-byte tokens, seq_len <= 255 (one-byte LCPs), one shard. */
#include "lcp_baseline.h"

#include <stdlib.h>
#include <string.h>

#define B 64u

static uint32_t lcp_at(const lcp_baseline *b, uint64_t j) { return b->lcp[j]; }

static int floor_log2(uint64_t x)
{
    int r = 0;
    while (x >>= 1)
        r++;
    return r;
}

int lcp_baseline_init(lcp_baseline *b, const uint32_t *perm, const uint8_t *lcp, uint64_t n, const uint16_t *tok,
                      uint32_t seq_len)
{
    memset(b, 0, sizeof *b);
    b->perm = perm, b->lcp = lcp, b->n = n, b->tok = tok, b->L = seq_len;
    b->nb = (n + B - 1) / B;
    b->levels = b->nb ? floor_log2(b->nb) + 1 : 0;
    for (int j = 0; j < b->levels; j++) {
        uint64_t cnt = b->nb - ((uint64_t)1 << j) + 1;
        b->lmin[j] = malloc(cnt);
        b->imin[j] = malloc(cnt * 4);
        if (!b->lmin[j] || !b->imin[j])
            return -1;
        b->bytes += cnt * 5;
        for (uint64_t k = 0; k < cnt; k++) {
            if (j == 0) {
                uint8_t lm = 255;
                uint32_t at = (uint32_t)(k * B);
                for (uint64_t p = k * B; p < n && p < (k + 1) * B; p++) {
                    lm = lcp[p] < lm ? lcp[p] : lm;
                    at = perm[p] < perm[at] ? (uint32_t)p : at;
                }
                b->lmin[0][k] = lm;
                b->imin[0][k] = at;
            } else {
                uint64_t h = (uint64_t)1 << (j - 1);
                uint8_t x = b->lmin[j - 1][k], y = b->lmin[j - 1][k + h];
                b->lmin[j][k] = x < y ? x : y;
                uint32_t p = b->imin[j - 1][k], q = b->imin[j - 1][k + h];
                b->imin[j][k] = perm[p] < perm[q] ? p : q;
            }
        }
    }
    return 0;
}

void lcp_baseline_free(lcp_baseline *b)
{
    for (int j = 0; j < b->levels; j++) {
        free(b->lmin[j]);
        free(b->imin[j]);
    }
    memset(b, 0, sizeof *b);
}

/* Smallest LCP over whole blocks [a, c) (a < c). */
static uint32_t blocks_lmin(const lcp_baseline *b, uint64_t a, uint64_t c)
{
    int j = floor_log2(c - a);
    uint8_t x = b->lmin[j][a], y = b->lmin[j][c - ((uint64_t)1 << j)];
    return x < y ? x : y;
}

/* The largest j <= x with lcp[j] < v, or 0 when none: the run sharing
 * at least v tokens that ends at x starts there. */
static uint64_t prev_less(const lcp_baseline *b, uint64_t x, uint32_t v)
{
    for (;;) {
        while (x % B != B - 1 || x + 1 > b->n) { /* inside a block: scan */
            if (lcp_at(b, x) < v || x == 0)
                return x;
            x--;
        }
        /* x ends block x / B: skip whole blocks whose minimum is >= v */
        uint64_t blk = x / B + 1; /* blocks [lo, blk) to look at */
        uint64_t lo = blk;
        for (int j = b->levels - 1; j >= 0; j--) {
            uint64_t s = (uint64_t)1 << j;
            if (lo >= s && blocks_lmin(b, lo - s, lo) >= v)
                lo -= s;
        }
        if (lo == 0)
            return 0;
        x = lo * B - 1; /* the last position of the block holding the answer */
        for (;; x--)
            if (lcp_at(b, x) < v || x == 0)
                return x;
    }
}

/* The smallest j >= x with lcp[j] < v, or n. */
static uint64_t next_less(const lcp_baseline *b, uint64_t x, uint32_t v)
{
    while (x < b->n && x % B != 0) {
        if (lcp_at(b, x) < v)
            return x;
        x++;
    }
    if (x >= b->n)
        return b->n;
    uint64_t hi = x / B; /* blocks [hi, ...) */
    for (int j = b->levels - 1; j >= 0; j--) {
        uint64_t s = (uint64_t)1 << j;
        if (hi + s <= b->nb && blocks_lmin(b, hi, hi + s) >= v)
            hi += s;
    }
    for (x = hi * B; x < b->n; x++)
        if (lcp_at(b, x) < v)
            return x;
    return b->n;
}

/* The position of the smallest number in perm[a..c) (a < c). */
static uint64_t range_argmin(const lcp_baseline *b, uint64_t a, uint64_t c)
{
    uint64_t best = a;
    uint64_t fa = (a + B - 1) / B, fc = c / B;
    if (fa >= fc) {
        for (uint64_t p = a; p < c; p++)
            best = b->perm[p] < b->perm[best] ? p : best;
        return best;
    }
    for (uint64_t p = a; p < fa * B; p++)
        best = b->perm[p] < b->perm[best] ? p : best;
    for (uint64_t p = fc * B; p < c; p++)
        best = b->perm[p] < b->perm[best] ? p : best;
    int j = floor_log2(fc - fa);
    uint64_t x = b->imin[j][fa], y = b->imin[j][fc - ((uint64_t)1 << j)];
    best = b->perm[x] < b->perm[best] ? x : best;
    best = b->perm[y] < b->perm[best] ? y : best;
    return best;
}

static uint32_t lcp_q(const lcp_baseline *b, const uint16_t *q, uint32_t seq)
{
    const uint16_t *s = b->tok + (uint64_t)seq * b->L;
    uint32_t l = 0;
    while (l < b->L && s[l] == q[l])
        l++;
    return l;
}

/* A candidate range for the k smallest numbers: its smallest at pos. */
typedef struct cand {
    uint64_t a, c, pos;
    uint32_t id;
} cand;

static void push(cand *h, uint64_t *nh, cand x)
{
    uint64_t i = (*nh)++;
    while (i > 0 && h[(i - 1) / 2].id > x.id) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static cand pop(cand *h, uint64_t *nh)
{
    cand top = h[0], last = h[--*nh];
    uint64_t i = 0;
    for (;;) {
        uint64_t c = 2 * i + 1;
        if (c >= *nh)
            break;
        if (c + 1 < *nh && h[c + 1].id < h[c].id)
            c++;
        if (h[c].id >= last.id)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

static void push_range(const lcp_baseline *b, cand *h, uint64_t *nh, uint64_t a, uint64_t c)
{
    if (a >= c)
        return;
    uint64_t p = range_argmin(b, a, c);
    push(h, nh, (cand){a, c, p, b->perm[p]});
}

uint64_t lcp_baseline_topk(const lcp_baseline *b, const uint16_t *q, uint64_t k, uint32_t *seq, uint32_t *lcp)
{
    uint64_t n = b->n, count = 0;
    if (k > n)
        k = n;
    /* The first sorted position whose sequence is not below q. */
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const uint16_t *s = b->tok + (uint64_t)b->perm[mid] * b->L;
        uint32_t l = 0;
        while (l < b->L && s[l] == q[l])
            l++;
        if (l < b->L && s[l] < q[l])
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t l = lo, r = lo;
    int64_t lq = l > 0 ? (int64_t)lcp_q(b, q, b->perm[l - 1]) : -1;
    int64_t rq = r < n ? (int64_t)lcp_q(b, q, b->perm[r]) : -1;
    cand h[2 * LCP_BASELINE_MAX_K + 8];
    while (count < k && (lq > 0 || rq > 0)) {
        uint32_t v = (uint32_t)(lq > rq ? lq : rq);
        uint64_t l2 = lq == (int64_t)v ? prev_less(b, l - 1, v) : l;
        uint64_t r2 = rq == (int64_t)v ? next_less(b, r + 1, v) : r;
        uint64_t nh = 0;
        push_range(b, h, &nh, l2, l);
        push_range(b, h, &nh, r, r2);
        while (count < k && nh > 0) {
            cand c = pop(h, &nh);
            seq[count] = c.id;
            lcp[count++] = v;
            push_range(b, h, &nh, c.a, c.pos);
            push_range(b, h, &nh, c.pos + 1, c.c);
        }
        lq = l2 > 0 ? (int64_t)lcp_at(b, l2) : -1;
        rq = r2 < n ? (int64_t)lcp_at(b, r2) : -1;
        l = l2;
        r = r2;
    }
    for (uint64_t x = 0; count < k && x < n; x++) { /* the rest share nothing: smallest numbers */
        bool taken = false;
        for (uint64_t i = 0; i < count && !taken; i++)
            taken = seq[i] == x;
        if (!taken) {
            seq[count] = (uint32_t)x;
            lcp[count++] = 0;
        }
    }
    return count;
}
