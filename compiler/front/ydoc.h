/* ydoc: a YAML document read from libyaml's event stream into a small,
 * bounded tree with source positions.
 *
 * Limits are enforced while events arrive, so hostile input is refused before
 * it costs time or memory: nesting depth, node count (aliases counted as if
 * expanded, which stops "billion laughs"), scalar length. Aliases share the
 * anchored node (the tree is a DAG); an alias to an anchor that is still open
 * (a self-reference) is refused, so the tree never has a cycle. Duplicate and
 * non-scalar mapping keys are reported here, since libyaml reports neither. */
#ifndef TFC_YDOC_H
#define TFC_YDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"

typedef enum { YDOC_SCALAR, YDOC_SEQ, YDOC_MAP } ydoc_kind;

typedef struct ydoc_node ydoc_node;
struct ydoc_node {
    uint8_t kind;   /* ydoc_kind */
    uint8_t plain;  /* scalar written without quotes or block style, and untagged */
    uint8_t tagged; /* scalar with a tag (! or !!str: a string however written) */
    uint32_t line;  /* 1-based position of the node's first character */
    uint32_t col;
    uint32_t n;      /* scalar: bytes; sequence: items; mapping: pairs */
    uint32_t weight; /* nodes in the subtree, aliases expanded */
    union {
        const char *str;               /* scalar, NUL-terminated (may hold NULs) */
        const ydoc_node *const *items; /* sequence: n; mapping: key, value, key, ... */
    } u;
};

typedef struct ydoc_limits {
    uint32_t max_depth;
    uint32_t max_nodes;
    uint32_t max_scalar_bytes;
} ydoc_limits;

/* Parses buf[0..len), which must already be checked UTF-8 (see text.h).
 * file names the input in diagnostics. On success returns true and sets *root
 * (NULL for a stream with no document). On failure returns false with at
 * least one error in d. Nodes live in a. */
bool ydoc_parse(const char *file, const char *buf, size_t len, const ydoc_limits *lim, arena *a,
                diag_list *d, const ydoc_node **root);

/* Mapping access. */
static inline const ydoc_node *ydoc_key(const ydoc_node *map, size_t i) { return map->u.items[2 * i]; }
static inline const ydoc_node *ydoc_value(const ydoc_node *map, size_t i) { return map->u.items[2 * i + 1]; }
/* The value for a scalar key equal to key, or NULL. Keys are unique (ydoc_parse refuses duplicates). */
const ydoc_node *ydoc_get(const ydoc_node *map, const char *key);

/* Scalar resolution, YAML 1.2 core schema for plain scalars: null (~, null,
 * empty), bool (true/false in three casings), int (decimal with optional
 * sign and '_' between digits, 0x hex, 0o octal), float (decimal/exponent,
 * .inf, .nan). Non-plain scalars are strings. */
typedef enum { YDOC_NULL, YDOC_BOOL, YDOC_INT, YDOC_FLOAT, YDOC_STR } ydoc_type;
ydoc_type ydoc_scalar_type(const ydoc_node *n);
const char *ydoc_type_name(ydoc_type t);
/* For a node of type YDOC_INT: *neg and the magnitude. Returns false when the
 * magnitude does not fit in 64 bits. */
bool ydoc_scalar_int(const ydoc_node *n, bool *neg, uint64_t *mag);
/* For YDOC_INT or YDOC_FLOAT. Returns false when the value overflows or
 * underflows a double (1e400, 1e-400); .inf and .nan are returned as such. */
bool ydoc_scalar_float(const ydoc_node *n, double *v);
/* For YDOC_BOOL. */
bool ydoc_scalar_bool(const ydoc_node *n);

#endif
