/* libFuzzer harness: the measured-timings readers on arbitrary bytes, used
 * as both timing.file and timing.frozen_file of a fixed 2-rank 1F1B spec:
 * once as CSV (timing_csv.c) and once as a Chrome trace (timing_trace.c),
 * then the plan (no freezing policy) for every input that reads. Then the
 * same bytes cut in two files named as lists (file: [A, B], frozen_file:
 * [B, A]): samples pooled across files, messages naming either one; the
 * trace read with timing.scale, and the two trace files as ranks sharing one
 * processor (samples_shared_work on whatever "ts" the bytes hold). */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "plan.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { SPECS = 4 };
static char csv[64], part[2][64], spec_text[SPECS][768];

static bool write_bytes(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    fwrite(data, 1, size, f);
    return fclose(f) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!csv[0]) {
        long pid = (long)getpid();
        snprintf(csv, sizeof csv, "/dev/shm/tfc-fuzz-timing-%ld.csv", pid);
        snprintf(part[0], sizeof part[0], "/dev/shm/tfc-fuzz-timing-%ld-a.csv", pid);
        snprintf(part[1], sizeof part[1], "/dev/shm/tfc-fuzz-timing-%ld-b.csv", pid);
        for (int k = 0; k < SPECS; k++) {
            const char *source = k % 2 ? "trace" : "measured";
            char file[160], frozen[160];
            if (k < 2) {
                snprintf(file, sizeof file, "%s", csv);
                snprintf(frozen, sizeof frozen, "%s", csv);
            } else {
                snprintf(file, sizeof file, "[%s, %s]", part[0], part[1]);
                snprintf(frozen, sizeof frozen, "[%s, %s]", part[1], part[0]);
            }
            snprintf(spec_text[k], sizeof spec_text[k],
                     "tfc: 1\nname: f\nmodel:\n  stages:\n    - params: [{name: a, numel: 1}]\n"
                     "    - params: [{name: a, numel: 1}]\n"
                     "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 2%s}\n"
                     "timing: {source: %s, file: %s, frozen_file: %s%s}\n",
                     k == 3 ? ", processors: 1" : "", source, file, frozen, k == 1 ? ", scale: 0.5" : "");
        }
    }
    /* The cut: after the first newline past the middle, or at the middle. */
    size_t cut = size / 2;
    while (cut < size && data[cut] != '\n')
        cut++;
    cut = cut < size ? cut + 1 : size / 2;
    if (!write_bytes(csv, data, size) || !write_bytes(part[0], data, cut) ||
        !write_bytes(part[1], data + cut, size - cut))
        return 0;
    for (int k = 0; k < SPECS; k++) {
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
