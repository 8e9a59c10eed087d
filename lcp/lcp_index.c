/* lcp_index: the index file around the shared core. */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include "lcp_index.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fio.h"
#include "real.h"


/* The shared core, filled at build time (tools/render.c) for each width. */
#include "lcp_types_u16.inc"
#include "lcp_types_u32.inc"
#include "lcp_core_u16.inc"
#include "lcp_core_u32.inc"
#include "lcp_build_u16.inc"
#include "lcp_build_u32.inc"

/* The core's data and index structs for ix (the token width's). */
static void core16(const lcp_index *ix, lcp16_data *dd, lcp16_index *ii)
{
    *dd = (lcp16_data){ix->seq_len, ix->stride, ix->sh->n, (const uint16_t *const *)ix->shard_tokens, ix->first};
    *ii = (lcp16_index){ix->perm,   ix->lcp,   ix->lcp_bytes, ix->n,  ix->dir,   ix->n_dir,
                        ix->idmin,  ix->lcpmin, ix->top,      (const lcp16_deep *)ix->deep, ix->idmin2,
                        ix->dtok,   ix->up,     (const lcp16_deep *)ix->deep_up, ix->perm_bits,
                        (const lcp16_run *)ix->runs, ix->run_hash, ix->run_mask};
}

static void core32(const lcp_index *ix, lcp32_data *dd, lcp32_index *ii)
{
    *dd = (lcp32_data){ix->seq_len, ix->stride, ix->docs ? 1u : ix->sh->n,
                       ix->docs ? (const uint32_t *const *)&ix->docs : (const uint32_t *const *)ix->shard_tokens,
                       ix->docs ? ix->doc_first : ix->first};
    *ii = (lcp32_index){ix->perm,   ix->lcp,   ix->lcp_bytes, ix->n,  ix->dir,   ix->n_dir,
                        ix->idmin,  ix->lcpmin, ix->top,      (const lcp32_deep *)ix->deep, ix->idmin2,
                        ix->dtok,   ix->up,     (const lcp32_deep *)ix->deep_up, ix->perm_bits,
                        (const lcp32_run *)ix->runs, ix->run_hash, ix->run_mask};
}

/* Runs body16 or body32 with dd (the core's data) and ii (its index) for ix. */
#define WITH_CORE(ix, body16, body32)                                                                                 \
    do {                                                                                                               \
        if ((ix)->token_bytes == 2 && !(ix)->docs) {                                                                   \
            lcp16_data dd;                                                                                             \
            lcp16_index ii;                                                                                            \
            core16((ix), &dd, &ii);                                                                                    \
            body16;                                                                                                    \
        } else {                                                                                                       \
            lcp32_data dd;                                                                                             \
            lcp32_index ii;                                                                                            \
            core32((ix), &dd, &ii);                                                                                    \
            body32;                                                                                                    \
        }                                                                                                              \
    } while (0)

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const unsigned char *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

/* Sequence counts per shard: first[i] = number of shard i's first window. */
static bool starts(const lcp_shards *sh, uint32_t seq_len, uint32_t stride, uint64_t *first)
{
    first[0] = 0;
    for (uint32_t i = 0; i < sh->n; i++) {
        uint64_t t = sh->s[i].n_tokens;
        uint64_t w = t >= seq_len ? (t - seq_len) / stride + 1 : 0;
        first[i + 1] = first[i] + w;
    }
    return first[sh->n] < UINT32_MAX; /* numbers are uint32 */
}

/* The documents of sh (lcp_build.inc's pack_docs on its shards' width):
 * counted, or packed into out. */
static tfc_status pack_docs(const lcp_shards *sh, uint32_t sep, uint32_t L, uint32_t *out, uint64_t *n,
                            uint32_t *pad_base, const char *where, diag_list *d)
{
    uint64_t *counts = malloc(((size_t)sh->n + 1) * sizeof *counts);
    const void **toks = malloc(((size_t)sh->n + 1) * sizeof *toks);
    if (!counts || !toks) {
        free(counts);
        free(toks);
        return diag_nomem(d, "for the documents of %s", where);
    }
    for (uint32_t i = 0; i < sh->n; i++)
        counts[i] = sh->s[i].n_tokens, toks[i] = sh->s[i].tokens;
    int r = sh->token_bytes == 2 ? lcp16_pack_docs((const uint16_t *const *)toks, counts, sh->n, L, sep, out, n, pad_base)
                                 : lcp32_pack_docs((const uint32_t *const *)toks, counts, sh->n, L, sep, out, n, pad_base);
    free(counts);
    free(toks);
    if (r == 1) {
        diag_error(d, where, 0, 0, "more than %u documents; split the data set", UINT32_MAX - 1);
        return TFC_INVALID;
    }
    if (r == 2) {
        diag_error(d, where, 0, 0,
                   "token values leave no room to mark the ends of %llu documents; documents need tokens below "
                   "2^32 - 1 - documents",
                   (unsigned long long)*n);
        return TFC_INVALID;
    }
    return TFC_OK;
}

