/* sched: built-in orders against PyTorch's own (tests/golden), hand-checked
 * small orders, properties over many configurations, and custom CSVs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"
#include "sched_csv.h"
#include "specbuf.h"

static spec_schedule kind_of(const char *name)
{
    static const spec_schedule all[] = {SCHED_GPIPE, SCHED_1F1B,       SCHED_INTERLEAVED_1F1B, SCHED_ZBH1,
                                        SCHED_ZBV,   SCHED_LOOPED_BFS, SCHED_DUALPIPEV};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (strcmp(spec_schedule_name(all[i]), name) == 0)
            return all[i];
    cr_assert_fail("unknown schedule %s", name);
    return SCHED_CUSTOM;
}

/* Rank r's program as "0F0,0F1,...", an overlapped pair as PyTorch writes
 * one, "(0F3;3B1)OVERLAP_F_B" (formatted here, not by sched_write_rank). */
static char *rank_text(const sched *s, uint32_t r)
{
    size_t n = s->rank_start[r + 1] - s->rank_start[r];
    char *out = malloc(n * 40 + 1);
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++) {
        char name[24], next[24];
        const char *sep = i > s->rank_start[r] ? "," : "";
        if (s->actions[i].pair == SCHED_PAIR_FIRST) {
            cr_assert(i + 1 < s->rank_start[r + 1] && s->actions[i + 1].pair == SCHED_PAIR_SECOND);
            o += (size_t)sprintf(out + o, "%s(%s;%s)OVERLAP_F_B", sep, sched_action_name(s, i, name, sizeof name),
                                 sched_action_name(s, i + 1, next, sizeof next));
            i++;
        } else {
            o += (size_t)sprintf(out + o, "%s%s", sep, sched_action_name(s, i, name, sizeof name));
        }
    }
    return out;
}

static sched *build(spec_schedule k, uint32_t p, uint32_t v, uint32_t m, arena *a)
{
    char why[400];
    sched *s;
    cr_assert(builtin_why(k, p, v, m, a, why, sizeof why, &s), "%s %u %u %u: %s", spec_schedule_name(k), p, v, m,
              why);
    return s;
}

/* ---- PyTorch's orders ---- */

