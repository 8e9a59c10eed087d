/* spec: valid specs become the expected struct; every class of invalid spec
 * is refused with its position and a message naming the problem. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specbuf.h"

/* A small valid spec; tests replace one line of it to break one thing, so
 * every expected position is known from this listing. */
static const char *const base_lines[] = {
    "tfc: 1",                                                         /* 1 */
    "name: t",                                                        /* 2 */
    "model:",                                                         /* 3 */
    "  stages:",                                                      /* 4 */
    "    - params: [{name: a, numel: 10}]",                           /* 5 */
    "    - params: [{name: b, numel: 20}, {name: c, numel: 30}]",     /* 6 */
    "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 4}",          /* 7 */
    "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}", /* 8 */
};
enum { BASE_LINES = sizeof base_lines / sizeof *base_lines };

/* The base spec with line `line` (1-based) replaced by text (which may hold
 * several lines, or be empty to delete it); line 0 appends text. */
static char *spec_with(unsigned line, const char *text)
{
    size_t cap = strlen(text) + 1024;
    char *out = malloc(cap);
    size_t o = 0;
    for (unsigned i = 1; i <= BASE_LINES; i++) {
        const char *l = i == line ? text : base_lines[i - 1];
        if (i == line && !*text)
            continue;
        o += (size_t)snprintf(out + o, cap - o, "%s\n", l);
    }
    if (line == 0)
        snprintf(out + o, cap - o, "%s\n", text);
    return out;
}

static void load_with(loaded *l, unsigned line, const char *text)
{
    char *yaml = spec_with(line, text);
    load_str(l, yaml);
    free(yaml);
}

#define EXPECT_ERROR(l, line, col, frag) \
    cr_assert(has_error(l, line, col, frag), "want %u:%u \"%s\", got:\n%s", line, col, frag, (l)->dump)

static char *read_file(const char *path)
{
    char *b = read_text_file(path);
    cr_assert_not_null(b, "%s", path);
    return b;
}

/* ---- valid specs ---- */

Test(spec_valid, base_spec_loads_with_documented_defaults)
{
    loaded l;
    load_with(&l, 99, "");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    const spec *s = l.s;
    cr_assert_str_eq(s->name, "t");
    cr_assert_eq(s->version, 1);
    cr_assert_eq(s->schedule, SCHED_1F1B);
    cr_assert_eq(s->ranks, 2);
    cr_assert_eq(s->stages_per_rank, 1);
    cr_assert_eq(s->microbatches, 4);
    cr_assert_eq(s->n_stages, 2);
    cr_assert_eq(s->n_params, 3);
    cr_assert_eq(s->numel, 60);
    cr_assert_str_eq(s->stages[0].name, "stage0");
    cr_assert_str_eq(s->stages[1].params[1].name, "c");
    cr_assert_eq(s->stages[1].numel, 50);
    /* Scalars broadcast to every stage. */
    cr_assert(s->timing.forward_ms[0] == 1.0 && s->timing.forward_ms[1] == 1.0);
    cr_assert(s->timing.backward_ms[1] == 2.0);
    cr_assert_null(s->timing.backward_input_ms);
    cr_assert(s->timing.comm_ms == 0.0);
    /* No freeze section: no freezing. */
    cr_assert(s->freeze.max_ratio == 0.0);
    cr_assert_eq(s->freeze.warmup_steps, 1000);
    cr_assert_eq(s->freeze.ramp_steps, 3000);
    cr_assert_eq(s->freeze.reselect_every, 10);
    cr_assert_eq(s->freeze.select, SPEC_DEFAULT_SELECT);
    cr_assert(s->stages[1].params[0].freeze_weight == 1.0 && !s->stages[1].params[0].has_freeze_weight);
    cr_assert(s->targets.c && s->targets.cuda);
    cr_assert_str_eq(s->targets.cuda_arch, "sm_90");
    cr_assert_not(s->lcp_index.enabled);
    loaded_free(&l);
}

Test(spec_valid, default_spec_matches_llama3_8b)
{
    char *yaml = read_file(TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml");
    loaded l;
    load_str(&l, yaml);
    free(yaml);
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    const spec *s = l.s;
    cr_assert_str_eq(s->name, "llama8b_1f1b");
    cr_assert_eq(s->schedule, SCHED_1F1B);
    cr_assert(s->ranks == 4 && s->stages_per_rank == 1 && s->n_stages == 4 && s->microbatches == 8);
    /* LLaMA-3-8B from its published shape: dim 4096, 32 layers, 8 KV heads of
     * 128, FFN 14336, vocabulary 128256, untied output. */
    const uint64_t dim = 4096, kv = 8 * 128, ffn = 14336, vocab = 128256;
    const uint64_t layer = 2 * dim * dim + 2 * kv * dim + 3 * ffn * dim + 2 * dim;
    cr_assert_eq(s->numel, 2 * vocab * dim + 32 * layer + dim);
    cr_assert_eq(s->numel, UINT64_C(8030261248)); /* the published 8.03B */
    cr_assert_eq(s->n_params, 1 + 32 * 9 + 2);
    cr_assert_eq(s->stages[0].numel, vocab * dim + 8 * layer);
    cr_assert_eq(s->stages[3].numel, vocab * dim + 8 * layer + dim);
    /* Issue #2: the last stage is the slowest; backward = 2 x forward; frozen = forward. */
    for (size_t i = 0; i < 4; i++) {
        cr_assert(s->timing.forward_ms[i] <= s->timing.forward_ms[3]);
        cr_assert(s->timing.backward_ms[i] == 2 * s->timing.forward_ms[i]);
        cr_assert(s->timing.backward_frozen_ms[i] == s->timing.forward_ms[i]);
    }
    cr_assert(s->timing.forward_ms[3] > s->timing.forward_ms[0]);
    cr_assert(s->freeze.max_ratio == 0.9);
    cr_assert_eq(s->freeze.seed, 42);
    cr_assert(s->lcp_index.enabled && s->lcp_index.token_bytes == 4 && s->lcp_index.seq_len == 1024 &&
              s->lcp_index.topk == 8);
    loaded_free(&l);
}

Test(spec_valid, full_schema_round_trips_every_key)
{
    loaded l;
    load_str(&l, "tfc: 1\n"
                 "name: zb\n"
                 "model:\n"
                 "  stages:\n"
                 "    - {name: first, params: [{name: w0, numel: 0x10}]}\n"
                 "    - {name: second, params: [{name: w1, numel: 1_000}]}\n"
                 "pipeline: {schedule: ZBH1, ranks: 2, stages_per_rank: 1, microbatches: 65536}\n"
                 "timing:\n"
                 "  forward_ms: [1.5, 2]\n"
                 "  backward_input_ms: [1, 1]\n"
                 "  backward_weight_ms: [0.5, 0]\n"
                 "  comm_ms: 0.25\n"
                 "freeze: {max_ratio: 1, warmup_steps: 0, ramp_steps: 0, reselect_every: 1,\n"
                 "         seed: 18446744073709551615}\n"
                 "targets: {c: false, cuda: {enabled: true, arch: sm_80}}\n"
                 "data: {lcp_index: {token_bytes: 4, seq_len: 1048576, topk: 1024}}\n");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    const spec *s = l.s;
    cr_assert_eq(s->schedule, SCHED_ZBH1);
    cr_assert_eq(s->microbatches, 65536);
    cr_assert_eq(s->stages[0].params[0].numel, 16);
    cr_assert_eq(s->stages[1].params[0].numel, 1000);
    cr_assert_str_eq(s->stages[1].name, "second");
    cr_assert(s->timing.forward_ms[0] == 1.5 && s->timing.backward_weight_ms[1] == 0.0);
    cr_assert(s->timing.comm_ms == 0.25);
    cr_assert_null(s->timing.backward_ms);
    cr_assert(s->freeze.max_ratio == 1.0 && s->freeze.reselect_every == 1);
    cr_assert_eq(s->freeze.seed, UINT64_MAX);
    cr_assert(!s->targets.c && s->targets.cuda);
    cr_assert_str_eq(s->targets.cuda_arch, "sm_80");
    cr_assert(s->lcp_index.token_bytes == 4 && s->lcp_index.seq_len == 1048576 && s->lcp_index.topk == 1024);
    loaded_free(&l);
}

Test(spec_valid, cuda_false_is_short_for_disabled)
{
    loaded l;
    load_with(&l, 0, "targets: {cuda: false}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    cr_assert_not(l.s->targets.cuda);
    loaded_free(&l);
}

Test(spec_valid, small_aliases_are_allowed)
{
    loaded l;
    load_with(&l, 8, "timing: {forward_ms: &f [1, 2], backward_ms: [2, 4], backward_frozen_ms: *f}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    cr_assert(l.s->timing.backward_frozen_ms[1] == 2.0);
    loaded_free(&l);
}

Test(spec_valid, interleaved_and_zbv_accept_their_stage_shapes)
{
    loaded l;
    load_str(&l, "tfc: 1\nname: v\nmodel:\n  stages:\n"
                 "    - params: [{name: a, numel: 1}]\n    - params: [{name: a, numel: 1}]\n"
                 "    - params: [{name: a, numel: 1}]\n    - params: [{name: a, numel: 1}]\n"
                 "pipeline: {schedule: ZBV, ranks: 2, stages_per_rank: 2, microbatches: 4}\n"
                 "timing: {forward_ms: 1, backward_input_ms: 1, backward_weight_ms: 1}\n");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    cr_assert_eq(l.s->n_stages, 4);
    loaded_free(&l);
}

/* ---- rejections: one class each ---- */

Test(spec_invalid, unknown_key_suggests_the_nearest_known_key)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: 2, microbatch: 4}");
    cr_assert_eq(l.status, TFC_INVALID);
    EXPECT_ERROR(&l, 7, 38, "unknown key \"microbatch\" in pipeline; did you mean 'microbatches'?");
    loaded_free(&l);
}

Test(spec_invalid, unknown_top_level_key)
{
    loaded l;
    load_with(&l, 0, "optimiser: adam");
    EXPECT_ERROR(&l, 9, 1, "unknown key \"optimiser\"");
    loaded_free(&l);
}

Test(spec_invalid, duplicate_key)
{
    loaded l;
    load_with(&l, 2, "name: t\nname: u");
    EXPECT_ERROR(&l, 3, 1, "duplicate key \"name\"");
    loaded_free(&l);
}

/* Every stage's activations over every microbatch bound any rank's peak;
 * past 2^63 bytes tfc's 64-bit counts would wrap (2^50 x 2^13 = 2^63 is the
 * last total that fits; plans printed a wrapped peak before). */
Test(spec_invalid, activation_bytes_past_what_a_rank_can_count)
{
    const char *fmt = "tfc: 1\nname: a\nmodel:\n  stages:\n    - params: [{name: w, numel: 1}]\n"
                      "      activation_bytes: 1125899906842624\n"
                      "pipeline: {schedule: GPipe, ranks: 1, microbatches: %u}\n"
                      "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n";
    char yaml[512];
    loaded l;
    snprintf(yaml, sizeof yaml, fmt, 8192u);
    load_str(&l, yaml);
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    loaded_free(&l);
    snprintf(yaml, sizeof yaml, fmt, 8193u);
    load_str(&l, yaml);
    EXPECT_ERROR(&l, 5, 7, "the activations of all 8193 microbatches of stage 0 pass 2^63 bytes");
    loaded_free(&l);
}

Test(spec_invalid, negative_ranks_reads_like_the_issue_example)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: -3, microbatches: 4}");
    EXPECT_ERROR(&l, 7, 35, "pipeline.ranks must be an integer from 1 to 1024, got \"-3\"");
    loaded_free(&l);
}

