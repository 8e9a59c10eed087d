/* json_read: a JSON document as a tree in an arena, for the files tfc reads
 * back (plan.json for tfc diff and tfc verify, index sets). RFC 8259 with
 * limits: nesting at most JSON_MAX_DEPTH, a key twice in one object is an
 * error, numbers as doubles, no \u0000 in a string (strings are read as C
 * strings); every error is filed at its line and column. */
#ifndef TFC_JSON_READ_H
#define TFC_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "diag.h"
#include "status.h"

#define JSON_MAX_DEPTH 64

typedef enum jv_kind { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_kind;

typedef struct jv {
    jv_kind kind;
    bool b;
    double num;
    const char *str;   /* JV_STR: decoded, NUL-terminated (\u0000 is refused, at its line and column) */
    size_t n;          /* JV_ARR, JV_OBJ: entries */
    struct jv *items;  /* their values */
    const char **keys; /* JV_OBJ: their keys */
    size_t off;        /* where it starts in the text (text_position gives line:col) */
} jv;

/* Parses text[0..len) (path names it in errors). TFC_INVALID with the
 * first problem filed at its position, TFC_NOMEM, or TFC_OK with *out. A
 * key twice in one object is an error unless allow_duplicates (for a
 * format that had one: plan.json format 1's "stages"). */
tfc_status json_parse(const char *text, size_t len, const char *path, bool allow_duplicates, arena *a, diag_list *d,
                      jv **out);

/* The first value of key in obj (NULL when obj is not an object or lacks
 * it); jv_get_kind, the first of that kind. */
const jv *jv_get(const jv *obj, const char *key);
const jv *jv_get_kind(const jv *obj, const char *key, jv_kind kind);

/* Whether a and b, parsed from the texts ta and tb, are the same value:
 * kinds, strings, arrays in order, objects key by key in order (NULL
 * equals only NULL); numbers as doubles, but two written as integers by
 * their digits (a seed or a numel past 2^53 is not a double's). */
bool jv_equal(const jv *a, const char *ta, const jv *b, const char *tb);

#endif
