/* ydoc: libyaml event stream -> bounded tree (see ydoc.h for the rules). */
#include "ydoc.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "text.h"

/* ---- anchors: open-addressing hash from name to node (NULL while open) ---- */

typedef struct anchor_slot {
    const char *name;
    const ydoc_node *node;
} anchor_slot;

typedef struct anchors {
    anchor_slot *slots;
    size_t cap, n;
} anchors;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static anchor_slot *anchors_find(anchors *t, const char *name)
{
    if (!t->cap)
        return NULL;
    size_t i = (size_t)hash_name(name) & (t->cap - 1);
    while (t->slots[i].name) {
        if (strcmp(t->slots[i].name, name) == 0)
            return &t->slots[i];
        i = (i + 1) & (t->cap - 1);
    }
    return NULL;
}

static bool anchors_put(anchors *t, const char *name, const ydoc_node *node)
{
    anchor_slot *s = anchors_find(t, name);
    if (s) {
        s->node = node; /* YAML allows redefining an anchor; later aliases see the new node */
        return true;
    }
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        anchor_slot *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return false;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].name)
                continue;
            size_t j = (size_t)hash_name(t->slots[i].name) & (cap - 1);
            while (slots[j].name)
                j = (j + 1) & (cap - 1);
            slots[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    size_t i = (size_t)hash_name(name) & (t->cap - 1);
    while (t->slots[i].name)
        i = (i + 1) & (t->cap - 1);
    t->slots[i].name = name;
    t->slots[i].node = node;
    t->n++;
    return true;
}

/* ---- builder state ---- */

typedef struct frame {
    ydoc_node *node;
    size_t base;        /* first pending child of this container */
    const char *anchor; /* registered when the container closes */
} frame;

typedef struct builder {
    const char *file;
    const ydoc_limits *lim;
    arena *a;
    diag_list *d;
    frame *frames;
    size_t depth;
    const ydoc_node **pending;
    size_t n_pending, cap_pending;
    anchors anchors;
    uint64_t total_weight;
    const ydoc_node *root;
    unsigned docs;
    bool stop; /* a structural error: no point reading further */
} builder;

static void oom(builder *b)
{
    diag_nomem(b->d, "while reading the spec");
    b->stop = true;
}

static bool count_nodes(builder *b, uint32_t weight, unsigned line, unsigned col, bool alias)
{
    b->total_weight += weight;
    if (b->total_weight > b->lim->max_nodes) {
        diag_error(b->d, b->file, line, col,
                   "spec has more than %u YAML nodes%s; this is past tfc's limit", b->lim->max_nodes,
                   alias ? " once aliases are expanded (alias bomb?)" : "");
        b->stop = true;
        return false;
    }
    return true;
}

static bool push_child(builder *b, const ydoc_node *n)
{
    if (b->depth == 0) {
        b->root = n;
        return true;
    }
    if (b->n_pending == b->cap_pending) {
        size_t cap = b->cap_pending ? b->cap_pending * 2 : 256;
        const ydoc_node **p = realloc(b->pending, cap * sizeof *p);
        if (!p) {
            oom(b);
            return false;
        }
        b->pending = p;
        b->cap_pending = cap;
    }
    b->pending[b->n_pending++] = n;
    return true;
}

/* Accepts the tags a spec may carry: none, "!" (non-specific), and the core
 * tag of the node's own kind. Anything else is refused: tfc gives tags no meaning. */
static bool check_tag(builder *b, const yaml_char_t *tag, const char *allowed, unsigned line, unsigned col)
{
    if (!tag || strcmp((const char *)tag, "!") == 0 || strcmp((const char *)tag, allowed) == 0)
        return true;
    char q[TEXT_QUOTE_CAP];
    diag_error(b->d, b->file, line, col, "unsupported YAML tag %s; tfc specs use plain values",
               text_quote(q, sizeof q, (const char *)tag, strlen((const char *)tag)));
    b->stop = true;
    return false;
}

static const char *copy_anchor(builder *b, const yaml_char_t *anchor)
{
    if (!anchor)
        return NULL;
    const char *s = arena_strndup(b->a, (const char *)anchor, strlen((const char *)anchor));
    if (!s)
        oom(b);
    return s;
}

