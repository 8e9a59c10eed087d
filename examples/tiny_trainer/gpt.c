/* gpt: the example's GPT-style transformer (model.h), in two stages.
 *
 * Stage 0: token embedding wte (VOCAB x D) plus learned position embedding
 * wpe ((SEQ - 1) x D), then blocks 0 and 1. Stage 1: blocks 2 and 3, the
 * final layer norm and the untied output layer head (D x VOCAB, no bias)
 * with the softmax loss. A block is pre-norm:
 *     x = x + proj(attn(ln1(x)))          causal, H heads, within a sequence
 *     x = x + mproj(gelu(fc(ln2(x))))     hidden 4 D, GELU (tanh form)
 * Each sequence of SEQ tokens gives SEQ - 1 predictions: inputs x[0 .. SEQ-2],
 * targets x[1 .. SEQ-1]. Rows of a microbatch are its positions, sequence
 * after sequence; the residual stream (positions x D) is the message between
 * the stages. Matrices are input-major (in x out).
 *
 * Tensors in spec order (tiny_gpt.yaml): stage 0 wte, wpe, then per block
 * h{i}.ln1.w, .ln1.b, .attn.qkv.w, .attn.qkv.b, .attn.proj.w, .attn.proj.b,
 * .ln2.w, .ln2.b, .mlp.fc.w, .mlp.fc.b, .mlp.proj.w, .mlp.proj.b; stage 1
 * blocks 2, 3, then lnf.w, lnf.b, head.w.
 *
 * A frozen tensor's weight-gradient work is skipped: the X^T dY product of
 * a matrix, the row sum of a bias, the two row sums of a layer norm, the
 * scatter of wte and the sum of wpe. On stage 0 the gradient below block 0
 * (block 0's ln1 backward into the residual stream) serves only wte and wpe,
 * and dY Wqkv^T of block 0 only them and h0.ln1: both are skipped when
 * their users are frozen and count as weight-gradient work.
 *
 * Plain loops in a fixed order: deterministic, the same in every run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "model_impl.h"

enum {
    D = 64,                    /* model width */
    HEADS = 4,
    HD = D / HEADS,            /* head width */
    LAYERS = 4,                /* blocks in all */
    LPS = LAYERS / MODEL_STAGES, /* blocks per stage */
    FF = 4 * D,                /* MLP hidden width */
    T = SEQ - 1,               /* positions per sequence */
    BT = 12,                   /* tensors per block */
    EMB_TENSORS = 2,           /* wte, wpe on stage 0 */
};

_Static_assert(D % HEADS == 0, "heads divide the width");
_Static_assert(LAYERS % MODEL_STAGES == 0, "blocks split evenly");
_Static_assert(EMB_TENSORS + LPS * BT <= MAX_TENSORS && LPS * BT + 3 <= MAX_TENSORS, "tensors fit a mask word");

/* A block's tensors, as offsets from its first. */
enum { LN1_W, LN1_B, QKV_W, QKV_B, PROJ_W, PROJ_B, LN2_W, LN2_B, FC_W, FC_B, MPROJ_W, MPROJ_B };

#define LN_EPS 1e-5
#define GELU_C 0.7978845608028654 /* sqrt(2 / pi) */
#define GELU_A 0.044715

/* The math library's function for real's width. */
#define R_EXP(x) _Generic((x), float: expf, default: exp)(x)
#define R_TANH(x) _Generic((x), float: tanhf, default: tanh)(x)
#define R_SQRT(x) _Generic((x), float: sqrtf, default: sqrt)(x)

/* What forward keeps of one block for backward. */
typedef struct block_act {
    real *x;            /* block input (positions x D) */
    real *ln1;          /* ln1(x) */
    real *mean1, *rstd1; /* per position */
    real *qkv;          /* positions x 3D: q, k, v, each head's HD columns in turn */
    real *att;          /* seqs x HEADS x T x T: softmax weights, zero above the diagonal */
    real *atty;         /* positions x D: attention output before proj */
    real *xmid;         /* x + proj */
    real *ln2, *mean2, *rstd2;
    real *fch, *fct, *fca; /* positions x FF: fc output, tanh of the GELU, GELU */
} block_act;

typedef struct mb_act {
    block_act b[LPS];
    real *out;          /* blocks' output: stage 0 the message, stage 1 lnf's input */
    real *lnf, *meanf, *rstdf, *probs; /* last stage */
    real *arena;
} mb_act;