/* Packs the documents of sh into a new array (NULL: out of memory). */
static tfc_status docs_load(const lcp_shards *sh, uint32_t sep, uint32_t L, uint32_t **docs, uint64_t *n,
                            uint32_t *pad_base, const char *where, diag_list *d)
{
    *docs = NULL;
    tfc_status st = pack_docs(sh, sep, L, NULL, n, pad_base, where, d);
    if (st != TFC_OK)
        return st;
    if (*n > SIZE_MAX / 4 / L)
        return diag_nomem(d, "for %llu documents of %u tokens", (unsigned long long)*n, L);
    *docs = malloc((size_t)(*n ? *n : 1) * L * 4);
    if (!*docs)
        return diag_nomem(d, "for %llu documents of %u tokens", (unsigned long long)*n, L);
    uint64_t again;
    return pack_docs(sh, sep, L, *docs, &again, pad_base, where, d);
}

/* The index's checksum: four multiply-xor lanes over little-endian 8-byte
 * words (any tail byte-wise), folded. Detects corruption, not tampering;
 * several GB/s, so checking it costs little next to mapping the file. */
typedef struct body_hash {
    uint64_t lane[4];
    unsigned char tail[32];
    size_t fill;
    uint64_t bytes;
} body_hash;

static void bh_init(body_hash *h)
{
    memset(h, 0, sizeof *h);
    for (int i = 0; i < 4; i++)
        h->lane[i] = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
}

static void bh_block(body_hash *h, const unsigned char *p)
{
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int b = 0; b < 8; b++)
            w |= (uint64_t)p[8 * i + b] << (8 * b);
        h->lane[i] = ((h->lane[i] ^ w) * 0xff51afd7ed558ccdull);
        h->lane[i] ^= h->lane[i] >> 29;
    }
}

static void bh_update(body_hash *h, const void *data, size_t len)
{
    const unsigned char *p = data;
    h->bytes += len;
    while (len) {
        if (h->fill == 0 && len >= 32) {
            bh_block(h, p);
            p += 32;
            len -= 32;
            continue;
        }
        size_t take = 32 - h->fill < len ? 32 - h->fill : len;
        memcpy(h->tail + h->fill, p, take);
        h->fill += take;
        p += take;
        len -= take;
        if (h->fill == 32) {
            bh_block(h, h->tail);
            h->fill = 0;
        }
    }
}

static uint64_t bh_final(body_hash *h)
{
    memset(h->tail + h->fill, 0, 32 - h->fill);
    bh_block(h, h->tail);
    uint64_t v = h->bytes;
    for (int i = 0; i < 4; i++) {
        v ^= h->lane[i];
        v *= 0xc4ceb9fe1a85ec53ull;
        v ^= v >> 31;
    }
    return v;
}

static uint32_t lcp_width(uint32_t seq_len) { return seq_len <= 0xff ? 1 : seq_len <= 0xffff ? 2 : 4; }

static uint64_t body_offset(uint32_t n_shards)
{
    uint64_t off = LCP_INDEX_HEADER_BYTES + (uint64_t)n_shards * LCP_INDEX_SHARD_BYTES;
    return (off + 7) / 8 * 8;
}

/* Builds and writes the index of windows (docs false) or of documents
 * (docs true; stride unused). */