Test(spec_invalid, wrong_type_for_an_integer)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: four, microbatches: 4}");
    EXPECT_ERROR(&l, 7, 35, "pipeline.ranks must be an integer, got string \"four\"");
    loaded_free(&l);
}

Test(spec_invalid, quoted_number_is_a_string_and_the_message_says_so)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: \"2\", microbatches: 4}");
    EXPECT_ERROR(&l, 7, 35, "quoted values are strings");
    loaded_free(&l);
    /* tagged, not quoted: the message says which */
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: !!str 2, microbatches: 4}");
    EXPECT_ERROR(&l, 7, 35, "got string \"2\" (a tagged value is a string)");
    loaded_free(&l);
}

Test(spec_invalid, float_where_an_integer_is_required)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 4.5}");
    EXPECT_ERROR(&l, 7, 52, "pipeline.microbatches must be an integer, got number \"4.5\"");
    loaded_free(&l);
}

Test(spec_invalid, integer_overflow)
{
    loaded l;
    load_with(&l, 5, "    - params: [{name: a, numel: 99999999999999999999999}]");
    EXPECT_ERROR(&l, 5, 33, "numel must be an integer from 1 to 281474976710656");
    loaded_free(&l);
}

Test(spec_invalid, nan_infinity_and_1e400_are_not_finite)
{
    loaded l;
    load_with(&l, 8, "timing: {forward_ms: [.nan, .inf], backward_ms: 1e400, backward_frozen_ms: 4.9e-324}");
    EXPECT_ERROR(&l, 8, 23, "timing.forward_ms[0] must be a finite number, got \".nan\"");
    EXPECT_ERROR(&l, 8, 29, "timing.forward_ms[1] must be a finite number, got \".inf\"");
    EXPECT_ERROR(&l, 8, 49, "timing.backward_ms is out of the range of a double (0, or a magnitude from "
                            "2.2250738585072014e-308 to 1.7976931348623157e308), got \"1e400\"");
    /* a subnormal is refused too, and the message says what range is taken */
    EXPECT_ERROR(&l, 8, 76, "timing.backward_frozen_ms is out of the range of a double (0, or a magnitude from "
                            "2.2250738585072014e-308 to 1.7976931348623157e308), got \"4.9e-324\"");
    loaded_free(&l);
}

Test(spec_invalid, negative_and_zero_durations)
{
    loaded l;
    load_with(&l, 8, "timing: {forward_ms: [0, 1], backward_ms: [2, -2], backward_frozen_ms: 1}");
    EXPECT_ERROR(&l, 8, 23, "timing.forward_ms[0] must be a number above 0");
    EXPECT_ERROR(&l, 8, 47, "timing.backward_ms[1] must be a number above 0");
    loaded_free(&l);
}

Test(spec_invalid, timing_array_length_must_match_the_stage_count)
{
    loaded l;
    load_with(&l, 8, "timing: {forward_ms: [1, 1, 1], backward_ms: 2, backward_frozen_ms: 1}");
    EXPECT_ERROR(&l, 8, 22, "timing.forward_ms has 3 entries, but the pipeline has 2 stages");
    loaded_free(&l);
}

Test(spec_invalid, stage_count_must_be_ranks_times_stages_per_rank)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: 3, microbatches: 4}");
    EXPECT_ERROR(&l, 5, 5, "model.stages lists 2 stages, but pipeline.ranks x pipeline.stages_per_rank = 3 x 1 = 3");
    loaded_free(&l);
}

Test(spec_invalid, frozen_backward_longer_than_backward)
{
    loaded l;
    load_with(&l, 8, "timing: {forward_ms: 1, backward_ms: [2, 2], backward_frozen_ms: [1, 3]}");
    EXPECT_ERROR(&l, 8, 70, "timing.backward_frozen_ms[1] = 3 is longer than timing.backward_ms[1] = 2");
    loaded_free(&l);
}

