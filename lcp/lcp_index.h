/* lcp_index: building, writing, loading and querying LCP index files
 * (docs/lcp-index.md) with the same code tfc emits as NAME_lcp_index.c
 * (templates/lcp_core.inc and its parts, filled at build time for 2- and
 * 4-byte tokens). */
#ifndef TFC_LCP_INDEX_H
#define TFC_LCP_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "lcp_shard.h"

#define LCP_INDEX_MAGIC "TFCLCPX1"
/* Format versions (docs/lcp-index.md, "The file"): 1, windows with a
 * plain permutation; 2, documents (flag and separator at bytes 48 and 52),
 * plain; 3, what tfc writes: flags, separator and the permutation's bits at
 * 48, 52 and 56, the permutation bit-packed. All three are read. */
#define LCP_INDEX_VERSION 3u
#define LCP_INDEX_VERSION_DOCS_V2 2u
#define LCP_INDEX_FLAG_DOCS 1u
#define LCP_INDEX_HEADER_BYTES 72u
#define LCP_INDEX_SHARD_BYTES 24u
#define LCP_INDEX_MAX_SHARDS 65536u

typedef struct lcp_index {
    uint32_t token_bytes, seq_len, stride, lcp_bytes;
    uint64_t n;          /* sequences */
    const uint32_t *perm; /* plain (perm_bits 0) or bit-packed: lcp_index_perm */
    uint32_t perm_bits;
    const void *lcp;
    void *map;           /* the file, mapped */
    uint64_t map_len;
    /* Sequence starts: built from the shards. */
    const void **shard_tokens;
    uint64_t *first;
    const lcp_shards *sh;
    /* Derived at load time (docs/lcp-index.md), all in one mapping: */
    void *derived;
    uint64_t derived_len;
    uint64_t *dir; /* sampled keys (the core's directory) */
    uint64_t n_dir;
    uint32_t *idmin;          /* per block: smallest number */
    uint8_t *lcpmin;          /* per block: smallest adjacent LCP, 255 for 255 or more */
    uint64_t *top;            /* every block-th directory key */
    void *deep;               /* per sample: the deep directory (the core's deep entries) */
    uint32_t *idmin2;         /* per block: second smallest number */
    uint8_t *dtok;            /* per position: distinguishing-token code, 4 bits */
    uint32_t *up;             /* the block minima over units of 32, 1,024 and 32,768 blocks */
    void *deep_up;            /* the deep directory's every 32nd and 1,024th sample */
    void *runs;               /* the run table (the core's runs): large LCP intervals, their smallest numbers */
    uint32_t *run_hash;       /* its hash table on first positions, run_mask + 1 slots */
    uint64_t run_mask, n_runs;
    uint64_t derived_bytes;   /* all of the above in memory, with the run table */
    /* Documents (an index built with a separator; docs/lcp-index.md,
     * "Documents"): sequence i is the i-th non-empty run of tokens between
     * separators, its first seq_len tokens packed as uint32 with every
     * position past its end holding pad_base + i, so a shorter document
     * shares a prefix only up to its own length. NULL for windows. */
    uint32_t *docs;
    uint32_t doc_sep, pad_base;
    uint64_t doc_first[2]; /* {0, n}: the packed documents as one shard */
} lcp_index;

typedef struct lcp_build_stats {
    uint64_t n;
    double sort_s, write_s;
    uint64_t file_bytes;
} lcp_build_stats;

/* Sorts every window of the shards and writes the index file to path
 * (through a temporary file renamed into place). */
tfc_status lcp_index_build(const lcp_shards *sh, uint32_t seq_len, uint32_t stride, const char *path, bool progress,
                            diag_list *d, lcp_build_stats *st);
/* The same over documents: each non-empty run of tokens between
 * separators (sep; a shard's ends bound runs too) is one sequence of its
 * first seq_len tokens (index format version 2). */
tfc_status lcp_index_build_docs(const lcp_shards *sh, uint32_t seq_len, uint32_t sep, const char *path, bool progress,
                                 diag_list *d, lcp_build_stats *st);

/* Maps the index at path and checks it against the shards it must have
 * been built from: format, sizes, checksum (unless !verify), shard sizes and
 * fingerprints, every permutation entry in range. */
tfc_status lcp_index_open(const char *path, const lcp_shards *sh, bool verify, lcp_index *ix, diag_list *d);
/* lcp_index_open in two steps, for a caller that checks the index's
 * header (lcp_index_checksum) before its shards (an index set, against
 * what it recorded): lcp_index_map maps it and checks it alone (format,
 * sizes, checksum unless !verify), lcp_index_attach against the shards.
 * Either closes ix when it fails. */
