/* spec_read: the spec reader's helpers: messages, key paths, mappings
 * checked against the schema's keys, and typed scalars, each reporting
 * what is wrong at its node (spec_read.h). */
#include "spec_read.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "real.h"
#include "text.h"

/* ---- reporting ---- */

void spec_out_of_memory(spec_reader *c, const ydoc_node *at)
{
    (void)at; /* memory is the machine's limit, not the spec's fault: no position */
    if (!c->oom)
        diag_nomem(c->d, "while reading the spec");
    c->oom = true;
}

/* "\"text\"" for a scalar, "a sequence" / "a mapping" otherwise. */
const char *spec_describe(const ydoc_node *n, char *buf, size_t cap)
{
    if (n->kind == YDOC_SEQ)
        return "a sequence";
    if (n->kind == YDOC_MAP)
        return "a mapping";
    if (n->n == 0)
        return n->plain ? "an empty value" : "an empty string";
    return text_quote(buf, cap, n->u.str, n->n);
}

/* What a node is, for "got ..." in type errors: "a sequence", "a mapping",
 * "an empty value", or the type and text of a scalar: string "four". */
const char *spec_got(const ydoc_node *n, char *buf, size_t cap)
{
    if (n->kind != YDOC_SCALAR || n->n == 0)
        return spec_describe(n, buf, cap);
    if (ydoc_scalar_type(n) == YDOC_NULL)
        return "null";
    const char *type = ydoc_type_name(ydoc_scalar_type(n));
    size_t tl = strlen(type);
    memcpy(buf, type, tl);
    buf[tl] = ' ';
    text_quote(buf + tl + 1, cap - tl - 1, n->u.str, n->n);
    return buf;
}

/* Key paths ("model.stages[3].params[0].numel") for messages. Every path
 * tfc builds fits SPEC_PATH_CAP; a cut one would still be marked. */
static void path_mark_cut(char *out, int written)
{
    if (written < 0 || written >= SPEC_PATH_CAP)
        memcpy(out + SPEC_PATH_CAP - 4, "...", 4);
}

void spec_path_key(char *out, const char *parent, const char *key)
{
    int r = (parent && *parent) ? snprintf(out, SPEC_PATH_CAP, "%s.%s", parent, key)
                                : snprintf(out, SPEC_PATH_CAP, "%s", key);
    path_mark_cut(out, r);
}

void spec_path_index(char *out, const char *parent, size_t i)
{
    path_mark_cut(out, snprintf(out, SPEC_PATH_CAP, "%s[%zu]", parent, i));
}

/* ---- mappings ---- */

static bool is_known(const ydoc_node *k, const char *const *known)
{
    for (size_t j = 0; known[j]; j++)
        if (strlen(known[j]) == k->n && memcmp(known[j], k->u.str, k->n) == 0)
            return true;
    return false;
}

/* Checks that node is a mapping whose keys are all in known; reports the
 * others with the nearest known key as a hint. */
bool spec_check_map(spec_reader *c, const ydoc_node *node, const char *path, const char *const *known)
{
    char q[TEXT_QUOTE_CAP];
    if (node->kind != YDOC_MAP) {
        SPEC_ERR(c, node, "%s must be a mapping, got %s", path, spec_got(node, q, sizeof q));
        return false;
    }
    for (uint32_t i = 0; i < node->n && !diag_full(c->d); i++) {
        const ydoc_node *k = ydoc_key(node, i);
        if (is_known(k, known))
            continue;
        const char *near = text_nearest(k->u.str, k->n, known);
        char where[SPEC_PATH_CAP + 8];
        snprintf(where, sizeof where, "%s%s", *path ? " in " : "", path);
        if (k->n == 2 && memcmp(k->u.str, "<<", 2) == 0)
            SPEC_ERR(c, k, "merge keys (<<) are not supported%s; write the keys out", where);
        else if (near)
            SPEC_ERR(c, k, "unknown key %s%s; did you mean '%s'?", text_quote(q, sizeof q, k->u.str, k->n),
                     where, near);
        else
            SPEC_ERR(c, k, "unknown key %s%s", text_quote(q, sizeof q, k->u.str, k->n), where);
    }
    return true;
}

/* True when some unknown key of map is a likely misspelling of key: the
 * unknown-key error already says "did you mean", so "missing" would only
 * repeat it. Keys the schema knows never count ("numel" is not a typo of
 * "name"). */
bool spec_misspelt_in(const ydoc_node *map, const char *key, const char *const *known)
{
    const char *const one[] = {key, NULL};
    for (uint32_t i = 0; i < map->n; i++) {
        const ydoc_node *k = ydoc_key(map, i);
        if (!is_known(k, known) && text_nearest(k->u.str, k->n, one))
            return true;
    }
    return false;
}

