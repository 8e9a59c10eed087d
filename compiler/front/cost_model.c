/* cost_model: the standard dense-transformer FLOP count. */
#include "cost_model.h"

double cost_model_layer_flops(const cost_model *m)
{
    double b = (double)m->microbatch_size, s = (double)m->seq_len, h = (double)m->hidden;
    double kv = h * (double)m->kv_heads / (double)m->heads; /* width of K and V (grouped-query attention) */
    double proj = 2.0 * b * s * (2.0 * h * h + 2.0 * h * kv); /* Q, O: h x h; K, V: h x kv */
    double attn = 4.0 * b * s * s * h;                         /* Q K^T and the weighted sum of V */
    double mlp = 6.0 * b * s * h * (double)m->ffn;             /* gate, up, down: three h x ffn matrices */
    return proj + attn + mlp;
}

double cost_model_head_flops(const cost_model *m)
{
    return 2.0 * (double)m->microbatch_size * (double)m->seq_len * (double)m->hidden * (double)m->vocab;
}

uint64_t cost_model_stage_layers(const cost_model *m, size_t n, size_t stage)
{
    if (m->stage_layers)
        return m->stage_layers[stage];
    return m->layers / n + (stage < m->layers % n ? 1 : 0);
}

double cost_model_forward_ms(const cost_model *m, size_t n, size_t stage)
{
    double flops = (double)cost_model_stage_layers(m, n, stage) * cost_model_layer_flops(m);
    if (stage + 1 == n)
        flops += cost_model_head_flops(m);
    return flops / (m->peak_tflops * 1e12 * m->mfu) * 1e3;
}

cost_stage_ms cost_model_stage_ms(const cost_model *m, size_t n, size_t stage, double w_floor_share)
{
    double fwd = cost_model_forward_ms(m, n, stage);
    double bi = COST_MODEL_INPUT_GRAD_FORWARDS * fwd, bw = COST_MODEL_WEIGHT_GRAD_FORWARDS * fwd;
    return (cost_stage_ms){fwd, bi + bw, bi, bi, bw, w_floor_share * bw};
}
