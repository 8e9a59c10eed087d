/* rules: the dependency rules of a training step, written out again for
 * the tests' oracles (not from dag.c): program order on each rank;
 * F(s,m) after F(s-1,m); B|I(s,m) after F(s,m) and after B|I(s+1,m);
 * W(s,m) after I(s,m). */
#ifndef TFC_TEST_RULES_H
#define TFC_TEST_RULES_H

#include "sched.h"

/* The actions v waits for (at most 3), by the rules above. */
unsigned rules_preds(const sched *s, uint32_t v, uint32_t out[3]);

#endif
