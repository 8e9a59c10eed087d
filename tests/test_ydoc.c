/* ydoc: the bounded YAML tree: positions, limits, aliases, keys, scalars. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ydoc.h"

static const ydoc_limits limits = {.max_depth = 8, .max_nodes = 1000, .max_scalar_bytes = 64};

typedef struct parsed {
    arena a;
    diag_list d;
    const ydoc_node *root;
    bool ok;
} parsed;

static void parse(parsed *p, const char *yaml)
{
    arena_init(&p->a, 0);
    diag_init(&p->d, 50);
    p->ok = ydoc_parse("t.yaml", yaml, strlen(yaml), &limits, &p->a, &p->d, &p->root);
}

static void done(parsed *p)
{
    diag_free(&p->d);
    arena_free(&p->a);
}

static bool error_at(const parsed *p, unsigned line, unsigned col, const char *fragment)
{
    for (size_t i = 0; i < p->d.n; i++)
        if (p->d.items[i].line == line && p->d.items[i].col == col && strstr(p->d.items[i].msg, fragment))
            return true;
    return false;
}

Test(ydoc, builds_mappings_and_sequences_with_one_based_positions)
{
    parsed p;
    parse(&p, "a: 1\nb:\n  - x\n  - {c: d}\n");
    cr_assert(p.ok);
    cr_assert_eq(p.root->kind, YDOC_MAP);
    cr_assert_eq(p.root->n, 2);
    const ydoc_node *b = ydoc_get(p.root, "b");
    cr_assert_eq(b->kind, YDOC_SEQ);
    cr_assert_eq(b->n, 2);
    cr_assert_eq(b->u.items[0]->line, 3);
    cr_assert_eq(b->u.items[0]->col, 5);
    const ydoc_node *c = ydoc_get(b->u.items[1], "c");
    cr_assert_str_eq(c->u.str, "d");
    cr_assert_eq(c->line, 4);
    cr_assert_eq(c->col, 9);
    cr_assert_null(ydoc_get(p.root, "zz"));
    done(&p);
}

Test(ydoc, empty_stream_has_no_root)
{
    parsed p;
    parse(&p, "# only a comment\n");
    cr_assert(p.ok);
    cr_assert_null(p.root);
    done(&p);
}

Test(ydoc, duplicate_key_is_reported_at_the_second_with_a_note_at_the_first)
{
    parsed p;
    parse(&p, "a: 1\nb: 2\na: 3\n");
    cr_assert_not(p.ok);
    cr_assert(error_at(&p, 3, 1, "duplicate key \"a\""));
    cr_assert_eq(p.d.items[0].note_line, 1);
    done(&p);
}

Test(ydoc, duplicates_are_found_in_large_mappings_too)
{
    char yaml[4096] = "";
    size_t o = 0;
    for (int i = 0; i < 40; i++)
        o += (size_t)snprintf(yaml + o, sizeof yaml - o, "k%d: %d\n", i, i);
    snprintf(yaml + o, sizeof yaml - o, "k7: again\nk39: again\n");
    parsed p;
    parse(&p, yaml);
    cr_assert_not(p.ok);
    cr_assert_eq(p.d.n, 2);
    cr_assert(error_at(&p, 41, 1, "duplicate key \"k7\""));
    cr_assert(error_at(&p, 42, 1, "duplicate key \"k39\""));
    done(&p);
}

Test(ydoc, non_scalar_keys_are_refused)
{
    parsed p;
    parse(&p, "? [a, b]\n: c\n");
    cr_assert_not(p.ok);
    cr_assert(error_at(&p, 1, 3, "mapping keys must be scalars"));
    done(&p);
}

Test(ydoc, nesting_at_the_limit_is_accepted_and_one_deeper_refused)
{
    parsed p;
    parse(&p, "[[[[[[[[x]]]]]]]]"); /* depth 8 */
    cr_assert(p.ok);
    done(&p);
    parse(&p, "[[[[[[[[[x]]]]]]]]]"); /* depth 9 */
    cr_assert_not(p.ok);
    cr_assert(error_at(&p, 1, 9, "deeper than the limit of 8"));
    done(&p);
}

