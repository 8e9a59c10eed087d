/* spec_variant: the spec's model, ranks, microbatches and freezing under
 * another built-in schedule, for tfc plan --compare. A schedule with another
 * stage count gets the model's tensors re-split into that many stages and
 * timings re-derived for them; a split schedule given only full backwards
 * gets I and W from B (docs/schedules.md, "Comparing schedules"). */
#ifndef TFC_SPEC_VARIANT_H
#define TFC_SPEC_VARIANT_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "spec.h"

/* One stage's timings, ms, all six filled. */
typedef struct spec_times {
    double f, b, bf, i, w, wf; /* forward; backward and frozen; input grad; weight grad and frozen */
} spec_times;

/* What a variant's timings come from (bits). */
enum {
    VARIANT_RESPLIT = 1u,    /* tensors re-split into another stage count, timings by parameter share */
    VARIANT_MODEL = 2u,      /* the cost model at the variant's stage count */
    VARIANT_SPLIT_FROM_B = 4u, /* I and W from B and B frozen (the rule in spec_times_complete) */
    VARIANT_B_FROM_SPLIT = 8u, /* B = I + W, B frozen = I + W frozen */
    VARIANT_MEASURED = 16u,  /* per-stage means of the spec's measured actions */
};

/* The spec's per-stage tables into t (n_stages entries) and completed;
 * false with source measured or trace (no tables: the caller takes means
 * from a plan). *derived gets the VARIANT_SPLIT_FROM_B / _B_FROM_SPLIT bits
 * of what was filled in. */
bool spec_times_from_tables(const spec *sp, spec_times *t, unsigned *derived);

/* Fills what one stage's timings leave out (a field < 0 is missing):
 * with B and B frozen only, W = (B - B frozen) / (1 - s) and I = B - W, so
 * that I + W = B and I + s W = B frozen with s = SPEC_W_FLOOR_SHARE, W
 * frozen = s W; when B frozen <= s B, I = W frozen = B frozen / 2. With I
 * and W only, B = I + W and B frozen = I + W frozen (W frozen s W when
 * missing). Returns the VARIANT_* bits of what it filled. */
unsigned spec_times_complete(spec_times *t);

/* A spec like sp with schedule kind and v stages per rank, the stage
 * timings from base (sp->n_stages entries). Returns NULL with the reason in
 * why when it cannot be made (fewer tensors or layers than stages, limits);
 * *how gets the VARIANT_* bits that apply to it. Allocated in a. */
spec *spec_variant(const spec *sp, const spec_times *base, unsigned base_how, spec_schedule kind, uint32_t v, arena *a,
                   char *why, size_t why_cap, unsigned *how);

#endif
