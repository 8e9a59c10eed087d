/* text: byte-level helpers; no allocation, no locale. */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decodes one UTF-8 sequence at s (n bytes available). Returns its length and
 * the code point, or 0 when the bytes are not well-formed UTF-8 (overlong
 * forms, surrogates and values past U+10FFFF included). */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if ((c & 0xE0) == 0xC0) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static bool is_control(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

bool text_check_yaml_chars(const char *buf, size_t len, size_t *bad, const char **why)
{
    const unsigned char *s = (const unsigned char *)buf;
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        size_t k = utf8_decode(s + i, len - i, &cp);
        if (k == 0) {
            *bad = i;
            *why = "invalid UTF-8 byte sequence";
            return false;
        }
        if (cp == 0) {
            *bad = i;
            *why = "NUL byte";
            return false;
        }
        if (is_control(cp) && cp != '\t' && cp != '\n' && cp != '\r' && cp != 0x85) {
            *bad = i;
            *why = "control character";
            return false;
        }
        if (cp == 0xFFFE || cp == 0xFFFF) {
            *bad = i;
            *why = "non-character U+FFFE/U+FFFF";
            return false;
        }
        i += k;
    }
    return true;
}

void text_position(const char *buf, size_t len, size_t off, unsigned *line, unsigned *col)
{
    const unsigned char *s = (const unsigned char *)buf;
    unsigned l = 1, c = 1;
    if (off > len)
        off = len;
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 && off >= 3)
        i = 3; /* libyaml skips a byte order mark; so do its columns */
    while (i < off) {
        uint32_t cp;
        size_t k = utf8_decode(s + i, len - i, &cp);
        if (k == 0) {
            k = 1;
            cp = 0xFFFD;
        }
        if (cp == '\r' && i + 1 < len && s[i + 1] == '\n') {
            /* CR LF is one break; an offset pointing at the LF stays on the line. */
            if (i + 1 >= off) {
                c++;
                break;
            }
            k = 2;
            cp = '\n';
        }
        if (cp == '\n' || cp == '\r' || cp == 0x85 || cp == 0x2028 || cp == 0x2029) {
            l++;
            c = 1;
        } else {
            c++;
        }
        i += k;
    }
    *line = l;
    *col = c;
}

char *text_quote(char *out, size_t cap, const char *s, size_t len)
{
    /* Room for the closing quote, a cut marker and the NUL. */
    const size_t reserve = 32;
    size_t o = 0;
    if (cap < reserve + 8) {
        if (cap)
            out[0] = '\0';
        return out;
    }
    const unsigned char *u = (const unsigned char *)s;
    out[o++] = '"';
    size_t i = 0;
    while (i < len) {
        char tmp[8];
        size_t tl;
        uint32_t cp;
        size_t k = utf8_decode(u + i, len - i, &cp);
        if (k == 0) {
            tl = (size_t)snprintf(tmp, sizeof tmp, "\\x%02X", u[i]);
            k = 1;
        } else if (cp == '"' || cp == '\\') {
            tmp[0] = '\\', tmp[1] = (char)cp, tl = 2;
        } else if (cp == '\n') {
            memcpy(tmp, "\\n", 2), tl = 2;
        } else if (cp == '\t') {
            memcpy(tmp, "\\t", 2), tl = 2;
        } else if (is_control(cp)) {
            tl = (size_t)snprintf(tmp, sizeof tmp, "\\u%04X", (unsigned)cp);
        } else {
            memcpy(tmp, u + i, k), tl = k;
        }
        if (o + tl > cap - reserve)
            break;
        memcpy(out + o, tmp, tl);
        o += tl;
        i += k;
    }
    out[o++] = '"';
    if (i < len)
        snprintf(out + o, cap - o, "... (+%zu bytes)", len - i);
    else
        out[o] = '\0';
    return out;
}

static unsigned char lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c; }

size_t text_edit_distance(const char *a, size_t alen, const char *b, size_t blen, size_t limit)
{
    enum { MAXW = 64 };
    if (alen > MAXW || blen > MAXW)
        return limit + 1;
    size_t diff = alen > blen ? alen - blen : blen - alen;
    if (diff > limit)
        return limit + 1;
    size_t row[MAXW + 1];
    for (size_t j = 0; j <= blen; j++)
        row[j] = j;
    for (size_t i = 1; i <= alen; i++) {
        size_t diag_prev = row[0], best = i;
        row[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t up = row[j];
            size_t cost = lower((unsigned char)a[i - 1]) == lower((unsigned char)b[j - 1]) ? 0 : 1;
            size_t v = diag_prev + cost;
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag_prev = up;
            if (v < best)
                best = v;
        }
        if (best > limit)
            return limit + 1;
    }
    return row[blen] > limit ? limit + 1 : row[blen];
}

const char *text_nearest(const char *word, size_t len, const char *const *candidates)
{
    size_t limit = len < 4 ? 1 : len < 9 ? 2 : 3;
    const char *best = NULL;
    size_t best_d = limit + 1;
    for (size_t i = 0; candidates[i]; i++) {
        size_t d = text_edit_distance(word, len, candidates[i], strlen(candidates[i]), limit);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}

bool text_is_c_identifier(const char *s, size_t len)
{
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
        bool digit = c >= '0' && c <= '9';
        if (!(alpha || (i > 0 && digit)))
            return false;
    }
    return true;
}

bool text_has_control(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        size_t k = utf8_decode(u + i, len - i, &cp);
        if (k == 0 || is_control(cp))
            return true;
        i += k;
    }
    return false;
}

static int cmp_ref(const void *pa, const void *pb)
{
    const text_ref *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int r = memcmp(a->s, b->s, n);
    if (r)
        return r;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

void text_report_duplicates(text_ref *refs, size_t n,
                            bool (*report)(const text_ref *first, const text_ref *dup, void *ctx), void *ctx)
{
    if (n < 2)
        return;
    qsort(refs, n, sizeof *refs, cmp_ref);
    /* Sorted by (bytes, index): the first of each run of equal strings is the original. */
    for (size_t i = 1, first = 0; i < n; i++) {
        if (refs[i].len == refs[first].len && memcmp(refs[i].s, refs[first].s, refs[i].len) == 0) {
            if (!report(&refs[first], &refs[i], ctx))
                return;
        } else {
            first = i;
        }
    }
}
