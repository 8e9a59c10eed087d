/* compile: tfc compile as a library call: spec -> plan -> generated files
 * in memory -> NVRTC check of every .cu -> MANIFEST -> the folder written
 * atomically (outdir.c). Nothing is written unless every step succeeds. */
#ifndef TFC_COMPILE_H
#define TFC_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "diag.h"
#include "gen.h"
#include "plan.h"
#include "spec.h"

typedef struct compile_options {
    const char *out_dir;     /* NULL: generated/<name> */
    plan_options plan;
    bool require_cuda_check; /* no NVRTC is an error (exit 5) instead of a skipped check */
    bool skip_cuda_check;    /* do not run NVRTC (say so) */
    const char *depfile;     /* non-NULL: Make-style dependencies written here after the folder */
    const char *spec_name;   /* non-NULL: the spec's file name the files record (emit_spec_label of it), for SPEC's */
} compile_options;

typedef struct compile_report {
    const char *out_dir;  /* where the folder went (arena) */
    size_t files;         /* written, MANIFEST included */
    size_t cu_checked;    /* .cu files NVRTC compiled */
    size_t cu_files;
    char cuda_note[320];  /* why the check was skipped, or "" */
    double plan_s, emit_s, nvrtc_s, write_s;
    const plan *p;
} compile_report;

/* Runs the whole compile of the spec at path. Returns TFC_OK, or
 * TFC_INVALID / TFC_INFEASIBLE / TFC_IO / TFC_NVRTC / TFC_NOMEM with every
 * problem in d; on anything but TFC_OK the output folder is as it was. With
 * o->depfile, the depfile (written atomically after the folder) says that
 * every file of the folder depends on the spec and on every file it names
 * (pipeline.order, every path of timing.file and timing.frozen_file, as
 * spec_inputs lists them), for Make, Ninja and CMake's DEPFILE. */
tfc_status compile_spec(const char *path, const compile_options *o, arena *a, diag_list *d, compile_report *rep);

/* The same up to the MANIFEST, the folder's files left in g (the caller
 * frees them; nothing is written; g is empty on failure). */
tfc_status compile_in_memory(const char *path, const compile_options *o, arena *a, diag_list *d, gen_folder *g,
                             compile_report *rep);

/* The emit steps of compile_in_memory for a plan already made, the files
 * recording spec_name as the spec's file name (emit_spec_label of it): rep
 * gets the emit and NVRTC fields. */
tfc_status compile_emit(const plan *p, const char *spec_name, const compile_options *o, arena *a, diag_list *d,
                        gen_folder *g, compile_report *rep);

#endif
