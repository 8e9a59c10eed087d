/* real: canonical text of a double, and the pinned-arithmetic check. The
 * digits come from the C library's printf and strtod, which glibc, musl and
 * the BSDs (macOS included) do exactly (correct rounding of the binary
 * value), so the text depends on the double alone. */
#include "real.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

real_text real_shortest(double v)
{
    real_text t;
    if (isnan(v)) {
        strcpy(t.s, "nan");
        return t;
    }
    if (isinf(v)) {
        strcpy(t.s, v < 0 ? "-inf" : "inf");
        return t;
    }
    if (v == 0.0)
        v = 0.0; /* no "-0" */
    double mag = fabs(v);
    if (mag >= 1e-4 && mag < 1e15) {
        /* Plain decimals: the fewest digits after the point that read back
         * exactly. Below 1e-3 three zeros lead, and 17 significant digits
         * always suffice: at most 20 decimals. */
        for (int dec = 0; dec <= 20; dec++) {
            snprintf(t.s, sizeof t.s, "%.*f", dec, v);
            if (strtod(t.s, NULL) == v)
                break;
        }
    } else {
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(t.s, sizeof t.s, "%.*g", prec, v);
            if (strtod(t.s, NULL) == v)
                break;
        }
    }
    return t;
}

real_text real_fixed(double v, int decimals)
{
    if (!isfinite(v) || fabs(v) >= 1e15)
        return real_shortest(v);
    if (decimals < 0)
        decimals = 0;
    if (decimals > REAL_MAX_DECIMALS)
        decimals = REAL_MAX_DECIMALS;
    real_text t;
    snprintf(t.s, sizeof t.s, "%.*f", decimals, v);
    /* A negative value that rounds to zero prints as "-0.00": drop the sign. */
    if (t.s[0] == '-' && strspn(t.s + 1, "0.") == strlen(t.s + 1))
        memmove(t.s, t.s + 1, strlen(t.s));
    return t;
}

real_text real_brief(double v)
{
    double m = fabs(v);
    if (!(m < 0.01) || m == 0.0)
        return real_fixed(v, m >= 100 ? 0 : m >= 10 ? 1 : m >= 1 ? 2 : 3);
    int d = 3; /* 0.00123: the first significant digit at 10^-k shows with k + 2 decimals */
    double t = m;
    for (; t < 0.1 && d < REAL_MAX_DECIMALS; t *= 10.0)
        d++;
    if (t < 0.1) { /* below what REAL_MAX_DECIMALS decimals show: three digits and an exponent */
        real_text e;
        snprintf(e.s, sizeof e.s, "%.3g", v);
        return e;
    }
    return real_fixed(v, d);
}

/* -1, 0 or 1 as a is below, at or above b. */
static int side(double a, double b) { return (a > b) - (a < b); }

/* t (v's text) with more decimals where it falls on the other side of
 * other, or on it, while v does not (real_apart, real_fixed_apart). */
static real_text keep_side(real_text t, double v, double other)
{
    if (!isfinite(v) || !isfinite(other) || side(strtod(t.s, NULL), other) == side(v, other))
        return t;
    const char *point = strchr(t.s, '.');
    if (strpbrk(t.s, "eE"))
        return real_shortest(v);
    for (int d = point ? (int)strlen(point + 1) + 1 : 1; d <= REAL_MAX_DECIMALS; d++) {
        t = real_fixed(v, d);
        if (side(strtod(t.s, NULL), other) == side(v, other))
            return t;
    }
    return real_shortest(v);
}

real_text real_apart(double v, double other) { return keep_side(real_brief(v), v, other); }

real_text real_fixed_apart(double v, int decimals, double other)
{
    return keep_side(real_fixed(v, decimals), v, other);
}

real_text real_bytes(uint64_t b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024.0 && u < 6)
        v /= 1024.0, u++;
    real_text t;
    if (u == 0) {
        snprintf(t.s, sizeof t.s, "%llu B", (unsigned long long)b);
        return t;
    }
    t = real_fixed(v, 2); /* below 1024: "1023.99" at most */
    size_t n = strlen(t.s);
    t.s[n] = ' ';
    memcpy(t.s + n + 1, unit[u], 4); /* "KiB" and its NUL */
    return t;
}

void real_print(FILE *f, double v) { fputs(real_shortest(v).s, f); }

