/* arena: one bump allocator per compilation, freed in one call.
 * Every allocation can fail; callers check for NULL and report it. */
#ifndef TFC_ARENA_H
#define TFC_ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;

typedef struct arena {
    arena_chunk *head;
    size_t used_bytes;  /* all chunk bytes allocated so far */
    size_t limit_bytes; /* 0 = no limit; otherwise allocations past it fail */
} arena;

void arena_init(arena *a, size_t limit_bytes);
void arena_free(arena *a);
/* Zeroed, max-aligned memory, or NULL when out of memory or past the limit. */
void *arena_alloc(arena *a, size_t size);
/* n * size with overflow check. */
void *arena_alloc_array(arena *a, size_t n, size_t size);
/* A NUL-terminated copy of s[0..len). */
char *arena_strndup(arena *a, const char *s, size_t len);

#endif
