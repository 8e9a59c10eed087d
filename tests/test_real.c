/* real: the canonical printer of reals against strtod and a brute-force
 * search over printf's precisions, the fixed form's rounding and signs, the
 * text comparison tfc verify uses, and the charts' exact tick labels. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "json.h"
#include "real.h"

static uint64_t next_bits(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Significant digits of a decimal text: its digits without leading zeros
 * and, for the mantissa, without trailing ones ("100" has 1, "0.0250" 2). */
static int significant_digits(const char *t)
{
    char d[64];
    size_t n = 0;
    for (const char *p = t; *p && *p != 'e' && *p != 'E'; p++)
        if (*p >= '0' && *p <= '9' && n + 1 < sizeof d)
            d[n++] = *p;
    size_t a = 0;
    while (a < n && d[a] == '0')
        a++;
    while (n > a && d[n - 1] == '0')
        n--;
    return n > a ? (int)(n - a) : 1;
}

/* The fewest significant digits %.*g needs to read back as v: brute force. */
static int fewest_digits(double v)
{
    char buf[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            return p;
    }
    return 17;
}

static void check_shortest(double v)
{
    real_text t = real_shortest(v);
    cr_assert_eq(strtod(t.s, NULL), v, "%a printed as %s", v, t.s);
    cr_assert_eq(significant_digits(t.s), fewest_digits(v), "%a printed as %s: %d digits, %d suffice", v, t.s,
                 significant_digits(t.s), fewest_digits(v));
    cr_assert_null(strchr(t.s, ' '));
}

Test(real, shortest_reads_back_exactly_with_the_fewest_digits)
{
    static const double edges[] = {0.1,    0.2,   0.3,      1.0 / 3,  2.0 / 3, 1e-4,   9.999999999999999e-5,
                                   1e15,   1e15 - 1, 999999999999999.9, 5e-324, 1.7976931348623157e308,
                                   0.5,    1,     10,       100,      123.456, 0.8769230667510669, 272.3000002633314,
                                   4096.5, 1e22,  1e23,     -2.5,     -1e-300};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        check_shortest(edges[i]);
    uint64_t s = 42;
    for (int i = 0; i < 200000; i++) {
        uint64_t b = next_bits(&s);
        double v;
        if (i % 2) { /* any finite bit pattern */
            memcpy(&v, &b, sizeof v);
            if (!isfinite(v))
                continue;
        } else { /* the magnitudes plans have: ratios, milliseconds */
            v = ldexp((double)(b >> 11), -53) * pow(10.0, (double)(int)(b % 12) - 5);
        }
        check_shortest(v);
    }
}

Test(real, negative_zero_and_nonfinite_values)
{
    cr_assert_str_eq(real_shortest(-0.0).s, "0");
    cr_assert_str_eq(real_fixed(-0.0, 2).s, "0.00");
    cr_assert_str_eq(real_fixed(-0.0004, 3).s, "0.000");
    cr_assert_str_eq(real_fixed(-0.0006, 3).s, "-0.001");
    cr_assert_str_eq(real_shortest(NAN).s, "nan");
    cr_assert_str_eq(real_shortest(INFINITY).s, "inf");
    cr_assert_str_eq(real_shortest(-INFINITY).s, "-inf");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_number(f, NAN);
    fputc(' ', f);
    json_number(f, -0.0);
    fputc(' ', f);
    json_number(f, 0.1);
    fclose(f);
    cr_assert_str_eq(buf, "null 0 0.1");
    free(buf);
}

Test(real, fixed_rounds_the_exact_binary_value_half_to_even)
{
    /* 0.125 and 0.375 are exact: ties, to even; 2.675 is 2.67499999... in binary. */
    cr_assert_str_eq(real_fixed(0.125, 2).s, "0.12");
    cr_assert_str_eq(real_fixed(0.375, 2).s, "0.38");
    cr_assert_str_eq(real_fixed(2.675, 2).s, "2.67");
    cr_assert_str_eq(real_fixed(1.0 / 3, 4).s, "0.3333");
    cr_assert_str_eq(real_fixed(1234.5, 0).s, "1234");
    cr_assert_str_eq(real_fixed(279.6, 3).s, "279.600");
    /* Past the fixed form's range: the shortest text, not 300 digits. */
    cr_assert_str_eq(real_fixed(1e300, 2).s, "1e+300");
    cr_assert_str_eq(real_fixed(2.5, 99).s, "2.50000000000000000");
}

