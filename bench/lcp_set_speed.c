/* bench_lcp_set: an index set's merged top-k against one index over the
 * same shards (bench/lcp_scale.sh):
 *   bench_lcp_set SET INDEX QSHARD NQ K SHARD...
 *   bench_lcp_set --qps SET QSHARD NQ K   (the throughput line alone: the
 *                                          queries one by one, and as one batch)
 * The first NQ windows of QSHARD are the queries. Printed: each part's and
 * the one index's memory (file + derived bytes per sequence); top-k
 * latency p50/p95/p99 of the one index, of the set on one thread, and of
 * the set on two threads (the queries split between them, each timed),
 * each query's best of three passes (this machine's load comes and goes:
 * a single pass's p99 moved 2x between runs); the
 * set's work per query against its parts' top-k searched one after another
 * (8 single searches for 8 parts); the C library's throughput on the first
 * 1,000 queries answered in one loop (best of 10); the set's merged
 * directory (lcp_set_directory): its memory and build time, every
 * LCP_SETDIR_STEP-th position of each part, or every LCP_SET_DIR_STEP-th
 * where that is set (0: none). --qps prints that and
 * the batch's (lcp_set_topk_batch), which bench/lcp_py.py's figure for the
 * binding is compared with. Every set answer is compared with the one index's;
 * a difference exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lcp_index.h"
#include "lcp_set.h"
#include "lcp_shard.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Sorts v and prints its p50/p95/p99 in microseconds after label. */
static double report(const char *label, double *v, uint64_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    double mean = 0;
    for (uint64_t i = 0; i < n; i++)
        mean += v[i] / (double)n;
    printf("%-34s p50 %7.2f  p95 %7.2f  p99 %7.2f  mean %7.2f us\n", label, v[n / 2] * 1e6, v[n * 95 / 100] * 1e6,
           v[n * 99 / 100] * 1e6, mean * 1e6);
    return v[n * 99 / 100];
}

typedef struct job {
    const lcp_set *s;
    const unsigned char *q;
    size_t qbytes;
    uint64_t from, to, k;
    double *lat;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    lcp_set_work w;
    uint64_t *seq = malloc(j->k * sizeof *seq);
    uint32_t *lcp = malloc(j->k * sizeof *lcp);
    if (!lcp_set_work_init(&w, j->k) || !seq || !lcp)
        exit(3);
    for (uint64_t i = j->from; i < j->to; i++) {
        double t0 = now_s();
        lcp_set_topk(j->s, j->q + i * j->qbytes, &w, seq, lcp);
        j->lat[i] = now_s() - t0;
    }
    lcp_set_work_free(&w);
    free(seq);
    free(lcp);
    return NULL;
}

/* The C library's throughput: the first nb queries in one loop, best of 10. */
static double loop_qps(const lcp_set *s, const unsigned char *q, size_t qbytes, uint64_t nb, lcp_set_work *w,
                       uint64_t *seq, uint32_t *lcp)
{
    double best = 1e30;
    for (int r = 0; r < 10; r++) {
        double a = now_s();
        for (uint64_t i = 0; i < nb; i++)
            lcp_set_topk(s, q + i * qbytes, w, seq, lcp);
        double b = now_s() - a;
        best = b < best ? b : best;
    }
    return (double)nb / best;
}

/* The same queries through lcp_set_topk_batch (query by query through the
 * merged directory, or part by part without one), best of 10. */
static double batch_qps(const lcp_set *s, const void *q, uint64_t nb, uint64_t k)
{
    lcp_set_work w;
    uint64_t c = k < s->n ? k : s->n;
    uint64_t *seq = malloc((nb * c + 1) * sizeof *seq);
    uint32_t *lcp = malloc((nb * c + 1) * sizeof *lcp);
    if (!seq || !lcp || !lcp_set_work_init(&w, k))
        exit(3);
    double best = 1e30;
    for (int r = 0; r < 10; r++) {
        double a = now_s();
        lcp_set_topk_batch(s, q, nb, &w, seq, lcp);
        double b = now_s() - a;
        best = b < best ? b : best;
    }
    lcp_set_work_free(&w);
    free(seq);
    free(lcp);
    return (double)nb / best;
}

