/* cli: tfc as a user runs it. Exit codes, help, version, every spec in
 * specs/, the YAML test-suite corpus, and the hostile-input table in
 * tests/hostile/README.md (read at run time: the table is the oracle). */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proc.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static const double time_bound_s = SANITIZED ? 10.0 : 2.0;

/* No sanitizer report, no signal, no time-out. */
static void assert_clean(const proc_result *r, const char *what)
{
    cr_assert_eq(r->signal, 0, "%s: killed by signal %d", what, r->signal);
    cr_assert_not(r->timed_out, "%s: timed out", what);
    cr_assert_null(strstr(r->err, "Sanitizer"), "%s: sanitizer report:\n%s", what, r->err);
    cr_assert_null(strstr(r->err, "runtime error"), "%s: UB report:\n%s", what, r->err);
}

/* True if some line of err is "FILE:LINE:COL: error: ..." for this file and
 * position (line 0 = "FILE: error: ...") and contains fragment. */
static bool has_error_line(const char *err, const char *file, unsigned line, unsigned col, const char *fragment)
{
    char prefix[512];
    if (line)
        snprintf(prefix, sizeof prefix, "%s:%u:%u: error: ", file, line, col);
    else
        snprintf(prefix, sizeof prefix, "%s: error: ", file);
    for (const char *l = err; l && *l;) {
        const char *end = strchr(l, '\n');
        size_t len = end ? (size_t)(end - l) : strlen(l);
        if (len >= strlen(prefix) && strncmp(l, prefix, strlen(prefix)) == 0) {
            char *copy = strndup(l, len);
            bool found = strstr(copy, fragment) != NULL;
            free(copy);
            if (found)
                return true;
        }
        l = end ? end + 1 : NULL;
    }
    return false;
}

/* A spec written to a fresh temporary folder (for specs made by a test). */
typedef struct temp_spec {
    char dir[32];
    char path[512];
} temp_spec;

static void temp_spec_write(temp_spec *t, const char *text)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/tfc-cli-XXXXXX");
    cr_assert_not_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/s.yaml", t->dir);
    FILE *f = fopen(t->path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

static void temp_spec_remove(temp_spec *t)
{
    unlink(t->path);
    rmdir(t->dir);
}

/* ---- the command line itself ---- */

Test(cli, help_lists_every_command_and_exits_0)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "--help", NULL));
    cr_assert_eq(r.exit_code, 0);
    for (const char *const *v = (const char *const[]){"compile", "check", "plan", "index", NULL}; *v; v++)
        cr_assert_not_null(strstr(r.out, *v), "help lacks %s", *v);
    cr_assert_not_null(strstr(r.out, "exit codes"));
    proc_result_free(&r);
}

Test(cli, no_arguments_prints_usage_and_exits_2)
{
    proc_result r;
    cr_assert(proc_tfc(&r, NULL));
    cr_assert_eq(r.exit_code, 2);
    cr_assert_not_null(strstr(r.err, "usage: tfc"));
    proc_result_free(&r);
}

Test(cli, version_names_the_release_and_the_libraries)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "--version", NULL));
    cr_assert_eq(r.exit_code, 0);
    cr_assert(strncmp(r.out, "tfc " TFC_EXPECTED_VERSION "\n", strlen("tfc " TFC_EXPECTED_VERSION "\n")) == 0,
              "%s", r.out);
    cr_assert_not_null(strstr(r.out, "libyaml 0."));
    cr_assert_not_null(strstr(r.out, "lp_solve 5.5"));
    cr_assert_not_null(strstr(r.out, "NVRTC"));
    proc_result_free(&r);
}

Test(cli, unknown_command_suggests_the_nearest_and_exits_2)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "chek", "x.yaml", NULL));
    cr_assert_eq(r.exit_code, 2);
    cr_assert_not_null(strstr(r.err, "did you mean 'check'?"), "%s", r.err);
    proc_result_free(&r);
}

Test(cli, check_usage_errors_exit_2)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "check", NULL));
    cr_assert_eq(r.exit_code, 2);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "check", "a.yaml", "b.yaml", NULL));
    cr_assert_eq(r.exit_code, 2);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "check", "--frobnicate", "a.yaml", NULL));
    cr_assert_eq(r.exit_code, 2);
    cr_assert_not_null(strstr(r.err, "unknown option"));
    proc_result_free(&r);
}

/* A usage error points at the verb's own --help, where its options are. */
Test(cli, a_usage_error_points_at_its_verbs_help)
{
    const char *const cases[][4] = {
        {"plan", "--frobnicate", "a.yaml", "tfc: error: plan: unknown option \"--frobnicate\"\nTry 'tfc plan --help'.\n"},
        {"plan", "a.yaml", "--sweep=", "tfc: error: plan: --sweep needs a folder name, got \"\"\nTry 'tfc plan --help'.\n"},
        {"plan", "a.yaml", "--policy", "tfc: error: plan: option needs a value: \"--policy\"\nTry 'tfc plan --help'.\n"},
        {"compile", "a.yaml", "b.yaml",
         "tfc: error: compile: more than one SPEC given; extra: \"b.yaml\"\nTry 'tfc compile --help'.\n"},
        {"check", "-q", NULL, "tfc: error: check: missing SPEC\nTry 'tfc check --help'.\n"},
        {"verify", "--frobnicate", "dir", "tfc: error: verify: unknown option \"--frobnicate\"\nTry 'tfc verify --help'.\n"},
        {"verify", NULL, NULL, "tfc: error: verify: needs a generated folder: tfc verify DIR [SPEC]\n"
                               "Try 'tfc verify --help'.\n"},
        {"diff", "a.json", NULL, "tfc: error: diff: needs two plan.json files: tfc diff PLAN_A PLAN_B\n"
                                 "Try 'tfc diff --help'.\n"},
        {"diff", "--tolerance", "x", "tfc: error: diff: --tolerance must be a number from 0 to 1e9, got \"x\"\n"
                                     "Try 'tfc diff --help'.\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        proc_result r;
        cr_assert(proc_tfc(&r, cases[i][0], cases[i][1], cases[i][2], NULL));
        cr_assert_eq(r.exit_code, 2, "%s", r.err);
        cr_assert_str_eq(r.err, cases[i][3]);
        proc_result_free(&r);
    }
}

/* One rank, stage, microbatch and tensor: every count of one. */
static const char one_of_everything[] = "tfc: 1\nname: one\nmodel: {stages: [{params: [{name: w, numel: 1}]}]}\n"
                                        "pipeline: {schedule: GPipe, ranks: 1, microbatches: 1}\n"
                                        "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n";

/* Counts of one read as one: "1 microbatch, ... 1 parameter tensor, 1 parameter". */
Test(cli, check_and_plan_say_one_of_a_thing_in_the_singular)
{
    temp_spec t;
    temp_spec_write(&t, one_of_everything);
    proc_result r;
    cr_assert(proc_tfc(&r, "check", t.path, NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, ": ok: one, GPipe, 1 rank x 1 stage per rank, 1 microbatch, 2 actions, "
                                     "1 parameter tensor, 1 parameter\n"),
                       "%s", r.out);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "plan", t.path, "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "one: GPipe, 1 rank x 1 stage per rank, 1 microbatch, 2 actions\n"), "%s",
                       r.out);
    proc_result_free(&r);
    /* --compare's header, and its rows for schedules of two stages a rank */
    char dir[600];
    snprintf(dir, sizeof dir, "%s/cmp", t.dir);
    cr_assert(proc_tfc(&r, "plan", t.path, "-q", "--compare", dir, NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "every built-in schedule on 1 rank, 1 microbatch, "), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "does not fit: the model has 1 parameter tensor, fewer than the 2 stages"), "%s",
                       r.out);
    proc_result_free(&r);
    const char *const files[] = {"compare.csv", "compare.svg", "MANIFEST"};
    for (size_t i = 0; i < 3; i++) {
        char f[700];
        snprintf(f, sizeof f, "%s/%s", dir, files[i]);
        unlink(f);
    }
    rmdir(dir);
    temp_spec_remove(&t);
}