Test(real, text_diff_counts_last_digits_and_nothing_else)
{
#define DIFF(a, b, rounded) real_text_diff(a, strlen(a), b, strlen(b), rounded)
    cr_assert_eq(DIFF("{1, 0.5, x}", "{1, 0.5, x}", false), 0);
    cr_assert_eq(DIFF("r = 0.1, 0.2;", "r = 0.10000000000000002, 0.2;", false), 1);
    cr_assert_eq(DIFF("\"start_ms\": 10, \"d\": 2.5", "\"start_ms\": 10.000000000000002, \"d\": 2.5000000000000004",
                      false),
                 2);
    cr_assert_eq(DIFF("0.5", "0.5000001", false), -1);   /* 2e-7 of itself: not the last digits */
    cr_assert_eq(DIFF("8 actions", "9 actions", false), -1); /* integers must match */
    cr_assert_eq(DIFF("17ull,", "18ull,", false), -1);      /* a mask's fixed point */
    cr_assert_eq(DIFF("stage3", "stage4", false), -1);
    cr_assert_eq(DIFF("0x1f", "0x2f", false), -1);
    cr_assert_eq(DIFF("1.5", "1.5 ", false), -1);
    cr_assert_eq(DIFF("<rect x=\"12.3\"", "<rect x=\"12.4\"", true), 1); /* rounded the other way */
    cr_assert_eq(DIFF("<rect x=\"12.3\"", "<rect x=\"12.4\"", false), -1);
    cr_assert_eq(DIFF("<rect x=\"12.3\"", "<rect x=\"12.5\"", true), -1); /* two units */
    cr_assert_eq(DIFF("1e-05", "1.0000000000000001e-05", false), 1);
    cr_assert_eq(DIFF("-2.5", "2.5", false), -1);
#undef DIFF
}

Test(real, this_build_reports_its_arithmetic_pinned)
{
    /* CMakeLists.txt pins it for every target; ctest cross_build checks the
     * same of gcc -O0, gcc -O3 -march=native and clang -O3 -march=native. */
    const char *why = real_arith_check();
    cr_assert_null(why, "%s", why);
}

Test(chart, tick_labels_are_the_exact_decimal_of_each_tick)
{
    uint64_t s = 7;
    for (int i = 0; i < 20000; i++) {
        double span = ldexp((double)(next_bits(&s) >> 11), -53) * pow(10.0, (double)(int)(next_bits(&s) % 16) - 6);
        chart_axis a = chart_axis_for(span, 6.0);
        cr_assert(a.mant == 1 || a.mant == 2 || a.mant == 5);
        cr_assert(a.step * 6.0 >= span * (1 - 1e-12), "step %g for span %g", a.step, span);
        cr_assert(a.step * 6.0 <= span * 10.0 * (1 + 1e-12), "step %g for span %g", a.step, span);
        int64_t k = (int64_t)(next_bits(&s) % 2000) - 1000;
        real_text t = chart_tick_label(&a, k);
        /* strtod rounds the label's decimal once, as chart_tick rounds k x mant x 10^exp once. */
        cr_assert_eq(strtod(t.s, NULL), chart_tick(&a, k), "tick %lld of step %g: label %s", (long long)k, a.step,
                     t.s);
        cr_assert(t.s[strlen(t.s) - 1] != '.' && (strchr(t.s, '.') == NULL || t.s[strlen(t.s) - 1] != '0'),
                  "label %s has trailing zeros", t.s);
    }
    chart_axis a = chart_axis_for(403.2, 8.0); /* the default spec's timeline: 50.4 ms a tick at least */
    cr_assert_eq(a.mant, 1);
    cr_assert_eq(a.exp, 2);
    cr_assert_str_eq(chart_tick_label(&a, 3).s, "300");
    a = chart_axis_for(0.0301, 6.0); /* 0.005017: 0.01 */
    cr_assert_str_eq(chart_tick_label(&a, 25).s, "0.25");
    a = chart_axis_for(0.45, 6.0); /* 0.1 */
    cr_assert_str_eq(chart_tick_label(&a, 3).s, "0.3");
    cr_assert_str_eq(chart_tick_label(&a, -12).s, "-1.2");
    cr_assert_str_eq(chart_tick_label(&a, 0).s, "0");
}

/* real_brief: three significant digits for any magnitude but 0.01 to 0.1
 * (two there: three decimals), never more than three decimals above 0.01,
 * and the fixed widths the reasons use. */
Test(real, brief_keeps_three_significant_digits)
{
    cr_assert_str_eq(real_brief(123.456).s, "123");
    cr_assert_str_eq(real_brief(12.345).s, "12.3");
    cr_assert_str_eq(real_brief(1.2345).s, "1.23");
    cr_assert_str_eq(real_brief(0.2345).s, "0.234");
    cr_assert_str_eq(real_brief(0.0).s, "0.000");
    cr_assert_str_eq(real_brief(INFINITY).s, "inf");
    cr_assert_str_eq(real_brief(1e-300).s, "1e-300"); /* past REAL_MAX_DECIMALS: an exponent, not zeros */
    cr_assert_str_eq(real_brief(-1.5e-20).s, "-1.5e-20");
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double m = ldexp((double)(x >> 11), -53); /* [0, 1) */
        /* 1e-9 .. 1e3, both signs; every eighth 1e-290 .. 1e-9 */
        double v = pow(10.0, i % 8 ? -12.0 * m + 3.0 : -281.0 * m - 9.0) * (x & 1 ? -1.0 : 1.0);
        char g[64];
        snprintf(g, sizeof g, "%.3g", v);
        const char *t = real_brief(v).s;
        double back = strtod(t, NULL), three = strtod(g, NULL);
        /* three significant digits at least (the text within half a unit of
         * the third digit, as %.3g's is), but from 0.01 to 0.1, where three
         * decimals hold two: within half of 0.001 */
        double err = fabs(back - v);
        bool ok = fabs(v) >= 0.01 && fabs(v) < 0.1 ? err <= 0.5e-3 * (1 + 1e-9)
                                                    : err <= fabs(three - v) * (1 + 1e-9) + 1e-300 ||
                                                          err <= 0.5e-3 * fabs(v);
        cr_assert(ok, "%.17g: %s, .3g %s", v, t, g);
        if (fabs(v) >= 0.01) { /* no more decimals than the widths above */
            const char *dot = strchr(t, '.');
            size_t dec = dot ? strlen(dot + 1) : 0;
            cr_assert(dec <= 3, "%.17g: %s", v, t);
        }
    }
}