Test(ydoc, aliases_share_the_anchored_node)
{
    parsed p;
    parse(&p, "a: &x [1, 2]\nb: *x\n");
    cr_assert(p.ok);
    cr_assert_eq(ydoc_get(p.root, "a"), ydoc_get(p.root, "b"));
    /* Weight counts the alias as expanded: root 1 + 2 keys + 2 x (seq of 2). */
    cr_assert_eq(p.root->weight, 1 + 2 + 3 + 3);
    done(&p);
}

Test(ydoc, alias_bomb_is_refused_by_expanded_size)
{
    /* 10^4 expanded nodes from 40 written ones: over the 1000-node limit. */
    parsed p;
    parse(&p, "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
              "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n");
    cr_assert_not(p.ok);
    cr_assert(strstr(p.d.items[0].msg, "aliases are expanded") != NULL, "%s", p.d.items[0].msg);
    done(&p);
}

Test(ydoc, self_referencing_alias_is_refused)
{
    parsed p;
    parse(&p, "&s [*s]\n");
    cr_assert_not(p.ok);
    cr_assert(error_at(&p, 1, 5, "recursive alias"));
    done(&p);
}

Test(ydoc, alias_without_anchor_is_refused)
{
    parsed p;
    parse(&p, "a: *nowhere\n");
    cr_assert_not(p.ok);
    cr_assert(error_at(&p, 1, 4, "names no anchor"));
    done(&p);
}

Test(ydoc, second_document_is_refused)
{
    parsed p;
    parse(&p, "a: 1\n---\nb: 2\n");
    cr_assert_not(p.ok);
    cr_assert(error_at(&p, 2, 1, "second one starts here"));
    done(&p);
}

Test(ydoc, long_scalar_is_refused)
{
    char yaml[200];
    snprintf(yaml, sizeof yaml, "a: %0100d\n", 7);
    parsed p;
    parse(&p, yaml);
    cr_assert_not(p.ok);
    cr_assert(error_at(&p, 1, 4, "longer than the 64-byte limit"));
    done(&p);
}

Test(ydoc, syntax_errors_carry_libyaml_position_and_context)
{
    parsed p;
    parse(&p, "a: [1, 2\nb: 3\n");
    cr_assert_not(p.ok);
    cr_assert_eq(p.d.n, 1);
    cr_assert(strstr(p.d.items[0].msg, "YAML syntax error") != NULL);
    cr_assert_gt(p.d.items[0].line, 0);
    cr_assert_not_null(p.d.items[0].note);
    done(&p);
}

/* libyaml says only "found character that cannot start any token" at a tab
 * that indents; the error says what is wrong, at the tab. */
Test(ydoc, a_tab_in_the_indentation_is_said_to_be_one)
{
    const char *const cases[][2] = {
        {"a:\n\tb: 1\n", "2:1"},            /* a tab alone */
        {"a:\n  b: 1\n  \tc: 2\n", "3:3"},  /* after spaces */
        {"a:\r\n\tb: 1\r\n", "2:1"},        /* CR LF lines */
        {"x: \"\u00e9\"\na:\n\tb: 1\n", "3:1"}, /* after a line with a 2-byte character */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        parsed p;
        parse(&p, cases[i][0]);
        unsigned line, col;
        sscanf(cases[i][1], "%u:%u", &line, &col);
        cr_assert_not(p.ok);
        cr_assert_eq(p.d.n, 1, "case %zu", i);
        cr_assert(error_at(&p, line, col, "YAML syntax error: a tab in the indentation; YAML does not allow tabs "
                                          "for indentation, indent with spaces"),
                  "case %zu: %u:%u %s", i, p.d.items[0].line, p.d.items[0].col, p.d.items[0].msg);
        done(&p);
    }
    /* a tab that separates, not indents, is no error */
    parsed p;
    parse(&p, "a:\t1\nb: [1,\t2]\n");
    cr_assert(p.ok, "%s", p.d.n ? p.d.items[0].msg : "");
    done(&p);
}

Test(ydoc, unknown_tags_are_refused)
{
    parsed p;
    parse(&p, "a: !custom 3\n");
    cr_assert_not(p.ok);
    cr_assert(error_at(&p, 1, 4, "unsupported YAML tag"));
    done(&p);
}

/* ---- scalar resolution ---- */

