/* model: the example's character-level MLP language model, split into two
 * pipeline stages (tiny.yaml lists the same tensors in the same order: a
 * tensor's index in its stage is its bit in the generated frozen mask).
 *
 * Stage 0: byte embedding over a CTX-character context, three tanh layers.
 * Stage 1: three tanh layers, the output layer and the softmax loss.
 * Tanh layers from HID to HID are residual (y = x + tanh(x W + b)): without
 * the skip the seven-layer stack sat at the unigram loss (3.25 nats)
 * for 600 steps, its early layers' gradients 1,000 times smaller than the
 * output layer's.
 * Matrices are input-major (in x out), rows of a microbatch are positions.
 *
 * TINY_REAL is float for training; the gradient check compiles the same
 * file with double. */
#ifndef TINY_MODEL_H
#define TINY_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#ifndef TINY_REAL
#define TINY_REAL float
#endif
typedef TINY_REAL real;

enum {
    VOCAB = 128,  /* bytes; others map to '?' */
    CTX = 16,     /* characters of context per prediction */
    EMB = 16,     /* embedding width: CTX x EMB = 256 inputs */
    HID = 192,    /* hidden width */
    MODEL_STAGES = 2,
    MAX_LAYERS = 4,
    MAX_TENSORS = 8,
};

typedef struct layer {
    int in, out;
    bool tanh_act;
    bool residual;       /* y = x + tanh(x W + b) (in == out) */
    real *w, *b;         /* in x out, out */
    real *gw, *gb;       /* gradients, same shapes */
    int w_tensor, b_tensor; /* the tensors' indices in the stage */
} layer;

/* One stage's parameters, gradients and per-microbatch activations. */
typedef struct stage_model {
    int stage;
    int n_layers;
    layer l[MAX_LAYERS];
    real *emb, *gemb;    /* stage 0: VOCAB x EMB */
    int n_tensors;
    real *param[MAX_TENSORS], *grad[MAX_TENSORS], *m[MAX_TENSORS], *v[MAX_TENSORS];
    uint64_t numel[MAX_TENSORS];
    int contributions[MAX_TENSORS]; /* microbatches that added to grad this step */
    /* Per microbatch: each layer's input (act[mb][0] is the embedded context
     * on stage 0, the received activation on stage 1) and output. */
    int positions, microbatches;
    real **act;          /* [mb * (MAX_LAYERS + 1) + k], positions x width */
    real **probs;        /* stage 1: [mb], positions x VOCAB softmax */
    const uint16_t **ctx_tokens; /* stage 0: [mb] positions x CTX token ids */
    const uint16_t **targets;    /* stage 1: [mb] positions */
    real *scratch[3];    /* backward's gradient buffers, positions x the widest layer */
    double loss_sum;     /* stage 1: sum over positions this step */
    double dw_flops, dw_flops_skipped; /* multiply-adds of weight gradients this step */
} stage_model;

/* Allocates stage `stage` with weights drawn from seed (the same seed gives
 * the same model). False when out of memory. */
bool model_init(stage_model *sm, int stage, int positions, int microbatches, uint64_t seed);
void model_free(stage_model *sm);
int model_out_width(const stage_model *sm);
int model_in_width(const stage_model *sm);

/* Forward of microbatch mb. Stage 0 reads sm->ctx_tokens[mb]; stage 1 reads
 * in (positions x HID) and sm->targets[mb], and adds the loss to loss_sum.
 * Returns the output activation (stage 0) or NULL. */
const real *model_forward(stage_model *sm, int mb, const real *in);

/* Backward of microbatch mb: dout is the gradient of the stage's output
 * (NULL on stage 1: the loss's own, scaled by 1 / scale_positions). Adds
 * weight gradients of every tensor whose bit in frozen is clear, skipping
 * the multiplications of the others; writes the gradient of the input to
 * din (stage 1) unless din is NULL. */
void model_backward(stage_model *sm, int mb, const real *dout, real *din, const uint64_t *frozen,
                    double scale_positions);

/* Clears gradients and counters for a new step. */
void model_zero_grad(stage_model *sm);

/* Adam on every tensor that got a contribution this step, its gradient
 * taken as the mean over the microbatches that contributed. */
void model_adam(stage_model *sm, double lr, int microbatches, uint64_t t);

#endif