/* A speed-up printed to a fixed number of decimals beside "pays" or "does
 * not pay" stays on its side of 1: more decimals only where the fixed ones
 * would put it on 1 or past it. */
Test(real, fixed_apart_keeps_a_ratio_off_one)
{
    cr_assert_str_eq(real_fixed_apart(1.00004, 4, 1.0).s, "1.00004");
    cr_assert_str_eq(real_fixed_apart(0.99996, 4, 1.0).s, "0.99996");
    cr_assert_str_eq(real_fixed_apart(1.0, 4, 1.0).s, "1.0000");
    cr_assert_str_eq(real_fixed_apart(1.2345, 4, 1.0).s, "1.2345");
    cr_assert_str_eq(real_fixed_apart(1.0 + 0x1p-52, 4, 1.0).s, real_shortest(1.0 + 0x1p-52).s);
    cr_assert_str_eq(real_fixed_apart(100.4, 0, 100.0).s, "100.4");
    for (int e = 5; e <= 15; e++)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            double v = 1.0 + sgn * pow(10.0, -e) * 1.5;
            double got = strtod(real_fixed_apart(v, 4, 1.0).s, NULL);
            cr_assert((got > 1.0) == (v > 1.0) && got != 1.0, "%.17g: %s", v, real_fixed_apart(v, 4, 1.0).s);
        }
}

/* A bound printed beside the value it bounds stays on its side: real_apart's
 * text compares to the other value as the bound does, with real_brief's
 * text wherever that already does, and never fewer decimals than it. */
Test(real, apart_keeps_a_bound_on_its_side)
{
    cr_assert_str_eq(real_apart(1.29855, 1.299).s, "1.2986"); /* brief: 1.30, past 1.299 */
    cr_assert_str_eq(real_apart(1.22764, 1.228).s, "1.2276");
    cr_assert_str_eq(real_apart(1.5, 2.0).s, real_brief(1.5).s);
    cr_assert_str_eq(real_apart(1.2300000001, 1.23).s, "1.2300000001"); /* brief's 1.23 is the value itself */
    uint64_t x = 2463534242ull;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double m = ldexp((double)(x >> 11), -53);
        double other = 0.5 + 2.0 * m; /* a speed-up */
        /* the bound within 1e-3 .. 1e-12 of it, either side */
        double v = other * (1.0 + (x & 1 ? 1.0 : -1.0) * pow(10.0, -3.0 - 9.0 * ldexp((double)(x >> 40), -24)));
        const char *t = real_apart(v, other).s;
        double back = strtod(t, NULL);
        cr_assert((back < other) == (v < other) && (back > other) == (v > other), "%.17g beside %.17g: %s", v, other,
                  t);
        const char *dot = strchr(t, '.'), *brief = strchr(real_brief(v).s, '.');
        cr_assert(dot && strlen(dot + 1) >= strlen(brief + 1), "%.17g: %s", v, t);
    }
}

/* Byte counts for a person: the unit is the largest one the count reaches
 * (1 KiB = 1024 B), two decimals; values worked out by hand. */
Test(real, bytes_in_the_largest_binary_unit_they_reach)
{
    cr_assert_str_eq(real_bytes(0).s, "0 B");
    cr_assert_str_eq(real_bytes(1023).s, "1023 B");
    cr_assert_str_eq(real_bytes(1024).s, "1.00 KiB");
    cr_assert_str_eq(real_bytes(1536).s, "1.50 KiB");
    cr_assert_str_eq(real_bytes(11010048).s, "10.50 MiB");                   /* 10.5 x 2^20 */
    cr_assert_str_eq(real_bytes(23890755584ull).s, "22.25 GiB");             /* 22.25 x 2^30 */
    cr_assert_str_eq(real_bytes((1ull << 40) - 1).s, "1024.00 GiB");        /* just under 1 TiB: rounds up */
    cr_assert_str_eq(real_bytes(UINT64_MAX).s, "16.00 EiB");
}