Test(cli, verb_help_exits_0)
{
    const char *verbs[] = {"check", "compile", "plan", "index"};
    for (size_t i = 0; i < 4; i++) {
        proc_result r;
        cr_assert(proc_tfc(&r, verbs[i], "--help", NULL));
        cr_assert_eq(r.exit_code, 0, "%s --help", verbs[i]);
        cr_assert_not_null(strstr(r.out, "usage: tfc"));
        proc_result_free(&r);
    }
}

Test(cli, every_spec_in_specs_checks_clean)
{
    DIR *d = opendir(TFC_SOURCE_DIR "/specs");
    cr_assert_not_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/specs/%s", TFC_SOURCE_DIR, e->d_name);
        proc_result r;
        cr_assert(proc_tfc(&r, "check", path, NULL));
        assert_clean(&r, path);
        cr_assert_eq(r.exit_code, 0, "%s:\n%s", path, r.err);
        cr_assert_not_null(strstr(r.out, ": ok: "));
        proc_result_free(&r);
        n++;
    }
    closedir(d);
    cr_assert_geq(n, 1);
}

Test(cli, quiet_check_prints_nothing_on_success)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "check", "-q", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", NULL));
    cr_assert_eq(r.exit_code, 0);
    cr_assert_eq(r.out_len, 0);
    cr_assert_eq(r.err_len, 0);
    proc_result_free(&r);
}

Test(cli, check_reads_standard_input_as_dash)
{
    const char *argv[] = {TFC_BIN, "check", "-", NULL};
    proc_result r;
    cr_assert(proc_run(argv, TFC_SOURCE_DIR "/tests/hostile/negative_ranks.yaml", 10.0, 0, &r));
    cr_assert_eq(r.exit_code, 1);
    cr_assert(has_error_line(r.err, "<stdin>", 7, 35, "pipeline.ranks"), "%s", r.err);
    proc_result_free(&r);
    cr_assert(proc_run(argv, TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", 10.0, 0, &r));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
}

Test(cli, errors_are_capped_at_20_with_a_line_saying_so)
{
    char text[512];
    size_t o = 0;
    for (int i = 0; i < 30; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "bogus%02d: 1\n", i);
    snprintf(text + o, sizeof text - o, "tfc: 1\n");
    temp_spec t;
    temp_spec_write(&t, text);
    const char *path = t.path;
    proc_result r;
    cr_assert(proc_tfc(&r, "check", path, NULL));
    cr_assert_eq(r.exit_code, 1);
    /* 30 unknown keys + 1 missing-keys error: 20 shown, then a stop line. */
    size_t lines = 0;
    for (const char *p = r.err; (p = strstr(p, ": error: ")); p++)
        lines++;
    cr_assert_eq(lines, 21, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "too many errors; stopped after 20"), "%s", r.err);
    proc_result_free(&r);
    temp_spec_remove(&t);
}

/* A spec whose only errors are N of one kind, found in one loop: 20 shown,
 * and the stop line exactly when there were more. */
static void count_capped(const char *valid, const char *fmt, int n, bool stop_line)
{
    char text[8192];
    size_t o = (size_t)snprintf(text, sizeof text, "%s", valid);
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, fmt, i);
    temp_spec t;
    temp_spec_write(&t, text);
    proc_result r;
    cr_assert(proc_tfc(&r, "check", t.path, NULL));
    cr_assert_eq(r.exit_code, 1, "%s", r.err);
    size_t lines = 0;
    for (const char *p = r.err; (p = strstr(p, ": error: ")); p++)
        lines++;
    cr_assert_eq(lines, (size_t)(n < 20 ? n : 20) + stop_line, "%d errors: %s", n, r.err);
    cr_assert_eq(strstr(r.err, "too many errors; stopped after 20") != NULL, stop_line, "%d errors: %s", n, r.err);
    proc_result_free(&r);
    temp_spec_remove(&t);
}

Test(cli, the_stop_line_comes_exactly_when_errors_past_20_were_dropped)
{
    const char *head = "tfc: 1\nname: capped\npipeline: {schedule: GPipe, ranks: 1, microbatches: 2}\n"
                       "timing: {forward_ms: [1], backward_ms: [2], backward_frozen_ms: [1]}\n"
                       "freeze: {max_ratio: 0.5}\n";
    char valid[512];
    snprintf(valid, sizeof valid, "%smodel:\n  stages:\n    - params: [{name: w, numel: 4}]\n", head);
    count_capped(valid, "bogus%02d: 1\n", 19, false);
    count_capped(valid, "bogus%02d: 1\n", 20, false);
    count_capped(valid, "bogus%02d: 1\n", 21, true);
    count_capped(valid, "bogus%02d: 1\n", 40, true);
    /* one loop over a stage's params, every numel bad */
    snprintf(valid, sizeof valid, "%smodel:\n  stages:\n    - params:\n", head);
    count_capped(valid, "      - {name: w%02d, numel: -1}\n", 20, false);
    count_capped(valid, "      - {name: w%02d, numel: -1}\n", 25, true);
}

/* Past the cap, the errors shown are the first by position, as printed,
 * not the first found: an unknown key at the end is found before the
 * params' checks, yet the 20 params errors before it are what is shown. */
Test(cli, the_errors_kept_past_the_cap_are_the_first_in_the_file)
{
    char text[4096];
    size_t o = (size_t)snprintf(text, sizeof text, "tfc: 1\nname: t\nmodel:\n  stages:\n    - params:\n");
    for (int i = 0; i < 30; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "      - {name: p%02d, numel: 0}\n", i);
    snprintf(text + o, sizeof text - o, "pipeline: {schedule: GPipe, ranks: 1, microbatches: 2}\n"
                                        "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\nbogus: 1\n");
    temp_spec t;
    temp_spec_write(&t, text);
    proc_result r;
    cr_assert(proc_tfc(&r, "check", t.path, NULL));
    cr_assert_eq(r.exit_code, 1);
    cr_assert_null(strstr(r.err, "bogus"), "the last line's error is shown before earlier ones: %s", r.err);
    for (int i = 0; i < 20; i++) {
        char want[64];
        snprintf(want, sizeof want, "params[%d].numel", i);
        cr_assert_not_null(strstr(r.err, want), "%s missing: %s", want, r.err);
    }
    cr_assert_not_null(strstr(r.err, "too many errors; stopped after 20"), "%s", r.err);
    proc_result_free(&r);
    temp_spec_remove(&t);
}

Test(cli, errors_are_printed_in_file_order)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "check", TFC_SOURCE_DIR "/tests/hostile/wrong_types.yaml", NULL));
    cr_assert_eq(r.exit_code, 1);
    unsigned prev_line = 0, prev_col = 0, n = 0;
    regex_t re;
    cr_assert_eq(regcomp(&re, ":([0-9]+):([0-9]+): error: ", REG_EXTENDED), 0);
    regmatch_t m[3];
    for (const char *p = r.err; regexec(&re, p, 3, m, 0) == 0; p += m[0].rm_eo) {
        unsigned line = (unsigned)strtoul(p + m[1].rm_so, NULL, 10);
        unsigned col = (unsigned)strtoul(p + m[2].rm_so, NULL, 10);
        cr_assert(line > prev_line || (line == prev_line && col >= prev_col), "%u:%u after %u:%u", line, col,
                  prev_line, prev_col);
        prev_line = line, prev_col = col;
        n++;
    }
    regfree(&re);
    /* Every section of that file has its own wrong type: all are reported. */
    cr_assert_geq(n, 15, "%s", r.err);
    proc_result_free(&r);
}

/* ---- the YAML test-suite corpus ---- */

typedef struct corpus_file {
    char path[256];
} corpus_file;

static size_t list_yaml(const char *dir, corpus_file *out, size_t max)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < max) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        int w = snprintf(out[n].path, sizeof out->path, "%s/%s", dir, e->d_name);
        cr_assert(w > 0 && (size_t)w < sizeof out->path, "path too long: %s/%s", dir, e->d_name);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* The row of tests/yaml_bad/positions.tsv for path (".../suite/NAME.yaml"). */
