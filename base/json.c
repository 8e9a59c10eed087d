/* json: escaping and round-trip number formatting. */
#include "json.h"

#include <math.h>
#include <stdlib.h>

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void json_number(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    if (v == 0.0)
        v = 0.0; /* no "-0" */
    char buf[48];
    double mag = fabs(v);
    if (mag >= 1e-4 && mag < 1e15) {
        /* Plain decimals: the fewest digits after the point that read back exactly. */
        for (int dec = 0; dec <= 20; dec++) {
            snprintf(buf, sizeof buf, "%.*f", dec, v);
            if (strtod(buf, NULL) == v)
                break;
        }
    } else {
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, v);
            if (strtod(buf, NULL) == v)
                break;
        }
    }
    fputs(buf, f);
}