Test(spec_invalid, name_must_be_a_c_identifier)
{
    loaded l;
    load_with(&l, 2, "name: 8-bit");
    EXPECT_ERROR(&l, 2, 7, "name must be a C identifier");
    loaded_free(&l);
    load_with(&l, 2, "name: __x");
    EXPECT_ERROR(&l, 2, 7, "reserved in C");
    loaded_free(&l);
    load_with(&l, 2, "name: struct");
    EXPECT_ERROR(&l, 2, 7, "C keyword");
    loaded_free(&l);
    /* '_' and a small letter, or '_' alone: loaded (specs that compiled
     * keep compiling), with a warning that the capitalised macros are
     * reserved (_A_H, __H); a letter first, no warning */
    const char *under[] = {"name: _a", "name: _", "name: ab"};
    for (size_t i = 0; i < 3; i++) {
        load_with(&l, 2, under[i]);
        cr_assert_not_null(l.s, "%s: %s", under[i], l.dump);
        cr_assert_eq(strstr(l.dump, "starts with '_'") != NULL, i < 2, "%s: %s", under[i], l.dump);
        cr_assert(i < 2 ? l.d.n >= 1 : l.d.n == 0, "%s: %s", under[i], l.dump);
        loaded_free(&l);
    }
    /* Loaded with a warning too: '__' in a generated symbol (reserved in
     * C++: "a_" makes a__stage0), and a name that is another spec's stage
     * prefix (x_stage0's files and symbols are spec x's stage 0's). */
    const char *warned[][2] = {{"name: a_", "C++ reserves"}, {"name: a__b", "C++ reserves"},
                               {"name: x_stage0",
                                "ends like a stage's files (NAME_stage<S>): vendored beside spec \"x\""},
                               {"name: x_stage12", "vendored beside spec \"x\""}};
    for (size_t i = 0; i < 4; i++) {
        load_with(&l, 2, warned[i][0]);
        cr_assert_not_null(l.s, "%s: %s", warned[i][0], l.dump);
        cr_assert(l.d.n == 1 && l.d.items[0].warning, "%s: %s", warned[i][0], l.dump);
        EXPECT_ERROR(&l, 2, 7, warned[i][1]);
        loaded_free(&l);
    }
    const char *quiet[] = {"name: x_stage", "name: x_stage0a", "name: stage0", "name: llama8b_1f1b"};
    for (size_t i = 0; i < 4; i++) {
        load_with(&l, 2, quiet[i]);
        cr_assert(l.s && l.d.n == 0, "%s: %s", quiet[i], l.dump);
        loaded_free(&l);
    }
    load_with(&l, 2, "name: \"a\\nb\"");
    EXPECT_ERROR(&l, 2, 7, "control characters");
    loaded_free(&l);
}

Test(spec_invalid, name_longer_than_64_bytes)
{
    char line[128] = "name: ";
    memset(line + 6, 'n', 65);
    loaded l;
    load_with(&l, 2, line);
    EXPECT_ERROR(&l, 2, 7, "is 65 bytes long, more than the limit of 64");
    loaded_free(&l);
}

Test(spec_invalid, parameter_names_with_control_characters)
{
    loaded l;
    load_with(&l, 5, "    - params: [{name: \"a\\x01b\", numel: 10}]");
    EXPECT_ERROR(&l, 5, 23, "model.stages[0].params[0].name must not contain control characters, got \"a\\u0001b\"");
    loaded_free(&l);
    load_with(&l, 5, "    - params: [{name: \"a\\0b\", numel: 10}]");
    EXPECT_ERROR(&l, 5, 23, "control characters");
    loaded_free(&l);
}

Test(spec_invalid, duplicate_parameter_and_stage_names)
{
    loaded l;
    load_with(&l, 6, "    - params: [{name: b, numel: 20}, {name: b, numel: 30}]");
    EXPECT_ERROR(&l, 6, 45, "duplicate parameter name in this stage \"b\"");
    loaded_free(&l);
    /* An explicit name may not take the default name of another stage. */
    load_with(&l, 6, "    - {name: stage0, params: [{name: a, numel: 1}]}");
    EXPECT_ERROR(&l, 6, 14, "duplicate stage name \"stage0\"");
    loaded_free(&l);
}

Test(spec_invalid, missing_required_key_points_at_its_mapping)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: 2}");
    EXPECT_ERROR(&l, 7, 11, "missing required key pipeline.microbatches");
    loaded_free(&l);
}

Test(spec_invalid, unsupported_version)
{
    loaded l;
    load_with(&l, 1, "tfc: 2");
    EXPECT_ERROR(&l, 1, 6, "unsupported spec version \"2\"; this tfc reads version 1");
    loaded_free(&l);
    /* not "an integer from 0 to 2^64 - 1": only 1 is a version */
    load_with(&l, 1, "tfc: -1");
    EXPECT_ERROR(&l, 1, 6, "unsupported spec version \"-1\"; this tfc reads version 1");
    loaded_free(&l);
    load_with(&l, 1, "tfc: \"1\"");
    EXPECT_ERROR(&l, 1, 6, "tfc must be an integer, got string \"1\" (quoted values are strings)");
    loaded_free(&l);
}

Test(spec_invalid, schedule_typo_lists_the_choices_and_suggests_one)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1f1b, ranks: 2, microbatches: 4}");
    EXPECT_ERROR(&l, 7, 22, "must be one of GPipe, 1F1B, Interleaved1F1B, ZBH1, ZBV, LoopedBFS, DualPipeV, custom, got \"1f1b\"; "
                           "did you mean '1F1B'?");
    loaded_free(&l);
}

Test(spec_invalid, schedule_shape_rules)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: GPipe, ranks: 1, stages_per_rank: 2, microbatches: 4}");
    EXPECT_ERROR(&l, 7, 56, "runs one stage per rank");
    loaded_free(&l);
    load_with(&l, 7, "pipeline: {schedule: Interleaved1F1B, ranks: 2, microbatches: 4}");
    EXPECT_ERROR(&l, 7, 46, "stages_per_rank must be at least 2");
    loaded_free(&l);
}

Test(spec_invalid, custom_needs_order_and_only_custom_takes_it)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: custom, ranks: 2, microbatches: 4}");
    EXPECT_ERROR(&l, 7, 11, "missing required key pipeline.order");
    loaded_free(&l);
    load_with(&l, 7, "pipeline: {schedule: GPipe, ranks: 2, microbatches: 4, order: o.csv}");
    EXPECT_ERROR(&l, 7, 63, "pipeline.order is only read with schedule: custom");
    loaded_free(&l);
}

Test(spec_invalid, split_schedule_needs_input_and_weight_timings)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: ZBH1, ranks: 2, microbatches: 4}");
    EXPECT_ERROR(&l, 8, 9, "needs backward_input_ms and backward_weight_ms");
    loaded_free(&l);
}

Test(spec_invalid, bad_cuda_arch_and_token_width)
{
    loaded l;
    load_with(&l, 0, "targets: {cuda: {arch: sm_9}}\ndata: {lcp_index: {token_bytes: 3, seq_len: 8}}");
    EXPECT_ERROR(&l, 9, 24, "targets.cuda.arch must be one of sm_75");
    EXPECT_ERROR(&l, 10, 33, "token_bytes must be 2 or 4, got \"3\"");
    loaded_free(&l);
}

Test(spec_invalid, bool_field_refuses_yaml_1_1_yes)
{
    loaded l;
    load_with(&l, 0, "targets: {c: yes}");
    EXPECT_ERROR(&l, 9, 14, "targets.c must be true or false, got string \"yes\"");
    loaded_free(&l);
}

Test(spec_invalid, freeze_ratio_outside_zero_to_one)
{
    loaded l;
    load_with(&l, 0, "freeze: {max_ratio: 1.5}");
    EXPECT_ERROR(&l, 9, 21, "freeze.max_ratio must be a number of at least 0 and at most 1, got \"1.5\"");
    loaded_free(&l);
}

