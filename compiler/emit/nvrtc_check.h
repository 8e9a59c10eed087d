/* nvrtc_check: NVRTC, loaded at run time with dlopen so that tfc starts fast
 * and runs on machines without the CUDA Toolkit. The compile check of
 * generated .cu files lands here. */
#ifndef TFC_NVRTC_CHECK_H
#define TFC_NVRTC_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Loads NVRTC once. On failure returns false and points *why at the
 * reason (a static string, valid for the rest of the run). */
bool nvrtc_load(const char **why);
/* NVRTC's version; false when NVRTC cannot be loaded. */
bool nvrtc_version(int *major, int *minor);

typedef enum {
    NVRTC_OK,          /* compiled */
    NVRTC_ERROR,       /* NVRTC refused it: *why says how, *log holds its log */
    NVRTC_UNAVAILABLE, /* no NVRTC on this machine: *why says so */
} nvrtc_result;

/* Compiles CUDA source src (called name in the log) for arch ("sm_90").
 * *log receives NVRTC's log when it wrote one (malloc'd; the caller frees
 * it), warnings included; *why a static string unless NVRTC_OK. (NVRTC
 * is a foreign library: its verdict is data for the caller, who files the
 * diagnostic.) */
nvrtc_result nvrtc_compile(const char *name, const char *src, const char *arch, char **log, const char **why);

#endif
