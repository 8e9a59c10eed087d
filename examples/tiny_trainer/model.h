/* model: the example's language models behind one interface, each split
 * into two pipeline stages. The spec the trainer was compiled against lists
 * the same tensors in the same order (a tensor's index in its stage is its
 * bit in the generated frozen mask; tiny.yaml for the MLP, tiny_gpt.yaml for
 * the transformer).
 *
 *   MODEL_MLP  a character-level MLP (mlp.c): each byte predicted from the
 *              CTX before it; stage 0 embeds and runs three tanh layers,
 *              stage 1 three more and the output layer with the loss.
 *   MODEL_MLP_NARROW  the same MLP, narrower (tiny_narrow.yaml): a seventh
 *              of the work a prediction, for the batch-regime sweep's
 *              large batches.
 *   MODEL_GPT  a small GPT-style transformer (gpt.c): token and position
 *              embeddings, pre-norm blocks of causal self-attention and an
 *              MLP, a final layer norm and the output layer; stage 0 holds
 *              the embeddings and the first half of the blocks, stage 1 the
 *              rest and the loss.
 *
 * Both see microbatches of whole sequences of SEQ byte tokens (corpus.h)
 * and return the next-token loss summed over their predictions. A frozen
 * tensor's weight-gradient work is skipped, not just its update.
 *
 * TINY_REAL is float for training; the gradient checks compile the same
 * files with double. */
#ifndef TINY_MODEL_H
#define TINY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef TINY_REAL
#define TINY_REAL float
#endif
typedef TINY_REAL real;

enum {
    VOCAB = 128,      /* bytes; others map to '?' */
    MODEL_STAGES = 2,
    MAX_TENSORS = 32, /* per stage: one 64-bit mask word */
};

typedef enum { MODEL_MLP = 0, MODEL_GPT = 1, MODEL_MLP_NARROW = 2 } model_kind;

/* What the optimiser does with a tensor's gradient after a step in which
 * only some microbatches computed it (docs/optimizer-contract.md; c: the
 * microbatches that computed it, M: the step's microbatches). */
typedef enum {
    GRAD_SHARE = 0,  /* the sum of each contributing microbatch's share (1 / M of the batch mean
                        each): what PyTorch accumulates; the contract */
    GRAD_MEAN = 1,   /* the mean over the contributing microbatches only (rescaled by M / c) */
    GRAD_SQRT = 2,   /* the share, and the tensor's step size (weight decay included) times
                        sqrt(c / M) (Adam's rule for a smaller batch) */
    GRAD_LINEAR = 3, /* the share, and the tensor's step size (weight decay included) times c / M */
} grad_mode;

typedef struct optim {
    double lr;           /* this step's learning rate */
    double beta1, beta2, eps, weight_decay; /* AdamW; decay is decoupled, applied with lr */
    grad_mode grad;
} optim;

/* One stage's parameters, gradients, optimiser state and counters. The
 * model's own layers and activations hang off impl. */
typedef struct stage_model {
    model_kind kind;
    int stage;                 /* 0 .. MODEL_STAGES - 1; the last has the loss */
    int seqs, microbatches;    /* sequences per microbatch, microbatches per step */
    int positions;             /* predictions per microbatch: seqs * model_positions_per_seq(kind) */
    int n_tensors;
    const char *tensor_name[MAX_TENSORS]; /* as in the spec */
    real *param[MAX_TENSORS], *grad[MAX_TENSORS], *m[MAX_TENSORS], *v[MAX_TENSORS];
    uint64_t numel[MAX_TENSORS];
    int contributions[MAX_TENSORS]; /* microbatches that added to grad this step */
    uint64_t adam_steps[MAX_TENSORS]; /* updates this tensor has had (bias correction) */
    /* Set by the trainer: tokens[mb] holds the microbatch's seqs sequences
     * of SEQ tokens back to back; stage 0 reads its inputs there, the last
     * stage its targets. */
    const uint16_t **tokens;
    double loss_sum;           /* last stage: summed over predictions since model_zero_grad */
    double dw_flops, dw_flops_skipped; /* weight-gradient multiply-adds this step, and those skipped */
    void *impl;
} stage_model;

/* Predictions per sequence of SEQ tokens. */
int model_positions_per_seq(model_kind kind);

/* Allocates stage `stage` with weights drawn from seed (the same seed gives
 * the same model). False when out of memory (nothing left allocated). */
bool model_init(stage_model *sm, model_kind kind, int stage, int seqs, int microbatches, uint64_t seed);
void model_free(stage_model *sm);

/* Reals in one microbatch's message between the stages (the activation
 * forward, its gradient backward: the same size). */
size_t model_message_reals(const stage_model *sm);

/* Forward of microbatch mb. Stage 0 reads sm->tokens[mb] and returns its
 * output activation (valid until the next forward of mb); the last stage
 * reads in and adds the loss to loss_sum, and returns NULL. */
const real *model_forward(stage_model *sm, int mb, const real *in);

/* Backward of microbatch mb, after its forward: dout is the gradient of
 * the stage's output (NULL on the last stage: the loss's own, scaled by
 * 1 / scale_positions). Adds the weight gradients of every tensor whose bit
 * in frozen is clear (frozen may be NULL: nothing frozen), skipping the
 * multiplications of the others; writes the gradient of the stage's input
 * to din (last stage) unless din is NULL. Adds 1 to contributions[t] of each
 * tensor not frozen. */
void model_backward(stage_model *sm, int mb, const real *dout, real *din, const uint64_t *frozen,
                    double scale_positions);

/* Clears gradients, contributions, loss and counters for a new step. */
void model_zero_grad(stage_model *sm);

/* One AdamW update of every tensor that got a contribution this step
 * (a tensor that got none keeps its parameters and moments). */
void model_adam(stage_model *sm, const optim *o);

#endif
