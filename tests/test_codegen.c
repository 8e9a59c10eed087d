/* Code generation: SHA-256 against the standard's vectors, template
 * filling, C string escaping (decoded back independently), reproducible
 * emission, NVRTC's verdicts, and the atomic folder writer's refusals and
 * cleanup. The generated code itself is compiled and run by
 * tests/codegen/check.sh. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit.h"
#include "emit_util.h"
#include "gen.h"
#include "nvrtc_check.h"
#include "outdir.h"
#include "plan.h"
#include "sha256.h"
#include "specbuf.h"
#include "embedded.h"
#include "tmpl.h"

/* ---- SHA-256: FIPS 180-4 example vectors ---- */

Test(sha256, standard_vectors)
{
    char hex[65];
    sha256_hex("", 0, hex);
    cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(two, strlen(two), hex);
    cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, a_million_a_in_uneven_pieces)
{
    sha256_ctx c;
    sha256_init(&c);
    char block[1000];
    memset(block, 'a', sizeof block);
    size_t left = 1000000, piece = 1;
    while (left) {
        size_t n = piece < left ? piece : left;
        sha256_update(&c, block, n);
        left -= n;
        piece = piece % 991 + 7; /* 7..997 bytes: crosses block boundaries at every offset */
    }
    unsigned char d[32];
    sha256_final(&c, d);
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* ---- templates ---- */

static char *render(const char *text, const tmpl_var *v, size_t n, bool *ok, char *why)
{
    gen_writer w;
    cr_assert(gen_open(&w));
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    *ok = tmpl_render(w.f, text, v, n, &d);
    snprintf(why, 128, "%s", d.n ? d.items[0].msg : "");
    diag_free(&d);
    return emit_block_close(&w);
}

Test(tmpl, fills_placeholders_once_and_refuses_unknown_ones)
{
    tmpl_var v[] = {{"A", "x@B@y"}, {"B", "2"}};
    bool ok;
    char why[128];
    char *s = render("<@A@|@B@|@A@>", v, 2, &ok, why);
    cr_assert(ok);
    cr_assert_str_eq(s, "<x@B@y|2|x@B@y>", "a value is copied, never re-scanned");
    free(s);
    s = render("a @C@ b", v, 2, &ok, why);
    cr_assert(!ok);
    cr_assert_not_null(strstr(why, "@C@"), "%s", why);
    free(s);
    s = render("mail me@example", v, 2, &ok, why);
    cr_assert(!ok, "a stray @ is a template bug, not text");
    free(s);
}

Test(tmpl, every_embedded_template_is_there)
{
    const char *names[] = {"mask_core.inc", "public.h.in", "public.c.in", "stage.h.in", "stage.c.in", "stage.cu.in"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        cr_assert_not_null(tmpl_get(names[i]), "%s", names[i]);
    cr_assert_null(tmpl_get("nope"));
}

/* ---- C string literals: decoded back by an independent reader ---- */

/* Reads one C string literal as emit_c_string may write it (\", \\, \?,
 * \ooo); false on anything else, and on any '?' or '*' left bare. */
static bool decode_c_literal(const char *lit, char *out, size_t cap)
{
    size_t n = strlen(lit), k = 0;
    if (n < 2 || lit[0] != '"' || lit[n - 1] != '"')
        return false;
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char ch = (unsigned char)lit[i];
        if (ch < 0x20 || ch >= 0x7f || ch == '"')
            return false;
        if (ch == '?' || ch == '*')
            return false; /* no trigraph starts, nothing that reads like a comment */
        if (ch == '\\') {
            char e = lit[++i];
            if (e == '"' || e == '\\' || e == '?')
                ch = (unsigned char)e;
            else if (e >= '0' && e <= '7' && lit[i + 1] >= '0' && lit[i + 1] <= '7' && lit[i + 2] >= '0' &&
                     lit[i + 2] <= '7') {
                ch = (unsigned char)((e - '0') * 64 + (lit[i + 1] - '0') * 8 + (lit[i + 2] - '0'));
                i += 2;
            } else {
                return false;
            }
        }
        if (k + 1 >= cap)
            return false;
        out[k++] = (char)ch;
    }
    out[k] = '\0';
    return true;
}

Test(emit, c_strings_carry_hostile_names_as_data)
{
    const char *hostile[] = {
        "\"; system(\"x\"); //", "*/ int x; /*", "back\\slash", "new\nline\r", "?\?=?\?/?\?'", "caf\xc3\xa9",
        "tab\there", "0\0010", "\x7f\xff", "", "?\"?", "a*/b",
    };
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        gen_writer w;
        cr_assert(gen_open(&w));
        emit_c_string(w.f, hostile[i]);
        char *lit = emit_block_close(&w);
        char back[256];
        cr_assert(decode_c_literal(lit, back, sizeof back), "not a plain literal: %s", lit);
        cr_assert_str_eq(back, hostile[i], "round trip of case %zu: %s", i, lit);
        free(lit);
    }
}

