/* A trainer's view of the generated folder for the default spec
 * (specs/llama8b_1f1b.yaml): built from the folder alone with strict flags
 * (tests/codegen/check.sh), it checks what the header promises and prints
 * tables and answers for tests/codegen/mask_oracle.py to recompute
 * independently.
 *   vendor_default      exit 0 when every property holds; the dump on stdout */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "llama8b_1f1b.h"
#include "llama8b_1f1b_stage0.h"
#include "llama8b_1f1b_stage1.h"
#include "llama8b_1f1b_stage2.h"
#include "llama8b_1f1b_stage3.h"

#define P(x) llama8b_1f1b_##x
#define U(x) LLAMA8B_1F1B_##x

typedef uint64_t (*stage_mask_fn)(uint32_t, uint64_t, uint64_t *);
typedef double (*stage_ratio_fn)(uint32_t, uint64_t);
static const stage_mask_fn stage_mask[] = {P(stage0_frozen_mask), P(stage1_frozen_mask), P(stage2_frozen_mask),
                                           P(stage3_frozen_mask)};
static const stage_ratio_fn stage_ratio[] = {P(stage0_freeze_ratio), P(stage1_freeze_ratio), P(stage2_freeze_ratio),
                                             P(stage3_freeze_ratio)};

static int failures;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "vendor_default: " __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static uint64_t popcount_numel(uint32_t s, const uint64_t *mask)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < P(param_count)[s]; i++)
        if (mask[i / 64] >> (i % 64) & 1)
            n += P(params)[s][i].numel;
    return n;
}

