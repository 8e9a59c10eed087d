/* model: forward, backward (with frozen tensors' weight gradients
 * skipped) and Adam for the two stages of the example's MLP. Loops are
 * plain C in a fixed order, so a run is deterministic. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in (-a, a). */
static real draw(uint64_t *s, double a)
{
    double u = (double)(splitmix(s) >> 11) / 9007199254740992.0;
    return (real)((2.0 * u - 1.0) * a);
}

static bool is_frozen(const uint64_t *mask, int t)
{
    return mask && (mask[t / 64] >> (t % 64)) & 1u;
}

int model_in_width(const stage_model *sm)
{
    return sm->l[0].in;
}

int model_out_width(const stage_model *sm)
{
    return sm->l[sm->n_layers - 1].out;
}

static bool add_tensor(stage_model *sm, real **p, real **g, uint64_t numel)
{
    int t = sm->n_tensors++;
    sm->numel[t] = numel;
    sm->param[t] = *p = calloc(numel, sizeof(real));
    sm->grad[t] = *g = calloc(numel, sizeof(real));
    sm->m[t] = calloc(numel, sizeof(real));
    sm->v[t] = calloc(numel, sizeof(real));
    return *p && *g && sm->m[t] && sm->v[t];
}

bool model_init(stage_model *sm, int stage, int positions, int microbatches, uint64_t seed)
{
    memset(sm, 0, sizeof *sm);
    sm->stage = stage;
    sm->positions = positions;
    sm->microbatches = microbatches;
    uint64_t rng = seed * 0x2545F4914F6CDD1Dull + (uint64_t)stage;
    bool ok = true;
    static const int widths[2][5] = {{CTX * EMB, HID, HID, HID, 0}, {HID, HID, HID, HID, VOCAB}};
    sm->n_layers = stage == 0 ? 3 : 4;
    if (stage == 0) {
        ok &= add_tensor(sm, &sm->emb, &sm->gemb, (uint64_t)VOCAB * EMB);
        for (int i = 0; ok && i < VOCAB * EMB; i++)
            sm->emb[i] = draw(&rng, 1.0);
    }
    for (int k = 0; ok && k < sm->n_layers; k++) {
        layer *L = &sm->l[k];
        L->in = widths[stage][k];
        L->out = widths[stage][k + 1];
        L->tanh_act = !(stage == 1 && k == sm->n_layers - 1);
        L->residual = L->tanh_act && L->in == L->out;
        L->w_tensor = sm->n_tensors;
        ok &= add_tensor(sm, &L->w, &L->gw, (uint64_t)L->in * (uint64_t)L->out);
        L->b_tensor = sm->n_tensors;
        ok &= add_tensor(sm, &L->b, &L->gb, (uint64_t)L->out);
        double a = sqrt(6.0 / (L->in + L->out)) * (L->tanh_act ? 1.0 : 0.1);
        for (int i = 0; ok && i < L->in * L->out; i++)
            L->w[i] = draw(&rng, a);
    }
    size_t slots = (size_t)microbatches * (MAX_LAYERS + 1);
    sm->act = calloc(slots, sizeof *sm->act);
    ok = ok && sm->act;
    for (int mb = 0; ok && mb < microbatches; mb++)
        for (int k = 0; ok && k <= sm->n_layers; k++) {
            int w = k == 0 ? sm->l[0].in : sm->l[k - 1].out;
            ok = (sm->act[(size_t)mb * (MAX_LAYERS + 1) + (size_t)k] = malloc((size_t)positions * (size_t)w * sizeof(real))) != NULL;
        }
    size_t maxw = (size_t)(CTX * EMB > VOCAB ? CTX * EMB : VOCAB);
    for (int k = 0; ok && k < 3; k++)
        ok = (sm->scratch[k] = malloc((size_t)positions * maxw * sizeof(real))) != NULL;
    if (ok && stage == 1) {
        ok = (sm->probs = calloc((size_t)microbatches, sizeof *sm->probs)) != NULL;
        for (int mb = 0; ok && mb < microbatches; mb++)
            ok = (sm->probs[mb] = malloc((size_t)positions * VOCAB * sizeof(real))) != NULL;
    }
    if (!ok)
        model_free(sm);
    return ok;
}

void model_free(stage_model *sm)
{
    for (int t = 0; t < sm->n_tensors; t++) {
        free(sm->param[t]);
        free(sm->grad[t]);
        free(sm->m[t]);
        free(sm->v[t]);
    }
    if (sm->act)
        for (size_t i = 0; i < (size_t)sm->microbatches * (MAX_LAYERS + 1); i++)
            free(sm->act[i]);
    free(sm->act);
    if (sm->probs)
        for (int mb = 0; mb < sm->microbatches; mb++)
            free(sm->probs[mb]);
    free(sm->probs);
    for (int k = 0; k < 3; k++)
        free(sm->scratch[k]);
    memset(sm, 0, sizeof *sm);
}

