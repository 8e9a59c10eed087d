/* chart: what the SVG charts (pareto.svg, compare.svg) share. */
#ifndef TFC_CHART_H
#define TFC_CHART_H

#include <math.h>
#include <stddef.h>

/* A grid step of 1, 2 or 5 times a power of ten giving about six lines over span. */
static inline double chart_nice_step(double span)
{
    double raw = span / 6.0, p = pow(10.0, floor(log10(raw > 0 ? raw : 1)));
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
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
