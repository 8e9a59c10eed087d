/* bench_lcp: data and timings for bench/lcp_speed.sh.
 *   bench_lcp gen SHARD N L SEED      N sequences of L uint16 tokens (llm.c
 *                                     format): random tokens, a third of
 *                                     the sequences starting with one of
 *                                     4,096 planted prefixes of varied length
 *   bench_lcp zipf SHARD N L SEED QSHARD NQ
 *                                     data shaped like tokenized text: tokens
 *                                     Zipf-distributed (s = 1) over 50,000;
 *                                     half the sequences copy a prefix (length
 *                                     uniform in 1..L) of one of 65,536
 *                                     templates whose popularity is Zipf too,
 *                                     the rest of each sequence unigram draws
 *                                     (so about N / 2L exact duplicates); and
 *                                     NQ queries: half a sequence of the data
 *                                     with one token redrawn, half unigram
 *                                     draws
 *   bench_lcp zipfparts DIR P N L SEED NQ
 *                                     the same data cut into P shards
 *                                     DIR/s0.bin ... of N sequences each, one
 *                                     template set for all (so parts share
 *                                     prefixes and duplicates), and NQ
 *                                     queries DIR/q.bin drawn alike from
 *                                     every part (bench/lcp_scale.sh)
 *   bench_lcp text SHARD N L          N*L bytes of the text files under
 *                                     /usr/share/common-licenses, repeated,
 *                                     each byte one token
 *   bench_lcp query INDEX SHARD Q K [brute | QSHARD]
 *                                     Q queries (half near-duplicates of
 *                                     sequences, half random), single thread:
 *                                     p50/p95/p99 latency; with "brute", the
 *                                     same queries by scanning all N too;
 *                                     with QSHARD, its first Q windows as
 *                                     the queries */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lcp_baseline.h"
#include "lcp_index.h"
#include "lcp_shard.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int write_header(FILE *f, uint64_t tokens)
{
    int32_t h[256] = {20240520, 1, (int32_t)tokens};
    return fwrite(h, sizeof h, 1, f) == 1 ? 0 : -1;
}

static int gen(const char *path, uint64_t n, uint32_t L, uint64_t seed)
{
    rng_state = seed;
    FILE *f = fopen(path, "wb");
    if (!f || write_header(f, n * L))
        return 1;
    uint16_t *pre = malloc(4096 * (size_t)L * 2), *row = malloc((size_t)L * 2);
    uint32_t *plen = malloc(4096 * sizeof *plen);
    for (size_t i = 0; i < 4096 * (size_t)L; i++)
        pre[i] = (uint16_t)rnd();
    for (int i = 0; i < 4096; i++)
        plen[i] = 1 + (uint32_t)(rnd() % L);
    for (uint64_t s = 0; s < n; s++) {
        for (uint32_t j = 0; j < L; j++)
            row[j] = (uint16_t)rnd();
        if (rnd() % 3 == 0) {
            uint64_t p = rnd() % 4096;
            memcpy(row, pre + p * L, plen[p] * 2);
        }
        if (fwrite(row, 2, L, f) != L)
            return 1;
    }
    return fclose(f) != 0;
}

/* A Zipf(1) sampler over v values: the cumulative weights. */
static double *zipf_cdf(uint32_t v)
{
    double *c = malloc(v * sizeof *c), sum = 0;
    for (uint32_t i = 0; i < v; i++)
        c[i] = (sum += 1.0 / (double)(i + 1));
    for (uint32_t i = 0; i < v; i++)
        c[i] /= sum;
    return c;
}