static bool pinned_position(const char *path, unsigned *line, unsigned *col, char *frag, size_t cap)
{
    const char *rel = strstr(path, "/tests/yaml_bad/");
    if (!rel)
        return false;
    rel += strlen("/tests/yaml_bad/");
    FILE *f = fopen(TFC_SOURCE_DIR "/tests/yaml_bad/positions.tsv", "r");
    char row[1024];
    bool found = false;
    while (f && !found && fgets(row, sizeof row, f)) {
        if (row[0] == '#')
            continue;
        char *tab = strchr(row, '\t');
        if (!tab || (size_t)(tab - row) != strlen(rel) || strncmp(row, rel, strlen(rel)) != 0)
            continue;
        char *pos = tab + 1, *tab2 = strchr(pos, '\t');
        if (!tab2 || sscanf(pos, "%u:%u", line, col) != 2)
            continue;
        char *fr = tab2 + 1, *tab3 = strchr(fr, '\t');
        if (tab3)
            *tab3 = '\0';
        snprintf(frag, cap, "%s", fr);
        found = true;
    }
    if (f)
        fclose(f);
    return found;
}

ParameterizedTestParameters(corpus, yaml_test_suite_file_is_refused_with_a_position)
{
    static corpus_file files[256];
    size_t n = list_yaml(TFC_SOURCE_DIR "/tests/yaml_bad/suite", files, 256);
    n += list_yaml(TFC_SOURCE_DIR "/tests/yaml_bad/valid_not_spec", files + n, 256 - n);
    return cr_make_param_array(corpus_file, files, n);
}

ParameterizedTest(corpus_file *f, corpus, yaml_test_suite_file_is_refused_with_a_position)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "check", f->path, NULL));
    assert_clean(&r, f->path);
    cr_assert_eq(r.exit_code, 1, "%s: exit %d\n%s", f->path, r.exit_code, r.err);
    /* The first line is FILE:LINE:COL: error: with LINE, COL >= 1. */
    char pattern[400];
    snprintf(pattern, sizeof pattern, "%s:", f->path);
    cr_assert(strncmp(r.err, pattern, strlen(pattern)) == 0, "%s", r.err);
    unsigned line = 0, col = 0;
    cr_assert_eq(sscanf(r.err + strlen(pattern), "%u:%u: error: ", &line, &col), 2, "%s", r.err);
    /* Exactly where tests/yaml_bad/positions.tsv pins it (each row checked
     * against an independent reading or reviewed by hand). */
    unsigned want_line = 0, want_col = 0;
    char frag[128] = "";
    cr_assert(pinned_position(f->path, &want_line, &want_col, frag, sizeof frag), "%s: not in positions.tsv", f->path);
    cr_assert(line == want_line && col == want_col, "%s: first error at %u:%u, the table says %u:%u\n%s", f->path, line,
              col, want_line, want_col, r.err);
    cr_assert(strstr(r.err, frag) != NULL, "%s: the message lacks \"%s\"\n%s", f->path, frag, r.err);
    cr_assert_eq(r.out_len, 0);
    proc_result_free(&r);
}

Test(corpus, holds_all_137_cases)
{
    static corpus_file files[256];
    size_t n = list_yaml(TFC_SOURCE_DIR "/tests/yaml_bad/suite", files, 256);
    cr_assert_eq(n, 94);
    cr_assert_eq(list_yaml(TFC_SOURCE_DIR "/tests/yaml_bad/valid_not_spec", files, 256), 43);
}

/* ---- hostile inputs: tests/hostile/README.md ---- */

typedef struct hostile_row {
    char file[64];
    char err_file[64]; /* the file the error names, when not `file` (a spec's CSV) */
    int exit_code;
    unsigned line, col; /* 0:0 = no position ("-") */
    char fragment[160];
} hostile_row;

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '`'))
        s[--n] = '\0';
    size_t i = 0;
    while (s[i] == ' ' || s[i] == '`')
        i++;
    memmove(s, s + i, n - i + 1);
}

/* Rows look like: | `file` | what | exit | line:col or - | fragment | */
static size_t read_table(hostile_row *rows, size_t max)
{
    FILE *f = fopen(TFC_SOURCE_DIR "/tests/hostile/README.md", "r");
    if (!f)
        return 0;
    char line[1024];
    size_t n = 0;
    while (fgets(line, sizeof line, f) && n < max) {
        if (strncmp(line, "| `", 3) != 0)
            continue;
        char *cells[6];
        size_t k = 0;
        for (char *p = line + 1; k < 6 && p; k++) {
            char *bar = strstr(p, " | ");
            if (!bar)
                bar = strstr(p, " |\n");
            if (!bar)
                break;
            *bar = '\0';
            cells[k] = p;
            p = bar + 3;
        }
        if (k < 5)
            continue;
        hostile_row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        trim(cells[0]);
        snprintf(r->file, sizeof r->file, "%s", cells[0]);
        r->exit_code = atoi(cells[2]);
        /* "LINE:COL", "-", "OTHER.ext:LINE:COL" or "OTHER.ext:-" */
        trim(cells[3]);
        char *colon = strchr(cells[3], ':');
        if (colon && memchr(cells[3], '.', (size_t)(colon - cells[3]))) {
            snprintf(r->err_file, sizeof r->err_file, "%.*s", (int)(colon - cells[3]), cells[3]);
            sscanf(colon + 1, "%u:%u", &r->line, &r->col);
        } else {
            sscanf(cells[3], "%u:%u", &r->line, &r->col);
        }
        trim(cells[4]);
        snprintf(r->fragment, sizeof r->fragment, "%s", cells[4]);
    }
    fclose(f);
    return n;
}

ParameterizedTestParameters(hostile, input_is_refused_as_the_table_says)
{
    static hostile_row rows[128];
    size_t n = read_table(rows, 128);
    return cr_make_param_array(hostile_row, rows, n);
}

static void write_repeated(const char *path, const char *head, const char *unit, size_t times, const char *tail)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(head, f);
    for (size_t i = 0; i < times; i++)
        fputs(unit, f);
    fputs(tail, f);
    cr_assert_eq(fclose(f), 0);
}

