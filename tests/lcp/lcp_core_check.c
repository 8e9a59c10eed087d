/* lcp_core_check: the LCP core's queries (templates/lcp_core.inc, as tfc
 * renders it for 2- and 4-byte tokens) against brute force, with each
 * set of derived search arrays: none, the directory only, and the
 * directory with the deep directory, second minima and distinguishing-token
 * bytes; the last two also with the up levels (one set of 2.3 million
 * sequences over two tokens has tie groups longer than their largest unit). The index itself is sorted here by qsort, independently of the
 * core's build. Data sets are random, with long planted prefixes (runs of
 * directory samples sharing a key, longer than the deep walk takes), exact
 * duplicates, tokens clustered so that distinguishing bytes tie, and big
 * token values; queries are sequences of the set with one token changed,
 * nudged by one, set to the smallest or largest token, unchanged, or
 * random. Checks top-k (k = 1, 10, 33, 100)
 * and prefix ranges (lower and upper bounds at every length).
 *   lcp_core_check [ROUNDS]   exit 0 when nothing differs */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp_types_u16.inc"
#include "lcp_types_u32.inc"
#include "lcp_core_u16.inc"
#include "lcp_core_u32.inc"

static uint64_t rng;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The data set being sorted (qsort has no context argument). */
static const uint32_t *g_tok;
static uint32_t g_len;

static int cmp_seq(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const uint32_t *s = g_tok + (uint64_t)x * g_len, *t = g_tok + (uint64_t)y * g_len;
    for (uint32_t i = 0; i < g_len; i++)
        if (s[i] != t[i])
            return s[i] < t[i] ? -1 : 1;
    return (x > y) - (x < y);
}

static uint32_t lcp_of(const uint32_t *a, const uint32_t *b, uint32_t len)
{
    uint32_t i = 0;
    while (i < len && a[i] == b[i])
        i++;
    return i;
}

typedef struct {
    uint64_t n, checked, wrong;
    uint32_t len, bits;
    uint32_t *tok;               /* n * len, as 32-bit values */
    uint16_t *t16;               /* the same as 16-bit tokens (bits == 16) */
    uint32_t *perm;
    uint8_t *lcp1;               /* lcp with 1, 2 or 4 bytes as the file stores it */
    uint16_t *lcp2;
    uint32_t *lcp4;
    uint32_t lcp_bytes;
} set;

static void report(set *s, const char *what, uint64_t qi, int variant)
{
    if (s->wrong++ < 10)
        fprintf(stderr, "lcp_core_check: %s differs (n %llu, len %u, %u-bit, query %llu, arrays %d)\n", what,
                (unsigned long long)s->n, s->len, s->bits, (unsigned long long)qi, variant);
}

/* Brute-force top-k: LCP descending, ties by smaller number. */
static uint64_t brute_topk(const set *s, const uint32_t *q, uint64_t k, uint32_t *seq, uint32_t *lcp)
{
    uint64_t cnt = 0;
    for (uint64_t i = 0; i < s->n; i++) {
        uint32_t l = lcp_of(q, s->tok + i * s->len, s->len);
        if (cnt == k && l <= lcp[k - 1])
            continue;
        uint64_t at = cnt < k ? cnt++ : k - 1;
        while (at > 0 && lcp[at - 1] < l) {
            lcp[at] = lcp[at - 1];
            seq[at] = seq[at - 1];
            at--;
        }
        lcp[at] = l;
        seq[at] = (uint32_t)i;
    }
    return cnt;
}

/* Brute-force prefix range: sequences whose first plen tokens sort before
 * the prefix come first in sorted order, then those equal to it. */
static void brute_prefix(const set *s, const uint32_t *p, uint32_t plen, uint64_t *first, uint64_t *last)
{
    uint64_t below = 0, equal = 0;
    for (uint64_t i = 0; i < s->n; i++) {
        const uint32_t *t = s->tok + i * s->len;
        uint32_t l = lcp_of(p, t, plen);
        if (l == plen)
            equal++;
        else if (t[l] < p[l])
            below++;
    }
    *first = below;
    *last = below + equal;
}