int main(void)
{
    CHECK(U(STAGES) == 4 && U(MICROBATCHES) == 8 && U(RANKS) == 4, "sizes");
    /* Programs: every (stage, microbatch) has one F and one B, on the stage's rank. */
    unsigned seen[U(STAGES)][U(MICROBATCHES)][2];
    memset(seen, 0, sizeof seen);
    for (uint32_t r = 0; r < U(RANKS); r++)
        for (uint32_t i = P(program_start)[r]; i < P(program_start)[r + 1]; i++) {
            const P(action) *a = &P(program)[i];
            CHECK(a->stage < U(STAGES) && a->microbatch < U(MICROBATCHES) && a->type <= U(B), "action %u", i);
            CHECK(P(stage_rank)[a->stage] == r, "action %u runs on rank %u, its stage on %u", i, r,
                  P(stage_rank)[a->stage]);
            seen[a->stage][a->microbatch][a->type]++;
        }
    CHECK(P(program_start)[U(RANKS)] == U(ACTIONS), "program length");
    for (uint32_t s = 0; s < U(STAGES); s++)
        for (uint32_t m = 0; m < U(MICROBATCHES); m++)
            CHECK(seen[s][m][0] == 1 && seen[s][m][1] == 1, "stage %u microbatch %u", s, m);

    printf("const %llu %llu %llu %llu\n", U(WARMUP_STEPS), U(RAMP_STEPS), U(RESELECT_EVERY), U(SEED));
    printf("select %s %u\n", U(SELECT), (unsigned)U(SELECT_RULE));
    for (uint32_t s = 0; s < U(STAGES); s++) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < P(param_count)[s]; i++) {
            printf("param %u %u %" PRIu64 " %s\n", s, i, P(params)[s][i].numel, P(params)[s][i].name);
            sum += P(params)[s][i].numel;
        }
        CHECK(sum == P(stage_numel)[s], "stage %u numel", s);
        for (uint32_t m = 0; m < U(MICROBATCHES); m++)
            printf("ratio %u %u %.17g\n", s, m, P(ratio)[s][m]);
    }

    /* Steps around the warm-up, through the ramp, and well past it. */
    const uint64_t W = U(WARMUP_STEPS), R = U(RAMP_STEPS), E = U(RESELECT_EVERY);
    uint64_t steps[64];
    size_t n_steps = 0;
    uint64_t picks[] = {0, 1, W - 1, W, W + 1, W + E - 1, W + E, W + R / 3, W + R / 2, W + R - 1, W + R, W + R + 1,
                        W + R + 7 * E, W + R + 7 * E + 3, 123456789, UINT64_C(1) << 40, UINT64_MAX};
    for (size_t i = 0; i < sizeof picks / sizeof *picks; i++)
        steps[n_steps++] = picks[i];
    for (uint64_t k = 0; k < 40; k++)
        steps[n_steps++] = W + R + 1000 + k * 37;

    for (uint32_t s = 0; s < U(STAGES); s++)
        for (uint32_t m = 0; m < U(MICROBATCHES); m++) {
            double prev = -1.0;
            for (uint64_t st = 0; st <= W + R + 5; st += (st < W ? W / 4 + 1 : R / 50 + 1)) {
                double r = P(freeze_ratio)(s, m, st);
                CHECK(r >= prev && r >= 0.0 && r <= P(ratio)[s][m], "ratio not monotone at %u %u %llu", s, m,
                      (unsigned long long)st);
                CHECK(st >= W || r == 0.0, "frozen during warm-up");
                prev = r;
            }
            CHECK(P(freeze_ratio)(s, m, W + R) == P(ratio)[s][m], "ratio after the ramp");
            for (size_t i = 0; i < n_steps; i++) {
                uint64_t st = steps[i];
                uint64_t mask[U(MASK_WORDS)], mask2[U(MASK_WORDS)], mask3[U(MASK_WORDS)];
                uint64_t frozen = P(frozen_mask)(s, m, st, mask);
                uint64_t frozen2 = stage_mask[s](m, st, mask2);
                CHECK(frozen == frozen2 && memcmp(mask, mask2, ((P(param_count)[s] + 63) / 64) * 8) == 0,
                      "stage file and public file disagree at %u %u %llu", s, m, (unsigned long long)st);
                CHECK(P(freeze_ratio)(s, m, st) == stage_ratio[s](m, st), "ratios disagree");
                CHECK(popcount_numel(s, mask) == frozen, "returned count is the mask's");
                for (uint32_t w = (P(param_count)[s] + 63) / 64; w < U(MASK_WORDS); w++)
                    CHECK(mask[w] == 0, "words past the stage are clear");
                /* Same window, same mask. */
                uint64_t first = st / E * E, last = first + (E - 1);
                if (last >= first) {
                    P(frozen_mask)(s, m, first, mask3);
                    CHECK(memcmp(mask, mask3, sizeof mask) == 0, "mask changed inside a window");
                    P(frozen_mask)(s, m, last, mask3);
                    CHECK(memcmp(mask, mask3, sizeof mask) == 0, "mask changed inside a window");
                }
                /* Never above the ratio at the window's start; no unfrozen tensor would still fit
                 * (balanced keeps each tensor off one microbatch of the step instead, which
                 * mask_oracle.py checks over the step). */
                double target = P(freeze_ratio)(s, m, first) * (double)P(stage_numel)[s];
                CHECK((double)frozen <= target * (1 + 1e-12) + 1, "over the ratio at %u %u %llu", s, m,
                      (unsigned long long)st);
                for (uint32_t t = 0; U(SELECT_RULE) != 2u && t < P(param_count)[s]; t++)
                    if (!(mask[t / 64] >> (t % 64) & 1))
                        CHECK((double)(frozen + P(params)[s][t].numel) > target * (1 - 1e-12) - 1,
                              "tensor %u still fits at %u %u %llu", t, s, m, (unsigned long long)st);
                printf("mask %u %u %llu %llu", s, m, (unsigned long long)st, (unsigned long long)frozen);
                for (uint32_t w = 0; w < (P(param_count)[s] + 63) / 64; w++)
                    printf(" %016llx", (unsigned long long)mask[w]);
                printf("\nratio_at %u %u %llu %.17g\n", s, m, (unsigned long long)st, P(freeze_ratio)(s, m, st));
            }
        }
    /* Out of range: nothing frozen, mask cleared. */
    uint64_t mask[U(MASK_WORDS)];
    memset(mask, 0xff, sizeof mask);
    CHECK(P(frozen_mask)(U(STAGES), 0, W + R, mask) == 0 && mask[0] == 0, "stage out of range");
    CHECK(P(freeze_ratio)(0, U(MICROBATCHES), W + R) == 0.0, "microbatch out of range");
    if (failures)
        fprintf(stderr, "vendor_default: %d check(s) failed\n", failures);
    return failures != 0;
}
