/* bench_check: in-process cost of reading and validating a spec, against
 * libyaml's own document loader on the same bytes (the baseline: parsing
 * alone, no schema, no limits), and the cost of refusing hostile input.
 * Prints medians over repeated runs and the ratio to the baseline.
 *
 *   bench_check [SPEC]     (default: specs/llama8b_1f1b.yaml)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "arena.h"
#include "diag.h"
#include "fio.h"
#include "spec.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Returns 1 if the spec loaded, 0 if it was refused. */
static int tfc_load(const char *buf, size_t len)
{
    arena a;
    diag_list d;
    arena_init(&a, 0);
    diag_init(&d, DIAG_DEFAULT_MAX);
    const spec *s;
    tfc_status st = spec_load_buffer("bench.yaml", buf, len, &a, &d, &s);
    diag_free(&d);
    arena_free(&a);
    return st == TFC_OK;
}

/* libyaml's document API: builds the whole node graph, checks nothing. */
static int libyaml_load(const char *buf, size_t len)
{
    yaml_parser_t p;
    yaml_document_t doc;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    int ok = yaml_parser_load(&p, &doc);
    if (ok)
        yaml_document_delete(&doc);
    yaml_parser_delete(&p);
    return ok;
}

static double time_median(int (*fn)(const char *, size_t), const char *buf, size_t len, size_t runs, int *result)
{
    double *t = malloc(runs * sizeof *t);
    for (size_t i = 0; i < runs; i++) {
        double t0 = now_us();
        *result = fn(buf, len);
        t[i] = now_us() - t0;
    }
    double m = median(t, runs);
    free(t);
    return m;
}

static char *nested(size_t depth, size_t *len)
{
    char *b = malloc(2 * depth + 1);
    memset(b, '[', depth);
    memset(b + depth, ']', depth);
    b[2 * depth] = '\0';
    *len = 2 * depth;
    return b;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "specs/llama8b_1f1b.yaml";
    diag_list d;
    diag_init(&d, 4);
    char *buf;
    size_t len;
    if (fio_read_all(path, SPEC_MAX_FILE_BYTES, &buf, &len, &d) != TFC_OK) {
        diag_print(&d, stderr);
        return 1;
    }
    diag_free(&d);

    int r1, r2;
    double ours = time_median(tfc_load, buf, len, 300, &r1);
    double base = time_median(libyaml_load, buf, len, 300, &r2);
    printf("spec %s (%zu bytes)\n", path, len);
    printf("  tfc read + validate     median %8.1f us  (%s)\n", ours, r1 ? "valid" : "REFUSED");
    printf("  libyaml document load   median %8.1f us  (baseline: parse only)\n", base);
    printf("  ratio tfc / baseline    %.2f\n", ours / base);
    free(buf);

    size_t dlen;
    char *deep = nested(100000, &dlen);
    double refuse = time_median(tfc_load, deep, dlen, 21, &r1);
    printf("100,000-deep flow nesting\n");
    printf("  tfc refuses in          median %8.1f us  (%s)\n", refuse, r1 ? "ACCEPTED?!" : "refused");
    free(deep);
    /* libyaml's loader takes tens of seconds at 100,000; measure it at 10,000. */
    deep = nested(10000, &dlen);
    double base_deep = time_median(libyaml_load, deep, dlen, 3, &r2);
    double ours_deep = time_median(tfc_load, deep, dlen, 21, &r1);
    printf("10,000-deep flow nesting\n");
    printf("  tfc refuses in          median %8.1f us\n", ours_deep);
    printf("  libyaml document load   median %8.1f us  (baseline)\n", base_deep);
    printf("  ratio tfc / baseline    %.5f\n", ours_deep / base_deep);
    free(deep);

    char lol[2048];
    size_t o = (size_t)snprintf(lol, sizeof lol, "a0: &a0 [l,l,l,l,l,l,l,l,l]\n");
    for (int i = 1; i < 10; i++) {
        o += (size_t)snprintf(lol + o, sizeof lol - o, "a%d: &a%d [", i, i);
        for (int k = 0; k < 9; k++)
            o += (size_t)snprintf(lol + o, sizeof lol - o, "%s*a%d", k ? "," : "", i - 1);
        o += (size_t)snprintf(lol + o, sizeof lol - o, "]\n");
    }
    double bomb = time_median(tfc_load, lol, o, 101, &r1);
    printf("billion laughs (9 levels x 9 aliases)\n");
    printf("  tfc refuses in          median %8.1f us  (%s)\n", bomb, r1 ? "ACCEPTED?!" : "refused");
    return 0;
}
