/* spec: the typed, validated tfc spec (v1) and the function that reads it.
 * Everything downstream takes a spec and never looks at YAML. The schema,
 * with every key, type, default and range, is written down in docs/spec.md. */
#ifndef TFC_SPEC_H
#define TFC_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "cost_model.h"
#include "diag.h"
#include "status.h"

/* Hard limits (docs/spec.md, "Limits"). Past them: an error, never a crash
 * or a huge allocation. */
#define SPEC_MAX_FILE_BYTES (64u * 1024u * 1024u)
#define SPEC_MAX_YAML_DEPTH 64u
#define SPEC_MAX_YAML_NODES 8000000u
#define SPEC_MAX_SCALAR_BYTES 65536u
#define SPEC_MAX_STAGES 1024u
#define SPEC_MAX_RANKS 1024u
#define SPEC_MAX_MICROBATCHES 65536u
/* stages x microbatches: bounds the action count (x2, x3 with split backward). */
#define SPEC_MAX_STAGE_MICROBATCHES (1u << 20)
#define SPEC_MAX_PARAMS 1000000u
#define SPEC_MAX_NUMEL (UINT64_C(1) << 48)
/* Elements of one stage, and of the whole model (the masks work on a
 * stage's elements in doubled units: they must stay below 2^62). */
#define SPEC_MAX_STAGE_NUMEL (UINT64_C(1) << 60)
#define SPEC_MAX_TOTAL_NUMEL (UINT64_C(1) << 62)
#define SPEC_MAX_NAME_BYTES 64u
#define SPEC_MAX_PARAM_NAME_BYTES 512u
#define SPEC_MAX_PATH_BYTES 4096u
#define SPEC_MAX_MS 1.0e7
#define SPEC_MAX_SEQ_LEN 1048576u
#define SPEC_MAX_TOPK 1024u

typedef enum {
    SCHED_GPIPE,
    SCHED_1F1B,
    SCHED_INTERLEAVED_1F1B,
    SCHED_ZBH1,
    SCHED_ZBV,
    SCHED_LOOPED_BFS,
    SCHED_DUALPIPEV,
    SCHED_CUSTOM,
} spec_schedule;

/* The spelling used in specs ("GPipe", "1F1B", ...). */
const char *spec_schedule_name(spec_schedule s);
/* Schedules whose backward is split into input-grad I and weight-grad W
 * (DualPipeV splits some and runs the others whole: its B is I + W unless
 * the spec times it). */
bool spec_schedule_is_split(spec_schedule s);

typedef struct spec_pos {
    uint32_t line, col;
} spec_pos;

typedef struct spec_param {
    const char *name;
    uint64_t numel;
    spec_pos pos;
    double freeze_weight;    /* freeze.select weights: relative odds of being frozen; default 1 */
    bool has_freeze_weight;  /* written in the spec (only allowed with select weights) */
    spec_pos pos_freeze_weight;
} spec_param;

typedef struct spec_stage {
    const char *name;
    spec_param *params;
    size_t n_params;
    uint64_t numel; /* sum over params */
    uint64_t activation_bytes; /* per microbatch, held from its F to its last backward; 0: not given */
    bool has_activation_bytes;
    spec_pos pos;
} spec_stage;

/* model.stages[i].activation_bytes at most this (2^50: a PiB per microbatch). */
#define SPEC_MAX_ACTIVATION_BYTES (1ull << 50)
/* timing.scale at most this. */
#define SPEC_MAX_TIMING_SCALE 1000.0

/* pipeline.memory_limit_bytes at most this (2^60). */
#define SPEC_MAX_MEMORY_LIMIT (1ull << 60)

/* W with every parameter frozen, as a share of W, when the spec gives no
 * backward_weight_frozen_ms: launch and bookkeeping that remain with every
 * weight gradient skipped (docs/spec.md). The one home of the W floor. */
#define SPEC_W_FLOOR_SHARE 0.05

/* In the order of timing.source's spellings ("table", "model", "measured",
 * "trace"): spec_timing.c reads the key by this order. */
typedef enum {
    TIMING_TABLE,    /* the per-stage tables */
    TIMING_MODEL,    /* the tables, computed by the cost model */
    TIMING_MEASURED, /* per action, medians of measured samples (timing_csv.c) */
    TIMING_TRACE,    /* the same from Chrome traces (timing_trace.c) */
} spec_timing_source;

/* timing.file or timing.frozen_file lists at most this many files. */
#define SPEC_MAX_TIMING_FILES 256u

