/* corpus: text shards, the generated LCP index, duplicates, batch order. */
#define _POSIX_C_SOURCE 200809L
#include "corpus.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tiny_lcp_index.h"

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Bytes as tokens: ASCII stays, anything else becomes '?'. */
static bool read_shard(const char *path, uint16_t **out, uint64_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t cap = 1 << 16, len = 0;
    uint16_t *t = malloc(cap * sizeof *t);
    int ch;
    while (t && (ch = getc(f)) != EOF) {
        if (len == cap) {
            uint16_t *g = realloc(t, 2 * cap * sizeof *t);
            if (!g) {
                free(t);
                t = NULL;
                break;
            }
            t = g;
            cap *= 2;
        }
        t[len++] = (uint16_t)(ch < 128 ? ch : '?');
    }
    bool ok = t && !ferror(f);
    fclose(f);
    if (!ok) {
        free(t);
        return false;
    }
    *out = t;
    *n = len;
    return true;
}

typedef struct names {
    char **v;
    size_t n, cap;
    bool oom;
} names;

static void add_name(names *nm, const char *path)
{
    if (nm->n == nm->cap) {
        size_t cap = nm->cap ? 2 * nm->cap : 64;
        char **g = realloc(nm->v, cap * sizeof *g);
        if (!g) {
            nm->oom = true;
            return;
        }
        nm->v = g;
        nm->cap = cap;
    }
    if (!(nm->v[nm->n] = strdup(path)))
        nm->oom = true;
    else
        nm->n++;
}

/* Every regular file under dir (following links to files, not to folders;
 * names starting with '.' skipped). */
static void walk(const char *dir, names *nm, int depth)
{
    DIR *d = opendir(dir);
    if (!d || depth > 64) {
        if (d)
            closedir(d);
        return;
    }
    struct dirent *e;
    while (!nm->oom && (e = readdir(d))) {
        char path[4096];
        struct stat st, lst;
        if (e->d_name[0] == '.' || snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
            lstat(path, &lst) != 0)
            continue;
        if (S_ISDIR(lst.st_mode))
            walk(path, nm, depth + 1);
        else if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            add_name(nm, path);
    }
    closedir(d);
}

