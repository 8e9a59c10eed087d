/* stub_main: runs a generated folder's plan on the stub executor (stub.c),
 * vendoring the folder as a trainer would. Build it against one folder:
 *   cc -DSTUB_NAME=NAME -I generated/NAME runtime_stub/stub_main.c \
 *      runtime_stub/stub.c generated/NAME/NAME.c -lpthread -lm
 *   stub [STEPS [SCALE [TOLERANCE]]]     defaults 20, 1.0, 0.05
 * Runs STEPS steps with nothing frozen (step 0, before the warm-up) and
 * STEPS with the plan's freezing (after the ramp), each backward lasting
 * what the mask NAME_frozen_mask actually returns for that step implies.
 * Prints the measured median makespans against the plan's predictions,
 * the speed-ups, per-rank bubbles and realised freeze ratios per stage;
 * exits 1 when a makespan is off by more than TOLERANCE (relative) or the
 * speed-up by more than TOLERANCE x 100 points. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(a) #a
#define STR(a) STR_(a)
#define N(x) CAT(STUB_NAME, CAT(_, x))
#define U(x) CAT(STUB_UNAME, CAT(_, x))
#include STR(STUB_NAME.h)

/* The generated program's action type doubles as the stub's. */
_Static_assert(sizeof(N(action)) == sizeof(stub_action), "generated and stub actions differ");

static uint64_t mask[U(MASK_WORDS)];

static double duration(void *ctx, size_t i, uint64_t step)
{
    (void)ctx;
    double w_max = N(action_ms)[i], w_min = N(action_frozen_ms)[i];
    if (w_min >= w_max)
        return w_max;
    const N(action) *a = &N(program)[i];
    uint64_t frozen = N(frozen_mask)(a->stage, a->microbatch, step, mask);
    double share = (double)frozen / (double)N(stage_numel)[a->stage];
    return w_max - share * (w_max - w_min);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median makespan over steps (bubbles of the median step into bubble). */
static double run_steps(const stub_plan *p, uint64_t step, int steps, double scale, double *bubble)
{
    double *ms = malloc((size_t)steps * sizeof *ms), busy[U(RANKS)], bub[U(RANKS)];
    for (int s = 0; s < steps; s++) {
        stub_step r = {0, busy, bub};
        char why[200];
        if (!stub_run_step(p, duration, NULL, step + (uint64_t)s * U(RESELECT_EVERY), scale, &r, why, sizeof why)) {
            fprintf(stderr, "stub: %s\n", why);
            exit(1);
        }
        ms[s] = r.makespan_ms;
        memcpy(bubble, bub, sizeof bub);
    }
    qsort(ms, (size_t)steps, sizeof *ms, cmp);
    double med = ms[steps / 2];
    free(ms);
    return med;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    double scale = argc > 2 ? atof(argv[2]) : 1.0, tol = argc > 3 ? atof(argv[3]) : 0.05;
    if (steps < 1 || !(scale > 0) || !(tol > 0))
        return 2;
    stub_plan p = {U(RANKS), U(STAGES), U(MICROBATCHES), (const stub_action *)N(program), N(program_start),
                   N(stage_rank), U(COMM_MS)};
    const uint64_t frozen_step = U(WARMUP_STEPS) + U(RAMP_STEPS);
    double bub0[U(RANKS)], bub1[U(RANKS)];
    double base = run_steps(&p, 0, steps, scale, bub0);
    double frz = run_steps(&p, frozen_step, steps, scale, bub1);
    double pb = U(BASELINE_MAKESPAN_MS), pf = U(PLANNED_MAKESPAN_MS);
    double eb = fabs(base - pb) / pb, ef = fabs(frz - pf) / pf;
    double sp_meas = base / frz, sp_pred = pb / pf;
    printf("%s: %d steps each at time scale %g\n", STR(STUB_NAME), steps, scale);
    printf("  nothing frozen: measured %.3f ms, predicted %.3f ms (%+.2f%%)\n", base, pb, 100 * (base - pb) / pb);
    printf("  plan's freezing: measured %.3f ms, predicted %.3f ms (%+.2f%%)\n", frz, pf, 100 * (frz - pf) / pf);
    printf("  speed-up: measured %.4fx, predicted %.4fx (%+.2f points)\n", sp_meas, sp_pred, 100 * (sp_meas - sp_pred));
    printf("  bubble per rank (nothing frozen -> frozen):");
    for (uint32_t k = 0; k < U(RANKS); k++)
        printf(" %.1f%%->%.1f%%", 100 * bub0[k], 100 * bub1[k]);
    printf("\n  realised freeze ratio per stage (plan's mean):");
    for (uint32_t s = 0; s < U(STAGES); s++) {
        double got = 0, want = 0;
        for (uint32_t m = 0; m < U(MICROBATCHES); m++) {
            got += (double)N(frozen_mask)(s, m, frozen_step, mask) / (double)N(stage_numel)[s];
            want += N(ratio)[s][m];
        }
        printf(" %.4f (%.4f)", got / U(MICROBATCHES), want / U(MICROBATCHES));
    }
    putchar('\n');
    bool ok = eb <= tol && ef <= tol && fabs(sp_meas - sp_pred) <= tol;
    if (!ok)
        printf("  FAILED: beyond the tolerance of %.1f%%\n", 100 * tol);
    return ok ? 0 : 1;
}
