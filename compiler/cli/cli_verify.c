/* cli_verify: tfc verify (a vendored folder against its MANIFEST, and
 * against what this tfc would write) and tfc diff (two plan.json). */
#define _POSIX_C_SOURCE 200809L
#include "cli_verify.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "cli_exit.h"
#include "cli_options.h"
#include "compile.h"
#include "emit.h"
#include "fio.h"
#include "json_read.h"
#include "plan_diff.h"
#include "real.h"
#include "sha256.h"
#include "spec.h"
#include "version.h"

const char cli_verify_help[] =
    "usage: tfc verify DIR [SPEC] [--policy timely|uniform|none] [--lp-timeout S]\n"
    "                  [--lp-method decompose|direct] [--spec-name NAME] [-q]\n"
    "\n"
    "Checks a generated folder (one that is vendored and pinned, say) against\n"
    "its MANIFEST: every file listed is there with its sha256, and nothing\n"
    "else is; each missing, changed or extra file is named. With SPEC, also\n"
    "compiles SPEC in memory (writing nothing; the options as compile had\n"
    "them, the policy by default the one the folder's plan.json records) and\n"
    "says whether this tfc would write the same bytes; if not, first which\n"
    "files SPEC names (order CSV, timing files) changed since the MANIFEST\n"
    "recorded their sha256, then which files differ, and whether the\n"
    "differences are only the version stamp, only the last digits of reals\n"
    "(a tfc built with other floating-point settings), only the MANIFEST, or\n"
    "the plan itself (schedule, makespans, ratios: tfc diff on the two\n"
    "plan.json shows how) or the code (the masks included).\n"
    "\n"
    "The files record the spec's file name ('stdin' for '-'). When the\n"
    "MANIFEST records another name than SPEC's (a spec renamed, or given on\n"
    "standard input), verify names both and says whether that name is all\n"
    "that differs; --spec-name NAME compiles SPEC as if it were called NAME\n"
    "(the recorded name, say; '-' or stdin for standard input), which is\n"
    "what tfc compile of SPEC under that name writes.\n"
    "\n"
    "Exit codes: 0 the folder matches its MANIFEST (and, with SPEC, this tfc\n"
    "writes the same bytes); 1 it does not (a difference in the last digits\n"
    "included); 2 usage (SPEC given for a tfc plan --sweep or --compare\n"
    "folder, which no compile writes: its MANIFEST is still checked); 4 the\n"
    "folder or SPEC cannot be read; 3 and 6 as for compile.\n";

const char cli_diff_help[] =
    "usage: tfc diff PLAN_A PLAN_B [--json] [--tolerance T]\n"
    "\n"
    "Compares two plan.json files (formats tfc-plan-1 and -2; '-' reads\n"
    "standard input): baseline and optimised makespans, speed-up, the\n"
    "predicted time to quality and its cap (time_to_quality, where a plan\n"
    "has one), each stage's mean freeze ratio, and every action, matched\n"
    "by (stage, microbatch, type), whose freeze ratio or start moved by\n"
    "more than T (default 1e-6; ratios, and milliseconds for starts and\n"
    "makespans) or that only one plan has. Text for people, --json for\n"
    "programs.\n"
    "\n"
    "Exit codes as diff(1): 0 the same, 1 different, 2 trouble (usage, a file\n"
    "that cannot be read or is not a plan).\n";

/* ---- tfc diff ---- */

int cli_diff(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    bool json = false;
    double tol = 1e-6;
    int np = 0;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            fputs(cli_diff_help, stdout);
            return EXIT_OK;
        } else if (strcmp(o, "--json") == 0) {
            json = true;
        } else if (strcmp(o, "--tolerance") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("diff", "--tolerance needs a value", NULL);
            char *end;
            tol = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(tol >= 0 && tol <= 1e9))
                return cli_usage_error("diff", "--tolerance must be a number from 0 to 1e9, got", argv[i]);
        } else if (o[0] == '-' && o[1]) {
            return cli_usage_error("diff", "unknown option", o);
        } else if (np < 2) {
            paths[np++] = o;
        } else {
            return cli_usage_error("diff", "takes two plans; extra argument", o);
        }
    }
    if (np < 2)
        return cli_usage_error("diff", "needs two plan.json files: tfc diff PLAN_A PLAN_B", NULL);
    if (strcmp(paths[0], "-") == 0 && strcmp(paths[1], "-") == 0)
        return cli_usage_error("diff", "only one of the plans can be standard input", NULL);
    arena a;
    arena_init(&a, 0);
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    plan_doc pa, pb;
    tfc_status st = plan_doc_load(paths[0], &a, &d, &pa);
    if (st == TFC_OK)
        st = plan_doc_load(paths[1], &a, &d, &pb);
    int r = 2;
    if (st == TFC_OK) {
        r = plan_diff_print(&pa, &pb, tol, json, stdout);
        if (r < 0) {
            diag_nomem(&d, "comparing the plans");
            r = 2;
        }
    }
    cli_report(&d, st);
    arena_free(&a);
    if (fflush(stdout) != 0)
        return 2;
    return r;
}

