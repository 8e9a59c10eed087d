/* sim: one training step, simulated. Every action starts as soon as all its
 * DAG predecessors have ended (plus the latency on cross-rank edges): the
 * longest path to it. The step's makespan is the latest end; a rank's bubble
 * is the part of the makespan it spends idle. sim_shared.c: the same step
 * on fewer processors than ranks. */
#ifndef TFC_SIM_H
#define TFC_SIM_H

#include <stdbool.h>

#include "dag.h"
#include "diag.h"
#include "sched.h"
#include "spec.h"

typedef struct sim_result {
    double *start;  /* per action, ms from the step's start */
    double makespan;
    double *busy;   /* per rank: sum of its actions' durations */
    double *idle;   /* per rank: makespan - busy */
    double *bubble; /* per rank: idle / makespan (0 when the makespan is 0) */
} sim_result;

/* Each action's duration from the spec's timing tables: F forward_ms, B
 * backward_ms, I backward_input_ms, W backward_weight_ms. A custom schedule
 * whose actions need a table the spec lacks is an error at timing. */
bool sim_durations(const spec *sp, const sched *s, double *dur, diag_list *d);

/* Each action's earliest start (into start, n entries) and the makespan. */
double sim_longest_path(const sched *s, const dag *g, const double *dur, double comm_ms, double *start);

/* Longest path over g in topological order. r's arrays are allocated in a. */
bool sim_run(const sched *s, const dag *g, const double *dur, double comm_ms, arena *a, sim_result *r);

/* The step when the ranks share `processors` processors (pipeline.processors,
 * fewer than the ranks): each action still waits for its DAG predecessors
 * (program order included, plus comm_ms across ranks), and every running
 * action progresses at min(1, processors / running) of its own speed: fair
 * sharing, no cost to switch. A rank's bubble lends its processor to the
 * others, so the step lies between the longest path and the total work over
 * the processors. With processors >= ranks it is sim_longest_path's
 * makespan. Each action's end goes to end (n entries) when not NULL.
 * Returns the makespan, or -1 when a's memory runs out. */
double sim_shared(const sched *s, const dag *g, const double *dur, double comm_ms, uint32_t processors, arena *a,
                  double *end);

#endif
