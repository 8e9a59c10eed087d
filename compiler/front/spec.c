/* spec: the v1 schema. Walks a ydoc tree, fills a typed struct, and reports
 * every independent problem with its position. Checks that depend on a value
 * that was itself wrong (array lengths when the stage count is unknown) are
 * skipped rather than reported twice. docs/spec.md is the prose twin of this
 * file and of the sections' files: change both together.
 *
 * Here: the schema's names and keys, the root mapping and its small sections
 * (name, targets, data), and the entry points. The pipeline and model are
 * read in spec_model.c, timing in spec_timing.c, freeze and training in
 * spec_freeze.c, all with the helpers of spec_read.c. */
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "sha256.h"
#include "spec_read.h"
#include "text.h"
#include "ydoc.h"

static const ydoc_limits yaml_limits = {
    .max_depth = SPEC_MAX_YAML_DEPTH,
    .max_nodes = SPEC_MAX_YAML_NODES,
    .max_scalar_bytes = SPEC_MAX_SCALAR_BYTES,
};

const char *const spec_schedule_names[] = {
    [SCHED_GPIPE] = "GPipe", [SCHED_1F1B] = "1F1B", [SCHED_INTERLEAVED_1F1B] = "Interleaved1F1B",
    [SCHED_ZBH1] = "ZBH1",   [SCHED_ZBV] = "ZBV",   [SCHED_LOOPED_BFS] = "LoopedBFS", [SCHED_DUALPIPEV] = "DualPipeV",
    [SCHED_CUSTOM] = "custom",
    NULL,
};

/* CUDA architectures NVRTC in current toolkits compiles for. */
static const char *const cuda_archs[] = {
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120", NULL,
};

static const char *const c_keywords[] = {
    "auto",     "break",    "case",     "char",      "const",    "continue",      "default",
    "do",       "double",   "else",     "enum",      "extern",   "float",         "for",
    "goto",     "if",       "inline",   "int",       "long",     "register",      "restrict",
    "return",   "short",    "signed",   "sizeof",    "static",   "struct",        "switch",
    "typedef",  "union",    "unsigned", "void",      "volatile", "while",         "_Alignas",
    "_Alignof", "_Atomic",  "_Bool",    "_Complex",  "_Generic", "_Imaginary",    "_Noreturn",
    "_Static_assert",       "_Thread_local",         "bool",     "true",          "false",
    "NULL",     "main",     NULL,
};

/* The schema's keys, per mapping. spec_schema_key() lists them with their
 * paths, and a test holds docs/spec.md to the same list. */
const char *const spec_pipeline_keys[] = {"schedule",          "ranks", "stages_per_rank", "microbatches", "order",
                                          "memory_limit_bytes", "processors", NULL};
const char *const spec_param_keys[] = {"name", "numel", "freeze_weight", NULL};
const char *const spec_stage_keys[] = {"name", "params", "activation_bytes", NULL};
const char *const spec_model_keys[] = {"stages", NULL};
const char *const spec_timing_keys[] = {"source",             "forward_ms",         "backward_ms",
                                        "backward_frozen_ms", "backward_input_ms",  "backward_weight_ms",
                                        "backward_weight_frozen_ms", "comm_ms",     "transformer",
                                        "device",             "file",               "frozen_file",
                                        "scale",              NULL};
/* SPEC_TRANSFORMER_REQUIRED (spec_read.h): the keys before stage_layers */
const char *const spec_transformer_keys[] = {"layers", "hidden", "ffn", "heads", "kv_heads", "vocab", "seq_len",
                                             "microbatch_size", "stage_layers", NULL};
const char *const spec_device_keys[] = {"peak_tflops", "mfu", NULL};
const char *const spec_freeze_keys[] = {"max_ratio", "balance", "max_action_ratio", "warmup_steps", "ramp_steps",
                                        "reselect_every", "seed", "select", NULL};
const char *const spec_select_names[] = {[SELECT_UNIFORM] = "uniform", [SELECT_FRONT_FIRST] = "front_first",
                                         [SELECT_BALANCED] = "balanced", [SELECT_WEIGHTS] = "weights", NULL};

const char *spec_select_name(spec_select s)
{
    return (unsigned)s < sizeof spec_select_names / sizeof *spec_select_names - 1 ? spec_select_names[s] : "?";
}
const char *const spec_training_keys[] = {"batch_tokens", "noise_scale_tokens", "steps",
                                          "lr_ratio",     "optimizer",          "pilot",
                                          "freeze_noise_scale_tokens",          NULL};
