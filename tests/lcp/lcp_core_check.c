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
 * random. Checks top-k (k = 1, 10, 33, 100), also above a floor (the
 * merge over an index set's parts), and prefix ranges (lower and upper bounds at every length).
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

/* Brute-force top-k: LCP descending, ties by smaller number, among the
 * sequences sharing more than `above` tokens with q (all: above < 0). */
static uint64_t brute_topk(const set *s, const uint32_t *q, uint64_t k, int64_t above, uint32_t *seq, uint32_t *lcp)
{
    uint64_t cnt = 0;
    for (uint64_t i = 0; i < s->n; i++) {
        uint32_t l = lcp_of(q, s->tok + i * s->len, s->len);
        if ((int64_t)l <= above || (cnt == k && l <= lcp[k - 1]))
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

/* The LCP intervals of s, found independently of the core's stack pass:
 * with a sparse table of adjacent-LCP minima, each position i (lcp l >= 1)
 * reaches left and right while the minimum stays at least l, and the
 * interval is listed from its first position holding l. Writes those of
 * at least min_size positions as (lb, rb, vlo, vhi) rows, their
 * min(size, RUN_K) smallest numbers after (RUN_K entries, UINT32_MAX
 * past the size), sorted by (lb, vhi); returns how many. */
enum { IV_WORDS = 4 + 16 };
static uint32_t *g_sp[32];
static uint32_t sp_levels;
static uint32_t sp_min(uint64_t a, uint64_t b) /* min of lcp4[a..b], a <= b */
{
    uint32_t L = 0;
    while (((uint64_t)2 << L) <= b - a + 1)
        L++;
    uint32_t x = g_sp[L][a], y = g_sp[L][b + 1 - ((uint64_t)1 << L)];
    return x < y ? x : y;
}
static int cmp_iv(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[3] > y[3]) - (x[3] < y[3]);
}
static uint64_t brute_intervals(const set *s, uint64_t min_size, uint32_t **out)
{
    uint64_t n = s->n, cnt = 0, capn = 16;
    uint32_t *iv = malloc(capn * IV_WORDS * 4);
    sp_levels = 1;
    g_sp[0] = s->lcp4;
    while (((uint64_t)1 << sp_levels) <= n) {
        uint32_t L = sp_levels++;
        g_sp[L] = malloc(n * 4 + 4);
        for (uint64_t j = 0; j + ((uint64_t)1 << L) <= n; j++) {
            uint32_t x = g_sp[L - 1][j], y = g_sp[L - 1][j + ((uint64_t)1 << (L - 1))];
            g_sp[L][j] = x < y ? x : y;
        }
    }
    for (uint64_t i = 1; i < n; i++) {
        uint32_t l = s->lcp4[i];
        if (l == 0)
            continue;
        uint64_t lo = 0, hi = i - 1; /* lb: the last j < i with lcp4[j] < l (lcp4[0] = 0) */
        while (lo < hi) {
            uint64_t mid = (lo + hi + 1) / 2;
            if (sp_min(mid, i - 1) < l)
                lo = mid;
            else
                hi = mid - 1;
        }
        uint64_t lb = lo;
        if (lb + 1 < i && sp_min(lb + 1, i - 1) == l)
            continue; /* not the interval's first position holding l */
        lo = i + 1, hi = n; /* rb: the first j > i with lcp4[j] < l, or n */
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if (sp_min(i + 1, mid) < l)
                hi = mid;
            else
                lo = mid + 1;
        }
        uint64_t rb = lo;
        if (rb - lb < min_size)
            continue;
        if (cnt == capn)
            iv = realloc(iv, (capn *= 2) * IV_WORDS * 4);
        uint32_t *e = iv + cnt++ * IV_WORDS;
        uint32_t pl = lb > 0 ? s->lcp4[lb] : 0, pr = rb < n ? s->lcp4[rb] : 0;
        e[0] = (uint32_t)lb, e[1] = (uint32_t)rb, e[2] = (pl > pr ? pl : pr) + 1, e[3] = l;
        uint64_t m = 0;
        uint32_t *ids = e + 4;
        for (uint64_t j = lb; j < rb; j++) { /* insertion into the 16 smallest */
            uint32_t x = s->perm[j];
            if (m == 16 && x > ids[15])
                continue;
            uint64_t at = m < 16 ? m++ : 15;
            while (at > 0 && ids[at - 1] > x) {
                ids[at] = ids[at - 1];
                at--;
            }
            ids[at] = x;
        }
        for (; m < 16; m++)
            ids[m] = UINT32_MAX;
    }
    for (uint32_t L = 1; L < sp_levels; L++)
        free(g_sp[L]);
    qsort(iv, cnt, IV_WORDS * 4, cmp_iv);
    *out = iv;
    return cnt;
}

_Static_assert(lcp16_RUN_K == 16 && lcp32_RUN_K == 16, "IV_WORDS holds RUN_K numbers");

/* Run entries against the intervals brute_intervals lists (iv, ni). */
#define DEFINE_RUNS_CHECK(W)                                                                                       \
    static void runs_check_##W(set *s, lcp##W##_run *runs, uint64_t cnt, const uint32_t *iv, uint64_t ni,          \
                               int what)                                                                           \
    {                                                                                                              \
        if (cnt != ni) {                                                                                           \
            report(s, "run table size", cnt, what);                                                                \
            return;                                                                                                \
        }                                                                                                          \
        uint32_t *got = malloc((cnt + 1) * IV_WORDS * 4);                                                          \
        for (uint64_t i = 0; i < cnt; i++) {                                                                       \
            uint32_t *e = got + i * IV_WORDS;                                                                      \
            e[0] = runs[i].lb, e[1] = runs[i].rb, e[2] = runs[i].vlo, e[3] = runs[i].vhi;                          \
            memcpy(e + 4, runs[i].ids, 16 * 4);                                                                    \
        }                                                                                                          \
        qsort(got, cnt, IV_WORDS * 4, cmp_iv);                                                                     \
        for (uint64_t i = 0; i < cnt; i++)                                                                         \
            if (memcmp(got + i * IV_WORDS, iv + i * IV_WORDS, IV_WORDS * 4))                                       \
                report(s, "run table entry", i, what);                                                             \
        free(got);                                                                                                 \
    }