static tfc_status build(const lcp_shards *sh, uint32_t seq_len, uint32_t stride, bool docs, uint32_t sep,
                        const char *path, bool progress, diag_list *d, lcp_build_stats *st)
{
    memset(st, 0, sizeof *st);
    uint64_t *first = malloc(((size_t)sh->n + 1) * sizeof *first);
    const void **base = malloc(((size_t)sh->n + 1) * sizeof *base);
    uint32_t *packed_docs = NULL, pad_base = 0, *words = NULL;
    if (!first || !base) {
        free(first);
        free(base);
        return diag_nomem(d, "in the LCP index");
    }
    if (docs) {
        stride = seq_len;
        uint64_t nd = 0;
        tfc_status ds = docs_load(sh, sep, seq_len, &packed_docs, &nd, &pad_base, path, d);
        if (ds != TFC_OK) {
            free(first);
            free(base);
            return ds;
        }
        first[0] = 0, first[1] = nd;
        base[0] = packed_docs;
    } else if (!starts(sh, seq_len, stride, first)) {
        free(first);
        free(base);
        diag_error(d, path, 0, 0, "more than %u sequences; split the data set", UINT32_MAX - 1);
        return TFC_INVALID;
    }
    for (uint32_t i = 0; !docs && i < sh->n; i++) {
        base[i] = sh->s[i].tokens;
        if (sh->s[i].n_tokens && sh->s[i].n_tokens < seq_len) {
            diag_error(d, sh->s[i].path, 0, 0, "shard holds %llu tokens, fewer than --seq-len %u: not one sequence",
                       (unsigned long long)sh->s[i].n_tokens, seq_len);
            free(first);
            free(base);
            return TFC_INVALID;
        }
    }
    uint64_t n = first[docs ? 1 : sh->n];
    st->n = n;
    uint32_t lb = lcp_width(seq_len);
    uint32_t *perm = malloc((n ? n : 1) * sizeof *perm);
    uint32_t *lcp = malloc((n ? n : 1) * sizeof *lcp);
    tfc_status result = TFC_IO;
    char *tmp = NULL;
    FILE *f = NULL;
    if (!perm || !lcp) {
        result = diag_nomem(d, "for %llu sequences", (unsigned long long)n);
        goto out;
    }
    if (progress)
        fprintf(stderr, "tfc index: sorting %llu %s of %u tokens...\n", (unsigned long long)n,
                docs ? "documents" : "sequences", seq_len);
    double t0 = clock_now_s();
    bool ok;
    if (docs) {
        lcp32_data dd = {seq_len, seq_len, 1, (const uint32_t *const *)base, first};
        ok = lcp32_build(&dd, perm, lcp);
    } else if (sh->token_bytes == 2) {
        lcp16_data dd = {seq_len, stride, sh->n, (const uint16_t *const *)base, first};
        ok = lcp16_build(&dd, perm, lcp);
    } else {
        lcp32_data dd = {seq_len, stride, sh->n, (const uint32_t *const *)base, first};
        ok = lcp32_build(&dd, perm, lcp);
    }
    st->sort_s = clock_now_s() - t0;
    if (!ok) {
        result = diag_nomem(d, "sorting");
        goto out;
    }
    if (progress)
        fprintf(stderr, "tfc index: sorted in %s s; writing %s\n", real_fixed(st->sort_s, 2).s, path);
    t0 = clock_now_s();
    /* Pack the LCPs in place to lb bytes each. */
    unsigned char *packed = (unsigned char *)lcp;
    for (uint64_t j = 0; j < n; j++) {
        uint32_t v = lcp[j];
        if (lb == 1)
            packed[j] = (unsigned char)v;
        else if (lb == 2)
            memcpy(packed + 2 * j, &(uint16_t){(uint16_t)v}, 2);
    }
    /* The permutation bit-packed (index format 3). */
    uint32_t pb = lcp32_perm_bits_for(n);
    uint64_t pw = lcp32_perm_words_for(n, pb);
    words = malloc((size_t)pw * 4);
    if (!words) {
        result = diag_nomem(d, "in the LCP index");
        goto out;
    }
    lcp32_perm_pack(perm, n, pb, words);
    uint64_t off = body_offset(sh->n);
    size_t head_len = (size_t)off;
    unsigned char *head = calloc(1, head_len);
    if (!head) {
        result = diag_nomem(d, "in the LCP index");
        goto out;
    }
    memcpy(head, LCP_INDEX_MAGIC, 8);
    put32(head + 8, LCP_INDEX_VERSION);
    put32(head + 12, sh->token_bytes);
    put32(head + 16, seq_len);
    put32(head + 20, stride);
    put64(head + 24, n);
    put32(head + 32, sh->n);
    put32(head + 36, lb);
    for (uint32_t i = 0; i < sh->n; i++) {
        unsigned char *e = head + LCP_INDEX_HEADER_BYTES + (size_t)i * LCP_INDEX_SHARD_BYTES;
        put64(e, sh->s[i].file_size);
        put64(e + 8, sh->s[i].n_tokens);
        put64(e + 16, sh->s[i].fingerprint);
    }
    body_hash bh;
    bh_init(&bh);
    bh_update(&bh, head + LCP_INDEX_HEADER_BYTES, head_len - LCP_INDEX_HEADER_BYTES);
    bh_update(&bh, words, (size_t)pw * 4);
    bh_update(&bh, packed, (size_t)(n * lb));
    put64(head + 40, bh_final(&bh));
    put32(head + 48, docs ? LCP_INDEX_FLAG_DOCS : 0);
    put32(head + 52, docs ? sep : 0);
    put32(head + 56, pb); /* the rest up to byte 72 stays zero */
    size_t tmp_len = strlen(path) + 32;
    tmp = malloc(tmp_len);
    if (tmp)
        snprintf(tmp, tmp_len, "%s.tfc-tmp-%ld", path, (long)getpid());
    if (!tmp) {
        free(head);
        result = diag_nomem(d, "in the LCP index");
        goto out;
    }
    f = fopen(tmp, "wb");
    ok = f && fwrite(head, 1, head_len, f) == head_len && fwrite(words, 4, (size_t)pw, f) == (size_t)pw &&
         fwrite(packed, lb, (size_t)n, f) == (size_t)n;
    free(head);
    ok = f && fflush(f) == 0 && fsync(fileno(f)) == 0 && ok;
    if (f && fclose(f) != 0)
        ok = false;
    f = NULL;
    if (!ok || rename(tmp, path) != 0) {
        diag_error(d, path, 0, 0, "cannot write the index: %s", strerror(errno));
        unlink(tmp);
        goto out;
    }
    st->write_s = clock_now_s() - t0;
    st->file_bytes = off + pw * 4 + n * lb;
    result = TFC_OK;
out:
    free(tmp);
    free(words);
    free(perm);
    free(lcp);
    free(first);
    free(base);
    free(packed_docs);
    return result;
}

tfc_status lcp_index_build(const lcp_shards *sh, uint32_t seq_len, uint32_t stride, const char *path, bool progress,
                            diag_list *d, lcp_build_stats *st)
{
    return build(sh, seq_len, stride, false, 0, path, progress, d, st);
}