tfc_status lcp_index_map(const char *path, bool verify, lcp_index *ix, diag_list *d);
tfc_status lcp_index_attach(lcp_index *ix, const char *path, const lcp_shards *sh, diag_list *d);
/* Derives the search arrays in memory (docs/lcp-index.md, "Search"):
 * queries work without them, much slower. Path names the index in errors. */
tfc_status lcp_index_derive(lcp_index *ix, const char *path, diag_list *d);
void lcp_index_close(lcp_index *ix);

/* Entry j of the sorted permutation (the number of the j-th sequence in
 * sorted order). */
uint32_t lcp_index_perm(const lcp_index *ix, uint64_t j);
/* lcp[j]: the LCP of the sequences at sorted positions j - 1 and j (0 at 0). */
uint32_t lcp_index_lcp(const lcp_index *ix, uint64_t j);

/* Top-k for one query of seq_len tokens (token_bytes each): numbers and
 * LCPs, best first; returns the count. Over documents, a query's tokens
 * from its first separator on match nothing. */
uint64_t lcp_index_topk(const lcp_index *ix, const void *query, uint64_t k, uint32_t *seq, uint32_t *lcp);
/* The same among the sequences sharing more than `above` tokens with the
 * query (above < 0: all): at most k, fewer when fewer share that much. */
uint64_t lcp_index_topk_above(const lcp_index *ix, const void *query, uint64_t k, int64_t above, uint32_t *seq,
                              uint32_t *lcp);

/* Several searches together: an index set's parts for one query, or one
 * part for several queries (docs/lcp-index.md, "Index sets").
 * lcp_index_places finds query[i]'s place in ix[i] for i < n (all of one
 * token width), each step of the searches (the directories, each level of
 * the deep walks, the block's arrays and token data, the block's scan)
 * over all n before the next, so that their waits on memory overlap;
 * lcp_index_topk_at then answers one from its place, as
 * lcp_index_topk_above would. Indexes over documents take no part in the
 * interleaving: lcp_index_topk_at searches them from the start. */
typedef struct lcp_index_place {
    uint64_t l;      /* the first sorted position not below the query */
    int64_t lq, rq;  /* the query's LCPs with the sequences before and at l, -1: not known */
} lcp_index_place;
void lcp_index_places(const lcp_index *const *ix, const void *const *query, uint32_t n, lcp_index_place *pl);
/* Sorted positions between two samples (the directory's): sample t is
 * sorted position t * LCP_INDEX_STEP. */
#define LCP_INDEX_STEP 32u
/* Where a query's place is known to be from outside (an index set's merged
 * directory, lcp_setdir): after sorted position at (which sorts below the
 * query; -1: none does, and the place is 0) and not after position at +
 * span (span at most LCP_INDEX_STEP, and the positions between them in one
 * block: at a multiple of span, span a power of two), with the
 * query's exact LCPs elo with position at (needed when at >= 0) and ehi
 * with position at + span (-1: not known). known false: not known, searched
 * from the directory. */
typedef struct lcp_index_bracket {
    bool known;
    int64_t at;
    uint32_t span;
    int64_t elo, ehi;
} lcp_index_bracket;
/* lcp_index_places where br (NULL: none) brackets some places: those skip
 * the directories and deep walks and start at their block's scan. */
void lcp_index_places_from(const lcp_index *const *ix, const void *const *query, uint32_t n,
                           const lcp_index_bracket *br, lcp_index_place *pl);
uint64_t lcp_index_topk_at(const lcp_index *ix, const void *query, const lcp_index_place *pl, uint64_t k,
                           int64_t above, uint32_t *seq, uint32_t *lcp);
/* dup[i] = 1 for each sequence sharing min_lcp leading tokens with a
 * smaller-numbered one; returns how many. */
uint64_t lcp_index_dedup(const lcp_index *ix, uint32_t min_lcp, uint8_t *dup);
/* The sorted positions [first, last) of the sequences starting with prefix. */
void lcp_index_prefix_range(const lcp_index *ix, const void *prefix, uint32_t plen, uint64_t *first, uint64_t *last);

/* The seq_len tokens of sequence i < n as the index compares them: for
 * windows, token_bytes each in the shard; for documents, uint32 packed
 * (a position past the document's end holds pad_base + i, above every
 * token). */
const void *lcp_index_seq(const lcp_index *ix, uint64_t i);
/* The checksum in the file's header (docs/lcp-index.md, "The file"). */
uint64_t lcp_index_checksum(const lcp_index *ix);

#endif
