/* real: the one way tfc prints a real number, and the check that the
 * arithmetic behind it is pinned.
 *
 * Every real tfc writes (C and CUDA tables, plan.json, CSV, SVG, the text
 * of tfc plan) goes through real_shortest or real_fixed, so the same double
 * gives the same bytes on every platform: no "-0", no locale, no digit the
 * value does not have. What makes the double itself the same on every build
 * is CMakeLists.txt ("Pinned arithmetic") and real_arith_check below. */
#ifndef TFC_REAL_H
#define TFC_REAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Room for any text below: 17 significant digits, a sign, a point, an
 * exponent, or a fixed form below 1e15 with at most REAL_MAX_DECIMALS. */
#define REAL_TEXT_CAP 48
#define REAL_MAX_DECIMALS 17

/* Returned by value: real_fixed(v, 1).s is valid until the end of the full
 * expression that holds it, so it can be an argument of fprintf (C11
 * 6.2.4p8). */
typedef struct real_text {
    char s[REAL_TEXT_CAP];
} real_text;

/* The shortest text that reads back (strtod) to exactly v: plain decimals
 * for 1e-4 <= |v| < 1e15 (the fewest digits after the point), otherwise
 * %g with the fewest significant digits. -0 is written "0"; NaN and the
 * infinities as "nan", "inf" and "-inf" (json_number writes null instead). */
real_text real_shortest(double v);

/* v rounded to decimals digits after the point (0..REAL_MAX_DECIMALS),
 * round-half-even on v's exact binary value as C's printf does; never a
 * negative zero ("-0.0" is written "0.0"). Magnitudes of 1e15 and above,
 * and non-finite values, as real_shortest. For labels and coordinates: the
 * text is rounded, the value behind it is not. */
real_text real_fixed(double v, int decimals);

/* v for a sentence (a ratio, a beta, a speed-up): three significant digits
 * or so, as real_fixed with 0 decimals from 100, 1 from 10, 2 from 1, 3
 * from 0.01 (two significant digits below 0.1), and below 0.01 as many as
 * three significant digits take (0.00123); 0 as "0.000", non-finite values
 * as real_shortest. */
real_text real_brief(double v);

/* v as real_brief, with more decimals where its text would fall on the
 * other side of other, or on it, while v does not: a bound printed beside
 * the value it bounds ("1.299 is more than 1.2986", not "than 1.30"). */
real_text real_apart(double v, double other);

/* v as real_fixed(v, decimals), with more decimals where that text would
 * fall on the other side of other, or on it, while v does not: a speed-up
 * of 1.00004 beside "freezing pays" is "1.00004x", not "1.0000x". */
real_text real_fixed_apart(double v, int decimals, double other);

/* A byte count for a person: "N B" below 1 KiB, else two decimals in the
 * largest binary unit it reaches (KiB to EiB): "10.49 MiB", "22.25 GiB". */
real_text real_bytes(uint64_t b);

/* fputs(real_shortest(v).s, f). */
void real_print(FILE *f, double v);

/* Whether texts a and b (lengths na, nb) are the same but for the last
 * digits of reals: two numbers that differ are compared by value when
 * either is written with a point or an exponent ("10" against
 * "10.000000000000002"), while two integers (counts, 0x1f, 7ull) and
 * identifiers like stage3 must match exactly; and
 * two reals count as the same but for their last digits when they differ by
 * at most 1e-9 of their magnitude, or, where the text holds rounded reals
 * (rounded: an SVG's coordinates and labels), by one unit of the last digit
 * either was written with (0.1 for "12.3": a value rounded the other way).
 * Returns how many reals differ (0: a and b are equal), or -1 when anything
 * else differs. What tfc verify says of a folder written by a build with
 * other floating-point settings. */
long real_text_diff(const char *a, size_t na, const char *b, size_t nb, bool rounded);

/* Whether this build's arithmetic is the pinned one: IEEE binary64
 * evaluated in double (FLT_EVAL_METHOD 0), no contraction of a * b + c into
 * a fused multiply-add, no fast-math. Checked at run time on operands the
 * compiler cannot see (a product that rounds away from its exact value), so
 * it reports what the compiled code does. NULL when pinned, else the reason. */
const char *real_arith_check(void);

#endif
