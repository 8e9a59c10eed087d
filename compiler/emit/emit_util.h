/* emit_util: what the C and CUDA emitters share: the per-stage freezing
 * numbers, placeholder lists, and the writers of tables and C strings. */
#ifndef TFC_EMIT_UTIL_H
#define TFC_EMIT_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gen.h"
#include "plan.h"
#include "tmpl.h"

/* What an emitter is given (emit.h's emit_folder takes it). */
typedef struct emit_input {
    const plan *p;
    const char *spec_label; /* the spec's file name, no folder (for comments and MANIFEST) */
    const char *spec_sha256; /* of the spec's bytes, 64 hex digits */
    const spec_input *inputs; /* the files the spec names, each with the sha256 a plan read (spec.h) */
    size_t n_inputs;
} emit_input;

typedef struct emit_ctx {
    const emit_input *in;
    const plan *p;
    const spec *sp;
    char uname[80]; /* the spec's name in capitals, for macros */
    const char *version;
    char freezable[4]; /* "B" or "W" */
    uint32_t S, M;
    double *ratio;  /* S x M: solved ratio of (stage, microbatch)'s freezable backward */
    uint64_t *q;    /* S x M: ratio * 2^32, an integer (the plan's grid) */
    uint32_t max_params, mask_words;
} emit_ctx;

bool emit_ctx_init(emit_ctx *c, const emit_input *in);
void emit_ctx_free(emit_ctx *c);

#define EMIT_MAX_VARS 48
/* Placeholder values; numbers are formatted into the list's own storage. */
typedef struct emit_vars {
    tmpl_var v[EMIT_MAX_VARS];
    char num[EMIT_MAX_VARS][48];
    size_t n;
} emit_vars;

void emit_var(emit_vars *vs, const char *key, const char *value);
void emit_var_u(emit_vars *vs, const char *key, unsigned long long value);

/* The values every template takes: NAME, UNAME, VERSION, SPEC_FILE,
 * MICROBATCHES, WARMUP, RAMP, RESELECT, SEED, FREEZABLE. */
void emit_common_vars(const emit_ctx *c, emit_vars *vs);

/* Table bodies: comma-terminated values, eight per line, indented. */
void emit_u64_rows(FILE *f, const uint64_t *v, size_t n);
void emit_double_rows(FILE *f, const double *v, size_t n);
/* One double as a C constant that reads back exactly ("1.0" rather than "1"
 * so that it is a double in every context). */
void emit_c_double(FILE *f, double v);
/* A C string literal holding s exactly: printable ASCII as itself except
 * '"', '\\' and '?' (backslashed: no trigraphs) and '*' (no comment
 * markers); everything else as three-digit octal escapes. */
void emit_c_string(FILE *f, const char *s);

/* A block of text for a placeholder: open with gen_open, write, then this
 * closes it and returns the malloc'd text (NULL on a write error). */
char *emit_block_close(gen_writer *w);

/* Template name filled with vs, as a malloc'd string (a block for another
 * template); NULL with the reason in d. */
char *emit_render_text(const char *name, const emit_vars *vs, diag_list *d);
/* How shared code is qualified: "static inline", and __host__ __device__
 * as well for CUDA. */
const char *emit_qual(bool cuda);
/* The shared mask code (templates/mask_core.inc) with function prefix
 * prefix, for C or for CUDA (__host__ __device__); malloc'd. */
char *emit_mask_core(const char *prefix, bool cuda, diag_list *d);

/* Renders template name with vs and closes the file into out as file. */
bool emit_render(gen_folder *out, const char *file, const char *name, const emit_vars *vs, diag_list *d);

/* One stage's tables as text, shared by its C and CUDA files. */
typedef struct emit_stage_text {
    char sp[96], usp[96]; /* symbol prefix "NAME_stageS" and its macro form "UNAME_STAGES" */
    char *param_names;    /* C string literals, one per line */
    char *param_numel, *ratio, *q;
    char *param_weight;   /* the selection rule's weights (select.h) */
} emit_stage_text;

bool emit_stage_text_init(const emit_ctx *c, uint32_t st, emit_stage_text *t, diag_list *d);
void emit_stage_text_free(emit_stage_text *t);
/* The common values plus SP, USP, S, RANK, PARAMS, MASK_WORDS, NUMEL,
 * PARAM_NAMES, PARAM_NUMEL, RATIO and Q for stage st. */
void emit_stage_vars(const emit_ctx *c, uint32_t st, const emit_stage_text *t, emit_vars *vs);

/* C file emitters (emit_c.c) and the CUDA one (emit_cuda.c). */
bool emit_c_files(const emit_ctx *c, gen_folder *out, diag_list *d);
bool emit_cuda_files(const emit_ctx *c, gen_folder *out, diag_list *d);
/* plan.json, schedule.csv, timeline.json, timeline.svg (emit_plan.c). */
bool emit_plan_files(const emit_ctx *c, gen_folder *out, diag_list *d);
/* NAME_lcp_index.h/.c (targets.c) and .cu (targets.cuda) when the spec has
 * data.lcp_index (emit_lcp.c). */
bool emit_lcp_files(const emit_ctx *c, gen_folder *out, diag_list *d);

#endif