/* The base spec with line 6 replaced by stage1 and select: weights appended. */
static void load_weighted(loaded *l, const char *stage1)
{
    char *yaml = spec_with(6, stage1);
    size_t n = strlen(yaml);
    char *both = malloc(n + 64);
    cr_assert_not_null(both);
    memcpy(both, yaml, n);
    strcpy(both + n, "freeze: {max_ratio: 0.5, select: weights}\n");
    load_str(l, both);
    free(both);
    free(yaml);
}

Test(spec_valid, every_selection_rule_and_freeze_weights)
{
    static const char *const names[] = {"uniform", "front_first", "balanced", "weights"};
    static const spec_select rules[] = {SELECT_UNIFORM, SELECT_FRONT_FIRST, SELECT_BALANCED, SELECT_WEIGHTS};
    for (size_t i = 0; i < 4; i++) {
        char line[96];
        snprintf(line, sizeof line, "freeze: {max_ratio: 0.5, select: %s}", names[i]);
        loaded l;
        load_with(&l, 0, line);
        cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
        cr_assert_eq(l.s->freeze.select, rules[i]);
        cr_assert_str_eq(spec_select_name(rules[i]), names[i]);
        loaded_free(&l);
    }
    loaded l;
    load_weighted(&l, "    - params: [{name: b, numel: 20, freeze_weight: 0}, {name: c, numel: 30, freeze_weight: 2.5}]");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    const spec_param *b = &l.s->stages[1].params[0], *c = &l.s->stages[1].params[1];
    cr_assert(b->freeze_weight == 0.0 && b->has_freeze_weight && c->freeze_weight == 2.5);
    cr_assert(l.s->stages[0].params[0].freeze_weight == 1.0 && !l.s->stages[0].params[0].has_freeze_weight);
    loaded_free(&l);
}

Test(spec_invalid, selection_rule_typo_and_weights_without_the_weights_rule)
{
    loaded l;
    load_with(&l, 0, "freeze: {max_ratio: 0.5, select: balance}");
    EXPECT_ERROR(&l, 9, 34, "freeze.select must be one of uniform, front_first, balanced, weights");
    cr_assert(strstr(l.dump, "balanced"), "the choices are listed: %s", l.dump);
    loaded_free(&l);
    /* freeze_weight would be ignored by any other rule: refused at its position. */
    load_with(&l, 6, "    - params: [{name: b, numel: 20, freeze_weight: 2}, {name: c, numel: 30}]");
    EXPECT_ERROR(&l, 6, 52, "freeze_weight is used only with freeze.select: weights");
    loaded_free(&l);
    load_weighted(&l, "    - params: [{name: b, numel: 20, freeze_weight: -1}, {name: c, numel: 30}]");
    EXPECT_ERROR(&l, 6, 52, "freeze_weight must be a number of at least 0");
    loaded_free(&l);
}

Test(spec_limits, stage_elements_past_2_to_the_60_are_refused_at_the_tensor)
{
    /* 4,097 tensors of 2^48 elements: 2^60 + 2^48 in one stage. */
    size_t cap = 4200 * 64 + 1024, o = 0;
    char *yaml = malloc(cap);
    cr_assert_not_null(yaml);
    o += (size_t)snprintf(yaml + o, cap - o, "tfc: 1\nname: t\nmodel:\n  stages:\n    - params:\n");
    for (int i = 0; i < 4097; i++)
        o += (size_t)snprintf(yaml + o, cap - o, "      - {name: w%d, numel: 281474976710656}\n", i);
    snprintf(yaml + o, cap - o, "pipeline: {schedule: GPipe, ranks: 1, microbatches: 2}\n"
                                "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n");
    loaded l;
    load_str(&l, yaml);
    free(yaml);
    EXPECT_ERROR(&l, 4102, 9, "the stage's tensors add up to more than 2^60 elements");
    loaded_free(&l);
}

Test(spec_invalid, freeze_weight_below_the_fixed_point_unit)
{
    loaded l;
    load_weighted(&l, "    - params: [{name: b, numel: 20, freeze_weight: 1e-6}, {name: c, numel: 30}]");
    EXPECT_ERROR(&l, 6, 52, "must be 0 or at least 1/65536");
    loaded_free(&l);
}

Test(spec_invalid, independent_errors_are_all_reported_in_one_run)
{
    loaded l;
    char *yaml = spec_with(2, "name: 9x");
    char *yaml2 = malloc(strlen(yaml) + 200);
    sprintf(yaml2, "%sfreeze: {max_ratio: -1, reselect_every: 0}\ntargets: {c: 1}\n", yaml);
    load_str(&l, yaml2);
    free(yaml);
    free(yaml2);
    cr_assert_eq(l.d.n, 4, "%s", l.dump);
    EXPECT_ERROR(&l, 2, 7, "C identifier");
    EXPECT_ERROR(&l, 9, 21, "max_ratio");
    EXPECT_ERROR(&l, 9, 41, "reselect_every");
    EXPECT_ERROR(&l, 10, 14, "targets.c");
    loaded_free(&l);
}

Test(spec_invalid, dependent_errors_are_not_reported_twice)
{
    /* With ranks invalid the stage count is unknown: no length errors follow. */
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: 0, microbatches: 4}");
    cr_assert_eq(l.d.n, 1, "%s", l.dump);
    loaded_free(&l);
}

/* ---- not a spec at all ---- */

Test(spec_invalid, empty_file)
{
    loaded l;
    load_str(&l, "");
    EXPECT_ERROR(&l, 1, 1, "spec is empty");
    loaded_free(&l);
    load_str(&l, "\xEF\xBB\xBF"); /* BOM only */
    EXPECT_ERROR(&l, 1, 1, "spec is empty");
    loaded_free(&l);
}

Test(spec_valid, a_utf8_byte_order_mark_is_allowed_and_no_column)
{
    loaded l;
    load_with(&l, 1, "\xEF\xBB\xBFtfc: 1"); /* as editors on Windows save it */
    cr_assert_not_null(l.s, "%s", l.dump);
    cr_assert_eq(l.s->n_stages, 2);
    loaded_free(&l);
    load_with(&l, 1, "\xEF\xBB\xBFtfc: 2"); /* positions count from after the mark */
    EXPECT_ERROR(&l, 1, 6, "unsupported spec version \"2\"");
    loaded_free(&l);
    load_with(&l, 1, "\xEF\xBB\xBFtfc: 1\xC3"); /* and so do the bytes checked before parsing */
    EXPECT_ERROR(&l, 1, 7, "UTF-8");
    loaded_free(&l);
}

Test(spec_invalid, not_a_mapping)
{
    loaded l;
    load_str(&l, "- a\n- b\n");
    EXPECT_ERROR(&l, 1, 1, "must be a mapping");
    loaded_free(&l);
    load_str(&l, "just text\n");
    EXPECT_ERROR(&l, 1, 1, "must be a mapping");
    loaded_free(&l);
}

Test(spec_invalid, invalid_utf8_gets_a_line_and_column)
{
    loaded l;
    load_str(&l, "tfc: 1\nname: \xC3\xA9\xFF\n");
    EXPECT_ERROR(&l, 2, 8, "invalid UTF-8");
    loaded_free(&l);
}

Test(spec_invalid, nul_byte_gets_a_line_and_column)
{
    loaded l;
    char yaml[] = "tfc: 1\nname: t\n  x\0y\n";
    l.status = spec_load_buffer("t.yaml", yaml, sizeof yaml - 1, (arena_init(&l.a, 0), &l.a),
                                (diag_init(&l.d, 10), &l.d), &l.s);
    cr_assert_eq(l.status, TFC_INVALID);
    cr_assert_eq(l.d.items[0].line, 3);
    cr_assert_eq(l.d.items[0].col, 4);
    cr_assert(strstr(l.d.items[0].msg, "NUL byte") != NULL);
    loaded_free(&l);
}