const char *const spec_pilot_keys[] = {"max_ratio", "speedup", NULL};
static const char *const targets_keys[] = {"c", "cuda", NULL};
static const char *const cuda_keys[] = {"enabled", "arch", NULL};
static const char *const data_keys[] = {"lcp_index", NULL};
static const char *const lcp_keys[] = {"token_bytes", "seq_len", "topk", NULL};
static const char *const root_keys[] = {"tfc",    "name",     "model",   "pipeline", "timing",
                                        "freeze", "training", "targets", "data",     NULL};

static const struct {
    const char *path; /* as docs/spec.md writes it */
    const char *const *keys;
} schema_sections[] = {
    {"", root_keys},
    {"model", spec_model_keys},
    {"model.stages[i]", spec_stage_keys},
    {"model.stages[i].params[j]", spec_param_keys},
    {"pipeline", spec_pipeline_keys},
    {"timing", spec_timing_keys},
    {"timing.transformer", spec_transformer_keys},
    {"timing.device", spec_device_keys},
    {"freeze", spec_freeze_keys},
    {"training", spec_training_keys},
    {"training.pilot", spec_pilot_keys},
    {"targets", targets_keys},
    {"targets.cuda", cuda_keys},
    {"data", data_keys},
    {"data.lcp_index", lcp_keys},
};

bool spec_schema_key(size_t i, char *out, size_t cap)
{
    for (size_t k = 0; k < sizeof schema_sections / sizeof *schema_sections; k++) {
        const char *const *keys = schema_sections[k].keys;
        for (size_t j = 0; keys[j]; j++, i--) {
            if (i == 0) {
                const char *p = schema_sections[k].path;
                int w = snprintf(out, cap, "%s%s%s", p, *p ? "." : "", keys[j]);
                return w > 0 && (size_t)w < cap;
            }
        }
    }
    return false;
}

const char *spec_schedule_name(spec_schedule s) { return spec_schedule_names[s]; }

bool spec_schedule_is_split(spec_schedule s) { return s == SCHED_ZBH1 || s == SCHED_ZBV || s == SCHED_DUALPIPEV; }

/* ---- sections ---- */

static void read_name(spec_reader *c, const ydoc_node *n)
{
    char q[TEXT_QUOTE_CAP];
    const char *name = spec_get_string(c, n, "name", SPEC_MAX_NAME_BYTES);
    if (!name)
        return;
    if (!text_is_c_identifier(name, n->n)) {
        SPEC_ERR(c, n, "name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*), got %s", spec_describe(n, q, sizeof q));
        return;
    }
    if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) {
        SPEC_ERR(c, n, "name %s is reserved in C (leading '__' or '_' and a capital)", spec_describe(n, q, sizeof q));
        return;
    }
    if (name[0] == '_') /* refused it would break specs that compile today */
        diag_warning(c->d, c->file, n->line, n->col,
                     "name %s starts with '_': the generated macros (the header guard, NAME_RANKS, ...) are the name "
                     "in capitals, so they begin with '_' and a capital letter, which C reserves; a name starting "
                     "with a letter avoids it", spec_describe(n, q, sizeof q));
    size_t len = strlen(name);
    if (strstr(name, "__") || name[len - 1] == '_') /* "a_" makes a__stage0 */
        diag_warning(c->d, c->file, n->line, n->col,
                     "name %s has '__' or ends in '_': generated symbols would hold '__', which C++ reserves (the "
                     "headers are for C++ too)", spec_describe(n, q, sizeof q));
    /* "x_stage0" writes x_stage0.h and x_stage0_freeze_ratio, as spec x's stage 0 does. */
    const char *st = len > 6 ? strstr(name, "_stage") : NULL;
    while (st && strstr(st + 1, "_stage"))
        st = strstr(st + 1, "_stage");
    if (st && st > name && st[6] >= '0' && st[6] <= '9' && strspn(st + 6, "0123456789") == strlen(st + 6))
        diag_warning(c->d, c->file, n->line, n->col,
                     "name %s ends like a stage's files (NAME_stage<S>): vendored beside spec \"%.*s\", the two "
                     "folders' files and symbols would collide", spec_describe(n, q, sizeof q), (int)(st - name), name);
    for (size_t i = 0; c_keywords[i]; i++)
        if (strcmp(c_keywords[i], name) == 0) {
            SPEC_ERR(c, n, "name %s is a C keyword or standard name; the generated symbols need their own prefix",
                     spec_describe(n, q, sizeof q));
            return;
        }
    c->s->name = name;
}

