/* text: UTF-8 checking, positions, quoting and spelling hints. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

static bool check(const char *s, size_t len, size_t *bad)
{
    const char *why;
    return text_check_yaml_chars(s, len, bad, &why);
}

Test(text, accepts_multibyte_utf8_tab_and_line_breaks)
{
    const char s[] = "name: \xC3\xA9t\xE2\x82\xAC\xF0\x9F\x98\x80\t\r\n\xC2\x85x\n";
    size_t bad;
    cr_assert(check(s, sizeof s - 1, &bad));
}

Test(text, rejects_overlong_surrogate_and_out_of_range_sequences_at_their_offset)
{
    size_t bad;
    cr_assert_not(check("ab\xC0\xAF", 4, &bad));
    cr_assert_eq(bad, 2);
    cr_assert_not(check("a\xED\xA0\x80", 4, &bad)); /* U+D800 */
    cr_assert_eq(bad, 1);
    cr_assert_not(check("\xF4\x90\x80\x80", 4, &bad)); /* U+110000 */
    cr_assert_eq(bad, 0);
    cr_assert_not(check("abc\xE2\x82", 5, &bad)); /* truncated */
    cr_assert_eq(bad, 3);
}

Test(text, rejects_nul_controls_del_and_c1_but_not_nel)
{
    size_t bad;
    cr_assert_not(check("a\0b", 3, &bad));
    cr_assert_eq(bad, 1);
    cr_assert_not(check("ab\x01", 3, &bad));
    cr_assert_eq(bad, 2);
    cr_assert_not(check("a\x7F", 2, &bad));
    cr_assert_not(check("a\xC2\x80", 3, &bad)); /* U+0080 */
    cr_assert(check("a\xC2\x85", 3, &bad));     /* U+0085 NEL is a YAML line break */
}

Test(text, position_counts_lines_like_libyaml_and_columns_in_code_points)
{
    const char s[] = "ab\ncd\r\nef\rg\xC3\xA9h";
    unsigned line, col;
    text_position(s, sizeof s - 1, 0, &line, &col);
    cr_assert(line == 1 && col == 1);
    text_position(s, sizeof s - 1, 4, &line, &col); /* 'd' */
    cr_assert(line == 2 && col == 2, "got %u:%u", line, col);
    text_position(s, sizeof s - 1, 7, &line, &col); /* 'e' after CR LF */
    cr_assert(line == 3 && col == 1, "got %u:%u", line, col);
    text_position(s, sizeof s - 1, 10, &line, &col); /* 'g' after lone CR */
    cr_assert(line == 4 && col == 1, "got %u:%u", line, col);
    text_position(s, sizeof s - 1, 13, &line, &col); /* 'h' after 2-byte e-acute */
    cr_assert(line == 4 && col == 3, "got %u:%u", line, col);
}

Test(text, quote_escapes_controls_and_says_how_much_it_cut)
{
    char q[TEXT_QUOTE_CAP];
    text_quote(q, sizeof q, "a\"b\\c\nd\x01", 8);
    cr_assert_str_eq(q, "\"a\\\"b\\\\c\\nd\\u0001\"");
    char big[1000];
    memset(big, 'x', sizeof big);
    text_quote(q, sizeof q, big, sizeof big);
    cr_assert(strstr(q, "... (+") != NULL, "%s", q);
    cr_assert_lt(strlen(q), sizeof q);
    /* The cut count plus the kept characters give back the length. */
    size_t kept = (size_t)(strchr(q + 1, '"') - (q + 1));
    size_t more = 0;
    cr_assert_eq(sscanf(strstr(q, "(+"), "(+%zu bytes)", &more), 1);
    cr_assert_eq(kept + more, sizeof big);
}

Test(text, quote_never_splits_a_multibyte_character)
{
    char q[TEXT_QUOTE_CAP];
    char big[600];
    for (size_t i = 0; i < sizeof big; i += 2)
        big[i] = '\xC3', big[i + 1] = '\xA9';
    text_quote(q, sizeof q, big, sizeof big);
    size_t bad;
    const char *why;
    cr_assert(text_check_yaml_chars(q, strlen(q), &bad, &why));
}

Test(text, edit_distance_matches_known_values_and_respects_the_cap)
{
    cr_assert_eq(text_edit_distance("kitten", 6, "sitting", 7, 10), 3);
    cr_assert_eq(text_edit_distance("ranks", 5, "Ranks", 5, 3), 0); /* case-insensitive */
    cr_assert_eq(text_edit_distance("abc", 3, "xyzuvw", 6, 2), 3);
}

Test(text, nearest_suggests_plausible_typos_only)
{
    const char *const keys[] = {"microbatches", "ranks", "schedule", NULL};
    cr_assert_str_eq(text_nearest("microbatch", 10, keys), "microbatches");
    cr_assert_str_eq(text_nearest("rank", 4, keys), "ranks");
    cr_assert_str_eq(text_nearest("shedule", 7, keys), "schedule");
    cr_assert_null(text_nearest("optimizer", 9, keys));
}

