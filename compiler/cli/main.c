/* main: the tfc command line. Parses arguments, runs one verb, prints the
 * diagnostics the library collected and picks the exit code. With
 * cli_index.c (the index verbs), the only file that prints errors or exits. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lpsolve/lp_lib.h>
#include <yaml.h>

#include "arena.h"
#include "emit.h"
#include "cli_verify.h"
#include "fio.h"
#include "outdir.h"
#include "compare.h"
#include "sweep.h"
#include "cli_index.h"
#include "cli_options.h"
#include "compile.h"
#include "diag.h"
#include "plan.h"
#include "plan_print.h"
#include "spec.h"
#include "text.h"
#include "embedded.h"
#include "tmpl.h"
#include "nvrtc_check.h"
#include "real.h"
#include "version.h"
#include "cli_exit.h"
#include "cli_progress.h"


/* tfc --version: one line per component: tfc, libyaml, lp_solve, NVRTC (or
 * that it is absent), and whether this build's arithmetic is the pinned one
 * (same spec, same release: the same bytes from every build that says so). */
static void version_print(FILE *out)
{
    fprintf(out, "tfc %s\n", version_string());
    fprintf(out, "libyaml %s\n", yaml_get_version_string());
    int maj, min, rel, build;
    lp_solve_version(&maj, &min, &rel, &build);
    fprintf(out, "lp_solve %d.%d.%d.%d\n", maj, min, rel, build);
    int nmaj = 0, nmin = 0;
    if (nvrtc_version(&nmaj, &nmin))
        fprintf(out, "NVRTC %d.%d\n", nmaj, nmin);
    else
        fprintf(out, "NVRTC not available (CUDA checks are skipped)\n");
    const char *why = real_arith_check();
    if (why)
        fprintf(out, "arithmetic: NOT pinned: %s\n", why);
    else
        fprintf(out, "arithmetic: pinned (IEEE binary64, no contraction, no fast-math)\n");
}

static const char usage_text[] =
    "usage: tfc <command> [options]\n"
    "\n"
    "tfc compiles a pipeline-parallel training spec (YAML) into C and CUDA source\n"
    "with the TimelyFreeze freezing plan baked in.\n"
    "\n"
    "commands:\n"
    "  compile SPEC [-o DIR]    write the generated folder (default generated/<name>/)\n"
    "  check SPEC [-q]          validate a spec; print a one-line summary\n"
    "  plan SPEC [--json]       print the plan: makespans, speed-up, freeze ratios\n"
    "  index VERB ...           LCP indexes and sets: build, query, dedup, order, set\n"
    "  verify DIR [SPEC]        a generated folder against its MANIFEST (and SPEC)\n"
    "  diff PLAN_A PLAN_B       what changed between two plan.json (exit as diff(1))\n"
    "\n"
    "  help TOPIC               a reference page: spec, schedules, freeze-lp,\n"
    "                           plan-json, codegen, lcp-index, time-to-quality,\n"
    "                           optimizer-contract\n"
    "\n"
    "options:\n"
    "  -h, --help               this help; 'tfc COMMAND --help' for one command\n"
    "  -V, --version            tfc's version and the libraries it was built with\n"
    "\n"
    "SPEC may be '-' for standard input. Errors are printed as FILE:LINE:COL: error: ...\n"
    "exit codes: 0 ok, 1 invalid spec or input, 2 usage, 3 infeasible / no plan,\n"
    "            4 I/O error, 5 generated CUDA failed the NVRTC check, 6 out of memory\n";

