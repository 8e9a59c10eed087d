/* mlp: the character-level MLP of model.h in two stages. Each byte is
 * predicted from the CTX before it: position j = CTX .. SEQ-1 of every
 * sequence is one prediction (SEQ - CTX per sequence), its context window
 * and target taken from sm->tokens.
 *
 * Stage 0: byte embedding over the CTX-character context, three tanh
 * layers. Stage 1: three tanh layers, the output layer and the softmax
 * loss. Tanh layers from HID to HID are residual (y = x + tanh(x W + b)):
 * without the skip the seven-layer stack sat at the unigram loss (3.25
 * nats) for 600 steps, its early layers' gradients 1,000 times smaller
 * than the output layer's. Matrices are input-major (in x out), rows of a
 * microbatch are positions. Tensors, in tiny.yaml's order: stage 0 emb,
 * w1, b1, w2, b2, w3, b3; stage 1 w4, b4, w5, b5, w6, b6, wo, bo.
 * MODEL_MLP_NARROW is the same network HID_NARROW wide (tiny_narrow.yaml):
 * the batch-regime sweep's model, whose large batches two cores can afford.
 * Loops are plain C in a fixed order, so a run is deterministic. */
#include "model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

enum {
    CTX = 16,  /* characters of context per prediction */
    EMB = 16,  /* embedding width: CTX x EMB = 256 inputs */
    HID = 192, /* hidden width */
    HID_NARROW = 48, /* --model mlp_narrow's: about a seventh of the work a prediction */
    MAX_LAYERS = 4,
    TARGETS = SEQ - CTX, /* predictions per sequence */
};

typedef struct layer {
    int in, out;
    bool tanh_act;
    bool residual;          /* y = x + tanh(x W + b) (in == out) */
    real *w, *b;            /* in x out, out */
    real *gw, *gb;          /* gradients, same shapes */
    int w_tensor, b_tensor; /* the tensors' indices in the stage */
} layer;

typedef struct mlp {
    int n_layers;
    layer l[MAX_LAYERS];
    real *emb, *gemb; /* stage 0: VOCAB x EMB */
    /* Per microbatch: each layer's input (act[mb][0] is the embedded
     * context on stage 0, the received activation on stage 1) and output. */
    real **act;      /* [mb * (MAX_LAYERS + 1) + k], positions x width */
    real **probs;    /* stage 1: [mb], positions x VOCAB softmax */
    real *scratch[3]; /* backward's gradient buffers, positions x the widest layer */
} mlp;

int mlp_positions_per_seq(void)
{
    return TARGETS;
}

static int hidden(const stage_model *sm) { return sm->kind == MODEL_MLP_NARROW ? HID_NARROW : HID; }

size_t mlp_message_reals(const stage_model *sm)
{
    return (size_t)sm->positions * (size_t)hidden(sm);
}

/* Position p's context token c and target, from whole sequences. */
static uint16_t ctx_token(const stage_model *sm, int mb, int p, int c)
{
    return sm->tokens[mb][(size_t)(p / TARGETS) * SEQ + (size_t)(p % TARGETS) + (size_t)c];
}

static uint16_t target(const stage_model *sm, int mb, int p)
{
    return sm->tokens[mb][(size_t)(p / TARGETS) * SEQ + (size_t)(p % TARGETS) + CTX];
}