Test(text, c_identifier_rule)
{
    cr_assert(text_is_c_identifier("llama8b_1f1b", 12));
    cr_assert(text_is_c_identifier("_x", 2));
    cr_assert_not(text_is_c_identifier("8b", 2));
    cr_assert_not(text_is_c_identifier("a-b", 3));
    cr_assert_not(text_is_c_identifier("", 0));
    cr_assert_not(text_is_c_identifier("a\0b", 3));
}

Test(text, position_skips_a_byte_order_mark_like_libyaml)
{
    const char s[] = "\xEF\xBB\xBF" "ab\x01";
    unsigned line, col;
    text_position(s, sizeof s - 1, 5, &line, &col);
    cr_assert(line == 1 && col == 3, "got %u:%u", line, col);
}

/* diag (base/diag.c) lives beside text in base/: warnings are printed but
 * are no errors, survive diag_move, and never count as dropped errors. */
#include "diag.h"

Test(diag, warnings_print_as_warnings_and_count_as_no_error)
{
    diag_list d, to;
    diag_init(&d, 3);
    diag_init(&to, 3);
    diag_warning(&d, "f.json", 4, 1, "median %d longer", 12);
    cr_assert_eq(diag_count(&d), 0);
    diag_error(&d, "s.yaml", 2, 3, "bad %s", "key");
    cr_assert_eq(diag_count(&d), 1);
    diag_move(&to, &d);
    cr_assert_eq(diag_count(&to), 1);
    diag_warning(&to, "g.json", 1, 1, "a second");
    diag_warning(&to, "h.json", 1, 1, "a third: no room, dropped silently");
    cr_assert_eq(diag_count(&to), 1);
    char buf[512] = "";
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    diag_print(&to, f);
    rewind(f);
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    buf[got] = '\0';
    fclose(f);
    cr_assert_str_eq(buf, "g.json:1:1: warning: a second\n"
                          "s.yaml:2:3: error: bad key\n"
                          "f.json:4:1: warning: median 12 longer\n");
    diag_free(&to);
}

static char *printed(diag_list *d, char *buf, size_t n)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    diag_print(d, f);
    rewind(f);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

/* Work done again (a timing file read once per cap that auto plans) says
 * each warning once; errors are kept as they come; a note goes to the
 * diagnostic it follows, never to another when that one was not stored. */
Test(diag, a_warning_said_again_is_stored_once_and_its_note_goes_nowhere_else)
{
    diag_list d;
    diag_init(&d, 20);
    for (int i = 0; i < 12; i++) {
        diag_warning(&d, "t.json", 7, 1, "action %s: median %d ms", "1B3", 25);
        if (i == 0)
            diag_note(&d, 3, 1, "the first sample");
        diag_error(&d, "s.yaml", 9, 2, "an error in round %d", i < 2 ? 0 : i);
        diag_note(&d, 9, 1, "why %d", i);
    }
    diag_warning(&d, "t.json", 7, 2, "action %s: median %d ms", "1B3", 25); /* another place */
    diag_warning(&d, "u.json", 7, 1, "action %s: median %d ms", "1B3", 25); /* another file */
    diag_warning(&d, "t.json", 7, 1, "action %s: median %d ms", "1B3", 26); /* another text */
    cr_assert_eq(d.n_warnings, 4);
    cr_assert_eq(diag_count(&d), 12, "errors are not merged");
    char buf[4096];
    const char *t = printed(&d, buf, sizeof buf);
    const char *w = strstr(t, "t.json:7:1: warning: action 1B3: median 25 ms\n");
    cr_assert_not_null(w, "%s", t);
    cr_assert_null(strstr(w + 1, "t.json:7:1: warning: action 1B3: median 25 ms\n"), "said twice:\n%s", t);
    cr_assert_not_null(strstr(w, "median 25 ms\nt.json:3:1: note: the first sample\n"), "%s", t);
    cr_assert_not_null(strstr(t, "s.yaml:9:2: error: an error in round 11\ns.yaml:9:1: note: why 11\n"), "%s", t);
    diag_free(&d);
    /* at the cap: an error that takes a warning's place takes its own note */
    diag_init(&d, 2);
    diag_warning(&d, "s.yaml", 5, 1, "a warning");
    diag_error(&d, "s.yaml", 1, 1, "first");
    diag_error(&d, "s.yaml", 3, 1, "replaces the warning");
    diag_note(&d, 3, 2, "the note of the replacement");
    t = printed(&d, buf, sizeof buf);
    cr_assert_str_eq(t, "s.yaml:1:1: error: first\n"
                        "s.yaml:3:1: error: replaces the warning\n"
                        "s.yaml:3:2: note: the note of the replacement\n", "%s", t);
    diag_free(&d);
}
