/* spec: the v1 schema. Walks a ydoc tree, fills a typed struct, and reports
 * every independent problem with its position. Checks that depend on a value
 * that was itself wrong (array lengths when the stage count is unknown) are
 * skipped rather than reported twice. docs/spec.md is the prose twin of this
 * file: change both together. */
#include "spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "real.h"
#include "cost_model.h"
#include "sha256.h"
#include "text.h"
#include "ydoc.h"

enum { PATH_CAP = 96 };

typedef struct ctx {
    const char *file;
    arena *a;
    diag_list *d;
    spec *s;
    bool oom;
} ctx;

static const ydoc_limits yaml_limits = {
    .max_depth = SPEC_MAX_YAML_DEPTH,
    .max_nodes = SPEC_MAX_YAML_NODES,
    .max_scalar_bytes = SPEC_MAX_SCALAR_BYTES,
};

static const char *const schedule_names[] = {
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
static const char *const pipeline_keys[] = {"schedule",          "ranks", "stages_per_rank", "microbatches", "order",
                                            "memory_limit_bytes", "processors", NULL};
static const char *const param_keys[] = {"name", "numel", "freeze_weight", NULL};
static const char *const stage_keys[] = {"name", "params", "activation_bytes", NULL};
static const char *const model_keys[] = {"stages", NULL};
static const char *const timing_keys[] = {"source",             "forward_ms",         "backward_ms",
                                          "backward_frozen_ms", "backward_input_ms",  "backward_weight_ms",
                                          "backward_weight_frozen_ms", "comm_ms",     "transformer",
                                          "device",             "file",               "frozen_file",
                                          "scale",              NULL};
static const char *const transformer_keys[] = {"layers", "hidden", "ffn", "heads", "kv_heads", "vocab", "seq_len",
                                               "microbatch_size", "stage_layers", NULL};
#define TRANSFORMER_REQUIRED 8 /* the keys before stage_layers */
static const char *const device_keys[] = {"peak_tflops", "mfu", NULL};
static const char *const freeze_keys[] = {"max_ratio", "balance", "max_action_ratio", "warmup_steps", "ramp_steps",
                                          "reselect_every", "seed", "select", NULL};
static const char *const select_names[] = {[SELECT_UNIFORM] = "uniform", [SELECT_FRONT_FIRST] = "front_first",
                                           [SELECT_BALANCED] = "balanced", [SELECT_WEIGHTS] = "weights", NULL};

const char *spec_select_name(spec_select s)
{
    return (unsigned)s < sizeof select_names / sizeof *select_names - 1 ? select_names[s] : "?";
}
static const char *const training_keys[] = {"batch_tokens", "noise_scale_tokens", "steps",
                                             "lr_ratio",     "optimizer",          "pilot",
                                             "freeze_noise_scale_tokens",          NULL};
/* SPEC_OPTIMIZER_* order; AdamW scales its step as Adam does */
static const char *const optimizer_names[] = {"adam", "sgd", "adamw", NULL};
static const char *const pilot_keys[] = {"max_ratio", "speedup", NULL};
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
    {"model", model_keys},
    {"model.stages[i]", stage_keys},
    {"model.stages[i].params[j]", param_keys},
    {"pipeline", pipeline_keys},
    {"timing", timing_keys},
    {"timing.transformer", transformer_keys},
    {"timing.device", device_keys},
    {"freeze", freeze_keys},
    {"training", training_keys},
    {"training.pilot", pilot_keys},
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

const char *spec_schedule_name(spec_schedule s) { return schedule_names[s]; }

bool spec_schedule_is_split(spec_schedule s) { return s == SCHED_ZBH1 || s == SCHED_ZBV || s == SCHED_DUALPIPEV; }

/* ---- reporting ---- */

#define ERR(c, node, ...) diag_error((c)->d, (c)->file, (node)->line, (node)->col, __VA_ARGS__)

static void out_of_memory(ctx *c, const ydoc_node *at)
{
    (void)at; /* memory is the machine's limit, not the spec's fault: no position */
    if (!c->oom)
        diag_nomem(c->d, "while reading the spec");
    c->oom = true;
}

/* "\"text\"" for a scalar, "a sequence" / "a mapping" otherwise. */
static const char *describe(const ydoc_node *n, char *buf, size_t cap)
{
    if (n->kind == YDOC_SEQ)
        return "a sequence";
    if (n->kind == YDOC_MAP)
        return "a mapping";
    if (n->n == 0)
        return n->plain ? "an empty value" : "an empty string";
    return text_quote(buf, cap, n->u.str, n->n);
}

/* What a node is, for "got ..." in type errors: "a sequence", "a mapping",
 * "an empty value", or the type and text of a scalar: string "four". */
static const char *got(const ydoc_node *n, char *buf, size_t cap)
{
    if (n->kind != YDOC_SCALAR || n->n == 0)
        return describe(n, buf, cap);
    if (ydoc_scalar_type(n) == YDOC_NULL)
        return "null";
    const char *type = ydoc_type_name(ydoc_scalar_type(n));
    size_t tl = strlen(type);
    memcpy(buf, type, tl);
    buf[tl] = ' ';
    text_quote(buf + tl + 1, cap - tl - 1, n->u.str, n->n);
    return buf;
}

/* Key paths ("model.stages[3].params[0].numel") for messages. Every path
 * tfc builds fits PATH_CAP; a cut one would still be marked. */
static void path_mark_cut(char *out, int written)
{
    if (written < 0 || written >= PATH_CAP)
        memcpy(out + PATH_CAP - 4, "...", 4);
}

static void path_key(char *out, const char *parent, const char *key)
{
    int r = (parent && *parent) ? snprintf(out, PATH_CAP, "%s.%s", parent, key) : snprintf(out, PATH_CAP, "%s", key);
    path_mark_cut(out, r);
}

static void path_index(char *out, const char *parent, size_t i)
{
    path_mark_cut(out, snprintf(out, PATH_CAP, "%s[%zu]", parent, i));
}

/* ---- mappings ---- */

static bool is_known(const ydoc_node *k, const char *const *known)
{
    for (size_t j = 0; known[j]; j++)
        if (strlen(known[j]) == k->n && memcmp(known[j], k->u.str, k->n) == 0)
            return true;
    return false;
}

/* Checks that node is a mapping whose keys are all in known; reports the
 * others with the nearest known key as a hint. */
static bool check_map(ctx *c, const ydoc_node *node, const char *path, const char *const *known)
{
    char q[TEXT_QUOTE_CAP];
    if (node->kind != YDOC_MAP) {
        ERR(c, node, "%s must be a mapping, got %s", path, got(node, q, sizeof q));
        return false;
    }
    for (uint32_t i = 0; i < node->n && !diag_full(c->d); i++) {
        const ydoc_node *k = ydoc_key(node, i);
        if (is_known(k, known))
            continue;
        const char *near = text_nearest(k->u.str, k->n, known);
        char where[PATH_CAP + 8];
        snprintf(where, sizeof where, "%s%s", *path ? " in " : "", path);
        if (k->n == 2 && memcmp(k->u.str, "<<", 2) == 0)
            ERR(c, k, "merge keys (<<) are not supported%s; write the keys out", where);
        else if (near)
            ERR(c, k, "unknown key %s%s; did you mean '%s'?", text_quote(q, sizeof q, k->u.str, k->n),
                where, near);
        else
            ERR(c, k, "unknown key %s%s", text_quote(q, sizeof q, k->u.str, k->n), where);
    }
    return true;
}

/* True when some unknown key of map is a likely misspelling of key: the
 * unknown-key error already says "did you mean", so "missing" would only
 * repeat it. Keys the schema knows never count ("numel" is not a typo of
 * "name"). */
static bool misspelt_in(const ydoc_node *map, const char *key, const char *const *known)
{
    const char *const one[] = {key, NULL};
    for (uint32_t i = 0; i < map->n; i++) {
        const ydoc_node *k = ydoc_key(map, i);
        if (!is_known(k, known) && text_nearest(k->u.str, k->n, one))
            return true;
    }
    return false;
}

static const ydoc_node *require(ctx *c, const ydoc_node *map, const char *path, const char *key,
                                const char *const *known)
{
    const ydoc_node *v = ydoc_get(map, key);
    if (!v && !misspelt_in(map, key, known)) {
        char full[PATH_CAP];
        path_key(full, path, key);
        ERR(c, map, "missing required key %s", full);
    }
    return v;
}

/* ---- typed scalars ---- */

/* Whether a number's text has at most 15 significant digits, so that the
 * double read from it is the text's own value when that is an integer up
 * to 2^53 (1e6, 2.5e5, 4.0: never 1.0000000000000001e6). */
static bool few_digits(const char *s, size_t n)
{
    size_t sig = 0, zeros = 0;
    bool leading = true;
    for (size_t i = 0; i < n && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] < '0' || s[i] > '9' || (leading && s[i] == '0'))
            continue;
        leading = false;
        if (s[i] == '0') {
            zeros++;
        } else {
            sig += zeros + 1;
            zeros = 0;
        }
    }
    return sig <= 15;
}