static void read_targets(spec_reader *c, const ydoc_node *t)
{
    spec_targets *tg = &c->s->targets;
    if (!spec_check_map(c, t, "targets", targets_keys))
        return;
    const ydoc_node *v;
    if ((v = ydoc_get(t, "c")))
        spec_get_bool(c, v, "targets.c", &tg->c);
    const ydoc_node *cu = ydoc_get(t, "cuda");
    if (!cu)
        return;
    if (cu->kind == YDOC_SCALAR) { /* cuda: false is short for cuda: {enabled: false} */
        spec_get_bool(c, cu, "targets.cuda", &tg->cuda);
        return;
    }
    if (!spec_check_map(c, cu, "targets.cuda", cuda_keys))
        return;
    if ((v = ydoc_get(cu, "enabled")))
        spec_get_bool(c, v, "targets.cuda.enabled", &tg->cuda);
    if ((v = ydoc_get(cu, "arch"))) {
        int i = spec_get_enum(c, v, "targets.cuda.arch", cuda_archs);
        if (i >= 0)
            tg->cuda_arch = cuda_archs[i];
    }
}

static void read_data(spec_reader *c, const ydoc_node *dt)
{
    spec_lcp_index *li = &c->s->lcp_index;
    if (!spec_check_map(c, dt, "data", data_keys))
        return;
    const ydoc_node *l = ydoc_get(dt, "lcp_index");
    if (!l || !spec_check_map(c, l, "data.lcp_index", lcp_keys))
        return;
    li->enabled = true;
    const ydoc_node *v;
    char q[TEXT_QUOTE_CAP];
    if ((v = ydoc_get(l, "token_bytes")) && spec_get_u32(c, v, "data.lcp_index.token_bytes", 1, 8, &li->token_bytes) &&
        li->token_bytes != 2 && li->token_bytes != 4) {
        SPEC_ERR(c, v, "data.lcp_index.token_bytes must be 2 or 4, got %s", spec_describe(v, q, sizeof q));
    }
    if (li->token_bytes == 2 && c->s->timing.vocab > 65536) {
        const ydoc_node *at = v ? v : l;
        SPEC_ERR(c, at,
                 "data.lcp_index.token_bytes is 2 (token ids up to 65,535) but timing.transformer.vocab is %llu: "
                 "use token_bytes: 4",
                 (unsigned long long)c->s->timing.vocab);
    }
    if ((v = spec_require(c, l, "data.lcp_index", "seq_len", lcp_keys)))
        spec_get_u32(c, v, "data.lcp_index.seq_len", 1, SPEC_MAX_SEQ_LEN, &li->seq_len);
    if ((v = ydoc_get(l, "topk")))
        spec_get_u32(c, v, "data.lcp_index.topk", 1, SPEC_MAX_TOPK, &li->topk);
}

static void set_defaults(spec *s)
{
    s->stages_per_rank = 1;
    s->timing.scale = 1.0;
    s->freeze = (spec_freeze){.max_ratio = 0.0,
                              .balance = BALANCE_MINMAX,
                              .max_action_ratio = 1.0,
                              .warmup_steps = 1000,
                              .ramp_steps = 3000,
                              .reselect_every = 10,
                              .seed = 0,
                              .select = SPEC_DEFAULT_SELECT};
    s->targets = (spec_targets){.c = true, .cuda = true, .cuda_arch = "sm_90"};
    s->lcp_index = (spec_lcp_index){.enabled = false, .token_bytes = 2, .seq_len = 0, .topk = 8};
}

