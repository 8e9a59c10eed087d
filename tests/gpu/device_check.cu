/* The generated CUDA kernels run on a GPU, against the generated C (for a
 * machine with a device; tests/gpu/run.sh builds and runs it):
 *
 *  1. masks: every stage's NAME_stage<S>_masks kernel at a range of steps,
 *     word for word against NAME_frozen_mask from the generated C (gcc);
 *  2. LCP top-k: NAME_lcp_topk_batch, one thread per query, against the
 *     same query code on the host and against a brute-force scan, on
 *     N random sequences of the spec's seq_len (a third with planted
 *     prefixes, an eighth exact copies of four rows), half the queries
 *     near-duplicates, at k and at k = 40 (past the 32 blocks top-k picks
 *     by their smallest numbers); kernel time per batch and host latency
 *     per query.
 *
 * Built for the default spec's folder (generated/llama8b_1f1b: 4 stages,
 * 2-byte tokens, sequences of 1024).
 *
 *   device_check [N_SEQUENCES] [N_QUERIES] [K]
 * Exit 0 when everything agrees, 1 on a difference, 2 on a CUDA error; 77
 * without a device, after checking the host half (the index built here, the
 * .cu's query code on the host, brute force). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "llama8b_1f1b.h"
#include "llama8b_1f1b_lcp_index.cu"
#include "llama8b_1f1b_stage0.cu"
#include "llama8b_1f1b_stage1.cu"
#include "llama8b_1f1b_stage2.cu"
#include "llama8b_1f1b_stage3.cu"

/* The folder's LCP_SEQ_LEN and LCP_TOPK, from its lcp_index.h (the .cu
 * carries the types but not the constants): run.sh passes them. */
#if !defined(LCP_SEQ_LEN) || !defined(LCP_TOPK)
#error "build with -DLCP_SEQ_LEN=... -DLCP_TOPK=... (tests/gpu/run.sh does)"
#endif

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "device_check: %s: %s (%s:%d)\n", #x, cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(2);                                                                             \
        }                                                                                        \
    } while (0)

typedef void (*mask_kernel)(unsigned long long, unsigned long long *, unsigned long long *);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 7;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 1. Masks. */
static long check_masks(void)
{
    static const mask_kernel kern[LLAMA8B_1F1B_STAGES] = {llama8b_1f1b_stage0_masks, llama8b_1f1b_stage1_masks,
                                                          llama8b_1f1b_stage2_masks, llama8b_1f1b_stage3_masks};
    static const unsigned words[LLAMA8B_1F1B_STAGES] = {LLAMA8B_1F1B_STAGE0_MASK_WORDS, LLAMA8B_1F1B_STAGE1_MASK_WORDS,
                                                        LLAMA8B_1F1B_STAGE2_MASK_WORDS, LLAMA8B_1F1B_STAGE3_MASK_WORDS};
    const unsigned mb = LLAMA8B_1F1B_MICROBATCHES;
    unsigned long long *dm, *df;
    CK(cudaMalloc(&dm, sizeof *dm * mb * LLAMA8B_1F1B_MASK_WORDS));
    CK(cudaMalloc(&df, sizeof *df * mb));
    long checked = 0, bad = 0;
    for (unsigned s = 0; s < LLAMA8B_1F1B_STAGES; s++)
        for (unsigned long long step = 0; step < 20000; step += 37) {
            kern[s]<<<1, 32>>>(step, dm, df);
            CK(cudaGetLastError());
            unsigned long long hm[LLAMA8B_1F1B_MICROBATCHES * LLAMA8B_1F1B_MASK_WORDS], hf[LLAMA8B_1F1B_MICROBATCHES];
            CK(cudaMemcpy(hm, dm, sizeof(unsigned long long) * mb * words[s], cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost));
            for (unsigned m = 0; m < mb; m++) {
                uint64_t c[LLAMA8B_1F1B_MASK_WORDS] = {0};
                uint64_t n = llama8b_1f1b_frozen_mask(s, m, step, c);
                bool same = n == hf[m];
                for (unsigned w = 0; w < words[s]; w++)
                    same = same && c[w] == hm[m * words[s] + w];
                if (!same && bad++ < 5)
                    fprintf(stderr, "device_check: mask differs: stage %u microbatch %u step %llu\n", s, m, step);
                checked++;
            }
        }
    CK(cudaFree(dm));
    CK(cudaFree(df));
    printf("masks: %ld (stage, microbatch, step) masks from the GPU kernels, %ld differ from the C\n", checked, bad);
    return bad;
}