#define DEFINE_RUN(W, T)                                                                                           \
    static void run_##W(set *s, const uint32_t *queries, uint64_t nq)                                              \
    {                                                                                                              \
        const T *base = W == 16 ? (const T *)(const void *)s->t16 : (const T *)(const void *)s->tok;              \
        const T *shards[1] = {base};                                                                               \
        uint64_t first[2] = {0, s->n};                                                                             \
        lcp##W##_data d = {s->len, s->len, 1, shards, first};                                                      \
        const void *lcpa = s->lcp_bytes == 1 ? (const void *)s->lcp1                                               \
                           : s->lcp_bytes == 2 ? (const void *)s->lcp2                                             \
                                               : (const void *)s->lcp4;                                            \
        uint64_t nd = lcp##W##_dir_size(s->n), nt = lcp##W##_dir_size(nd) + 1;                                     \
        uint64_t *dir = malloc((nd + 1) * 8), *top = malloc(nt * 8);                                               \
        uint32_t *idmin = malloc((nd + 1) * 4), *idmin2 = malloc((nd + 1) * 4);                                    \
        uint8_t *lcpmin = malloc(nd + 1);                                                                          \
        lcp##W##_deep *deep = malloc((nd + 1) * sizeof *deep);                                                     \
        uint8_t *dtok = malloc(lcp##W##_dtok_size(s->n) + 1);                                                      \
        /* The permutation packed as index files hold it. */                                                      \
        uint32_t pb = lcp##W##_perm_bits_for(s->n);                                                                \
        uint32_t *words = malloc(lcp##W##_perm_words_for(s->n, pb) * 4);                                           \
        lcp##W##_perm_pack(s->perm, s->n, pb, words);                                                              \
        lcp##W##_index full = {s->perm, lcpa, s->lcp_bytes, s->n, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0};\
        lcp##W##_dir_fill(&d, &full, dir, idmin, lcpmin, top);                                                     \
        full.dir = dir, full.n_dir = nd, full.idmin = idmin, full.lcpmin = lcpmin, full.top = top;                 \
        lcp##W##_index dironly = full;                                                                             \
        lcp##W##_deep_fill(&d, &full, 0, nd, deep, idmin2, dtok);                                                  \
        full.deep = deep, full.idmin2 = idmin2, full.dtok = dtok;                                                  \
        lcp##W##_index bare = {s->perm, lcpa, s->lcp_bytes, s->n, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0};\
        uint32_t *up = malloc(lcp##W##_up_size(s->n) * 4 + 4);                                                     \
        lcp##W##_up_fill(&full, up);                                                                               \
        lcp##W##_index dirup = dironly, fullup = full;                                                             \
        lcp##W##_deep *deep_up = malloc((lcp##W##_deep_up_size(nd) + 1) * sizeof *deep_up);                      \
        lcp##W##_deep_up_fill(&d, &full, deep_up);                                                                 \
        dirup.up = up, fullup.up = up, fullup.deep_up = deep_up;                                                   \
        /* The units filled before the second minima were known: no pruning. */                                  \
        uint32_t *up0 = malloc(lcp##W##_up_size(s->n) * 4 + 4);                                                    \
        lcp##W##_up_fill(&dironly, up0);                                                                           \
        lcp##W##_index fullup0 = full;                                                                             \
        fullup0.up = up0;                                                                                          \
        lcp##W##_index bare_packed = bare, fullup_packed = fullup;                                                 \
        bare_packed.perm = words, bare_packed.perm_bits = pb;                                                      \
        fullup_packed.perm = words, fullup_packed.perm_bits = pb;                                                  \
        for (uint64_t j = 0; j < s->n; j++)                                                                        \
            if (lcp##W##_perm_at(&fullup_packed, j) != s->perm[j])                                                 \
                report(s, "packed permutation", j, 6);                                                             \
        const lcp##W##_index *variants[8] = {&bare,        &dironly,       &full,    &dirup,                    \
                                             &fullup,      &bare_packed,   &fullup_packed, &fullup0};          \
        static const uint64_t ks[] = {1, 10, 33, 100};                                                             \
        uint32_t ws[100], wl[100], gs[100], gl[100];                                                               \
        T *q = malloc(s->len * sizeof *q);                                                                         \
        for (uint64_t qi = 0; qi < nq; qi++) {                                                                     \
            const uint32_t *q32 = queries + qi * s->len;                                                           \
            for (uint32_t i = 0; i < s->len; i++)                                                                  \
                q[i] = (T)q32[i];                                                                                  \
            uint64_t k = ks[qi % 4];                                                                               \
            uint64_t wn = brute_topk(s, q32, k, ws, wl);                                                           \
            uint32_t plen = (uint32_t)(rnd() % (s->len + 1));                                                      \
            uint64_t pf, pl;                                                                                       \
            brute_prefix(s, q32, plen, &pf, &pl);                                                                  \
            for (int v = 0; v < 8; v++) {                                                                          \
                uint64_t gn = lcp##W##_topk(&d, variants[v], q, k, gs, gl);                                        \
                if (gn != wn || memcmp(gs, ws, wn * 4) || memcmp(gl, wl, wn * 4))                                  \
                    report(s, "top-k", qi, v);                                                                     \
                uint64_t a, b;                                                                                     \
                lcp##W##_prefix_range(&d, variants[v], q, plen, &a, &b);                                           \
                if (a != pf || b != pl)                                                                            \
                    report(s, "prefix range", qi, v);                                                              \
                s->checked += 2;                                                                                   \
            }                                                                                                      \
        }                                                                                                          \
        free(q), free(dir), free(top), free(idmin), free(lcpmin), free(idmin2), free(deep), free(dtok), free(up);  \
        free(words), free(deep_up), free(up0);                                                                     \
    }
DEFINE_RUN(16, uint16_t)
DEFINE_RUN(32, uint32_t)

/* A random token: clustered (a few values near a base, so distinguishing
 * bytes on a block's scale tie), small, or anywhere in the width. */
static uint32_t token(uint32_t bits, int style)
{
    uint32_t top = bits == 16 ? 0xffffu : 0xffffffffu;
    switch (style) {
    case 0: return (uint32_t)(rnd() % 3);
    case 1: return 40000u + (uint32_t)(rnd() % 700);
    case 3: return (uint32_t)(rnd() % 2); /* two tokens: tie groups of half the set */
    default: return (uint32_t)rnd() & top;
    }
}

static void one_set(uint64_t n, uint32_t len, uint32_t bits, int style, set *tot)
{
    set s = {.n = n, .len = len, .bits = bits};
    s.tok = malloc(n * len * 4 + 4);
    /* Planted prefixes: a few long ones shared by many sequences. */
    uint32_t np = 1 + (uint32_t)(rnd() % 6), *pre = malloc((size_t)np * len * 4), *plen = malloc(np * 4);
    for (uint32_t p = 0; p < np; p++) {
        plen[p] = (uint32_t)(rnd() % (len + 1));
        for (uint32_t i = 0; i < len; i++)
            pre[(size_t)p * len + i] = token(bits, style);
    }
    for (uint64_t i = 0; i < n; i++) {
        uint32_t *t = s.tok + i * len;
        uint64_t r = rnd() % 10;
        if (r < 2 && i > 0) { /* an exact duplicate */
            memcpy(t, s.tok + (rnd() % i) * len, len * 4);
            continue;
        }
        for (uint32_t j = 0; j < len; j++)
            t[j] = token(bits, style);
        if (r < 8) {
            uint32_t p = (uint32_t)(rnd() % np);
            memcpy(t, pre + (size_t)p * len, plen[p] * 4);
        }
    }
    s.t16 = malloc(n * len * 2 + 2);
    for (uint64_t i = 0; i < n * len; i++)
        s.t16[i] = (uint16_t)s.tok[i];
    s.perm = malloc(n * 4 + 4);
    for (uint64_t i = 0; i < n; i++)
        s.perm[i] = (uint32_t)i;
    g_tok = s.tok, g_len = len;
    qsort(s.perm, n, 4, cmp_seq);
    s.lcp_bytes = len <= 0xff ? 1 : len <= 0xffff ? 2 : 4;
    s.lcp1 = malloc(n + 1), s.lcp2 = malloc(n * 2 + 2), s.lcp4 = malloc(n * 4 + 4);
    for (uint64_t j = 0; j < n; j++) {
        uint32_t l = j ? lcp_of(s.tok + (uint64_t)s.perm[j - 1] * len, s.tok + (uint64_t)s.perm[j] * len, len) : 0;
        s.lcp1[j] = (uint8_t)l, s.lcp2[j] = (uint16_t)l, s.lcp4[j] = l;
    }
    uint64_t nq = 120;
    uint32_t *qs = malloc(nq * len * 4);
    for (uint64_t qi = 0; qi < nq; qi++) {
        uint32_t *q = qs + qi * len;
        uint32_t top = bits == 16 ? 0xffffu : 0xffffffffu;
        if (qi % 7 == 4 || n == 0) {
            for (uint32_t j = 0; j < len; j++)
                q[j] = token(bits, style);
            continue;
        }
        memcpy(q, s.tok + (rnd() % n) * len, len * 4);
        uint32_t at = (uint32_t)(rnd() % len);
        switch (qi % 7) {
        case 1: q[at] = token(bits, style); break;
        case 2: q[at] += q[at] < top ? 1 : 0; break;
        case 3: q[at] -= q[at] > 0 ? 1 : 0; break;
        case 5: q[at] = 0; break; /* below every token of a block's scale */
        case 6: q[at] = top; break;
        default: break; /* a sequence of the set as it is */
        }
    }
    if (bits == 16)
        run_16(&s, qs, nq);
    else
        run_32(&s, qs, nq);
    tot->checked += s.checked;
    tot->wrong += s.wrong;
    free(qs), free(pre), free(plen), free(s.tok), free(s.t16), free(s.perm), free(s.lcp1), free(s.lcp2), free(s.lcp4);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    set tot = {0};
    rng = 20261130;
    static const uint32_t lens[] = {1, 2, 3, 4, 5, 8, 17, 64, 300};
    for (int r = 0; r < rounds; r++)
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
            for (int style = 0; style < 3; style++)
                for (uint32_t bits = 16; bits <= 32; bits += 16) {
                    uint64_t n = (rnd() % 4 == 0) ? rnd() % 70 : 2000 + rnd() % 14000;
                    one_set(n, lens[li], bits, style, &tot);
                }
    /* Tie groups longer than every up level's unit (32,768 blocks =
     * 1,048,576 positions): two tokens, 2.3 million sequences. */
    one_set(2300000, 3, 16, 3, &tot);
    one_set(2300000, 8, 32, 3, &tot); /* a level's new end spans a whole largest unit, its ties spread */
    printf("lcp_core_check: %llu answers checked against brute force, %llu differences\n",
           (unsigned long long)tot.checked, (unsigned long long)tot.wrong);
    return tot.wrong ? 1 : 0;
}