static ydoc_node *new_node(builder *b, ydoc_kind kind, unsigned line, unsigned col)
{
    if (!count_nodes(b, 1, line, col, false))
        return NULL;
    ydoc_node *n = arena_alloc(b->a, sizeof *n);
    if (!n) {
        oom(b);
        return NULL;
    }
    n->kind = (uint8_t)kind;
    n->line = line;
    n->col = col;
    n->weight = 1;
    return n;
}

static void on_scalar(builder *b, const yaml_event_t *ev, unsigned line, unsigned col)
{
    size_t len = ev->data.scalar.length;
    if (!check_tag(b, ev->data.scalar.tag, YAML_STR_TAG, line, col))
        return;
    if (len > b->lim->max_scalar_bytes) {
        diag_error(b->d, b->file, line, col, "scalar of %zu bytes is longer than the %u-byte limit", len,
                   b->lim->max_scalar_bytes);
        b->stop = true;
        return;
    }
    ydoc_node *n = new_node(b, YDOC_SCALAR, line, col);
    if (!n)
        return;
    n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag;
    n->tagged = ev->data.scalar.tag != NULL;
    n->n = (uint32_t)len;
    n->u.str = arena_strndup(b->a, (const char *)ev->data.scalar.value, len);
    if (!n->u.str) {
        oom(b);
        return;
    }
    if (ev->data.scalar.anchor) {
        const char *name = copy_anchor(b, ev->data.scalar.anchor);
        if (!name || !anchors_put(&b->anchors, name, n)) {
            oom(b);
            return;
        }
    }
    push_child(b, n);
}

static void on_start(builder *b, const yaml_event_t *ev, ydoc_kind kind, unsigned line, unsigned col)
{
    const yaml_char_t *tag, *anchor;
    if (kind == YDOC_SEQ) {
        tag = ev->data.sequence_start.tag;
        anchor = ev->data.sequence_start.anchor;
    } else {
        tag = ev->data.mapping_start.tag;
        anchor = ev->data.mapping_start.anchor;
    }
    if (!check_tag(b, tag, kind == YDOC_SEQ ? YAML_SEQ_TAG : YAML_MAP_TAG, line, col))
        return;
    if (b->depth >= b->lim->max_depth) {
        diag_error(b->d, b->file, line, col, "YAML nesting is deeper than the limit of %u levels",
                   b->lim->max_depth);
        b->stop = true;
        return;
    }
    ydoc_node *n = new_node(b, kind, line, col);
    if (!n)
        return;
    frame *f = &b->frames[b->depth++];
    f->node = n;
    f->base = b->n_pending;
    f->anchor = copy_anchor(b, anchor);
    if (anchor && (!f->anchor || !anchors_put(&b->anchors, f->anchor, NULL)))
        oom(b);
}

static int cmp_key(const ydoc_node *a, const ydoc_node *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return memcmp(a->u.str, b->u.str, a->n);
}

static void report_duplicate(builder *b, const ydoc_node *first, const ydoc_node *dup)
{
    char q[TEXT_QUOTE_CAP];
    diag_error(b->d, b->file, dup->line, dup->col, "duplicate key %s",
               text_quote(q, sizeof q, dup->u.str, dup->n));
    diag_note(b->d, first->line, first->col, "first defined here");
}

typedef struct dup_ctx {
    builder *b;
    const ydoc_node *const *kv;
} dup_ctx;

static bool report_duplicate_ref(const text_ref *first, const text_ref *dup, void *ctx)
{
    dup_ctx *dc = ctx;
    report_duplicate(dc->b, dc->kv[2 * first->index], dc->kv[2 * dup->index]);
    return !diag_full(dc->b->d);
}

/* Mapping keys must be scalars and unique. Small mappings are checked pair by
 * pair; large ones by sorting key indices, so a hostile 1e6-key mapping costs
 * n log n, not n^2. */