tfc_status lcp_index_build_docs(const lcp_shards *sh, uint32_t seq_len, uint32_t sep, const char *path, bool progress,
                                 diag_list *d, lcp_build_stats *st)
{
    return build(sh, seq_len, seq_len, true, sep, path, progress, d, st);
}

/* One thread's share of the deep directory, second minima and
 * distinguishing-token bytes: blocks [ba, bb). */
typedef struct deep_job {
    const lcp_index *ix;
    uint64_t ba, bb;
} deep_job;

static void *deep_run(void *arg)
{
    const deep_job *j = arg;
    const lcp_index *ix = j->ix;
    WITH_CORE(ix, lcp16_deep_fill(&dd, &ii, j->ba, j->bb, (lcp16_deep *)ix->deep, ix->idmin2, ix->dtok),
              lcp32_deep_fill(&dd, &ii, j->ba, j->bb, (lcp32_deep *)ix->deep, ix->idmin2, ix->dtok));
    return NULL;
}

/* The run table (the core's runs_fill) beside the directory, on a thread
 * of its own: from a copy of the index (the other arrays are being
 * filled), each array allocated at its size. */
typedef struct runs_job {
    lcp_index ix;
    void *runs;
    uint32_t *hash;
    uint64_t count, slots;
    bool ok;
} runs_job;

_Static_assert(sizeof(lcp16_run) == sizeof(lcp32_run), "one run entry size");
_Static_assert(LCP_INDEX_STEP == lcp16_DIR_STEP && LCP_INDEX_STEP == lcp32_DIR_STEP, "the samples' step");

static void *runs_run(void *arg)
{
    runs_job *j = arg;
    const lcp_index *ix = &j->ix;
    uint64_t cap = lcp16_runs_cap(ix->n);
    void *frames = malloc((size_t)lcp16_run_stack_size(ix->seq_len) * sizeof(lcp16_run_frame));
    j->runs = malloc((size_t)cap * sizeof(lcp16_run));
    j->ok = frames && j->runs;
    if (j->ok)
        WITH_CORE(ix, j->count = lcp16_runs_fill(&ii, ix->seq_len, cap, frames, j->runs),
                  j->count = lcp32_runs_fill(&ii, ix->seq_len, cap, frames, j->runs));
    free(frames);
    if (j->ok && j->count == 0) {
        free(j->runs);
        j->runs = NULL;
    } else if (j->ok && j->count < cap) { /* give back what it did not need */
        void *fit = realloc(j->runs, (size_t)j->count * sizeof(lcp16_run));
        if (fit)
            j->runs = fit;
    }
    j->slots = lcp16_run_hash_size(j->count);
    j->hash = j->ok ? malloc((size_t)j->slots * 4) : NULL;
    j->ok = j->ok && j->hash;
    if (j->ok)
        lcp16_run_hash_fill(j->runs, j->count, j->hash, j->slots);
    return NULL;
}

/* Carves the next bytes (rounded up to 64) out of the derived block. */
static void *carve(unsigned char **at, uint64_t bytes)
{
    void *p = *at;
    *at += (bytes + 63) / 64 * 64;
    return p;
}

/* Longest sequences the run table is derived for (its fill keeps a frame
 * of 76 bytes per LCP level). */
#define LCP_RUNS_MAX_SEQ_LEN 65536u

/* The search arrays (docs/lcp-index.md), derived at load time, not stored:
 * one anonymous mapping, on transparent huge pages where the kernel gives
 * them (fewer TLB misses on the scattered reads of a query); the deep
 * directory is filled on two threads. */