/* Makes the input of a gen: row in dir; returns the path to pass to tfc. */
static void generate(const char *name, const char *dir, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s.yaml", dir, name);
    if (strcmp(name, "deep_flow_100k") == 0) {
        FILE *f = fopen(path, "w");
        for (int i = 0; i < 100000; i++)
            fputc('[', f);
        for (int i = 0; i < 100000; i++)
            fputc(']', f);
        fclose(f);
    } else if (strcmp(name, "deep_block_2000") == 0) {
        FILE *f = fopen(path, "w");
        for (int i = 0; i < 2000; i++)
            fprintf(f, "%*sa:\n", 2 * i, "");
        fclose(f);
    } else if (strcmp(name, "line_50mb") == 0) {
        write_repeated(path, "tfc: 1\nname: ", "xxxxxxxxxx", 5000000, "\n");
    } else if (strcmp(name, "file_65mib") == 0) {
        write_repeated(path, "", "# padding padding padding padding padding padding padding padding\n",
                       65 * 1024 * 1024 / 64 + 1, "");
    } else if (strcmp(name, "map_1m_keys") == 0) {
        FILE *f = fopen(path, "w");
        for (int i = 0; i < 1000000; i++)
            fprintf(f, "k%d: %d\n", i, i);
        fputs("k5: again\n", f);
        fclose(f);
    } else if (strcmp(name, "directory") == 0) {
        snprintf(path, cap, "%s", dir);
    } else if (strcmp(name, "missing_file") == 0) {
        snprintf(path, cap, "%s/does-not-exist.yaml", dir);
    } else if (strcmp(name, "unreadable") == 0) {
        /* Readable by permission even for root, but read() fails with EIO. */
        snprintf(path, cap, "/proc/self/mem");
    } else if (strcmp(name, "fifo_no_writer") == 0) {
        cr_assert_eq(mkfifo(path, 0600), 0);
    } else if (strcmp(name, "device") == 0) {
        snprintf(path, cap, "/dev/zero");
    } else if (strcmp(name, "socket") == 0) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        cr_assert_lt(strlen(path), sizeof sa.sun_path);
        memcpy(sa.sun_path, path, strlen(path) + 1);
        cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
        close(fd); /* the socket file stays */
    } else if (strcmp(name, "order_fifo") == 0 || strcmp(name, "order_dir") == 0) {
        FILE *f = fopen(path, "w");
        fputs("tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: a, numel: 10}]\n"
              "    - params: [{name: b, numel: 20}]\n"
              "pipeline: {schedule: custom, ranks: 2, microbatches: 2, order: order.csv}\n"
              "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n",
              f);
        fclose(f);
        char other[1100];
        snprintf(other, sizeof other, "%s/order.csv", dir);
        cr_assert_eq(strcmp(name, "order_fifo") == 0 ? mkfifo(other, 0600) : mkdir(other, 0700), 0);
    } else if (strcmp(name, "timing_list_100k") == 0) {
        FILE *f = fopen(path, "w");
        fprintf(f, "tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: a, numel: 10}]\n"
                   "    - params: [{name: b, numel: 20}]\n"
                   "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 2}\n"
                   "timing: {source: measured, frozen_file: f.csv, file: [");
        for (int i = 0; i < 100000; i++)
            fprintf(f, "p%d.csv%s", i, i + 1 < 100000 ? ", " : "]}\n");
        fclose(f);
    } else if (strcmp(name, "timing_list_fifo") == 0) {
        /* timing.file lists two files; the second is a FIFO nobody writes to. */
        FILE *f = fopen(path, "w");
        fprintf(f, "tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: a, numel: 10}]\n"
                   "    - params: [{name: b, numel: 20}]\n"
                   "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 2}\n"
                   "timing: {source: measured, file: [t.csv, t1.csv], frozen_file: f.csv}\n");
        fclose(f);
        char first[1100], second[1100], frozen[1100];
        snprintf(first, sizeof first, "%s/t.csv", dir);
        snprintf(second, sizeof second, "%s/t1.csv", dir);
        snprintf(frozen, sizeof frozen, "%s/f.csv", dir);
        FILE *t = fopen(first, "w"), *fz = fopen(frozen, "w");
        for (int mb = 0; mb < 2; mb++) {
            fprintf(t, "0,0,%d,F,1\n0,0,%d,B,2\n", mb, mb);
            fprintf(fz, "0,0,%d,B,1\n1,1,%d,B,1\n", mb, mb);
        }
        fclose(t);
        fclose(fz);
        cr_assert_eq(mkfifo(second, 0600), 0);
    } else if (strcmp(name, "timing_fifo") == 0 || strcmp(name, "frozen_device") == 0) {
        FILE *f = fopen(path, "w");
        fprintf(f, "tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: a, numel: 10}]\n"
                   "    - params: [{name: b, numel: 20}]\n"
                   "pipeline: {schedule: 1F1B, ranks: 2, microbatches: 2}\n"
                   "timing: {source: measured, file: t.csv, frozen_file: f.csv}\n");
        fclose(f);
        char other[1100], frozen[1100];
        snprintf(other, sizeof other, "%s/t.csv", dir);
        snprintf(frozen, sizeof frozen, "%s/f.csv", dir);
        if (strcmp(name, "timing_fifo") == 0) {
            cr_assert_eq(mkfifo(other, 0600), 0);
        } else {
            /* A complete sample file, so that the frozen one (a link to a
             * device) is what fails. */
            FILE *t = fopen(other, "w");
            fputs("rank,stage,microbatch,type,duration_ms\n", t);
            for (int st = 0; st < 2; st++)
                for (int mb = 0; mb < 2; mb++)
                    fprintf(t, "%d,%d,%d,F,1\n%d,%d,%d,B,2\n", st, st, mb, st, st, mb);
            fclose(t);
            cr_assert_eq(symlink("/dev/zero", frozen), 0);
        }
    } else {
        cr_assert_fail("no generator for gen:%s", name);
    }
}

ParameterizedTest(hostile_row *row, hostile, input_is_refused_as_the_table_says)
{
    char dir[] = "/tmp/tfc-hostile-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[1024];
    bool generated = strncmp(row->file, "gen:", 4) == 0;
    if (generated)
        generate(row->file + 4, dir, path, sizeof path);
    else
        snprintf(path, sizeof path, "%s/tests/hostile/%s", TFC_SOURCE_DIR, row->file);

    const char *argv[] = {TFC_BIN, "check", path, NULL};
    proc_result r;
    size_t mem_limit = SANITIZED ? 0 : (size_t)512 << 20;
    cr_assert(proc_run(argv, NULL, time_bound_s * 3, mem_limit, &r));
    assert_clean(&r, row->file);
    /* CPU time, so that a loaded machine does not fail the bound. */
    cr_assert_lt(r.cpu_seconds, time_bound_s, "%s took %.2f s of CPU", row->file, r.cpu_seconds);
    cr_assert_eq(r.exit_code, row->exit_code, "%s: exit %d, want %d\n%s", row->file, r.exit_code, row->exit_code,
                 r.err);
    char err_path[1200];
    if (row->err_file[0] && generated)
        snprintf(err_path, sizeof err_path, "%s/%s", dir, row->err_file);
    else if (row->err_file[0])
        snprintf(err_path, sizeof err_path, "%s/tests/hostile/%s", TFC_SOURCE_DIR, row->err_file);
    else
        snprintf(err_path, sizeof err_path, "%s", path);
    cr_assert(has_error_line(r.err, err_path, row->line, row->col, row->fragment),
              "%s: want %u:%u \"%s\", got:\n%.2000s", row->file, row->line, row->col, row->fragment, r.err);
    cr_assert_eq(r.out_len, 0, "%s wrote to stdout", row->file);
    proc_result_free(&r);

    if (generated && strcmp(path, dir) != 0 && strncmp(path, "/proc", 5) != 0 && strncmp(path, "/dev", 4) != 0)
        unlink(path);
    static const char *const others[] = {"order.csv", "t.csv", "t1.csv", "f.csv"};
    for (size_t i = 0; generated && i < sizeof others / sizeof *others; i++) {
        char o[1100];
        snprintf(o, sizeof o, "%s/%s", dir, others[i]);
        if (unlink(o) != 0)
            rmdir(o);
    }
    rmdir(dir);
}

Test(hostile, table_covers_every_committed_file)
{
    static hostile_row rows[128];
    size_t n = read_table(rows, 128);
    cr_assert_geq(n, 40);
    DIR *d = opendir(TFC_SOURCE_DIR "/tests/hostile");
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        bool listed = false;
        for (size_t i = 0; i < n; i++)
            listed |= strcmp(rows[i].file, e->d_name) == 0 || strcmp(rows[i].err_file, e->d_name) == 0;
        cr_assert(listed, "tests/hostile/%s has no row in README.md", e->d_name);
    }
    closedir(d);
}

/* ---- plan ---- */

Test(cli_plan, plan_prints_the_baseline_makespan_and_bubbles)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "plan", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    /* 7 x (13 + 26) + (43 + 86) + 6 x 0.2: see test_plan.c. */
    cr_assert_not_null(strstr(r.out, "baseline makespan      403.200 ms"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "bubble"));
    proc_result_free(&r);
}

/* A step of nanoseconds prints its makespans, not 0.000 ms. */
Test(cli_plan, a_step_under_a_microsecond_prints_its_makespans_in_full)
{
    temp_spec t;
    temp_spec_write(&t, "tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: a, numel: 1}]\n"
                        "    - params: [{name: b, numel: 1}]\npipeline: {schedule: 1F1B, ranks: 2, microbatches: 4}\n"
                        "timing: {forward_ms: 1e-9, backward_ms: 2e-9, backward_frozen_ms: 1e-9}\n");
    proc_result r;
    cr_assert(proc_tfc(&r, "plan", t.path, NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_null(strstr(r.out, "0.000 ms"), "%s", r.out);
    /* 1F1B, 2 stages, 4 microbatches: (4 + 1) x (F + B) = 15e-9 ms, to the last bit */
    const char *base = strstr(r.out, "baseline makespan   1.5");
    cr_assert(base && strtod(base + 20, NULL) > 1.49999e-8 && strtod(base + 20, NULL) < 1.50001e-8, "%s", r.out);
    proc_result_free(&r);
    temp_spec_remove(&t);
}

Test(cli_plan, plan_json_for_a_custom_csv_schedule)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "plan", "--json", TFC_SOURCE_DIR "/tests/specs/custom_1f1b.yaml", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\"schedule\": \"custom\""));
    size_t actions = 0;
    for (const char *q = r.out; (q = strstr(q, "\"type\": ")); q++)
        actions++;
    cr_assert_eq(actions, 16);
    proc_result_free(&r);
}