Test(emit, spec_labels_are_bare_safe_file_names)
{
    char out[64];
    emit_spec_label("/abs/dir/spec.yaml", out, sizeof out);
    cr_assert_str_eq(out, "spec.yaml");
    emit_spec_label("x/ev il*\n.yaml", out, sizeof out);
    cr_assert_str_eq(out, "ev_il__.yaml");
    emit_spec_label("-", out, sizeof out);
    cr_assert_str_eq(out, "stdin");
    emit_spec_label("dir/", out, sizeof out);
    cr_assert_str_eq(out, "spec");
}

/* ---- the folder in memory ---- */

static const char small_spec[] = "tfc: 1\n"
                                 "name: small\n"
                                 "model:\n"
                                 "  stages:\n"
                                 "    - params: [{name: a, numel: 100}, {name: b, numel: 7}, {name: c, numel: 30}]\n"
                                 "    - params: [{name: d, numel: 5}]\n"
                                 "pipeline: {schedule: 1F1B, ranks: 2, stages_per_rank: 1, microbatches: 4}\n"
                                 "timing: {forward_ms: [1, 1.5], backward_ms: [2, 3], backward_frozen_ms: [1, 1.5]}\n"
                                 "freeze: {max_ratio: 0.5}\n";

static void emit_small(gen_folder *g, const char *label, loaded *l, plan **p)
{
    load_str(l, small_spec);
    cr_assert_eq(l->status, TFC_OK, "%s", l->dump);
    plan_options o = plan_default_options();
    cr_assert_eq(plan_build(l->s, &o, &l->a, &l->d, p), TFC_OK);
    emit_input in = {*p, label, l->s->sha256, l->s->inputs, l->s->n_inputs};
    memset(g, 0, sizeof *g);
    cr_assert(emit_folder(&in, g, &l->d), "%s", l->d.n ? l->d.items[0].msg : "");
    cr_assert_eq(emit_manifest(&in, g, &l->d), TFC_OK);
}

Test(emit, folder_lists_every_file_once_and_is_reproducible)
{
    loaded l1, l2;
    plan *p1, *p2;
    gen_folder g1, g2;
    emit_small(&g1, "s.yaml", &l1, &p1);
    emit_small(&g2, "s.yaml", &l2, &p2);
    const char *want[] = {"small.h",        "small.c",         "small_stage0.h",  "small_stage0.c",
                          "small_stage1.h", "small_stage1.c",  "small_stage0.cu", "small_stage1.cu",
                          "plan.json",      "schedule.csv",    "timeline.json",   "timeline.svg",
                          "MANIFEST"};
    cr_assert_eq(g1.n, sizeof want / sizeof *want);
    for (size_t i = 0; i < g1.n; i++) {
        cr_assert_str_eq(g1.files[i].name, want[i]);
        cr_assert_eq(g1.files[i].len, g2.files[i].len, "%s", want[i]);
        cr_assert(memcmp(g1.files[i].data, g2.files[i].data, g1.files[i].len) == 0, "%s differs", want[i]);
        cr_assert_null(strstr(g1.files[i].data, "/tmp"), "no absolute paths");
    }
    /* The MANIFEST names every other file with its sha256. */
    const gen_file *m = gen_find(&g1, "MANIFEST");
    for (size_t i = 0; i + 1 < g1.n; i++) {
        char hex[65], line[160];
        sha256_hex(g1.files[i].data, g1.files[i].len, hex);
        snprintf(line, sizeof line, "%s  %s\n", hex, g1.files[i].name);
        cr_assert_not_null(strstr(m->data, line), "%s", line);
    }
    cr_assert_not_null(strstr(m->data, l1.s->sha256));
    gen_folder_free(&g1);
    gen_folder_free(&g2);
    loaded_free(&l1);
    loaded_free(&l2);
}

/* The fixed-point ratios in the C file are floor(ratio * 2^32) of the
 * plan's ratios: recomputed here from the plan and found in the text. */
Test(emit, fixed_point_ratios_are_the_plans_floored)
{
    loaded l;
    plan *p;
    gen_folder g;
    emit_small(&g, "s.yaml", &l, &p);
    const gen_file *c = gen_find(&g, "small_stage1.c");
    cr_assert_not_null(c);
    for (uint32_t m = 0; m < 4; m++) {
        double r = p->x[sched_find(p->s, ACT_B, 1, m)];
        unsigned long long q = (unsigned long long)(r * 4294967296.0);
        cr_assert(q <= 4294967296ull);
        char needle[40];
        snprintf(needle, sizeof needle, "%lluull,", q);
        cr_assert_not_null(strstr(c->data, needle), "microbatch %u: %s", m, needle);
    }
    gen_folder_free(&g);
    loaded_free(&l);
}

