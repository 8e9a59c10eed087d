/* The frozen masks of any generated folder, for tests/codegen/mask_oracle.py
 * to recompute independently (tests/codegen/rules.sh). A generic version of
 * vendor_default.c's dump: built against the public NAME.c alone,
 *   gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -O2 -I$GEN -DTFC_NAME=tiny \
 *       -DTFC_UNAME=TINY -DTFC_HEADER='"tiny.h"' mask_dump.c $GEN/tiny.c
 * it prints, in vendor_default's line formats plus one `select` line,
 *   const WARMUP RAMP RESELECT SEED
 *   select RULE_NAME RULE_NUMBER
 *   param STAGE I NUMEL NAME
 *   ratio STAGE MICROBATCH RATIO
 *   mask STAGE MICROBATCH STEP FROZEN WORD...        (hex, word 0 first)
 *   ratio_at STAGE MICROBATCH STEP RATIO
 * for every stage and microbatch at the same steps: around the warm-up and
 * the ramp's edges, inside windows, 40 windows after the ramp and huge steps.
 * It checks only what holds under every rule (the count is the mask's, words
 * past the stage are clear, one window one mask, out of range is empty); the
 * rules themselves are the oracle's.
 *   mask_dump      exit 0 when those hold; the dump on stdout */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include TFC_HEADER

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define P(x) CAT(TFC_NAME, x)
#define U(x) CAT(TFC_UNAME, x)

static int failures;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "mask_dump: " __VA_ARGS__);                                                               \
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

#define MAX_STEPS 160
static uint64_t steps[MAX_STEPS];
static size_t n_steps;

static void add_step(uint64_t st)
{
    for (size_t i = 0; i < n_steps; i++)
        if (steps[i] == st)
            return;
    if (n_steps < MAX_STEPS)
        steps[n_steps++] = st;
}

int main(void)
{
    const uint64_t W = U(WARMUP_STEPS), R = U(RAMP_STEPS), E = U(RESELECT_EVERY);
    printf("const %llu %llu %llu %llu\n", (unsigned long long)W, (unsigned long long)R, (unsigned long long)E,
           (unsigned long long)U(SEED));
    printf("select %s %u\n", U(SELECT), (unsigned)U(SELECT_RULE));
    for (uint32_t s = 0; s < U(STAGES); s++) {
        uint64_t sum = 0;
        CHECK(P(param_count)[s] <= U(MAX_PARAMS), "stage %u has more tensors than MAX_PARAMS", s);
        for (uint32_t i = 0; i < P(param_count)[s]; i++) {
            printf("param %u %u %" PRIu64 " %s\n", s, i, P(params)[s][i].numel, P(params)[s][i].name);
            sum += P(params)[s][i].numel;
        }
        CHECK(sum == P(stage_numel)[s], "stage %u numel", s);
        for (uint32_t m = 0; m < U(MICROBATCHES); m++)
            printf("ratio %u %u %.17g\n", s, m, P(ratio)[s][m]);
    }

    /* The warm-up's edge; the ramp's first windows, inside and at their
     * edges; eighths of the ramp; its end; 40 windows after it (each at a
     * different offset inside its window); huge steps. */
    if (W > 0)
        add_step(W - 1);
    add_step(0);
    add_step(1);
    add_step(W);
    add_step(W + 1);
    add_step(W + E - 1);
    add_step(W + E);
    add_step(W + E + E / 2);
    add_step(W + 2 * E + E / 3);
    for (uint64_t k = 1; k < 8; k++)
        add_step(W + R / 8 * k + (k % 2 ? E / 2 : 0));
    if (R > 0)
        add_step(W + R - 1);
    if (R > E)
        add_step(W + R - E);
    add_step(W + R);
    add_step(W + R + 1);
    add_step(W + R + E - 1);
    for (uint64_t k = 0; k < 40; k++)
        add_step(W + R + (7 * k + 3) * E + k % E);
    add_step(123456789);
    add_step(UINT64_C(1) << 40);
    add_step((UINT64_C(1) << 40) + E / 2);
    add_step(UINT64_C(1) << 63);
    add_step(UINT64_MAX - 1);
    add_step(UINT64_MAX);

    for (uint32_t s = 0; s < U(STAGES); s++) {
        const uint32_t words = (P(param_count)[s] + 63) / 64;
        for (uint32_t m = 0; m < U(MICROBATCHES); m++)
            for (size_t i = 0; i < n_steps; i++) {
                uint64_t st = steps[i];
                uint64_t mask[U(MASK_WORDS)], mask2[U(MASK_WORDS)];
                memset(mask, 0xa5, sizeof mask);
                uint64_t frozen = P(frozen_mask)(s, m, st, mask);
                CHECK(popcount_numel(s, mask) == frozen, "returned count is not the mask's at %u %u %llu", s, m,
                      (unsigned long long)st);
                for (uint32_t w = words; w < U(MASK_WORDS); w++)
                    CHECK(mask[w] == 0, "words past the stage are not clear at %u %u %llu", s, m,
                          (unsigned long long)st);
                /* Same window, same mask: its first and last steps. */
                uint64_t first = st / E * E, last = first + (E - 1);
                if (last < first)
                    last = UINT64_MAX;
                const uint64_t ends[2] = {first, last};
                for (int e = 0; e < 2; e++) {
                    memset(mask2, 0x5a, sizeof mask2);
                    uint64_t f2 = P(frozen_mask)(s, m, ends[e], mask2);
                    CHECK(f2 == frozen && memcmp(mask, mask2, sizeof mask) == 0,
                          "mask changed inside a window at %u %u %llu", s, m, (unsigned long long)ends[e]);
                }
                printf("mask %u %u %llu %llu", s, m, (unsigned long long)st, (unsigned long long)frozen);
                for (uint32_t w = 0; w < words; w++)
                    printf(" %016llx", (unsigned long long)mask[w]);
                printf("\nratio_at %u %u %llu %.17g\n", s, m, (unsigned long long)st, P(freeze_ratio)(s, m, st));
            }
    }
    /* Out of range: nothing frozen, mask cleared; ratio 0. */
    uint64_t mask[U(MASK_WORDS)];
    memset(mask, 0xff, sizeof mask);
    CHECK(P(frozen_mask)(U(STAGES), 0, W + R, mask) == 0 && mask[0] == 0, "stage out of range");
    CHECK(P(freeze_ratio)(0, U(MICROBATCHES), W + R) == 0.0, "microbatch out of range");
    memset(mask, 0xff, sizeof mask);
    CHECK(P(frozen_mask)(0, U(MICROBATCHES), W + R, mask) == 0 && mask[0] == 0, "microbatch out of range (mask)");
    CHECK(P(freeze_ratio)(U(STAGES), 0, W + R) == 0.0, "stage out of range (ratio)");
    if (failures)
        fprintf(stderr, "mask_dump: %d check(s) failed\n", failures);
    return failures != 0;
}
