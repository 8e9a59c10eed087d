/* nvrtc_check: NVRTC, loaded at run time with dlopen so that tfc starts fast
 * and runs on machines without the CUDA Toolkit. The compile check of
 * generated .cu files lands here. */
#ifndef TFC_NVRTC_CHECK_H
#define TFC_NVRTC_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Loads NVRTC once. On failure returns false and writes the reason to why. */
bool nvrtc_load(char *why, size_t cap);
/* NVRTC's version; false when NVRTC cannot be loaded. */
bool nvrtc_version(int *major, int *minor);

#endif
