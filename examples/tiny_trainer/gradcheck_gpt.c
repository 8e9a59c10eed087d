/* gradcheck_gpt: gpt.c's backward against central finite differences, with
 * the model compiled for double (-DTINY_REAL=double), and the frozen-tensor
 * rule: a frozen tensor gets no gradient, every other tensor exactly the
 * gradient it gets with nothing frozen, and the skipped weight-gradient work
 * is counted. Stage 0's gradients come through the input gradient stage 1
 * passes back, so they check that too.
 *   cc -DTINY_REAL=double gradcheck_gpt.c gpt.c model.c mlp.c -lm && ./a.out */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "model.h"

enum { SEQS = 2 };

static uint16_t tok[SEQS * SEQ];
static const uint16_t *tok_p[1] = {tok};
static int P; /* predictions */

static double loss(stage_model *sm)
{
    sm[1].loss_sum = 0;
    const real *y = model_forward(&sm[0], 0, NULL);
    model_forward(&sm[1], 0, y);
    return sm[1].loss_sum / P;
}

static void backward(stage_model *sm, uint64_t mask0, uint64_t mask1)
{
    real *g = malloc(model_message_reals(&sm[1]) * sizeof(real));
    if (!g)
        exit(1);
    model_zero_grad(&sm[0]);
    model_zero_grad(&sm[1]);
    loss(sm);
    uint64_t m1 = mask1, m0 = mask0;
    model_backward(&sm[1], 0, NULL, g, &m1, P);
    model_backward(&sm[0], 0, g, NULL, &m0, P);
    free(g);
}

static uint64_t lcg(uint64_t *s)
{
    return *s = *s * 6364136223846793005ull + 1442695040888963407ull;
}

