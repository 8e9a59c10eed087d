/* actmem: activation memory of a schedule. Rank r holds the activations of
 * (stage, microbatch) from its forward until the last action that needs
 * them: the full backward B, or the weight gradient W when the backward is
 * split (W needs the layer inputs too). A rank runs its program in order,
 * so what it holds at once follows from the order alone, not the timing. */
#ifndef TFC_ACTMEM_H
#define TFC_ACTMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "sched.h"
#include "spec.h"

/* Per rank (s->ranks entries): the most activation sets held at once, and
 * the most bytes (model.stages[i].activation_bytes per microbatch; 0 for
 * stages that do not give it). Returns whether every stage gives its
 * bytes. */
bool actmem_peaks(const sched *s, const spec *sp, uint32_t *peak_sets, uint64_t *peak_bytes);

#endif
