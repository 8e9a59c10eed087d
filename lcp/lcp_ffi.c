/* lcp_ffi: the flat handle API (lcp_ffi.h) over lcp_index and lcp_set. */
#define _POSIX_C_SOURCE 200809L /* open_memstream, strdup */
#include "lcp_ffi.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "lcp_index.h"
#include "lcp_merge.h"
#include "lcp_set.h"
#include "lcp_shard.h"

struct tfc_lcp {
    bool is_set;    /* set (or one part of it) or a lone index */
    int64_t part;   /* the one part open, or -1 */
    lcp_set set;
    lcp_shards sh;  /* a lone index: */
    lcp_index ix;
    char **paths;   /* its shards' paths, owned */
    uint32_t n_paths;
    uint64_t n;     /* sequences answered for */
    uint32_t seq_len, token_bytes, doc_sep;
    bool docs;
};

int tfc_lcp_abi(void) { return TFC_LCP_ABI; }

/* The diagnostics as tfc prints them, cut to cap bytes. */
static void put_diags(diag_list *d, char *err, size_t cap)
{
    if (!err || !cap)
        return;
    err[0] = '\0';
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        snprintf(err, cap, "tfc_lcp: out of memory formatting an error");
        return;
    }
    diag_print(d, f);
    fclose(f);
    snprintf(err, cap, "%s", buf ? buf : "");
    size_t n = strlen(err);
    if (n && err[n - 1] == '\n')
        err[n - 1] = '\0';
    free(buf);
}

static void put_nomem(const char *what, char *err, size_t cap)
{
    if (err && cap)
        snprintf(err, cap, "tfc: error: out of memory %s", what);
}

static void free_paths(tfc_lcp *h)
{
    for (uint32_t i = 0; i < h->n_paths; i++)
        free(h->paths[i]);
    free(h->paths);
}

/* The lone index or the one open part: the index answering for h, with
 * the first number it answers for. NULL for a whole set. */
static const lcp_index *one_index(const tfc_lcp *h, uint64_t *first)
{
    if (!h->is_set) {
        *first = 0;
        return &h->ix;
    }
    if (h->part < 0)
        return NULL;
    *first = h->set.parts[h->part].first;
    return &h->set.parts[h->part].ix;
}

/* How many indexes answer for h (every part of a whole set, else one), and
 * the i-th of them with the first number it answers for. */
static uint32_t n_indexes(const tfc_lcp *h)
{
    return h->is_set && h->part < 0 ? h->set.n_parts : 1;
}

static const lcp_index *index_at(const tfc_lcp *h, uint32_t i, uint64_t *first)
{
    const lcp_index *ix = one_index(h, first);
    if (ix)
        return ix;
    *first = h->set.parts[i].first;
    return &h->set.parts[i].ix;
}

tfc_lcp *tfc_lcp_open(const char *path, const char *const *shards, uint32_t n_shards, uint32_t raw_token_bytes,
                      int64_t part, int verify, int *status, char *err, size_t cap)
{
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    tfc_lcp *h = calloc(1, sizeof *h);
    tfc_status st = h ? TFC_OK : diag_nomem(&d, "opening %s", path);
    if (st == TFC_OK && n_shards == 0) {
        h->is_set = true;
        h->part = part < 0 ? -1 : part;
        if (part > (int64_t)UINT32_MAX - 1) {
            diag_error(&d, path, 0, 0, "no part %lld", (long long)part);
            st = TFC_INVALID;
        } else {
            st = part < 0 ? lcp_set_open(path, verify != 0, true, &h->set, &d)
                          : lcp_set_open_part(path, (uint32_t)part, verify != 0, true, &h->set, &d);
        }
        if (st == TFC_OK) {
            h->seq_len = h->set.seq_len, h->token_bytes = h->set.token_bytes, h->docs = h->set.docs;
            h->doc_sep = h->set.doc_sep;
            h->n = part < 0 ? h->set.n : h->set.parts[part].n;
        }
    } else if (st == TFC_OK) {
        h->part = -1;
        h->paths = calloc(n_shards, sizeof *h->paths);
        st = h->paths ? TFC_OK : diag_nomem(&d, "opening %s", path);
        for (uint32_t i = 0; st == TFC_OK && i < n_shards; i++, h->n_paths++)
            if (!(h->paths[i] = strdup(shards[i])))
                st = diag_nomem(&d, "opening %s", path);
        bool raw = raw_token_bytes != 0;
        if (st == TFC_OK)
            st = lcp_shards_open((const char *const *)h->paths, n_shards, raw, raw_token_bytes, &h->sh, &d);
        if (st == TFC_OK) {
            st = lcp_index_open(path, &h->sh, verify != 0, &h->ix, &d);
            if (st == TFC_OK) {
                st = lcp_index_derive(&h->ix, path, &d);
                if (st != TFC_OK)
                    lcp_index_close(&h->ix);
            }
            if (st != TFC_OK)
                lcp_shards_close(&h->sh);
        }
        if (st == TFC_OK) {
            h->seq_len = h->ix.seq_len, h->token_bytes = h->ix.token_bytes, h->docs = h->ix.docs != NULL;
            h->doc_sep = h->ix.doc_sep, h->n = h->ix.n;
        }
    }
    st = diag_status(&d, st);
    if (st != TFC_OK) {
        put_diags(&d, err, cap);
        if (h && h->is_set)
            lcp_set_close(&h->set); /* after the message: it names the set's paths */
        if (h)
            free_paths(h);
        free(h);
        h = NULL;
    }
    if (status)
        *status = (int)st;
    diag_free(&d);
    return h;
}