static void read_root(spec_reader *c, const ydoc_node *root)
{
    char q[TEXT_QUOTE_CAP];
    if (root->kind != YDOC_MAP) {
        SPEC_ERR(c, root, "a tfc spec must be a mapping with keys tfc, name, model, pipeline and timing; got %s",
                 spec_got(root, q, sizeof q));
        return;
    }
    spec_check_map(c, root, "", root_keys);
    /* Missing top-level keys are said in one error; a file that is not a
     * spec at all (no "tfc" key either) gets nothing more. */
    static const char *const required[] = {"tfc", "name", "pipeline", "model", "timing"};
    char missing[64] = "";
    size_t n_missing = 0;
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (!ydoc_get(root, required[i]) && !spec_misspelt_in(root, required[i], root_keys)) {
            strcat(missing, n_missing++ ? ", " : "");
            strcat(missing, required[i]);
        }
    if (n_missing) {
        bool no_tfc = !ydoc_get(root, "tfc");
        SPEC_ERR(c, root, "missing required key%s %s%s", n_missing > 1 ? "s" : "", missing,
                 no_tfc ? " (a tfc spec starts with 'tfc: 1')" : "");
        if (no_tfc && n_missing > 1)
            return;
    }
    const ydoc_node *v;
    if ((v = ydoc_get(root, "tfc"))) {
        bool neg;
        uint64_t version;
        if (v->kind == YDOC_SCALAR && ydoc_scalar_type(v) == YDOC_INT && ydoc_scalar_int(v, &neg, &version) &&
            !neg && version == 1)
            c->s->version = 1;
        else if (v->kind == YDOC_SCALAR && ydoc_scalar_type(v) == YDOC_INT)
            SPEC_ERR(c, v, "unsupported spec version %s; this tfc reads version 1 (tfc: 1)",
                     spec_describe(v, q, sizeof q));
        else
            spec_get_uint(c, v, "tfc", 1, 1, &version); /* not an integer: says so */
    }
    if ((v = ydoc_get(root, "name")))
        read_name(c, v);
    bool stages_known = false;
    if ((v = ydoc_get(root, "pipeline")))
        stages_known = spec_read_pipeline(c, v);
    bool count_ok = true;
    if ((v = ydoc_get(root, "model")))
        count_ok = spec_read_model(c, v, stages_known);
    if ((v = ydoc_get(root, "timing")))
        spec_read_timing(c, v, stages_known, stages_known && count_ok ? c->s->n_stages : 0);
    if ((v = ydoc_get(root, "freeze")))
        spec_read_freeze(c, v);
    if ((v = ydoc_get(root, "training")))
        spec_read_training(c, v);
    spec_check_auto(c);
    spec_check_training_window(c);
    spec_check_freeze_weights(c);
    spec_check_memory_limit(c);
    spec_check_activation_total(c);
    if ((v = ydoc_get(root, "targets")))
        read_targets(c, v);
    if ((v = ydoc_get(root, "data")))
        read_data(c, v);
}

tfc_status spec_load_buffer(const char *file, const char *buf, size_t len, arena *a, diag_list *d,
                             const spec **out)
{
    *out = NULL;
    size_t before = diag_count(d);
    size_t bad;
    const char *why;
    if (len >= 2 && ((unsigned char)buf[0] == 0xFF || (unsigned char)buf[0] == 0xFE) &&
        ((unsigned char)buf[1] == 0xFE || (unsigned char)buf[1] == 0xFF)) {
        diag_error(d, file, 1, 1, "spec is UTF-16 (byte order mark); tfc reads UTF-8 specs");
        return TFC_INVALID;
    }
    /* A UTF-8 byte order mark is allowed (YAML's own rule) and is no
     * character of line 1: positions count from after it (the hash is
     * still the file's). */
    const char *file_buf = buf;
    size_t file_len = len;
    if (len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB && (unsigned char)buf[2] == 0xBF) {
        buf += 3;
        len -= 3;
    }
    if (!text_check_yaml_chars(buf, len, &bad, &why)) {
        unsigned line, col;
        text_position(buf, len, bad, &line, &col);
        diag_error(d, file, line, col, "%s (byte 0x%02X at offset %zu); a spec must be UTF-8 text", why,
                   (unsigned char)buf[bad], bad);
        return TFC_INVALID;
    }
    const ydoc_node *root;
    if (!ydoc_parse(file, buf, len, &yaml_limits, a, d, &root))
        return diag_status(d, TFC_INVALID);
    if (!root) {
        diag_error(d, file, 1, 1, "spec is empty: expected a mapping starting with 'tfc: 1'");
        return TFC_INVALID;
    }
    spec *s = arena_alloc(a, sizeof *s);
    if (!s)
        return diag_nomem(d, "reading the spec");
    set_defaults(s);
    s->path = file;
    sha256_hex(file_buf, file_len, s->sha256);
    spec_reader c = {.file = file, .a = a, .d = d, .s = s};
    read_root(&c, root);
    if (diag_count(d) > before)
        return diag_status(d, TFC_INVALID);
    if (!spec_inputs_list(s, a))
        return diag_nomem(d, "reading the spec");
    *out = s;
    return TFC_OK;
}

tfc_status spec_load_file(const char *path, arena *a, diag_list *d, const spec **out)
{
    char *buf;
    size_t len;
    *out = NULL;
    tfc_status st = fio_read_all(path, SPEC_MAX_FILE_BYTES, &buf, &len, d);
    if (st != TFC_OK)
        return st;
    /* Names in the spec point into the arena, not into buf. */
    tfc_status r = spec_load_buffer(strcmp(path, "-") == 0 ? "<stdin>" : path, buf, len, a, d, out);
    free(buf);
    return r;
}