static const char check_help[] =
    "usage: tfc check SPEC [-q|--quiet] [--print-name | --print-inputs]\n"
    "\n"
    "Reads SPEC, validates it against spec v1 (docs/spec.md), builds its schedule\n"
    "and checks that the schedule cannot deadlock. Reports every problem found,\n"
    "each as FILE:LINE:COL: error: MESSAGE. On success prints a one-line summary\n"
    "(nothing with -q).\n"
    "  --print-name  print only the spec's name (what tfc compile names its\n"
    "                folder after; build systems ask this instead of parsing YAML)\n"
    "  --print-inputs  print only the files the spec names and a plan reads\n"
    "                (pipeline.order, timing.file, timing.frozen_file), one a\n"
    "                line, as tfc opens them (relative to SPEC's folder)\n"
    "Exit 0 valid, 1 invalid, 4 unreadable.\n";

static const char compile_help[] =
    "usage: tfc compile SPEC [-o DIR] [--require-cuda-check | --skip-cuda-check]\n"
    "                   [--policy timely|uniform|none] [--lp-timeout SECONDS]\n"
    "                   [--lp-method decompose|direct] [--depfile FILE] [-q]\n"
    "\n"
    "Plans SPEC (as tfc plan does) and writes the folder a trainer vendors\n"
    "(docs/codegen.md): NAME.h/.c with the schedule, the freeze ratios and the\n"
    "run-time queries; NAME_stage<S>.c/.h and NAME_stage<S>.cu per stage; a\n"
    "MANIFEST with sha256 sums. Every .cu is compiled with NVRTC for\n"
    "targets.cuda.arch first. The folder (default generated/<name>/) is written\n"
    "to a temporary sibling and swapped in whole: on any error it is unchanged.\n"
    "  -o, --output DIR      the output folder\n"
    "  --require-cuda-check  fail (exit 5) when NVRTC is not available\n"
    "  --skip-cuda-check     do not run NVRTC\n"
    "  --policy, --lp-timeout, --lp-method  as for tfc plan\n"
    "  --depfile FILE        also write Make-style dependencies to FILE: every file\n"
    "                        of the folder depends on SPEC and the files it names\n"
    "                        (pipeline.order, every path of timing.file and\n"
    "                        timing.frozen_file)\n"
    "  -q, --quiet           no summary line, no progress line\n"
    "Exit 1 invalid spec, 3 no plan, 4 I/O error, 5 NVRTC rejected generated CUDA.\n";

static const char plan_help[] =
    "usage: tfc plan SPEC [--json] [--policy timely|uniform|none] [--dump-lp FILE]\n"
    "                [--lp-timeout SECONDS] [--lp-method decompose|direct] [--sweep DIR]\n"
    "                [--compare DIR] [-q]\n"
    "\n"
    "Builds SPEC's schedule and its dependency DAG, simulates one training step\n"
    "with nothing frozen (the baseline) and under a freezing policy, and prints\n"
    "both makespans, the speed-up, each stage's mean freeze ratio and each\n"
    "rank's bubble. With a training section it also predicts the speed-up in\n"
    "time to the unfrozen run's loss and its upper bound (docs/time-to-quality.md;\n"
    "plan.json's time_to_quality; freeze.max_ratio: auto picks the cap by it).\n"
    "  --policy timely   the freeze LP (default): the fastest step the per-stage\n"
    "                    cap freeze.max_ratio allows, then the least freezing\n"
    "  --policy uniform  every freezable action at the cap\n"
    "  --policy none     nothing frozen\n"
    "  --json            the plan as JSON (docs/plan-json.md)\n"
    "  --dump-lp FILE    write the freeze LP as JSON instead ('-' = stdout;\n"
    "                    docs/freeze-lp.md), unsolved, and print no plan (the LPs\n"
    "                    of freeze.max_ratio: auto's caps and of training.pilot's\n"
    "                    are solved to know which LP that is)\n"
    "  --sweep DIR       makespan against freeze.max_ratio 0, 0.1, ..., 1 for the\n"
    "                    timely and uniform policies: DIR/pareto.csv (also printed),\n"
    "                    DIR/pareto.svg and a MANIFEST, written like compile's folder;\n"
    "                    with training, each cap's predicted time to quality too\n"
    "                    (predicted_time_to_quality, the best ringed in the chart)\n"
    "  --compare DIR     every built-in schedule on SPEC's model, timings, ranks and\n"
    "                    microbatches: baseline and optimised makespan, freezing\n"
    "                    spent, peak activation memory a rank, sorted by optimised\n"
    "                    makespan, the fastest within pipeline.memory_limit_bytes\n"
    "                    recommended; rows whose stages or timings tfc re-derived\n"
    "                    say so (docs/schedules.md). The table on stdout (--json:\n"
    "                    as JSON), DIR/compare.csv, DIR/compare.svg and a MANIFEST;\n"
    "                    with training, each schedule's predicted time to quality\n"
    "                    and the one that reaches the loss soonest\n"
    "  --lp-timeout S    a wall-clock limit per LP phase, S seconds (0, the\n"
    "                    default: none, only work is limited, so the plan is the\n"
    "                    same on every machine). Phases 1-2 past it: no plan\n"
    "                    (exit 3); phase 3 past it: phase 2's plan, said on stderr\n"
    "                    and marked in plan.json (\"balance_complete\": false)\n"
    "  --lp-method M     decompose (default): lp_solve on a small master LP with\n"
    "                    the timing rows solved as a flow; direct: lp_solve on the\n"
    "                    whole LP (slow past a few thousand actions; same optimum)\n"
    "  -q, --quiet       no progress line (on a terminal, a solve that passes a\n"
    "                    second shows its phase, round and bound on stderr)\n"
    "Exit 3 when the LP has no solution.\n";