int main(void)
{
    stage_model sm[2];
    if (!model_init(&sm[0], MODEL_GPT, 0, SEQS, 1, 3) || !model_init(&sm[1], MODEL_GPT, 1, SEQS, 1, 3))
        return 1;
    P = sm[1].positions;
    uint64_t s = 12345;
    for (int i = 0; i < SEQS * SEQ; i++)
        tok[i] = (uint16_t)(lcg(&s) >> 57);
    sm[0].tokens = sm[1].tokens = tok_p;
    /* Larger weights than GPT-2's initialisation, so that every path
     * (attention scores, layer-norm gains) carries a gradient worth checking. */
    for (int st = 0; st < 2; st++)
        for (int t = 0; t < sm[st].n_tensors; t++)
            for (uint64_t i = 0; i < sm[st].numel[t]; i++)
                sm[st].param[t][i] += (real)(((double)(lcg(&s) >> 11) / 9007199254740992.0 - 0.5) * 0.2);
    backward(sm, 0, 0);
    double worst = 0, flops[2] = {sm[0].dw_flops, sm[1].dw_flops};
    int checked = 0, failed = 0;
    for (int st = 0; st < 2; st++) {
        if (sm[st].dw_flops_skipped != 0)
            failed++;
        for (int t = 0; t < sm[st].n_tensors; t++)
            for (int k = 0; k < 6; k++) {
                uint64_t i = lcg(&s) % sm[st].numel[t];
                if (st == 0 && t == 0) /* wte rows the tokens use */
                    i = (uint64_t)tok[(lcg(&s) >> 33) % (SEQS * SEQ - 1)] * (sm[0].numel[0] / VOCAB) +
                        (uint64_t)k % (sm[0].numel[0] / VOCAB);
                real *p = &sm[st].param[t][i], keep = *p;
                const double h = 1e-5;
                *p = keep + h;
                double up = loss(sm);
                *p = keep - h;
                double down = loss(sm);
                *p = keep;
                double fd = (up - down) / (2 * h), an = sm[st].grad[t][i];
                /* Rounding in the loss is ~1e-16 x 5 / h: differences
                 * below 1e-8 are noise; real errors are of the gradient's
                 * own size. */
                double err = fabs(fd - an);
                worst = fmax(worst, err / fmax(1e-3, fabs(fd)));
                checked++;
                if (err > 1e-8 + 1e-6 * fabs(fd)) {
                    printf("gradcheck_gpt: stage %d %s [%llu]: analytic %.9g, finite difference %.9g\n", st,
                           sm[st].tensor_name[t], (unsigned long long)i, an, fd);
                    failed++;
                }
            }
    }
    /* Frozen tensors: no gradient; the others unchanged bit for bit. */
    real *ref[2][MAX_TENSORS];
    for (int st = 0; st < 2; st++)
        for (int t = 0; t < sm[st].n_tensors; t++) {
            ref[st][t] = malloc(sm[st].numel[t] * sizeof(real));
            if (!ref[st][t])
                return 1;
            memcpy(ref[st][t], sm[st].grad[t], sm[st].numel[t] * sizeof(real));
        }
    uint64_t all0 = (1ull << sm[0].n_tensors) - 1, all1 = (1ull << sm[1].n_tensors) - 1;
    /* Special masks: everything frozen; the embeddings (nothing below block
     * 0); the embeddings and h0.ln1 (nor dY Wqkv^T); one embedding; then
     * random ones. */
    uint64_t masks[][2] = {{all0, all1}, {0x3, 0}, {0xf, 1ull << 24}, {0x1, 0}, {0x2, 1ull << 26}, {all0 & ~0x3ull, all1}};
    int n_special = (int)(sizeof masks / sizeof masks[0]), n_masks = n_special + 12;
    for (int mi = 0; mi < n_masks; mi++) {
        uint64_t mk[2];
        if (mi < n_special) {
            mk[0] = masks[mi][0];
            mk[1] = masks[mi][1];
        } else {
            mk[0] = lcg(&s) & lcg(&s) & all0; /* about a quarter frozen */
            mk[1] = (lcg(&s) | lcg(&s)) & all1; /* about three quarters */
        }
        backward(sm, mk[0], mk[1]);
        for (int st = 0; st < 2; st++) {
            for (int t = 0; t < sm[st].n_tensors; t++) {
                bool frozen = (mk[st] >> t) & 1u;
                for (uint64_t i = 0; i < sm[st].numel[t]; i++)
                    if (frozen ? sm[st].grad[t][i] != 0 : sm[st].grad[t][i] != ref[st][t][i]) {
                        printf("gradcheck_gpt: mask %#llx stage %d %s: %s\n", (unsigned long long)mk[st], st,
                               sm[st].tensor_name[t],
                               frozen ? "frozen but has a gradient" : "gradient changed by freezing others");
                        failed++;
                        break;
                    }
                if (sm[st].contributions[t] != !frozen) {
                    printf("gradcheck_gpt: mask %#llx stage %d %s: %d contributions\n", (unsigned long long)mk[st],
                           st, sm[st].tensor_name[t], sm[st].contributions[t]);
                    failed++;
                }
            }
            bool all = mk[st] == (st ? all1 : all0);
            double sk = sm[st].dw_flops_skipped;
            bool counted = sm[st].dw_flops == flops[st] &&
                           (mk[st] ? sk > 0 && sk <= flops[st] && (!all || sk == flops[st]) : sk == 0);
            if (!counted) {
                printf("gradcheck_gpt: mask %#llx stage %d: dw flops %.0f (unfrozen %.0f), skipped %.0f\n",
                       (unsigned long long)mk[st], st, sm[st].dw_flops, flops[st], sk);
                failed++;
            }
        }
    }
    for (int st = 0; st < 2; st++)
        for (int t = 0; t < sm[st].n_tensors; t++)
            free(ref[st][t]);
    printf("gradcheck_gpt: %d entries of %d tensors, worst error (relative, or absolute below 1e-3) %.2e; %d masks; %s\n",
           checked, sm[0].n_tensors + sm[1].n_tensors, worst, n_masks, failed ? "FAILED" : "ok");
    model_free(&sm[0]);
    model_free(&sm[1]);
    return failed ? 1 : 0;
}