const ydoc_node *spec_require(spec_reader *c, const ydoc_node *map, const char *path, const char *key,
                              const char *const *known)
{
    const ydoc_node *v = ydoc_get(map, key);
    if (!v && !spec_misspelt_in(map, key, known)) {
        char full[SPEC_PATH_CAP];
        spec_path_key(full, path, key);
        SPEC_ERR(c, map, "missing required key %s", full);
    }
    return v;
}

/* ---- typed scalars ---- */

/* Whether a number's text has at most 15 significant digits, so that the
 * double read from it is the text's own value when that is an integer up
 * to 2^53 (1e6, 2.5e5, 4.0: never 1.0000000000000001e6). */
static bool few_digits(const char *s, size_t n)
{
    size_t sig = 0, zeros = 0;
    bool leading = true;
    for (size_t i = 0; i < n && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] < '0' || s[i] > '9' || (leading && s[i] == '0'))
            continue;
        leading = false;
        if (s[i] == '0') {
            zeros++;
        } else {
            sig += zeros + 1;
            zeros = 0;
        }
    }
    return sig <= 15;
}

bool spec_get_uint(spec_reader *c, const ydoc_node *n, const char *path, uint64_t min, uint64_t max,
                   uint64_t *out)
{
    char q[TEXT_QUOTE_CAP];
    bool neg = false;
    uint64_t v = 0;
    if (n->kind != YDOC_SCALAR || ydoc_scalar_type(n) != YDOC_INT) {
        const char *hint = n->kind != YDOC_SCALAR || n->plain || ydoc_scalar_type(n) != YDOC_STR ? ""
                           : n->tagged ? " (a tagged value is a string)"
                                       : " (quoted values are strings)";
        char write[40] = "";
        double d;
        /* a number that is a whole one in range (1e6, 4.0): say how to write it */
        if (n->kind == YDOC_SCALAR && ydoc_scalar_type(n) == YDOC_FLOAT && ydoc_scalar_float(n, &d) &&
            isfinite(d) && d == floor(d) && d >= (double)min && d <= (double)max && d <= 9007199254740992.0 &&
            few_digits(n->u.str, n->n)) {
            snprintf(write, sizeof write, "; write %llu", (unsigned long long)fabs(d));
            hint = write;
        }
        SPEC_ERR(c, n, "%s must be an integer, got %s%s", path, spec_got(n, q, sizeof q), hint);
        return false;
    }
    bool fits = ydoc_scalar_int(n, &neg, &v);
    if (!fits || neg || v < min || v > max) {
        if (fits && neg && v == 0 && min == 0) { /* "-0" */
            *out = 0;
            return true;
        }
        SPEC_ERR(c, n, "%s must be an integer from %llu to %llu, got %s", path, (unsigned long long)min,
                 (unsigned long long)max, spec_describe(n, q, sizeof q));
        return false;
    }
    *out = v;
    return true;
}