typedef struct verb {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} verb;


static bool is_help(const char *a) { return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0; }

/* Parses "[options] SPEC" where options are the given flags; returns the
 * exit code on a usage problem or help, or -1 to go on. */
/* An option: a switch (value != NULL) or one taking an argument (arg != NULL). */
typedef struct flag {
    const char *shortname, *longname;
    bool *value;
    const char **arg;
} flag;

static int parse_spec_args(const char *verb_name, const char *help, int argc, char **argv, const flag *flags,
                           const char **path)
{
    bool options_done = false;
    *path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool matched = false;
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
            continue;
        }
        if (!options_done && is_help(a)) {
            fputs(help, stdout);
            return EXIT_OK;
        }
        for (const flag *f = flags; !options_done && !matched && f->longname; f++) {
            size_t ln = strlen(f->longname);
            if (f->arg && strncmp(a, f->longname, ln) == 0 && a[ln] == '=') {
                *f->arg = a + ln + 1; /* --opt=value */
                matched = true;
            } else if ((f->shortname && strcmp(a, f->shortname) == 0) || strcmp(a, f->longname) == 0) {
                if (f->arg) {
                    if (i + 1 >= argc)
                        return cli_usage_error(verb_name, "option needs a value:", a);
                    *f->arg = argv[++i];
                } else {
                    *f->value = true;
                }
                matched = true;
            }
        }
        if (matched)
            continue;
        if (!options_done && a[0] == '-' && a[1] != '\0')
            return cli_usage_error(verb_name, "unknown option", a);
        if (*path)
            return cli_usage_error(verb_name, "more than one SPEC given; extra:", a);
        *path = a;
    }
    if (!*path)
        return cli_usage_error(verb_name, "missing SPEC", NULL);
    return -1;
}

static int exit_for(tfc_status st) { return cli_exit_code(st); }

static int flush_stdout(int code)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "tfc: error: cannot write to standard output\n");
        return EXIT_IO;
    }
    return code;
}

/* Watches opt's LP on a terminal (cli_progress.h). */
static void watch(plan_options *opt, cli_progress *prog, bool quiet)
{
    cli_progress_init(prog, quiet);
    opt->progress = cli_progress_report;
    opt->progress_ctx = prog;
}

/* Clears opt's progress line, if it drew one, before anything else prints. */
static void unwatch(const plan_options *opt)
{
    if (opt->progress == cli_progress_report)
        cli_progress_done(opt->progress_ctx);
}

