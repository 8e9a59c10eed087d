/* text: byte-level helpers shared by the front-end: UTF-8 checking, byte
 * offset to line:column, quoting user text for messages, spelling hints. */
#ifndef TFC_TEXT_H
#define TFC_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Checks that buf is UTF-8 whose every code point YAML allows in a stream
 * (tab, line breaks, printable; no NUL, no other C0/C1 controls, no DEL, no
 * U+FFFE/U+FFFF). Returns true if so; otherwise sets *bad to the offset of the
 * first offending byte and *why to a static description. */
bool text_check_yaml_chars(const char *buf, size_t len, size_t *bad, const char **why);

/* 1-based line and column (in code points) of byte offset off, counting line
 * breaks as libyaml does: LF, CR LF, lone CR, NEL, LS, PS. */
void text_position(const char *buf, size_t len, size_t off, unsigned *line, unsigned *col);

/* Writes s[0..len) as a double-quoted, escaped string into out (always
 * NUL-terminated). Long text is cut at a code point boundary and the cut is
 * said: "abc..." (+N bytes). Returns out. */
char *text_quote(char *out, size_t cap, const char *s, size_t len);
enum { TEXT_QUOTE_CAP = 160 };

/* Levenshtein distance, capped: returns limit+1 as soon as it exceeds limit. */
size_t text_edit_distance(const char *a, size_t alen, const char *b, size_t blen, size_t limit);

/* The candidate closest to word (case-insensitive edit distance small enough
 * to be a plausible typo), or NULL. candidates ends with NULL. */
const char *text_nearest(const char *word, size_t len, const char *const *candidates);

/* Duplicate detection in n log n: sorts refs by (bytes, index) and calls
 * report(first, dup, ctx) for every entry equal to an earlier one, with the
 * earliest as first. Stops early when report returns false. */
typedef struct text_ref {
    const char *s;
    size_t len;
    size_t index; /* the caller's position of s; ties keep this order */
} text_ref;
void text_report_duplicates(text_ref *refs, size_t n,
                            bool (*report)(const text_ref *first, const text_ref *dup, void *ctx), void *ctx);

/* [A-Za-z_][A-Za-z0-9_]* */
bool text_is_c_identifier(const char *s, size_t len);

/* True if s[0..len) contains a C0/C1 control character or DEL (embedded NUL
 * included) or is not valid UTF-8. */
bool text_has_control(const char *s, size_t len);

#endif
