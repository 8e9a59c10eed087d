/* libFuzzer harness: the measured-timings reader (timing_csv.c) on
 * arbitrary CSV bytes, used as both timing.file and timing.frozen_file of a
 * fixed 2-rank 1F1B spec, then the plan (no freezing policy) for every input
 * that reads. */
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

static char csv[64], spec_text[512];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!csv[0]) {
        snprintf(csv, sizeof csv, "/dev/shm/tfc-fuzz-timing-%ld.csv", (long)getpid());
        snprintf(spec_text, sizeof spec_text,
                 "tfc: 1\nname: f\nmodel:\n  stages:\n    - params: [{name: a, numel: 1}]\n"
                 "    - params: [{name: a, numel: 1}]\n"
                 "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 2}\n"
                 "timing: {source: measured, file: %s, frozen_file: %s}\n",
                 csv, csv);
    }
    FILE *f = fopen(csv, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    arena a;
    arena_init(&a, 0);
    diag_list d;
    diag_init(&d, 8);
    const spec *s;
    if (spec_load_buffer("f.yaml", spec_text, strlen(spec_text), &a, &d, &s) == SPEC_OK) {
        plan_options o = {POLICY_NONE, 0};
        plan *p;
        (void)plan_build(s, &o, &a, &d, &p);
    }
    diag_free(&d);
    arena_free(&a);
    return 0;
}