/* ---- tfc verify ---- */

/* The largest MANIFEST read (a line per file: at 1,024 stages with CUDA
 * about 3,100 lines, under 500 KB). */
#define MANIFEST_MAX_BYTES ((size_t)16 << 20)

/* One MANIFEST entry. */
typedef struct entry {
    char name[256];
    char sha[65];
} entry;

/* One "# input SHA  PATH" line: a file the spec names, the path as the
 * spec writes it. */
typedef struct input {
    const char *path; /* in the arena */
    char sha[65];
} input;

typedef struct manifest {
    char version[64];   /* "# tfc VERSION" */
    char spec[256];     /* the spec's file name in "# spec SHA  NAME" */
    char spec_sha[65];
    entry *e;
    size_t n;
    input *in; /* in the arena, room for SPEC_MAX_INPUTS */
    size_t n_in;
} manifest;

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* dir/name in the arena: diagnostics keep the file name they are given. */
static const char *ajoin(arena *a, const char *dir, const char *name)
{
    char *p = join(dir, name);
    const char *q = p ? arena_strndup(a, p, strlen(p)) : NULL;
    free(p);
    return q ? q : dir;
}

/* "SHA  REST" (64 hex digits, two spaces, something): REST, or NULL. */
static const char *after_sha(const char *l, char sha[65])
{
    if (strspn(l, "0123456789abcdef") != 64 || strncmp(l + 64, "  ", 2) != 0 || !l[66])
        return NULL;
    memcpy(sha, l, 64);
    sha[64] = '\0';
    return l + 66;
}

/* Parses a MANIFEST's text (buf, NUL-terminated, taken apart) into m; path
 * names it in messages. TFC_INVALID (with the line) when it is not one. */
static tfc_status parse_manifest(const char *path, char *buf, const char *dir, manifest *m, arena *a, diag_list *d)
{
    memset(m, 0, sizeof *m);
    tfc_status st;
    size_t cap = 64;
    m->e = malloc(cap * sizeof *m->e);
    unsigned line = 0;
    char *save = NULL;
    st = m->e ? TFC_OK : diag_nomem(d, "verifying %s", dir);
    for (char *l = strtok_r(buf, "\n", &save); l && st == TFC_OK; l = strtok_r(NULL, "\n", &save)) {
        line++;
        if (line == 1) {
            if (strncmp(l, "# tfc MANIFEST", 14) != 0) {
                diag_error(d, path, 1, 1, "not a tfc MANIFEST (it starts \"# tfc MANIFEST\")");
                st = TFC_INVALID;
            }
            continue;
        }
        if (l[0] == '#') {
            if (sscanf(l, "# tfc %63s", m->version) == 1 && strchr(m->version, '.'))
                continue;
            if (sscanf(l, "# spec %64s %255s", m->spec_sha, m->spec) == 2)
                continue;
            if (strncmp(l, "# input ", 8) == 0) {
                if (!m->in && !(m->in = arena_alloc_array(a, SPEC_MAX_INPUTS, sizeof *m->in))) {
                    st = diag_nomem(d, "verifying %s", dir);
                    break;
                }
                if (m->n_in == SPEC_MAX_INPUTS) {
                    diag_error(d, path, line, 1, "more input lines than a spec names (at most %u)", SPEC_MAX_INPUTS);
                    st = TFC_INVALID;
                    break;
                }
                input *in = &m->in[m->n_in];
                const char *name = after_sha(l + 8, in->sha);
                if (!name || strlen(name) > SPEC_MAX_PATH_BYTES) {
                    diag_error(d, path, line, 1, "not a MANIFEST input line (64 hex digits, two spaces, a path)");
                    st = TFC_INVALID;
                    break;
                }
                if (!(in->path = arena_strndup(a, name, strlen(name)))) {
                    st = diag_nomem(d, "verifying %s", dir);
                    break;
                }
                m->n_in++;
            }
            continue;
        }
        if (m->n == cap) {
            entry *ne = realloc(m->e, 2 * cap * sizeof *ne);
            if (!ne) {
                st = diag_nomem(d, "verifying %s", dir);
                break;
            }
            m->e = ne;
            cap *= 2;
        }
        entry *e = &m->e[m->n];
        const char *name = after_sha(l, e->sha);
        if (!name || strlen(name) >= sizeof e->name || strchr(name, '/')) {
            diag_error(d, path, line, 1, "not a MANIFEST line (64 hex digits, two spaces, a file name)");
            st = TFC_INVALID;
            break;
        }
        snprintf(e->name, sizeof e->name, "%s", name);
        m->n++;
    }
    return st;
}