static bool get_uint(ctx *c, const ydoc_node *n, const char *path, uint64_t min, uint64_t max, uint64_t *out)
{
    char q[TEXT_QUOTE_CAP];
    bool neg = false;
    uint64_t v = 0;
    if (n->kind != YDOC_SCALAR || ydoc_scalar_type(n) != YDOC_INT) {
        const char *hint = n->kind != YDOC_SCALAR || n->plain || ydoc_scalar_type(n) != YDOC_STR ? ""
                           : n->tagged ? " (a tagged value is a string)"
                                       : " (quoted values are strings)";
        char write[40] = "";
        double d;
        /* a number that is a whole one in range (1e6, 4.0): say how to write it */
        if (n->kind == YDOC_SCALAR && ydoc_scalar_type(n) == YDOC_FLOAT && ydoc_scalar_float(n, &d) &&
            isfinite(d) && d == floor(d) && d >= (double)min && d <= (double)max && d <= 9007199254740992.0 &&
            few_digits(n->u.str, n->n)) {
            snprintf(write, sizeof write, "; write %llu", (unsigned long long)fabs(d));
            hint = write;
        }
        ERR(c, n, "%s must be an integer, got %s%s", path, got(n, q, sizeof q), hint);
        return false;
    }
    bool fits = ydoc_scalar_int(n, &neg, &v);
    if (!fits || neg || v < min || v > max) {
        if (fits && neg && v == 0 && min == 0) { /* "-0" */
            *out = 0;
            return true;
        }
        ERR(c, n, "%s must be an integer from %llu to %llu, got %s", path, (unsigned long long)min,
            (unsigned long long)max, describe(n, q, sizeof q));
        return false;
    }
    *out = v;
    return true;
}