static int derive(lcp_index *ix)
{
    uint64_t nd = lcp16_dir_size(ix->n), nt = lcp16_dir_size(nd) ? lcp16_dir_size(nd) : 1;
    uint64_t b = nd ? nd : 1;
    uint64_t len = 0;
    uint64_t sizes[] = {b * 8, b * 4, b, nt * 8, b * sizeof(lcp16_deep), b * 4, lcp16_dtok_size(ix->n) + 1,
                        lcp16_up_size(ix->n) * 4 + 4, (lcp16_deep_up_size(nd) + 1) * sizeof(lcp16_deep)};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        len += (sizes[i] + 63) / 64 * 64;
    len = (len + 4095) / 4096 * 4096; /* whole pages; the huge ones cover what 2 MB extents it has */
    void *m = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
#ifdef MADV_HUGEPAGE
    madvise(m, (size_t)len, MADV_HUGEPAGE); /* advice: without it, 4 KB pages */
#endif
    ix->derived = m;
    ix->derived_len = len;
    unsigned char *at = m;
    ix->dir = carve(&at, sizes[0]);
    ix->idmin = carve(&at, sizes[1]);
    ix->lcpmin = carve(&at, sizes[2]);
    ix->top = carve(&at, sizes[3]);
    ix->deep = carve(&at, sizes[4]);
    ix->idmin2 = carve(&at, sizes[5]);
    ix->dtok = carve(&at, sizes[6]);
    uint32_t *up = carve(&at, sizes[7]);
    void *deep_up = carve(&at, sizes[8]);
    /* The run table only for sequences short enough for its stack (each
     * LCP level open at once a frame). */
    runs_job rj = {.ix = *ix};
    pthread_t rt;
    bool want_runs = ix->seq_len <= LCP_RUNS_MAX_SEQ_LEN;
    bool rthreaded = want_runs && ix->n >= 65536 && pthread_create(&rt, NULL, runs_run, &rj) == 0;
    WITH_CORE(ix, lcp16_dir_fill(&dd, &ii, ix->dir, ix->idmin, ix->lcpmin, ix->top),
              lcp32_dir_fill(&dd, &ii, ix->dir, ix->idmin, ix->lcpmin, ix->top));
    ix->n_dir = nd;
    if (ix->seq_len >= lcp16_DEEP_MAX_LCP) { /* its LCPs would not fit the deep entries: search without them */
        ix->deep = NULL, ix->idmin2 = NULL, ix->dtok = NULL;
    } else {
        deep_job jobs[2] = {{ix, 0, nd / 2}, {ix, nd / 2, nd}};
        pthread_t t;
        bool threaded = nd >= 4096 && pthread_create(&t, NULL, deep_run, &jobs[1]) == 0;
        if (!threaded)
            jobs[0].bb = nd;
        deep_run(&jobs[0]);
        if (threaded)
            pthread_join(t, NULL);
        /* The deep directory's coarser levels, from it (a token read per 32 samples). */
        WITH_CORE(ix, lcp16_deep_up_fill(&dd, &ii, (lcp16_deep *)deep_up),
                  lcp32_deep_up_fill(&dd, &ii, (lcp32_deep *)deep_up));
        ix->deep_up = deep_up;
    }
    /* The units over the blocks' minima (their second minima from idmin2). */
    WITH_CORE(ix, lcp16_up_fill(&ii, up), lcp32_up_fill(&ii, up));
    ix->up = up;
    ix->derived_bytes = len;
    if (!want_runs)
        return 0;
    if (rthreaded)
        pthread_join(rt, NULL);
    else
        runs_run(&rj);
    if (!rj.ok) {
        free(rj.runs);
        free(rj.hash);
        return -1;
    }
    ix->runs = rj.runs, ix->run_hash = rj.hash, ix->run_mask = rj.slots - 1, ix->n_runs = rj.count;
    ix->derived_bytes += rj.count * sizeof(lcp16_run) + rj.slots * 4;
    return 0;
}

/* Version 1: windows, plain permutation; 2: documents (flag and separator
 * at 48 and 52), plain; 3: flags, separator, packed. */
static bool header_docs(const unsigned char *p)
{
    uint32_t version = get32(p + 8);
    return version == LCP_INDEX_VERSION_DOCS_V2 || (version == 3 && get32(p + 48) == LCP_INDEX_FLAG_DOCS);
}