void tfc_lcp_close(tfc_lcp *h)
{
    if (!h)
        return;
    if (h->is_set) {
        lcp_set_close(&h->set);
    } else {
        lcp_index_close(&h->ix);
        lcp_shards_close(&h->sh);
        free_paths(h);
    }
    free(h);
}

void tfc_lcp_info(const tfc_lcp *h, uint64_t out[8])
{
    uint64_t first = 0;
    one_index(h, &first);
    out[0] = h->n, out[1] = h->seq_len, out[2] = h->token_bytes, out[3] = h->docs, out[4] = h->doc_sep;
    out[5] = h->is_set ? h->set.n_parts : 1, out[6] = first, out[7] = h->is_set ? h->set.n : h->n;
}

int64_t tfc_lcp_topk(const tfc_lcp *h, const void *queries, uint64_t nq, uint64_t k, uint64_t *seq, uint32_t *lcp,
                     char *err, size_t cap)
{
    uint64_t c = k < h->n ? k : h->n;
    if (c == 0)
        return 0;
    k = c; /* the same answers, and scratch for at most every sequence whatever k asks */
    size_t qbytes = (size_t)h->seq_len * h->token_bytes;
    const unsigned char *q = queries;
    uint64_t first = 0;
    const lcp_index *ix = one_index(h, &first);
    if (ix) {
        uint32_t *s32 = malloc(c * sizeof *s32);
        if (!s32) {
            put_nomem("answering a top-k", err, cap);
            return -1;
        }
        for (uint64_t i = 0; i < nq; i++) {
            lcp_index_topk(ix, q + i * qbytes, k, s32, lcp + i * c);
            for (uint64_t j = 0; j < c; j++)
                seq[i * c + j] = first + s32[j];
        }
        free(s32);
        return (int64_t)c;
    }
    lcp_set_work w;
    if (!lcp_set_work_init(&w, k)) {
        put_nomem("answering a top-k", err, cap);
        return -1;
    }
    lcp_set_topk_batch(&h->set, q, nq, &w, seq, lcp);
    lcp_set_work_free(&w);
    return (int64_t)c;
}

typedef struct numbers {
    uint64_t *v, n, cap;
} numbers;

static void collect(void *ctx, uint64_t g)
{
    numbers *o = ctx;
    o->v[o->n++] = g; /* cap is every sequence: no overflow */
}

int64_t tfc_lcp_dedup(const tfc_lcp *h, uint32_t min_lcp, uint64_t **out, char *err, size_t cap)
{
    *out = NULL;
    numbers o = {malloc((h->n ? h->n : 1) * sizeof *o.v), 0, h->n};
    uint64_t first = 0;
    const lcp_index *ix = one_index(h, &first);
    uint8_t *dup = ix ? malloc(h->n ? h->n : 1) : NULL;
    if (!o.v || (ix && !dup)) {
        free(o.v);
        free(dup);
        put_nomem("finding duplicates", err, cap);
        return -1;
    }
    if (ix) {
        lcp_index_dedup(ix, min_lcp, dup);
        for (uint64_t i = 0; i < h->n; i++)
            if (dup[i])
                o.v[o.n++] = first + i;
        free(dup);
    } else {
        diag_list d;
        diag_init(&d, DIAG_DEFAULT_MAX);
        if (lcp_set_dedup(&h->set, min_lcp, collect, &o, &d) == UINT64_MAX) {
            put_diags(&d, err, cap);
            diag_free(&d);
            free(o.v);
            return -1;
        }
        diag_free(&d);
    }
    *out = o.v;
    return (int64_t)o.n;
}