static int qps_only(const char *set, const char *qshard, uint64_t nq, uint64_t k)
{
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    lcp_set s;
    lcp_shards qs;
    if (lcp_set_open(set, false, true, &s, &d) != TFC_OK || lcp_shards_open(&qshard, 1, false, 0, &qs, &d) != TFC_OK) {
        diag_print(&d, stderr);
        return 1;
    }
    size_t qbytes = (size_t)s.seq_len * s.token_bytes;
    if (qs.s[0].n_tokens / s.seq_len < nq)
        nq = qs.s[0].n_tokens / s.seq_len;
    lcp_set_work w;
    uint64_t *seq = malloc(k * sizeof *seq);
    uint32_t *lcp = malloc(k * sizeof *lcp);
    if (!seq || !lcp || !lcp_set_work_init(&w, k))
        return 3;
    printf("c_qps=%.0f c_batch_qps=%.0f\n", loop_qps(&s, qs.s[0].tokens, qbytes, nq, &w, seq, lcp),
           batch_qps(&s, qs.s[0].tokens, nq, k));
    lcp_set_work_free(&w);
    free(seq);
    free(lcp);
    lcp_set_close(&s);
    lcp_shards_close(&qs);
    diag_free(&d);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "--qps") == 0)
        return qps_only(argv[2], argv[3], strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10));
    if (argc < 7) {
        fprintf(stderr, "usage: bench_lcp_set SET INDEX QSHARD NQ K SHARD...\n");
        return 2;
    }
    uint64_t nq = strtoull(argv[4], NULL, 10), k = strtoull(argv[5], NULL, 10);
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    lcp_set s;
    lcp_shards sh, qs;
    lcp_index ix;
    const char *qp[1] = {argv[3]};
    if (lcp_set_open(argv[1], false, true, &s, &d) != TFC_OK ||
        lcp_shards_open((const char *const *)argv + 6, (uint32_t)(argc - 6), false, 0, &sh, &d) != TFC_OK ||
        lcp_index_open(argv[2], &sh, false, &ix, &d) != TFC_OK || lcp_index_derive(&ix, argv[2], &d) != TFC_OK ||
        lcp_shards_open(qp, 1, false, 0, &qs, &d) != TFC_OK) {
        diag_print(&d, stderr);
        return 1;
    }
    /* The set's merged directory (lcp_set_directory), built again here to
     * time it: every LCP_SETDIR_STEP-th position, or LCP_SET_DIR_STEP's (0:
     * none, the parts searched one by one). */
    const char *ds = getenv("LCP_SET_DIR_STEP");
    uint32_t step = ds ? (uint32_t)strtoul(ds, NULL, 10) : LCP_SETDIR_STEP;
    double t_dir = now_s();
    lcp_set_directory(&s, step);
    t_dir = now_s() - t_dir;
    double dir_bps = s.dir ? (double)s.dir->bytes / (double)s.n : 0.0;
    if (s.dir)
        printf("the set's merged directory: every %u-th position of each part, %.2f bytes per sequence, built in %.2f s\n",
               step, dir_bps, t_dir);
    else
        printf("the set's merged directory: none (step %u)\n", step);
    size_t qbytes = (size_t)ix.seq_len * ix.token_bytes;
    if (qs.s[0].n_tokens / ix.seq_len < nq)
        nq = qs.s[0].n_tokens / ix.seq_len;
    const unsigned char *q = qs.s[0].tokens;

    for (uint32_t p = 0; p < s.n_parts; p++) {
        const lcp_index *x = &s.parts[p].ix;
        printf("part %u: %llu sequences, file %.2f + derived %.2f = %.2f bytes per sequence\n", p,
               (unsigned long long)x->n, (double)x->map_len / (double)x->n, (double)x->derived_bytes / (double)x->n,
               (double)(x->map_len + x->derived_bytes) / (double)x->n);
    }
    printf("one index: %llu sequences, file %.2f + derived %.2f = %.2f bytes per sequence\n",
           (unsigned long long)ix.n, (double)ix.map_len / (double)ix.n, (double)ix.derived_bytes / (double)ix.n,
           (double)(ix.map_len + ix.derived_bytes) / (double)ix.n);

    double *one = malloc(nq * sizeof *one), *set1 = malloc(nq * sizeof *set1), *set2 = malloc(nq * sizeof *set2);
    double *parts = malloc(nq * sizeof *parts);
    uint32_t *s32 = malloc(k * sizeof *s32), *l1 = malloc(k * sizeof *l1), *l2 = malloc(k * sizeof *l2);
    uint64_t *g2 = malloc(k * sizeof *g2);
    lcp_set_work w;
    if (!one || !set1 || !set2 || !parts || !s32 || !l1 || !l2 || !g2 || !lcp_set_work_init(&w, k))
        return 3;
    /* Three passes over the queries for each method in turn, each
     * query's best time kept: a query's cost, not the moments this machine
     * was busy elsewhere. The methods run in separate passes, so that none
     * finds the memory another just read (the parts' single searches right
     * after the set's would). */
    uint64_t differ = 0;
    for (int pass = 0; pass < 3; pass++) {
        for (int m = 0; m < 3; m++) {
            double *lat = m == 0 ? one : m == 1 ? set1 : parts;
            for (uint64_t i = 0; i < nq; i++) {
                const unsigned char *qi = q + i * qbytes;
                uint64_t c1 = 0, c2 = 0;
                double t0 = now_s();
                if (m == 0) {
                    c1 = lcp_index_topk(&ix, qi, k, s32, l1);
                } else if (m == 1) {
                    c2 = lcp_set_topk(&s, qi, &w, g2, l2);
                } else {
                    for (uint32_t p = 0; p < s.n_parts; p++)
                        lcp_index_topk(&s.parts[p].ix, qi, k, w.pseq, w.plcp);
                }
                double t = now_s() - t0;
                if (pass == 0 || t < lat[i])
                    lat[i] = t;
                if (pass == 0 && m == 1) { /* the one index's answer again, for the comparison */
                    c1 = lcp_index_topk(&ix, qi, k, s32, l1);
                    bool same = c1 == c2;
                    for (uint64_t j = 0; same && j < c1; j++)
                        same = s32[j] == g2[j] && l1[j] == l2[j];
                    differ += !same;
                }
            }
        }
    }
    if (differ) {
        fprintf(stderr, "bench_lcp_set: %llu of %llu answers differ from the one index's\n", (unsigned long long)differ,
                (unsigned long long)nq);
        return 1;
    }
    double mean_set = 0, mean_parts = 0;
    for (uint64_t i = 0; i < nq; i++)
        mean_set += set1[i], mean_parts += parts[i];

    job jobs[2];
    pthread_t th[2];
    double wall2 = 1e30;
    double *lat2 = malloc(nq * sizeof *lat2);
    if (!lat2)
        return 3;
    for (int pass = 0; pass < 3; pass++) {
        double t0 = now_s();
        for (int t = 0; t < 2; t++) {
            jobs[t] = (job){&s, q, qbytes, nq * (uint64_t)t / 2, nq * (uint64_t)(t + 1) / 2, k, lat2};
            pthread_create(&th[t], NULL, run_job, &jobs[t]);
        }
        for (int t = 0; t < 2; t++)
            pthread_join(th[t], NULL);
        double wall = now_s() - t0;
        wall2 = wall < wall2 ? wall : wall2;
        for (uint64_t i = 0; i < nq; i++)
            if (pass == 0 || lat2[i] < set2[i])
                set2[i] = lat2[i];
    }
    free(lat2);
    uint64_t nb = nq < 1000 ? nq : 1000;
    double c_qps = loop_qps(&s, q, qbytes, nb, &w, g2, l2);

    printf("top-k, k %llu, %llu queries, every set answer identical to the one index's:\n", (unsigned long long)k,
           (unsigned long long)nq);
    double p99_one = report("  one index, one thread", one, nq);
    double p99_set = report("  the set, one thread", set1, nq);
    double p99_two = report("  the set, two threads", set2, nq);
    report("  its parts searched one by one", parts, nq);
    printf("  two threads: %.0f queries/s (one thread %.0f)\n", (double)nq / wall2, (double)nq / mean_set);
    printf("  work per query: the set %.2f of its %u parts' single searches\n", mean_set / mean_parts, s.n_parts);
    printf("  C library, %llu queries in one loop: %.0f queries/s\n", (unsigned long long)nb, c_qps);
    printf("lcp_set_speed parts=%u sequences=%llu p99_ratio=%.2f p99_ratio_two_threads=%.2f work_ratio=%.2f "
           "c_qps=%.0f dir_step=%u dir_bytes_per_seq=%.2f dir_build_s=%.2f\n",
           s.n_parts, (unsigned long long)s.n, p99_set / p99_one, p99_two / p99_one, mean_set / mean_parts, c_qps,
           s.dir ? step : 0u, dir_bps, s.dir ? t_dir : 0.0);
    lcp_set_work_free(&w);
    lcp_set_close(&s);
    lcp_index_close(&ix);
    lcp_shards_close(&sh);
    lcp_shards_close(&qs);
    diag_free(&d);
    free(one), free(set1), free(set2), free(parts), free(s32), free(l1), free(l2), free(g2);
    return 0;
}