bool corpus_load(corpus *c, const char *dir, corpus_part part, char *why, size_t cap)
{
    memset(c, 0, sizeof *c);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, cap, "cannot open %s", dir);
        return false;
    }
    closedir(d);
    names nm = {0};
    walk(dir, &nm, 0);
    size_t n = nm.n;
    if (n)
        qsort(nm.v, n, sizeof *nm.v, cmp_names);
    c->shard = calloc(n ? n : 1, sizeof *c->shard);
    c->n_tokens = calloc(n ? n : 1, sizeof *c->n_tokens);
    c->first = calloc(n + 1, sizeof *c->first);
    bool ok = c->shard && c->n_tokens && c->first && n > 0 && !nm.oom && n < UINT32_MAX;
    if (nm.oom)
        snprintf(why, cap, "out of memory listing %s", dir);
    for (size_t i = 0; ok && i < n; i++) {
        ok = read_shard(nm.v[i], &c->shard[i], &c->n_tokens[i]);
        if (!ok)
            snprintf(why, cap, "cannot read %s", nm.v[i]);
        c->n_shards = (uint32_t)(i + ok);
    }
    for (size_t i = 0; i < n; i++)
        free(nm.v[i]);
    free(nm.v);
    if (!ok) {
        if (n == 0)
            snprintf(why, cap, "no readable files in %s", dir);
        corpus_free(c);
        return false;
    }
    tiny_lcp_count(c->n_tokens, c->n_shards, SEQ, SEQ, c->first);
    c->n_seq = c->first[c->n_shards];
    size_t N = c->n_seq ? c->n_seq : 1;
    c->perm = malloc(N * sizeof *c->perm);
    c->lcp = malloc(N * sizeof *c->lcp);
    c->dup = calloc(N, 1);
    c->train = malloc(N * sizeof *c->train);
    c->val = malloc(N * sizeof *c->val);
    if (!c->perm || !c->lcp || !c->dup || !c->train || !c->val || c->n_seq < 100) {
        snprintf(why, cap, c->n_seq < 100 ? "too little text in %s (%llu sequences)" : "out of memory", dir,
                 (unsigned long long)c->n_seq);
        corpus_free(c);
        return false;
    }
    tiny_lcp_data data = {SEQ, SEQ, c->n_shards, (const uint16_t *const *)c->shard, c->first};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!tiny_lcp_build_index(&data, c->perm, c->lcp)) {
        snprintf(why, cap, "out of memory building the LCP index");
        corpus_free(c);
        return false;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    c->build_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    tiny_lcp_index ix = {.perm = c->perm, .lcp = c->lcp, .lcp_bytes = 4, .n = c->n_seq};
    c->n_dup = tiny_lcp_find_duplicates(&ix, DEDUP_LCP, c->dup);
    /* The parts: pretrain is shards [0, k], k the first shard at which the
     * running token count reaches half of all tokens; finetune the rest,
     * or the last shard alone when the rest is empty. */
    for (uint32_t i = 0; i < c->n_shards; i++)
        c->n_tokens_all += c->n_tokens[i];
    uint64_t run = 0;
    uint32_t k = 0;
    for (; k < c->n_shards; k++) {
        run += c->n_tokens[k];
        if (2 * run >= c->n_tokens_all)
            break;
    }
    c->pretrain_shards = k + 1 < c->n_shards ? k + 1 : c->n_shards - 1;
    c->part_begin = part == CORPUS_FINETUNE ? c->pretrain_shards : 0;
    c->part_end = part == CORPUS_PRETRAIN ? c->pretrain_shards : c->n_shards;
    uint64_t lo = c->first[c->part_begin], hi = c->first[c->part_end]; /* the part's sequence numbers */
    /* Every tenth kept sequence (by number, over all shards) is validation;
     * the part's training sequences are listed in sorted order. */
    uint64_t kept = 0;
    uint8_t *is_val = calloc(N, 1);
    if (!is_val) {
        snprintf(why, cap, "out of memory");
        corpus_free(c);
        return false;
    }
    for (uint64_t i = 0; i < c->n_seq; i++)
        if (!c->dup[i] && kept++ % 10 == 9) {
            is_val[i] = 1;
            c->n_val_all++;
            if (i >= lo && i < hi)
                c->val[c->n_val++] = (uint32_t)i;
        }
    for (uint64_t j = 0; j < c->n_seq; j++) {
        uint32_t i = c->perm[j];
        if (!c->dup[i] && !is_val[i]) {
            c->n_train_all++;
            if (i >= lo && i < hi)
                c->train[c->n_train++] = i;
        }
    }
    free(is_val);
    return true;
}

void corpus_free(corpus *c)
{
    for (uint32_t i = 0; c->shard && i < c->n_shards; i++)
        free(c->shard[i]);
    free(c->shard);
    free(c->n_tokens);
    free(c->first);
    free(c->perm);
    free(c->lcp);
    free(c->dup);
    free(c->train);
    free(c->val);
    memset(c, 0, sizeof *c);
}

const uint16_t *corpus_seq(const corpus *c, uint32_t i)
{
    /* The last shard s with first[s] <= i (binary search over n_shards). */
    uint32_t lo = 0, hi = c->n_shards; /* first[lo] <= i < first[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->first[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return c->shard[lo] + (i - c->first[lo]) * SEQ;
}

uint64_t corpus_epoch(const corpus *c, uint64_t seed, uint64_t epoch, uint32_t group, uint32_t *order)
{
    uint64_t runs = c->n_train / group;
    uint32_t *idx = malloc((runs ? runs : 1) * sizeof *idx);
    if (!idx)
        return 0;
    for (uint64_t r = 0; r < runs; r++)
        idx[r] = (uint32_t)r;
    /* xorshift64 from a splitmix64 mix of (seed, epoch); never zero. */
    uint64_t s = seed * 0xD1B54A32D192ED03ull ^ (epoch + 1) * 0x9E3779B97F4A7C15ull;
    s = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9ull;
    s = (s ^ (s >> 27)) * 0x94D049BB133111EBull;
    s ^= s >> 31;
    if (!s)
        s = 0x5DEECE66Dull;
    for (uint64_t r = runs; r > 1; r--) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint64_t j = s % r;
        uint32_t t = idx[r - 1];
        idx[r - 1] = idx[j];
        idx[j] = t;
    }
    for (uint64_t r = 0; r < runs; r++)
        memcpy(order + r * group, c->train + (uint64_t)idx[r] * group, group * sizeof *order);
    free(idx);
    return runs * group;
}
