/* chart: what the SVG charts (timeline.svg, pareto.svg, compare.svg) share. */
#ifndef TFC_CHART_H
#define TFC_CHART_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "real.h"

/* An axis's grid: ticks at k x step for k = first..last, step = mant x
 * 10^exp with mant 1, 2 or 5. Chosen, placed and labelled with integers and
 * correctly rounded operations only (no pow or log10, whose last bits
 * differ between C libraries), so every build draws the same chart, and
 * each label is the tick's exact decimal value. */
typedef struct chart_axis {
    int64_t first, last;
    int64_t mant;
    int exp; /* -22..22: every 10^exp below is one rounding from exact */
    double step;
} chart_axis;

/* 10^e: exact for 0 <= e <= 22; for e < 0 one correctly rounded division. */
static inline double chart_pow10(int e)
{
    double p = 1.0;
    for (int i = 0; i < (e < 0 ? -e : e); i++)
        p *= 10.0;
    return e < 0 ? 1.0 / p : p;
}

/* n x 10^e, as exactly as one rounding allows. */
static inline double chart_scaled(int64_t n, int e) { return e < 0 ? (double)n / chart_pow10(-e) : (double)n * chart_pow10(e); }

/* The smallest step of 1, 2 or 5 x 10^e at or above span / count (about
 * count steps over span), with first = last = 0. */
static inline chart_axis chart_axis_for(double span, double count)
{
    double raw = span / count;
    if (!(raw > 0) || !isfinite(raw))
        raw = 1;
    int e = 0;
    while (e < 21 && chart_pow10(e + 1) <= raw)
        e++;
    while (e > -22 && chart_pow10(e) > raw)
        e--;
    chart_axis a = {0, 0, 10, e, 0.0};
    static const int64_t mant[3] = {1, 2, 5};
    for (int i = 0; i < 3 && a.mant == 10; i++)
        if (raw <= chart_scaled(mant[i], e))
            a.mant = mant[i];
    if (a.mant == 10)
        a.mant = 1, a.exp = e + 1;
    a.step = chart_scaled(a.mant, a.exp);
    return a;
}

/* Ticks from the last at or below lo to the first at or above hi. */
static inline void chart_axis_cover(chart_axis *a, double lo, double hi)
{
    a->first = (int64_t)floor(lo / a->step);
    a->last = (int64_t)ceil(hi / a->step);
    if (a->last <= a->first)
        a->last = a->first + 1;
}

/* Tick k's value and its label (the exact decimal k x mant x 10^exp). */
static inline double chart_tick(const chart_axis *a, int64_t k) { return chart_scaled(k * a->mant, a->exp); }

static inline real_text chart_tick_label(const chart_axis *a, int64_t k)
{
    real_text t;
    int64_t v = k * a->mant;
    char digits[24];
    snprintf(digits, sizeof digits, "%llu", (unsigned long long)(v < 0 ? -(uint64_t)v : (uint64_t)v));
    size_t n = strlen(digits), o = 0;
    if (v < 0)
        t.s[o++] = '-';
    if (v == 0 || a->exp >= 0) {
        memcpy(t.s + o, digits, n), o += n;
        for (int i = 0; v != 0 && i < a->exp; i++)
            t.s[o++] = '0';
    } else {
        size_t dec = (size_t)-a->exp;
        size_t whole = n > dec ? n - dec : 0;
        if (whole)
            memcpy(t.s + o, digits, whole), o += whole;
        else
            t.s[o++] = '0';
        t.s[o++] = '.';
        for (size_t i = n; i < dec; i++)
            t.s[o++] = '0';
        memcpy(t.s + o, digits + whole, n - whole), o += n - whole;
        while (t.s[o - 1] == '0') /* 2.50 -> 2.5; a nonzero digit stops it */
            o--;
        if (t.s[o - 1] == '.')
            o--;
    }
    t.s[o] = '\0';
    return t;
}

/* The plot's frame (x0, y0, w, h) and, across it, a grey line and a label
 * at each tick of the value axis ay, which spans the frame's height from
 * its first tick at the bottom to its last at the top. */
static inline void chart_frame(FILE *f, const chart_axis *ay, double x0, double y0, double w, double h)
{
    double lo = chart_tick(ay, ay->first), hi = chart_tick(ay, ay->last);
    fprintf(f, "  <rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#999999\"/>\n",
            real_fixed(x0, 1).s, real_fixed(y0, 1).s, real_fixed(w, 1).s, real_fixed(h, 1).s);
    for (int64_t k = ay->first; k <= ay->last; k++) {
        double y = y0 + h - (chart_tick(ay, k) - lo) / (hi - lo) * h;
        fprintf(f,
                "  <line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#e5e5e5\"/>"
                "<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n",
                real_fixed(x0, 1).s, real_fixed(y, 1).s, real_fixed(x0 + w, 1).s, real_fixed(y, 1).s,
                real_fixed(x0 - 6, 1).s, real_fixed(y + 4, 1).s, chart_tick_label(ay, k).s);
    }
}

/* label, made fit for an XML comment (no "--"): the second of two hyphens
 * becomes '_'. */
static inline void chart_comment_text(const char *label, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = label; *p && n + 1 < cap; p++, n++)
        out[n] = (*p == '-' && n > 0 && out[n - 1] == '-') ? '_' : *p;
    if (cap)
        out[n] = '\0';
}

#endif
