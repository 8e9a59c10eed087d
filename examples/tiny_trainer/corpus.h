/* corpus: the example's data loader. Every regular file under a folder of
 * text, recursively (by default /usr/share/common-licenses, on every Debian
 * machine; names starting with '.' are skipped, files and folders alike),
 * sorted by path, is one shard of byte tokens (bytes >= 128 become '?');
 * sequence i is the i-th window of SEQ tokens (windows do not cross
 * shards). The generated LCP index (tiny_lcp_index.h) sorts the sequences:
 * those whose first DEDUP_LCP tokens repeat a smaller-numbered one are
 * dropped (the same paragraph in two licences).
 *
 * Split, after that de-duplication:
 *  - validation: every tenth kept sequence by sequence number (the 10th,
 *    20th, ... kept one), the rest training;
 *  - parts: the shards, in path order, are cut in two by cumulative token
 *    count: "pretrain" is the shards up to and including the first one at
 *    which the running token count reaches half of all tokens, "finetune"
 *    the rest; when that leaves finetune empty, the last shard alone is
 *    finetune and the others pretrain. A part's training and validation
 *    sequences are those (of the split above) lying in its shards;
 *    CORPUS_ALL takes every shard.
 * Training batches are runs of neighbours in the sorted order
 * (prefix-grouped), the runs shuffled per epoch from (seed, epoch). */
#ifndef TINY_CORPUS_H
#define TINY_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    SEQ = 48,         /* tokens per sequence (the MLP: 16 of context + 32 predictions) */
    DEDUP_LCP = 32,   /* tokens a sequence must share to count as a repeat */
};

typedef enum { CORPUS_ALL = 0, CORPUS_PRETRAIN = 1, CORPUS_FINETUNE = 2 } corpus_part;

typedef struct corpus {
    uint32_t n_shards;
    uint32_t part_begin, part_end; /* the selected part's shards [begin, end) */
    uint32_t pretrain_shards;      /* shards [0, pretrain_shards) are pretrain, the rest finetune */
    uint64_t n_tokens_all;
    uint16_t **shard;
    uint64_t *n_tokens, *first; /* first: n_shards + 1 */
    uint64_t n_seq, n_dup;
    uint32_t *perm, *lcp;       /* the index */
    uint8_t *dup;
    uint32_t *train, *val;      /* the part's sequence numbers: train in sorted order, val by number */
    uint64_t n_train, n_val;
    uint64_t n_train_all, n_val_all; /* over every shard */
    double build_s;             /* time to build the index */
} corpus;

/* Loads every regular file under dir (recursively, sorted by path) and
 * selects part's sequences. False with a reason. */
bool corpus_load(corpus *c, const char *dir, corpus_part part, char *why, size_t cap);
void corpus_free(corpus *c);
const uint16_t *corpus_seq(const corpus *c, uint32_t i);
/* The training sequences of epoch e in batch order: runs of `group`
 * neighbours in sorted order, the runs in a shuffled order (the same for
 * the same seed and epoch). order needs n_train entries; returns how many
 * are used (whole runs only). */
uint64_t corpus_epoch(const corpus *c, uint64_t seed, uint64_t epoch, uint32_t group, uint32_t *order);

#endif
