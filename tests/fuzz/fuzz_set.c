/* libFuzzer harness: the index-set reader and the merged queries on
 * whatever it accepts. The input is a set file placed in a folder that
 * holds one small shard (s0.bin, 600 tokens) and its index (p0.idx,
 * seq_len 4), the files the seed sets (tests/fuzz/run.sh) name, so
 * mutations reach past the JSON to the checks and the answers; opened
 * without and with the checksums; then each of the first two parts
 * opened alone, with the searches a rank answers for other parts. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "lcp_index.h"
#include "lcp_merge.h"
#include "lcp_set.h"
#include "lcp_shard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], set_path[96];
static uint16_t tok[600];
static int ready;

static void once(void)
{
    if (ready)
        return;
    ready = 1;
    snprintf(dir, sizeof dir, "/dev/shm/tfc-fuzz-set-%ld", (long)getpid());
    mkdir(dir, 0700);
    char shard[96], idx[96];
    snprintf(shard, sizeof shard, "%s/s0.bin", dir);
    snprintf(idx, sizeof idx, "%s/p0.idx", dir);
    snprintf(set_path, sizeof set_path, "%s/in.set", dir);
    FILE *f = fopen(shard, "wb");
    int32_t h[256] = {20240520, 1, 600};
    fwrite(h, sizeof h, 1, f);
    for (int i = 0; i < 600; i++)
        tok[i] = (uint16_t)((i * 7) % 5 + (i % 37 == 0 ? 100 : 0));
    fwrite(tok, 2, 600, f);
    fclose(f);
    diag_list d;
    diag_init(&d, 4);
    const char *paths[1] = {shard};
    lcp_shards sh;
    lcp_build_stats bs;
    if (lcp_shards_open(paths, 1, false, 2, &sh, &d) != TFC_OK || lcp_index_build(&sh, 4, 4, idx, false, &d, &bs) != TFC_OK)
        abort();
    lcp_shards_close(&sh);
    diag_free(&d);
}

static void sink(void *ctx, uint64_t number)
{
    *(uint64_t *)ctx += number;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    once();
    FILE *f = fopen(set_path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    for (int verify = 0; verify < 2; verify++) {
        diag_list d;
        diag_init(&d, 4);
        lcp_set s;
        if (lcp_set_open(set_path, verify, verify, &s, &d) == TFC_OK) {
            lcp_set_work w;
            uint64_t seq[8];
            uint32_t lcp[8];
            if (lcp_set_work_init(&w, 8)) {
                for (int q = 0; q < 3 && s.seq_len <= 64; q++)
                    lcp_set_topk(&s, tok + q * 13, &w, seq, lcp);
                lcp_set_work_free(&w);
            }
            uint64_t sum = 0;
            lcp_set_dedup(&s, 2, sink, &sum, &d);
            FILE *null = fopen("/dev/null", "wb");
            if (null) {
                lcp_set_order(&s, null, "/dev/null", &d);
                fclose(null);
            }
        }
        diag_free(&d);
        lcp_set_close(&s);
    }
    /* One part alone (a process answering for it), and what it answers
     * for other parts' sequences. */
    for (uint32_t part = 0; part < 2; part++) {
        diag_list d;
        diag_init(&d, 4);
        lcp_set s;
        if (lcp_set_open_part(set_path, part, false, true, &s, &d) == TFC_OK && s.seq_len <= 64) {
            const lcp_index *ix = &s.parts[part].ix;
            uint32_t t[64];
            for (uint64_t i = 0; i < ix->n && i < 3; i++) {
                lcp_seq_canon(ix, i, ix->seq_len, t);
                lcp_index_count_before(ix, s.parts[part].first, t, s.parts[part].first + i);
                lcp_index_has_prefix(ix, t, ix->seq_len / 2);
            }
        }
        diag_free(&d);
        lcp_set_close(&s);
    }
    return 0;
}
