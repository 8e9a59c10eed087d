/* libFuzzer harness: the index-file loader and the queries on whatever it
 * accepts. The input is an index file for a fixed small shard; the harness
 * writes the shard's true table entry over the input's (when there is room)
 * so that mutations reach past the shard check to the permutation and LCP
 * checks and the queries, and opens it without the checksum (the path
 * --no-verify takes), then with it. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "lcp_index.h"
#include "lcp_shard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char shard_path[64], idx_path[80];
static lcp_shards sh;
static int ready;

static void once(void)
{
    if (ready)
        return;
    ready = 1;
    snprintf(shard_path, sizeof shard_path, "/dev/shm/tfc-fuzz-index-%ld.bin", (long)getpid());
    snprintf(idx_path, sizeof idx_path, "%s.idx", shard_path);
    FILE *f = fopen(shard_path, "wb");
    int32_t h[256] = {20240520, 1, 600};
    fwrite(h, sizeof h, 1, f);
    for (int i = 0; i < 600; i++) {
        uint16_t t = (uint16_t)((i * 7) % 5 + (i % 37 == 0 ? 100 : 0));
        fwrite(&t, 2, 1, f);
    }
    fclose(f);
    diag_list d;
    diag_init(&d, 4);
    const char *paths[1] = {shard_path};
    if (lcp_shards_open(paths, 1, false, 2, &sh, &d) != TFC_OK)
        abort();
    diag_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    once();
    uint8_t *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    if (size >= LCP_INDEX_HEADER_BYTES + LCP_INDEX_SHARD_BYTES) {
        uint64_t v[3] = {sh.s[0].file_size, sh.s[0].n_tokens, sh.s[0].fingerprint};
        for (int k = 0; k < 3; k++)
            for (int b = 0; b < 8; b++)
                buf[LCP_INDEX_HEADER_BYTES + 8 * k + b] = (uint8_t)(v[k] >> (8 * b));
    }
    FILE *f = fopen(idx_path, "wb");
    if (f) {
        fwrite(buf, 1, size, f);
        fclose(f);
        for (int verify = 0; verify < 2; verify++) {
            diag_list d;
            diag_init(&d, 4);
            lcp_index ix;
            if (lcp_index_open(idx_path, &sh, verify, &ix, &d) == TFC_OK) {
                if (!verify) /* with the derived search arrays once, without once */
                    (void)lcp_index_derive(&ix, idx_path, &d);
                uint32_t seq[8], lcp[8];
                const uint16_t *tok = sh.s[0].tokens;
                for (int q = 0; q < 3; q++)
                    lcp_index_topk(&ix, tok + q * 13, 8, seq, lcp);
                uint8_t *dup = malloc(ix.n ? ix.n : 1);
                lcp_index_dedup(&ix, 2, dup);
                free(dup);
                uint64_t a, b;
                lcp_index_prefix_range(&ix, tok, ix.seq_len < 3 ? ix.seq_len : 3, &a, &b);
                lcp_index_close(&ix);
            }
            diag_free(&d);
        }
    }
    free(buf);
    return 0;
}
