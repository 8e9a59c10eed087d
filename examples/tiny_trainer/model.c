/* model: what both models share (tensor allocation, zeroing, AdamW,
 * deterministic draws) and the dispatch from model.h to mlp.c / gpt.c. */
#include "model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t model_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unit(uint64_t *s) /* [0, 1) with 53 bits */
{
    return (double)(model_rng(s) >> 11) / 9007199254740992.0;
}

real model_uniform(uint64_t *s, double a)
{
    return (real)((2.0 * unit(s) - 1.0) * a);
}

real model_normal(uint64_t *s, double std)
{
    double u1 = unit(s), u2 = unit(s);
    return (real)(std * sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2));
}

real *model_add_tensor(stage_model *sm, const char *name, uint64_t numel)
{
    if (sm->n_tensors >= MAX_TENSORS)
        return NULL;
    int t = sm->n_tensors++;
    sm->tensor_name[t] = name;
    sm->numel[t] = numel;
    size_t n = numel ? (size_t)numel : 1;
    sm->param[t] = calloc(n, sizeof(real));
    sm->grad[t] = calloc(n, sizeof(real));
    sm->m[t] = calloc(n, sizeof(real));
    sm->v[t] = calloc(n, sizeof(real));
    return sm->param[t] && sm->grad[t] && sm->m[t] && sm->v[t] ? sm->param[t] : NULL;
}

int model_positions_per_seq(model_kind kind)
{
    return kind == MODEL_GPT ? gpt_positions_per_seq() : mlp_positions_per_seq();
}

bool model_init(stage_model *sm, model_kind kind, int stage, int seqs, int microbatches, uint64_t seed)
{
    memset(sm, 0, sizeof *sm);
    sm->kind = kind;
    sm->stage = stage;
    sm->seqs = seqs;
    sm->microbatches = microbatches;
    sm->positions = seqs * model_positions_per_seq(kind);
    bool ok = kind == MODEL_GPT ? gpt_init(sm, seed) : mlp_init(sm, seed);
    if (!ok)
        model_free(sm);
    return ok;
}

void model_free(stage_model *sm)
{
    if (sm->kind == MODEL_GPT)
        gpt_free(sm);
    else
        mlp_free(sm);
    for (int t = 0; t < sm->n_tensors; t++) {
        free(sm->param[t]);
        free(sm->grad[t]);
        free(sm->m[t]);
        free(sm->v[t]);
    }
    memset(sm, 0, sizeof *sm);
}

size_t model_message_reals(const stage_model *sm)
{
    return sm->kind == MODEL_GPT ? gpt_message_reals(sm) : mlp_message_reals(sm);
}

const real *model_forward(stage_model *sm, int mb, const real *in)
{
    return sm->kind == MODEL_GPT ? gpt_forward(sm, mb, in) : mlp_forward(sm, mb, in);
}

void model_backward(stage_model *sm, int mb, const real *dout, real *din, const uint64_t *frozen,
                    double scale_positions)
{
    if (sm->kind == MODEL_GPT)
        gpt_backward(sm, mb, dout, din, frozen, scale_positions);
    else
        mlp_backward(sm, mb, dout, din, frozen, scale_positions);
}

void model_zero_grad(stage_model *sm)
{
    for (int t = 0; t < sm->n_tensors; t++) {
        memset(sm->grad[t], 0, sm->numel[t] * sizeof(real));
        sm->contributions[t] = 0;
    }
    sm->loss_sum = 0.0;
    sm->dw_flops = sm->dw_flops_skipped = 0.0;
}

/* Weight decay applies to matrices and embeddings, not to biases or
 * normalisation parameters. Decided by name: a tensor is NOT decayed when
 * the last dot-separated part of its name starts with 'b' (MLP b1 .. bo,
 * GPT "....b", "bias") or its name contains "ln" or "norm" (layer-norm
 * gains and shifts); every other tensor is (MLP emb, w1 .. wo; GPT
 * embeddings and weight matrices). */
static bool decays(const char *name)
{
    if (!name)
        return true;
    const char *last = strrchr(name, '.');
    last = last ? last + 1 : name;
    return last[0] != 'b' && !strstr(name, "ln") && !strstr(name, "norm");
}

void model_adam(stage_model *sm, const optim *o)
{
    const double b1 = o->beta1, b2 = o->beta2, eps = o->eps;
    for (int k = 0; k < sm->n_tensors; k++) {
        if (!sm->contributions[k])
            continue;
        uint64_t t = ++sm->adam_steps[k];
        double c1 = 1.0 - pow(b1, (double)t), c2 = 1.0 - pow(b2, (double)t);
        double seen = (double)sm->contributions[k] / sm->microbatches;
        double scale = o->grad == GRAD_MEAN ? 1.0 / seen : 1.0;
        double lr = o->lr * (o->grad == GRAD_SQRT ? sqrt(seen) : o->grad == GRAD_LINEAR ? seen : 1.0);
        double wd = decays(sm->tensor_name[k]) ? lr * o->weight_decay : 0.0;
        real *p = sm->param[k], *g = sm->grad[k], *m = sm->m[k], *v = sm->v[k];
        for (uint64_t i = 0; i < sm->numel[k]; i++) {
            double gi = g[i] * scale;
            m[i] = (real)(b1 * m[i] + (1 - b1) * gi);
            v[i] = (real)(b2 * v[i] + (1 - b2) * gi * gi);
            if (wd != 0.0)
                p[i] -= (real)(wd * p[i]);
            p[i] -= (real)(lr * (m[i] / c1) / (sqrt(v[i] / c2) + eps));
        }
    }
}
