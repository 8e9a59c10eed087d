/* spec_read: what the spec reader's files share (compiler/front only, not
 * installed): the reader's state, its messages' helpers, the typed getters
 * that read one YAML node each, the schema's name lists, and the section
 * readers spec.c calls. Every getter reports what is wrong at the node and
 * returns false (NULL, -1).
 *
 * This header does not include spec.h: spec.c includes it, and modules do
 * not include each other both ways (tests/layout). The files that fill a
 * spec include spec.h themselves. */
#ifndef TFC_SPEC_READ_H
#define TFC_SPEC_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "ydoc.h"

struct spec;

enum { SPEC_PATH_CAP = 96 };

typedef struct spec_reader {
    const char *file;
    arena *a;
    diag_list *d;
    struct spec *s;
    bool oom;
} spec_reader;

/* ---- reporting (spec_read.c) ---- */

#define SPEC_ERR(c, node, ...) diag_error((c)->d, (c)->file, (node)->line, (node)->col, __VA_ARGS__)

/* Reports running out of memory once, with no position. */
void spec_out_of_memory(spec_reader *c, const ydoc_node *at);
/* "\"text\"" for a scalar, "a sequence" / "a mapping" otherwise. */
const char *spec_describe(const ydoc_node *n, char *buf, size_t cap);
/* What a node is, for "got ..." in type errors. */
const char *spec_got(const ydoc_node *n, char *buf, size_t cap);
/* parent.key and parent[i] into out (SPEC_PATH_CAP bytes). */
void spec_path_key(char *out, const char *parent, const char *key);
void spec_path_index(char *out, const char *parent, size_t i);

/* ---- mappings (spec_read.c); known is NULL-terminated ---- */

bool spec_check_map(spec_reader *c, const ydoc_node *node, const char *path, const char *const *known);
bool spec_misspelt_in(const ydoc_node *map, const char *key, const char *const *known);
const ydoc_node *spec_require(spec_reader *c, const ydoc_node *map, const char *path, const char *key,
                              const char *const *known);

/* ---- typed scalars (spec_read.c) ---- */

bool spec_get_uint(spec_reader *c, const ydoc_node *n, const char *path, uint64_t min, uint64_t max,
                   uint64_t *out);
bool spec_get_u32(spec_reader *c, const ydoc_node *n, const char *path, uint32_t min, uint32_t max,
                  uint32_t *out);
bool spec_get_number_range(spec_reader *c, const ydoc_node *n, const char *path, double min, bool min_open,
                           double max, bool max_open, double *out);
bool spec_get_number(spec_reader *c, const ydoc_node *n, const char *path, double min, bool min_open,
                     double max, double *out);
bool spec_get_bool(spec_reader *c, const ydoc_node *n, const char *path, bool *out);
const char *spec_get_string(spec_reader *c, const ydoc_node *n, const char *path, size_t max_bytes);
int spec_get_enum(spec_reader *c, const ydoc_node *n, const char *path, const char *const *names);

/* ---- the schema's names (spec.c), NULL-terminated ---- */

extern const char *const spec_schedule_names[];
extern const char *const spec_select_names[];
extern const char *const spec_pipeline_keys[];
extern const char *const spec_param_keys[];
extern const char *const spec_stage_keys[];
extern const char *const spec_model_keys[];
extern const char *const spec_timing_keys[];
extern const char *const spec_transformer_keys[];
#define SPEC_TRANSFORMER_REQUIRED 8 /* the keys before stage_layers */
extern const char *const spec_device_keys[];
extern const char *const spec_freeze_keys[];
extern const char *const spec_training_keys[];
extern const char *const spec_pilot_keys[];

/* ---- sections, in the order spec.c reads them ---- */

/* spec_model.c */
bool spec_read_pipeline(spec_reader *c, const ydoc_node *p);
bool spec_read_model(spec_reader *c, const ydoc_node *m, bool stages_known);
/* spec_timing.c */
void spec_read_timing(spec_reader *c, const ydoc_node *t, bool stages_known, size_t n);
/* spec_freeze.c */
void spec_read_freeze(spec_reader *c, const ydoc_node *f);
void spec_read_training(spec_reader *c, const ydoc_node *t);
void spec_check_auto(spec_reader *c);
void spec_check_training_window(spec_reader *c);
void spec_check_freeze_weights(spec_reader *c);
/* spec_model.c */
void spec_check_memory_limit(spec_reader *c);
void spec_check_activation_total(spec_reader *c);

#endif
