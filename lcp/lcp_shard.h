/* lcp_shard: token shards, memory-mapped read-only: llm.c's formats (256
 * int32 header: magic, version, token count; GPT-2's magic 20240520,
 * version 1, uint16 tokens; LLaMA-3's magic 20240801, version 7, uint32
 * tokens) or raw little-endian tokens of 2 or 4 bytes. */
#ifndef TFC_LCP_SHARD_H
#define TFC_LCP_SHARD_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "status.h"

#define LCP_SHARD_MAGIC 20240520     /* version 1: uint16 tokens (GPT-2) */
#define LCP_SHARD_MAGIC_U32 20240801 /* version 7: uint32 tokens (LLaMA-3) */
#define LCP_SHARD_HEADER_BYTES 1024u

typedef struct lcp_shard {
    const char *path;
    void *map;
    uint64_t file_size;
    const void *tokens; /* token_bytes each */
    uint64_t n_tokens;
    uint64_t fingerprint; /* sha256 of the size and 16 sampled 4 KiB blocks (first 8 bytes) */
} lcp_shard;

typedef struct lcp_shards {
    lcp_shard *s;
    uint32_t n;
    uint32_t token_bytes;
} lcp_shards;

/* Opens and checks every shard (llm.c format unless raw: the token width
 * from the magic, the same in every shard; raw needs token_bytes 2 or 4,
 * ignored otherwise). Problems are errors at the shard's path: missing or
 * unreadable (TFC_IO), wrong magic or version, a header whose token count
 * does not match the file's size, shards of different widths, a raw file
 * whose size is not a whole number of tokens or that starts with an llm.c
 * header (TFC_INVALID). Paths must outlive out and d. */
tfc_status lcp_shards_open(const char *const *paths, uint32_t n, bool raw, uint32_t token_bytes, lcp_shards *out,
                            diag_list *d);
void lcp_shards_close(lcp_shards *sh);

#endif
