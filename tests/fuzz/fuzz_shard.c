/* libFuzzer harness: the token-shard reader (llm.c format and raw 2- and
 * 4-byte tokens) on arbitrary file contents, then an index build and a few
 * queries for every input that reads as a shard. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "diag.h"
#include "lcp_index.h"
#include "lcp_shard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], idx[80];

static void once(void)
{
    if (path[0])
        return;
    snprintf(path, sizeof path, "/dev/shm/tfc-fuzz-shard-%ld.bin", (long)getpid());
    snprintf(idx, sizeof idx, "%s.idx", path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    once();
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    const char *paths[1] = {path};
    for (int mode = 0; mode < 3; mode++) {
        diag_list d;
        diag_init(&d, 4);
        lcp_shards sh;
        if (lcp_shards_open(paths, 1, mode > 0, mode == 2 ? 4 : 2, &sh, &d) == TFC_OK) {
            uint32_t seq_len = 1 + (size ? data[0] % 7 : 0);
            lcp_build_stats st;
            if (sh.s[0].n_tokens >= seq_len && sh.s[0].n_tokens < 20000 &&
                lcp_index_build(&sh, seq_len, 1 + (size > 1 ? data[1] % 3 : 0), idx, false, &d, &st) == TFC_OK) {
                lcp_index ix;
                if (lcp_index_open(idx, &sh, true, &ix, &d) == TFC_OK) {
                    (void)lcp_index_derive(&ix, idx, &d);
                    uint32_t seq[4], lcp[4];
                    uint8_t *dup = malloc(ix.n ? ix.n : 1);
                    lcp_index_topk(&ix, sh.s[0].tokens, 4, seq, lcp);
                    lcp_index_dedup(&ix, 1, dup);
                    free(dup);
                    lcp_index_close(&ix);
                }
                unlink(idx);
            }
            lcp_shards_close(&sh);
        }
        diag_free(&d);
    }
    return 0;
}