/* Loads the spec and builds its plan; prints diagnostics. */
static tfc_status load_plan(const char *path, const plan_options *opt, arena *a, const plan **out)
{
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    const spec *s;
    plan *p = NULL;
    tfc_status st = spec_load_file(path, a, &d, &s);
    if (st == TFC_OK)
        st = plan_build(s, opt, a, &d, &p);
    unwatch(opt);
    st = cli_report(&d, st);
    *out = p;
    return st;
}

static int run_check(int argc, char **argv)
{
    bool quiet = false, print_name = false, print_inputs = false;
    const flag flags[] = {{"-q", "--quiet", &quiet, NULL},
                          {NULL, "--print-name", &print_name, NULL},
                          {NULL, "--print-inputs", &print_inputs, NULL},
                          {NULL, NULL, NULL, NULL}};
    const char *path;
    int r = parse_spec_args("check", check_help, argc, argv, flags, &path);
    if (r >= 0)
        return r;
    arena a;
    arena_init(&a, 0);
    const plan *p;
    /* check validates; it does not need the LP, nor auto's choice of cap. */
    plan_options opt = {.policy = POLICY_NONE, .skip_auto = true};
    tfc_status st = load_plan(path, &opt, &a, &p);
    if (print_name && print_inputs) {
        arena_free(&a);
        return cli_usage_error("check", "--print-name and --print-inputs print different things; give one", NULL);
    }
    if (st == TFC_OK && print_name) {
        puts(p->sp->name);
    } else if (st == TFC_OK && print_inputs) {
        const spec *s = p->sp;
        for (size_t i = 0; i < s->n_inputs; i++)
            if (strchr(s->inputs[i].path, '\n')) {
                fprintf(stderr, "%s: error: %s names a file whose path holds a line break; --print-inputs lists "
                                "one a line\n", s->path, s->inputs[i].written);
                st = TFC_INVALID;
            }
        for (size_t i = 0; st == TFC_OK && i < s->n_inputs; i++)
            puts(s->inputs[i].path);
    } else if (st == TFC_OK && !quiet) {
        const spec *s = p->sp;
        printf("%s: ok: %s, %s, %u rank%s x %u stage%s per rank, %u microbatch%s, %zu actions, %zu parameter "
               "tensor%s, %llu parameter%s\n",
               s->path, s->name, spec_schedule_name(s->schedule), s->ranks, s->ranks == 1 ? "" : "s",
               s->stages_per_rank, s->stages_per_rank == 1 ? "" : "s", s->microbatches,
               s->microbatches == 1 ? "" : "es", p->s->n_actions, s->n_params, s->n_params == 1 ? "" : "s",
               (unsigned long long)s->numel, s->numel == 1 ? "" : "s");
    }
    arena_free(&a);
    return flush_stdout(exit_for(st));
}

/* tfc plan --sweep DIR: pareto.csv and pareto.svg in DIR (with a MANIFEST,
 * written like tfc compile's folder: whole or not at all), the table on
 * stdout. */
static tfc_status run_sweep(const char *path, const plan_options *opt, const char *dir, arena *a)
{
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    const spec *s;
    sweep_result r;
    tfc_status st = spec_load_file(path, a, &d, &s);
    if (st == TFC_OK)
        st = sweep_run(s, opt, 10, a, &d, &r);
    unwatch(opt);
    gen_folder g = {0};
    if (st == TFC_OK) {
        char label[256];
        emit_spec_label(path, label, sizeof label);
        emit_input in = {NULL, label, s->sha256, s->inputs, s->n_inputs};
        if (!sweep_folder(s, label, &r, &g, &d))
            st = TFC_IO;
        else if ((st = emit_manifest(&in, &g, &d)) == TFC_OK)
            st = outdir_write(dir, &g, &d);
    }
    const gen_file *csv = st == TFC_OK ? gen_find(&g, "pareto.csv") : NULL;
    if (csv)
        fwrite(csv->data, 1, csv->len, stdout);
    gen_folder_free(&g);
    return cli_report(&d, st);
}

