/* lcp_setdir: an index set's merged directory (docs/lcp-index.md, "Index
 * sets at scale"). Every part's sorted positions 0, step, 2 step, ... (its
 * entries) merged into one sorted list and searched as an index of its
 * own: a query's search over the set is then one search over all the
 * entries, and each part's place is a scan of the step - 1 positions
 * between its two entries around the query (lcp_index_places_from), not a
 * directory search, a deep walk and a block's scan in every part. Derived
 * when a set is opened for queries; answers are the same with it or
 * without. */
#ifndef TFC_LCP_SETDIR_H
#define TFC_LCP_SETDIR_H

#include <stdbool.h>
#include <stdint.h>

#include "lcp_index.h"
#include "lcp_shard.h"

/* Every step-th sorted position of each part, by default: the memory and
 * the latency it buys are measured in docs/lcp-index.md (0.68 bytes per
 * sequence at 16 on the 40M bench). A power of two up to LCP_INDEX_STEP. */
#define LCP_SETDIR_STEP 16u
/* Parts a merged directory takes at most (a query's brackets are on the
 * stack); a set of more parts searches every part (the same answers). */
#define LCP_SETDIR_MAX_PARTS 64u
/* Entries a query's brackets look at on each side of its place: a part
 * with no entry that near below the place (and whose entry 0 is not that
 * near above it) is searched on its own. */
#define LCP_SETDIR_SCAN 1024u

typedef struct lcp_setdir {
    lcp_index ix;        /* the entries as an index: perm their global numbers, lcp their adjacent LCPs */
    lcp_shards sh;       /* every part's shards in order (ix's data; only the count is read) */
    uint32_t *perm;      /* ix.perm and ix.lcp */
    void *lcp;
    uint32_t *ref;       /* per entry: its position in its part / step << part_bits | its part */
    size_t arrays_len;   /* the mapping holding perm, lcp and ref */
    uint32_t step, part_bits, n_parts, live; /* live: parts holding sequences */
    uint64_t empty;                          /* bit p: part p holds none */
    uint64_t bytes;                          /* in memory: the arrays and ix's derived ones */
} lcp_setdir;

/* Merges every step-th sorted position (a power of two up to
 * LCP_INDEX_STEP) of parts[0..n) (their sequences numbered from first[p] on,
 * ascending) into m. False, m empty, where a merged directory does not
 * apply (documents, fewer than 2 or more than LCP_SETDIR_MAX_PARTS parts,
 * 2^32 - 1 sequences or more, a part without its search arrays, another
 * step, a part of more than 2^(32 - bits for the part count) entries) or
 * memory is short. */
bool lcp_setdir_build(lcp_setdir *m, const lcp_index *const *parts, const uint64_t *first, uint32_t n,
                      uint32_t step);
void lcp_setdir_free(lcp_setdir *m);

/* The query's bracket in each of the n_parts parts (br[p].known false
 * where the directory cannot tell: that part is searched on its own). */
void lcp_setdir_brackets(const lcp_setdir *m, const void *query, lcp_index_bracket *br);

#endif
