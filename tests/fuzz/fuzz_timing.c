/* libFuzzer harness: the measured-timings readers on arbitrary bytes, used
 * as both timing.file and timing.frozen_file of a fixed 2-rank 1F1B spec:
 * once as CSV (timing_csv.c) and once as a Chrome trace (timing_trace.c),
 * then the plan (no freezing policy) for every input that reads. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "plan.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char csv[64], spec_text[2][512];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!csv[0]) {
        snprintf(csv, sizeof csv, "/dev/shm/tfc-fuzz-timing-%ld.csv", (long)getpid());
        for (int k = 0; k < 2; k++)
            snprintf(spec_text[k], sizeof spec_text[k],
                     "tfc: 1\nname: f\nmodel:\n  stages:\n    - params: [{name: a, numel: 1}]\n"
                     "    - params: [{name: a, numel: 1}]\n"
                     "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 2}\n"
                     "timing: {source: %s, file: %s, frozen_file: %s}\n",
                     k ? "trace" : "measured", csv, csv);
    }
    FILE *f = fopen(csv, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    for (int k = 0; k < 2; k++) {
        arena a;
        arena_init(&a, 0);
        diag_list d;
        diag_init(&d, 8);
        const spec *s;
        if (spec_load_buffer("f.yaml", spec_text[k], strlen(spec_text[k]), &a, &d, &s) == TFC_OK) {
            plan_options o = {.policy = POLICY_NONE};
            plan *p;
            (void)plan_build(s, &o, &a, &d, &p);
        }
        diag_free(&d);
        arena_free(&a);
    }
    return 0;
}