/* tfc plan --compare DIR: compare.csv and compare.svg in DIR (with a
 * MANIFEST, whole or not at all), the table (or JSON) on stdout. */
static tfc_status run_compare(const char *path, const plan_options *opt, const char *dir, bool json, arena *a)
{
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    const spec *s;
    compare_result r;
    tfc_status st = spec_load_file(path, a, &d, &s);
    if (st == TFC_OK)
        st = compare_run(s, opt, a, &d, &r);
    unwatch(opt);
    gen_folder g = {0};
    char label[256];
    emit_spec_label(path, label, sizeof label);
    if (st == TFC_OK) {
        emit_input in = {NULL, label, s->sha256, s->inputs, s->n_inputs};
        if (!compare_folder(s, label, &r, &g, &d))
            st = TFC_IO;
        else if ((st = emit_manifest(&in, &g, &d)) == TFC_OK)
            st = outdir_write(dir, &g, &d);
    }
    if (st == TFC_OK) {
        if (json)
            compare_print_json(s, label, &r, stdout);
        else
            compare_print_text(s, label, &r, stdout);
    }
    gen_folder_free(&g);
    return cli_report(&d, st);
}

/* When phase 3 ran past --lp-timeout, says so on stderr (the plan is
 * phase 2's, and plan.json has "balance_complete": false). */
static void incomplete_note(const char *path, const plan *p, double timeout_s)
{
    if (p && p->lp_used && p->lp.balance_incomplete)
        fprintf(stderr,
                "%s: note: phase 3 of the freeze LP (freeze.balance) ran past --lp-timeout %s s: the plan is phase "
                "2's, with the optimal makespan and least total freezing but not balanced across actions "
                "(plan.json: \"balance_complete\": false); without --lp-timeout only work is limited and the plan "
                "is the same on every machine\n",
                path, real_shortest(timeout_s).s);
}

/* --policy, --lp-timeout and --lp-method, shared by plan and compile; -1 to go on. */
static int parse_plan_options(const char *verb_name, const char *policy_name, const char *timeout, const char *method,
                              plan_options *opt)
{
    const char *bad;
    const char *what = cli_plan_options(policy_name, timeout, method, opt, &bad);
    if (!what)
        return -1;
    return cli_usage_error(verb_name, what, bad);
}

static int run_compile(int argc, char **argv)
{
    bool quiet = false, require = false, skip = false;
    const char *policy_name = "timely", *timeout = NULL, *out = NULL, *method = NULL, *depfile = NULL;
    const flag flags[] = {{"-o", "--output", NULL, &out},
                          {NULL, "--depfile", NULL, &depfile},
                          {NULL, "--require-cuda-check", &require, NULL},
                          {NULL, "--skip-cuda-check", &skip, NULL},
                          {NULL, "--policy", NULL, &policy_name},
                          {NULL, "--lp-timeout", NULL, &timeout},
                          {NULL, "--lp-method", NULL, &method},
                          {"-q", "--quiet", &quiet, NULL},
                          {NULL, NULL, NULL, NULL}};
    const char *path;
    int r = parse_spec_args("compile", compile_help, argc, argv, flags, &path);
    if (r >= 0)
        return r;
    if (require && skip)
        return cli_usage_error("compile", "--require-cuda-check and --skip-cuda-check contradict each other", NULL);
    if (out && !*out)
        return cli_usage_error("compile", "-o needs a folder name, got", out);
    if (depfile && !*depfile)
        return cli_usage_error("compile", "--depfile needs a file name, got", depfile);
    compile_options o = {.out_dir = out, .require_cuda_check = require, .skip_cuda_check = skip, .depfile = depfile};
    if ((r = parse_plan_options("compile", policy_name, timeout, method, &o.plan)) >= 0)
        return r;
    arena a;
    arena_init(&a, 0);
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    compile_report rep;
    cli_progress prog;
    watch(&o.plan, &prog, quiet);
    tfc_status st = compile_spec(path, &o, &a, &d, &rep);
    unwatch(&o.plan);
    st = cli_report(&d, st);
    if (st == TFC_OK)
        incomplete_note(path, rep.p, o.plan.lp_timeout_s);
    if (st == TFC_OK && !quiet) {
        printf("%s: wrote %s/ (%zu files): plan %s s, code %s s, write %s s\n", path, rep.out_dir, rep.files,
               real_fixed(rep.plan_s, 3).s, real_fixed(rep.emit_s, 3).s, real_fixed(rep.write_s, 3).s);
        if (rep.cu_files && rep.cuda_note[0])
            printf("%s: CUDA check %s\n", path, rep.cuda_note);
        else if (rep.cu_files)
            printf("%s: NVRTC compiled %zu .cu file%s for %s in %s s\n", path, rep.cu_checked,
                   rep.cu_checked == 1 ? "" : "s", rep.p->sp->targets.cuda_arch, real_fixed(rep.nvrtc_s, 3).s);
    }
    arena_free(&a);
    return flush_stdout(exit_for(st));
}

