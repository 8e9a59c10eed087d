/* json_read: recursive descent with a depth bound, into an arena. */
#define _POSIX_C_SOURCE 200809L
#include "json_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

typedef struct jparser {
    const char *b;
    size_t n, i;
    const char *path;
    arena *a;
    diag_list *d;
    bool allow_dup;
    tfc_status st; /* TFC_OK until the first problem */
} jparser;

static bool jfail(jparser *p, size_t at, const char *msg)
{
    if (p->st == TFC_OK) {
        unsigned line, col;
        text_position(p->b, p->n, at < p->n ? at : p->n, &line, &col);
        diag_error(p->d, p->path, line, col, "%s", msg);
        p->st = TFC_INVALID;
    }
    return false;
}

static bool jnomem(jparser *p)
{
    if (p->st == TFC_OK)
        p->st = diag_nomem(p->d, "reading %s", p->path);
    return false;
}

static void jws(jparser *p)
{
    while (p->i < p->n && (p->b[p->i] == ' ' || p->b[p->i] == '\t' || p->b[p->i] == '\n' || p->b[p->i] == '\r'))
        p->i++;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Appends code point cp as UTF-8. */
static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static bool jhex4(jparser *p, unsigned *cp)
{
    *cp = 0;
    for (int k = 0; k < 4; k++) {
        int h = p->i < p->n ? hexval(p->b[p->i]) : -1;
        if (h < 0)
            return jfail(p, p->i, "bad \\u escape in a string");
        *cp = *cp << 4 | (unsigned)h;
        p->i++;
    }
    return true;
}

/* A string at p->i (the opening quote), decoded into the arena. */
static bool jstring(jparser *p, const char **out)
{
    size_t start = p->i++;
    /* The decoded text is never longer than the raw one. */
    size_t end = start + 1;
    while (end < p->n && p->b[end] != '"')
        end += p->b[end] == '\\' ? 2 : 1;
    if (end >= p->n)
        return jfail(p, start, "unterminated string");
    char *o = arena_alloc(p->a, end - start + 1);
    if (!o)
        return jnomem(p);
    size_t k = 0;
    while (p->b[p->i] != '"') {
        unsigned char c = (unsigned char)p->b[p->i];
        if (c < 0x20)
            return jfail(p, p->i, "control character in a string");
        if (c != '\\') {
            o[k++] = (char)c;
            p->i++;
            continue;
        }
        char e = p->b[++p->i];
        p->i++;
        if (e == 'u') {
            unsigned cp;
            if (!jhex4(p, &cp))
                return false;
            if (cp >= 0xD800 && cp < 0xDC00) { /* a surrogate pair */
                unsigned lo;
                if (p->i + 1 >= p->n || p->b[p->i] != '\\' || p->b[p->i + 1] != 'u')
                    return jfail(p, p->i, "unpaired surrogate in a \\u escape");
                p->i += 2;
                if (!jhex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return jfail(p, p->i, "unpaired surrogate in a \\u escape");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                return jfail(p, p->i, "unpaired surrogate in a \\u escape");
            } else if (cp == 0) { /* a decoded string is a C string: NUL would end it there, silently */
                return jfail(p, p->i - 6, "\\u0000 in a string: a name or path cannot hold NUL");
            }
            k += put_utf8(o + k, cp);
        } else if (e && strchr("\"\\/bfnrt", e)) {
            o[k++] = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
        } else {
            return jfail(p, p->i - 1, "bad escape in a string");
        }
    }
    p->i++;
    o[k] = '\0';
    *out = o;
    return true;
}

static bool jnumber(jparser *p, double *v)
{
    size_t s = p->i;
    if (p->i < p->n && p->b[p->i] == '-')
        p->i++;
    if (p->i >= p->n || p->b[p->i] < '0' || p->b[p->i] > '9')
        return jfail(p, s, "expected a value");
    if (p->b[p->i] == '0')
        p->i++;
    else
        while (p->i < p->n && p->b[p->i] >= '0' && p->b[p->i] <= '9')
            p->i++;
    if (p->i < p->n && p->b[p->i] == '.') {
        p->i++;
        if (p->i >= p->n || p->b[p->i] < '0' || p->b[p->i] > '9')
            return jfail(p, p->i, "a digit must follow the decimal point");
        while (p->i < p->n && p->b[p->i] >= '0' && p->b[p->i] <= '9')
            p->i++;
    }
    if (p->i < p->n && (p->b[p->i] == 'e' || p->b[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->b[p->i] == '+' || p->b[p->i] == '-'))
            p->i++;
        if (p->i >= p->n || p->b[p->i] < '0' || p->b[p->i] > '9')
            return jfail(p, p->i, "a digit must follow the exponent");
        while (p->i < p->n && p->b[p->i] >= '0' && p->b[p->i] <= '9')
            p->i++;
    }
    char buf[64];
    size_t len = p->i - s;
    if (len >= sizeof buf)
        return jfail(p, s, "number too long");
    memcpy(buf, p->b + s, len);
    buf[len] = '\0';
    *v = strtod(buf, NULL);
    if (!isfinite(*v))
        return jfail(p, s, "number out of range");
    return true;
}

static bool jvalue(jparser *p, jv *v, int depth);

typedef struct dup_ctx {
    jparser *p;
    const jv *items;
} dup_ctx;

static bool report_dup(const text_ref *first, const text_ref *dup, void *ctx)
{
    (void)first;
    dup_ctx *c = ctx;
    jfail(c->p, c->items[dup->index].off, "duplicate key in an object");
    return false;
}

/* Keys of one object, each once (n log n: an object may have many). The
 * error is at the value of the later one. */
static bool no_duplicates(jparser *p, const char **keys, const jv *items, size_t n)
{
    text_ref *refs = malloc(n * sizeof *refs);
    if (!refs)
        return jnomem(p);
    for (size_t i = 0; i < n; i++)
        refs[i] = (text_ref){keys[i], strlen(keys[i]), i};
    dup_ctx c = {p, items};
    text_report_duplicates(refs, n, report_dup, &c);
    free(refs);
    return p->st == TFC_OK;
}

/* Entries of an array or object, collected in a growing list then copied. */
static bool jlist(jparser *p, jv *v, int depth, bool obj)
{
    size_t cap = 8, n = 0;
    jv *items = malloc(cap * sizeof *items);
    const char **keys = obj ? malloc(cap * sizeof *keys) : NULL;
    bool ok = items && (!obj || keys);
    if (!ok)
        jnomem(p);
    p->i++;
    jws(p);
    char close = obj ? '}' : ']';
    if (ok && p->i < p->n && p->b[p->i] == close) {
        p->i++;
    } else {
        while (ok) {
            if (n == cap) {
                cap *= 2;
                jv *ni = realloc(items, cap * sizeof *items);
                const char **nk = obj ? realloc(keys, cap * sizeof *keys) : NULL;
                if (ni)
                    items = ni;
                if (nk)
                    keys = nk;
                if (!ni || (obj && !nk)) {
                    ok = jnomem(p);
                    break;
                }
            }
            if (obj) {
                jws(p);
                if (p->i >= p->n || p->b[p->i] != '"') {
                    ok = jfail(p, p->i, "expected a key (a string)");
                    break;
                }
                if (!(ok = jstring(p, &keys[n])))
                    break;
                jws(p);
                if (p->i >= p->n || p->b[p->i] != ':') {
                    ok = jfail(p, p->i, "expected ':' after a key");
                    break;
                }
                p->i++;
            }
            if (!(ok = jvalue(p, &items[n], depth + 1)))
                break;
            n++;
            jws(p);
            if (p->i < p->n && p->b[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->i < p->n && p->b[p->i] == close) {
                p->i++;
                break;
            }
            ok = jfail(p, p->i, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    if (ok && obj && !p->allow_dup && n > 1)
        ok = no_duplicates(p, keys, items, n);
    if (ok) {
        v->n = n;
        v->items = arena_alloc_array(p->a, n ? n : 1, sizeof *items);
        v->keys = obj ? arena_alloc_array(p->a, n ? n : 1, sizeof *keys) : NULL;
        if (!v->items || (obj && !v->keys)) {
            ok = jnomem(p);
        } else {
            memcpy(v->items, items, n * sizeof *items);
            if (obj)
                memcpy(v->keys, keys, n * sizeof *keys);
        }
    }
    free(items);
    free(keys);
    return ok;
}

static bool jvalue(jparser *p, jv *v, int depth)
{
    memset(v, 0, sizeof *v);
    jws(p);
    if (p->i >= p->n)
        return jfail(p, p->i, "expected a value");
    v->off = p->i;
    if (depth > JSON_MAX_DEPTH)
        return jfail(p, p->i, "nested deeper than the limit of 64");
    char c = p->b[p->i];
    if (c == '{' || c == '[') {
        v->kind = c == '{' ? JV_OBJ : JV_ARR;
        return jlist(p, v, depth, c == '{');
    }
    if (c == '"') {
        v->kind = JV_STR;
        return jstring(p, &v->str);
    }
    static const struct {
        const char *word;
        jv_kind kind;
        bool b;
    } words[] = {{"true", JV_BOOL, true}, {"false", JV_BOOL, false}, {"null", JV_NULL, false}};
    for (size_t k = 0; k < 3; k++) {
        size_t len = strlen(words[k].word);
        if (p->n - p->i >= len && memcmp(p->b + p->i, words[k].word, len) == 0) {
            p->i += len;
            v->kind = words[k].kind;
            v->b = words[k].b;
            return true;
        }
    }
    v->kind = JV_NUM;
    return jnumber(p, &v->num);
}

tfc_status json_parse(const char *text, size_t len, const char *path, bool allow_duplicates, arena *a, diag_list *d,
                      jv **out)
{
    jparser p = {text, len, 0, path, a, d, allow_duplicates, TFC_OK};
    jv *root = arena_alloc(a, sizeof *root);
    if (!root)
        return diag_nomem(d, "reading %s", path);
    if (jvalue(&p, root, 0)) {
        jws(&p);
        if (p.i < p.n)
            jfail(&p, p.i, "text after the JSON value");
    }
    if (p.st != TFC_OK)
        return p.st;
    *out = root;
    return TFC_OK;
}

const jv *jv_get(const jv *obj, const char *key)
{
    if (!obj || obj->kind != JV_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

const jv *jv_get_kind(const jv *obj, const char *key, jv_kind kind)
{
    if (!obj || obj->kind != JV_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (obj->items[i].kind == kind && strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

/* The length of the number token at t, and whether it is an integer (no
 * point, no exponent). */
static size_t number_token(const char *t, bool *integer)
{
    size_t n = 0;
    *integer = true;
    while (t[n] && strchr("+-0123456789.eE", t[n])) {
        if (strchr(".eE", t[n]))
            *integer = false;
        n++;
    }
    return n;
}

static bool numbers_equal(const jv *a, const char *ta, const jv *b, const char *tb)
{
    bool ia, ib;
    size_t na = number_token(ta + a->off, &ia), nb = number_token(tb + b->off, &ib);
    if (ia && ib)
        return na == nb && memcmp(ta + a->off, tb + b->off, na) == 0;
    return a->num == b->num;
}

bool jv_equal(const jv *a, const char *ta, const jv *b, const char *tb)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case JV_NULL: return true;
    case JV_BOOL: return a->b == b->b;
    case JV_NUM: return numbers_equal(a, ta, b, tb);
    case JV_STR: return strcmp(a->str, b->str) == 0;
    case JV_ARR:
    case JV_OBJ: break;
    }
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if ((a->kind == JV_OBJ && strcmp(a->keys[i], b->keys[i]) != 0) ||
            !jv_equal(&a->items[i], ta, &b->items[i], tb))
            return false;
    return true;
}