Test(spec_invalid, utf16_is_refused_with_a_hint)
{
    loaded l;
    char yaml[] = "\xFF\xFEt\0f\0c\0";
    l.status = spec_load_buffer("t.yaml", yaml, sizeof yaml - 1, (arena_init(&l.a, 0), &l.a),
                                (diag_init(&l.d, 10), &l.d), &l.s);
    cr_assert_eq(l.status, TFC_INVALID);
    cr_assert(strstr(l.d.items[0].msg, "UTF-16") != NULL);
    loaded_free(&l);
}

Test(spec_invalid, merge_keys_are_refused_with_a_hint)
{
    loaded l;
    load_with(&l, 0, "freeze: {<<: {max_ratio: 0.5}}");
    EXPECT_ERROR(&l, 9, 10, "merge keys (<<) are not supported");
    loaded_free(&l);
}

/* ---- limits ---- */

Test(spec_limits, microbatches_at_and_past_the_limit)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 65536}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    loaded_free(&l);
    load_with(&l, 7, "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 65537}");
    EXPECT_ERROR(&l, 7, 52, "from 1 to 65536");
    loaded_free(&l);
}

Test(spec_limits, stage_count_past_the_limit)
{
    loaded l;
    load_with(&l, 7, "pipeline: {schedule: Interleaved1F1B, ranks: 512, stages_per_rank: 3, microbatches: 4}");
    EXPECT_ERROR(&l, 7, 68, "1536 stages, more than the limit of 1024");
    loaded_free(&l);
}

Test(spec_limits, numel_at_and_past_the_limit)
{
    loaded l;
    load_with(&l, 5, "    - params: [{name: a, numel: 281474976710656}]");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    loaded_free(&l);
    load_with(&l, 5, "    - params: [{name: a, numel: 281474976710657}]");
    EXPECT_ERROR(&l, 5, 33, "from 1 to 281474976710656");
    loaded_free(&l);
    load_with(&l, 5, "    - params: [{name: a, numel: 0}]");
    EXPECT_ERROR(&l, 5, 33, "from 1 to");
    loaded_free(&l);
}

Test(spec_limits, parameter_name_at_and_past_512_bytes)
{
    char line[700];
    for (int len = 512; len <= 513; len++) {
        int o = snprintf(line, sizeof line, "    - params: [{name: ");
        memset(line + o, 'p', (size_t)len);
        snprintf(line + o + len, sizeof line - (size_t)o - (size_t)len, ", numel: 1}]");
        loaded l;
        load_with(&l, 5, line);
        if (len == 512)
            cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
        else
            EXPECT_ERROR(&l, 5, 23, "513 bytes long, more than the limit of 512");
        loaded_free(&l);
    }
}

Test(spec_limits, parameter_tensor_count_past_the_limit_is_refused_before_reading_them)
{
    /* 1,000,001 tensors written out (about 30 MB of YAML). */
    size_t n = SPEC_MAX_PARAMS + 1;
    size_t cap = n * 40 + 1024;
    char *yaml = malloc(cap);
    size_t o = (size_t)snprintf(yaml, cap, "tfc: 1\nname: t\nmodel:\n  stages:\n    - params:\n");
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(yaml + o, cap - o, "      - {name: p%zu, numel: 1}\n", i);
    snprintf(yaml + o, cap - o, "pipeline: {schedule: 1F1B, ranks: 1, microbatches: 1}\n"
                                "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n");
    loaded l;
    load_str(&l, yaml);
    free(yaml);
    EXPECT_ERROR(&l, 5, 5, "1000001 parameter tensors, more than the limit of 1000000");
    loaded_free(&l);
}

/* ---- docs/spec.md and the schema say the same ---- */

Test(spec_docs, every_schema_key_is_documented_and_every_documented_key_exists)
{
    char *doc = read_file(TFC_SOURCE_DIR "/docs/spec.md");
    char key[128], quoted[160];
    size_t n = 0;
    for (; spec_schema_key(n, key, sizeof key); n++) {
        snprintf(quoted, sizeof quoted, "| `%s` |", key);
        cr_expect_not_null(strstr(doc, quoted), "docs/spec.md has no row for %s", key);
    }
    cr_assert_geq(n, 30);
    /* Each table row "| `key` | type | required | default | rule |" names a schema key. */
    size_t rows = 0;
    for (const char *p = doc; (p = strstr(p, "\n| `")); p++) {
        const char *start = p + 4, *end = strchr(start, '`');
        const char *eol = strchr(start, '\n');
        size_t cells = 0;
        for (const char *q = start; q < eol; q++)
            cells += *q == '|';
        if (!end || cells != 5) /* other tables have other widths */
            continue;
        snprintf(key, sizeof key, "%.*s", (int)(end - start), start);
        bool known = false;
        for (size_t i = 0; spec_schema_key(i, quoted, sizeof quoted); i++)
            known |= strcmp(quoted, key) == 0;
        cr_expect(known, "docs/spec.md documents %s, which the schema does not have", key);
        rows++;
    }
    cr_assert_eq(rows, n, "docs/spec.md has %zu key rows, the schema %zu keys", rows, n);
    free(doc);
}

Test(spec_invalid, weight_floor_longer_than_weight_gradient)
{
    loaded l;
    load_with(&l, 8, "timing: {forward_ms: 1, backward_input_ms: 1, backward_weight_ms: [1, 1],\n"
                     "         backward_weight_frozen_ms: [0.5, 2]}");
    EXPECT_ERROR(&l, 9, 43, "timing.backward_weight_frozen_ms[1] = 2 is longer than timing.backward_weight_ms[1] = 1");
    loaded_free(&l);
    load_with(&l, 8, "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1, backward_weight_frozen_ms: 0}");
    EXPECT_ERROR(&l, 8, 91, "needs timing.backward_weight_ms");
    loaded_free(&l);
}

/* ---- found in review ---- */

Test(spec_review, a_known_key_never_hides_a_missing_one)
{
    /* "numel" is two edits from "name": it must not pass for a typo of it. */
    loaded l;
    load_with(&l, 5, "    - params: [{numel: 10}]");
    EXPECT_ERROR(&l, 5, 16, "missing required key model.stages[0].params[0].name");
    loaded_free(&l);
    load_with(&l, 5, "    - params: [{name: a}]");
    EXPECT_ERROR(&l, 5, 16, "missing required key model.stages[0].params[0].numel");
    loaded_free(&l);
}

Test(spec_review, negative_overflowing_integer_is_refused)
{
    loaded l;
    load_with(&l, 0, "freeze: {max_ratio: 0.5, warmup_steps: -99999999999999999999999}");
    EXPECT_ERROR(&l, 9, 40, "freeze.warmup_steps must be an integer from 0 to");
    loaded_free(&l);
}

Test(spec_review, errors_about_an_alias_point_at_the_alias)
{
    loaded l;
    load_with(&l, 0, "k: &k freeze\nfreeze: {max_ratio: 0.5}\n*k : {max_ratio: 0.1}");
    EXPECT_ERROR(&l, 11, 1, "duplicate key \"freeze\"");
    loaded_free(&l);
}

/* A stage reused whole through an alias: its name is one node, so the
 * duplicate is said to come through the alias, not "first used here" at
 * the very same place. */
Test(spec_review, a_stage_used_twice_through_an_alias_says_so)
{
    loaded l;
    load_str(&l, "tfc: 1\nname: t\nmodel:\n  stages:\n    - &s {name: s0, params: [{name: a, numel: 1}]}\n"
                 "    - *s\npipeline: {schedule: 1F1B, ranks: 2, microbatches: 4}\n"
                 "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n");
    EXPECT_ERROR(&l, 5, 17, "duplicate stage name \"s0\": this entry is used twice, through an alias");
    cr_assert_null(strstr(l.dump, "first used here"), "%s", l.dump);
    loaded_free(&l);
}

