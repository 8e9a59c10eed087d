/* model_impl: what model.c (the dispatch and the parts both models share:
 * tensor allocation, zeroing, AdamW) and each model (mlp.c, gpt.c) give
 * each other. Not for the trainer: it uses model.h. */
#ifndef TINY_MODEL_IMPL_H
#define TINY_MODEL_IMPL_H

#include "model.h"

/* Appends a tensor of numel elements named name (a string literal) to the
 * stage: parameters, gradient and moments zeroed. Returns its parameters,
 * or NULL when out of memory. */
real *model_add_tensor(stage_model *sm, const char *name, uint64_t numel);

/* Deterministic draws from a splitmix64 state. */
uint64_t model_rng(uint64_t *state);
real model_uniform(uint64_t *state, double a);  /* uniform in (-a, a) */
real model_normal(uint64_t *state, double std); /* normal, Box-Muller */

/* Bit t of a frozen mask (NULL: nothing frozen). */
static inline bool model_is_frozen(const uint64_t *mask, int t)
{
    return mask && (mask[t / 64] >> (t % 64)) & 1u;
}

/* Eight partial sums in a fixed order: a dot product the compiler keeps in
 * vector registers without reassociating, so results are deterministic. */
static inline real model_dot(const real *restrict a, const real *restrict b, int n)
{
    real s[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++)
            s[j] += a[i + j] * b[i + j];
    for (; i < n; i++)
        s[0] += a[i] * b[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* Each model: the same contract as the model_* function of the same name
 * in model.h. init adds its tensors with model_add_tensor (in spec order)
 * and sets sm->impl; free releases impl only (model.c frees the tensors). */
int mlp_positions_per_seq(void);
bool mlp_init(stage_model *sm, uint64_t seed);
void mlp_free(stage_model *sm);
size_t mlp_message_reals(const stage_model *sm);
const real *mlp_forward(stage_model *sm, int mb, const real *in);
void mlp_backward(stage_model *sm, int mb, const real *dout, real *din, const uint64_t *frozen, double scale_positions);

int gpt_positions_per_seq(void);
bool gpt_init(stage_model *sm, uint64_t seed);
void gpt_free(stage_model *sm);
size_t gpt_message_reals(const stage_model *sm);
const real *gpt_forward(stage_model *sm, int mb, const real *in);
void gpt_backward(stage_model *sm, int mb, const real *dout, real *din, const uint64_t *frozen, double scale_positions);

#endif