/* Reads and parses DIR/MANIFEST. */
static tfc_status read_manifest(const char *dir, manifest *m, arena *a, diag_list *d)
{
    memset(m, 0, sizeof *m);
    const char *path = ajoin(a, dir, "MANIFEST");
    struct stat sd, sm;
    if (stat(dir, &sd) != 0 || !S_ISDIR(sd.st_mode)) {
        diag_error(d, dir, 0, 0, "%s", stat(dir, &sd) != 0 ? strerror(errno) : "not a folder");
        return TFC_IO;
    }
    if (lstat(path, &sm) != 0 && errno == ENOENT) {
        diag_error(d, dir, 0, 0, "has no MANIFEST: not a folder tfc wrote");
        return TFC_INVALID;
    }
    char *buf;
    size_t len;
    tfc_status st = fio_read_all(path, MANIFEST_MAX_BYTES, &buf, &len, d);
    if (st != TFC_OK)
        return st;
    st = parse_manifest(path, buf, dir, m, a, d);
    free(buf);
    return st;
}

/* dir/name whole, up to limit bytes. */
static tfc_status read_file(const char *dir, const char *name, size_t limit, char **buf, size_t *len, arena *a,
                            diag_list *d)
{
    return fio_read_all(ajoin(a, dir, name), limit, buf, len, d);
}

/* The sha256 of dir/name, read a piece at a time: a folder's files can be
 * larger than any limit a whole read would set (timeline.svg is 1.2 GB at
 * 3.1 million actions). TFC_IO (filed under the path) when it cannot be
 * read. */
static tfc_status hash_file(const char *dir, const char *name, char hex[65], arena *a, diag_list *d)
{
    const char *path = ajoin(a, dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_error(d, path, 0, 0, "cannot open: %s", strerror(errno));
        return TFC_IO;
    }
    static unsigned char piece[1 << 16];
    sha256_ctx c;
    sha256_init(&c);
    size_t got;
    while ((got = fread(piece, 1, sizeof piece, f)) > 0)
        sha256_update(&c, piece, got);
    bool failed = ferror(f) != 0;
    int err = errno;
    fclose(f);
    if (failed) {
        diag_error(d, path, 0, 0, "cannot read: %s", strerror(err));
        return TFC_IO;
    }
    sha256_final_hex(&c, hex);
    return TFC_OK;
}

