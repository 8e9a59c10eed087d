/* nvrtc_check: dlopen-based access to NVRTC. The build passes the library
 * path it found (TFC_NVRTC_LIBRARY); without one tfc still builds and every
 * CUDA check says it was skipped. */
#define _POSIX_C_SOURCE 200809L
#include "nvrtc_check.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* NVRTC's C API, as declared in nvrtc.h (nvrtcResult is an int-sized enum,
 * nvrtcProgram an opaque pointer): declared here so that building tfc does
 * not need the toolkit's headers. */
typedef void *nvrtc_program;
typedef int (*nvrtc_version_fn)(int *, int *);
typedef int (*nvrtc_create_fn)(nvrtc_program *, const char *, const char *, int, const char *const *,
                               const char *const *);
typedef int (*nvrtc_compile_fn)(nvrtc_program, int, const char *const *);
typedef int (*nvrtc_log_size_fn)(nvrtc_program, size_t *);
typedef int (*nvrtc_log_fn)(nvrtc_program, char *);
typedef int (*nvrtc_destroy_fn)(nvrtc_program *);
typedef const char *(*nvrtc_error_fn)(int);

typedef struct nvrtc_api {
    void *handle;
    nvrtc_version_fn version;
    nvrtc_create_fn create;
    nvrtc_compile_fn compile;
    nvrtc_log_size_fn log_size;
    nvrtc_log_fn log;
    nvrtc_destroy_fn destroy;
    nvrtc_error_fn error;
} nvrtc_api;

static nvrtc_api api; /* filled once by nvrtc_load; read-only afterwards */

static char load_error[512]; /* why the one load failed */

bool nvrtc_load(const char **why)
{
    if (api.handle)
        return true;
    if (load_error[0]) {
        *why = load_error;
        return false;
    }
#ifdef TFC_NVRTC_LIBRARY
    const char *candidates[] = {TFC_NVRTC_LIBRARY, "libnvrtc.so", NULL};
#else
    const char *candidates[] = {"libnvrtc.so", NULL};
#endif
    void *h = NULL;
    for (size_t i = 0; candidates[i] && !h; i++)
        h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *err = dlerror();
        snprintf(load_error, sizeof load_error, "NVRTC not found (%s)", err ? err : "dlopen failed");
        *why = load_error;
        return false;
    }
    nvrtc_api a = {.handle = h};
    *(void **)&a.version = dlsym(h, "nvrtcVersion");
    *(void **)&a.create = dlsym(h, "nvrtcCreateProgram");
    *(void **)&a.compile = dlsym(h, "nvrtcCompileProgram");
    *(void **)&a.log_size = dlsym(h, "nvrtcGetProgramLogSize");
    *(void **)&a.log = dlsym(h, "nvrtcGetProgramLog");
    *(void **)&a.destroy = dlsym(h, "nvrtcDestroyProgram");
    *(void **)&a.error = dlsym(h, "nvrtcGetErrorString");
    if (!a.version || !a.create || !a.compile || !a.log_size || !a.log || !a.destroy || !a.error) {
        snprintf(load_error, sizeof load_error, "the NVRTC library found lacks part of its API");
        *why = load_error;
        dlclose(h);
        return false;
    }
    api = a;
    return true;
}

bool nvrtc_version(int *major, int *minor)
{
    const char *why;
    if (!nvrtc_load(&why))
        return false;
    return api.version(major, minor) == 0;
}

nvrtc_result nvrtc_compile(const char *name, const char *src, const char *arch, char **log, const char **why)
{
    *log = NULL;
    if (!nvrtc_load(why))
        return NVRTC_UNAVAILABLE;
    nvrtc_program prog = NULL;
    int r = api.create(&prog, src, name, 0, NULL, NULL);
    if (r != 0) {
        *why = api.error(r);
        return NVRTC_ERROR;
    }
    char opt_arch[64];
    snprintf(opt_arch, sizeof opt_arch, "--gpu-architecture=%s", arch);
    const char *opts[] = {opt_arch};
    r = api.compile(prog, 1, opts);
    size_t n = 0;
    if (api.log_size(prog, &n) == 0 && n > 1) {
        *log = malloc(n);
        if (*log && api.log(prog, *log) != 0) {
            free(*log);
            *log = NULL;
        }
    }
    api.destroy(&prog);
    if (r != 0) {
        *why = api.error(r);
        return NVRTC_ERROR;
    }
    return NVRTC_OK;
}
