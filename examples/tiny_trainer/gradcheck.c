/* gradcheck: the MLP's backward (mlp.c, through model.c) against central
 * finite differences, compiled for double (-DTINY_REAL=double), and the
 * frozen-tensor rule: a frozen tensor gets no gradient, every other tensor
 * exactly the gradient it gets with nothing frozen.
 *   cc -DTINY_REAL=double gradcheck.c model.c mlp.c gpt.c -lm && ./a.out */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "model.h"

static uint16_t seq[SEQ]; /* one sequence: SEQ - CTX predictions */
static const uint16_t *seq_p[1] = {seq};

static double loss(stage_model *sm)
{
    sm[1].loss_sum = 0;
    const real *y = model_forward(&sm[0], 0, NULL);
    model_forward(&sm[1], 0, y);
    return sm[1].loss_sum / sm[1].positions;
}

static void backward(stage_model *sm, real *g, uint64_t mask0, uint64_t mask1)
{
    model_zero_grad(&sm[0]);
    model_zero_grad(&sm[1]);
    loss(sm);
    uint64_t m1 = mask1, m0 = mask0;
    model_backward(&sm[1], 0, NULL, g, &m1, sm[1].positions);
    model_backward(&sm[0], 0, g, NULL, &m0, sm[1].positions);
}

int main(void)
{
    stage_model sm[2];
    if (!model_init(&sm[0], MODEL_MLP, 0, 1, 1, 3) || !model_init(&sm[1], MODEL_MLP, 1, 1, 1, 3))
        return 1;
    real *g = malloc(model_message_reals(&sm[0]) * sizeof(real));
    if (!g)
        return 1;
    uint64_t s = 12345;
    for (int i = 0; i < SEQ; i++)
        seq[i] = (uint16_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 57);
    sm[0].tokens = sm[1].tokens = seq_p;
    const uint64_t emb_width = sm[0].numel[0] / VOCAB;
    backward(sm, g, 0, 0);
    double worst = 0;
    int checked = 0, failed = 0;
    for (int st = 0; st < 2; st++)
        for (int t = 0; t < sm[st].n_tensors; t++)
            for (int k = 0; k < 6; k++) {
                uint64_t i = (uint64_t)(s = s * 6364136223846793005ull + 1) % sm[st].numel[t];
                if (st == 0 && t == 0) /* embedding rows the context tokens use */
                    i = (uint64_t)seq[k % (SEQ - 1)] * emb_width + (uint64_t)k % emb_width;
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
                    printf("gradcheck: stage %d tensor %s [%llu]: analytic %.9g, finite difference %.9g\n", st,
                           sm[st].tensor_name[t], (unsigned long long)i, an, fd);
                    failed++;
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
    int masks = 0;
    for (uint64_t m = 1; m < 256; m += 37, masks++) {
        backward(sm, g, m & 0x7f, (m * 5) & 0xff);
        for (int st = 0; st < 2; st++) {
            uint64_t mk = st ? (m * 5) & 0xff : m & 0x7f;
            for (int t = 0; t < sm[st].n_tensors; t++) {
                bool frozen = (mk >> t) & 1u;
                for (uint64_t i = 0; i < sm[st].numel[t]; i++)
                    if (frozen ? sm[st].grad[t][i] != 0 : sm[st].grad[t][i] != ref[st][t][i]) {
                        printf("gradcheck: mask %llu stage %d tensor %s: %s\n", (unsigned long long)mk, st,
                               sm[st].tensor_name[t], frozen ? "frozen but has a gradient" : "gradient changed by freezing others");
                        failed++;
                        break;
                    }
                if (sm[st].contributions[t] != !frozen)
                    failed++;
            }
        }
    }
    printf("gradcheck: MLP, %d entries, worst error (relative, or absolute below 1e-3) %.2e; %d masks; %s\n", checked,
           worst, masks, failed ? "FAILED" : "ok");
    for (int st = 0; st < 2; st++) {
        for (int t = 0; t < sm[st].n_tensors; t++)
            free(ref[st][t]);
        model_free(&sm[st]);
    }
    free(g);
    return failed ? 1 : 0;
}