/* 2. LCP top-k. */
typedef llama8b_1f1b_lcp_token tok_t; /* the default spec's token type */
static const tok_t *g_tok;
static uint32_t g_len;

static int cmp_seq(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const tok_t *p = g_tok + (uint64_t)x * g_len, *q = g_tok + (uint64_t)y * g_len;
    for (uint32_t i = 0; i < g_len; i++)
        if (p[i] != q[i])
            return p[i] < q[i] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static uint32_t lcp2(const tok_t *a, const tok_t *b, uint32_t len)
{
    uint32_t i = 0;
    while (i < len && a[i] == b[i])
        i++;
    return i;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

template <typename T> static T *to_device(const T *h, size_t n)
{
    T *d;
    CK(cudaMalloc(&d, sizeof(T) * (n ? n : 1)));
    if (n)
        CK(cudaMemcpy(d, h, sizeof(T) * n, cudaMemcpyHostToDevice));
    return d;
}

static long check_lcp(uint64_t n, uint64_t nq, uint32_t k, bool gpu)
{
    const uint32_t L = LCP_SEQ_LEN;
    tok_t *tok = (tok_t *)malloc(n * L * sizeof(tok_t));
    tok_t *pre = (tok_t *)malloc(256 * (size_t)L * sizeof(tok_t));
    uint32_t plen[256];
    for (size_t i = 0; i < 256 * (size_t)L; i++)
        pre[i] = (tok_t)(rnd() % 512);
    for (int i = 0; i < 256; i++)
        plen[i] = 1 + (uint32_t)(rnd() % L);
    /* A row in eight is an exact copy of one of four seed rows: tie groups
     * of thousands, where top-k reads only the blocks with the smallest
     * numbers. */
    for (uint64_t s = 0; s < n; s++) {
        tok_t *row = tok + s * L;
        if (s >= 4 && rnd() % 8 == 0) {
            memcpy(row, tok + (rnd() % 4) * L, (size_t)L * sizeof(tok_t));
            continue;
        }
        for (uint32_t j = 0; j < L; j++)
            row[j] = (tok_t)(rnd() % 512);
        if (rnd() % 3 == 0) {
            uint64_t p = rnd() % 256;
            memcpy(row, pre + p * L, plen[p] * sizeof(tok_t));
        }
    }
    /* The index, built independently here: sort by tokens, ties by number. */
    uint32_t *perm = (uint32_t *)malloc(n * 4);
    uint16_t *lcp = (uint16_t *)malloc(n * 2);
    for (uint64_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    g_tok = tok;
    g_len = L;
    double t0 = now_s();
    qsort(perm, n, 4, cmp_seq);
    lcp[0] = 0;
    for (uint64_t j = 1; j < n; j++)
        lcp[j] = (uint16_t)lcp2(tok + (uint64_t)perm[j - 1] * L, tok + (uint64_t)perm[j] * L, L);
    double sort_s = now_s() - t0;
    uint64_t first[2] = {0, n};
    const tok_t *shards[1] = {tok};
    llama8b_1f1b_lcp_data hd = {L, L, 1, shards, first};
    llama8b_1f1b_lcp_index hx = {};
    hx.perm = perm, hx.lcp = lcp, hx.lcp_bytes = 2, hx.n = n;
    uint64_t nd = llama8b_1f1b_lcp_dir_size(n), nt = llama8b_1f1b_lcp_dir_size(nd);
    uint64_t *dir = (uint64_t *)malloc(nd * 8), *top = (uint64_t *)malloc(nt * 8);
    uint32_t *idmin = (uint32_t *)malloc(nd * 4);
    uint8_t *lcpmin = (uint8_t *)malloc(nd);
    uint32_t *idmin2 = (uint32_t *)malloc(nd * 4);
    llama8b_1f1b_lcp_deep *deep = (llama8b_1f1b_lcp_deep *)malloc(nd * sizeof *deep);
    uint64_t ndt = llama8b_1f1b_lcp_dtok_size(n);
    uint8_t *dtok = (uint8_t *)malloc(ndt);
    llama8b_1f1b_lcp_dir_fill(&hd, &hx, dir, idmin, lcpmin, top);
    hx.dir = dir, hx.n_dir = nd, hx.idmin = idmin, hx.lcpmin = lcpmin, hx.top = top;
    llama8b_1f1b_lcp_index hx1 = hx; /* the first derived set only */
    llama8b_1f1b_lcp_deep_fill(&hd, &hx, 0, nd, deep, idmin2, dtok);
    hx.deep = deep, hx.idmin2 = idmin2, hx.dtok = dtok;
    /* With every set, the permutation packed as index files hold it (hx1
     * keeps the plain one). */
    uint32_t pbits = llama8b_1f1b_lcp_perm_bits_for(n);
    uint64_t npw = llama8b_1f1b_lcp_perm_words_for(n, pbits);
    uint32_t *pwords = (uint32_t *)malloc(npw * 4);
    llama8b_1f1b_lcp_perm_pack(perm, n, pbits, pwords);
    hx.perm = pwords, hx.perm_bits = pbits;
    /* And the units over the block minima and the deep directory's coarser levels. */
    uint64_t nup = llama8b_1f1b_lcp_up_size(n) + 1, ndu = llama8b_1f1b_lcp_deep_up_size(nd) + 1;
    uint32_t *up = (uint32_t *)malloc(nup * 4);
    llama8b_1f1b_lcp_up_fill(&hx, up);
    llama8b_1f1b_lcp_deep *deep_up = (llama8b_1f1b_lcp_deep *)malloc(ndu * sizeof *deep_up);
    llama8b_1f1b_lcp_deep_up_fill(&hd, &hx, deep_up);
    hx.up = up, hx.deep_up = deep_up;
    /* And the run table. */
    uint64_t rcap = llama8b_1f1b_lcp_runs_cap(n), rslots = llama8b_1f1b_lcp_run_hash_size(rcap);
    llama8b_1f1b_lcp_run *runs = (llama8b_1f1b_lcp_run *)malloc(rcap * sizeof *runs);
    llama8b_1f1b_lcp_run_frame *frames =
        (llama8b_1f1b_lcp_run_frame *)malloc(llama8b_1f1b_lcp_run_stack_size(L) * sizeof *frames);
    uint32_t *run_hash = (uint32_t *)malloc(rslots * 4);
    uint64_t nruns = llama8b_1f1b_lcp_runs_fill(&hx, L, rcap, frames, runs);
    llama8b_1f1b_lcp_run_hash_fill(runs, nruns, run_hash, rslots);
    free(frames);
    hx.runs = runs, hx.run_hash = run_hash, hx.run_mask = rslots - 1;

    tok_t *qs = (tok_t *)malloc(nq * L * sizeof(tok_t));
    for (uint64_t q = 0; q < nq; q++) {
        tok_t *row = qs + q * L;
        if (q % 2 == 0) {
            memcpy(row, tok + (rnd() % n) * L, (size_t)L * sizeof(tok_t));
            row[rnd() % L] = (tok_t)(rnd() % 512);
        } else {
            for (uint32_t j = 0; j < L; j++)
                row[j] = (tok_t)(rnd() % 512);
        }
    }
    /* Host: the same query code, one query at a time. */
    uint32_t *hs = (uint32_t *)malloc(nq * k * 4), *hl = (uint32_t *)malloc(nq * k * 4);
    unsigned long long *hc = (unsigned long long *)malloc(nq * 8);
    double *lat = (double *)malloc(nq * sizeof *lat);
    for (uint64_t q = 0; q < nq; q++) {
        double a = now_s();
        hc[q] = llama8b_1f1b_lcp_topk(&hd, &hx, qs + q * L, k, hs + q * k, hl + q * k);
        lat[q] = now_s() - a;
    }
    qsort(lat, nq, sizeof *lat, cmp_double);
    /* The host again with the first derived set only: the same answers. */
    long set_bad = 0;
    {
        uint32_t *s1 = (uint32_t *)malloc(k * 4), *l1 = (uint32_t *)malloc(k * 4);
        for (uint64_t q = 0; q < nq; q++) {
            unsigned long long c1 = llama8b_1f1b_lcp_topk(&hd, &hx1, qs + q * L, k, s1, l1);
            if (c1 != hc[q] || memcmp(s1, hs + q * k, c1 * 4) || memcmp(l1, hl + q * k, c1 * 4))
                set_bad++;
        }
        free(s1), free(l1);
    }

    uint32_t *gs = hs, *gl = hl; /* the results checked against brute force */
    unsigned long long *gc = hc;
    long bad = 0;
    float ms[5] = {0, 0, 0, 0, 0};
    unsigned threads = 128;
    if (gpu) {
    /* Device: the same arrays in device memory, one thread per query. */
    tok_t *d_tok = to_device(tok, n * L);
    const tok_t **d_shards = to_device((const tok_t **)&d_tok, 1);
    uint64_t *d_first = to_device(first, 2);
    uint32_t *d_perm = to_device(pwords, npw);
    uint16_t *d_lcp = to_device(lcp, n);
    uint64_t *d_dir = to_device(dir, nd), *d_top = to_device(top, nt);
    uint32_t *d_idmin = to_device(idmin, nd);
    uint8_t *d_lcpmin = to_device(lcpmin, nd);
    uint32_t *d_idmin2 = to_device(idmin2, nd);
    llama8b_1f1b_lcp_deep *d_deep = to_device(deep, nd);
    uint8_t *d_dtok = to_device(dtok, ndt);
    uint32_t *d_up = to_device(up, nup);
    llama8b_1f1b_lcp_deep *d_deep_up = to_device(deep_up, ndu);
    llama8b_1f1b_lcp_run *d_runs = to_device(runs, nruns ? nruns : 1);
    uint32_t *d_run_hash = to_device(run_hash, rslots);
    llama8b_1f1b_lcp_data dd = {L, L, 1, d_shards, d_first};
    llama8b_1f1b_lcp_index dx = hx;
    dx.perm = d_perm, dx.lcp = d_lcp, dx.dir = d_dir, dx.idmin = d_idmin, dx.lcpmin = d_lcpmin, dx.top = d_top;
    dx.deep = d_deep, dx.idmin2 = d_idmin2, dx.dtok = d_dtok, dx.up = d_up, dx.deep_up = d_deep_up;
    dx.runs = d_runs, dx.run_hash = d_run_hash;
    llama8b_1f1b_lcp_data *d_dd = to_device(&dd, 1);
    llama8b_1f1b_lcp_index *d_dx = to_device(&dx, 1);
    tok_t *d_q = to_device(qs, nq * L);
    unsigned int *d_s, *d_l;
    unsigned long long *d_c;
    CK(cudaMalloc(&d_s, nq * k * 4));
    CK(cudaMalloc(&d_l, nq * k * 4));
    CK(cudaMalloc(&d_c, nq * 8));
    unsigned blocks = (unsigned)((nq + threads - 1) / threads);
    llama8b_1f1b_lcp_topk_batch<<<blocks, threads>>>(d_dd, d_dx, d_q, nq, k, d_s, d_l, d_c); /* warm-up */
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int r = 0; r < 5; r++) {
        CK(cudaEventRecord(e0));
        llama8b_1f1b_lcp_topk_batch<<<blocks, threads>>>(d_dd, d_dx, d_q, nq, k, d_s, d_l, d_c);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms[r], e0, e1));
    }
    qsort(ms, 5, sizeof *ms, [](const void *a, const void *b) {
        float x = *(const float *)a, y = *(const float *)b;
        return (x > y) - (x < y);
    });
    gs = (uint32_t *)malloc(nq * k * 4), gl = (uint32_t *)malloc(nq * k * 4);
    gc = (unsigned long long *)malloc(nq * 8);
    CK(cudaMemcpy(gs, d_s, nq * k * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gl, d_l, nq * k * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gc, d_c, nq * 8, cudaMemcpyDeviceToHost));
    for (uint64_t q = 0; q < nq; q++)
        if (gc[q] != hc[q] || memcmp(gs + q * k, hs + q * k, hc[q] * 4) || memcmp(gl + q * k, hl + q * k, hc[q] * 4))
            if (bad++ < 5)
                fprintf(stderr, "device_check: top-k differs (GPU against host) on query %llu\n", (unsigned long long)q);
    }
    /* Brute force on the first 100 queries: LCP with every sequence. */
    long brute_bad = 0;
    uint64_t nb = nq < 100 ? nq : 100;
    uint32_t *bl = (uint32_t *)malloc(n * 4);
    for (uint64_t q = 0; q < nb; q++) {
        for (uint64_t i = 0; i < n; i++)
            bl[i] = lcp2(qs + q * L, tok + i * L, L);
        long query_bad = 0;
        for (uint64_t r = 0; r < hc[q]; r++) {
            /* the r-th best: the largest LCP, ties by smaller number, not yet taken */
            uint64_t best = n;
            for (uint64_t i = 0; i < n; i++)
                if (bl[i] != UINT32_MAX && (best == n || bl[i] > bl[best]))
                    best = i;
            if (gs[q * k + r] != best || gl[q * k + r] != bl[best]) {
                if (!query_bad)
                    brute_bad++;
                if (!query_bad++)
                    fprintf(stderr, "device_check: query %llu rank %llu: GPU %u:%u, brute force %llu:%u\n",
                            (unsigned long long)q, (unsigned long long)r, gs[q * k + r], gl[q * k + r],
                            (unsigned long long)best, bl[best]);
            }
            bl[best] = UINT32_MAX;
        }
    }
    if (!gpu) {
        printf("lcp (host half only): N = %llu sequences of %u tokens, %llu queries, k = %u: host p50 %.2f us p95 %.2f "
               "us; %ld of %llu differ from brute force, %ld of %llu without the second derived set\n",
               (unsigned long long)n, L, (unsigned long long)nq, k, lat[nq / 2] * 1e6, lat[nq * 95 / 100] * 1e6,
               brute_bad, (unsigned long long)nb, set_bad, (unsigned long long)nq);
        return brute_bad + set_bad;
    }
    printf("lcp: N = %llu sequences of %u tokens (host sort %.1f s), %llu queries, k = %u: GPU batch %.3f ms median of 5 "
           "(%.3f us per query, %u threads a block), host one at a time p50 %.2f us p95 %.2f us; %ld of %llu differ "
           "GPU against host, %ld of %llu GPU against brute force, %ld of %llu host without the second derived set\n",
           (unsigned long long)n, L, sort_s, (unsigned long long)nq, k, ms[2], ms[2] * 1e3 / (double)nq, threads,
           lat[nq / 2] * 1e6, lat[nq * 95 / 100] * 1e6, bad, (unsigned long long)nq, brute_bad, (unsigned long long)nb, set_bad, (unsigned long long)nq);
    return bad + brute_bad + set_bad;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
    uint64_t nq = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000;
    uint32_t k = argc > 3 ? (uint32_t)atoi(argv[3]) : LCP_TOPK;
    if (n < 1 || nq < 1 || k < 1) {
        fprintf(stderr, "usage: device_check [N_SEQUENCES >= 1] [N_QUERIES >= 1] [K >= 1]\n");
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        /* No GPU: the host half (the index built here, the .cu's query code
         * on the host, brute force), then exit 77 (ctest: skipped). */
        printf("device_check: no CUDA device; host half only\n");
        long bad = check_lcp(n, nq, k, false) + check_lcp(n, nq, 40, false);
        printf("device_check: host half %s\n", bad ? "DIFFERENCES" : "ok");
        return bad ? 1 : 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    long bad = check_masks() + check_lcp(n, nq, k, true) + check_lcp(n, nq, 40, true);
    printf("device_check: %s\n", bad ? "DIFFERENCES" : "ok");
    return bad ? 1 : 0;
}
