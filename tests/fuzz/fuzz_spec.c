/* libFuzzer harness: the spec front-end (UTF-8 check, libyaml events, the
 * bounded tree, the schema) and, for specs that pass, schedule + DAG. */
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "dag.h"
#include "diag.h"
#include "sched_build.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena a;
    diag_list d;
    const spec *s;
    arena_init(&a, 0);
    diag_init(&d, DIAG_DEFAULT_MAX);
    if (spec_load_buffer("fuzz.yaml", (const char *)data, size, &a, &d, &s) == TFC_OK &&
        s->schedule != SCHED_CUSTOM) {
        sched *sc;
        dag *g;
        if (sched_build(s, &a, &d, &sc) == TFC_OK)
            dag_build(sc, s->path, s->pos_schedule, &a, &d, &g);
    }
    diag_free(&d);
    arena_free(&a);
    return 0;
}