static real *act(const stage_model *sm, int mb, int k)
{
    return sm->act[(size_t)mb * (MAX_LAYERS + 1) + (size_t)k];
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

const real *model_forward(stage_model *sm, int mb, const real *in)
{
    int P = sm->positions;
    real *x0 = act(sm, mb, 0);
    if (sm->stage == 0) {
        const uint16_t *tok = sm->ctx_tokens[mb];
        for (int p = 0; p < P; p++)
            for (int c = 0; c < CTX; c++)
                memcpy(x0 + (size_t)p * CTX * EMB + (size_t)c * EMB, sm->emb + (size_t)tok[p * CTX + c] * EMB,
                       EMB * sizeof(real));
    } else {
        memcpy(x0, in, (size_t)P * (size_t)sm->l[0].in * sizeof(real));
    }
    for (int k = 0; k < sm->n_layers; k++)
        dense_forward(&sm->l[k], P, act(sm, mb, k), act(sm, mb, k + 1));
    if (sm->stage == 0)
        return act(sm, mb, sm->n_layers);
    /* Softmax cross-entropy over the logits. */
    const real *logits = act(sm, mb, sm->n_layers);
    real *pr = sm->probs[mb];
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
        sm->loss_sum += -((double)(z[sm->targets[mb][p]] - mx) - log(sum));
    }
    return NULL;
}

/* Eight partial sums: a dot product the compiler can keep in vector
 * registers without reassociating (the order is fixed, so results are
 * deterministic). */
static real dot(const real *a, const real *b, int n)
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

void model_backward(stage_model *sm, int mb, const real *dout, real *din, const uint64_t *frozen,
                    double scale_positions)
{
    int P = sm->positions;
    real *dy = sm->scratch[0], *dz = sm->scratch[1], *dx = sm->scratch[2];
    int last = sm->n_layers - 1;
    if (sm->stage == 1) {
        const real *pr = sm->probs[mb];
        real inv = (real)(1.0 / scale_positions);
        for (int p = 0; p < P; p++)
            for (int o = 0; o < VOCAB; o++)
                dy[(size_t)p * VOCAB + o] =
                    (pr[(size_t)p * VOCAB + o] - (o == sm->targets[mb][p] ? (real)1 : (real)0)) * inv;
    } else {
        memcpy(dy, dout, (size_t)P * (size_t)sm->l[last].out * sizeof(real));
    }
    bool emb_frozen = sm->stage == 0 && is_frozen(frozen, 0);
    for (int k = last; k >= 0; k--) {
        const layer *L = &sm->l[k];
        const real *x = act(sm, mb, k), *y = act(sm, mb, k + 1);
        /* dz: the gradient of x W + b. */
        for (int p = 0; p < P; p++)
            for (int o = 0; o < L->out; o++) {
                size_t i = (size_t)p * L->out + o;
                real a = L->residual ? y[i] - x[(size_t)p * L->in + o] : y[i]; /* the tanh's output */
                dz[i] = L->tanh_act ? dy[i] * (1 - a * a) : dy[i];
            }
        double w_cost = (double)P * L->in * L->out, b_cost = (double)P * L->out;
        sm->dw_flops += w_cost + b_cost;
        if (!is_frozen(frozen, L->w_tensor)) {
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
        if (!is_frozen(frozen, L->b_tensor)) {
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
                dxp[i] = dot(dzp, L->w + (size_t)i * L->out, L->out) + (L->residual ? dyp[i] : 0);
        }
        if (k == 0 && sm->stage == 0) {
            const uint16_t *tok = sm->ctx_tokens[mb];
            for (int p = 0; p < P; p++)
                for (int c = 0; c < CTX; c++) {
                    real *g = sm->gemb + (size_t)tok[p * CTX + c] * EMB;
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
        sm->contributions[t] += !is_frozen(frozen, t);
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

void model_adam(stage_model *sm, double lr, int microbatches, uint64_t t)
{
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    double c1 = 1.0 - pow(b1, (double)t), c2 = 1.0 - pow(b2, (double)t);
    for (int k = 0; k < sm->n_tensors; k++) {
        if (!sm->contributions[k])
            continue;
        double scale = (double)microbatches / sm->contributions[k];
        real *p = sm->param[k], *g = sm->grad[k], *m = sm->m[k], *v = sm->v[k];
        for (uint64_t i = 0; i < sm->numel[k]; i++) {
            double gi = g[i] * scale;
            m[i] = (real)(b1 * m[i] + (1 - b1) * gi);
            v[i] = (real)(b2 * v[i] + (1 - b2) * gi * gi);
            p[i] -= (real)(lr * (m[i] / c1) / (sqrt(v[i] / c2) + eps));
        }
    }
}