static void check_keys(builder *b, const ydoc_node *map)
{
    const ydoc_node *const *kv = map->u.items;
    bool all_scalar = true;
    for (uint32_t i = 0; i < map->n; i++) {
        const ydoc_node *k = kv[2 * i];
        if (k->kind != YDOC_SCALAR) {
            diag_error(b->d, b->file, k->line, k->col, "mapping keys must be scalars, got a %s",
                       k->kind == YDOC_SEQ ? "sequence" : "mapping");
            all_scalar = false;
        }
    }
    if (!all_scalar)
        return;
    if (map->n <= 16) {
        for (uint32_t i = 1; i < map->n; i++)
            for (uint32_t j = 0; j < i; j++)
                if (cmp_key(kv[2 * j], kv[2 * i]) == 0) {
                    report_duplicate(b, kv[2 * j], kv[2 * i]);
                    break;
                }
        return;
    }
    text_ref *refs = malloc(map->n * sizeof *refs);
    if (!refs) {
        oom(b);
        return;
    }
    for (uint32_t i = 0; i < map->n; i++)
        refs[i] = (text_ref){kv[2 * i]->u.str, kv[2 * i]->n, i};
    dup_ctx dc = {b, kv};
    text_report_duplicates(refs, map->n, report_duplicate_ref, &dc);
    free(refs);
}

static void on_end(builder *b)
{
    frame *f = &b->frames[--b->depth];
    ydoc_node *n = f->node;
    size_t count = b->n_pending - f->base;
    if (n->kind == YDOC_MAP && count % 2) {
        /* libyaml always pairs keys and values; guard anyway. */
        diag_error(b->d, b->file, n->line, n->col, "mapping with a key and no value");
        b->stop = true;
        return;
    }
    const ydoc_node **items = arena_alloc_array(b->a, count ? count : 1, sizeof *items);
    if (!items) {
        oom(b);
        return;
    }
    if (count) /* pending is NULL until the first node is pushed */
        memcpy(items, b->pending + f->base, count * sizeof *items);
    b->n_pending = f->base;
    n->u.items = items;
    n->n = (uint32_t)(n->kind == YDOC_MAP ? count / 2 : count);
    uint64_t w = 1;
    for (size_t i = 0; i < count; i++)
        w += items[i]->weight;
    /* w <= total_weight <= max_nodes, which fits in 32 bits. */
    n->weight = (uint32_t)w;
    if (n->kind == YDOC_MAP)
        check_keys(b, n);
    if (f->anchor && !anchors_put(&b->anchors, f->anchor, n)) {
        oom(b);
        return;
    }
    push_child(b, n);
}

static void on_alias(builder *b, const yaml_event_t *ev, unsigned line, unsigned col)
{
    const char *name = (const char *)ev->data.alias.anchor;
    anchor_slot *s = anchors_find(&b->anchors, name);
    char q[TEXT_QUOTE_CAP];
    if (!s) {
        diag_error(b->d, b->file, line, col, "alias *%s names no anchor defined before it",
                   text_quote(q, sizeof q, name, strlen(name)));
        b->stop = true;
        return;
    }
    if (!s->node) {
        diag_error(b->d, b->file, line, col, "alias *%s refers to a node that contains it (recursive alias)",
                   text_quote(q, sizeof q, name, strlen(name)));
        b->stop = true;
        return;
    }
    if (!count_nodes(b, s->node->weight, line, col, true))
        return;
    if (s->node->kind == YDOC_SCALAR) {
        /* A scalar used through an alias gets its own node at the alias's
         * position, so errors about this use (a duplicate key, a bad value)
         * point here, not at the anchor. Collections stay shared. */
        ydoc_node *copy = arena_alloc(b->a, sizeof *copy);
        if (!copy) {
            oom(b);
            return;
        }
        *copy = *s->node;
        copy->line = line;
        copy->col = col;
        push_child(b, copy);
        return;
    }
    push_child(b, s->node);
}

/* Whether line:col (1-based, col in code points) is a tab with nothing but
 * spaces and tabs before it on its line: libyaml then says only "found
 * character that cannot start any token". Breaks as text_position counts them. */
