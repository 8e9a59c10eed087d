/* cost_model: per-stage timings from a transformer's shape and a device's
 * throughput (timing.source: model; docs/spec.md, "The cost model"). */
#ifndef TFC_COST_MODEL_H
#define TFC_COST_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct cost_model {
    uint64_t layers, hidden, ffn, heads, kv_heads, vocab, seq_len, microbatch_size;
    double peak_tflops, mfu;
    const uint64_t *stage_layers; /* layers per stage (n entries, summing to layers), or NULL: even */
} cost_model;

/* The backward's parts in forwards (docs/spec.md, "The cost model"): the
 * input gradient and the weight gradient each cost about one forward. */
#define COST_MODEL_INPUT_GRAD_FORWARDS 1.0
#define COST_MODEL_WEIGHT_GRAD_FORWARDS 1.0

/* Forward FLOPs of one transformer layer for one microbatch. */
double cost_model_layer_flops(const cost_model *m);
/* Forward FLOPs of the output projection for one microbatch (last stage). */
double cost_model_head_flops(const cost_model *m);
/* Layers of stage `stage` of n: stage_layers[stage] when given, else
 * layers / n each, the first layers % n stages one more. */
uint64_t cost_model_stage_layers(const cost_model *m, size_t n, size_t stage);
/* Forward time of stage `stage` of n, ms. */
double cost_model_forward_ms(const cost_model *m, size_t n, size_t stage);

/* The six timing tables' entries for one stage, ms: B = I + W, B frozen =
 * I, W frozen = SPEC_W_FLOOR_SHARE of W (the spec's default). */
typedef struct cost_stage_ms {
    double forward, backward, backward_frozen, input, weight, weight_frozen;
} cost_stage_ms;
cost_stage_ms cost_model_stage_ms(const cost_model *m, size_t n, size_t stage, double w_floor_share);

#endif
