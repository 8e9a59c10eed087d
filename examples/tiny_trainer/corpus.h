/* corpus: the example's data loader. Every regular file of a folder of
 * text (by default /usr/share/common-licenses, on every Debian machine) is
 * one shard of byte tokens; sequence i is the i-th window of SEQ tokens.
 * The generated LCP index (tiny_lcp_index.h) sorts the sequences: those
 * whose first DEDUP_LCP tokens repeat a smaller-numbered one are dropped
 * (the same paragraph in two licences), every tenth of the rest is held out
 * for validation, and training batches are runs of neighbours in the
 * sorted order (prefix-grouped), the runs shuffled once per epoch. */
#ifndef TINY_CORPUS_H
#define TINY_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    SEQ = 48,         /* tokens per sequence: CTX of context + 32 targets */
    DEDUP_LCP = 32,   /* tokens a sequence must share to count as a repeat */
};

typedef struct corpus {
    uint32_t n_shards;
    uint16_t **shard;
    uint64_t *n_tokens, *first; /* first: n_shards + 1 */
    uint64_t n_seq, n_dup;
    uint32_t *perm, *lcp;       /* the index */
    uint8_t *dup;
    uint32_t *train, *val;      /* sequence numbers: train in sorted order */
    uint64_t n_train, n_val;
    double build_s;             /* time to build the index */
} corpus;

/* Loads every regular file of dir (sorted by name). False with a reason. */
bool corpus_load(corpus *c, const char *dir, char *why, size_t cap);
void corpus_free(corpus *c);
const uint16_t *corpus_seq(const corpus *c, uint32_t i);
/* The training sequences of epoch e in batch order: runs of `group`
 * neighbours in sorted order, the runs in a shuffled order (the same for
 * the same epoch). order needs n_train entries; returns how many are used
 * (whole runs only). */
uint64_t corpus_epoch(const corpus *c, uint64_t epoch, uint32_t group, uint32_t *order);

#endif