Test(cli_plan, deadlocking_custom_schedule_exits_1_with_the_cycle_at_its_csv_cell)
{
    const char *verbs[] = {"check", "plan"};
    for (size_t i = 0; i < 2; i++) {
        proc_result r;
        cr_assert(proc_tfc(&r, verbs[i], TFC_SOURCE_DIR "/tests/specs/custom_deadlock.yaml", NULL));
        assert_clean(&r, verbs[i]);
        cr_assert_eq(r.exit_code, 1, "%s", r.err);
        cr_assert(has_error_line(r.err, TFC_SOURCE_DIR "/tests/specs/custom_deadlock.csv", 2, 1,
                                 "the schedule deadlocks: these 2 actions wait for each other in a cycle: 1B0 (rank 1) "
                                 "-> 1F0 (rank 1) -> 1B0 (rank 1)"),
                  "%s", r.err);
        cr_assert_eq(r.out_len, 0);
        proc_result_free(&r);
    }
}

Test(cli_plan, missing_custom_csv_is_an_io_error)
{
    temp_spec t;
    temp_spec_write(&t, "tfc: 1\nname: c\nmodel:\n  stages:\n    - params: [{name: a, numel: 1}]\n"
                        "pipeline: {schedule: custom, ranks: 1, microbatches: 1, order: nowhere.csv}\n"
                        "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n");
    const char *path = t.path, *dir = t.dir;
    proc_result r;
    cr_assert(proc_tfc(&r, "check", path, NULL));
    cr_assert_eq(r.exit_code, 4, "%s", r.err);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/nowhere.csv", dir);
    cr_assert(has_error_line(r.err, csv, 0, 0, "cannot open"), "%s", r.err);
    /* ...and a note points at the spec line that named it. */
    char note[700];
    snprintf(note, sizeof note, "%s:6:64: note: named by pipeline.order here", path);
    cr_assert_not_null(strstr(r.err, note), "%s", r.err);
    proc_result_free(&r);
    temp_spec_remove(&t);
}

Test(cli_plan, microbatch_count_interleaving_cannot_take_is_refused_at_its_position)
{
    char text[1024];
    size_t o = (size_t)snprintf(text, sizeof text, "tfc: 1\nname: i\nmodel:\n  stages:\n");
    for (int i = 0; i < 8; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "    - params: [{name: a, numel: 1}]\n");
    snprintf(text + o, sizeof text - o,
             "pipeline: {schedule: Interleaved1F1B, ranks: 4, stages_per_rank: 2, microbatches: 9}\n"
             "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n");
    temp_spec t;
    temp_spec_write(&t, text);
    const char *path = t.path;
    proc_result r;
    cr_assert(proc_tfc(&r, "plan", path, NULL));
    cr_assert_eq(r.exit_code, 1, "%s", r.err);
    cr_assert(has_error_line(r.err, path, 13, 83, "9 is not a multiple of 2"), "%s", r.err);
    proc_result_free(&r);
    temp_spec_remove(&t);
}

Test(cli_plan, plan_output_is_byte_identical_across_runs)
{
    /* Same spec, same tfc: same bytes (no timings, no addresses, no clocks). */
    const char *specs[] = {TFC_SOURCE_DIR "/specs/llama8b_zbv.yaml", TFC_SOURCE_DIR "/specs/llama8b_interleaved.yaml"};
    for (size_t i = 0; i < 2; i++) {
        proc_result a, b;
        cr_assert(proc_tfc(&a, "plan", "--json", specs[i], NULL));
        cr_assert(proc_tfc(&b, "plan", "--json", specs[i], NULL));
        cr_assert_eq(a.exit_code, 0, "%s", a.err);
        cr_assert_eq(a.out_len, b.out_len);
        cr_assert(memcmp(a.out, b.out, a.out_len) == 0, "%s differs between runs", specs[i]);
        proc_result_free(&a);
        proc_result_free(&b);
        cr_assert(proc_tfc(&a, "plan", "--dump-lp", "-", specs[i], NULL));
        cr_assert(proc_tfc(&b, "plan", "--dump-lp", "-", specs[i], NULL));
        cr_assert_eq(a.exit_code, 0, "%s", a.err);
        cr_assert(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0);
        proc_result_free(&a);
        proc_result_free(&b);
    }
}

Test(cli_plan, policies_and_usage)
{
    proc_result r;
    cr_assert(proc_tfc(&r, "plan", "--policy", "greedy", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", NULL));
    cr_assert_eq(r.exit_code, 2);
    cr_assert_not_null(strstr(r.err, "--policy must be timely, uniform or none"));
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "plan", "--lp-timeout", "soon", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", NULL));
    cr_assert_eq(r.exit_code, 2);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "plan", "--lp-timeout=", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", NULL));
    cr_assert_eq(r.exit_code, 2, "an empty time limit is not 'no limit'");
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "plan", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", "--policy", NULL));
    cr_assert_eq(r.exit_code, 2);
    cr_assert_not_null(strstr(r.err, "needs a value"));
    proc_result_free(&r);
    /* --policy=none form; none reproduces the baseline. */
    cr_assert(proc_tfc(&r, "plan", "--policy=none", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "optimised makespan     403.200 ms  (policy none"), "%s", r.out);
    proc_result_free(&r);
}

Test(cli_plan, a_schedule_past_the_lp_limit_exits_3_at_once_and_uniform_still_plans)
{
    temp_spec t;
    temp_spec_write(&t, "tfc: 1\nname: big\nmodel:\n  stages:\n    - params: [{name: a, numel: 1}]\n"
                        "    - params: [{name: a, numel: 1}]\n"
                        "pipeline: {schedule: GPipe, ranks: 2, microbatches: 65536}\n"
                        "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\nfreeze: {max_ratio: 0.5}\n");
    const char *path = t.path;
    proc_result r;
    cr_assert(proc_tfc(&r, "plan", path, NULL));
    assert_clean(&r, "plan");
    cr_assert_eq(r.exit_code, 3, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "262144 actions; the freeze LP is limited to 100000"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, ".yaml:7:53: note: the actions are ranks x stages_per_rank x microbatches"),
                       "%s", r.err);
    cr_assert_lt(r.cpu_seconds, time_bound_s);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "plan", "--policy", "uniform", path, NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    /* GPipe, uniform durations: (m + p - 1)(f + b) = 65537 x 3 ms, then every
     * backward at half-frozen (2 - 0.5) ms: 65537 x 2.5 ms. */
    cr_assert_not_null(strstr(r.out, "baseline makespan   196611.000 ms"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "optimised makespan  163842.500 ms"), "%s", r.out);
    proc_result_free(&r);
    temp_spec_remove(&t);
}

/* Past the LP's limit with nothing to freeze (no freeze section, or a cap
 * of 0), the plan is the baseline, as the LP would say: the makespan is
 * GPipe's (m + p - 1)(f + b), nothing frozen; a cap above 0 still exits 3. */
Test(cli_plan, past_the_lp_limit_a_spec_that_freezes_nothing_plans_its_baseline)
{
    const char *head = "tfc: 1\nname: big\nmodel:\n  stages:\n    - params: [{name: a, numel: 1}]\n"
                       "    - params: [{name: a, numel: 1}]\n"
                       "pipeline: {schedule: GPipe, ranks: 2, microbatches: 65536}\n"
                       "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\n";
    const char *tails[] = {"", "freeze: {max_ratio: 0}\n"};
    for (size_t k = 0; k < 2; k++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml, "%s%s", head, tails[k]);
        temp_spec t;
        temp_spec_write(&t, yaml);
        proc_result r;
        cr_assert(proc_tfc(&r, "plan", t.path, "--json", NULL));
        cr_assert_eq(r.exit_code, 0, "%s", r.err);
        cr_assert_not_null(strstr(r.out, "\"makespan_ms\": 196611,"), "%s", r.out);
        cr_assert_not_null(strstr(r.out, "\"baseline_makespan_ms\": 196611,"), "%.400s", r.out);
        cr_assert_not_null(strstr(r.out, "\"t_star_ms\": 196611,"), "%.400s", r.out);
        cr_assert_not_null(strstr(r.out, "\"total_freeze\": 0,"), "%.400s", r.out);
        cr_assert_lt(r.cpu_seconds, time_bound_s);
        proc_result_free(&r);
        temp_spec_remove(&t);
    }
}