static bool ident_char(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static bool digit(char c) { return c >= '0' && c <= '9'; }

/* The number starting at t[i] (a sign, digits, a point, more digits, an
 * exponent) when one starts there and no identifier runs into it: its
 * length, whether it is a real (a point or an exponent), and the unit of
 * its last digit. 0 when none starts at i. */
static size_t number_at(const char *t, size_t n, size_t i, bool *real, double *unit)
{
    if (i > 0 && (ident_char(t[i - 1]) || t[i - 1] == '.'))
        return 0;
    size_t j = i;
    if (j < n && (t[j] == '-' || t[j] == '+'))
        j++;
    size_t int_digits = 0, frac_digits = 0;
    while (j < n && digit(t[j]))
        j++, int_digits++;
    *real = false;
    if (j < n && t[j] == '.') {
        size_t k = j + 1;
        while (k < n && digit(t[k]))
            k++, frac_digits++;
        if (int_digits + frac_digits > 0)
            j = k, *real = true;
    }
    if (int_digits + frac_digits == 0)
        return 0;
    long exp10 = 0;
    if (j < n && (t[j] == 'e' || t[j] == 'E')) {
        size_t k = j + 1;
        bool neg = false;
        if (k < n && (t[k] == '-' || t[k] == '+'))
            neg = t[k++] == '-';
        if (k < n && digit(t[k])) {
            while (k < n && digit(t[k]) && exp10 < 100000)
                exp10 = exp10 * 10 + (t[k++] - '0');
            while (k < n && digit(t[k]))
                k++;
            exp10 = neg ? -exp10 : exp10;
            j = k, *real = true;
        }
    }
    if (j < n && (ident_char(t[j]) || t[j] == '.'))
        return 0; /* 0x1f, 7ull, 1.2.3: not a number to compare by value */
    long e = exp10 - (long)frac_digits; /* the unit of the last digit: 10^e */
    double u = 1.0;
    for (long k = 0; k < (e < 0 ? -e : e) && k < 400; k++)
        u *= 10.0;
    *unit = e < 0 ? 1.0 / u : u;
    return j - i;
}

long real_text_diff(const char *a, size_t na, const char *b, size_t nb, bool rounded)
{
    size_t i = 0, j = 0;
    long reals = 0;
    while (i < na && j < nb) {
        bool ra, rb;
        double ua = 0, ub = 0;
        size_t la = number_at(a, na, i, &ra, &ua), lb = la ? number_at(b, nb, j, &rb, &ub) : 0;
        if (la && lb && (la != lb || memcmp(a + i, b + j, la) != 0)) {
            if (!ra && !rb) /* two integers: counts, sizes, ids */
                return -1;
            char ta[64], tb[64];
            if (la >= sizeof ta || lb >= sizeof tb)
                return -1;
            memcpy(ta, a + i, la), ta[la] = '\0';
            memcpy(tb, b + j, lb), tb[lb] = '\0';
            double x = strtod(ta, NULL), y = strtod(tb, NULL), d = fabs(x - y);
            double unit = ua > ub ? ua : ub, mag = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
            if (!(d <= 1e-9 * mag || (rounded && d <= unit * (1 + 1e-9))))
                return -1;
            reals++;
            i += la, j += lb;
            continue;
        }
        if (la && lb) {
            i += la, j += lb;
            continue;
        }
        if (a[i] != b[j])
            return -1;
        i++, j++;
    }
    return i == na && j == nb ? reals : -1;
}

const char *real_arith_check(void)
{
#ifdef __FAST_MATH__
    return "built with fast-math (-ffast-math, -Ofast or -ffp-model=fast): reals may differ from other builds";
#endif
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
    return "doubles are evaluated in a wider format (FLT_EVAL_METHOD is not 0: x87?): reals may differ from other "
           "builds";
#endif
    /* (1 + 2^-30)(1 - 2^-30) = 1 - 2^-60 rounds to 1, so the sum is 0 when
     * the product is rounded first; a fused multiply-add (or a wider
     * intermediate) keeps -2^-60. volatile: the compiler cannot fold it. */
    volatile double a = 1.0 + 0x1p-30, b = 1.0 - 0x1p-30, c = -1.0;
    double r = a * b + c;
    if (r != 0.0)
        return "a * b + c is contracted into a fused multiply-add (build with -ffp-contract=off): reals may differ "
               "from other builds";
    return NULL;
}