Test(spec_review, a_number_too_long_to_read_says_so)
{
    char line[256] = "timing: {forward_ms: 1.";
    size_t o = strlen(line);
    memset(line + o, '0', 150);
    snprintf(line + o + 150, sizeof line - o - 150, ", backward_ms: 2, backward_frozen_ms: 1}");
    loaded l;
    load_with(&l, 8, line);
    EXPECT_ERROR(&l, 8, 22, "written with 152 characters");
    loaded_free(&l);
}

/* ---- training and freeze.max_ratio: auto ---- */

Test(spec_valid, training_section_reads_its_three_keys)
{
    loaded l;
    load_with(&l, 0, "freeze: {max_ratio: auto}\n"
                     "training: {batch_tokens: 1_048_576, noise_scale_tokens: 3e5, steps: 10000}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    cr_assert(l.s->training.present);
    cr_assert_eq(l.s->training.batch_tokens, 1048576);
    cr_assert(l.s->training.noise_scale_tokens == 3e5);
    cr_assert_eq(l.s->training.steps, 10000);
    cr_assert(l.s->freeze.max_ratio_auto && l.s->freeze.max_ratio == 0.0);
    loaded_free(&l);
    load_with(&l, 0, "freeze: {max_ratio: 0.5}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    cr_assert(!l.s->training.present && !l.s->freeze.max_ratio_auto);
    loaded_free(&l);
}

Test(spec_invalid, auto_without_training_says_what_it_needs)
{
    loaded l;
    load_with(&l, 0, "freeze: {max_ratio: auto}");
    EXPECT_ERROR(&l, 9, 21, "freeze.max_ratio: auto chooses the cap by predicted time to quality, which needs a "
                            "training section");
    loaded_free(&l);
    load_with(&l, 0, "freeze: {max_ratio: fast}");
    EXPECT_ERROR(&l, 9, 21, "freeze.max_ratio must be a number from 0 to 1, or auto, got \"fast\"");
    loaded_free(&l);
}

Test(spec_invalid, training_needs_every_key_in_range)
{
    loaded l;
    load_with(&l, 0, "training: {batch_tokens: 4096, steps: 100}");
    EXPECT_ERROR(&l, 9, 11, "noise_scale_tokens");
    loaded_free(&l);
    load_with(&l, 0, "training: {batch_tokens: 0, noise_scale_tokens: 10, steps: 100}");
    EXPECT_ERROR(&l, 9, 26, "training.batch_tokens");
    loaded_free(&l);
    load_with(&l, 0, "training: {batch_tokens: 8, noise_scale_tokens: 0, steps: 100}");
    EXPECT_ERROR(&l, 9, 49, "training.noise_scale_tokens must be a number above 0");
    loaded_free(&l);
    load_with(&l, 0, "training: {batch_tokens: 8, noise_scale_tokens: 1, steps: 1, batch: 3}");
    EXPECT_ERROR(&l, 9, 62, "unknown key \"batch\" in training");
    loaded_free(&l);
}

Test(spec_valid, training_optimizer_is_adam_unless_said)
{
    static const struct {
        const char *key;
        int want;
    } cases[] = {{"", SPEC_OPTIMIZER_ADAM},
                 {", optimizer: adam", SPEC_OPTIMIZER_ADAM},
                 {", optimizer: adamw", SPEC_OPTIMIZER_ADAM},
                 {", optimizer: sgd", SPEC_OPTIMIZER_SGD}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[160];
        snprintf(text, sizeof text, "training: {batch_tokens: 8, noise_scale_tokens: 1, steps: 1%s}", cases[i].key);
        loaded l;
        load_with(&l, 0, text);
        cr_assert_eq(l.status, TFC_OK, "%s: %s", text, l.dump);
        cr_assert_eq((int)l.s->training.optimizer, cases[i].want, "%s", text);
        loaded_free(&l);
    }
}

Test(spec_invalid, training_optimizer_names_the_choices)
{
    loaded l;
    load_with(&l, 0, "training: {batch_tokens: 8, noise_scale_tokens: 1, steps: 1, optimizer: adagrad}");
    EXPECT_ERROR(&l, 9, 73, "training.optimizer must be one of adam, sgd, adamw, got \"adagrad\"");
    loaded_free(&l);
    load_with(&l, 0, "training: {batch_tokens: 8, noise_scale_tokens: 1, steps: 1, optimizer: Adam}");
    EXPECT_ERROR(&l, 9, 73, "did you mean 'adam'?");
    loaded_free(&l);
}

Test(spec_valid, training_freeze_noise_scale_is_optional)
{
    loaded l;
    load_with(&l, 0, "training: {batch_tokens: 8, noise_scale_tokens: 1, steps: 1}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    cr_assert(isnan(l.s->training.freeze_noise_scale_tokens), "absent is NAN, not %g",
              l.s->training.freeze_noise_scale_tokens);
    loaded_free(&l);
    load_with(&l, 0, "training: {batch_tokens: 8, noise_scale_tokens: 1, steps: 1, freeze_noise_scale_tokens: 0.25}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    cr_assert_eq(l.s->training.freeze_noise_scale_tokens, 0.25);
    loaded_free(&l);
}

Test(spec_invalid, training_freeze_noise_scale_must_be_positive)
{
    loaded l;
    load_with(&l, 0, "training: {batch_tokens: 8, noise_scale_tokens: 1, steps: 1, freeze_noise_scale_tokens: 0}");
    EXPECT_ERROR(&l, 9, 89, "training.freeze_noise_scale_tokens must be a number above 0");
    loaded_free(&l);
    load_with(&l, 0, "training: {batch_tokens: 8, noise_scale_tokens: 1, steps: 1, freeze_noise_scale_token: 5}");
    EXPECT_ERROR(&l, 9, 62, "did you mean 'freeze_noise_scale_tokens'?");
    loaded_free(&l);
}

/* ---- timing.file and timing.frozen_file: one path or a list of paths ---- */

Test(spec_valid, timing_file_takes_a_list_of_paths_kept_in_the_order_written)
{
    loaded l;
    load_with(&l, 8, "timing: {source: trace, file: [r0.json, \"dir/r1.json\", r2.json], frozen_file: f.json}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    const spec_files *f = &l.s->timing.file, *ff = &l.s->timing.frozen_file;
    cr_assert_eq(f->n, 3);
    cr_assert(f->listed);
    cr_assert_str_eq(f->path[0], "r0.json");
    cr_assert_str_eq(f->path[1], "dir/r1.json");
    cr_assert_str_eq(f->path[2], "r2.json");
    cr_assert_eq(f->at.line, 8);
    cr_assert_eq(f->at.col, 31);
    const unsigned cols[] = {32, 41, 56};
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(f->pos[i].line, 8);
        cr_assert_eq(f->pos[i].col, cols[i], "path %zu at column %u", i, f->pos[i].col);
    }
    cr_assert_eq(ff->n, 1);
    cr_assert_not(ff->listed);
    cr_assert_str_eq(ff->path[0], "f.json");
    cr_assert_eq(ff->pos[0].col, 79);
    loaded_free(&l);
}

Test(spec_valid, timing_file_as_one_string_reads_as_it_always_did)
{
    loaded l;
    load_with(&l, 8, "timing: {source: measured, file: t.csv, frozen_file: f.csv}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    const spec_files *f = &l.s->timing.file;
    cr_assert_eq(f->n, 1);
    cr_assert_not(f->listed);
    cr_assert_str_eq(f->path[0], "t.csv");
    cr_assert_eq(f->pos[0].line, 8);
    cr_assert_eq(f->pos[0].col, 34);
    cr_assert_eq(f->at.col, 34);
    cr_assert_str_eq(l.s->timing.frozen_file.path[0], "f.csv");
    cr_assert_eq(l.s->timing.frozen_file.pos[0].col, 54);
    loaded_free(&l);
}

Test(spec_valid, block_lists_of_timing_files_keep_each_item_position)
{
    loaded l;
    load_with(&l, 8, "timing:\n  source: measured\n  file:\n    - r0.csv\n    - r1.csv\n  frozen_file: [f.csv]");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    const spec_files *f = &l.s->timing.file, *ff = &l.s->timing.frozen_file;
    cr_assert_eq(f->n, 2);
    cr_assert_str_eq(f->path[1], "r1.csv");
    cr_assert_eq(f->pos[0].line, 11);
    cr_assert_eq(f->pos[0].col, 7);
    cr_assert_eq(f->pos[1].line, 12);
    cr_assert_eq(f->pos[1].col, 7);
    cr_assert_eq(ff->n, 1);
    cr_assert(ff->listed, "a list of one path is still a list");
    cr_assert_eq(ff->pos[0].line, 13);
    cr_assert_eq(ff->pos[0].col, 17);
    loaded_free(&l);
}

Test(spec_valid, spec_inputs_lists_every_timing_path_file_before_frozen_file)
{
    loaded l;
    load_with(&l, 8, "timing: {source: measured, file: [r1.csv, r0.csv], frozen_file: [f1.csv, f0.csv, f2.csv]}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    const char **in;
    size_t n = spec_inputs(l.s, &l.a, &in);
    cr_assert_eq(n, 5);
    const char *want[] = {"r1.csv", "r0.csv", "f1.csv", "f0.csv", "f2.csv"};
    for (size_t i = 0; i < 5; i++)
        cr_assert_str_eq(in[i], want[i], "input %zu", i);
    loaded_free(&l);
}

/* The MANIFEST's input lines come from here: each input as written and as
 * resolved against the spec's folder, and the sha256 of the bytes a reader
 * read, recorded for the input at that resolved path only. */
Test(spec_valid, inputs_keep_the_path_as_written_and_the_sha256_of_what_was_read)
{
    char *yaml = spec_with(8, "timing: {source: measured, file: [r1.csv, /abs/r0.csv], frozen_file: f.csv}");
    arena a;
    arena_init(&a, 0);
    diag_list d;
    diag_init(&d, 10);
    const spec *s;
    cr_assert_eq(spec_load_buffer("dir/t.yaml", yaml, strlen(yaml), &a, &d, &s), TFC_OK);
    cr_assert_eq(s->n_inputs, 3);
    const char *written[] = {"r1.csv", "/abs/r0.csv", "f.csv"}, *path[] = {"dir/r1.csv", "/abs/r0.csv", "dir/f.csv"};
    for (size_t i = 0; i < 3; i++) {
        cr_assert_str_eq(s->inputs[i].written, written[i], "input %zu", i);
        cr_assert_str_eq(s->inputs[i].path, path[i], "input %zu", i);
        cr_assert_str_eq(s->inputs[i].sha256, "", "input %zu", i);
    }
    spec_input_read(s, "f.csv", "abc", 3); /* as written: not a path a reader reads */
    cr_assert_str_eq(s->inputs[2].sha256, "");
    spec_input_read(s, "dir/f.csv", "abc", 3);
    cr_assert_str_eq(s->inputs[2].sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    cr_assert_str_eq(s->inputs[0].sha256, "");
    cr_assert_str_eq(s->inputs[1].sha256, "");
    arena_free(&a);
    diag_free(&d);
    free(yaml);
}

/* One error, at line 8, column col, with fragment: nothing else reported. */
static void expect_only_error(const char *timing, unsigned col, const char *frag)
{
    loaded l;
    load_with(&l, 8, timing);
    cr_assert_eq(l.status, TFC_INVALID, "%s", l.dump);
    EXPECT_ERROR(&l, 8, col, frag);
    cr_assert_eq(l.d.n, 1, "one error, got:\n%s", l.dump);
    loaded_free(&l);
}

Test(spec_invalid, an_empty_timing_file_list_is_an_error_at_the_list)
{
    expect_only_error("timing: {source: measured, file: [], frozen_file: f.csv}", 34,
                      "timing.file must list at least one file");
}

Test(spec_invalid, a_timing_file_item_that_is_not_a_string_is_an_error_at_the_item)
{
    expect_only_error("timing: {source: measured, file: [a.csv, 7], frozen_file: f.csv}", 42,
                      "timing.file[1] must be a string, got integer \"7\"; quote it");
    expect_only_error("timing: {source: measured, file: [a.csv, \"\"], frozen_file: f.csv}", 42,
                      "timing.file[1] must not be empty");
    expect_only_error("timing: {source: measured, file: [a.csv, ~], frozen_file: f.csv}", 42,
                      "timing.file[1] must be a string, got null");
}

Test(spec_invalid, a_nested_timing_file_list_is_an_error_at_the_inner_list)
{
    expect_only_error("timing: {source: measured, file: [a.csv, [b.csv]], frozen_file: f.csv}", 42,
                      "timing.file[1] must be a string, got a sequence");
}

Test(spec_invalid, a_mapping_for_a_timing_file_says_what_the_key_takes)
{
    expect_only_error("timing: {source: measured, file: t.csv, frozen_file: {rank0: f.csv}}", 54,
                      "timing.frozen_file must be a path or a sequence of paths, got a mapping");
}

Test(spec_invalid, a_path_repeated_in_a_timing_file_list_is_an_error_at_the_repeat)
{
    loaded l;
    load_with(&l, 8, "timing: {source: measured, file: [a.csv, b.csv, a.csv], frozen_file: f.csv}");
    EXPECT_ERROR(&l, 8, 49, "duplicate timing.file path \"a.csv\"");
    cr_assert_eq(l.d.n, 1, "%s", l.dump);
    loaded_free(&l);
    /* The same file as both keys is fine (tfc's own timeline.json has both). */
    load_with(&l, 8, "timing: {source: trace, file: [a.json], frozen_file: [a.json]}");
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    loaded_free(&l);
}

Test(spec_limits, a_timing_file_path_past_4096_bytes_is_an_error_at_the_item)
{
    const char *head = "timing: {source: measured, file: t.csv, frozen_file: [f.csv, ";
    char *line = malloc(8192);
    size_t o = (size_t)snprintf(line, 8192, "%s", head);
    unsigned col = (unsigned)o + 1;
    memset(line + o, 'p', 4097);
    snprintf(line + o + 4097, 8192 - o - 4097, "]}");
    expect_only_error(line, col, "timing.frozen_file[1] is 4097 bytes long, more than the limit of 4096");
    free(line);
}

/* A timing line whose file lists n paths p0.csv, p1.csv, ...; *col_of_256
 * gets the column of the 257th path (0 if there is none). */
static char *list_of(unsigned n, unsigned *col_of_256)
{
    char *line = malloc(64 + 16 * (size_t)n);
    size_t o = (size_t)sprintf(line, "timing: {source: measured, frozen_file: f.csv, file: [");
    *col_of_256 = 0;
    for (unsigned i = 0; i < n; i++) {
        if (i == 256)
            *col_of_256 = (unsigned)o + 1;
        o += (size_t)sprintf(line + o, "p%u.csv%s", i, i + 1 < n ? ", " : "");
    }
    sprintf(line + o, "]}");
    return line;
}

Test(spec_limits, timing_file_lists_256_paths_and_no_more)
{
    unsigned col;
    char *line = list_of(256, &col);
    loaded l;
    load_with(&l, 8, line);
    cr_assert_eq(l.status, TFC_OK, "%s", l.dump);
    cr_assert_eq(l.s->timing.file.n, 256);
    cr_assert_str_eq(l.s->timing.file.path[255], "p255.csv");
    loaded_free(&l);
    free(line);
    line = list_of(300, &col);
    expect_only_error(line, col, "timing.file lists 300 files, more than the limit of 256");
    free(line);
}

/* ---- one cause, one error ---- */

Test(spec_review, a_misspelt_timing_key_is_one_error_with_its_hint)
{
    /* A misspelt backward_frozen_ms gets the hint alone, as a misspelt
     * forward_ms does: not also "needs backward_frozen_ms" twice. */
    expect_only_error("timing: {forward_ms: 1, backward_ms: 2, backwrd_frozen_ms: 1}", 41,
                      "unknown key \"backwrd_frozen_ms\" in timing; did you mean 'backward_frozen_ms'?");
    expect_only_error("timing: {forward_ms: 1, backwrd_ms: 2, backward_frozen_ms: 1}", 25,
                      "did you mean 'backward_ms'?");
    expect_only_error("timing: {forward_ms: 1, backward_input_ms: 1, backward_weigt_ms: 1, backward_ms: 2, "
                      "backward_frozen_ms: 1}",
                      47, "did you mean 'backward_weight_ms'?");
}

Test(spec_review, a_schedule_names_only_the_timing_key_that_is_missing)
{
    /* backward_ms given, backward_frozen_ms absent: the pair's own error
     * says so, once; the schedule adds nothing. */
    expect_only_error("timing: {forward_ms: 1, backward_ms: 2}", 38,
                      "timing.backward_ms needs timing.backward_frozen_ms");
    /* neither: the schedule names both */
    expect_only_error("timing: {forward_ms: 1}", 9,
                      "schedule 1F1B needs timing.backward_ms and timing.backward_frozen_ms");
    /* one misspelt (its hint at 8:25), the other absent: only the absent one named */
    loaded l;
    load_with(&l, 8, "timing: {forward_ms: 1, backward_frozn_ms: 1}");
    EXPECT_ERROR(&l, 8, 25, "did you mean 'backward_frozen_ms'?");
    EXPECT_ERROR(&l, 8, 9, "schedule 1F1B needs timing.backward_ms");
    cr_assert_null(strstr(l.dump, "needs timing.backward_ms and"), "%s", l.dump);
    cr_assert_eq(l.d.n, 2, "%s", l.dump);
    loaded_free(&l);
    /* half of the other pair given: its error hides nothing this schedule needs */
    load_with(&l, 8, "timing: {forward_ms: 1, backward_input_ms: 1}");
    EXPECT_ERROR(&l, 8, 44, "timing.backward_input_ms and timing.backward_weight_ms go together");
    EXPECT_ERROR(&l, 8, 9, "schedule 1F1B needs timing.backward_ms and timing.backward_frozen_ms");
    cr_assert_eq(l.d.n, 2, "%s", l.dump);
    loaded_free(&l);
    /* a split schedule, half its pair given: the pair's error alone */
    load_str(&l, "tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: a, numel: 10}]\n"
                 "    - params: [{name: b, numel: 20}]\npipeline: {schedule: ZBH1, ranks: 2, microbatches: 4}\n"
                 "timing: {forward_ms: 1, backward_input_ms: 1}\n");
    EXPECT_ERROR(&l, 8, 44, "timing.backward_input_ms and timing.backward_weight_ms go together");
    cr_assert_eq(l.d.n, 1, "%s", l.dump);
    loaded_free(&l);
}

Test(spec_review, a_wrong_stage_count_hides_no_error_of_the_stages)
{
    /* 3 stages for 2 ranks: the stages' own errors are reported with it, in
     * one run; table lengths are not checked (which count is meant is
     * unknown), so the 3-entry table that matches the model says nothing. */
    loaded l;
    load_str(&l, "tfc: 1\nname: t\nmodel:\n  stages:\n"
                 "    - params: [{name: a, numel: 10}, {name: a, numel: 5}]\n"
                 "    - params: []\n"
                 "    - {name: \"s 2\", params: [{name: \"x y\", numel: 1}]}\n"
                 "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 4}\n"
                 "timing: {forward_ms: [1, 1, 1], backward_ms: 2, backward_frozen_ms: 1}\n");
    EXPECT_ERROR(&l, 5, 5, "model.stages lists 3 stages, but pipeline.ranks x pipeline.stages_per_rank = 2 x 1 = 2");
    EXPECT_ERROR(&l, 5, 45, "duplicate parameter name in this stage \"a\"");
    EXPECT_ERROR(&l, 6, 15, "model.stages[1].params must list at least one parameter tensor");
    EXPECT_ERROR(&l, 7, 14, "model.stages[2].name may hold only letters");
    EXPECT_ERROR(&l, 7, 37, "model.stages[2].params[0].name may hold only letters");
    cr_assert_null(strstr(l.dump, "entries"), "%s", l.dump);
    cr_assert_eq(l.d.n, 5, "%s", l.dump);
    loaded_free(&l);
}

/* ---- hints where the value meant is plain ---- */

Test(spec_review, a_yaml_1_1_boolean_says_to_write_true_or_false)
{
    loaded l;
    load_with(&l, 0, "targets: {c: yes, cuda: {enabled: OFF}}");
    EXPECT_ERROR(&l, 9, 14, "targets.c must be true or false, got string \"yes\"; write true (yes is a string in "
                            "YAML 1.2)");
    EXPECT_ERROR(&l, 9, 35, "targets.cuda.enabled must be true or false, got string \"OFF\"; write false");
    loaded_free(&l);
    /* quoted or tagged, true is a string: said as for integers */
    load_with(&l, 0, "targets: {c: 'true', cuda: !!str false}");
    EXPECT_ERROR(&l, 9, 14, "got string \"true\" (quoted values are strings)");
    EXPECT_ERROR(&l, 9, 28, "got string \"false\" (a tagged value is a string)");
    loaded_free(&l);
    /* nothing to suggest for other words */
    load_with(&l, 0, "targets: {c: maybe}");
    EXPECT_ERROR(&l, 9, 14, "targets.c must be true or false, got string \"maybe\"");
    cr_assert_null(strstr(l.dump, "write"), "%s", l.dump);
    loaded_free(&l);
}

Test(spec_review, a_whole_number_written_as_a_real_says_how_to_write_it)
{
    loaded l;
    load_with(&l, 0, "freeze: {max_ratio: 0.5, warmup_steps: 1e6, seed: 1.0, ramp_steps: 1.5e3}");
    EXPECT_ERROR(&l, 9, 40, "freeze.warmup_steps must be an integer, got number \"1e6\"; write 1000000");
    EXPECT_ERROR(&l, 9, 51, "freeze.seed must be an integer, got number \"1.0\"; write 1");
    EXPECT_ERROR(&l, 9, 68, "freeze.ramp_steps must be an integer, got number \"1.5e3\"; write 1500");
    loaded_free(&l);
    /* no hint where the integer would be refused too (out of range), where
     * the number is not whole, or where its text holds more than a double
     * keeps (1.0000000000000001e3 reads as 1000) */
    load_with(&l, 0, "data: {lcp_index: {seq_len: 2e6, topk: 4.5, token_bytes: 1.0000000000000001e0}}");
    EXPECT_ERROR(&l, 9, 29, "data.lcp_index.seq_len must be an integer, got number \"2e6\"");
    EXPECT_ERROR(&l, 9, 40, "data.lcp_index.topk must be an integer, got number \"4.5\"");
    EXPECT_ERROR(&l, 9, 58, "data.lcp_index.token_bytes must be an integer");
    cr_assert_null(strstr(l.dump, "write"), "%s", l.dump);
    loaded_free(&l);
}

Test(spec_review, a_count_of_one_is_said_in_the_singular)
{
    loaded l;
    load_with(&l, 8, "timing: {forward_ms: [1], backward_ms: 2, backward_frozen_ms: 1}");
    EXPECT_ERROR(&l, 8, 22, "timing.forward_ms has 1 entry, but the pipeline has 2 stages");
    loaded_free(&l);
    load_with(&l, 6, "");
    EXPECT_ERROR(&l, 5, 5, "model.stages lists 1 stage, but pipeline.ranks x pipeline.stages_per_rank = 2 x 1 = 2");
    loaded_free(&l);
}