static uint32_t zipf_draw(const double *c, uint32_t v)
{
    double u = (double)(rnd() >> 11) * 0x1.0p-53;
    uint32_t lo = 0, hi = v - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

enum { ZIPF_VOCAB = 50000, ZIPF_TEMPLATES = 65536 };

typedef struct zipf_gen {
    double *tc, *pc; /* token and template samplers */
    uint16_t *tmpl;
    uint32_t L;
} zipf_gen;

static bool zipf_init(zipf_gen *g, uint32_t L, uint64_t seed)
{
    rng_state = seed;
    g->L = L;
    g->tc = zipf_cdf(ZIPF_VOCAB), g->pc = zipf_cdf(ZIPF_TEMPLATES);
    g->tmpl = malloc((size_t)ZIPF_TEMPLATES * L * 2);
    if (!g->tc || !g->pc || !g->tmpl)
        return false;
    for (size_t i = 0; i < (size_t)ZIPF_TEMPLATES * L; i++)
        g->tmpl[i] = (uint16_t)zipf_draw(g->tc, ZIPF_VOCAB);
    return true;
}

static void zipf_free(zipf_gen *g)
{
    free(g->tc);
    free(g->pc);
    free(g->tmpl);
}

/* n sequences: half a template's prefix then unigram draws, half draws. */
static void zipf_rows(const zipf_gen *g, uint16_t *data, uint64_t n)
{
    uint32_t L = g->L;
    for (uint64_t s = 0; s < n; s++) {
        uint16_t *row = data + s * L;
        uint32_t from = 0;
        if (rnd() & 1) {
            from = 1 + (uint32_t)(rnd() % L);
            memcpy(row, g->tmpl + (size_t)zipf_draw(g->pc, ZIPF_TEMPLATES) * L, from * 2);
        }
        for (uint32_t j = from; j < L; j++)
            row[j] = (uint16_t)zipf_draw(g->tc, ZIPF_VOCAB);
    }
}

/* nq queries: even ones a sequence of data with one token redrawn, odd
 * ones unigram draws. */
static void zipf_queries(const zipf_gen *g, const uint16_t *data, uint64_t n, uint16_t *q, uint64_t nq)
{
    uint32_t L = g->L;
    for (uint64_t i = 0; i < nq; i++) {
        uint16_t *row = q + i * L;
        if (i % 2 == 0) {
            memcpy(row, data + (rnd() % n) * L, L * 2);
            row[rnd() % L] = (uint16_t)zipf_draw(g->tc, ZIPF_VOCAB);
        } else {
            for (uint32_t j = 0; j < L; j++)
                row[j] = (uint16_t)zipf_draw(g->tc, ZIPF_VOCAB);
        }
    }
}

static int write_shard(const char *path, const uint16_t *t, uint64_t n_tokens)
{
    FILE *f = fopen(path, "wb");
    if (!f || write_header(f, n_tokens) || fwrite(t, 2, n_tokens, f) != n_tokens) {
        if (f)
            fclose(f);
        return 1;
    }
    return fclose(f) != 0;
}

static int zipf(const char *path, uint64_t n, uint32_t L, uint64_t seed, const char *qpath, uint64_t nq)
{
    zipf_gen g;
    uint16_t *data = malloc(n * L * 2), *q = malloc((nq ? nq : 1) * L * 2);
    int rc = 1;
    if (zipf_init(&g, L, seed) && data && q) {
        zipf_rows(&g, data, n);
        zipf_queries(&g, data, n, q, nq);
        rc = write_shard(path, data, n * L) || write_shard(qpath, q, nq * L);
    }
    zipf_free(&g);
    free(data);
    free(q);
    return rc;
}

static int zipf_parts(const char *dir, uint32_t parts, uint64_t n, uint32_t L, uint64_t seed, uint64_t nq)
{
    zipf_gen g;
    uint16_t *data = malloc(n * L * 2), *q = malloc((nq ? nq : 1) * L * 2);
    int rc = !zipf_init(&g, L, seed) || !data || !q || parts == 0;
    for (uint32_t p = 0; rc == 0 && p < parts; p++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/s%u.bin", dir, p);
        zipf_rows(&g, data, n);
        uint64_t from = nq * p / parts, to = nq * (p + 1) / parts;
        zipf_queries(&g, data, n, q + from * L, to - from);
        rc = write_shard(path, data, n * L);
    }
    if (rc == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/q.bin", dir);
        rc = write_shard(path, q, nq * L);
    }
    zipf_free(&g);
    free(data);
    free(q);
    return rc;
}

static int text(const char *path, uint64_t n, uint32_t L)
{
    size_t cap = 1 << 20, len = 0;
    unsigned char *buf = malloc(cap);
    DIR *dp = opendir("/usr/share/common-licenses");
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        char p[512];
        snprintf(p, sizeof p, "/usr/share/common-licenses/%s", e->d_name);
        FILE *f = fopen(p, "rb");
        if (!f)
            continue;
        size_t got;
        while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
            len += got;
            if (len == cap)
                buf = realloc(buf, cap *= 2);
        }
        fclose(f);
    }
    if (dp)
        closedir(dp);
    if (len == 0)
        return 1;
    FILE *f = fopen(path, "wb");
    if (!f || write_header(f, n * L))
        return 1;
    for (uint64_t i = 0; i < n * L; i++) {
        uint16_t t = buf[i % len];
        fwrite(&t, 2, 1, f);
    }
    return fclose(f) != 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int query(const char *index, const char *shard, uint64_t nq, uint64_t k, int brute, const char *qpath)
{
    diag_list d;
    diag_init(&d, 4);
    lcp_shards sh;
    const char *paths[1] = {shard};
    if (lcp_shards_open(paths, 1, false, 2, &sh, &d) != TFC_OK) {
        diag_print(&d, stderr);
        return 1;
    }
    lcp_index ix;
    double t0 = now_s();
    if (lcp_index_open(index, &sh, false, &ix, &d) != TFC_OK || lcp_index_derive(&ix, index, &d) != TFC_OK) {
        diag_print(&d, stderr);
        return 1;
    }
    double open_s = now_s() - t0;
    uint32_t L = ix.seq_len;
    uint16_t *qs = malloc(nq * L * 2);
    const uint16_t *tok = sh.s[0].tokens;
    rng_state = 42;
    lcp_shards qsh = {0};
    if (qpath) {
        const char *qp[1] = {qpath};
        if (lcp_shards_open(qp, 1, false, 0, &qsh, &d) != TFC_OK || qsh.s[0].n_tokens < nq * L) {
            diag_print(&d, stderr);
            fprintf(stderr, "%s: fewer than %llu queries\n", qpath, (unsigned long long)nq);
            return 1;
        }
        memcpy(qs, qsh.s[0].tokens, nq * L * 2);
        lcp_shards_close(&qsh);
    }
    for (uint64_t q = 0; !qpath && q < nq; q++) {
        uint16_t *row = qs + q * L;
        if (q % 2 == 0) { /* near-duplicate: a sequence with one token changed */
            memcpy(row, tok + (rnd() % ix.n) * L, L * 2);
            row[rnd() % L] = (uint16_t)rnd();
        } else {
            for (uint32_t j = 0; j < L; j++)
                row[j] = (uint16_t)rnd();
        }
    }
    uint32_t *seq = malloc(k * 4), *lcp = malloc(k * 4), *bseq = malloc(k * 4), *blcp = malloc(k * 4);
    double *lat = malloc(nq * sizeof *lat), *blat = malloc(nq * sizeof *blat);
    volatile uint64_t sink = 0;
    /* The baseline (bench/lcp_baseline.c) on the same sorted permutation, when
     * it applies (one-byte LCPs, k it can hold); tfc and it alternate, pass
     * by pass, so both see the machine in the same state. */
    lcp_baseline base;
    uint32_t *plain = ix.lcp_bytes == 1 && k <= LCP_BASELINE_MAX_K && !ix.docs ? malloc(ix.n * 4 + 4) : NULL;
    for (uint64_t j = 0; plain && j < ix.n; j++) /* the baseline's own plain uint32 permutation */
        plain[j] = lcp_index_perm(&ix, j);
    bool with_base = plain && lcp_baseline_init(&base, plain, ix.lcp, ix.n, tok, L) == 0;
    double t_p[3][3], b_p[3][3];
    uint64_t differ = 0;
    int passes = with_base ? 3 : 1;
    for (int pass = 0; pass < passes; pass++) {
        for (uint64_t q = 0; q < nq; q++) {
            double a = now_s();
            sink += lcp_index_topk(&ix, qs + q * L, k, seq, lcp);
            lat[q] = now_s() - a;
        }
        if (with_base)
            for (uint64_t q = 0; q < nq; q++) {
                double a = now_s();
                uint64_t got = lcp_baseline_topk(&base, qs + q * L, k, bseq, blcp);
                blat[q] = now_s() - a;
                if (pass == 0) { /* the two must answer alike: check once */
                    uint64_t want = lcp_index_topk(&ix, qs + q * L, k, seq, lcp);
                    differ += got != want || memcmp(seq, bseq, got * 4) || memcmp(lcp, blcp, got * 4);
                }
            }
        qsort(lat, nq, sizeof *lat, cmp_double);
        t_p[pass][0] = lat[nq / 2] * 1e6, t_p[pass][1] = lat[nq * 95 / 100] * 1e6, t_p[pass][2] = lat[nq * 99 / 100] * 1e6;
        if (with_base) {
            qsort(blat, nq, sizeof *blat, cmp_double);
            b_p[pass][0] = blat[nq / 2] * 1e6, b_p[pass][1] = blat[nq * 95 / 100] * 1e6;
            b_p[pass][2] = blat[nq * 99 / 100] * 1e6;
        }
    }
    printf("N=%llu L=%u k=%llu queries=%llu, index opened in %.3f s (no checksum) with its search arrays: "
           "file %.2f + derived %.2f = %.2f bytes per sequence (%llu runs in the run table)\n",
           (unsigned long long)ix.n, L, (unsigned long long)k, (unsigned long long)nq, open_s,
           ix.n ? (double)ix.map_len / (double)ix.n : 0.0, ix.n ? (double)ix.derived_bytes / (double)ix.n : 0.0,
           ix.n ? (double)(ix.map_len + ix.derived_bytes) / (double)ix.n : 0.0, (unsigned long long)ix.n_runs);
    for (int pass = 0; pass < passes; pass++) {
        printf("  pass %d: tfc p50 %.2f us, p95 %.2f us, p99 %.2f us", pass + 1, t_p[pass][0], t_p[pass][1],
               t_p[pass][2]);
        if (with_base)
            printf(" | baseline p50 %.2f us, p95 %.2f us, p99 %.2f us | tfc p99 / baseline p99 %.2f", b_p[pass][0],
                   b_p[pass][1], b_p[pass][2], t_p[pass][2] / b_p[pass][2]);
        putchar('\n');
    }
    if (with_base) {
        double arrays = (double)ix.n * (4.0 + ix.lcp_bytes); /* its plain permutation and the LCPs */
        printf("  baseline: sorted array %.2f + tables %.2f = %.2f bytes per sequence; answers differing from tfc's: "
               "%llu\n",
               arrays / (double)ix.n, (double)base.bytes / (double)ix.n, (arrays + (double)base.bytes) / (double)ix.n,
               (unsigned long long)differ);
        lcp_baseline_free(&base);
        free(plain);
        if (differ)
            return 1;
    }
    qsort(lat, nq, sizeof *lat, cmp_double); /* the last pass's, for the brute-force ratio */
    if (brute) {
        /* The scan: LCP with every sequence, keep the k best (insertion). */
        uint64_t nb = nq < 200 ? nq : 200;
        double *bl = malloc(nb * sizeof *bl);
        for (uint64_t q = 0; q < nb; q++) {
            const uint16_t *qq = qs + q * L;
            double a = now_s();
            uint64_t cnt = 0;
            for (uint64_t i = 0; i < ix.n; i++) {
                const uint16_t *s = tok + i * L;
                uint32_t l = 0;
                while (l < L && s[l] == qq[l])
                    l++;
                if (cnt < k || l > lcp[cnt - 1]) {
                    uint64_t j = cnt < k ? cnt++ : k - 1;
                    while (j > 0 && lcp[j - 1] < l) {
                        lcp[j] = lcp[j - 1];
                        seq[j] = seq[j - 1];
                        j--;
                    }
                    lcp[j] = l;
                    seq[j] = (uint32_t)i;
                }
            }
            bl[q] = now_s() - a;
            sink += seq[0];
        }
        qsort(bl, nb, sizeof *bl, cmp_double);
        printf("brute-force scan, same data, %llu queries: p95 %.1f us; index p95 is %.0fx lower\n",
               (unsigned long long)nb, bl[nb * 95 / 100] * 1e6, bl[nb * 95 / 100] / lat[nq * 95 / 100]);
        free(bl);
    }
    lcp_index_close(&ix);
    lcp_shards_close(&sh);
    diag_free(&d);
    return sink == 1;
}