static int run_plan(int argc, char **argv)
{
    bool json = false, quiet = false;
    static const char timely[] = "timely";
    const char *policy_name = timely, *dump = NULL, *timeout = NULL, *sweep_dir = NULL, *method = NULL;
    const char *compare_dir = NULL;
    const flag flags[] = {{NULL, "--json", &json, NULL},
                          {NULL, "--sweep", NULL, &sweep_dir},
                          {NULL, "--compare", NULL, &compare_dir},
                          {NULL, "--policy", NULL, &policy_name},
                          {NULL, "--dump-lp", NULL, &dump},
                          {NULL, "--lp-timeout", NULL, &timeout},
                          {NULL, "--lp-method", NULL, &method},
                          {"-q", "--quiet", &quiet, NULL},
                          {NULL, NULL, NULL, NULL}};
    const char *path;
    int r = parse_spec_args("plan", plan_help, argc, argv, flags, &path);
    if (r >= 0)
        return r;
    if (sweep_dir && !*sweep_dir)
        return cli_usage_error("plan", "--sweep needs a folder name, got", sweep_dir);
    if (compare_dir && !*compare_dir)
        return cli_usage_error("plan", "--compare needs a folder name, got", compare_dir);
    if (dump && !*dump)
        return cli_usage_error("plan", "--dump-lp needs a file name, got", dump);
    if (sweep_dir && compare_dir)
        return cli_usage_error("plan", "--sweep and --compare write different folders; give one", NULL);
    if ((sweep_dir || compare_dir) && dump)
        return cli_usage_error("plan", "--dump-lp solves nothing; it does not go with --sweep or --compare", NULL);
    if (sweep_dir && json)
        return cli_usage_error("plan", "--sweep prints CSV; --json does not go with it", NULL);
    plan_options opt;
    if ((r = parse_plan_options("plan", policy_name, timeout, method, &opt)) >= 0)
        return r;
    if (policy_name != timely && (sweep_dir || compare_dir)) /* given, and nothing to give it to */
        fprintf(stderr, "tfc: warning: --policy %s is not used by %s\n", policy_name,
                sweep_dir ? "--sweep (it plans every cap by both timely and uniform)"
                          : "--compare (it plans every schedule by the freeze LP, timely)");
    if (sweep_dir || compare_dir) /* and it is not: a pilot is resolved, and --compare plans, at timely */
        opt.policy = POLICY_TIMELY;
    cli_progress prog;
    watch(&opt, &prog, quiet);

    arena a;
    arena_init(&a, 0);
    const plan *p;
    tfc_status st;
    if (compare_dir) {
        st = run_compare(path, &opt, compare_dir, json, &a);
    } else if (sweep_dir) {
        st = run_sweep(path, &opt, sweep_dir, &a);
    } else if (dump) {
        /* The LP only: no need to solve it (auto's and the pilot's are, with
         * the options given). */
        plan_options none = opt;
        none.policy = POLICY_NONE;
        st = load_plan(path, &none, &a, &p);
        if (st == TFC_OK) {
            diag_list d;
            diag_init(&d, DIAG_DEFAULT_MAX);
            FILE *f = strcmp(dump, "-") == 0 ? stdout : fio_open_output(dump, &d);
            lp_problem pb = plan_lp_problem(p);
            bool ok = f && lp_freeze_dump(&pb, f);
            if (f && f != stdout)
                ok = (fclose(f) == 0) && ok;
            if (!f) {
                st = cli_report(&d, TFC_IO);
            } else if (!ok) {
                fprintf(stderr, "%s: error: cannot write the LP: %s\n", dump, strerror(errno));
                st = TFC_IO;
            }
        }
    } else {
        st = load_plan(path, &opt, &a, &p);
        if (st == TFC_OK) {
            incomplete_note(path, p, opt.lp_timeout_s);
            if (json)
                plan_print_json(p, stdout);
            else
                plan_print_text(p, stdout);
        }
    }
    arena_free(&a);
    return flush_stdout(exit_for(st));
}