/* ---- NVRTC ---- */

Test(nvrtc, rejects_broken_cuda_with_its_log_and_accepts_good_cuda)
{
    char *log = NULL;
    const char *why = "";
    nvrtc_result r = nvrtc_compile("bad.cu", "__global__ void k(void) { undeclared_thing(); }\n", "sm_90", &log, &why);
    if (r == NVRTC_UNAVAILABLE && getenv("CI") && *getenv("CI"))
        cr_assert_fail("NVRTC not available in CI, where every part but the GPU run is required: %s", why);
    if (r == NVRTC_UNAVAILABLE)
        cr_skip_test("NVRTC not available: %s", why);
    cr_assert_eq(r, NVRTC_ERROR);
    cr_assert_not_null(log);
    cr_assert_not_null(strstr(log, "undeclared_thing"), "%s", log);
    free(log);
    r = nvrtc_compile("good.cu", "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n", "sm_80", &log,
                      &why);
    cr_assert_eq(r, NVRTC_OK, "%s %s", why, log ? log : "");
    free(log);
}

/* ---- the atomic folder writer ---- */

static gen_folder two_files(const char *a_text)
{
    gen_folder g = {0};
    gen_writer w;
    cr_assert(gen_open(&w));
    fputs(a_text, w.f);
    cr_assert(gen_close(&g, "a.c", &w));
    cr_assert(gen_open(&w));
    /* (a MANIFEST lists every other file: outdir replaces no folder holding
     * one it does not list) */
    fputs("# tfc MANIFEST 1\n0000000000000000000000000000000000000000000000000000000000000000  a.c\n", w.f);
    cr_assert(gen_close(&g, "MANIFEST", &w));
    return g;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Entries in dir other than . and .. whose name contains frag. */
static int count_entries(const char *dir, const char *frag)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, frag))
            n++;
    closedir(d);
    return n;
}

Test(outdir, writes_replaces_and_refuses_what_is_not_its_own)
{
    char root[] = "/tmp/tfc-outdir-XXXXXX";
    cr_assert_not_null(mkdtemp(root));
    char dir[128], file[160], other[128];
    snprintf(dir, sizeof dir, "%s/deep/out", root);
    snprintf(file, sizeof file, "%s/a.c", dir);
    diag_list d;
    diag_init(&d, 8);

    gen_folder g1 = two_files("one\n"), g2 = two_files("two\n");
    cr_assert_eq(outdir_write(dir, &g1, &d), TFC_OK, "creates missing parents");
    cr_assert_str_eq(slurp(file), "one\n");
    cr_assert_eq(outdir_write(dir, &g2, &d), TFC_OK, "replaces its own folder");
    cr_assert_str_eq(slurp(file), "two\n");
    char parent[140];
    snprintf(parent, sizeof parent, "%s/deep", root);
    cr_assert_eq(count_entries(parent, ".tfc-"), 0, "no temporary folder left behind");

    /* A folder that is not tfc's: refused, untouched. */
    snprintf(other, sizeof other, "%s/mine", root);
    cr_assert_eq(mkdir(other, 0777), 0);
    char keep[160];
    snprintf(keep, sizeof keep, "%s/notes.txt", other);
    FILE *f = fopen(keep, "w");
    fputs("precious\n", f);
    fclose(f);
    cr_assert_eq(outdir_write(other, &g1, &d), TFC_IO);
    cr_assert_str_eq(slurp(keep), "precious\n");
    cr_assert_eq(count_entries(other, ""), 1);
    cr_assert_eq(count_entries(root, ".tfc-"), 0);

    /* A file in the way, and "." itself: refused. */
    cr_assert_eq(outdir_write(keep, &g1, &d), TFC_IO);
    cr_assert_str_eq(slurp(keep), "precious\n");
    cr_assert_eq(outdir_write(".", &g1, &d), TFC_IO);

    /* A write that fails half-way (a file name that cannot be created)
     * leaves the old folder and no temporary one. */
    gen_folder bad = two_files("three\n");
    free(bad.files[0].name);
    bad.files[0].name = strdup("no/such/sub/a.c");
    cr_assert_eq(outdir_write(dir, &bad, &d), TFC_IO);
    cr_assert_str_eq(slurp(file), "two\n");
    cr_assert_eq(count_entries(parent, ".tfc-"), 0);

    gen_folder_free(&g1);
    gen_folder_free(&g2);
    gen_folder_free(&bad);
    diag_free(&d);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_assert_eq(system(cmd), 0);
}
