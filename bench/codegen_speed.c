/* bench_codegen_queries: the generated run-time queries, timed. Built by
 * bench/codegen.sh against a folder generated from a spec whose stage 0
 * has 1,000 tensors (name "b1k"); prints ns per NAME_freeze_ratio call and
 * per NAME_frozen_mask call, and how far the frozen share strays from the
 * ratio over many draws. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "b1k.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    const uint64_t after = B1K_WARMUP_STEPS + B1K_RAMP_STEPS;
    volatile double sink = 0;
    long n = 20000000;
    double t0 = now_s();
    for (long i = 0; i < n; i++)
        sink += b1k_freeze_ratio((uint32_t)(i & 1), (uint32_t)(i & 7), after + (uint64_t)i);
    double ratio_ns = (now_s() - t0) / (double)n * 1e9;

    uint64_t mask[B1K_MASK_WORDS];
    long calls = 200000;
    volatile uint64_t frozen_sink = 0;
    t0 = now_s();
    for (long i = 0; i < calls; i++)
        frozen_sink += b1k_frozen_mask(0, (uint32_t)(i & 7), after + (uint64_t)i * B1K_RESELECT_EVERY, mask);
    double mask_us = (now_s() - t0) / (double)calls * 1e6;

    /* Share error over draws, per microbatch of stage 0. */
    double worst = 0, sum = 0;
    long draws = 0;
    for (uint32_t m = 0; m < B1K_MICROBATCHES; m++)
        for (uint64_t w = 0; w < 2000; w++) {
            uint64_t f = b1k_frozen_mask(0, m, after + w * B1K_RESELECT_EVERY, mask);
            double err = b1k_ratio[0][m] - (double)f / (double)b1k_stage_numel[0];
            worst = fmax(worst, fabs(err));
            sum += fabs(err);
            draws++;
        }
    uint64_t largest = 0;
    for (uint32_t i = 0; i < b1k_param_count[0]; i++)
        if (b1k_params[0][i].numel > largest)
            largest = b1k_params[0][i].numel;
    printf("freeze_ratio: %.2f ns per call (target < 20 ns)\n", ratio_ns);
    printf("frozen_mask, %u-tensor stage: %.3f us per call (target < 5 us)\n", b1k_param_count[0], mask_us);
    printf("frozen share vs ratio over %ld draws: mean |error| %.2e, worst %.2e (bound: largest tensor share %.2e)\n",
           draws, sum / (double)draws, worst, (double)largest / (double)b1k_stage_numel[0]);
    return sink < 0 || frozen_sink == 1;
}