tfc_status lcp_index_map(const char *path, bool verify, lcp_index *ix, diag_list *d)
{
    memset(ix, 0, sizeof *ix);
    int fd = fio_open_regular(path, "index", d);
    if (fd < 0)
        return TFC_IO;
    struct stat stt;
    if (fstat(fd, &stt) != 0) {
        close(fd);
        diag_error(d, path, 0, 0, "cannot stat the index: %s", strerror(errno));
        return TFC_IO;
    }
    uint64_t size = (uint64_t)stt.st_size;
    if (size < LCP_INDEX_HEADER_BYTES) {
        close(fd);
        diag_error(d, path, 0, 0, "truncated index: %llu bytes, shorter than its header", (unsigned long long)size);
        return TFC_INVALID;
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    int err = errno;
    close(fd);
    if (map == MAP_FAILED) {
        if (err == ENOMEM) /* no address space left: out of memory, not a problem with the file */
            return diag_nomem(d, "mapping the index %s (%llu bytes)", path, (unsigned long long)size);
        diag_error(d, path, 0, 0, "cannot map the index: %s", strerror(err));
        return TFC_IO;
    }
    ix->map = map;
    ix->map_len = size;
    const unsigned char *p = map;
    tfc_status bad = TFC_INVALID;
    if (memcmp(p, LCP_INDEX_MAGIC, 8) != 0) {
        diag_error(d, path, 0, 0, "not a tfc LCP index (wrong magic)");
        goto fail;
    }
    uint32_t version = get32(p + 8);
    if (version == 0 || version > LCP_INDEX_VERSION) {
        diag_error(d, path, 0, 0,
                   "index format version %u; this tfc reads versions 1 to %u: rebuild it with this tfc's tfc index "
                   "build",
                   version, LCP_INDEX_VERSION);
        goto fail;
    }
    bool docs = header_docs(p);
    uint32_t zero_from = version == 1 ? 48 : version == 2 ? 56 : 60;
    for (uint32_t b = zero_from; b < 72; b++)
        if (p[b] != 0) {
            diag_error(d, path, 0, 0, "corrupt index header");
            goto fail;
        }
    ix->token_bytes = get32(p + 12);
    ix->seq_len = get32(p + 16);
    ix->stride = get32(p + 20);
    ix->n = get64(p + 24);
    uint32_t n_shards = get32(p + 32);
    ix->lcp_bytes = get32(p + 36);
    if ((ix->token_bytes != 2 && ix->token_bytes != 4) || ix->seq_len == 0 || ix->stride == 0 ||
        ix->lcp_bytes != lcp_width(ix->seq_len) || n_shards > LCP_INDEX_MAX_SHARDS || ix->n >= UINT32_MAX ||
        (version >= 2 && get32(p + 48) != (docs ? LCP_INDEX_FLAG_DOCS : 0)) ||
        (!docs && version >= 2 && get32(p + 52) != 0) ||
        (docs && (ix->stride != ix->seq_len || (ix->token_bytes == 2 && get32(p + 52) > 0xffff))) ||
        (version == 3 && get32(p + 56) != lcp32_perm_bits_for(ix->n))) {
        diag_error(d, path, 0, 0, "corrupt index header");
        goto fail;
    }
    ix->perm_bits = version == 3 ? get32(p + 56) : 0;
    uint64_t perm_bytes = ix->perm_bits ? lcp32_perm_words_for(ix->n, ix->perm_bits) * 4 : ix->n * 4;
    uint64_t off = body_offset(n_shards);
    uint64_t want = off + perm_bytes + ix->n * ix->lcp_bytes;
    if (size != want) {
        diag_error(d, path, 0, 0, "index is %llu bytes; its header implies %llu (truncated or corrupt)",
                   (unsigned long long)size, (unsigned long long)want);
        goto fail;
    }
    if (verify) {
        unsigned char dg[8];
        body_hash bh;
        bh_init(&bh);
        bh_update(&bh, p + LCP_INDEX_HEADER_BYTES, (size_t)(size - LCP_INDEX_HEADER_BYTES));
        put64(dg, bh_final(&bh));
        if (memcmp(dg, p + 40, 8) != 0) {
            diag_error(d, path, 0, 0, "index checksum mismatch: the file is corrupt (rebuild it)");
            goto fail;
        }
    }
    return TFC_OK;
fail:
    lcp_index_close(ix);
    return bad;
}

tfc_status lcp_index_attach(lcp_index *ix, const char *path, const lcp_shards *sh, diag_list *d)
{
    const unsigned char *p = ix->map;
    bool docs = header_docs(p);
    uint32_t n_shards = get32(p + 32);
    uint64_t off = body_offset(n_shards);
    uint64_t perm_bytes = ix->perm_bits ? lcp32_perm_words_for(ix->n, ix->perm_bits) * 4 : ix->n * 4;
    tfc_status bad = TFC_INVALID;
    /* The shards must be the ones it was built from. */
    if (sh->n != n_shards || sh->token_bytes != ix->token_bytes) {
        diag_error(d, path, 0, 0, "index was built from %u shard(s) of %u-byte tokens; given %u of %u-byte tokens",
                   n_shards, ix->token_bytes, sh->n, sh->token_bytes);
        goto fail;
    }
    for (uint32_t i = 0; i < n_shards; i++) {
        const unsigned char *e = p + LCP_INDEX_HEADER_BYTES + (size_t)i * LCP_INDEX_SHARD_BYTES;
        if (get64(e) != sh->s[i].file_size || get64(e + 8) != sh->s[i].n_tokens || get64(e + 16) != sh->s[i].fingerprint) {
            diag_error(d, sh->s[i].path, 0, 0, "shard %u differs from the one index %s was built from (size or contents changed)",
                       i + 1, path);
            goto fail;
        }
    }
    ix->perm = (const uint32_t *)(p + off);
    ix->lcp = p + off + perm_bytes;
    ix->sh = sh;
    ix->first = malloc(((size_t)n_shards + 1) * sizeof *ix->first);
    ix->shard_tokens = malloc(((size_t)n_shards + 1) * sizeof *ix->shard_tokens);
    if (!ix->first || !ix->shard_tokens) {
        bad = diag_nomem(d, "in the LCP index");
        goto fail;
    }
    if (docs) {
        uint64_t nd = 0;
        ix->doc_sep = get32(p + 52);
        bad = docs_load(sh, ix->doc_sep, ix->seq_len, &ix->docs, &nd, &ix->pad_base, path, d);
        if (bad != TFC_OK)
            goto fail;
        bad = TFC_INVALID;
        ix->doc_first[0] = 0, ix->doc_first[1] = nd;
        if (nd != ix->n) {
            diag_error(d, path, 0, 0, "index holds %llu documents; the shards give %llu", (unsigned long long)ix->n,
                       (unsigned long long)nd);
            goto fail;
        }
    } else if (!starts(sh, ix->seq_len, ix->stride, ix->first) || ix->first[n_shards] != ix->n) {
        diag_error(d, path, 0, 0, "index holds %llu sequences; the shards give %llu", (unsigned long long)ix->n,
                   (unsigned long long)ix->first[n_shards]);
        goto fail;
    }
    for (uint32_t i = 0; i < n_shards; i++)
        ix->shard_tokens[i] = sh->s[i].tokens;
    /* Memory safety without trusting the checksum (--no-verify). */
    for (uint64_t j = 0; j < ix->n; j++) {
        if (lcp_index_perm(ix, j) >= ix->n || lcp_index_lcp(ix, j) > ix->seq_len) {
            diag_error(d, path, 0, 0, "corrupt index: entry %llu out of range", (unsigned long long)j);
            goto fail;
        }
    }
    return TFC_OK;
fail:
    lcp_index_close(ix);
    return bad;
}

tfc_status lcp_index_open(const char *path, const lcp_shards *sh, bool verify, lcp_index *ix, diag_list *d)
{
    tfc_status st = lcp_index_map(path, verify, ix, d);
    return st == TFC_OK ? lcp_index_attach(ix, path, sh, d) : st;
}

tfc_status lcp_index_derive(lcp_index *ix, const char *path, diag_list *d)
{
    if (ix->derived)
        return TFC_OK;
    if (derive(ix) != 0) {
        return diag_nomem(d, "for the search arrays of %s", path);
    }
    return TFC_OK;
}

uint32_t lcp_index_perm(const lcp_index *ix, uint64_t j)
{
    lcp32_index ii = {.perm = ix->perm, .perm_bits = ix->perm_bits};
    return lcp32_perm_at(&ii, j);
}

uint32_t lcp_index_lcp(const lcp_index *ix, uint64_t j)
{
    return ix->lcp_bytes == 1   ? ((const uint8_t *)ix->lcp)[j]
           : ix->lcp_bytes == 2 ? ((const uint16_t *)ix->lcp)[j]
                                : ((const uint32_t *)ix->lcp)[j];
}

void lcp_index_close(lcp_index *ix)
{
    if (ix->map)
        munmap(ix->map, (size_t)ix->map_len);
    free(ix->first);
    free((void *)ix->shard_tokens);
    free(ix->docs);
    if (ix->derived)
        munmap(ix->derived, (size_t)ix->derived_len);
    free(ix->runs);
    free(ix->run_hash);
    memset(ix, 0, sizeof *ix);
}


/* A query (or prefix) of len tokens against documents: as uint32, with
 * the separator and tokens above every document's (both match nothing)
 * as UINT32_MAX, which no packed document holds. buf has room for
 * DOC_QUERY_LOCAL tokens; longer ones are allocated (NULL: no memory). */
enum { DOC_QUERY_LOCAL = 512 };
static uint32_t *doc_query(const lcp_index *ix, const void *q, uint32_t len, uint32_t *buf)
{
    uint32_t *out = len <= DOC_QUERY_LOCAL ? buf : malloc((size_t)len * 4);
    if (out && ix->token_bytes == 2)
        lcp16_docs_map_query(q, len, ix->doc_sep, ix->pad_base, out);
    else if (out)
        lcp32_docs_map_query(q, len, ix->doc_sep, ix->pad_base, out);
    return out;
}

uint64_t lcp_index_topk(const lcp_index *ix, const void *query, uint64_t k, uint32_t *seq, uint32_t *lcp)
{
    return lcp_index_topk_above(ix, query, k, -1, seq, lcp);
}

uint64_t lcp_index_topk_above(const lcp_index *ix, const void *query, uint64_t k, int64_t above, uint32_t *seq,
                              uint32_t *lcp)
{
    uint64_t r = 0;
    uint32_t local[DOC_QUERY_LOCAL], *dq = NULL;
    if (ix->docs) {
        if (!(dq = doc_query(ix, query, ix->seq_len, local)))
            return 0;
        query = dq;
    }
    WITH_CORE(ix, r = lcp16_topk_above(&dd, &ii, query, k, above, seq, lcp),
              r = lcp32_topk_above(&dd, &ii, query, k, above, seq, lcp));
    if (dq && dq != local)
        free(dq);
    return r;
}

/* Searches at a time in lcp_index_places: more than the memory waits one
 * core keeps in flight. */
enum { PLACES_AT_ONCE = 16 };

/* A place started from its bracket b (lcp_index_bracket): the positions
 * between at and at + span, nothing for the directory or the deep walk to
 * do (place_dir and place_step pass over it, walk_end leaves it). */
#define PLACE_AT(W, ix, b, p)                                                                                          \
    do {                                                                                                               \
        (p)->dir = false, (p)->nlines = 0, (p)->w.state = 0;                                                           \
        if ((b)->at < 0) {                                                                                             \
            (p)->lo = (p)->hi = 0, (p)->elo = -1;                                                                      \
        } else {                                                                                                       \
            (p)->lo = (uint64_t)(b)->at + 1, (p)->elo = (b)->elo;                                                      \
            (p)->hi = (uint64_t)(b)->at + (b)->span < (ix)->n ? (uint64_t)(b)->at + (b)->span : (ix)->n;               \
        }                                                                                                              \
        (p)->ehi = (p)->hi < (ix)->n ? (b)->ehi : -1;                                                                  \
    } while (0)

/* lcp_index_places for m searches in indexes of one width W (their core
 * structs in dd and ii, their places in cp; br: brackets or NULL). */
#define PLACES(W, m, ix, query, br, dd, ii, cp, pl)                                                                       \
    do {                                                                                                               \
        for (uint32_t i = 0; i < (m); i++) {                                                                           \
            core##W((ix)[i], &(dd)[i], &(ii)[i]);                                                                      \
            if ((br) && (br)[i].known)                                                                                 \
                PLACE_AT(W, (ix)[i], &(br)[i], &(cp)[i]);                                                              \
            else                                                                                                       \
                lcp##W##_place_begin(&(dd)[i], &(ii)[i], (query)[i], (ix)[i]->seq_len, &(cp)[i]);                      \
        }                                                                                                              \
        for (uint32_t i = 0; i < (m); i++)                                                                             \
            lcp##W##_place_dir(&(dd)[i], &(ii)[i], (query)[i], (ix)[i]->seq_len, false, &(cp)[i]);                     \
        for (bool more = true; more;) { /* the deep walks, a step of each in turn, their token lines together */     \
            for (uint32_t i = more = 0; i < (m); i++)                                                                  \
                more |= lcp##W##_place_step(&(dd)[i], (query)[i], (ix)[i]->seq_len, false, &(cp)[i]);                    \
            for (uint32_t i = 0; i < (m); i++)                                                                         \
                lcp##W##_place_issue(&(cp)[i]);                                                                         \
        }                                                                                                              \
        for (uint32_t i = 0; i < (m); i++)                                                                             \
            lcp##W##_place_narrowed(&(ii)[i], (ix)[i]->seq_len, &(cp)[i]);                                             \
        for (uint32_t i = 0; i < (m); i++)                                                                             \
            lcp##W##_place_fetch(&(dd)[i], &(ii)[i], (query)[i], (ix)[i]->seq_len, &(cp)[i]);                             \
        for (uint32_t i = 0; i < (m); i++) /* all of them together (place_fetch) */                                    \
            lcp##W##_place_issue(&(cp)[i]);                                                                            \
        for (uint32_t i = 0; i < (m); i++) {                                                                           \
            uint64_t l = lcp##W##_place_end(&(dd)[i], &(ii)[i], (query)[i], (ix)[i]->seq_len, false, &(cp)[i]);            \
            (pl)[i] = (lcp_index_place){l, (cp)[i].elo, (cp)[i].ehi};                                                  \
        }                                                                                                              \
    } while (0)

void lcp_index_places(const lcp_index *const *ix, const void *const *query, uint32_t n, lcp_index_place *pl)
{
    lcp_index_places_from(ix, query, n, NULL, pl);
}

void lcp_index_places_from(const lcp_index *const *ix, const void *const *query, uint32_t n,
                           const lcp_index_bracket *br, lcp_index_place *pl)
{
    for (uint32_t a = 0; a < n; a += PLACES_AT_ONCE) {
        uint32_t m = n - a < PLACES_AT_ONCE ? n - a : PLACES_AT_ONCE;
        if (ix[a]->docs) { /* searched from the start by lcp_index_topk_at */
            for (uint32_t i = 0; i < m; i++)
                pl[a + i] = (lcp_index_place){0, -1, -1};
            continue;
        }
        if (ix[a]->token_bytes == 2) {
            lcp16_data dd[PLACES_AT_ONCE];
            lcp16_index ii[PLACES_AT_ONCE];
            lcp16_place cp[PLACES_AT_ONCE];
            PLACES(16, m, ix + a, query + a, br ? br + a : NULL, dd, ii, cp, pl + a);
        } else {
            lcp32_data dd[PLACES_AT_ONCE];
            lcp32_index ii[PLACES_AT_ONCE];
            lcp32_place cp[PLACES_AT_ONCE];
            PLACES(32, m, ix + a, query + a, br ? br + a : NULL, dd, ii, cp, pl + a);
        }
    }
}

uint64_t lcp_index_topk_at(const lcp_index *ix, const void *query, const lcp_index_place *pl, uint64_t k,
                           int64_t above, uint32_t *seq, uint32_t *lcp)
{
    if (ix->docs)
        return lcp_index_topk_above(ix, query, k, above, seq, lcp);
    uint64_t r = 0;
    WITH_CORE(ix, r = lcp16_topk_from(&dd, &ii, query, pl->l, pl->lq, pl->rq, k, above, seq, lcp),
              r = lcp32_topk_from(&dd, &ii, query, pl->l, pl->lq, pl->rq, k, above, seq, lcp));
    return r;
}

uint64_t lcp_index_dedup(const lcp_index *ix, uint32_t min_lcp, uint8_t *dup)
{
    uint64_t r = 0;
    WITH_CORE(ix, r = lcp16_dedup(&ii, min_lcp, dup), r = lcp32_dedup(&ii, min_lcp, dup));
    return r;
}

void lcp_index_prefix_range(const lcp_index *ix, const void *prefix, uint32_t plen, uint64_t *first, uint64_t *last)
{
    uint32_t local[DOC_QUERY_LOCAL], *dq = NULL;
    if (ix->docs) {
        if (!(dq = doc_query(ix, prefix, plen, local))) {
            *first = *last = 0;
            return;
        }
        prefix = dq;
    }
    WITH_CORE(ix, lcp16_prefix_range(&dd, &ii, prefix, plen, first, last),
              lcp32_prefix_range(&dd, &ii, prefix, plen, first, last));
    if (dq && dq != local)
        free(dq);
}

const void *lcp_index_seq(const lcp_index *ix, uint64_t i)
{
    if (ix->docs)
        return ix->docs + i * ix->seq_len;
    const void *r = NULL;
    WITH_CORE(ix, r = lcp16_seq(&dd, i), r = lcp32_seq(&dd, i));
    return r;
}

uint64_t lcp_index_checksum(const lcp_index *ix) { return get64((const unsigned char *)ix->map + 40); }