typedef struct gpt {
    int first;          /* index of block 0's first tensor */
    mb_act *mb;
    /* backward scratch */
    real *dres, *dln, *dqkv, *datty, *dff, *dlogits, *drow;
} gpt;

int gpt_positions_per_seq(void)
{
    return T;
}

size_t gpt_message_reals(const stage_model *sm)
{
    return (size_t)sm->positions * D;
}

static bool init_tensor(stage_model *sm, const char *name, uint64_t numel, uint64_t *rng, double std, real fill)
{
    real *p = model_add_tensor(sm, name, numel);
    if (!p)
        return false;
    for (uint64_t i = 0; i < numel; i++)
        p[i] = std > 0 ? model_normal(rng, std) : fill;
    return true;
}

static const char *const block_names[LAYERS][BT] = {
#define BLOCK(i)                                                                                                      \
    {"h" #i ".ln1.w", "h" #i ".ln1.b", "h" #i ".attn.qkv.w", "h" #i ".attn.qkv.b", "h" #i ".attn.proj.w",            \
     "h" #i ".attn.proj.b", "h" #i ".ln2.w", "h" #i ".ln2.b", "h" #i ".mlp.fc.w", "h" #i ".mlp.fc.b",                 \
     "h" #i ".mlp.proj.w", "h" #i ".mlp.proj.b"}
    BLOCK(0), BLOCK(1), BLOCK(2), BLOCK(3),
#undef BLOCK
};
_Static_assert(LAYERS == 4, "block_names lists four blocks");

void gpt_free(stage_model *sm)
{
    gpt *g = sm->impl;
    if (!g)
        return;
    if (g->mb)
        for (int m = 0; m < sm->microbatches; m++)
            free(g->mb[m].arena);
    free(g->mb);
    free(g->dres);
    free(g->dln);
    free(g->dqkv);
    free(g->datty);
    free(g->dff);
    free(g->dlogits);
    free(g->drow);
    free(g);
    sm->impl = NULL;
}

/* Carves n reals off *p. */
static real *carve(real **p, size_t n)
{
    real *r = *p;
    *p += n;
    return r;
}

bool gpt_init(stage_model *sm, uint64_t seed)
{
    gpt *g = calloc(1, sizeof *g);
    if (!g)
        return false;
    sm->impl = g;
    uint64_t rng = seed * 0x2545F4914F6CDD1Dull + (uint64_t)sm->stage;
    const double std = 0.02, res_std = 0.02 / sqrt(2.0 * LAYERS);
    bool ok = true;
    if (sm->stage == 0) {
        ok = ok && init_tensor(sm, "wte", (uint64_t)VOCAB * D, &rng, std, 0);
        ok = ok && init_tensor(sm, "wpe", (uint64_t)T * D, &rng, std, 0);
    }
    g->first = sm->n_tensors;
    for (int l = 0; ok && l < LPS; l++) {
        const char *const *nm = block_names[sm->stage * LPS + l];
        ok = ok && init_tensor(sm, nm[LN1_W], D, &rng, 0, 1);
        ok = ok && init_tensor(sm, nm[LN1_B], D, &rng, 0, 0);
        ok = ok && init_tensor(sm, nm[QKV_W], (uint64_t)D * 3 * D, &rng, std, 0);
        ok = ok && init_tensor(sm, nm[QKV_B], 3 * D, &rng, 0, 0);
        ok = ok && init_tensor(sm, nm[PROJ_W], (uint64_t)D * D, &rng, res_std, 0);
        ok = ok && init_tensor(sm, nm[PROJ_B], D, &rng, 0, 0);
        ok = ok && init_tensor(sm, nm[LN2_W], D, &rng, 0, 1);
        ok = ok && init_tensor(sm, nm[LN2_B], D, &rng, 0, 0);
        ok = ok && init_tensor(sm, nm[FC_W], (uint64_t)D * FF, &rng, std, 0);
        ok = ok && init_tensor(sm, nm[FC_B], FF, &rng, 0, 0);
        ok = ok && init_tensor(sm, nm[MPROJ_W], (uint64_t)FF * D, &rng, res_std, 0);
        ok = ok && init_tensor(sm, nm[MPROJ_B], D, &rng, 0, 0);
    }
    if (sm->stage == MODEL_STAGES - 1) {
        ok = ok && init_tensor(sm, "lnf.w", D, &rng, 0, 1);
        ok = ok && init_tensor(sm, "lnf.b", D, &rng, 0, 0);
        ok = ok && init_tensor(sm, "head.w", (uint64_t)D * VOCAB, &rng, std, 0);
    }
    size_t P = (size_t)sm->positions, S = (size_t)sm->seqs;
    bool last = sm->stage == MODEL_STAGES - 1;
    size_t per_block = P * (D + D + 2 + 3 * D + D + D + D + 2 + 3 * FF) + S * HEADS * T * T;
    size_t per_mb = LPS * per_block + P * D + (last ? P * (D + 2 + VOCAB) : 0);
    ok = ok && (g->mb = calloc((size_t)sm->microbatches, sizeof *g->mb)) != NULL;
    for (int m = 0; ok && m < sm->microbatches; m++) {
        mb_act *a = &g->mb[m];
        real *p = a->arena = calloc(per_mb, sizeof(real));
        if (!(ok = p != NULL))
            break;
        for (int l = 0; l < LPS; l++) {
            block_act *b = &a->b[l];
            b->x = carve(&p, P * D);
            b->ln1 = carve(&p, P * D);
            b->mean1 = carve(&p, P);
            b->rstd1 = carve(&p, P);
            b->qkv = carve(&p, P * 3 * D);
            b->att = carve(&p, S * HEADS * T * T);
            b->atty = carve(&p, P * D);
            b->xmid = carve(&p, P * D);
            b->ln2 = carve(&p, P * D);
            b->mean2 = carve(&p, P);
            b->rstd2 = carve(&p, P);
            b->fch = carve(&p, P * FF);
            b->fct = carve(&p, P * FF);
            b->fca = carve(&p, P * FF);
        }
        a->out = carve(&p, P * D);
        if (last) {
            a->lnf = carve(&p, P * D);
            a->meanf = carve(&p, P);
            a->rstdf = carve(&p, P);
            a->probs = carve(&p, P * VOCAB);
        }
    }
    ok = ok && (g->dres = malloc(P * D * sizeof(real))) && (g->dln = malloc(P * D * sizeof(real))) &&
         (g->dqkv = malloc(P * 3 * D * sizeof(real))) && (g->datty = malloc(P * D * sizeof(real))) &&
         (g->dff = malloc(P * FF * sizeof(real))) && (g->drow = malloc(T * sizeof(real))) &&
         (!last || (g->dlogits = malloc(P * VOCAB * sizeof(real))));
    if (!ok)
        gpt_free(sm);
    return ok;
}

/* Token i of microbatch mb (bytes beyond VOCAB read as '?', as corpus.c maps them). */
static int token(const stage_model *sm, int mb, size_t i)
{
    uint16_t t = sm->tokens[mb][i];
    return t < VOCAB ? t : '?';
}

/* y (P x N) = x (P x K) W (K x N) + b (b may be NULL). */
static void matmul(real *restrict y, const real *restrict x, const real *restrict w, const real *restrict b, int P,
                   int K, int N)
{
    for (int p = 0; p < P; p++) {
        real *restrict yp = y + (size_t)p * N;
        const real *xp = x + (size_t)p * K;
        for (int n = 0; n < N; n++)
            yp[n] = b ? b[n] : 0;
        for (int k = 0; k < K; k++) {
            real xk = xp[k];
            const real *restrict wk = w + (size_t)k * N;
            for (int n = 0; n < N; n++)
                yp[n] += xk * wk[n];
        }
    }
}

/* dx (P x K) = dy (P x N) W^T, added to dx when add. */
static void matmul_dx(real *restrict dx, const real *restrict dy, const real *restrict w, int P, int K, int N,
                      bool add)
{
    for (int p = 0; p < P; p++) {
        const real *dyp = dy + (size_t)p * N;
        real *dxp = dx + (size_t)p * K;
        for (int k = 0; k < K; k++) {
            real s = model_dot(dyp, w + (size_t)k * N, N);
            dxp[k] = add ? dxp[k] + s : s;
        }
    }
}

/* dW (K x N) += x^T dy, each entry summed over positions in order. */
static void matmul_dw(real *restrict dw, const real *restrict x, const real *restrict dy, int P, int K, int N)
{
    for (int k = 0; k < K; k++) {
        real *restrict g = dw + (size_t)k * N;
        for (int p = 0; p < P; p++) {
            real xk = x[(size_t)p * K + k];
            const real *restrict dyp = dy + (size_t)p * N;
            for (int n = 0; n < N; n++)
                g[n] += xk * dyp[n];
        }
    }
}

/* db (N) += the row sum of dy (P x N). */
static void rowsum(real *restrict db, const real *restrict dy, int P, int N)
{
    for (int p = 0; p < P; p++) {
        const real *restrict dyp = dy + (size_t)p * N;
        for (int n = 0; n < N; n++)
            db[n] += dyp[n];
    }
}

static void layernorm(real *restrict y, real *restrict mean, real *restrict rstd, const real *restrict x,
                      const real *restrict w, const real *restrict b, int P)
{
    for (int p = 0; p < P; p++) {
        const real *xp = x + (size_t)p * D;
        real *yp = y + (size_t)p * D;
        real m = 0;
        for (int i = 0; i < D; i++)
            m += xp[i];
        m /= D;
        real v = 0;
        for (int i = 0; i < D; i++)
            v += (xp[i] - m) * (xp[i] - m);
        v /= D;
        real r = 1 / R_SQRT(v + (real)LN_EPS);
        mean[p] = m;
        rstd[p] = r;
        for (int i = 0; i < D; i++)
            yp[i] = (xp[i] - m) * r * w[i] + b[i];
    }
}

/* Layer norm's weight gradients (gw, gb NULL: frozen). */
static void layernorm_dw(real *restrict gw, real *restrict gb, const real *restrict dy, const real *restrict x,
                         const real *restrict mean, const real *restrict rstd, int P)
{
    for (int p = 0; p < P; p++) {
        const real *xp = x + (size_t)p * D, *dyp = dy + (size_t)p * D;
        if (gw)
            for (int i = 0; i < D; i++)
                gw[i] += dyp[i] * ((xp[i] - mean[p]) * rstd[p]);
        if (gb)
            for (int i = 0; i < D; i++)
                gb[i] += dyp[i];
    }
}

/* dx (P x D) += layer norm's input gradient for output gradient dy. */
static void layernorm_dx(real *restrict dx, const real *restrict dy, const real *restrict x, const real *restrict mean,
                         const real *restrict rstd, const real *restrict w, int P)
{
    for (int p = 0; p < P; p++) {
        const real *xp = x + (size_t)p * D, *dyp = dy + (size_t)p * D;
        real *dxp = dx + (size_t)p * D;
        real m = mean[p], r = rstd[p];
        real s1 = 0, s2 = 0;
        for (int i = 0; i < D; i++) {
            real dxh = dyp[i] * w[i];
            s1 += dxh;
            s2 += dxh * ((xp[i] - m) * r);
        }
        s1 /= D;
        s2 /= D;
        for (int i = 0; i < D; i++)
            dxp[i] += r * (dyp[i] * w[i] - s1 - ((xp[i] - m) * r) * s2);
    }
}

/* Causal multi-head attention of every sequence: att and atty from qkv. */
static void attention(block_act *b, int seqs)
{
    const real scale = (real)(1.0 / sqrt((double)HD));
    for (int s = 0; s < seqs; s++)
        for (int h = 0; h < HEADS; h++) {
            real *att = b->att + ((size_t)s * HEADS + h) * T * T;
            for (int t = 0; t < T; t++) {
                const real *q = b->qkv + ((size_t)s * T + t) * 3 * D + h * HD;
                real *a = att + (size_t)t * T;
                real mx = -INFINITY;
                for (int u = 0; u <= t; u++) {
                    const real *k = b->qkv + ((size_t)s * T + u) * 3 * D + D + h * HD;
                    real z = 0;
                    for (int j = 0; j < HD; j++)
                        z += q[j] * k[j];
                    a[u] = z * scale;
                    mx = a[u] > mx ? a[u] : mx;
                }
                real sum = 0;
                for (int u = 0; u <= t; u++)
                    sum += (a[u] = R_EXP(a[u] - mx));
                real inv = 1 / sum;
                for (int u = 0; u <= t; u++)
                    a[u] *= inv;
                for (int u = t + 1; u < T; u++)
                    a[u] = 0;
                real *y = b->atty + ((size_t)s * T + t) * D + h * HD;
                for (int j = 0; j < HD; j++)
                    y[j] = 0;
                for (int u = 0; u <= t; u++) {
                    const real *v = b->qkv + ((size_t)s * T + u) * 3 * D + 2 * D + h * HD;
                    for (int j = 0; j < HD; j++)
                        y[j] += a[u] * v[j];
                }
            }
        }
}

/* dqkv (overwritten) from datty: the attention's input gradient. */
static void attention_backward(real *restrict dqkv, const real *restrict datty, const block_act *b, int seqs,
                               real *restrict da)
{
    const real scale = (real)(1.0 / sqrt((double)HD));
    memset(dqkv, 0, (size_t)seqs * T * 3 * D * sizeof(real));
    for (int s = 0; s < seqs; s++)
        for (int h = 0; h < HEADS; h++) {
            const real *att = b->att + ((size_t)s * HEADS + h) * T * T;
            for (int t = 0; t < T; t++) {
                size_t rt = ((size_t)s * T + t) * 3 * D;
                const real *a = att + (size_t)t * T, *dy = datty + ((size_t)s * T + t) * D + h * HD;
                const real *q = b->qkv + rt + h * HD;
                real *dq = dqkv + rt + h * HD;
                real sum = 0;
                for (int u = 0; u <= t; u++) {
                    size_t ru = ((size_t)s * T + u) * 3 * D;
                    const real *v = b->qkv + ru + 2 * D + h * HD;
                    real *dv = dqkv + ru + 2 * D + h * HD;
                    real z = 0;
                    for (int j = 0; j < HD; j++) {
                        z += dy[j] * v[j];
                        dv[j] += a[u] * dy[j];
                    }
                    da[u] = z;
                    sum += a[u] * z;
                }
                for (int u = 0; u <= t; u++) {
                    size_t ru = ((size_t)s * T + u) * 3 * D;
                    const real *k = b->qkv + ru + D + h * HD;
                    real *dk = dqkv + ru + D + h * HD;
                    real ds = a[u] * (da[u] - sum) * scale;
                    for (int j = 0; j < HD; j++) {
                        dq[j] += ds * k[j];
                        dk[j] += ds * q[j];
                    }
                }
            }
        }
}

/* Block l's parameters: the stage's tensors from w. */
static void block_forward(real *const *w, block_act *b, real *out, int P, int seqs)
{
    layernorm(b->ln1, b->mean1, b->rstd1, b->x, w[LN1_W], w[LN1_B], P);
    matmul(b->qkv, b->ln1, w[QKV_W], w[QKV_B], P, D, 3 * D);
    attention(b, seqs);
    matmul(b->xmid, b->atty, w[PROJ_W], w[PROJ_B], P, D, D);
    for (size_t i = 0; i < (size_t)P * D; i++)
        b->xmid[i] += b->x[i];
    layernorm(b->ln2, b->mean2, b->rstd2, b->xmid, w[LN2_W], w[LN2_B], P);
    matmul(b->fch, b->ln2, w[FC_W], w[FC_B], P, D, FF);
    for (size_t i = 0; i < (size_t)P * FF; i++) {
        real x = b->fch[i];
        real t = R_TANH((real)GELU_C * (x + (real)GELU_A * x * x * x));
        b->fct[i] = t;
        b->fca[i] = (real)0.5 * x * (1 + t);
    }
    matmul(out, b->fca, w[MPROJ_W], w[MPROJ_B], P, FF, D);
    for (size_t i = 0; i < (size_t)P * D; i++)
        out[i] += b->xmid[i];
}

const real *gpt_forward(stage_model *sm, int mb, const real *in)
{
    gpt *g = sm->impl;
    mb_act *a = &g->mb[mb];
    int P = sm->positions;
    real *x0 = a->b[0].x;
    if (sm->stage == 0) {
        const real *wte = sm->param[0], *wpe = sm->param[1];
        for (int s = 0; s < sm->seqs; s++)
            for (int t = 0; t < T; t++) {
                real *xp = x0 + ((size_t)s * T + t) * D;
                const real *e = wte + (size_t)token(sm, mb, (size_t)s * SEQ + t) * D, *pe = wpe + (size_t)t * D;
                for (int i = 0; i < D; i++)
                    xp[i] = e[i] + pe[i];
            }
    } else {
        memcpy(x0, in, (size_t)P * D * sizeof(real));
    }
    for (int l = 0; l < LPS; l++)
        block_forward(sm->param + g->first + l * BT, &a->b[l], l + 1 < LPS ? a->b[l + 1].x : a->out, P, sm->seqs);
    if (sm->stage == 0)
        return a->out;
    int f = g->first + LPS * BT;
    layernorm(a->lnf, a->meanf, a->rstdf, a->out, sm->param[f], sm->param[f + 1], P);
    matmul(a->probs, a->lnf, sm->param[f + 2], NULL, P, D, VOCAB);
    for (int s = 0; s < sm->seqs; s++)
        for (int t = 0; t < T; t++) {
            real *z = a->probs + ((size_t)s * T + t) * VOCAB;
            int target = token(sm, mb, (size_t)s * SEQ + t + 1);
            real mx = z[0];
            for (int o = 1; o < VOCAB; o++)
                mx = z[o] > mx ? z[o] : mx;
            double sum = 0.0;
            real zt = z[target];
            for (int o = 0; o < VOCAB; o++)
                sum += (double)(z[o] = R_EXP(z[o] - mx));
            for (int o = 0; o < VOCAB; o++)
                z[o] = (real)(z[o] / sum);
            sm->loss_sum += -((double)(zt - mx) - log(sum));
        }
    return NULL;
}

/* Adds P x K x N (a matrix) or P x N (a row sum) to the counters; the
 * tensor's gradient pointer, or NULL when it is frozen (and skipped). */
static real *dw_target(stage_model *sm, const uint64_t *frozen, int t, double cost)
{
    sm->dw_flops += cost;
    if (model_is_frozen(frozen, t)) {
        sm->dw_flops_skipped += cost;
        return NULL;
    }
    return sm->grad[t];
}

/* Block backward: dres holds the gradient of the block's output and gets
 * that of its input. bottom: block 0 of stage 0, whose input gradient only
 * wte and wpe use (need_dx: either is not frozen). */
static void block_backward(stage_model *sm, gpt *g, const block_act *b, int first, const uint64_t *frozen, bool bottom,
                           bool need_dx)
{
    int P = sm->positions;
    double dP = P;
    real *const *w = sm->param + first;
    real *gr;
    /* MLP: out = xmid + gelu(ln2 fc) mproj */
    if ((gr = dw_target(sm, frozen, first + MPROJ_W, dP * FF * D)))
        matmul_dw(gr, b->fca, g->dres, P, FF, D);
    if ((gr = dw_target(sm, frozen, first + MPROJ_B, dP * D)))
        rowsum(gr, g->dres, P, D);
    matmul_dx(g->dff, g->dres, w[MPROJ_W], P, FF, D, false);
    for (size_t i = 0; i < (size_t)P * FF; i++) {
        real x = b->fch[i], t = b->fct[i];
        real d = (real)0.5 * (1 + t) +
                 (real)0.5 * x * (1 - t * t) * (real)GELU_C * (1 + 3 * (real)GELU_A * x * x);
        g->dff[i] *= d;
    }
    if ((gr = dw_target(sm, frozen, first + FC_W, dP * D * FF)))
        matmul_dw(gr, b->ln2, g->dff, P, D, FF);
    if ((gr = dw_target(sm, frozen, first + FC_B, dP * FF)))
        rowsum(gr, g->dff, P, FF);
    matmul_dx(g->dln, g->dff, w[FC_W], P, D, FF, false);
    real *gw = dw_target(sm, frozen, first + LN2_W, dP * D), *gb = dw_target(sm, frozen, first + LN2_B, dP * D);
    if (gw || gb)
        layernorm_dw(gw, gb, g->dln, b->xmid, b->mean2, b->rstd2, P);
    layernorm_dx(g->dres, g->dln, b->xmid, b->mean2, b->rstd2, w[LN2_W], P);
    /* Attention: xmid = x + attn(ln1 x) proj */
    if ((gr = dw_target(sm, frozen, first + PROJ_W, dP * D * D)))
        matmul_dw(gr, b->atty, g->dres, P, D, D);
    if ((gr = dw_target(sm, frozen, first + PROJ_B, dP * D)))
        rowsum(gr, g->dres, P, D);
    matmul_dx(g->datty, g->dres, w[PROJ_W], P, D, D, false);
    attention_backward(g->dqkv, g->datty, b, sm->seqs, g->drow);
    if ((gr = dw_target(sm, frozen, first + QKV_W, dP * D * 3 * D)))
        matmul_dw(gr, b->ln1, g->dqkv, P, D, 3 * D);
    if ((gr = dw_target(sm, frozen, first + QKV_B, dP * 3 * D)))
        rowsum(gr, g->dqkv, P, 3 * D);
    bool ln1_frozen = model_is_frozen(frozen, first + LN1_W) && model_is_frozen(frozen, first + LN1_B);
    if (bottom) {
        /* Below block 0 of stage 0: dqkv Wqkv^T serves h0.ln1 and the
         * embeddings, ln1's input gradient only the embeddings. */
        double c_dln = dP * 3 * D * D, c_dx = 2 * dP * D;
        sm->dw_flops += c_dln + c_dx;
        if (!need_dx)
            sm->dw_flops_skipped += c_dx + (ln1_frozen ? c_dln : 0);
        if (!need_dx && ln1_frozen) {
            sm->dw_flops += 2 * dP * D; /* ln1's row sums, both frozen */
            sm->dw_flops_skipped += 2 * dP * D;
            return;
        }
    }
    matmul_dx(g->dln, g->dqkv, w[QKV_W], P, D, 3 * D, false);
    gw = dw_target(sm, frozen, first + LN1_W, dP * D);
    gb = dw_target(sm, frozen, first + LN1_B, dP * D);
    if (gw || gb)
        layernorm_dw(gw, gb, g->dln, b->x, b->mean1, b->rstd1, P);
    if (need_dx)
        layernorm_dx(g->dres, g->dln, b->x, b->mean1, b->rstd1, w[LN1_W], P);
}

void gpt_backward(stage_model *sm, int mb, const real *dout, real *din, const uint64_t *frozen, double scale_positions)
{
    gpt *g = sm->impl;
    const mb_act *a = &g->mb[mb];
    int P = sm->positions;
    double dP = P;
    real *gr;
    if (sm->stage == MODEL_STAGES - 1) {
        real inv = (real)(1.0 / scale_positions);
        for (int s = 0; s < sm->seqs; s++)
            for (int t = 0; t < T; t++) {
                size_t r = (size_t)s * T + t;
                int target = token(sm, mb, (size_t)s * SEQ + t + 1);
                const real *pr = a->probs + r * VOCAB;
                real *dz = g->dlogits + r * VOCAB;
                for (int o = 0; o < VOCAB; o++)
                    dz[o] = (pr[o] - (o == target ? (real)1 : (real)0)) * inv;
            }
        int f = g->first + LPS * BT;
        if ((gr = dw_target(sm, frozen, f + 2, dP * D * VOCAB)))
            matmul_dw(gr, a->lnf, g->dlogits, P, D, VOCAB);
        matmul_dx(g->dln, g->dlogits, sm->param[f + 2], P, D, VOCAB, false);
        real *gw = dw_target(sm, frozen, f, dP * D), *gb = dw_target(sm, frozen, f + 1, dP * D);
        if (gw || gb)
            layernorm_dw(gw, gb, g->dln, a->out, a->meanf, a->rstdf, P);
        memset(g->dres, 0, (size_t)P * D * sizeof(real));
        layernorm_dx(g->dres, g->dln, a->out, a->meanf, a->rstdf, sm->param[f], P);
    } else {
        memcpy(g->dres, dout, (size_t)P * D * sizeof(real));
    }
    bool emb = sm->stage == 0;
    bool need_emb = emb && !(model_is_frozen(frozen, 0) && model_is_frozen(frozen, 1));
    for (int l = LPS - 1; l >= 0; l--)
        block_backward(sm, g, &a->b[l], g->first + l * BT, frozen, emb && l == 0, !emb || l > 0 || need_emb);
    if (emb) {
        gr = dw_target(sm, frozen, 0, dP * D);
        real *gp = dw_target(sm, frozen, 1, dP * D);
        for (int s = 0; s < sm->seqs; s++)
            for (int t = 0; t < T; t++) {
                const real *d = g->dres + ((size_t)s * T + t) * D;
                if (gr) {
                    real *e = gr + (size_t)token(sm, mb, (size_t)s * SEQ + t) * D;
                    for (int i = 0; i < D; i++)
                        e[i] += d[i];
                }
                if (gp) {
                    real *e = gp + (size_t)t * D;
                    for (int i = 0; i < D; i++)
                        e[i] += d[i];
                }
            }
    } else if (din) {
        memcpy(din, g->dres, (size_t)P * D * sizeof(real));
    }
    for (int t = 0; t < sm->n_tensors; t++)
        sm->contributions[t] += !model_is_frozen(frozen, t);
}
