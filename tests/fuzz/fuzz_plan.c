/* libFuzzer harness: plan.json read back (json_read.c, plan_diff.c) on
 * arbitrary bytes, and every plan that reads compared with itself (which
 * must come out the same) and printed as text and JSON. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "arena.h"
#include "diag.h"
#include "plan_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena a;
    arena_init(&a, (size_t)256 << 20);
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    plan_doc p;
    if (plan_doc_parse("fuzz.json", (const char *)data, size, &a, &d, &p) == TFC_OK) {
        if (plan_diff_same(&p, &p, 0) == 0)
            abort(); /* a plan differs from itself */
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            (void)plan_diff_print(&p, &p, 1e-6, false, null);
            (void)plan_diff_print(&p, &p, 1e-6, true, null);
            fclose(null);
        }
    }
    diag_free(&d);
    arena_free(&a);
    return 0;
}