bool mlp_init(stage_model *sm, uint64_t seed)
{
    mlp *n = calloc(1, sizeof *n);
    if (!n)
        return false;
    sm->impl = n;
    int stage = sm->stage, positions = sm->positions, microbatches = sm->microbatches;
    uint64_t rng = seed * 0x2545F4914F6CDD1Dull + (uint64_t)stage;
    bool ok = true;
    const int h = hidden(sm), widths[2][5] = {{CTX * EMB, h, h, h, 0}, {h, h, h, h, VOCAB}};
    static const char *const names[2][8] = {{"w1", "b1", "w2", "b2", "w3", "b3"},
                                            {"w4", "b4", "w5", "b5", "w6", "b6", "wo", "bo"}};
    n->n_layers = stage == 0 ? 3 : 4;
    if (stage == 0) {
        ok = (n->emb = model_add_tensor(sm, "emb", (uint64_t)VOCAB * EMB)) != NULL;
        if (ok)
            n->gemb = sm->grad[0];
        for (int i = 0; ok && i < VOCAB * EMB; i++)
            n->emb[i] = model_uniform(&rng, 1.0);
    }
    for (int k = 0; ok && k < n->n_layers; k++) {
        layer *L = &n->l[k];
        L->in = widths[stage][k];
        L->out = widths[stage][k + 1];
        L->tanh_act = !(stage == 1 && k == n->n_layers - 1);
        L->residual = L->tanh_act && L->in == L->out;
        L->w_tensor = sm->n_tensors;
        ok = (L->w = model_add_tensor(sm, names[stage][2 * k], (uint64_t)L->in * (uint64_t)L->out)) != NULL;
        L->b_tensor = sm->n_tensors;
        ok = ok && (L->b = model_add_tensor(sm, names[stage][2 * k + 1], (uint64_t)L->out)) != NULL;
        if (!ok)
            break;
        L->gw = sm->grad[L->w_tensor];
        L->gb = sm->grad[L->b_tensor];
        double a = sqrt(6.0 / (L->in + L->out)) * (L->tanh_act ? 1.0 : 0.1);
        for (int i = 0; i < L->in * L->out; i++)
            L->w[i] = model_uniform(&rng, a);
    }
    size_t slots = (size_t)microbatches * (MAX_LAYERS + 1);
    ok = ok && (n->act = calloc(slots, sizeof *n->act)) != NULL;
    for (int mb = 0; ok && mb < microbatches; mb++)
        for (int k = 0; ok && k <= n->n_layers; k++) {
            int w = k == 0 ? n->l[0].in : n->l[k - 1].out;
            ok = (n->act[(size_t)mb * (MAX_LAYERS + 1) + (size_t)k] =
                      malloc((size_t)positions * (size_t)w * sizeof(real))) != NULL;
        }
    size_t maxw = (size_t)(CTX * EMB > VOCAB ? CTX * EMB : VOCAB);
    for (int k = 0; ok && k < 3; k++)
        ok = (n->scratch[k] = malloc((size_t)positions * maxw * sizeof(real))) != NULL;
    if (ok && stage == 1) {
        ok = (n->probs = calloc((size_t)microbatches, sizeof *n->probs)) != NULL;
        for (int mb = 0; ok && mb < microbatches; mb++)
            ok = (n->probs[mb] = malloc((size_t)positions * VOCAB * sizeof(real))) != NULL;
    }
    return ok; /* on failure model_init calls mlp_free and frees the tensors */
}

void mlp_free(stage_model *sm)
{
    mlp *n = sm->impl;
    if (!n)
        return;
    if (n->act)
        for (size_t i = 0; i < (size_t)sm->microbatches * (MAX_LAYERS + 1); i++)
            free(n->act[i]);
    free(n->act);
    if (n->probs)
        for (int mb = 0; mb < sm->microbatches; mb++)
            free(n->probs[mb]);
    free(n->probs);
    for (int k = 0; k < 3; k++)
        free(n->scratch[k]);
    free(n);
    sm->impl = NULL;
}

static real *act(const mlp *n, int mb, int k)
{
    return n->act[(size_t)mb * (MAX_LAYERS + 1) + (size_t)k];
}

/* y = x W + b, then tanh where the layer has it. */
static void dense_forward(const layer *L, int P, const real *x, real *y)
{
    for (int p = 0; p < P; p++) {
        real *yp = y + (size_t)p * L->out;
        memcpy(yp, L->b, (size_t)L->out * sizeof(real));
        const real *xp = x + (size_t)p * L->in;
        for (int i = 0; i < L->in; i++) {
            real xi = xp[i];
            const real *wi = L->w + (size_t)i * L->out;
            for (int o = 0; o < L->out; o++)
                yp[o] += xi * wi[o];
        }
        if (L->tanh_act)
            for (int o = 0; o < L->out; o++)
                yp[o] = (real)tanh(yp[o]) + (L->residual ? xp[o] : 0);
    }
}

const real *mlp_forward(stage_model *sm, int mb, const real *in)
{
    mlp *n = sm->impl;
    int P = sm->positions;
    real *x0 = act(n, mb, 0);
    if (sm->stage == 0) {
        for (int p = 0; p < P; p++)
            for (int c = 0; c < CTX; c++)
                memcpy(x0 + (size_t)p * CTX * EMB + (size_t)c * EMB, n->emb + (size_t)ctx_token(sm, mb, p, c) * EMB,
                       EMB * sizeof(real));
    } else {
        memcpy(x0, in, (size_t)P * (size_t)n->l[0].in * sizeof(real));
    }
    for (int k = 0; k < n->n_layers; k++)
        dense_forward(&n->l[k], P, act(n, mb, k), act(n, mb, k + 1));
    if (sm->stage == 0)
        return act(n, mb, n->n_layers);
    /* Softmax cross-entropy over the logits. */
    const real *logits = act(n, mb, n->n_layers);
    real *pr = n->probs[mb];
    for (int p = 0; p < P; p++) {
        const real *z = logits + (size_t)p * VOCAB;
        real *q = pr + (size_t)p * VOCAB;
        real mx = z[0];
        for (int o = 1; o < VOCAB; o++)
            mx = z[o] > mx ? z[o] : mx;
        double sum = 0.0;
        for (int o = 0; o < VOCAB; o++)
            sum += (double)(q[o] = (real)exp(z[o] - mx));
        for (int o = 0; o < VOCAB; o++)
            q[o] = (real)(q[o] / sum);
        sm->loss_sum += -((double)(z[target(sm, mb, p)] - mx) - log(sum));
    }
    return NULL;
}