int main(int argc, char **argv)
{
    if (argc >= 6 && strcmp(argv[1], "gen") == 0)
        return gen(argv[2], strtoull(argv[3], NULL, 10), (uint32_t)atoi(argv[4]), strtoull(argv[5], NULL, 10));
    if (argc >= 5 && strcmp(argv[1], "text") == 0)
        return text(argv[2], strtoull(argv[3], NULL, 10), (uint32_t)atoi(argv[4]));
    if (argc >= 8 && strcmp(argv[1], "zipf") == 0)
        return zipf(argv[2], strtoull(argv[3], NULL, 10), (uint32_t)atoi(argv[4]), strtoull(argv[5], NULL, 10), argv[6],
                    strtoull(argv[7], NULL, 10));
    if (argc >= 8 && strcmp(argv[1], "zipfparts") == 0)
        return zipf_parts(argv[2], (uint32_t)atoi(argv[3]), strtoull(argv[4], NULL, 10), (uint32_t)atoi(argv[5]),
                          strtoull(argv[6], NULL, 10), strtoull(argv[7], NULL, 10));
    if (argc >= 6 && strcmp(argv[1], "query") == 0)
        return query(argv[2], argv[3], strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10),
                     argc > 6 && strcmp(argv[6], "brute") == 0,
                     argc > 6 && strcmp(argv[6], "brute") != 0 ? argv[6] : NULL);
    fprintf(stderr, "usage: see bench/lcp_speed.c\n");
    return 2;
}