/* Below the LP's limit a spec that freezes nothing plans at once too: at a
 * cap of 0 the decomposition's phase 1 crawled (thousands of rounds; 1F1B
 * 24 x 24, 1,152 actions, took 40 s and more without a freeze section). */
Test(cli_plan, a_spec_that_freezes_nothing_plans_at_once_below_the_lp_limit)
{
    char yaml[4096] = "tfc: 1\nname: none\nmodel:\n  stages:\n";
    for (int i = 0; i < 24; i++)
        strcat(yaml, "    - params: [{name: a, numel: 1}]\n");
    strcat(yaml, "pipeline: {schedule: 1F1B, ranks: 24, microbatches: 24}\ntiming:\n");
    static const char *const keys[] = {"forward_ms", "backward_ms", "backward_frozen_ms"};
    static const char *const ms[][2] = {{"1.0", "1.3"}, {"2.0", "2.6"}, {"1.0", "1.3"}};
    for (int k = 0; k < 3; k++) {
        size_t o = strlen(yaml);
        o += (size_t)snprintf(yaml + o, sizeof yaml - o, "  %s: [", keys[k]);
        for (int i = 0; i < 24; i++)
            o += (size_t)snprintf(yaml + o, sizeof yaml - o, "%s%s", i ? ", " : "", ms[k][i % 2]);
        snprintf(yaml + o, sizeof yaml - o, "]\n");
    }
    temp_spec t;
    temp_spec_write(&t, yaml);
    proc_result r;
    cr_assert(proc_tfc(&r, "plan", t.path, "--json", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\"total_freeze\": 0,"), "%.400s", r.out);
    cr_assert_lt(r.cpu_seconds, time_bound_s, "%.2f s of CPU", r.cpu_seconds);
    proc_result_free(&r);
    temp_spec_remove(&t);
}

/* ---- tfc compile ---- */

Test(cli_compile, usage_mistakes_exit_2_and_write_nothing)
{
    char dir[] = "/tmp/tfc-cc-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char out[64];
    snprintf(out, sizeof out, "%s/o", dir);
    const char *spec = TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml";
    proc_result r;
    cr_assert(proc_tfc(&r, "compile", spec, "-o", "", NULL));
    cr_assert_eq(r.exit_code, 2, "%s", r.err);
    proc_result_free(&r);
    const char *empty_names[] = {"--sweep", "--compare", "--dump-lp"}; /* plan's outputs alike */
    for (size_t i = 0; i < 3; i++) {
        cr_assert(proc_tfc(&r, "plan", spec, empty_names[i], "", NULL));
        cr_assert_eq(r.exit_code, 2, "%s: %s", empty_names[i], r.err);
        cr_assert_not_null(strstr(r.err, "needs a"), "%s: %s", empty_names[i], r.err);
        proc_result_free(&r);
    }
    cr_assert(proc_tfc(&r, "compile", spec, "-o", out, "--require-cuda-check", "--skip-cuda-check", NULL));
    cr_assert_eq(r.exit_code, 2, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "contradict"));
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "compile", spec, "-o", out, "--policy", "fast", NULL));
    cr_assert_eq(r.exit_code, 2, "%s", r.err);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "compile", "/nonexistent/spec.yaml", "-o", out, NULL));
    cr_assert_eq(r.exit_code, 4, "%s", r.err);
    proc_result_free(&r);
    cr_assert_eq(access(out, F_OK), -1, "nothing written");
    cr_assert_eq(rmdir(dir), 0);
}

