/* arena: bump allocation in chunks; large requests get a chunk of their own. */
#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ARENA_CHUNK = 64 * 1024 };

struct arena_chunk {
    arena_chunk *next;
    size_t cap;
    size_t used;
    alignas(max_align_t) unsigned char data[];
};

void arena_init(arena *a, size_t limit_bytes)
{
    a->head = NULL;
    a->used_bytes = 0;
    a->limit_bytes = limit_bytes;
}

void arena_free(arena *a)
{
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
    a->used_bytes = 0;
}

/* The offset in c where a request of size bytes at align would start, or
 * SIZE_MAX when it does not fit. */
static size_t fit(const arena_chunk *c, size_t size, size_t align)
{
    size_t off = (c->used + align - 1) & ~(align - 1);
    if (off > c->cap || c->cap - off < size)
        return SIZE_MAX;
    return off;
}

/* align is a power of two no larger than alignof(max_align_t). */
static void *alloc_aligned(arena *a, size_t size, size_t align)
{
    if (size == 0)
        size = 1;
    arena_chunk *c = a->head;
    size_t off = c ? fit(c, size, align) : SIZE_MAX;
    if (off == SIZE_MAX) {
        size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        if (cap > SIZE_MAX - sizeof(arena_chunk))
            return NULL;
        if (a->limit_bytes && (cap > a->limit_bytes || a->used_bytes > a->limit_bytes - cap))
            return NULL;
        arena_chunk *n = malloc(sizeof(arena_chunk) + cap);
        if (!n)
            return NULL;
        n->cap = cap;
        n->used = 0;
        a->used_bytes += cap;
        if (c && size > ARENA_CHUNK) {
            /* Keep filling the current small chunk; hang the big one behind it. */
            n->next = c->next;
            c->next = n;
        } else {
            n->next = c;
            a->head = n;
        }
        c = n;
        off = 0;
    }
    void *p = c->data + off;
    c->used = off + size;
    memset(p, 0, size);
    return p;
}

void *arena_alloc(arena *a, size_t size) { return alloc_aligned(a, size, alignof(max_align_t)); }

void *arena_alloc_array(arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return arena_alloc(a, n * size);
}

char *arena_strndup(arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = alloc_aligned(a, len + 1, 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
