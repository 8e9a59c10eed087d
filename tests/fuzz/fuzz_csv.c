/* libFuzzer harness: the custom-schedule CSV reader, then the DAG (and its
 * cycle report) for every CSV that reads, against a fixed 2-rank spec with
 * both full and split backward timings. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "dag.h"
#include "diag.h"
#include "sched_csv.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char spec_text[] =
    "tfc: 1\nname: f\nmodel:\n  stages:\n"
    "    - params: [{name: a, numel: 1}]\n    - params: [{name: a, numel: 1}]\n"
    "    - params: [{name: a, numel: 1}]\n    - params: [{name: a, numel: 1}]\n"
    "pipeline: {schedule: custom, ranks: 2, stages_per_rank: 2, microbatches: 3, order: o.csv}\n"
    "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1, backward_input_ms: 1,\n"
    "         backward_weight_ms: 1}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena a;
    diag_list d;
    const spec *s;
    sched *sc;
    dag *g;
    arena_init(&a, 0);
    diag_init(&d, DIAG_DEFAULT_MAX);
    if (spec_load_buffer("f.yaml", spec_text, sizeof spec_text - 1, &a, &d, &s) == TFC_OK &&
        sched_csv_parse(s, "o.csv", (const char *)data, size, &a, &d, &sc))
        dag_build(sc, s->path, s->pos_schedule, &a, &d, &g);
    diag_free(&d);
    arena_free(&a);
    return 0;
}