/* The folder against its MANIFEST; problems counted into *bad. */
static tfc_status check_manifest(const char *dir, const manifest *m, size_t *bad, arena *a, diag_list *d)
{
    *bad = 0;
    tfc_status result = TFC_OK; /* TFC_IO once a listed file cannot be read: not a difference, trouble */
    for (size_t i = 0; i < m->n; i++) {
        char *path = join(dir, m->e[i].name);
        struct stat st;
        if (!path)
            return diag_nomem(d, "verifying %s", dir);
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            diag_error(d, ajoin(a, dir, m->e[i].name), 0, 0, "missing (the MANIFEST lists it)");
            (*bad)++;
            free(path);
            continue;
        }
        free(path);
        char hex[65];
        if (hash_file(dir, m->e[i].name, hex, a, d) != TFC_OK) { /* hash_file filed why */
            result = TFC_IO;
            continue;
        }
        if (strcmp(hex, m->e[i].sha) != 0) {
            diag_error(d, ajoin(a, dir, m->e[i].name), 0, 0,
                       "changed since tfc wrote it (sha256 %.12s..., the MANIFEST says %.12s...)", hex, m->e[i].sha);
            (*bad)++;
        }
    }
    DIR *dp = opendir(dir);
    if (!dp) {
        diag_error(d, dir, 0, 0, "cannot list the folder: %s", strerror(errno));
        return TFC_IO;
    }
    struct dirent *de;
    while ((de = readdir(dp))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || strcmp(de->d_name, "MANIFEST") == 0)
            continue;
        bool listed = false;
        for (size_t i = 0; i < m->n && !listed; i++)
            listed = strcmp(m->e[i].name, de->d_name) == 0;
        if (!listed) {
            diag_error(d, ajoin(a, dir, de->d_name), 0, 0, "not in the MANIFEST (added after tfc wrote the folder)");
            (*bad)++;
        }
    }
    closedir(dp);
    return result;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* old with every occurrence of from replaced by to (malloc'd; NULL: out of memory). */
static char *replace_all(const char *old, size_t len, const char *from, const char *to, size_t *out_len)
{
    size_t fl = strlen(from), tl = strlen(to), count = 0;
    for (size_t i = 0; fl && i + fl <= len; i++)
        if (memcmp(old + i, from, fl) == 0)
            count++, i += fl - 1;
    size_t n = len + count * tl - count * fl;
    char *o = malloc(n + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        if (fl && i + fl <= len && memcmp(old + i, from, fl) == 0) {
            memcpy(o + k, to, tl);
            k += tl;
            i += fl;
        } else {
            o[k++] = old[i++];
        }
    }
    o[k] = '\0';
    *out_len = k;
    return o;
}

/* The inputs (the files the spec names) whose sha256 is not the one in the
 * folder's MANIFEST, and those only one side names, each on a line of its
 * own; how many lines. */
static size_t report_inputs(const char *dir, const char *spec_path, const manifest *was, const manifest *now)
{
    size_t n = 0;
    for (size_t i = 0; i < now->n_in; i++) {
        const input *b = &now->in[i], *a = NULL;
        for (size_t j = 0; j < was->n_in && !a; j++)
            if (strcmp(was->in[j].path, b->path) == 0)
                a = &was->in[j];
        if (!a)
            printf("%s: input %s, named by %s, is not in the MANIFEST\n", dir, b->path, spec_path);
        else if (strcmp(a->sha, b->sha) != 0)
            printf("%s: input %s changed since the folder was written (sha256 %.12s... in the MANIFEST, %.12s... "
                   "now)\n",
                   dir, b->path, a->sha, b->sha);
        n += !a || strcmp(a->sha, b->sha) != 0;
    }
    for (size_t j = 0; j < was->n_in; j++) {
        bool named = false;
        for (size_t i = 0; i < now->n_in && !named; i++)
            named = strcmp(was->in[j].path, now->in[i].path) == 0;
        if (!named) {
            printf("%s: input %s in the MANIFEST is not named by %s\n", dir, was->in[j].path, spec_path);
            n++;
        }
    }
    return n;
}

/* The MANIFEST this tfc wrote in memory, parsed like the folder's. */
static tfc_status parse_own_manifest(const gen_folder *g, const char *dir, manifest *m, arena *a, diag_list *d)
{
    memset(m, 0, sizeof *m);
    const gen_file *f = gen_find(g, "MANIFEST");
    char *buf = f ? arena_strndup(a, f->data, f->len) : NULL;
    if (!buf)
        return diag_nomem(d, "verifying %s", dir);
    return parse_manifest("MANIFEST (this tfc's)", buf, dir, m, a, d);
}

/* The policy the folder's plan.json records (NULL when there is none to
 * read: a sweep folder, a damaged file; its MANIFEST check says so). */
static const char *folder_policy(const char *dir, arena *a)
{
    diag_list quiet;
    diag_init(&quiet, DIAG_DEFAULT_MAX);
    char *buf = NULL;
    size_t len;
    jv *root = NULL;
    const char *path = ajoin(a, dir, "plan.json");
    if (path && fio_read_all(path, PLAN_JSON_MAX_BYTES, &buf, &len, &quiet) == TFC_OK &&
        json_parse(buf, len, path, true, a, &quiet, &root) != TFC_OK)
        root = NULL;
    free(buf);
    diag_free(&quiet);
    const jv *p = jv_get_kind(root, "policy", JV_STR);
    return p ? arena_strndup(a, p->str, strlen(p->str)) : NULL;
}

int cli_verify(int argc, char **argv)
{
    const char *dir = NULL, *spec_path = NULL, *policy = NULL, *timeout = NULL, *method = NULL, *spec_name = NULL;
    bool quiet = false;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            fputs(cli_verify_help, stdout);
            return EXIT_OK;
        } else if (strcmp(o, "-q") == 0 || strcmp(o, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(o, "--policy") == 0 || strcmp(o, "--lp-timeout") == 0 || strcmp(o, "--lp-method") == 0 ||
                   strcmp(o, "--spec-name") == 0) {
            if (i + 1 >= argc) {
                char msg[32];
                snprintf(msg, sizeof msg, "%s needs a value", o);
                return cli_usage_error("verify", msg, NULL);
            }
            const char **v = strcmp(o, "--policy") == 0      ? &policy
                             : strcmp(o, "--lp-timeout") == 0 ? &timeout
                             : strcmp(o, "--lp-method") == 0  ? &method
                                                              : &spec_name;
            *v = argv[++i];
        } else if (o[0] == '-' && o[1]) {
            return cli_usage_error("verify", "unknown option", o);
        } else if (!dir) {
            dir = o;
        } else if (!spec_path) {
            spec_path = o;
        } else {
            return cli_usage_error("verify", "takes a folder and at most one spec; extra argument", o);
        }
    }
    if (!dir)
        return cli_usage_error("verify", "needs a generated folder: tfc verify DIR [SPEC]", NULL);
    if (spec_name && !spec_path)
        return cli_usage_error("verify", "--spec-name is the name to compile SPEC under, and no SPEC is given", NULL);
    compile_options co = {.skip_cuda_check = true, .spec_name = spec_name};
    const char *bad_arg, *what = cli_plan_options(policy, timeout, method, &co.plan, &bad_arg);
    if (what)
        return cli_usage_error("verify", what, bad_arg);

    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    arena a;
    arena_init(&a, 0);
    if (!policy && spec_path) { /* as the folder was compiled, where its plan.json says */
        const char *was = folder_policy(dir, &a);
        if (was && !cli_plan_options(was, timeout, method, &co.plan, &bad_arg)) {
            if (!quiet && strcmp(was, "timely") != 0)
                printf("%s: compiled with --policy %s (its plan.json), verified with it\n", dir, was);
        } else {
            (void)cli_plan_options(NULL, timeout, method, &co.plan, &bad_arg); /* valid: checked above */
        }
    }
    manifest m, now = {0};
    size_t bad = 0;
    tfc_status st = read_manifest(dir, &m, &a, &d);
    if (st == TFC_OK)
        st = check_manifest(dir, &m, &bad, &a, &d);
    if (st == TFC_OK && !quiet)
        printf("%s: %s its MANIFEST: %zu file%s listed (tfc %s, spec %s)%s\n", dir, bad ? "does not match" : "matches",
               m.n, m.n == 1 ? "" : "s", m.version[0] ? m.version : "?", m.spec[0] ? m.spec : "?",
               bad ? "; each difference is on stderr" : "");
    bool differs = bad > 0;
    gen_folder g = {0}, g_recorded = {0};
    /* tfc plan --sweep and --compare write a MANIFEST too, over their own
     * files: there is no compile to compare them with. */
    const char *kind = NULL;
    for (size_t i = 0; st == TFC_OK && spec_path && i < m.n && !kind; i++)
        kind = strcmp(m.e[i].name, "plan.json") == 0     ? "" /* a compile folder */
               : strcmp(m.e[i].name, "pareto.csv") == 0  ? "tfc plan --sweep"
               : strcmp(m.e[i].name, "compare.csv") == 0 ? "tfc plan --compare"
                                                          : NULL;
    bool not_compiled = kind && *kind;
    if (not_compiled) {
        fprintf(stderr, "%s: error: a %s folder, not a compile's, so there are no bytes of %s to compare; 'tfc "
                "verify DIR' checks its MANIFEST (as above), and %s run again writes it anew\n", dir, kind, spec_path,
                kind);
        spec_path = NULL;
    }
    /* The files record the spec's file name: when the MANIFEST records
     * another, SPEC is also emitted under that one (the same plan), so that
     * a renamed spec, or one given on standard input, is told from a change. */
    char label[256] = "";
    bool renamed = false;
    if (st == TFC_OK && spec_path) {
        compile_report rep;
        st = compile_in_memory(spec_path, &co, &a, &d, &g, &rep);
        if (st == TFC_OK)
            st = parse_own_manifest(&g, dir, &now, &a, &d);
        emit_spec_label(spec_name ? spec_name : spec_path, label, sizeof label);
        renamed = st == TFC_OK && m.spec[0] && strcmp(label, m.spec) != 0;
        if (renamed) {
            compile_report rep_recorded = {0};
            st = compile_emit(rep.p, m.spec, &co, &a, &d, &g_recorded, &rep_recorded);
        }
    }
    if (st == TFC_OK && spec_path) {
        size_t same = 0, named = 0, stamp = 0, other = 0, missing = 0, real_files = 0, real_count = 0;
        char other_names[512] = "";
        bool plan_same = true, plan_known = false;
        bool manifest_same = true, manifest_named = false;
        for (size_t i = 0; i < g.n; i++) {
            const gen_file *f = &g.files[i];
            /* the same file under the recorded name: differences beyond the name are told against it */
            const gen_file *fr = renamed ? gen_find(&g_recorded, f->name) : NULL;
            const gen_file *ref = fr ? fr : f;
            char *buf = NULL;
            if (strcmp(f->name, "MANIFEST") == 0) { /* follows from the others' bytes */
                size_t ml = 0;
                bool read = read_file(dir, f->name, MANIFEST_MAX_BYTES, &buf, &ml, &a, &d) == TFC_OK;
                manifest_same = read && ml == f->len && memcmp(buf, f->data, f->len) == 0;
                manifest_named = read && fr && ml == fr->len && memcmp(buf, fr->data, fr->len) == 0;
                free(buf);
                continue;
            }
            size_t len = 0;
            char *path = join(dir, f->name);
            struct stat sb;
            bool present = path && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode);
            free(path);
            if (!present) {
                missing++;
                other++;
                continue;
            }
            /* Read up to twice what this tfc writes there (and a MiB): a
             * longer file differs in more than its stamp or the last digits
             * of its reals, and is not read into memory to say so. */
            size_t mine = fr && fr->len > f->len ? fr->len : f->len;
            size_t limit = 2 * mine + ((size_t)1 << 20);
            if ((uintmax_t)sb.st_size > limit) {
                other++;
                if (strlen(other_names) + strlen(f->name) + 3 < sizeof other_names)
                    snprintf(other_names + strlen(other_names), sizeof other_names - strlen(other_names), "%s%s",
                             other_names[0] ? ", " : "", f->name);
                continue;
            }
            tfc_status s = read_file(dir, f->name, limit, &buf, &len, &a, &d);
            if (s != TFC_OK) {
                st = s == TFC_NOMEM ? s : st;
                other++;
                continue;
            }
            if (len == f->len && memcmp(buf, f->data, len) == 0) {
                same++;
            } else if (fr && len == fr->len && memcmp(buf, fr->data, len) == 0) {
                named++;
            } else {
                /* The same once the folder's version stamp reads as this tfc's? */
                size_t nl = 0;
                char *norm = m.version[0] ? replace_all(buf, len, m.version, version_string(), &nl) : NULL;
                bool stamp_only = norm && nl == ref->len && memcmp(norm, ref->data, nl) == 0;
                /* Or the same but for the last digits of reals: another build's arithmetic. */
                long reals = stamp_only ? 0
                                        : real_text_diff(norm ? norm : buf, norm ? nl : len, ref->data, ref->len,
                                                         ends_with(f->name, ".svg"));
                if (stamp_only) {
                    stamp++;
                } else if (reals > 0) {
                    real_files++;
                    real_count += (size_t)reals;
                } else {
                    other++;
                    if (strcmp(f->name, "MANIFEST") != 0 && strlen(other_names) + strlen(f->name) + 3 < sizeof other_names)
                        snprintf(other_names + strlen(other_names), sizeof other_names - strlen(other_names), "%s%s",
                                 other_names[0] ? ", " : "", f->name);
                }
                free(norm);
            }
            if (strcmp(f->name, "plan.json") == 0) {
                /* The plan itself, whatever the stamp: both plan.json read back
                 * (the name in the arena: diagnostics filed at it print later). */
                const char *np = ajoin(&a, dir, "plan.json");
                plan_doc pa, pb;
                if (np && plan_doc_parse(np, buf, len, &a, &d, &pa) == TFC_OK &&
                    plan_doc_parse("plan.json (this tfc's)", f->data, f->len, &a, &d, &pb) == TFC_OK) {
                    plan_known = true;
                    plan_same = plan_diff_same(&pa, &pb, 1e-9) == 1;
                }
            }
            free(buf);
        }
        size_t only_here = 0; /* listed by the folder's MANIFEST, not written by this tfc */
        for (size_t i = 0; i < m.n; i++)
            if (!gen_find(&g, m.e[i].name) && strcmp(m.e[i].name, "MANIFEST") != 0)
                other++, missing++, only_here++;
        bool identical = same + 1 == g.n && manifest_same && !missing;
        bool name_only = renamed && same + named + 1 == g.n && manifest_named && !missing;
        differs = differs || !identical;
        if (!quiet) {
            size_t inputs = identical ? 0 : report_inputs(dir, spec_path, &m, &now);
            char names[600] = ""; /* the count of files that differ only in the spec's file name */
            if (renamed)
                snprintf(names, sizeof names, "%zu only in the spec's file name (%s -> %s), ", named, m.spec, label);
            const char *besides = renamed ? " (and the spec's file name, above)" : "";
            if (identical) {
                printf("%s: this tfc (%s) writes the same bytes from %s%s%s (%zu files, the MANIFEST included)\n",
                       dir, version_string(), spec_path, spec_name ? " under --spec-name " : "",
                       spec_name ? spec_name : "", g.n);
            } else {
                printf("%s: this tfc (%s) would write different bytes from %s: of %zu files besides the MANIFEST, %zu "
                       "the same, %s%zu differ only in the version stamp (%s -> %s), %zu only in the last digits of "
                       "reals, %zu otherwise%s\n",
                       dir, version_string(), spec_path, g.n - 1 + only_here, same, names, stamp,
                       m.version[0] ? m.version : "?",
                       version_string(), real_files, other, missing ? " (some missing on one side)" : "");
                if (renamed)
                    printf("%s: compiled from spec %s (its MANIFEST), not %s: the files record the spec's file name; "
                           "'tfc verify %s %s --spec-name %s' compiles the spec under the recorded name\n",
                           dir, m.spec, label, dir, spec_path, m.spec);
                if (other_names[0])
                    printf("%s: differing beyond the stamp: %s\n", dir, other_names);
                if (plan_known)
                    printf("%s: the plan itself (schedule, makespans, every action's ratio and start) is %s%s\n", dir,
                           plan_same ? "the same" : "different",
                           plan_same ? "" : ": tfc diff DIR/plan.json on a fresh compile shows how");
                if (!other && real_files)
                    printf("%s: differs only in the last digits of %zu real%s (in %zu file%s)%s: built with other "
                           "floating-point settings? (tfc --version says whether a build's arithmetic is pinned; "
                           "pinned builds of one release write the same bytes)\n",
                           dir, real_count, real_count == 1 ? "" : "s", real_files, real_files == 1 ? "" : "s",
                           besides);
                else if (!other && stamp)
                    printf("%s: only the version stamp differs%s: the plan, the masks and the code are the same\n",
                           dir, besides);
                else if (name_only)
                    printf("%s: only the spec's file name differs (%s -> %s): the plan, the masks and the code are "
                           "the same\n", dir, m.spec, label);
                else if (!other)
                    printf("%s: only the MANIFEST differs%s%s: the plan, the masks and the code are the same\n", dir,
                           inputs                              ? " (the inputs above)"
                           : strcmp(m.spec_sha, now.spec_sha) ? " (the spec's sha256)"
                                                               : "",
                           besides);
            }
        }
    }
    gen_folder_free(&g);
    gen_folder_free(&g_recorded);
    free(m.e);
    free(now.e);
    st = cli_report(&d, st); /* before the arena goes: the diagnostics name files kept in it */
    arena_free(&a);
    if (fflush(stdout) != 0 && st == TFC_OK)
        st = TFC_IO;
    if (st != TFC_OK)
        return cli_exit_code(st);
    if (not_compiled)
        return EXIT_USAGE;
    return differs ? EXIT_INVALID : EXIT_OK;
}