/* The files one measured-timing key names: one path, or a sequence of them
 * whose samples are pooled (a trace per rank, as torch.profiler writes
 * them). Paths as written in the spec, in its order; n is 0 when the key is
 * absent or wrong. */
typedef struct spec_files {
    const char **path;
    spec_pos *pos; /* each path's position */
    size_t n;
    spec_pos at;   /* the key's value: the string, or the sequence */
    bool listed;   /* written as a sequence (of one path, even) */
} spec_files;

/* Per-stage timing tables in milliseconds (NULL when the spec leaves one
 * out, and all NULL with source measured). */
typedef struct spec_timing {
    spec_timing_source source;
    spec_files file, frozen_file; /* measured and trace: timing.file, timing.frozen_file */
    double *forward_ms;
    double *backward_ms;
    double *backward_frozen_ms;
    double *backward_input_ms;
    double *backward_weight_ms;
    double *backward_weight_frozen_ms; /* W with everything frozen; default 5% of W */
    double comm_ms;
    /* measured and trace: timing.scale, every sample's duration times this
     * (1 when absent; tfc_torch.profile measures the profiler's own cost) */
    double scale;
    spec_pos scale_at;
    uint64_t vocab; /* timing.transformer.vocab with source: model, else 0 (not given) */
    cost_model model; /* source: model: the shape and device read (stage_layers NULL: even) */
    bool has_model;
} spec_timing;

typedef enum {
    BALANCE_MINMAX, /* phase 3: least largest per-action ratio among the fastest, least-freezing plans */
    BALANCE_NONE,   /* keep phase 2's answer */
    BALANCE_LEXIMIN, /* minmax, then again over the actions below the maximum, a bounded number of rounds */
} spec_balance;

/* Which tensors a (stage, microbatch) freezes at its ratio (docs/codegen.md,
 * "The frozen mask"; the choice measured in docs/time-to-quality.md). */
typedef enum {
    SELECT_UNIFORM,     /* numel-matched draw, every tensor alike */
    SELECT_FRONT_FIRST, /* a stage's earlier tensors likelier: weights 1.0 falling to 0.1 */
    SELECT_BALANCED,    /* a step's microbatches share the freezing out: each tensor frozen on about sum_m r_m */
    SELECT_WEIGHTS,     /* per-tensor freeze_weight from the spec */
} spec_select;

/* The spelling used in specs ("uniform", ...). */
const char *spec_select_name(spec_select s);

/* The largest freeze_weight a spec may give. */
#define SPEC_MAX_FREEZE_WEIGHT 1.0e6

/* freeze.select when a spec leaves it out (chosen by measured time to
 * quality: docs/time-to-quality.md). */
#define SPEC_DEFAULT_SELECT SELECT_BALANCED

typedef struct spec_freeze {
    double max_ratio;    /* with max_ratio_auto: 0 until the plan chooses (plan.h) */
    bool max_ratio_auto; /* freeze.max_ratio: auto (needs training) */
    spec_pos pos_max_ratio;
    spec_select select;
    spec_balance balance;
    double max_action_ratio; /* per-action cap on x; 1 = none */
    uint64_t warmup_steps;
    uint64_t ramp_steps;
    uint64_t reselect_every;
    uint64_t seed;
} spec_freeze;

/* training.lr_ratio's bound (ttq.h's TTQ_LR_RATIO_MAX): at 2 a full step
 * makes no progress. */
#define SPEC_LR_RATIO_MAX 2.0

/* The batch regime (optional section training; docs/time-to-quality.md):
 * what the plan needs to predict time to quality and to choose the cap. */
typedef struct spec_training {
    bool present;
    uint64_t batch_tokens;     /* predictions per optimizer step */
    double noise_scale_tokens; /* the measured gradient noise scale B_simple, in the same unit */
    uint64_t steps;            /* the run's optimizer steps */
    /* B_simple measured where freezing starts (freeze.warmup_steps), in the
     * same unit; NAN when not given. The upper bound takes the smaller of
     * the two betas (ttq.h, ttq_upper_bound). */
    double freeze_noise_scale_tokens;
    /* The run's rate against a single step's best (ttq.h, ttq_rho): given
     * (lr_ratio), or from a pilot pair measured at pilot_max_ratio
     * (pilot_speedup, the drift-free time-to-quality speed-up); NAN when
     * neither is given, and until plan_build derives it from the pilot. */
    double lr_ratio;
    /* training.optimizer: how the run scales a step, which decides what a
     * frozen step costs at a given lr_ratio (ttq.h, ttq_optimizer: the
     * same values). */
    enum { SPEC_OPTIMIZER_ADAM = 0, SPEC_OPTIMIZER_SGD = 1 } optimizer;
    bool pilot;
    double pilot_max_ratio, pilot_speedup;
    /* The element share the pilot's plan freezes: set with lr_ratio when
     * plan_build derives it; a plan freezing more extrapolates from it. */
    double pilot_frozen_share;
    spec_pos pos_pilot, pos_steps;
    spec_pos pos_pilot_max_ratio, pos_pilot_speedup; /* their values, for what is wrong with one */
} spec_training;

