/* sha256: SHA-256 (FIPS 180-4), for the MANIFEST of generated folders and
 * the spec's fingerprint. */
#ifndef TFC_SHA256_H
#define TFC_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t fill;
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t len);
void sha256_final(sha256_ctx *c, unsigned char digest[32]);
/* sha256_final, the digest as 64 lowercase hex digits and a NUL. */
void sha256_final_hex(sha256_ctx *c, char hex[65]);
/* The digest of one buffer as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif
