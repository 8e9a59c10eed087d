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

void real_print(FILE *f, double v) { fputs(real_shortest(v).s, f); }

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
