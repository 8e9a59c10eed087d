/* ydoc_scalar: resolving plain scalars to null/bool/int/float/string.
 * tfc follows the YAML 1.2 core schema, not YAML 1.1: "yes", "no", "on",
 * "off" stay strings, and "010" is the decimal ten. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ydoc.h"

static bool eq(const ydoc_node *n, const char *s)
{
    size_t len = strlen(s);
    return n->n == len && memcmp(n->u.str, s, len) == 0;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static bool is_oct(char c) { return c >= '0' && c <= '7'; }

/* Digits of one class, '_' allowed only between two digits. */
static bool digits(const char *s, size_t n, bool (*cls)(char), bool underscores)
{
    if (n == 0 || !cls(s[0]) || !cls(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!cls(s[i]) && !(underscores && s[i] == '_' && cls(s[i - 1]) && cls(s[i + 1])))
            return false;
    return true;
}

static bool looks_int(const char *s, size_t n)
{
    if (n > 2 && s[0] == '0' && s[1] == 'x')
        return digits(s + 2, n - 2, is_hex, false);
    if (n > 2 && s[0] == '0' && s[1] == 'o')
        return digits(s + 2, n - 2, is_oct, false);
    if (n && (s[0] == '-' || s[0] == '+'))
        s++, n--;
    return digits(s, n, is_digit, true);
}

static bool looks_float(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    size_t int_digits = 0, frac_digits = 0;
    while (i < n && is_digit(s[i]))
        i++, int_digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i]))
            i++, frac_digits++;
    }
    if (int_digits + frac_digits == 0)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t exp_digits = 0;
        while (i < n && is_digit(s[i]))
            i++, exp_digits++;
        if (exp_digits == 0)
            return false;
    }
    return i == n;
}

static bool is_special_float(const ydoc_node *n, double *v)
{
    const char *s = n->u.str;
    size_t len = n->n;
    double sign = 1.0;
    if (len && (s[0] == '-' || s[0] == '+')) {
        sign = s[0] == '-' ? -1.0 : 1.0;
        s++, len--;
    }
    if (len == 4 && (!memcmp(s, ".inf", 4) || !memcmp(s, ".Inf", 4) || !memcmp(s, ".INF", 4))) {
        *v = sign * INFINITY;
        return true;
    }
    if (n->n == 4 && (!memcmp(s, ".nan", 4) || !memcmp(s, ".NaN", 4) || !memcmp(s, ".NAN", 4))) {
        *v = NAN;
        return true;
    }
    return false;
}

ydoc_type ydoc_scalar_type(const ydoc_node *n)
{
    if (n->kind != YDOC_SCALAR || !n->plain)
        return YDOC_STR;
    if (n->n == 0 || eq(n, "~") || eq(n, "null") || eq(n, "Null") || eq(n, "NULL"))
        return YDOC_NULL;
    if (eq(n, "true") || eq(n, "True") || eq(n, "TRUE") || eq(n, "false") || eq(n, "False") ||
        eq(n, "FALSE"))
        return YDOC_BOOL;
    if (looks_int(n->u.str, n->n))
        return YDOC_INT;
    double v;
    if (looks_float(n->u.str, n->n) || is_special_float(n, &v))
        return YDOC_FLOAT;
    return YDOC_STR;
}

const char *ydoc_type_name(ydoc_type t)
{
    switch (t) {
    case YDOC_NULL: return "null";
    case YDOC_BOOL: return "boolean";
    case YDOC_INT: return "integer";
    case YDOC_FLOAT: return "number";
    case YDOC_STR: return "string";
    }
    return "value";
}

bool ydoc_scalar_bool(const ydoc_node *n) { return n->n && (n->u.str[0] == 't' || n->u.str[0] == 'T'); }

bool ydoc_scalar_int(const ydoc_node *n, bool *neg, uint64_t *mag)
{
    const char *s = n->u.str;
    size_t len = n->n;
    unsigned base = 10;
    *neg = false;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
        base = s[1] == 'x' ? 16 : 8;
        s += 2, len -= 2;
    } else if (len && (s[0] == '-' || s[0] == '+')) {
        *neg = s[0] == '-';
        s++, len--;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '_')
            continue;
        unsigned d = is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
        if (v > (UINT64_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    *mag = v;
    return true;
}

bool ydoc_scalar_float(const ydoc_node *n, double *v)
{
    if (is_special_float(n, v))
        return true;
    /* Copy without '_' separators; strtod needs a terminated string. Numbers
     * longer than the buffer are not numbers a spec needs. */
    char buf[128];
    size_t o = 0;
    for (size_t i = 0; i < n->n; i++) {
        if (n->u.str[i] == '_')
            continue;
        if (o + 1 >= sizeof buf)
            return false;
        buf[o++] = n->u.str[i];
    }
    buf[o] = '\0';
    errno = 0;
    char *end;
    double x = strtod(buf, &end);
    if (*end != '\0')
        return false;
    if (errno == ERANGE && (isinf(x) || x == 0.0 || fabs(x) < 2.2250738585072014e-308))
        return false;
    *v = x;
    return true;
}