static ydoc_type type_of(const char *yaml_value)
{
    char yaml[256];
    snprintf(yaml, sizeof yaml, "v: %s\n", yaml_value);
    parsed p;
    parse(&p, yaml);
    cr_assert(p.ok, "%s", yaml_value);
    ydoc_type t = ydoc_scalar_type(ydoc_get(p.root, "v"));
    done(&p);
    return t;
}

Test(ydoc_scalar, plain_scalars_resolve_by_the_yaml_1_2_core_schema)
{
    static const struct {
        const char *text;
        ydoc_type type;
    } cases[] = {
        {"~", YDOC_NULL},     {"null", YDOC_NULL},  {"", YDOC_NULL},       {"true", YDOC_BOOL},
        {"FALSE", YDOC_BOOL}, {"yes", YDOC_STR},    {"off", YDOC_STR},     {"12", YDOC_INT},
        {"-3", YDOC_INT},     {"+4", YDOC_INT},     {"0x1F", YDOC_INT},    {"0o17", YDOC_INT},
        {"1_000", YDOC_INT},  {"1__0", YDOC_STR},   {"1_", YDOC_STR},      {"0x", YDOC_STR},
        {"1.5", YDOC_FLOAT},  {"1e3", YDOC_FLOAT},  {".5", YDOC_FLOAT},    {"1.", YDOC_FLOAT},
        {"1e", YDOC_STR},     {".inf", YDOC_FLOAT}, {"-.Inf", YDOC_FLOAT}, {".NaN", YDOC_FLOAT},
        {"nan", YDOC_STR},    {"'12'", YDOC_STR},   {"\"true\"", YDOC_STR}, {"1F1B", YDOC_STR},
        {"- x", YDOC_STR},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (strcmp(cases[i].text, "- x") == 0)
            continue; /* a sequence, not a scalar: covered elsewhere */
        cr_expect_eq(type_of(cases[i].text), cases[i].type, "%s: got %s, want %s", cases[i].text,
                     ydoc_type_name(type_of(cases[i].text)), ydoc_type_name(cases[i].type));
    }
}

static bool int_of(const char *text, bool *neg, uint64_t *mag)
{
    char yaml[256];
    snprintf(yaml, sizeof yaml, "v: %s\n", text);
    parsed p;
    parse(&p, yaml);
    bool ok = ydoc_scalar_int(ydoc_get(p.root, "v"), neg, mag);
    done(&p);
    return ok;
}

Test(ydoc_scalar, integers_decode_in_every_base_and_overflow_is_detected)
{
    bool neg;
    uint64_t v;
    cr_assert(int_of("0x1F", &neg, &v) && v == 31 && !neg);
    cr_assert(int_of("0o17", &neg, &v) && v == 15);
    cr_assert(int_of("010", &neg, &v) && v == 10); /* decimal, not octal */
    cr_assert(int_of("-3", &neg, &v) && v == 3 && neg);
    cr_assert(int_of("525_336_576", &neg, &v) && v == 525336576);
    cr_assert(int_of("18446744073709551615", &neg, &v) && v == UINT64_MAX);
    cr_assert_not(int_of("18446744073709551616", &neg, &v));
    cr_assert_not(int_of("0x10000000000000000", &neg, &v));
}

static bool float_of(const char *text, double *v)
{
    char yaml[256];
    snprintf(yaml, sizeof yaml, "v: %s\n", text);
    parsed p;
    parse(&p, yaml);
    bool ok = ydoc_scalar_float(ydoc_get(p.root, "v"), v);
    done(&p);
    return ok;
}

Test(ydoc_scalar, floats_decode_and_out_of_range_values_are_refused)
{
    double v;
    cr_assert(float_of("2.5e1", &v) && v == 25.0);
    cr_assert(float_of("-.inf", &v) && isinf(v) && v < 0);
    cr_assert(float_of(".nan", &v) && isnan(v));
    cr_assert_not(float_of("1e400", &v));
    cr_assert_not(float_of("1e-400", &v));
}

/* Found by fuzzing: an empty collection closed before any node was pending
 * did pointer arithmetic on NULL (UBSan: "applying zero offset to null pointer"). */
Test(ydoc, empty_collection_before_any_other_node)
{
    static const char *const docs[] = {"[]", "{}", "- - - []\n", "- - - {}\n- x\n"};
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        parsed p;
        parse(&p, docs[i]);
        cr_assert(p.ok, "%s", docs[i]);
        done(&p);
    }
}