bool spec_get_u32(spec_reader *c, const ydoc_node *n, const char *path, uint32_t min, uint32_t max,
                  uint32_t *out)
{
    uint64_t v;
    if (!spec_get_uint(c, n, path, min, max, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

/* A finite number in [min, max]; min_open excludes min itself. */
bool spec_get_number_range(spec_reader *c, const ydoc_node *n, const char *path, double min, bool min_open,
                           double max, bool max_open, double *out)
{
    char q[TEXT_QUOTE_CAP];
    ydoc_type t = n->kind == YDOC_SCALAR ? ydoc_scalar_type(n) : YDOC_STR;
    if (n->kind != YDOC_SCALAR || (t != YDOC_INT && t != YDOC_FLOAT)) {
        SPEC_ERR(c, n, "%s must be a number, got %s", path, spec_got(n, q, sizeof q));
        return false;
    }
    double v;
    bool ok;
    if (t == YDOC_INT) {
        bool neg;
        uint64_t mag;
        ok = ydoc_scalar_int(n, &neg, &mag);
        v = neg ? -(double)mag : (double)mag;
        if (!ok) /* past 64 bits (99999999999999999999), yet a double holds it */
            ok = ydoc_scalar_float(n, &v);
    } else {
        ok = ydoc_scalar_float(n, &v);
    }
    if (!ok && n->n > 100) {
        SPEC_ERR(c, n, "%s is written with %u characters; write it with at most 100", path, n->n);
        return false;
    }
    if (!ok) {
        SPEC_ERR(c, n, "%s is out of the range of a double (0, or a magnitude from 2.2250738585072014e-308 to "
                       "1.7976931348623157e308), got %s",
                 path, spec_describe(n, q, sizeof q));
        return false;
    }
    if (!isfinite(v)) {
        SPEC_ERR(c, n, "%s must be a finite number, got %s", path, spec_describe(n, q, sizeof q));
        return false;
    }
    if (v < min || (min_open && v == min) || v > max || (max_open && v == max)) {
        SPEC_ERR(c, n, "%s must be a number %s %s and %s %s, got %s", path, min_open ? "above" : "of at least",
                 real_shortest(min).s, max_open ? "below" : "at most", real_shortest(max).s,
                 spec_describe(n, q, sizeof q));
        return false;
    }
    *out = v;
    return true;
}

bool spec_get_number(spec_reader *c, const ydoc_node *n, const char *path, double min, bool min_open,
                     double max, double *out)
{
    return spec_get_number_range(c, n, path, min, min_open, max, false, out);
}

bool spec_get_bool(spec_reader *c, const ydoc_node *n, const char *path, bool *out)
{
    char q[TEXT_QUOTE_CAP];
    if (n->kind != YDOC_SCALAR || ydoc_scalar_type(n) != YDOC_BOOL) {
        /* YAML 1.1's booleans, strings in 1.2 (docs/spec.md, "Values") */
        static const char *const words[] = {"yes", "Yes", "YES", "on", "On", "ON",
                                            "no",  "No",  "NO",  "off", "Off", "OFF", NULL};
        const char *hint = "";
        char buf[64];
        bool str = n->kind == YDOC_SCALAR && ydoc_scalar_type(n) == YDOC_STR;
        ydoc_node unquoted = str ? *n : (ydoc_node){0};
        unquoted.plain = true;
        unquoted.tagged = false;
        for (size_t i = 0; str && n->plain && words[i]; i++)
            if (n->n == strlen(words[i]) && memcmp(n->u.str, words[i], n->n) == 0) {
                snprintf(buf, sizeof buf, "; write %s (%s is a string in YAML 1.2)", i < 6 ? "true" : "false",
                         words[i]);
                hint = buf;
            }
        if (str && !n->plain && ydoc_scalar_type(&unquoted) == YDOC_BOOL)
            hint = n->tagged ? " (a tagged value is a string)" : " (quoted values are strings)";
        SPEC_ERR(c, n, "%s must be true or false, got %s%s", path, spec_got(n, q, sizeof q), hint);
        return false;
    }
    *out = ydoc_scalar_bool(n);
    return true;
}

/* A string of 1..max_bytes bytes without control characters. */
const char *spec_get_string(spec_reader *c, const ydoc_node *n, const char *path, size_t max_bytes)
{
    char q[TEXT_QUOTE_CAP];
    if (n->kind != YDOC_SCALAR || ydoc_scalar_type(n) != YDOC_STR) {
        const char *hint = n->kind == YDOC_SCALAR && ydoc_scalar_type(n) != YDOC_NULL ? "; quote it" : "";
        SPEC_ERR(c, n, "%s must be a string, got %s%s", path, spec_got(n, q, sizeof q), hint);
        return NULL;
    }
    if (n->n == 0) {
        SPEC_ERR(c, n, "%s must not be empty", path);
        return NULL;
    }
    if (n->n > max_bytes) {
        SPEC_ERR(c, n, "%s is %u bytes long, more than the limit of %zu: %s", path, n->n, max_bytes,
                 spec_describe(n, q, sizeof q));
        return NULL;
    }
    if (text_has_control(n->u.str, n->n)) {
        SPEC_ERR(c, n, "%s must not contain control characters, got %s", path, spec_describe(n, q, sizeof q));
        return NULL;
    }
    return n->u.str;
}

/* One of names (NULL-terminated); returns the index or -1. */
int spec_get_enum(spec_reader *c, const ydoc_node *n, const char *path, const char *const *names)
{
    char q[TEXT_QUOTE_CAP];
    if (n->kind == YDOC_SCALAR && ydoc_scalar_type(n) != YDOC_NULL) {
        for (int i = 0; names[i]; i++)
            if (strlen(names[i]) == n->n && memcmp(names[i], n->u.str, n->n) == 0)
                return i;
    }
    char list[256] = "";
    size_t o = 0;
    for (int i = 0; names[i] && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", names[i]);
    const char *near = n->kind == YDOC_SCALAR ? text_nearest(n->u.str, n->n, names) : NULL;
    if (near)
        SPEC_ERR(c, n, "%s must be one of %s, got %s; did you mean '%s'?", path, list, spec_describe(n, q, sizeof q),
                 near);
    else
        SPEC_ERR(c, n, "%s must be one of %s, got %s", path, list, spec_describe(n, q, sizeof q));
    return -1;
}