Test(cli_compile, writes_the_folder_and_says_what_it_did)
{
    char dir[] = "/tmp/tfc-cc-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char out[64], manifest[96];
    snprintf(out, sizeof out, "%s/o", dir);
    snprintf(manifest, sizeof manifest, "%s/MANIFEST", out);
    proc_result r;
    cr_assert(proc_tfc(&r, "compile", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", "-o", out, "--skip-cuda-check", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "22 files"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "CUDA check skipped"), "%s", r.out);
    cr_assert_eq(access(manifest, R_OK), 0);
    proc_result_free(&r);
    /* A file where the folder should go: exit 4, file untouched. (No
     * NVRTC check: under ASan with other tests running it took the call
     * past proc_tfc's 10 s once.) */
    cr_assert(proc_tfc(&r, "compile", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", "-o", manifest, "--skip-cuda-check",
                       NULL));
    cr_assert_eq(r.exit_code, 4, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "error:"), "%s", r.err);
    proc_result_free(&r);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The charts' titles and diff's header say one of a thing in the singular too. */
Test(cli_compile, charts_and_diff_say_one_of_a_thing_in_the_singular)
{
    temp_spec t;
    temp_spec_write(&t, one_of_everything);
    char out[600], sweep[600], cmp[600], plan[700], cmd[2000];
    snprintf(out, sizeof out, "%s/out", t.dir);
    snprintf(sweep, sizeof sweep, "%s/sweep", t.dir);
    snprintf(cmp, sizeof cmp, "%s/cmp", t.dir);
    proc_result r;
    cr_assert(proc_tfc(&r, "compile", t.path, "-o", out, "--skip-cuda-check", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "plan", t.path, "-q", "--sweep", sweep, NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "plan", t.path, "-q", "--compare", cmp, NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    const char *const charts[][2] = {{out, "timeline.svg"}, {sweep, "pareto.svg"}, {cmp, "compare.svg"}};
    for (size_t i = 0; i < 3; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", charts[i][0], charts[i][1]);
        const char *text = slurp(path);
        cr_assert_not_null(strstr(text, "1 rank, 1 microbatch<"), "%s: %.400s", path, text);
    }
    snprintf(plan, sizeof plan, "%s/plan.json", out);
    cr_assert(proc_tfc(&r, "diff", plan, plan, NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, ", GPipe, 1 rank, 1 stage, 1 microbatch ("), "%s", r.out);
    proc_result_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", out, sweep, cmp);
    cr_assert_eq(system(cmd), 0);
    temp_spec_remove(&t);
}

Test(cli_compile, depfile_names_every_output_and_every_input_the_spec_names)
{
    char dir[] = "/tmp/tfc-dep-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char out[96], dep[96], cmd[512];
    snprintf(out, sizeof out, "%s/out dir", dir); /* a space Make must see escaped */
    snprintf(dep, sizeof dep, "%s/x.d", dir);
    proc_result r;
    cr_assert(proc_tfc(&r, "compile", TFC_SOURCE_DIR "/specs/llama8b_custom.yaml", "-o", out, "--skip-cuda-check",
                       "--depfile", dep, "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    const char *d = slurp(dep);
    /* Targets: every file in the folder, escaped; then the spec and its CSV. */
    cr_assert_not_null(strstr(d, "out\\ dir/MANIFEST"), "%s", d);
    cr_assert_not_null(strstr(d, "out\\ dir/llama8b_custom.h"), "%s", d);
    cr_assert_not_null(strstr(d, "out\\ dir/plan.json"), "%s", d);
    const char *colon = strstr(d, ": ");
    cr_assert_not_null(colon, "%s", d);
    cr_assert_not_null(strstr(colon, "specs/llama8b_custom.yaml"), "%s", d);
    cr_assert_not_null(strstr(colon, "specs/llama8b_custom.csv"), "the order CSV is an input: %s", d);
    size_t targets = 0;
    for (const char *p = strstr(d, "out\\ dir/"); p && p < colon; p = strstr(p + 1, "out\\ dir/"))
        targets++;
    snprintf(cmd, sizeof cmd, "ls '%s' | wc -l > '%s/n'", out, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/n", dir);
    cr_assert_eq(targets, (size_t)atoi(slurp(cmd)), "one target per file written: %s", d);
    /* A built-in schedule names no other file. */
    cr_assert(proc_tfc(&r, "compile", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", "-o", out, "--skip-cuda-check",
                       "--depfile", dep, "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    d = slurp(dep);
    cr_assert_not_null(strstr(d, ": " TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml\n"), "%s", d);
    /* Make itself reads it, with every special character in the paths (a
     * timestamped trace name has colons): up to date after the compile,
     * out of date once the order CSV changes. */
    snprintf(cmd, sizeof cmd,
             "mkdir '%s/in:1 #$' && cp " TFC_SOURCE_DIR "/specs/llama8b_custom.yaml " TFC_SOURCE_DIR
             "/specs/llama8b_custom.csv '%s/in:1 #$/'",
             dir, dir);
    cr_assert_eq(system(cmd), 0);
    char spec2[128], out2[128];
    snprintf(spec2, sizeof spec2, "%s/in:1 #$/llama8b_custom.yaml", dir);
    snprintf(out2, sizeof out2, "%s/o:2 #$", dir);
    cr_assert(proc_tfc(&r, "compile", spec2, "-o", out2, "--skip-cuda-check", "--depfile", dep, "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    /* The first target as written (up to its first unescaped space) gets a
     * recipe, so that make -q can say whether it needs remaking. */
    d = slurp(dep);
    size_t first = 0;
    while (d[first] && !(d[first] == ' ' && first > 0 && d[first - 1] != '\\'))
        first++;
    snprintf(cmd, sizeof cmd, "%s/M", dir);
    FILE *mk = fopen(cmd, "w");
    cr_assert_not_null(mk);
    fprintf(mk, "include x.d\n%.*s:\n\t@echo remade\n", (int)first, d);
    cr_assert_eq(fclose(mk), 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && make -s -q -f M", dir);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "make does not find the outputs up to date: %d\n%s", st,
              slurp(dep));
    snprintf(cmd, sizeof cmd, "touch -d '+1 hour' '%s/in:1 #$/llama8b_custom.csv' && cd '%s' && make -s -q -f M",
             dir, dir);
    st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "make does not see the CSV changed: %d\n%s", st, slurp(dep));
    /* The name, as tfc_generate asks for it. */
    cr_assert(proc_tfc(&r, "check", TFC_SOURCE_DIR "/specs/llama8b_custom.yaml", "--print-name", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "llama8b_custom\n");
    proc_result_free(&r);
    /* The inputs, as tfc_generate asks for them: the ones the depfile names
     * after the spec, one a line, resolved against the spec's folder. */
    cr_assert(proc_tfc(&r, "check", spec2, "--print-inputs", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    snprintf(cmd, sizeof cmd, "%s/in:1 #$/llama8b_custom.csv\n", dir);
    cr_assert_str_eq(r.out, cmd);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "check", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", "--print-inputs", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "", "a built-in schedule and tables name no file");
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "check", spec2, "--print-inputs", "--print-name", NULL));
    cr_assert_eq(r.exit_code, 2, "%s", r.err);
    proc_result_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* A folder tfc wrote that holds a file its MANIFEST does not list (notes, a
 * spec copied in) is not replaced: replacing it would delete the file. A
 * depfile inside the output folder is refused before anything is written
 * (it went with the old folder, and compile failed after replacing it). */
Test(cli_compile, a_folder_holding_other_files_or_the_depfile_is_not_replaced)
{
    char dir[] = "/tmp/tfc-extra-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char gen[96], cmd[512], dep[128], manifest[128], before[8192];
    snprintf(gen, sizeof gen, "%s/gen", dir);
    snprintf(manifest, sizeof manifest, "%s/MANIFEST", gen);
    const char *spec = TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml";
    const char *other = TFC_SOURCE_DIR "/specs/llama8b_gpipe.yaml";
    proc_result r;
    cr_assert(proc_tfc(&r, "compile", spec, "-o", gen, "--skip-cuda-check", "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    snprintf(before, sizeof before, "%s", slurp(manifest));
    const char *extras[] = {"NOTES.md", ".keep", "sub"};
    for (int k = 0; k < 3; k++) {
        snprintf(cmd, sizeof cmd, k == 2 ? "mkdir '%s/%s'" : "echo mine > '%s/%s'", gen, extras[k]);
        cr_assert_eq(system(cmd), 0);
        cr_assert(proc_tfc(&r, "compile", other, "-o", gen, "--skip-cuda-check", "-q", NULL));
        cr_assert_eq(r.exit_code, 4, "%s: %s", extras[k], r.err);
        cr_assert_not_null(strstr(r.err, "which its MANIFEST does not list"), "%s", r.err);
        cr_assert_not_null(strstr(r.err, extras[k]), "%s", r.err);
        proc_result_free(&r);
        cr_assert_str_eq(slurp(manifest), before, "the folder was replaced");
        snprintf(cmd, sizeof cmd, "test -e '%s/%s' && rm -r '%s/%s'", gen, extras[k], gen, extras[k]);
        cr_assert_eq(system(cmd), 0, "%s is gone", extras[k]);
    }
    /* the depfile inside, by two spellings: refused, the folder as it was */
    const char *inside[] = {"%s/gen/x.d", "%s/gen/../gen/.d"};
    for (int k = 0; k < 2; k++) {
        snprintf(dep, sizeof dep, inside[k], dir);
        cr_assert(proc_tfc(&r, "compile", other, "-o", gen, "--skip-cuda-check", "-q", "--depfile", dep, NULL));
        cr_assert_eq(r.exit_code, 4, "%s", r.err);
        cr_assert_not_null(strstr(r.err, "--depfile is inside the output folder"), "%s", r.err);
        proc_result_free(&r);
        cr_assert_str_eq(slurp(manifest), before, "the folder was replaced");
    }
    /* beside it: written, and the folder replaced */
    snprintf(dep, sizeof dep, "%s/gen.d", dir);
    cr_assert(proc_tfc(&r, "compile", other, "-o", gen, "--skip-cuda-check", "-q", "--depfile", dep, NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    cr_assert_str_neq(slurp(manifest), before);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* --compare plans every schedule by the freeze LP, as its warning says
 * when --policy is given: the same table with --policy uniform or none
 * (it planned each schedule at the given policy, 1.0000x under none). */
Test(cli_plan, compare_ignores_the_policy_it_says_it_ignores)
{
    char dir[] = "/tmp/tfc-cmppol-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *spec = TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml";
    const char *policies[] = {NULL, "uniform", "none"};
    char *csv[3];
    for (int k = 0; k < 3; k++) {
        char out[96], path[128];
        snprintf(out, sizeof out, "%s/c%d", dir, k);
        proc_result r;
        if (policies[k])
            cr_assert(proc_tfc(&r, "plan", spec, "--compare", out, "--policy", policies[k], "-q", NULL));
        else
            cr_assert(proc_tfc(&r, "plan", spec, "--compare", out, "-q", NULL));
        cr_assert_eq(r.exit_code, 0, "%s", r.err);
        if (policies[k])
            cr_assert_not_null(strstr(r.err, "is not used by --compare"), "%s", r.err);
        proc_result_free(&r);
        snprintf(path, sizeof path, "%s/compare.csv", out);
        csv[k] = strdup(slurp(path));
        cr_assert_not_null(csv[k], "%s", path);
    }
    for (int k = 1; k < 3; k++)
        cr_assert_str_eq(csv[k], csv[0], "--policy %s changed compare.csv", policies[k]);
    for (int k = 0; k < 3; k++)
        free(csv[k]);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(cli_compile, a_folder_of_another_kind_of_output_is_not_replaced)
{
    char dir[] = "/tmp/tfc-kind-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char gen[96], sweep[96], cmd[512];
    snprintf(gen, sizeof gen, "%s/gen", dir);
    snprintf(sweep, sizeof sweep, "%s/sweep", dir);
    const char *spec = TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml";
    proc_result r;
    cr_assert(proc_tfc(&r, "compile", spec, "-o", gen, "--skip-cuda-check", "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "plan", spec, "--sweep", sweep, "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_eq(r.err[0], '\0', "%s", r.err);
    proc_result_free(&r);
    /* --policy given to a sweep, which plans both policies: said, not ignored */
    cr_assert(proc_tfc(&r, "plan", spec, "--sweep", sweep, "--policy", "uniform", "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "warning: --policy uniform is not used by --sweep"), "%s", r.err);
    proc_result_free(&r);
    /* a sweep over the generated code, and code over the sweep: refused,
     * each folder as it was */
    cr_assert(proc_tfc(&r, "plan", spec, "--sweep", gen, "-q", NULL));
    cr_assert_eq(r.exit_code, 4, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "holds another kind of tfc output"), "%s", r.err);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "compile", spec, "-o", sweep, "--skip-cuda-check", "-q", NULL));
    cr_assert_eq(r.exit_code, 4, "%s", r.err);
    proc_result_free(&r);
    snprintf(cmd, sizeof cmd, "test -f '%s/llama8b_1f1b.h' && test -f '%s/pareto.csv' && test ! -e '%s/plan.json'", gen,
             sweep, sweep);
    cr_assert_eq(system(cmd), 0, "a folder was replaced");
    /* the same kind again is replaced as always */
    cr_assert(proc_tfc(&r, "compile", TFC_SOURCE_DIR "/specs/llama8b_gpipe.yaml", "-o", gen, "--skip-cuda-check", "-q",
                       NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Two folders whose names differ only in letter case are one folder on a
 * case-insensitive file system (macOS, Windows), where the second write
 * replaces the first (specs "Llama" and "llama" compiled under generated/,
 * say): compile's and --sweep's folders beside such a twin get a warning
 * naming it; on this (case-sensitive) file system both are written and the
 * twin is left as it was; the same name again writes without the warning. */
Test(cli_compile, a_folder_beside_one_differing_only_in_letter_case_is_warned_of)
{
    char dir[] = "/tmp/tfc-case-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char upper[96], lower[96], sweep[96], manifest[128], before[8192], cmd[512];
    snprintf(upper, sizeof upper, "%s/Gen", dir);
    snprintf(lower, sizeof lower, "%s/gen", dir);
    snprintf(sweep, sizeof sweep, "%s/GEN", dir);
    snprintf(manifest, sizeof manifest, "%s/MANIFEST", upper);
    const char *spec = TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml";
    const char *other = TFC_SOURCE_DIR "/specs/llama8b_gpipe.yaml";
    proc_result r;
    cr_assert(proc_tfc(&r, "compile", spec, "-o", upper, "--skip-cuda-check", "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_null(strstr(r.err, "letter case"), "%s", r.err);
    proc_result_free(&r);
    snprintf(before, sizeof before, "%s", slurp(manifest));
    cr_assert(proc_tfc(&r, "compile", other, "-o", lower, "--skip-cuda-check", "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    char want[192];
    snprintf(want, sizeof want, "%s: warning: differs only in letter case from Gen beside it", lower);
    cr_assert_not_null(strstr(r.err, want), "%s", r.err);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "plan", spec, "--sweep", sweep, "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "warning: differs only in letter case from"), "%s", r.err);
    proc_result_free(&r);
    snprintf(cmd, sizeof cmd, "test -f '%s/MANIFEST' && test -f '%s/MANIFEST'", lower, sweep);
    cr_assert_eq(system(cmd), 0, "a folder beside Gen was not written");
    cr_assert_str_eq(slurp(manifest), before, "Gen was replaced");
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", lower, sweep);
    cr_assert_eq(system(cmd), 0);
    cr_assert(proc_tfc(&r, "compile", other, "-o", upper, "--skip-cuda-check", "-q", NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    cr_assert_null(strstr(r.err, "letter case"), "%s", r.err);
    proc_result_free(&r);
    cr_assert_str_neq(slurp(manifest), before);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(cli_compile, a_depfile_that_cannot_be_written_leaves_the_folder_as_it_was)
{
    char dir[] = "/tmp/tfc-dep-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char out[96], fresh[96], dep[96], manifest[128], cmd[512];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(fresh, sizeof fresh, "%s/fresh", dir);
    snprintf(dep, sizeof dep, "%s/dep.d", dir);
    snprintf(manifest, sizeof manifest, "%s/MANIFEST", out);
    cr_assert_eq(mkdir(dep, 0777), 0); /* a folder where the depfile should go */
    proc_result r;
    cr_assert(proc_tfc(&r, "compile", TFC_SOURCE_DIR "/specs/llama8b_1f1b.yaml", "-o", out, "--skip-cuda-check", "-q",
                       NULL));
    cr_assert_eq(r.exit_code, 0, "%s", r.err);
    proc_result_free(&r);
    char before[65536];
    snprintf(before, sizeof before, "%s", slurp(manifest));
    /* Another spec into the same folder, the depfile refused: exit 4, the
     * folder still the first spec's; into a new folder: none made. */
    cr_assert(proc_tfc(&r, "compile", TFC_SOURCE_DIR "/specs/llama8b_gpipe.yaml", "-o", out, "--skip-cuda-check",
                       "--depfile", dep, "-q", NULL));
    cr_assert_eq(r.exit_code, 4, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "dep.d: error: cannot write"), "%s", r.err);
    proc_result_free(&r);
    cr_assert_str_eq(slurp(manifest), before, "the folder changed although the compile failed");
    cr_assert(proc_tfc(&r, "compile", TFC_SOURCE_DIR "/specs/llama8b_gpipe.yaml", "-o", fresh, "--skip-cuda-check",
                       "--depfile", dep, "-q", NULL));
    cr_assert_eq(r.exit_code, 4, "%s", r.err);
    proc_result_free(&r);
    cr_assert_neq(access(fresh, F_OK), 0, "a folder was made although the compile failed");
    /* nothing left beside the depfile's place */
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c tfc-tmp > '%s/n'", dir, out);
    (void)system(cmd);
    snprintf(cmd, sizeof cmd, "%s/n", out);
    cr_assert_eq(atoi(slurp(cmd)), 0, "a temporary file was left behind");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ---- tfc help TOPIC: the reference pages, as the docs hold them ---- */

Test(cli, help_topics_print_the_docs_exactly)
{
    const char *topics[] = {"spec",    "schedules", "freeze-lp",       "plan-json",
                            "codegen", "lcp-index", "time-to-quality", "optimizer-contract"};
    for (size_t i = 0; i < sizeof topics / sizeof *topics; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/docs/%s.md", TFC_SOURCE_DIR, topics[i]);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        static char doc[1 << 18];
        size_t n = fread(doc, 1, sizeof doc - 1, f);
        fclose(f);
        doc[n] = '\0';
        proc_result r;
        cr_assert(proc_tfc(&r, "help", topics[i], NULL));
        cr_assert_eq(r.exit_code, 0, "%s", topics[i]);
        cr_assert_eq(r.out_len, n, "%s: %zu bytes, the doc has %zu", topics[i], r.out_len, n);
        cr_assert(memcmp(r.out, doc, n) == 0, "%s differs from docs/%s.md", topics[i], topics[i]);
        proc_result_free(&r);
    }
    proc_result r;
    cr_assert(proc_tfc(&r, "help", "spek", NULL));
    cr_assert_eq(r.exit_code, 2);
    cr_assert_not_null(strstr(r.err, "did you mean 'spec'"), "%s", r.err);
    proc_result_free(&r);
    cr_assert(proc_tfc(&r, "help", "time-to-qualty", NULL));
    cr_assert_eq(r.exit_code, 2);
    cr_assert_not_null(strstr(r.err, "did you mean 'time-to-quality'"), "%s", r.err);
    proc_result_free(&r);
}