static bool put_number(void *ctx, uint64_t g)
{
    numbers *o = ctx;
    if (o->n == o->cap)
        return false;
    o->v[o->n++] = g;
    return true;
}

int tfc_lcp_order(const tfc_lcp *h, uint64_t *out, char *err, size_t cap)
{
    uint64_t first = 0;
    const lcp_index *ix = one_index(h, &first);
    if (ix) {
        for (uint64_t j = 0; j < h->n; j++)
            out[j] = first + lcp_index_perm(ix, j);
        return 0;
    }
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    numbers o = {out, 0, h->n};
    tfc_status st = lcp_set_order_each(&h->set, put_number, &o, &d);
    if (st != TFC_OK || o.n != h->n) {
        if (st == TFC_OK)
            diag_error(&d, NULL, 0, 0, "the parts' orders hold %llu sequences, the set %llu", (unsigned long long)o.n,
                       (unsigned long long)h->n);
        put_diags(&d, err, cap);
        diag_free(&d);
        return -1;
    }
    diag_free(&d);
    return 0;
}

void tfc_lcp_free(void *p) { free(p); }

int64_t tfc_lcp_topk_merge(uint64_t nq, uint64_t k, const uint64_t *as, const uint32_t *al, uint64_t na,
                           const uint64_t *bs, const uint32_t *bl, uint64_t nb, uint64_t *os, uint32_t *ol)
{
    uint64_t c = na + nb < k ? na + nb : k;
    for (uint64_t i = 0; i < nq; i++)
        lcp_topk_merge(as + i * na, al + i * na, na, bs + i * nb, bl + i * nb, nb, k, os + i * c, ol + i * c);
    return (int64_t)c;
}

/* The index holding global number g, and g's number there; NULL when h
 * does not answer for g. */
static const lcp_index *holder(const tfc_lcp *h, uint64_t g, uint64_t *local)
{
    uint64_t first = 0;
    const lcp_index *ix = one_index(h, &first);
    if (ix) {
        if (g < first || g - first >= ix->n)
            return NULL;
        *local = g - first;
        return ix;
    }
    uint32_t lo = 0, hi = h->set.n_parts; /* the last part with first <= g */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (h->set.parts[mid].first <= g)
            lo = mid;
        else
            hi = mid;
    }
    const lcp_set_part *p = &h->set.parts[lo];
    if (g < p->first || g - p->first >= p->n)
        return NULL;
    *local = g - p->first;
    return &p->ix;
}

int tfc_lcp_canon(const tfc_lcp *h, const uint64_t *nums, uint64_t cnt, uint32_t m, uint32_t *out)
{
    if (m > h->seq_len)
        return -1;
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t local;
        const lcp_index *ix = holder(h, nums[i], &local);
        if (!ix)
            return -1;
        lcp_seq_canon(ix, local, m, out + i * m);
    }
    return 0;
}

void tfc_lcp_count_before(const tfc_lcp *h, const uint32_t *tokens, const uint64_t *nums, uint64_t cnt, uint64_t *out)
{
    memset(out, 0, cnt * sizeof *out);
    for (uint32_t p = 0; p < n_indexes(h); p++) {
        uint64_t first;
        const lcp_index *x = index_at(h, p, &first);
        for (uint64_t i = 0; i < cnt; i++)
            out[i] += lcp_index_count_before(x, first, tokens + (size_t)i * h->seq_len, nums[i]);
    }
}

void tfc_lcp_has_prefix(const tfc_lcp *h, const uint32_t *tokens, uint64_t cnt, uint32_t m, int sorted, uint8_t *out)
{
    uint32_t n = n_indexes(h);
    /* Sorted: each index walked once, its answers ORed in (straight into
     * out for one index); without the scratch, a search per prefix. */
    uint8_t *got = !sorted ? NULL : n == 1 ? out : malloc(cnt ? cnt : 1);
    memset(out, 0, cnt);
    for (uint32_t p = 0; p < n; p++) {
        uint64_t first;
        const lcp_index *x = index_at(h, p, &first);
        if (got) {
            lcp_index_has_prefixes_sorted(x, tokens, cnt, m, got);
            for (uint64_t i = 0; got != out && i < cnt; i++)
                out[i] |= got[i];
            continue;
        }
        for (uint64_t i = 0; i < cnt; i++)
            if (!out[i])
                out[i] = lcp_index_has_prefix(x, tokens + (size_t)i * m, m);
    }
    if (got != out)
        free(got);
}