static int run_index(int argc, char **argv) { return cli_index(argc, argv); }

static const verb verbs[] = {
    {"compile", compile_help, run_compile},
    {"check", check_help, run_check},
    {"plan", plan_help, run_plan},
    {"index", cli_index_help, run_index},
    {"verify", cli_verify_help, cli_verify},
    {"diff", cli_diff_help, cli_diff},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (is_help(cmd) || strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
                if (strcmp(verbs[i].name, argv[2]) == 0) {
                    fputs(verbs[i].help, stdout);
                    return flush_stdout(EXIT_OK);
                }
            static const char *const topics[] = {"spec",      "schedules",       "freeze-lp",          "plan-json",
                                                 "codegen",   "lcp-index",       "time-to-quality",    "optimizer-contract",
                                                 NULL};
            for (size_t i = 0; topics[i]; i++)
                if (strcmp(topics[i], argv[2]) == 0) {
                    char page[32];
                    snprintf(page, sizeof page, "%s.md", topics[i]);
                    const char *text = tmpl_get(page);
                    if (!text) {
                        fprintf(stderr, "tfc: error: the page %s is missing from this build\n", page);
                        return EXIT_IO;
                    }
                    fputs(text, stdout);
                    return flush_stdout(EXIT_OK);
                }
            const char *near = text_nearest(argv[2], strlen(argv[2]), topics);
            fprintf(stderr, "tfc: error: no help topic '%s'%s%s%s; topics: spec, schedules, freeze-lp, plan-json, "
                            "codegen, lcp-index, time-to-quality, optimizer-contract, and the commands\n",
                    argv[2], near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
            return EXIT_USAGE;
        }
        fputs(usage_text, stdout);
        return flush_stdout(EXIT_OK);
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        version_print(stdout);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
        if (strcmp(verbs[i].name, cmd) == 0)
            return verbs[i].run(argc - 2, argv + 2);

    static const char *const names[] = {"compile", "check", "plan", "index", "verify", "diff", NULL};
    const char *near = text_nearest(cmd, strlen(cmd), names);
    char q[TEXT_QUOTE_CAP];
    text_quote(q, sizeof q, cmd, strlen(cmd));
    if (near)
        fprintf(stderr, "tfc: error: unknown command %s; did you mean '%s'?\nTry 'tfc --help'.\n", q, near);
    else
        fprintf(stderr, "tfc: error: unknown command %s\nTry 'tfc --help'.\n", q);
    return EXIT_USAGE;
}