static bool tab_in_indentation(const char *buf, size_t len, unsigned line, unsigned col)
{
    const unsigned char *s = (const unsigned char *)buf;
    size_t i = 0;
    for (unsigned l = 1; l < line && i < len; i++) {
        if (s[i] == '\n' || (s[i] == '\r' && !(i + 1 < len && s[i + 1] == '\n')))
            l++;
        else if (i + 1 < len && s[i] == 0xC2 && s[i + 1] == 0x85)
            l++, i++;
        else if (i + 2 < len && s[i] == 0xE2 && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9))
            l++, i += 2;
    }
    /* only spaces and tabs before it: one byte a column */
    for (unsigned c = 1; c < col; c++, i++)
        if (i >= len || (s[i] != ' ' && s[i] != '\t'))
            return false;
    return i < len && s[i] == '\t';
}

static void report_syntax(builder *b, const yaml_parser_t *p, const char *buf, size_t len)
{
    const char *problem = p->problem ? p->problem : "unknown problem";
    unsigned line, col;
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        diag_nomem(b->d, "while parsing YAML");
        return;
    case YAML_READER_ERROR:
        /* The reader knows only a byte offset; turn it into line:column. */
        text_position(buf, len, p->problem_offset, &line, &col);
        diag_error(b->d, b->file, line, col, "invalid input: %s", problem);
        return;
    default:
        line = (unsigned)p->problem_mark.line + 1;
        col = (unsigned)p->problem_mark.column + 1;
        if (tab_in_indentation(buf, len, line, col)) {
            diag_error(b->d, b->file, line, col,
                       "YAML syntax error: a tab in the indentation; YAML does not allow tabs for indentation, "
                       "indent with spaces");
            return;
        }
        diag_error(b->d, b->file, line, col, "YAML syntax error: %s", problem);
        if (p->context)
            diag_note(b->d, (unsigned)p->context_mark.line + 1, (unsigned)p->context_mark.column + 1,
                      "%s", p->context);
        return;
    }
}

bool ydoc_parse(const char *file, const char *buf, size_t len, const ydoc_limits *lim, arena *a,
                diag_list *d, const ydoc_node **root)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.file = file;
    b.lim = lim;
    b.a = a;
    b.d = d;
    size_t errors_before = diag_count(d);
    *root = NULL;

    b.frames = calloc(lim->max_depth + 1, sizeof *b.frames);
    yaml_parser_t p;
    if (!b.frames || !yaml_parser_initialize(&p)) {
        free(b.frames);
        diag_nomem(d, "while reading the spec");
        return false;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);

    bool done = false;
    while (!done && !b.stop) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            report_syntax(&b, &p, buf, len);
            break;
        }
        unsigned line = (unsigned)ev.start_mark.line + 1, col = (unsigned)ev.start_mark.column + 1;
        switch (ev.type) {
        case YAML_DOCUMENT_START_EVENT:
            if (++b.docs > 1) {
                diag_error(d, file, line, col, "a spec is one YAML document; a second one starts here");
                b.stop = true;
            }
            break;
        case YAML_SCALAR_EVENT:
            on_scalar(&b, &ev, line, col);
            break;
        case YAML_SEQUENCE_START_EVENT:
            on_start(&b, &ev, YDOC_SEQ, line, col);
            break;
        case YAML_MAPPING_START_EVENT:
            on_start(&b, &ev, YDOC_MAP, line, col);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            on_end(&b);
            break;
        case YAML_ALIAS_EVENT:
            on_alias(&b, &ev, line, col);
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    free(b.frames);
    free(b.pending);
    free(b.anchors.slots);
    if (diag_count(d) > errors_before)
        return false;
    *root = b.root;
    return true;
}

const ydoc_node *ydoc_get(const ydoc_node *map, const char *key)
{
    size_t len = strlen(key);
    for (uint32_t i = 0; i < map->n; i++) {
        const ydoc_node *k = ydoc_key(map, i);
        if (k->kind == YDOC_SCALAR && k->n == len && memcmp(k->u.str, key, len) == 0)
            return ydoc_value(map, i);
    }
    return NULL;
}