DEFINE_RUNS_CHECK(16)
DEFINE_RUNS_CHECK(32)

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
        lcp##W##_index full = {s->perm, lcpa, s->lcp_bytes, s->n, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0};\
        lcp##W##_dir_fill(&d, &full, dir, idmin, lcpmin, top);                                                     \
        full.dir = dir, full.n_dir = nd, full.idmin = idmin, full.lcpmin = lcpmin, full.top = top;                 \
        lcp##W##_index dironly = full;                                                                             \
        lcp##W##_deep_fill(&d, &full, 0, nd, deep, idmin2, dtok);                                                  \
        full.deep = deep, full.idmin2 = idmin2, full.dtok = dtok;                                                  \
        lcp##W##_index bare = {s->perm, lcpa, s->lcp_bytes, s->n, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0};\
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
        /* Run tables: every interval of 2 or more positions (runs holding                                       \
         * fewer than RUN_K numbers too), of 5 or more, and the fill's own                                        \
         * choice, each checked against brute_intervals; the fill also with                                       \
         * room for 1 to 3 runs, keeping the largest (whole size classes). */                                     \
        lcp##W##_run_frame *frames = malloc(lcp##W##_run_stack_size(s->len) * sizeof *frames);                    \
        lcp##W##_run *runs2 = malloc((s->n + 1) * sizeof *runs2), *runs5 = malloc((s->n + 1) * sizeof *runs5);     \
        lcp##W##_run *runsd = malloc(lcp##W##_runs_cap(s->n) * sizeof *runsd);                                     \
        uint64_t c2 = lcp##W##_runs_scan(&bare, s->len, 2, frames, runs2, s->n + 1, NULL);                         \
        uint64_t c5 = lcp##W##_runs_scan(&bare, s->len, 5, frames, runs5, s->n + 1, NULL);                         \
        uint64_t cd = lcp##W##_runs_fill(&bare, s->len, lcp##W##_runs_cap(s->n), frames, runsd);                   \
        bool brute_ok = s->n <= 200000;                                                                            \
        if (brute_ok) {                                                                                            \
            uint32_t *iv;                                                                                          \
            uint64_t ni = brute_intervals(s, 2, &iv);                                                              \
            runs_check_##W(s, runs2, c2, iv, ni, 20);                                                              \
            free(iv);                                                                                              \
            ni = brute_intervals(s, 5, &iv);                                                                       \
            runs_check_##W(s, runs5, c5, iv, ni, 21);                                                              \
            free(iv);                                                                                              \
            for (uint64_t cap = 0; cap <= 3; cap++) {                                                              \
                uint64_t want_cap = cap ? cap : lcp##W##_runs_cap(s->n), min = lcp##W##_RUN_MIN;                   \
                while ((ni = brute_intervals(s, min, &iv)) > want_cap)                                             \
                    free(iv), min *= 2;                                                                            \
                uint64_t cc = lcp##W##_runs_fill(&bare, s->len, want_cap, frames, runsd);                          \
                runs_check_##W(s, runsd, cc, iv, ni, 22 + (int)cap);                                               \
                free(iv);                                                                                          \
            }                                                                                                      \
            cd = lcp##W##_runs_fill(&bare, s->len, lcp##W##_runs_cap(s->n), frames, runsd);                        \
        }                                                                                                          \
        uint64_t hs2 = lcp##W##_run_hash_size(c2), hs5 = lcp##W##_run_hash_size(c5);                               \
        uint64_t hsd = lcp##W##_run_hash_size(lcp##W##_runs_cap(s->n));                                            \
        uint32_t *h2 = malloc(hs2 * 4), *h5 = malloc(hs5 * 4), *hd = malloc(hsd * 4);                              \
        lcp##W##_run_hash_fill(runs2, c2, h2, hs2);                                                                \
        lcp##W##_run_hash_fill(runs5, c5, h5, hs5);                                                                \
        lcp##W##_run_hash_fill(runsd, cd, hd, hsd);                                                                \
        lcp##W##_index fullup_runs2 = fullup, bare_runs5 = bare, fullup_runsd = fullup;                            \
        fullup_runs2.runs = runs2, fullup_runs2.run_hash = h2, fullup_runs2.run_mask = hs2 - 1;                    \
        /* Its runs are smaller than RUN_MIN, which the block minima would rule                                   \
         * out (run_find): without them every entry stays in reach. */                                             \
        fullup_runs2.lcpmin = NULL;                                                                                \
        bare_runs5.runs = runs5, bare_runs5.run_hash = h5, bare_runs5.run_mask = hs5 - 1;                          \
        fullup_runsd.runs = runsd, fullup_runsd.run_hash = hd, fullup_runsd.run_mask = hsd - 1;                    \
        lcp##W##_index bare_packed = bare, fullup_packed = fullup;                                                 \
        bare_packed.perm = words, bare_packed.perm_bits = pb;                                                      \
        fullup_packed.perm = words, fullup_packed.perm_bits = pb;                                                  \
        for (uint64_t j = 0; j < s->n; j++)                                                                        \
            if (lcp##W##_perm_at(&fullup_packed, j) != s->perm[j])                                                 \
                report(s, "packed permutation", j, 6);                                                             \
        fullup_runsd.perm = words, fullup_runsd.perm_bits = pb;                                                    \
        /* Every entry of the fill's table is found from its first position at                                    \
         * each of its levels (the block minima's shortcut rules none out). */                                     \
        for (uint64_t i = 0; i < cd; i++)                                                                          \
            for (uint32_t v = runsd[i].vlo; v <= runsd[i].vhi; v++)                                                \
                if (lcp##W##_run_find(&fullup_runsd, runsd[i].lb, v) != &runsd[i])                                 \
                    report(s, "run table lookup", i, 26);                                                          \
        enum { NV = 11 };                                                                                          \
        const lcp##W##_index *variants[NV] = {&bare,          &dironly,       &full,        &dirup,                \
                                              &fullup,        &bare_packed,   &fullup_packed, &fullup0,            \
                                              &fullup_runs2,  &bare_runs5,    &fullup_runsd};                      \
        static const uint64_t ks[] = {1, 10, 16, 33, 100};                                                         \
        uint32_t ws[100], wl[100], gs[100], gl[100];                                                               \
        T *q = malloc(s->len * sizeof *q);                                                                         \
        for (uint64_t qi = 0; qi < nq; qi++) {                                                                     \
            const uint32_t *q32 = queries + qi * s->len;                                                           \
            for (uint32_t i = 0; i < s->len; i++)                                                                  \
                q[i] = (T)q32[i];                                                                                  \
            uint64_t k = ks[qi % 5];                                                                               \
            uint64_t wn = brute_topk(s, q32, k, -1, ws, wl);                                                       \
            /* A floor as a merge over parts sets it: the k-th LCP of an                                           \
             * answer, one below or above it, none, or any length. */                                             \
            int64_t above = qi % 4 == 0 ? -1 : qi % 4 == 1 ? (int64_t)(rnd() % (s->len + 1))                        \
                          : wn ? (int64_t)wl[wn - 1] + (int64_t)(qi % 4) - 2 : 0;                                   \
            uint32_t as[100], al[100], hs[100], hl[100];                                                           \
            uint64_t an = brute_topk(s, q32, k, above, as, al);                                                    \
            uint32_t plen = (uint32_t)(rnd() % (s->len + 1));                                                      \
            uint64_t pf, pl;                                                                                       \
            brute_prefix(s, q32, plen, &pf, &pl);                                                                  \
            for (int v = 0; v < NV; v++) {                                                                         \
                uint64_t gn = lcp##W##_topk(&d, variants[v], q, k, gs, gl);                                        \
                if (gn != wn || memcmp(gs, ws, wn * 4) || memcmp(gl, wl, wn * 4))                                  \
                    report(s, "top-k", qi, v);                                                                     \
                uint64_t hn = lcp##W##_topk_above(&d, variants[v], q, k, above, hs, hl);                           \
                if (hn != an || memcmp(hs, as, an * 4) || memcmp(hl, al, an * 4))                                  \
                    report(s, "top-k above a floor", qi, v);                                                       \
                uint64_t a, b;                                                                                     \
                lcp##W##_prefix_range(&d, variants[v], q, plen, &a, &b);                                           \
                if (a != pf || b != pl)                                                                            \
                    report(s, "prefix range", qi, v);                                                              \
                s->checked += 2;                                                                                   \
            }                                                                                                      \
        }                                                                                                          \
        free(q), free(dir), free(top), free(idmin), free(lcpmin), free(idmin2), free(deep), free(dtok), free(up);  \
        free(words), free(deep_up), free(up0), free(frames), free(runs2), free(runs5), free(runsd);                 \
        free(h2), free(h5), free(hd);                                                                              \
    }
DEFINE_RUN(16, uint16_t)
DEFINE_RUN(32, uint32_t)

/* A random token: clustered (a few values near a base, so distinguishing
 * bytes on a block's scale tie), small, anywhere in the width, or
 * log-uniform over the width (small ids common, a long tail: the
 * logarithmic scales). */
static uint32_t token(uint32_t bits, int style)
{
    uint32_t top = bits == 16 ? 0xffffu : 0xffffffffu;
    switch (style) {
    case 0: return (uint32_t)(rnd() % 3);
    case 1: return 40000u + (uint32_t)(rnd() % 700);
    case 3: return (uint32_t)(rnd() % 2); /* two tokens: tie groups of half the set */
    case 4: return ((uint32_t)rnd() & top) >> (rnd() % bits);
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
            for (int style = 0; style < 5; style += style == 2 ? 2 : 1) /* style 3, tie groups, runs below */
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