static bool get_u32(ctx *c, const ydoc_node *n, const char *path, uint32_t min, uint32_t max, uint32_t *out)
{
    uint64_t v;
    if (!get_uint(c, n, path, min, max, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

/* A finite number in [min, max]; min_open excludes min itself. */
static bool get_number_range(ctx *c, const ydoc_node *n, const char *path, double min, bool min_open, double max,
                             bool max_open, double *out)
{
    char q[TEXT_QUOTE_CAP];
    ydoc_type t = n->kind == YDOC_SCALAR ? ydoc_scalar_type(n) : YDOC_STR;
    if (n->kind != YDOC_SCALAR || (t != YDOC_INT && t != YDOC_FLOAT)) {
        ERR(c, n, "%s must be a number, got %s", path, got(n, q, sizeof q));
        return false;
    }
    double v;
    bool ok;
    if (t == YDOC_INT) {
        bool neg;
        uint64_t mag;
        ok = ydoc_scalar_int(n, &neg, &mag);
        v = neg ? -(double)mag : (double)mag;
        if (!ok) /* past 64 bits (99999999999999999999), yet a double holds it */
            ok = ydoc_scalar_float(n, &v);
    } else {
        ok = ydoc_scalar_float(n, &v);
    }
    if (!ok && n->n > 100) {
        ERR(c, n, "%s is written with %u characters; write it with at most 100", path, n->n);
        return false;
    }
    if (!ok) {
        ERR(c, n, "%s is out of the range of a double (0, or a magnitude from 2.2250738585072014e-308 to "
                  "1.7976931348623157e308), got %s",
            path, describe(n, q, sizeof q));
        return false;
    }
    if (!isfinite(v)) {
        ERR(c, n, "%s must be a finite number, got %s", path, describe(n, q, sizeof q));
        return false;
    }
    if (v < min || (min_open && v == min) || v > max || (max_open && v == max)) {
        ERR(c, n, "%s must be a number %s %s and %s %s, got %s", path, min_open ? "above" : "of at least",
            real_shortest(min).s, max_open ? "below" : "at most", real_shortest(max).s, describe(n, q, sizeof q));
        return false;
    }
    *out = v;
    return true;
}

static bool get_number(ctx *c, const ydoc_node *n, const char *path, double min, bool min_open, double max,
                       double *out)
{
    return get_number_range(c, n, path, min, min_open, max, false, out);
}

static bool get_bool(ctx *c, const ydoc_node *n, const char *path, bool *out)
{
    char q[TEXT_QUOTE_CAP];
    if (n->kind != YDOC_SCALAR || ydoc_scalar_type(n) != YDOC_BOOL) {
        /* YAML 1.1's booleans, strings in 1.2 (docs/spec.md, "Values") */
        static const char *const words[] = {"yes", "Yes", "YES", "on", "On", "ON",
                                            "no",  "No",  "NO",  "off", "Off", "OFF", NULL};
        const char *hint = "";
        char buf[64];
        bool str = n->kind == YDOC_SCALAR && ydoc_scalar_type(n) == YDOC_STR;
        ydoc_node unquoted = str ? *n : (ydoc_node){0};
        unquoted.plain = true;
        unquoted.tagged = false;
        for (size_t i = 0; str && n->plain && words[i]; i++)
            if (n->n == strlen(words[i]) && memcmp(n->u.str, words[i], n->n) == 0) {
                snprintf(buf, sizeof buf, "; write %s (%s is a string in YAML 1.2)", i < 6 ? "true" : "false",
                         words[i]);
                hint = buf;
            }
        if (str && !n->plain && ydoc_scalar_type(&unquoted) == YDOC_BOOL)
            hint = n->tagged ? " (a tagged value is a string)" : " (quoted values are strings)";
        ERR(c, n, "%s must be true or false, got %s%s", path, got(n, q, sizeof q), hint);
        return false;
    }
    *out = ydoc_scalar_bool(n);
    return true;
}

/* A string of 1..max_bytes bytes without control characters. */
static const char *get_string(ctx *c, const ydoc_node *n, const char *path, size_t max_bytes)
{
    char q[TEXT_QUOTE_CAP];
    if (n->kind != YDOC_SCALAR || ydoc_scalar_type(n) != YDOC_STR) {
        const char *hint = n->kind == YDOC_SCALAR && ydoc_scalar_type(n) != YDOC_NULL ? "; quote it" : "";
        ERR(c, n, "%s must be a string, got %s%s", path, got(n, q, sizeof q), hint);
        return NULL;
    }
    if (n->n == 0) {
        ERR(c, n, "%s must not be empty", path);
        return NULL;
    }
    if (n->n > max_bytes) {
        ERR(c, n, "%s is %u bytes long, more than the limit of %zu: %s", path, n->n, max_bytes,
            describe(n, q, sizeof q));
        return NULL;
    }
    if (text_has_control(n->u.str, n->n)) {
        ERR(c, n, "%s must not contain control characters, got %s", path, describe(n, q, sizeof q));
        return NULL;
    }
    return n->u.str;
}

/* Parameter and stage names end up in C string literals, comments, JSON
 * and CSV. Keeping them to the characters real parameter names use (PyTorch:
 * "layers.0.attention.wq.weight") means no emitter ever has to escape them
 * and no name can close a string or comment: no quotes, backslashes, '*',
 * '?', spaces or non-ASCII. */
static bool is_name_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
           ch == '.' || ch == '-' || ch == ':' || ch == '/' || ch == '[' || ch == ']' || ch == '@' || ch == '+';
}

static const char *get_tensor_name(ctx *c, const ydoc_node *n, const char *path)
{
    const char *name = get_string(c, n, path, SPEC_MAX_PARAM_NAME_BYTES);
    if (!name)
        return NULL;
    for (uint32_t i = 0; i < n->n; i++) {
        unsigned char ch = (unsigned char)name[i];
        if (!is_name_char(ch)) {
            char q[TEXT_QUOTE_CAP];
            char what[24];
            if (ch < 0x80)
                snprintf(what, sizeof what, "'%c'", (char)ch);
            else
                snprintf(what, sizeof what, "non-ASCII byte 0x%02X", ch);
            ERR(c, n, "%s may hold only letters, digits and _ . - : / [ ] @ +; %s has %s at byte %u", path,
                describe(n, q, sizeof q), what, i);
            return NULL;
        }
    }
    return name;
}

/* One of names (NULL-terminated); returns the index or -1. */
static int get_enum(ctx *c, const ydoc_node *n, const char *path, const char *const *names)
{
    char q[TEXT_QUOTE_CAP];
    if (n->kind == YDOC_SCALAR && ydoc_scalar_type(n) != YDOC_NULL) {
        for (int i = 0; names[i]; i++)
            if (strlen(names[i]) == n->n && memcmp(names[i], n->u.str, n->n) == 0)
                return i;
    }
    char list[256] = "";
    size_t o = 0;
    for (int i = 0; names[i] && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", names[i]);
    const char *near = n->kind == YDOC_SCALAR ? text_nearest(n->u.str, n->n, names) : NULL;
    if (near)
        ERR(c, n, "%s must be one of %s, got %s; did you mean '%s'?", path, list, describe(n, q, sizeof q),
            near);
    else
        ERR(c, n, "%s must be one of %s, got %s", path, list, describe(n, q, sizeof q));
    return -1;
}

/* Optional key: absent leaves *present false and returns NULL. */
static const ydoc_node *opt(const ydoc_node *map, const char *key) { return map ? ydoc_get(map, key) : NULL; }

/* ---- duplicate names in a list ---- */

typedef struct named_ctx {
    ctx *c;
    const char *what;
    const spec_pos *const *pos; /* by text_ref.index */
} named_ctx;

static bool report_named(const text_ref *first, const text_ref *dup, void *p)
{
    named_ctx *nc = p;
    char q[TEXT_QUOTE_CAP];
    const spec_pos *a = nc->pos[first->index], *b = nc->pos[dup->index];
    if (a->line == b->line && a->col == b->col) { /* one node, reached twice through a YAML alias */
        diag_error(nc->c->d, nc->c->file, b->line, b->col,
                   "duplicate %s %s: this entry is used twice, through an alias (*name) of its anchor", nc->what,
                   text_quote(q, sizeof q, dup->s, dup->len));
        return !diag_full(nc->c->d);
    }
    diag_error(nc->c->d, nc->c->file, b->line, b->col, "duplicate %s %s", nc->what,
               text_quote(q, sizeof q, dup->s, dup->len));
    diag_note(nc->c->d, a->line, a->col, "first used here");
    return !diag_full(nc->c->d);
}

/* A list of names being checked for repeats; entries for names that failed
 * their own checks are simply not added. */
typedef struct name_list {
    text_ref *refs;
    const spec_pos **pos;
    size_t n;
} name_list;

static bool name_list_init(name_list *l, size_t cap)
{
    l->n = 0;
    l->refs = malloc((cap ? cap : 1) * sizeof *l->refs);
    l->pos = malloc((cap ? cap : 1) * sizeof *l->pos);
    return l->refs && l->pos;
}

static void name_list_add(name_list *l, const char *name, const spec_pos *pos)
{
    l->refs[l->n] = (text_ref){name, strlen(name), l->n};
    l->pos[l->n] = pos;
    l->n++;
}

/* Reports each name that repeats an earlier one, then frees the list. */
static void name_list_check(ctx *c, name_list *l, const char *what)
{
    named_ctx nc = {c, what, l->pos};
    if (l->refs && l->pos)
        text_report_duplicates(l->refs, l->n, report_named, &nc);
    free(l->refs);
    free(l->pos);
}

/* ---- sections ---- */

static void read_name(ctx *c, const ydoc_node *n)
{
    char q[TEXT_QUOTE_CAP];
    const char *name = get_string(c, n, "name", SPEC_MAX_NAME_BYTES);
    if (!name)
        return;
    if (!text_is_c_identifier(name, n->n)) {
        ERR(c, n, "name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*), got %s", describe(n, q, sizeof q));
        return;
    }
    if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) {
        ERR(c, n, "name %s is reserved in C (leading '__' or '_' and a capital)", describe(n, q, sizeof q));
        return;
    }
    if (name[0] == '_') /* refused it would break specs that compile today */
        diag_warning(c->d, c->file, n->line, n->col,
                     "name %s starts with '_': the generated macros (the header guard, NAME_RANKS, ...) are the name "
                     "in capitals, so they begin with '_' and a capital letter, which C reserves; a name starting "
                     "with a letter avoids it", describe(n, q, sizeof q));
    size_t len = strlen(name);
    if (strstr(name, "__") || name[len - 1] == '_') /* "a_" makes a__stage0 */
        diag_warning(c->d, c->file, n->line, n->col,
                     "name %s has '__' or ends in '_': generated symbols would hold '__', which C++ reserves (the "
                     "headers are for C++ too)", describe(n, q, sizeof q));
    /* "x_stage0" writes x_stage0.h and x_stage0_freeze_ratio, as spec x's stage 0 does. */
    const char *st = len > 6 ? strstr(name, "_stage") : NULL;
    while (st && strstr(st + 1, "_stage"))
        st = strstr(st + 1, "_stage");
    if (st && st > name && st[6] >= '0' && st[6] <= '9' && strspn(st + 6, "0123456789") == strlen(st + 6))
        diag_warning(c->d, c->file, n->line, n->col,
                     "name %s ends like a stage's files (NAME_stage<S>): vendored beside spec \"%.*s\", the two "
                     "folders' files and symbols would collide", describe(n, q, sizeof q), (int)(st - name), name);
    for (size_t i = 0; c_keywords[i]; i++)
        if (strcmp(c_keywords[i], name) == 0) {
            ERR(c, n, "name %s is a C keyword or standard name; the generated symbols need their own prefix",
                describe(n, q, sizeof q));
            return;
        }
    c->s->name = name;
}

/* Returns true when schedule, ranks and stages_per_rank are all valid, so
 * the stage count can be relied on. */
static bool read_pipeline(ctx *c, const ydoc_node *p)
{
    spec *s = c->s;
    if (!check_map(c, p, "pipeline", pipeline_keys))
        return false;
    bool ok = true;
    const ydoc_node *n;
    int sched = -1;
    if ((n = require(c, p, "pipeline", "schedule", pipeline_keys))) {
        s->pos_schedule = (spec_pos){n->line, n->col};
        sched = get_enum(c, n, "pipeline.schedule", schedule_names);
        if (sched >= 0)
            s->schedule = (spec_schedule)sched;
    }
    ok &= sched >= 0;
    if ((n = require(c, p, "pipeline", "ranks", pipeline_keys)))
        ok &= get_u32(c, n, "pipeline.ranks", 1, SPEC_MAX_RANKS, &s->ranks);
    else
        ok = false;
    s->stages_per_rank = 1;
    const ydoc_node *spr = ydoc_get(p, "stages_per_rank");
    if (spr)
        ok &= get_u32(c, spr, "pipeline.stages_per_rank", 1, SPEC_MAX_STAGES, &s->stages_per_rank);
    const ydoc_node *mb = require(c, p, "pipeline", "microbatches", pipeline_keys);
    bool mb_ok = false;
    if (mb) {
        s->pos_microbatches = (spec_pos){mb->line, mb->col};
        mb_ok = get_u32(c, mb, "pipeline.microbatches", 1, SPEC_MAX_MICROBATCHES, &s->microbatches);
    }

    const ydoc_node *lim = ydoc_get(p, "memory_limit_bytes");
    if (lim) {
        s->pos_memory_limit = (spec_pos){lim->line, lim->col};
        s->has_memory_limit =
            get_uint(c, lim, "pipeline.memory_limit_bytes", 1, SPEC_MAX_MEMORY_LIMIT, &s->memory_limit_bytes);
    }
    const ydoc_node *procs = ydoc_get(p, "processors");
    if (procs) {
        s->pos_processors = (spec_pos){procs->line, procs->col};
        if (!get_u32(c, procs, "pipeline.processors", 1, SPEC_MAX_RANKS, &s->processors))
            s->processors = 0;
    }

    const ydoc_node *order = ydoc_get(p, "order");
    if (sched == SCHED_CUSTOM) {
        if ((n = require(c, p, "pipeline", "order", pipeline_keys))) {
            s->pos_order = (spec_pos){n->line, n->col};
            s->order = get_string(c, n, "pipeline.order", SPEC_MAX_PATH_BYTES);
        }
    } else if (order && sched >= 0) {
        ERR(c, order, "pipeline.order is only read with schedule: custom (schedule is %s)",
            schedule_names[sched]);
    }
    if (!ok)
        return false;

    const ydoc_node *at = spr ? spr : ydoc_get(p, "ranks");
    uint64_t stages = (uint64_t)s->ranks * s->stages_per_rank;
    if (stages > SPEC_MAX_STAGES) {
        ERR(c, at, "pipeline.ranks x pipeline.stages_per_rank = %llu stages, more than the limit of %u",
            (unsigned long long)stages, SPEC_MAX_STAGES);
        return false;
    }
    /* Shape rules that follow from what each schedule is; the schedule
     * module checks the rest (microbatch counts, orders). */
    const char *rule = NULL;
    switch (s->schedule) {
    case SCHED_GPIPE:
    case SCHED_1F1B:
        if (s->stages_per_rank != 1)
            rule = "runs one stage per rank: stages_per_rank must be 1";
        break;
    case SCHED_INTERLEAVED_1F1B:
        if (s->stages_per_rank < 2)
            rule = "interleaves several stages per rank: stages_per_rank must be at least 2";
        break;
    case SCHED_ZBV:
    case SCHED_DUALPIPEV:
        if (s->stages_per_rank != 2)
            rule = "places two stages per rank in a V: stages_per_rank must be 2";
        break;
    default:
        break;
    }
    if (rule) {
        ERR(c, at, "schedule %s %s, got %u", schedule_names[s->schedule], rule, s->stages_per_rank);
        return false;
    }
    if (mb_ok && stages * s->microbatches > SPEC_MAX_STAGE_MICROBATCHES) {
        ERR(c, mb, "%llu stages x %u microbatches = %llu (stage, microbatch) pairs, more than the limit of %u",
            (unsigned long long)stages, s->microbatches, (unsigned long long)(stages * s->microbatches),
            SPEC_MAX_STAGE_MICROBATCHES);
        return false;
    }
    s->n_stages = (size_t)stages;
    return true;
}

static void read_param(ctx *c, const ydoc_node *n, const char *path, spec_param *out)
{
    char sub[PATH_CAP];
    out->pos = (spec_pos){n->line, n->col};
    if (!check_map(c, n, path, param_keys))
        return;
    const ydoc_node *v;
    path_key(sub, path, "name");
    if ((v = require(c, n, path, "name", param_keys))) {
        out->name = get_tensor_name(c, v, sub);
        out->pos = (spec_pos){v->line, v->col};
    }
    path_key(sub, path, "numel");
    if ((v = require(c, n, path, "numel", param_keys)))
        get_uint(c, v, sub, 1, SPEC_MAX_NUMEL, &out->numel);
    out->freeze_weight = 1.0;
    path_key(sub, path, "freeze_weight");
    if ((v = ydoc_get(n, "freeze_weight"))) {
        out->has_freeze_weight = true;
        out->pos_freeze_weight = (spec_pos){v->line, v->col};
        if (get_number(c, v, sub, 0.0, false, SPEC_MAX_FREEZE_WEIGHT, &out->freeze_weight) &&
            out->freeze_weight > 0 && out->freeze_weight < 1.0 / 65536)
            ERR(c, v, "%s must be 0 or at least 1/65536 (the weights' fixed-point unit), got %s", sub,
                real_shortest(out->freeze_weight).s);
    }
}

static void read_stage(ctx *c, const ydoc_node *n, size_t index, spec_stage *st)
{
    char path[PATH_CAP], sub[PATH_CAP];
    path_index(path, "model.stages", index);
    st->pos = (spec_pos){n->line, n->col};
    if (!check_map(c, n, path, stage_keys))
        return;
    const ydoc_node *v = ydoc_get(n, "name");
    path_key(sub, path, "name");
    if (v) {
        st->name = get_tensor_name(c, v, sub);
        st->pos = (spec_pos){v->line, v->col};
    } else {
        char def[32];
        snprintf(def, sizeof def, "stage%zu", index);
        st->name = arena_strndup(c->a, def, strlen(def));
        if (!st->name)
            out_of_memory(c, n);
    }
    if ((v = ydoc_get(n, "activation_bytes"))) {
        path_key(sub, path, "activation_bytes");
        get_uint(c, v, sub, 0, SPEC_MAX_ACTIVATION_BYTES, &st->activation_bytes);
        st->has_activation_bytes = true;
    }
    path_key(sub, path, "params");
    const ydoc_node *params = require(c, n, path, "params", stage_keys);
    if (!params)
        return;
    if (params->kind != YDOC_SEQ || params->n == 0) {
        char q[TEXT_QUOTE_CAP];
        if (params->kind == YDOC_SEQ)
            ERR(c, params, "%s must list at least one parameter tensor", sub);
        else
            ERR(c, params, "%s must be a sequence of {name, numel}, got %s", sub, got(params, q, sizeof q));
        return;
    }
    /* The total was checked against SPEC_MAX_PARAMS before any stage was read. */
    st->params = arena_alloc_array(c->a, params->n, sizeof *st->params);
    name_list names;
    if (!name_list_init(&names, params->n) || !st->params) {
        name_list_check(c, &names, "");
        out_of_memory(c, params);
        return;
    }
    st->n_params = params->n;
    for (uint32_t i = 0; i < params->n && !diag_full(c->d); i++) {
        char ppath[PATH_CAP];
        path_index(ppath, sub, i);
        spec_param *p = &st->params[i];
        read_param(c, params->u.items[i], ppath, p);
        /* each <= 2^48: the sum is checked before it could overflow */
        if (st->numel + p->numel > SPEC_MAX_STAGE_NUMEL && st->numel <= SPEC_MAX_STAGE_NUMEL)
            ERR(c, params->u.items[i], "%s: the stage's tensors add up to more than 2^60 elements", ppath);
        if (st->numel <= SPEC_MAX_STAGE_NUMEL)
            st->numel += p->numel;
        if (p->name)
            name_list_add(&names, p->name, &p->pos);
    }
    name_list_check(c, &names, "parameter name in this stage");
}

/* Returns false when model.stages disagrees with the pipeline's stage
 * count: the stages are still read and checked, but which count is meant
 * is unknown, so what depends on it (table lengths) is not checked. */
static bool read_model(ctx *c, const ydoc_node *m, bool stages_known)
{
    spec *s = c->s;
    if (!check_map(c, m, "model", model_keys))
        return true;
    const ydoc_node *stages = require(c, m, "model", "stages", model_keys);
    if (!stages)
        return true;
    char q[TEXT_QUOTE_CAP];
    if (stages->kind != YDOC_SEQ) {
        ERR(c, stages, "model.stages must be a sequence of stages, got %s", got(stages, q, sizeof q));
        return true;
    }
    if (stages->n == 0 || stages->n > SPEC_MAX_STAGES) {
        ERR(c, stages, "model.stages must list 1 to %u stages, got %u", SPEC_MAX_STAGES, stages->n);
        return true;
    }
    bool count_ok = !stages_known || stages->n == s->n_stages;
    if (!count_ok)
        ERR(c, stages,
            "model.stages lists %u stage%s, but pipeline.ranks x pipeline.stages_per_rank = %u x %u = %zu",
            stages->n, stages->n == 1 ? "" : "s", s->ranks, s->stages_per_rank, s->n_stages);
    uint64_t total = 0;
    for (uint32_t i = 0; i < stages->n; i++) {
        const ydoc_node *st = stages->u.items[i];
        const ydoc_node *params = st->kind == YDOC_MAP ? ydoc_get(st, "params") : NULL;
        if (params && params->kind == YDOC_SEQ)
            total += params->n;
    }
    if (total > SPEC_MAX_PARAMS) {
        ERR(c, stages, "model.stages holds %llu parameter tensors, more than the limit of %u",
            (unsigned long long)total, SPEC_MAX_PARAMS);
        return count_ok;
    }
    s->stages = arena_alloc_array(c->a, stages->n, sizeof *s->stages);
    name_list names;
    if (!name_list_init(&names, stages->n) || !s->stages) {
        name_list_check(c, &names, "");
        out_of_memory(c, stages);
        return count_ok;
    }
    for (uint32_t i = 0; i < stages->n && !diag_full(c->d); i++) {
        spec_stage *st = &s->stages[i];
        read_stage(c, stages->u.items[i], i, st);
        s->n_params += st->n_params;
        if (s->numel + st->numel > SPEC_MAX_TOTAL_NUMEL && s->numel <= SPEC_MAX_TOTAL_NUMEL)
            ERR(c, stages->u.items[i], "model.stages[%u]: the model's tensors add up to more than 2^62 elements", i);
        if (s->numel <= SPEC_MAX_TOTAL_NUMEL)
            s->numel += st->numel;
        if (st->name)
            name_list_add(&names, st->name, &st->pos);
    }
    name_list_check(c, &names, "stage name");
    if (!stages_known || !count_ok)
        s->n_stages = 0; /* unknown shape: the spec is invalid anyway */
    return count_ok;
}

/* A per-stage table: a sequence of n numbers, or one number for every stage. */
static double *read_table(ctx *c, const ydoc_node *n, const char *path, size_t stages, double min, bool min_open)
{
    char q[TEXT_QUOTE_CAP];
    double *out = NULL;
    if (stages)
        out = arena_alloc_array(c->a, stages, sizeof *out);
    if (stages && !out) {
        out_of_memory(c, n);
        return NULL;
    }
    if (n->kind == YDOC_SCALAR) {
        double v;
        if (!get_number(c, n, path, min, min_open, SPEC_MAX_MS, &v) || !stages)
            return NULL;
        for (size_t i = 0; i < stages; i++)
            out[i] = v;
        return out;
    }
    if (n->kind != YDOC_SEQ) {
        ERR(c, n, "%s must be a sequence of numbers (one per stage) or one number, got %s", path,
            got(n, q, sizeof q));
        return NULL;
    }
    if (stages && n->n != stages) {
        ERR(c, n, "%s has %u entr%s, but the pipeline has %zu stages", path, n->n, n->n == 1 ? "y" : "ies", stages);
        return NULL;
    }
    bool ok = true;
    for (uint32_t i = 0; i < n->n && !diag_full(c->d); i++) {
        char sub[PATH_CAP];
        path_index(sub, path, i);
        double v = 0;
        const ydoc_node *item = n->u.items[i];
        if (item->kind != YDOC_SCALAR) {
            ERR(c, item, "%s must be a number, got %s", sub, got(item, q, sizeof q));
            ok = false;
            continue;
        }
        if (!get_number(c, item, sub, min, min_open, SPEC_MAX_MS, &v))
            ok = false;
        else if (out)
            out[i] = v;
    }
    return ok ? out : NULL;
}

/* timing.transformer.stage_layers: n layer counts, each >= 1, summing to
 * timing.transformer.layers (how an importer split the model). */
static const uint64_t *read_stage_layers(ctx *c, const ydoc_node *v, size_t n, uint64_t layers)
{
    const char *path = "timing.transformer.stage_layers";
    char q[TEXT_QUOTE_CAP];
    if (v->kind != YDOC_SEQ) {
        ERR(c, v, "%s must be a sequence of integers (layers per stage), got %s", path, got(v, q, sizeof q));
        return NULL;
    }
    if (v->n != n) {
        ERR(c, v, "%s has %u entr%s, but the pipeline has %zu stages", path, v->n, v->n == 1 ? "y" : "ies", n);
        return NULL;
    }
    uint64_t *out = arena_alloc_array(c->a, n, sizeof *out);
    if (!out) {
        out_of_memory(c, v);
        return NULL;
    }
    uint64_t sum = 0;
    bool ok = true;
    for (uint32_t i = 0; i < v->n; i++) {
        char sub[PATH_CAP];
        path_index(sub, path, i);
        const ydoc_node *item = v->u.items[i];
        if (item->kind != YDOC_SCALAR) {
            ERR(c, item, "%s must be an integer, got %s", sub, got(item, q, sizeof q));
            ok = false;
        } else if (!get_uint(c, item, sub, 1, layers, &out[i])) {
            ok = false;
        } else {
            sum += out[i];
        }
    }
    if (ok && sum != layers) {
        ERR(c, v, "%s sums to %llu layers, but timing.transformer.layers is %llu", path, (unsigned long long)sum,
            (unsigned long long)layers);
        ok = false;
    }
    return ok ? out : NULL;
}

/* timing.source: model: the tables from the transformer's shape and the
 * device (cost_model.c): B = 2 F (input and weight gradients each about
 * the forward), B frozen = F, I = W = F. */
static void read_cost_model(ctx *c, const ydoc_node *t, size_t n)
{
    spec_timing *tm = &c->s->timing;
    static const char *const tables[] = {"forward_ms", "backward_ms", "backward_frozen_ms", "backward_input_ms",
                                         "backward_weight_ms", "backward_weight_frozen_ms", NULL};
    for (size_t i = 0; tables[i]; i++) {
        const ydoc_node *v = ydoc_get(t, tables[i]);
        if (v)
            ERR(c, v, "timing.%s is computed by the cost model (timing.source: model); remove it", tables[i]);
    }
    static const char *const measured[] = {"file", "frozen_file", "scale", NULL};
    for (size_t i = 0; measured[i]; i++) {
        const ydoc_node *v = ydoc_get(t, measured[i]);
        if (v)
            ERR(c, v, "timing.%s is for measured timings, not the cost model (timing.source: model); remove it",
                measured[i]);
    }
    const ydoc_node *tr = require(c, t, "timing", "transformer", timing_keys);
    const ydoc_node *dv = require(c, t, "timing", "device", timing_keys);
    const ydoc_node *v;
    if ((v = ydoc_get(t, "comm_ms")))
        get_number(c, v, "timing.comm_ms", 0.0, false, SPEC_MAX_MS, &tm->comm_ms);
    if (!tr || !dv || !check_map(c, tr, "timing.transformer", transformer_keys) ||
        !check_map(c, dv, "timing.device", device_keys))
        return;
    cost_model m = {0};
    uint64_t *f[] = {&m.layers, &m.hidden, &m.ffn, &m.heads, &m.kv_heads, &m.vocab, &m.seq_len, &m.microbatch_size};
    const uint64_t max[] = {100000, 1u << 20, 1u << 22, 4096, 4096, 1u << 24, 1u << 22, 1u << 20};
    bool ok = true;
    char path[64];
    for (size_t i = 0; i < TRANSFORMER_REQUIRED; i++) {
        snprintf(path, sizeof path, "timing.transformer.%s", transformer_keys[i]);
        if ((v = require(c, tr, "timing.transformer", transformer_keys[i], transformer_keys)))
            ok = get_uint(c, v, path, 1, max[i], f[i]) && ok;
        else
            ok = false;
    }
    if ((v = require(c, dv, "timing.device", "peak_tflops", device_keys)))
        ok = get_number(c, v, "timing.device.peak_tflops", 0.0, true, 1e6, &m.peak_tflops) && ok;
    else
        ok = false;
    if ((v = require(c, dv, "timing.device", "mfu", device_keys)))
        ok = get_number(c, v, "timing.device.mfu", 0.0, true, 1.0, &m.mfu) && ok;
    else
        ok = false;
    if (!ok)
        return;
    tm->vocab = m.vocab;
    if (m.heads % m.kv_heads) {
        ERR(c, ydoc_get(tr, "kv_heads"), "timing.transformer.kv_heads (%llu) must divide heads (%llu)",
            (unsigned long long)m.kv_heads, (unsigned long long)m.heads);
        return;
    }
    if (n && m.layers < n) {
        ERR(c, ydoc_get(tr, "layers"), "timing.transformer.layers (%llu) is fewer than the %zu stages: every stage "
                                       "needs a layer",
            (unsigned long long)m.layers, n);
        return;
    }
    if (!n)
        return;
    if ((v = ydoc_get(tr, "stage_layers")) && !(m.stage_layers = read_stage_layers(c, v, n, m.layers)))
        return;
    double **out[] = {&tm->forward_ms, &tm->backward_ms, &tm->backward_frozen_ms, &tm->backward_input_ms,
                      &tm->backward_weight_ms, &tm->backward_weight_frozen_ms};
    for (size_t k = 0; k < 6; k++)
        if (!(*out[k] = arena_alloc_array(c->a, n, sizeof(double)))) {
            out_of_memory(c, t);
            return;
        }
    for (size_t st = 0; st < n; st++) {
        cost_stage_ms ms = cost_model_stage_ms(&m, n, st, SPEC_W_FLOOR_SHARE);
        if (!(ms.forward > 0) || ms.forward > SPEC_MAX_MS) {
            ERR(c, t, "the cost model gives stage %zu a forward of %s ms, outside (0, %s]", st,
                real_shortest(ms.forward).s, real_shortest(SPEC_MAX_MS).s);
            return;
        }
        tm->forward_ms[st] = ms.forward;
        tm->backward_ms[st] = ms.backward;
        tm->backward_frozen_ms[st] = ms.backward_frozen;
        tm->backward_input_ms[st] = ms.input;
        tm->backward_weight_ms[st] = ms.weight;
        tm->backward_weight_frozen_ms[st] = ms.weight_frozen;
    }
    tm->model = m;
    tm->has_model = true;
}

/* timing.file or timing.frozen_file: one path, kept as it always was, or a
 * sequence of paths (each checked as a path on its own, errors at the
 * item), none repeated: a repeat would count its samples twice. */
static void read_files(ctx *c, const ydoc_node *v, const char *key, spec_files *out)
{
    char path[PATH_CAP], q[TEXT_QUOTE_CAP];
    path_key(path, "timing", key);
    out->at = (spec_pos){v->line, v->col};
    if (v->kind != YDOC_SEQ) {
        if (v->kind == YDOC_MAP) {
            ERR(c, v, "%s must be a path or a sequence of paths, got %s", path, got(v, q, sizeof q));
            return;
        }
        out->path = arena_alloc_array(c->a, 1, sizeof *out->path);
        out->pos = arena_alloc_array(c->a, 1, sizeof *out->pos);
        if (!out->path || !out->pos) {
            out_of_memory(c, v);
            return;
        }
        out->pos[0] = out->at;
        if ((out->path[0] = get_string(c, v, path, SPEC_MAX_PATH_BYTES)))
            out->n = 1;
        return;
    }
    out->listed = true;
    if (v->n == 0) {
        ERR(c, v, "%s must list at least one file", path);
        return;
    }
    if (v->n > SPEC_MAX_TIMING_FILES) {
        ERR(c, v->u.items[SPEC_MAX_TIMING_FILES], "%s lists %u files, more than the limit of %u", path, v->n,
            SPEC_MAX_TIMING_FILES);
        return;
    }
    out->path = arena_alloc_array(c->a, v->n, sizeof *out->path);
    out->pos = arena_alloc_array(c->a, v->n, sizeof *out->pos);
    name_list names;
    bool names_ok = name_list_init(&names, v->n);
    if (!out->path || !out->pos || !names_ok) {
        name_list_check(c, &names, "");
        out_of_memory(c, v);
        return;
    }
    size_t errors = diag_count(c->d);
    uint32_t i = 0;
    for (; i < v->n && !diag_full(c->d); i++) {
        const ydoc_node *item = v->u.items[i];
        char at[PATH_CAP];
        path_index(at, path, i);
        out->pos[i] = (spec_pos){item->line, item->col};
        if ((out->path[i] = get_string(c, item, at, SPEC_MAX_PATH_BYTES)))
            name_list_add(&names, out->path[i], &out->pos[i]);
    }
    char what[PATH_CAP + 8];
    snprintf(what, sizeof what, "%s path", path);
    name_list_check(c, &names, what);
    if (i == v->n && diag_count(c->d) == errors)
        out->n = v->n;
}

/* timing.source: measured or trace: files of samples, read with the
 * schedule (timing_csv.c); here only their names. */
static void read_measured(ctx *c, const ydoc_node *t)
{
    spec_timing *tm = &c->s->timing;
    static const char *const not_here[] = {"forward_ms", "backward_ms", "backward_frozen_ms", "backward_input_ms",
                                           "backward_weight_ms", "backward_weight_frozen_ms", "transformer",
                                           "device", NULL};
    for (size_t i = 0; not_here[i]; i++) {
        const ydoc_node *v = ydoc_get(t, not_here[i]);
        if (v)
            ERR(c, v, "timing.%s does not go with measured timings (the durations come from timing.file)",
                not_here[i]);
    }
    const ydoc_node *v;
    if ((v = require(c, t, "timing", "file", timing_keys)))
        read_files(c, v, "file", &tm->file);
    if ((v = require(c, t, "timing", "frozen_file", timing_keys)))
        read_files(c, v, "frozen_file", &tm->frozen_file);
    if ((v = ydoc_get(t, "comm_ms")))
        get_number(c, v, "timing.comm_ms", 0.0, false, SPEC_MAX_MS, &tm->comm_ms);
    if ((v = ydoc_get(t, "scale"))) {
        tm->scale_at = (spec_pos){v->line, v->col};
        get_number(c, v, "timing.scale", 0.0, true, SPEC_MAX_TIMING_SCALE, &tm->scale);
    }
}

/* stages_known: the pipeline's schedule and stage count are valid; n: the
 * stage count the tables must have, 0 when it is unknown (not checked). */
static void read_timing(ctx *c, const ydoc_node *t, bool stages_known, size_t n)
{
    spec *s = c->s;
    spec_timing *tm = &s->timing;
    if (!check_map(c, t, "timing", timing_keys))
        return;
    s->pos_timing = (spec_pos){t->line, t->col};
    const ydoc_node *v;
    if ((v = ydoc_get(t, "source"))) {
        static const char *const sources[] = {"table", "model", "measured", "trace", NULL};
        int src = get_enum(c, v, "timing.source", sources);
        if (src < 0)
            return;
        tm->source = (spec_timing_source)src;
        if (tm->source == TIMING_MODEL) {
            read_cost_model(c, t, n);
            return;
        }
        if (tm->source == TIMING_MEASURED || tm->source == TIMING_TRACE) {
            read_measured(c, t);
            return;
        }
    }
    const ydoc_node *tr = ydoc_get(t, "transformer"), *dv = ydoc_get(t, "device");
    if (tr || dv)
        ERR(c, tr ? tr : dv, "timing.%s is for the cost model: add timing.source: model", tr ? "transformer" : "device");
    const ydoc_node *tf = ydoc_get(t, "file"), *tff = ydoc_get(t, "frozen_file"), *sc = ydoc_get(t, "scale");
    if (tf || tff || sc)
        ERR(c, tf ? tf : tff ? tff : sc, "timing.%s is for measured timings: add timing.source: measured (or trace)",
            tf ? "file" : tff ? "frozen_file" : "scale");
    if ((v = require(c, t, "timing", "forward_ms", timing_keys)))
        tm->forward_ms = read_table(c, v, "timing.forward_ms", n, 0.0, true);
    const ydoc_node *b = ydoc_get(t, "backward_ms");
    const ydoc_node *bf = ydoc_get(t, "backward_frozen_ms");
    const ydoc_node *bi = ydoc_get(t, "backward_input_ms");
    const ydoc_node *bw = ydoc_get(t, "backward_weight_ms");
    if (b)
        tm->backward_ms = read_table(c, b, "timing.backward_ms", n, 0.0, true);
    if (bf)
        tm->backward_frozen_ms = read_table(c, bf, "timing.backward_frozen_ms", n, 0.0, false);
    if (bi)
        tm->backward_input_ms = read_table(c, bi, "timing.backward_input_ms", n, 0.0, true);
    if (bw)
        tm->backward_weight_ms = read_table(c, bw, "timing.backward_weight_ms", n, 0.0, false);
    const ydoc_node *bwf = ydoc_get(t, "backward_weight_frozen_ms");
    if (bwf)
        tm->backward_weight_frozen_ms = read_table(c, bwf, "timing.backward_weight_frozen_ms", n, 0.0, false);
    if ((v = ydoc_get(t, "comm_ms")))
        get_number(c, v, "timing.comm_ms", 0.0, false, SPEC_MAX_MS, &tm->comm_ms);

    /* A key written with a typo has had its "did you mean" (check_map):
     * the rules below take it as given, so as not to say it is missing. */
    bool has_b = b || misspelt_in(t, "backward_ms", timing_keys);
    bool has_bf = bf || misspelt_in(t, "backward_frozen_ms", timing_keys);
    bool has_bi = bi || misspelt_in(t, "backward_input_ms", timing_keys);
    bool has_bw = bw || misspelt_in(t, "backward_weight_ms", timing_keys);
    if (bwf && !has_bw)
        ERR(c, bwf, "timing.backward_weight_frozen_ms needs timing.backward_weight_ms");
    bool full_half = (bf && !has_b) || (b && !has_bf), split_half = (bi && !has_bw) || (bw && !has_bi);
    if (bf && !has_b)
        ERR(c, bf, "timing.backward_frozen_ms needs timing.backward_ms (the unfrozen backward it shortens)");
    if (b && !has_bf)
        ERR(c, b, "timing.backward_ms needs timing.backward_frozen_ms (the same backward with every "
                  "parameter frozen)");
    if (split_half)
        ERR(c, bi ? bi : bw, "timing.backward_input_ms and timing.backward_weight_ms go together");

    /* What the schedule needs, where a pair's error above has not said it
     * already (half of it given); naming only the keys that are missing. */
    if (stages_known) {
        bool split = spec_schedule_is_split(s->schedule);
        const char *name = schedule_names[s->schedule];
        if (split && !split_half && !(has_bi && has_bw))
            ERR(c, t, "schedule %s splits the backward: timing needs %s", name,
                !has_bi && !has_bw ? "backward_input_ms and backward_weight_ms"
                : !has_bi          ? "backward_input_ms"
                                   : "backward_weight_ms");
        if (!split && s->schedule != SCHED_CUSTOM && !full_half && !(has_b && has_bf))
            ERR(c, t, "schedule %s needs %s", name,
                !has_b && !has_bf ? "timing.backward_ms and timing.backward_frozen_ms"
                : !has_b          ? "timing.backward_ms"
                                  : "timing.backward_frozen_ms");
        if (s->schedule == SCHED_CUSTOM && !full_half && !split_half && !(has_b && has_bf) && !(has_bi && has_bw))
            ERR(c, t, "a custom schedule needs backward_ms and backward_frozen_ms, or backward_input_ms "
                      "and backward_weight_ms");
    }
    if (tm->backward_weight_ms && tm->backward_weight_frozen_ms) {
        for (size_t i = 0; i < n && !diag_full(c->d); i++) {
            if (tm->backward_weight_frozen_ms[i] > tm->backward_weight_ms[i]) {
                const ydoc_node *at = bwf->kind == YDOC_SEQ ? bwf->u.items[i] : bwf;
                ERR(c, at,
                    "timing.backward_weight_frozen_ms[%zu] = %s is longer than timing.backward_weight_ms[%zu] = %s", i,
                    real_shortest(tm->backward_weight_frozen_ms[i]).s, i, real_shortest(tm->backward_weight_ms[i]).s);
                if (bwf->kind != YDOC_SEQ)
                    break;
            }
        }
    }
    if (tm->backward_ms && tm->backward_frozen_ms) {
        for (size_t i = 0; i < n && !diag_full(c->d); i++) {
            if (tm->backward_frozen_ms[i] > tm->backward_ms[i]) {
                const ydoc_node *at = bf->kind == YDOC_SEQ ? bf->u.items[i] : bf;
                ERR(c, at, "timing.backward_frozen_ms[%zu] = %s is longer than timing.backward_ms[%zu] = %s; "
                           "freezing cannot make a backward slower",
                    i, real_shortest(tm->backward_frozen_ms[i]).s, i, real_shortest(tm->backward_ms[i]).s);
                if (bf->kind != YDOC_SEQ)
                    break;
            }
        }
    }
}

static void read_freeze(ctx *c, const ydoc_node *f)
{
    spec_freeze *fr = &c->s->freeze;
    if (!check_map(c, f, "freeze", freeze_keys))
        return;
    const ydoc_node *v;
    if ((v = require(c, f, "freeze", "max_ratio", freeze_keys))) {
        fr->pos_max_ratio = (spec_pos){v->line, v->col};
        char q[TEXT_QUOTE_CAP];
        bool str = v->kind == YDOC_SCALAR && ydoc_scalar_type(v) == YDOC_STR;
        if (str && v->n == 4 && memcmp(v->u.str, "auto", 4) == 0)
            fr->max_ratio_auto = true; /* the plan chooses; check_auto holds it to a training section */
        else if (str)
            ERR(c, v, "freeze.max_ratio must be a number from 0 to 1, or auto, got %s", describe(v, q, sizeof q));
        else
            get_number(c, v, "freeze.max_ratio", 0.0, false, 1.0, &fr->max_ratio);
    }
    static const char *const balances[] = {[BALANCE_MINMAX] = "minmax", [BALANCE_NONE] = "none",
                                           [BALANCE_LEXIMIN] = "leximin", NULL};
    if ((v = ydoc_get(f, "balance"))) {
        int b = get_enum(c, v, "freeze.balance", balances);
        if (b >= 0)
            fr->balance = (spec_balance)b;
    }
    if ((v = ydoc_get(f, "max_action_ratio")))
        get_number(c, v, "freeze.max_action_ratio", 0.0, false, 1.0, &fr->max_action_ratio);
    const uint64_t max_steps = UINT64_C(1) << 40;
    if ((v = ydoc_get(f, "warmup_steps")))
        get_uint(c, v, "freeze.warmup_steps", 0, max_steps, &fr->warmup_steps);
    if ((v = ydoc_get(f, "ramp_steps")))
        get_uint(c, v, "freeze.ramp_steps", 0, max_steps, &fr->ramp_steps);
    if ((v = ydoc_get(f, "reselect_every")))
        get_uint(c, v, "freeze.reselect_every", 1, max_steps, &fr->reselect_every);
    if ((v = ydoc_get(f, "seed")))
        get_uint(c, v, "freeze.seed", 0, UINT64_MAX, &fr->seed);
    if ((v = ydoc_get(f, "select"))) {
        int r = get_enum(c, v, "freeze.select", select_names);
        if (r >= 0)
            fr->select = (spec_select)r;
    }
}

static void read_training(ctx *c, const ydoc_node *t)
{
    spec_training *tr = &c->s->training;
    if (!check_map(c, t, "training", training_keys))
        return;
    tr->present = true;
    const ydoc_node *v;
    if ((v = require(c, t, "training", "batch_tokens", training_keys)))
        get_uint(c, v, "training.batch_tokens", 1, UINT64_C(1) << 53, &tr->batch_tokens);
    if ((v = require(c, t, "training", "noise_scale_tokens", training_keys)))
        get_number(c, v, "training.noise_scale_tokens", 0.0, true, 1e18, &tr->noise_scale_tokens);
    if ((v = require(c, t, "training", "steps", training_keys))) {
        get_uint(c, v, "training.steps", 1, UINT64_C(1) << 40, &tr->steps);
        tr->pos_steps = (spec_pos){v->line, v->col};
    }
    tr->freeze_noise_scale_tokens = NAN;
    if ((v = ydoc_get(t, "freeze_noise_scale_tokens")))
        get_number(c, v, "training.freeze_noise_scale_tokens", 0.0, true, 1e18, &tr->freeze_noise_scale_tokens);
    if ((v = ydoc_get(t, "optimizer"))) {
        int o = get_enum(c, v, "training.optimizer", optimizer_names);
        if (o >= 0)
            tr->optimizer = o == 1 ? SPEC_OPTIMIZER_SGD : SPEC_OPTIMIZER_ADAM;
    }
    tr->lr_ratio = NAN;
    tr->pilot_frozen_share = NAN;
    const ydoc_node *lr = ydoc_get(t, "lr_ratio"), *pl = ydoc_get(t, "pilot");
    /* below 2: at 2 a full step makes no progress */
    if (lr && !get_number_range(c, lr, "training.lr_ratio", 0.0, false, SPEC_LR_RATIO_MAX, true, &tr->lr_ratio))
        tr->lr_ratio = NAN;
    if (lr && pl) {
        ERR(c, pl, "training.pilot and training.lr_ratio both give the learning-rate ratio; keep one");
        return;
    }
    if (!pl || !check_map(c, pl, "training.pilot", pilot_keys))
        return;
    tr->pilot = true;
    tr->pos_pilot = (spec_pos){pl->line, pl->col};
    tr->pos_pilot_max_ratio = tr->pos_pilot_speedup = tr->pos_pilot;
    if ((v = require(c, pl, "training.pilot", "max_ratio", pilot_keys))) {
        tr->pos_pilot_max_ratio = (spec_pos){v->line, v->col};
        get_number(c, v, "training.pilot.max_ratio", 0.0, true, 1.0, &tr->pilot_max_ratio);
    }
    if ((v = require(c, pl, "training.pilot", "speedup", pilot_keys))) {
        tr->pos_pilot_speedup = (spec_pos){v->line, v->col};
        get_number(c, v, "training.pilot.speedup", 0.0, true, 1e6, &tr->pilot_speedup);
    }
}

/* freeze.max_ratio: auto chooses the cap by predicted time to quality,
 * which needs the batch regime. */
static void check_auto(ctx *c)
{
    const spec *s = c->s;
    if (s->freeze.max_ratio_auto && !s->training.present)
        diag_error(c->d, c->file, s->freeze.pos_max_ratio.line, s->freeze.pos_max_ratio.col,
                   "freeze.max_ratio: auto chooses the cap by predicted time to quality, which needs a training "
                   "section (batch_tokens, noise_scale_tokens, steps; docs/time-to-quality.md)");
}

/* A run that ends before freezing takes hold (the time-to-quality model's
 * w = warmup_steps + ramp_steps / 2, ttq.h) gains nothing from any cap:
 * said once here, where the plan's reason says it too. */
static void check_training_window(ctx *c)
{
    const spec *s = c->s;
    double w = (double)s->freeze.warmup_steps + (double)s->freeze.ramp_steps / 2.0;
    bool freezes = s->freeze.max_ratio_auto || s->freeze.max_ratio > 0.0;
    if (s->training.present && s->training.steps > 0 && freezes && !((double)s->training.steps > w))
        diag_warning(c->d, c->file, s->training.pos_steps.line, s->training.pos_steps.col,
                     "training.steps %llu ends before freezing takes hold at step %s (freeze.warmup_steps + "
                     "ramp_steps / 2): no cap can shorten this run's time to quality",
                     (unsigned long long)s->training.steps, real_shortest(w).s);
}

/* pipeline.memory_limit_bytes is compared with activation bytes, so every
 * stage must give its model.stages[i].activation_bytes. */
static void check_memory_limit(ctx *c)
{
    const spec *s = c->s;
    if (!s->has_memory_limit || !s->stages)
        return;
    for (size_t i = 0; i < s->n_stages; i++)
        if (!s->stages[i].has_activation_bytes) {
            diag_error(c->d, c->file, s->pos_memory_limit.line, s->pos_memory_limit.col,
                       "pipeline.memory_limit_bytes is compared with activation memory: every stage needs "
                       "model.stages[i].activation_bytes, and stage %zu (%s) has none",
                       i, s->stages[i].name ? s->stages[i].name : "?");
            return;
        }
}

/* A rank's activation bytes are counted in 64 bits: every stage's bytes
 * times every microbatch, a bound on any rank's peak, must fit (2^63 bytes,
 * 8 EiB: far past any machine, so only a mistake reaches it). */
static void check_activation_total(ctx *c)
{
    const spec *s = c->s;
    if (!s->stages)
        return;
    uint64_t total = 0;
    for (size_t i = 0; i < s->n_stages; i++) {
        uint64_t all_mb;
        if (__builtin_mul_overflow(s->stages[i].activation_bytes, (uint64_t)s->microbatches, &all_mb) ||
            __builtin_add_overflow(total, all_mb, &total) || total > (UINT64_C(1) << 63)) {
            char which[64];
            snprintf(which, sizeof which, i ? "stages 0 to %zu" : "stage %zu", i);
            diag_error(c->d, c->file, s->stages[i].pos.line, s->stages[i].pos.col,
                       "the activations of all %u microbatches of %s pass 2^63 bytes (8 EiB) together, more than "
                       "tfc counts; activation_bytes is one microbatch's, in bytes",
                       s->microbatches, which);
            return;
        }
    }
}

/* freeze_weight means something only to the weights rule: anywhere else it
 * would be silently ignored, so it is an error. */
static void check_freeze_weights(ctx *c)
{
    const spec *s = c->s;
    if (s->freeze.select == SELECT_WEIGHTS || !s->stages)
        return;
    for (size_t st = 0; st < s->n_stages; st++)
        for (size_t i = 0; s->stages[st].params && i < s->stages[st].n_params; i++) {
            const spec_param *p = &s->stages[st].params[i];
            if (p->has_freeze_weight) {
                diag_error(c->d, c->file, p->pos_freeze_weight.line, p->pos_freeze_weight.col,
                           "freeze_weight is used only with freeze.select: weights (select is %s)",
                           spec_select_name(s->freeze.select));
                return;
            }
        }
}

static void read_targets(ctx *c, const ydoc_node *t)
{
    spec_targets *tg = &c->s->targets;
    if (!check_map(c, t, "targets", targets_keys))
        return;
    const ydoc_node *v;
    if ((v = ydoc_get(t, "c")))
        get_bool(c, v, "targets.c", &tg->c);
    const ydoc_node *cu = ydoc_get(t, "cuda");
    if (!cu)
        return;
    if (cu->kind == YDOC_SCALAR) { /* cuda: false is short for cuda: {enabled: false} */
        get_bool(c, cu, "targets.cuda", &tg->cuda);
        return;
    }
    if (!check_map(c, cu, "targets.cuda", cuda_keys))
        return;
    if ((v = ydoc_get(cu, "enabled")))
        get_bool(c, v, "targets.cuda.enabled", &tg->cuda);
    if ((v = ydoc_get(cu, "arch"))) {
        int i = get_enum(c, v, "targets.cuda.arch", cuda_archs);
        if (i >= 0)
            tg->cuda_arch = cuda_archs[i];
    }
}

static void read_data(ctx *c, const ydoc_node *dt)
{
    spec_lcp_index *li = &c->s->lcp_index;
    if (!check_map(c, dt, "data", data_keys))
        return;
    const ydoc_node *l = ydoc_get(dt, "lcp_index");
    if (!l || !check_map(c, l, "data.lcp_index", lcp_keys))
        return;
    li->enabled = true;
    const ydoc_node *v;
    char q[TEXT_QUOTE_CAP];
    if ((v = ydoc_get(l, "token_bytes")) && get_u32(c, v, "data.lcp_index.token_bytes", 1, 8, &li->token_bytes) &&
        li->token_bytes != 2 && li->token_bytes != 4) {
        ERR(c, v, "data.lcp_index.token_bytes must be 2 or 4, got %s", describe(v, q, sizeof q));
    }
    if (li->token_bytes == 2 && c->s->timing.vocab > 65536) {
        const ydoc_node *at = v ? v : l;
        ERR(c, at, "data.lcp_index.token_bytes is 2 (token ids up to 65,535) but timing.transformer.vocab is %llu: "
                   "use token_bytes: 4",
            (unsigned long long)c->s->timing.vocab);
    }
    if ((v = require(c, l, "data.lcp_index", "seq_len", lcp_keys)))
        get_u32(c, v, "data.lcp_index.seq_len", 1, SPEC_MAX_SEQ_LEN, &li->seq_len);
    if ((v = ydoc_get(l, "topk")))
        get_u32(c, v, "data.lcp_index.topk", 1, SPEC_MAX_TOPK, &li->topk);
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

static void read_root(ctx *c, const ydoc_node *root)
{
    char q[TEXT_QUOTE_CAP];
    if (root->kind != YDOC_MAP) {
        ERR(c, root, "a tfc spec must be a mapping with keys tfc, name, model, pipeline and timing; got %s",
            got(root, q, sizeof q));
        return;
    }
    check_map(c, root, "", root_keys);
    /* Missing top-level keys are said in one error; a file that is not a
     * spec at all (no "tfc" key either) gets nothing more. */
    static const char *const required[] = {"tfc", "name", "pipeline", "model", "timing"};
    char missing[64] = "";
    size_t n_missing = 0;
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (!ydoc_get(root, required[i]) && !misspelt_in(root, required[i], root_keys)) {
            strcat(missing, n_missing++ ? ", " : "");
            strcat(missing, required[i]);
        }
    if (n_missing) {
        bool no_tfc = !ydoc_get(root, "tfc");
        ERR(c, root, "missing required key%s %s%s", n_missing > 1 ? "s" : "", missing,
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
            ERR(c, v, "unsupported spec version %s; this tfc reads version 1 (tfc: 1)", describe(v, q, sizeof q));
        else
            get_uint(c, v, "tfc", 1, 1, &version); /* not an integer: says so */
    }
    if ((v = ydoc_get(root, "name")))
        read_name(c, v);
    bool stages_known = false;
    if ((v = ydoc_get(root, "pipeline")))
        stages_known = read_pipeline(c, v);
    bool count_ok = true;
    if ((v = ydoc_get(root, "model")))
        count_ok = read_model(c, v, stages_known);
    if ((v = ydoc_get(root, "timing")))
        read_timing(c, v, stages_known, stages_known && count_ok ? c->s->n_stages : 0);
    if ((v = opt(root, "freeze")))
        read_freeze(c, v);
    if ((v = opt(root, "training")))
        read_training(c, v);
    check_auto(c);
    check_training_window(c);
    check_freeze_weights(c);
    check_memory_limit(c);
    check_activation_total(c);
    if ((v = opt(root, "targets")))
        read_targets(c, v);
    if ((v = opt(root, "data")))
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
    ctx c = {.file = file, .a = a, .d = d, .s = s};
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