typedef struct spec_targets {
    bool c;
    bool cuda;
    const char *cuda_arch; /* "sm_90", ... */
} spec_targets;

typedef struct spec_lcp_index {
    bool enabled; /* data.lcp_index present */
    uint32_t token_bytes;
    uint32_t seq_len;
    uint32_t topk;
} spec_lcp_index;

/* A file the spec names and a plan reads (spec_inputs), and the sha256 of
 * the bytes the latest plan read from it, for the MANIFEST. */
typedef struct spec_input {
    const char *written; /* as the spec writes it */
    const char *path;    /* resolved, as spec_relative_path resolves it */
    char sha256[65];     /* hex; "" until a plan reads the file */
} spec_input;

typedef struct spec {
    const char *path; /* as given on the command line */
    char sha256[65];  /* of the spec's bytes, hex */
    unsigned version;
    const char *name;
    spec_stage *stages;
    size_t n_stages; /* ranks * stages_per_rank */
    size_t n_params; /* over all stages */
    uint64_t numel;  /* over all stages */
    spec_schedule schedule;
    uint32_t ranks;
    uint32_t stages_per_rank;
    uint32_t microbatches;
    const char *order; /* custom schedules: CSV path as written in the spec */
    uint64_t memory_limit_bytes; /* pipeline.memory_limit_bytes: activation bytes a rank may hold */
    bool has_memory_limit;
    spec_pos pos_memory_limit;
    /* pipeline.processors: the processors the ranks share (sim_shared in
     * sim.h); 0 when absent: a processor per rank, the step the DAG's
     * longest path. */
    uint32_t processors;
    spec_pos pos_processors;
    /* Where later stages point their messages: pipeline.schedule,
     * pipeline.microbatches, pipeline.order and the timing mapping. */
    spec_pos pos_schedule, pos_microbatches, pos_order, pos_timing;
    spec_timing timing;
    spec_freeze freeze;
    spec_training training;
    spec_targets targets;
    spec_lcp_index lcp_index;
    /* spec_inputs' files, listed when the spec is loaded. The one part of a
     * loaded spec that changes: the readers of those files (sched_csv.c,
     * timing_samples.c) record the sha256 of what they read through this
     * pointer (spec_input_read), so the plans of one spec are built one at a
     * time (variants, which read no files, have none). */
    spec_input *inputs;
    size_t n_inputs;
} spec;


/* A path the spec names (pipeline.order, timing.file), relative to the
 * spec's folder unless absolute or read from stdin; NULL on out of memory. */
const char *spec_relative_path(const spec *sp, const char *path, arena *a);

/* The files the spec names and a plan reads (pipeline.order, then every
 * path of timing.file and of timing.frozen_file in the spec's order),
 * resolved as spec_relative_path does, into *out (an array in a); returns
 * the count, at most SPEC_MAX_INPUTS, or SIZE_MAX on out of memory. */
#define SPEC_MAX_INPUTS (1u + 2u * SPEC_MAX_TIMING_FILES)
size_t spec_inputs(const spec *sp, arena *a, const char ***out);

/* Lists spec_inputs' files in s->inputs, each as written and resolved, no
 * hash yet (spec_load_buffer's last step); false on out of memory. */
bool spec_inputs_list(spec *s, arena *a);

/* A reader of the file at path (resolved) has read len bytes at buf for a
 * plan: their sha256 becomes that of every input of sp at path. */
void spec_input_read(const spec *sp, const char *path, const void *buf, size_t len);

/* The i-th key of the schema as a dotted path ("pipeline.ranks",
 * "model.stages[i].params[j].numel"); false past the last one. */
bool spec_schema_key(size_t i, char *out, size_t cap);

/* Reads and validates the spec at path ("-" reads standard input). On
 * TFC_OK, *out points into a. Otherwise d holds every independent error
 * found (up to its cap), each with file and, where there is one, line:column. */
tfc_status spec_load_file(const char *path, arena *a, diag_list *d, const spec **out);

/* The same for bytes already in memory; file is the name used in messages. */
tfc_status spec_load_buffer(const char *file, const char *buf, size_t len, arena *a, diag_list *d,
                             const spec **out);

#endif
