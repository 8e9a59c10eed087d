/* plot: two training logs as one SVG. */
#define _POSIX_C_SOURCE 200809L
#include "plot.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct series {
    size_t n;
    double *step, *train, *val; /* val NAN where not evaluated */
} series;

static bool read_log(const char *path, series *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[512];
    size_t cap = 0;
    bool ok = fgets(line, sizeof line, f) != NULL; /* header */
    while (ok && fgets(line, sizeof line, f)) {
        if (s->n == cap) {
            cap = cap ? 2 * cap : 256;
            double *a = realloc(s->step, cap * sizeof *a), *b = a ? realloc(s->train, cap * sizeof *b) : NULL;
            if (a)
                s->step = a;
            if (b)
                s->train = b;
            double *c = b ? realloc(s->val, cap * sizeof *c) : NULL;
            if (c)
                s->val = c;
            if (!a || !b || !c) {
                ok = false;
                break;
            }
        }
        char *p = line, *end;
        s->step[s->n] = strtod(p, &end);
        if (*end != ',')
            break;
        s->train[s->n] = strtod(end + 1, &end);
        if (*end != ',')
            break;
        p = end + 1;
        s->val[s->n] = *p == ',' ? NAN : strtod(p, &end);
        s->n++;
    }
    fclose(f);
    return ok && s->n > 0;
}

static void free_series(series *s)
{
    free(s->step);
    free(s->train);
    free(s->val);
}

enum { W = 720, H = 420, L = 60, R = 20, T = 30, B = 50, SMOOTH = 10 };

static double xmap(double v, double lo, double hi)
{
    return L + (v - lo) / (hi - lo) * (W - L - R);
}

static double ymap(double v, double lo, double hi)
{
    return H - B - (v - lo) / (hi - lo) * (H - T - B);
}

static void curve(FILE *f, const series *s, double x0, double x1, double y0, double y1, const char *color,
                  const char *dash)
{
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"", color, dash);
    for (size_t i = 0; i < s->n; i++) {
        size_t a = i + 1 >= SMOOTH ? i + 1 - SMOOTH : 0;
        double m = 0;
        for (size_t j = a; j <= i; j++)
            m += s->train[j];
        m /= (double)(i + 1 - a);
        fprintf(f, "%.1f,%.1f ", xmap(s->step[i], x0, x1), ymap(fmin(m, y1), y0, y1));
    }
    fputs("\"/>\n", f);
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(s->val[i]))
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", xmap(s->step[i], x0, x1),
                    ymap(fmin(s->val[i], y1), y0, y1), color);
}

int plot_losses(const char *no_freeze_csv, const char *freeze_csv, const char *svg_path)
{
    series a, b;
    if (!read_log(no_freeze_csv, &a) || !read_log(freeze_csv, &b)) {
        fprintf(stderr, "plot: cannot read %s or %s\n", no_freeze_csv, freeze_csv);
        return 1;
    }
    double x0 = fmin(a.step[0], b.step[0]), x1 = fmax(a.step[a.n - 1], b.step[b.n - 1]);
    if (x1 <= x0)
        x1 = x0 + 1;
    double y0 = 1e30, y1 = 0;
    for (int k = 0; k < 2; k++) {
        const series *s = k ? &b : &a;
        for (size_t i = 0; i < s->n; i++) {
            y0 = fmin(y0, s->train[i]);
            if (!isnan(s->val[i]))
                y0 = fmin(y0, s->val[i]);
        }
    }
    y0 = floor(y0 * 2) / 2;
    y1 = y0 + 3.0;
    FILE *f = fopen(svg_path, "w");
    if (!f) {
        fprintf(stderr, "plot: cannot write %s\n", svg_path);
        free_series(&a);
        free_series(&b);
        return 1;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    for (int k = 0; k <= 6; k++) {
        double v = y0 + k * 0.5;
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, W - R,
                ymap(v, y0, y1), ymap(v, y0, y1));
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", L - 6, ymap(v, y0, y1) + 4, v);
    }
    for (int k = 0; k <= 5; k++) {
        double v = x0 + (x1 - x0) * k / 5;
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n", xmap(v, x0, x1), H - B + 18, v);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">step</text>\n", (W + L - R) / 2, H - 12);
    fprintf(f, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">loss (nats per "
               "character)</text>\n", (H - B + T) / 2, (H - B + T) / 2);
    curve(f, &a, x0, x1, y0, y1, "#1f77b4", "");
    curve(f, &b, x0, x1, y0, y1, "#d62728", " stroke-dasharray=\"5,3\"");
    fprintf(f, "<text x=\"%d\" y=\"18\">training loss (mean of %d steps) and validation loss (dots): "
               "<tspan fill=\"#1f77b4\">no freezing</tspan>, <tspan fill=\"#d62728\">the plan's freezing"
               "</tspan></text>\n</svg>\n", L, SMOOTH);
    int rc = fclose(f) == 0 ? 0 : 1;
    free_series(&a);
    free_series(&b);
    return rc;
}