Test(sched_pytorch, every_golden_configuration_matches_pytorch)
{
    FILE *f = fopen(TFC_SOURCE_DIR "/tests/golden/pytorch_orders.txt", "r");
    cr_assert_not_null(f);
    size_t cap = 1 << 20;
    char *line = malloc(cap);
    char kind[32] = "";
    uint32_t p = 0, v = 0, m = 0, row = 0;
    size_t configs = 0, rejected = 0;
    arena a;
    arena_init(&a, 0);
    sched *s = NULL;
    bool refused = false;
    char why[400];
    while (fgets(line, (int)cap, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#')
            continue;
        if (strncmp(line, "== ", 3) == 0) {
            cr_assert_eq(sscanf(line + 3, "%31s %u %u %u", kind, &p, &v, &m), 4);
            arena_free(&a);
            arena_init(&a, 0);
            refused = !builtin_why(kind_of(kind), p, v, m, &a, why, sizeof why, &s);
            row = 0;
            configs++;
            continue;
        }
        if (strncmp(line, "ERROR", 5) == 0) {
            cr_expect(refused, "%s p=%u v=%u m=%u: PyTorch refuses (%s), tfc accepts", kind, p, v, m, line);
            rejected++;
            continue;
        }
        cr_assert_not(refused, "%s p=%u v=%u m=%u: PyTorch accepts, tfc refuses: %s", kind, p, v, m, why);
        char *mine = rank_text(s, row);
        cr_expect_str_eq(mine, line, "%s p=%u v=%u m=%u rank %u:\n tfc     %s\n pytorch %s", kind, p, v, m, row,
                         mine, line);
        free(mine);
        row++;
    }
    arena_free(&a);
    free(line);
    fclose(f);
    cr_assert_geq(configs, 400);
    cr_assert_geq(rejected, 20);
}

/* ---- hand-checked from the schedules' definitions ---- */

Test(sched_hand, one_f_one_b_4_ranks_8_microbatches)
{
    /* Rank r warms up with 4 - r forwards, then alternates B and F. */
    static const char *const want[] = {
        "0F0,0F1,0F2,0F3,0B0,0F4,0B1,0F5,0B2,0F6,0B3,0F7,0B4,0B5,0B6,0B7",
        "1F0,1F1,1F2,1B0,1F3,1B1,1F4,1B2,1F5,1B3,1F6,1B4,1F7,1B5,1B6,1B7",
        "2F0,2F1,2B0,2F2,2B1,2F3,2B2,2F4,2B3,2F5,2B4,2F6,2B5,2F7,2B6,2B7",
        "3F0,3B0,3F1,3B1,3F2,3B2,3F3,3B3,3F4,3B4,3F5,3B5,3F6,3B6,3F7,3B7",
    };
    arena a;
    arena_init(&a, 0);
    sched *s = build(SCHED_1F1B, 4, 1, 8, &a);
    for (uint32_t r = 0; r < 4; r++) {
        char *got = rank_text(s, r);
        cr_assert_str_eq(got, want[r], "rank %u", r);
        free(got);
    }
    arena_free(&a);
}

Test(sched_hand, gpipe_all_forwards_then_all_backwards)
{
    arena a;
    arena_init(&a, 0);
    sched *s = build(SCHED_GPIPE, 2, 1, 3, &a);
    char *r1 = rank_text(s, 1);
    cr_assert_str_eq(r1, "1F0,1F1,1F2,1B0,1B1,1B2");
    free(r1);
    arena_free(&a);
}

Test(sched_hand, interleaved_2_ranks_2_stages_4_microbatches)
{
    /* p=2, v=2, m=4: rounds = 2, mpr = 2. Rank 0 warmup = (2-1)*2 + 2*(2-1-0) = 4:
     * forwards walk stages 0,0,2,2 (two per round), then steady pairs F/B with
     * forwards on 0,0,2,2 and backwards starting at the top local stage 2. */
    arena a;
    arena_init(&a, 0);
    sched *s = build(SCHED_INTERLEAVED_1F1B, 2, 2, 4, &a);
    char *r0 = rank_text(s, 0), *r1 = rank_text(s, 1);
    cr_assert_str_eq(r0, "0F0,0F1,2F0,2F1,0F2,2B0,0F3,2B1,2F2,0B0,2F3,0B1,2B2,2B3,0B2,0B3");
    /* Rank 1: warmup = 2 + 0 = 2. */
    cr_assert_str_eq(r1, "1F0,1F1,3F0,3B0,3F1,3B1,1F2,1B0,1F3,1B1,3F2,3B2,3F3,3B3,1B2,1B3");
    free(r0);
    free(r1);
    arena_free(&a);
}

Test(sched_hand, zbv_places_stages_in_a_v)
{
    arena a;
    arena_init(&a, 0);
    sched *s = build(SCHED_ZBV, 3, 2, 6, &a);
    /* Rank r holds r and 2p - 1 - r. */
    const uint32_t want[] = {0, 1, 2, 2, 1, 0};
    for (uint32_t st = 0; st < 6; st++)
        cr_assert_eq(s->stage_rank[st], want[st], "stage %u", st);
    arena_free(&a);
}

Test(sched_hand, refusals_say_why)
{
    arena a;
    arena_init(&a, 0);
    char why[400];
    sched *s;
    cr_assert_not(builtin_why(SCHED_1F1B, 4, 1, 3, &a, why, sizeof why, &s));
    cr_assert_not_null(strstr(why, "at least as many microbatches as stages"), "%s", why);
    cr_assert_not(builtin_why(SCHED_INTERLEAVED_1F1B, 4, 2, 9, &a, why, sizeof why, &s));
    cr_assert_not_null(strstr(why, "not a multiple of 2"), "%s", why);
    cr_assert_not(builtin_why(SCHED_ZBH1, 33, 1, 1010, &a, why, sizeof why, &s));
    cr_assert_not_null(strstr(why, "1010 microbatches make 30 rounds (1010 / 33, rounded down), and 1010 is not a "
                                   "multiple of 30; a multiple of 33 (the rank count) always works"),
                       "%s", why);
    cr_assert_not(builtin_why(SCHED_1F1B, 2, 1, 1, &a, why, sizeof why, &s));
    cr_assert_not_null(strstr(why, "as stages: 1 microbatch, 2 stages"), "%s", why);
    cr_assert_not(builtin_why(SCHED_DUALPIPEV, 2, 2, 1, &a, why, sizeof why, &s));
    cr_assert_not_null(strstr(why, "as stages: 1 microbatch, 4 stages"), "%s", why);
    arena_free(&a);
}

/* ---- properties over many configurations ---- */

Test(sched_props, every_accepted_configuration_is_complete_and_owned)
{
    static const spec_schedule kinds[] = {SCHED_GPIPE, SCHED_1F1B, SCHED_INTERLEAVED_1F1B, SCHED_ZBH1, SCHED_ZBV};
    size_t built = 0;
    for (size_t k = 0; k < 5; k++)
        for (uint32_t p = 1; p <= 9; p++)
            for (uint32_t v = 1; v <= 4; v++)
                for (uint32_t m = 1; m <= 40; m += (m < 12 ? 1 : 7)) {
                    arena a;
                    arena_init(&a, 0);
                    char why[400];
                    sched *s;
                    if (builtin_why(kinds[k], p, v, m, &a, why, sizeof why, &s)) {
                        /* sched_builtin runs sched_index; check its result independently. */
                        bool split = kinds[k] == SCHED_ZBH1 || kinds[k] == SCHED_ZBV;
                        cr_assert_eq(s->n_actions, (size_t)p * v * m * (split ? 3 : 2));
                        size_t *seen = calloc((size_t)p * v * m * 4, sizeof *seen);
                        for (uint32_t r = 0; r < p; r++)
                            for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++) {
                                const sched_action *x = &s->actions[i];
                                cr_assert_eq(s->stage_rank[x->stage], r);
                                seen[((size_t)x->type * p * v + x->stage) * m + x->mb]++;
                            }
                        for (size_t j = 0; j < (size_t)p * v * m * 4; j++) {
                            size_t type = j / ((size_t)p * v * m);
                            size_t want = type == ACT_F ? 1 : (split ? type != ACT_B : type == ACT_B);
                            cr_assert_eq(seen[j], want, "%s p=%u v=%u m=%u slot %zu",
                                         spec_schedule_name(kinds[k]), p, v, m, j);
                        }
                        free(seen);
                        built++;
                    } else {
                        cr_assert_null(strstr(why, "internal error"), "%s", why);
                    }
                    arena_free(&a);
                }
    cr_assert_geq(built, 500);
}