void mlp_backward(stage_model *sm, int mb, const real *dout, real *din, const uint64_t *frozen,
                  double scale_positions)
{
    mlp *n = sm->impl;
    int P = sm->positions;
    real *dy = n->scratch[0], *dz = n->scratch[1], *dx = n->scratch[2];
    int last = n->n_layers - 1;
    if (sm->stage == 1) {
        const real *pr = n->probs[mb];
        real inv = (real)(1.0 / scale_positions);
        for (int p = 0; p < P; p++) {
            uint16_t tg = target(sm, mb, p);
            for (int o = 0; o < VOCAB; o++)
                dy[(size_t)p * VOCAB + o] = (pr[(size_t)p * VOCAB + o] - (o == tg ? (real)1 : (real)0)) * inv;
        }
    } else {
        memcpy(dy, dout, (size_t)P * (size_t)n->l[last].out * sizeof(real));
    }
    bool emb_frozen = sm->stage == 0 && model_is_frozen(frozen, 0);
    for (int k = last; k >= 0; k--) {
        const layer *L = &n->l[k];
        const real *x = act(n, mb, k), *y = act(n, mb, k + 1);
        /* dz: the gradient of x W + b. */
        for (int p = 0; p < P; p++)
            for (int o = 0; o < L->out; o++) {
                size_t i = (size_t)p * L->out + o;
                real a = L->residual ? y[i] - x[(size_t)p * L->in + o] : y[i]; /* the tanh's output */
                dz[i] = L->tanh_act ? dy[i] * (1 - a * a) : dy[i];
            }
        double w_cost = (double)P * L->in * L->out, b_cost = (double)P * L->out;
        sm->dw_flops += w_cost + b_cost;
        if (!model_is_frozen(frozen, L->w_tensor)) {
            for (int p = 0; p < P; p++) {
                const real *xp = x + (size_t)p * L->in, *dzp = dz + (size_t)p * L->out;
                for (int i = 0; i < L->in; i++) {
                    real xi = xp[i];
                    real *g = L->gw + (size_t)i * L->out;
                    for (int o = 0; o < L->out; o++)
                        g[o] += xi * dzp[o];
                }
            }
        } else {
            sm->dw_flops_skipped += w_cost;
        }
        if (!model_is_frozen(frozen, L->b_tensor)) {
            for (int p = 0; p < P; p++)
                for (int o = 0; o < L->out; o++)
                    L->gb[o] += dz[(size_t)p * L->out + o];
        } else {
            sm->dw_flops_skipped += b_cost;
        }
        /* The input gradient: always between layers; below the first layer
         * only the previous stage (stage 1) or the embedding's own weight
         * gradient (stage 0) needs it, so a frozen embedding skips it and
         * it counts as the embedding's weight-gradient work. */
        bool need_dx = k > 0 || (sm->stage == 1 && din) || (sm->stage == 0 && !emb_frozen);
        if (sm->stage == 0 && k == 0) {
            double e_cost = (double)P * L->in * L->out + (double)P * L->in;
            sm->dw_flops += e_cost;
            if (emb_frozen)
                sm->dw_flops_skipped += e_cost;
        }
        if (!need_dx)
            break;
        real *dst = (k == 0 && din) ? din : dx;
        for (int p = 0; p < P; p++) {
            const real *dzp = dz + (size_t)p * L->out, *dyp = dy + (size_t)p * L->out;
            real *dxp = dst + (size_t)p * L->in;
            for (int i = 0; i < L->in; i++)
                dxp[i] = model_dot(dzp, L->w + (size_t)i * L->out, L->out) + (L->residual ? dyp[i] : 0);
        }
        if (k == 0 && sm->stage == 0) {
            for (int p = 0; p < P; p++)
                for (int c = 0; c < CTX; c++) {
                    real *g = n->gemb + (size_t)ctx_token(sm, mb, p, c) * EMB;
                    const real *d = dst + (size_t)p * CTX * EMB + (size_t)c * EMB;
                    for (int e = 0; e < EMB; e++)
                        g[e] += d[e];
                }
        }
        if (dst == dx) {
            real *t = dy;
            dy = dx;
            dx = t;
        }
    }
    for (int t = 0; t < sm->n_tensors; t++)
        sm->contributions[t] += !model_is_frozen(frozen, t);
}
