/* bench_sched: building and simulating a large schedule. Issue target: at
 * ranks = 64, stages_per_rank = 2, microbatches = 1024 (about 260k actions,
 * 3x with split backward) the schedule, its DAG and the simulated step take
 * under 1 s and 300 MB. Prints the time of each phase, actions per second,
 * and the ratio to that budget; peak RSS is for this process alone, so run
 * one schedule per process (bench/sched_scale.sh does).
 *
 *   bench_sched SCHEDULE [RANKS STAGES_PER_RANK MICROBATCHES]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "dag.h"
#include "sched_builtin.h"
#include "sim.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    static const spec_schedule kinds[] = {SCHED_GPIPE, SCHED_1F1B, SCHED_INTERLEAVED_1F1B, SCHED_ZBH1, SCHED_ZBV};
    if (argc != 2 && argc != 5) {
        fprintf(stderr, "usage: bench_sched SCHEDULE [RANKS STAGES_PER_RANK MICROBATCHES]\n");
        return 2;
    }
    spec_schedule kind = SCHED_CUSTOM;
    for (size_t i = 0; i < 5; i++)
        if (strcmp(argv[1], spec_schedule_name(kinds[i])) == 0)
            kind = kinds[i];
    uint32_t p = 64, v = 2, m = 1024;
    if (argc == 5) {
        p = (uint32_t)atoi(argv[2]);
        v = (uint32_t)atoi(argv[3]);
        m = (uint32_t)atoi(argv[4]);
    }
    arena a;
    arena_init(&a, 0);
    sched *s;
    diag_list d;
    diag_init(&d, 4);
    double t0 = now_s();
    if (sched_builtin(kind, p, v, m, &a, &d, "bench_sched", (spec_pos){0, 0}, &s) != TFC_OK) {
        diag_print(&d, stderr);
        return 1;
    }
    double t1 = now_s();
    dag *g;
    if (!dag_build(s, "bench", (spec_pos){0, 0}, &a, &d, &g)) {
        diag_print(&d, stderr);
        return 1;
    }
    double t2 = now_s();
    double *dur = malloc(s->n_actions * sizeof *dur);
    for (size_t i = 0; i < s->n_actions; i++)
        dur[i] = s->actions[i].type == ACT_F ? 1.0 : s->actions[i].type == ACT_B ? 2.0 : 1.0;
    sim_result r;
    if (!sim_run(s, g, dur, 0.05, &a, &r))
        return 1;
    double t3 = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double total = t3 - t0, rss_mb = (double)ru.ru_maxrss / 1024.0;
    printf("%s ranks=%u stages_per_rank=%u microbatches=%u: %zu actions, %u edges\n", argv[1], p, v, m, s->n_actions,
           g->succ_start[g->n]);
    printf("  schedule %.3f s, DAG %.3f s, simulate %.3f s, total %.3f s (%.2f M actions/s)\n", t1 - t0, t2 - t1,
           t3 - t2, total, (double)s->n_actions / total / 1e6);
    printf("  peak RSS %.1f MB; makespan %.1f ms\n", rss_mb, r.makespan);
    printf("  against the budget (1 s, 300 MB): time x%.3f, memory x%.3f -> %s\n", total / 1.0, rss_mb / 300.0,
           total < 1.0 && rss_mb < 300.0 ? "within" : "OVER");
    free(dur);
    diag_free(&d);
    arena_free(&a);
    return 0;
}
