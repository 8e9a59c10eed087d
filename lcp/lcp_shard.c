/* lcp_shard: mmap, header checks, fingerprints. */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include "lcp_shard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fio.h"
#include "sha256.h"

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t fingerprint(const unsigned char *p, uint64_t size)
{
    sha256_ctx c;
    sha256_init(&c);
    unsigned char sz[8];
    for (int i = 0; i < 8; i++)
        sz[i] = (unsigned char)(size >> (8 * i));
    sha256_update(&c, sz, 8);
    for (uint64_t k = 0; k < 16 && size; k++) {
        uint64_t off = size <= 4096 ? 0 : (size - 4096) / 15 * k;
        uint64_t len = size - off < 4096 ? size - off : 4096;
        sha256_update(&c, p + off, (size_t)len);
    }
    unsigned char dg[32];
    sha256_final(&c, dg);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)dg[i] << (8 * i);
    return v;
}

/* The token width of an llm.c header at p (file of size bytes) whose
 * token count fits the file, else 0. */
static uint32_t header_width(const unsigned char *p, uint64_t size)
{
    if (size < LCP_SHARD_HEADER_BYTES)
        return 0;
    uint32_t tb = le32(p) == LCP_SHARD_MAGIC && le32(p + 4) == 1          ? 2
                  : le32(p) == LCP_SHARD_MAGIC_U32 && le32(p + 4) == 7 ? 4
                                                                         : 0;
    return tb && (uint64_t)le32(p + 8) * tb == size - LCP_SHARD_HEADER_BYTES ? tb : 0;
}

/* Maps the file; token_bytes is the raw width, or 0 for llm.c's formats
 * (then set from the header). */
static tfc_status open_one(const char *path, bool raw, uint32_t *token_bytes, lcp_shard *s, diag_list *d)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    int fd = fio_open_regular(path, "shard", d);
    if (fd < 0)
        return TFC_IO;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        diag_error(d, path, 0, 0, "cannot stat the shard: %s", strerror(errno));
        close(fd);
        return TFC_IO;
    }
    s->file_size = (uint64_t)st.st_size;
    if (s->file_size) {
        s->map = mmap(NULL, (size_t)s->file_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (s->map == MAP_FAILED) {
            s->map = NULL;
            int err = errno;
            close(fd);
            /* No address space left for the mapping: out of memory, not a
             * problem with the file. */
            if (err == ENOMEM)
                return diag_nomem(d, "mapping the shard %s (%llu bytes)", path, (unsigned long long)s->file_size);
            diag_error(d, path, 0, 0, "cannot map the shard: %s", strerror(err));
            return TFC_IO;
        }
    }
    close(fd);
    const unsigned char *p = s->map;
    uint32_t hw = header_width(p, s->file_size);
    if (raw) {
        if (hw) {
            diag_error(d, path, 0, 0,
                       "starts with an llm.c shard header (magic %u, version %u, uint%u tokens): read it without "
                       "--raw, or the header is read as %u tokens",
                       le32(p), le32(p + 4), 8 * hw, LCP_SHARD_HEADER_BYTES / *token_bytes);
            return TFC_INVALID;
        }
        if (s->file_size % *token_bytes) {
            diag_error(d, path, 0, 0, "raw shard of %llu bytes is not a whole number of %u-byte tokens",
                       (unsigned long long)s->file_size, *token_bytes);
            return TFC_INVALID;
        }
        s->tokens = p;
        s->n_tokens = s->file_size / *token_bytes;
    } else {
        if (s->file_size < LCP_SHARD_HEADER_BYTES) {
            diag_error(d, path, 0, 0, "truncated: %llu bytes, shorter than the %u-byte shard header",
                       (unsigned long long)s->file_size, LCP_SHARD_HEADER_BYTES);
            return TFC_INVALID;
        }
        uint32_t magic = le32(p), version = le32(p + 4);
        if (magic != LCP_SHARD_MAGIC && magic != LCP_SHARD_MAGIC_U32) {
            diag_error(d, path, 0, 0,
                       "not a token shard: magic %u, expected %u (uint16 tokens) or %u (uint32 tokens); use --raw "
                       "--token-bytes 2|4 for headerless files",
                       magic, LCP_SHARD_MAGIC, LCP_SHARD_MAGIC_U32);
            return TFC_INVALID;
        }
        uint32_t want = magic == LCP_SHARD_MAGIC ? 1 : 7, tb = magic == LCP_SHARD_MAGIC ? 2 : 4;
        if (version != want) {
            diag_error(d, path, 0, 0, "shard format version %u with magic %u; tfc reads version %u (uint%u tokens)",
                       version, magic, want, 8 * tb);
            return TFC_INVALID;
        }
        uint64_t count = le32(p + 8);
        uint64_t bytes = s->file_size - LCP_SHARD_HEADER_BYTES;
        if (count * tb != bytes) {
            diag_error(d, path, 0, 0, "header says %llu tokens (%llu bytes) but the file holds %llu bytes of tokens",
                       (unsigned long long)count, (unsigned long long)(count * tb), (unsigned long long)bytes);
            return TFC_INVALID;
        }
        if (*token_bytes && *token_bytes != tb) {
            diag_error(d, path, 0, 0, "uint%u tokens (magic %u), but an earlier shard has uint%u: one index reads "
                       "one token width", 8 * tb, magic, 8 * *token_bytes);
            return TFC_INVALID;
        }
        *token_bytes = tb;
        s->tokens = p + LCP_SHARD_HEADER_BYTES;
        s->n_tokens = count;
    }
    s->fingerprint = fingerprint(p, s->file_size);
    return TFC_OK;
}

tfc_status lcp_shards_open(const char *const *paths, uint32_t n, bool raw, uint32_t token_bytes, lcp_shards *out,
                            diag_list *d)
{
    memset(out, 0, sizeof *out);
    out->token_bytes = raw ? token_bytes : 0;
    out->s = calloc(n ? n : 1, sizeof *out->s);
    if (!out->s) {
        return diag_nomem(d, "opening the shards");
    }
    tfc_status worst = TFC_OK;
    for (uint32_t i = 0; i < n; i++) {
        tfc_status st = open_one(paths[i], raw, &out->token_bytes, &out->s[i], d);
        out->n = i + 1;
        if (st == TFC_IO || (st != TFC_OK && worst == TFC_OK))
            worst = st;
    }
    if (!out->token_bytes)
        out->token_bytes = 2; /* no shard read: the width of an empty set */
    if (worst != TFC_OK)
        lcp_shards_close(out);
    return worst;
}

void lcp_shards_close(lcp_shards *sh)
{
    for (uint32_t i = 0; i < sh->n; i++)
        if (sh->s[i].map)
            munmap(sh->s[i].map, (size_t)sh->s[i].file_size);
    free(sh->s);
    memset(sh, 0, sizeof *sh);
}
