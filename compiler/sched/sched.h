/* sched: per-rank action programs. A schedule is the list of compute
 * actions each rank runs, in order: forward F, full backward B, or the split
 * backward's input-gradient I and weight-gradient W, each for one (stage,
 * microbatch). Built-in schedules follow the orders PyTorch's
 * torch.distributed.pipelining executes; custom ones come from a
 * compute-only CSV (sched_csv.c). */
#ifndef TFC_SCHED_H
#define TFC_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "spec.h"

typedef enum { ACT_F = 0, ACT_B = 1, ACT_I = 2, ACT_W = 3 } act_type;

/* The actions freezing can shorten: a full backward B (its weight
 * gradient) and a weight-gradient W. F and I compute what later actions
 * need and never freeze (docs/freeze-lp.md). The one home of this rule. */
static inline bool act_type_freezable(act_type t) { return t == ACT_B || t == ACT_W; }
enum { ACT_TYPES = 4 };

/* "F", "B", "I", "W" */
char sched_act_letter(act_type t);

typedef struct sched_action {
    uint32_t stage;
    uint32_t mb;
    uint8_t type; /* act_type */
    uint8_t pair; /* SCHED_PAIR_*: DualPipeV's overlapped forward and backward */
} sched_action;

/* An overlapped pair (torch's "(xFm;yBn)OVERLAP_F_B"): a forward
 * (SCHED_PAIR_FIRST) and the backward right after it in its rank's program
 * (SCHED_PAIR_SECOND), run as one: the forward at its input, the backward
 * after it at its own, and what either half sends leaves when the pair ends
 * (dag.c). */
enum { SCHED_PAIR_NONE = 0, SCHED_PAIR_FIRST = 1, SCHED_PAIR_SECOND = 2 };

typedef struct sched {
    uint32_t ranks;
    uint32_t n_stages;
    uint32_t microbatches;
    uint32_t *stage_rank; /* n_stages: the rank that runs each stage */
    sched_action *actions; /* rank 0's program, then rank 1's, ... */
    size_t n_actions;
    size_t *rank_start;  /* ranks + 1 offsets into actions */
    uint32_t *rank_of;   /* n_actions: rank of each action */
    uint32_t *index;     /* ACT_TYPES x n_stages x microbatches -> action, or SCHED_NONE */
    /* Custom schedules: where each action was written (CSV line, column); NULL otherwise. */
    spec_pos *src;
    const char *src_file;
} sched;

#define SCHED_NONE UINT32_MAX

/* The action of (type, stage, mb), or SCHED_NONE. */
static inline uint32_t sched_find(const sched *s, act_type t, uint32_t stage, uint32_t mb)
{
    return s->index[((size_t)t * s->n_stages + stage) * s->microbatches + mb];
}

/* Fills stage_rank checks, rank_of and index from actions and rank_start,
 * and checks completeness: each stage on one rank, and each (stage, mb) with
 * exactly one F and either one B or one I and one W. Used by both builders;
 * problems go to d (positioned at src when there is one, else at file:0:0). */
bool sched_index(sched *s, arena *a, diag_list *d, const char *file);

/* Writes action i as "2F0" into buf (>= 24 bytes). */
const char *sched_action_name(const sched *s, size_t i, char *buf, size_t cap);

/* Rank r's program as a row of PyTorch's compute-only CSV (no newline):
 * "0F0,0F1,(0F3;7B1)OVERLAP_F_B,...", pairs in PyTorch's notation. */
void sched_write_rank(const sched *s, uint32_t r, FILE *f);

#endif
