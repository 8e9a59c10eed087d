/* nvrtc_check: dlopen-based access to NVRTC. The build passes the library
 * path it found (TFC_NVRTC_LIBRARY); without one tfc still builds and every
 * CUDA check says it was skipped. */
#define _POSIX_C_SOURCE 200809L
#include "nvrtc_check.h"

#include <dlfcn.h>
#include <stdio.h>

typedef int (*nvrtc_version_fn)(int *, int *);

typedef struct nvrtc_api {
    void *handle;
    nvrtc_version_fn version;
} nvrtc_api;

static nvrtc_api api; /* filled once by nvrtc_load; read-only afterwards */

bool nvrtc_load(char *why, size_t cap)
{
    if (api.handle)
        return true;
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
        snprintf(why, cap, "NVRTC not found (%s)", err ? err : "dlopen failed");
        return false;
    }
    nvrtc_version_fn version;
    *(void **)&version = dlsym(h, "nvrtcVersion");
    if (!version) {
        snprintf(why, cap, "NVRTC library lacks nvrtcVersion");
        dlclose(h);
        return false;
    }
    api.handle = h;
    api.version = version;
    return true;
}

bool nvrtc_version(int *major, int *minor)
{
    char why[256];
    if (!nvrtc_load(why, sizeof why))
        return false;
    return api.version(major, minor) == 0;
}
