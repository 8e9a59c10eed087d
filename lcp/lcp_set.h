/* lcp_set: several LCP indexes answered as one (docs/lcp-index.md,
 * "Index sets"). A set file (JSON) names part indexes and their shards by
 * paths relative to its folder; part p's sequences are numbered after
 * parts 0..p-1's, and every answer is exactly what one index over all the
 * shards, in the set's order, would give. */
#ifndef TFC_LCP_SET_H
#define TFC_LCP_SET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "lcp_index.h"
#include "lcp_setdir.h"
#include "lcp_shard.h"

#define LCP_SET_FORMAT "tfc-lcp-set"
#define LCP_SET_VERSION 1u
#define LCP_SET_MAX_PARTS 4096u
#define LCP_SET_MAX_BYTES (16u << 20) /* the set file itself */

typedef struct lcp_set_part {
    const char *index_path;   /* as opened: the set's folder joined with the written path */
    const char **shard_paths;
    uint32_t n_shards;
    uint64_t first, n;        /* its sequences' numbers: [first, first + n) */
    lcp_shards sh;
    lcp_index ix;
    bool open;
} lcp_set_part;

typedef struct lcp_set {
    uint32_t token_bytes, seq_len, stride; /* stride: windows (seq_len for documents) */
    bool raw, docs;
    uint32_t doc_sep;
    uint64_t n; /* sequences in all */
    uint32_t n_parts;
    lcp_set_part *parts;
    lcp_setdir *dir; /* the parts' samples merged (lcp_setdir.h): opened for queries, NULL where it does not apply */
    arena a;
} lcp_set;

/* One part of a set being written: an index and the shards it was built
 * from, as the command line names them. */
typedef struct lcp_set_input {
    const char *index;
    const char *const *shards;
    uint32_t n_shards;
} lcp_set_input;

/* Opens every part and its shards, checks them against each other and the
 * set (docs/lcp-index.md lists the checks), and writes the set file at path
 * (atomically): paths relative to its folder, spelt as given where that
 * reaches the file (docs/lcp-index.md, "Index sets"). TFC_IO for files
 * that cannot be read or written, TFC_INVALID for mismatches. */
tfc_status lcp_set_write(const char *path, const lcp_set_input *parts, uint32_t n_parts, bool raw, uint32_t token_bytes,
                         bool verify, diag_list *d);
/* Reads the set at path and opens every part (derive: with the search
 * arrays, for queries). A missing part or shard is TFC_IO; anything that
 * does not match (format, sizes, fingerprints, checksums, a part listed
 * twice or naming the set) is TFC_INVALID. Whatever it returns, call
 * lcp_set_close, after printing d: its errors name paths s holds. */
tfc_status lcp_set_open(const char *path, bool verify, bool derive, lcp_set *s, diag_list *d);
/* The same with only part `part` opened and checked (a process that
 * answers for one part): the others are taken as the set file says, so
 * only lcp_set_close and that part's index may be used. */
tfc_status lcp_set_open_part(const char *path, uint32_t part, bool verify, bool derive, lcp_set *s, diag_list *d);
void lcp_set_close(lcp_set *s);
/* Replaces the set's merged directory (lcp_setdir.h; lcp_set_open derives
 * one every LCP_SETDIR_STEP positions) with one every step-th sorted
 * position of each part, a power of two up to 32: a smaller step costs more
 * memory and set-up time and answers a top-k sooner (docs/lcp-index.md,
 * "Index sets at scale"). 0: none, the parts searched one by one (true).
 * False where the step does not apply (lcp_setdir_build) or memory is
 * short: the set keeps the directory it had, if any (with a set of fewer
 * than 2 or more than LCP_SETDIR_MAX_PARTS parts it has none). The answers
 * are the same with any directory or none. */
bool lcp_set_directory(lcp_set *s, uint32_t step);

/* Scratch for lcp_set_topk, for k results. */
typedef struct lcp_set_work {
    uint64_t k;
    uint32_t *pseq, *plcp; /* one part's answer */
    uint64_t *gseq;        /* its global numbers */
    uint64_t *mseq;        /* the merge */
    uint32_t *mlcp;
} lcp_set_work;
bool lcp_set_work_init(lcp_set_work *w, uint64_t k);
void lcp_set_work_free(lcp_set_work *w);

/* Top-k over the whole set for one query of seq_len tokens: each part's
 * exact top-k merged by (LCP descending, number ascending); once k are
 * held, a part is asked only for the sequences sharing more tokens than
 * the k-th; the parts are searched together (lcp_index_places). Returns
 * the count (min(k, n)); numbers are global. */
uint64_t lcp_set_topk(const lcp_set *s, const void *query, lcp_set_work *w, uint64_t *seq, uint32_t *lcp);
/* The same for nq queries of seq_len tokens each, contiguous: query i's
 * answer at [i * c, (i + 1) * c), c = min(k, n), returned. The same answers
 * as one lcp_set_topk per query: with the merged directory, query by query
 * (each one search over it); without, part by part over all the queries,
 * several searched together (a part's search arrays stay in cache, and the
 * searches' waits on memory overlap: more queries per second). */
uint64_t lcp_set_topk_batch(const lcp_set *s, const void *queries, uint64_t nq, lcp_set_work *w, uint64_t *seq,
                            uint32_t *lcp);
/* Calls emit(ctx, number) for every sequence sharing min_lcp leading tokens
 * with a smaller-numbered one, in ascending order; returns how many, or
 * UINT64_MAX when out of memory (filed in d). */
uint64_t lcp_set_dedup(const lcp_set *s, uint32_t min_lcp, void (*emit)(void *ctx, uint64_t number), void *ctx,
                       diag_list *d);
/* The sorted permutation of the whole set, written to f as little-endian
 * uint32 numbers, or uint64 when the set holds 2^32 sequences or more.
 * TFC_IO on a write error (filed at path), TFC_NOMEM. */
tfc_status lcp_set_order(const lcp_set *s, FILE *f, const char *path, diag_list *d);
/* The same order as numbers, each passed to emit (false stops: TFC_IO). */
tfc_status lcp_set_order_each(const lcp_set *s, bool (*emit)(void *ctx, uint64_t number), void *ctx, diag_list *d);

#endif
