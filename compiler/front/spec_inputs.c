/* spec_inputs: the files a spec names and a plan reads (pipeline.order,
 * timing.file, timing.frozen_file): where they are, and the sha256 of the
 * bytes a plan read from each, which the MANIFEST records. */
#include "spec.h"

#include <string.h>

#include "sha256.h"

const char *spec_relative_path(const spec *sp, const char *path, arena *a)
{
    const char *slash = strrchr(sp->path, '/');
    if (path[0] == '/' || !slash || strcmp(sp->path, "<stdin>") == 0)
        return path;
    size_t dir = (size_t)(slash - sp->path) + 1, n = strlen(path);
    char *p = arena_alloc(a, dir + n + 1);
    if (!p)
        return NULL;
    memcpy(p, sp->path, dir);
    memcpy(p + dir, path, n + 1);
    return p;
}

/* The inputs' paths as the spec writes them, into v (NULL: only counted):
 * the order CSV, then every timing.file, then every timing.frozen_file. */
static size_t written_inputs(const spec *sp, const char **v)
{
    bool measured = sp->timing.source == TIMING_MEASURED || sp->timing.source == TIMING_TRACE;
    const spec_files *keys[2] = {&sp->timing.file, &sp->timing.frozen_file};
    size_t k = 0;
    if (sp->schedule == SCHED_CUSTOM && sp->order) {
        if (v)
            v[k] = sp->order;
        k++;
    }
    for (size_t j = 0; measured && j < 2; j++)
        for (size_t i = 0; i < keys[j]->n; i++, k++)
            if (v)
                v[k] = keys[j]->path[i];
    return k;
}

size_t spec_inputs(const spec *sp, arena *a, const char ***out)
{
    size_t n = written_inputs(sp, NULL);
    const char **v = arena_alloc_array(a, n ? n : 1, sizeof *v);
    if (!v)
        return SIZE_MAX;
    written_inputs(sp, v);
    for (size_t i = 0; i < n; i++)
        if (!(v[i] = spec_relative_path(sp, v[i], a)))
            return SIZE_MAX;
    *out = v;
    return n;
}

bool spec_inputs_list(spec *s, arena *a)
{
    size_t n = written_inputs(s, NULL);
    const char **w = arena_alloc_array(a, n ? n : 1, sizeof *w);
    spec_input *v = arena_alloc_array(a, n ? n : 1, sizeof *v);
    if (!w || !v)
        return false;
    written_inputs(s, w);
    for (size_t i = 0; i < n; i++) {
        v[i] = (spec_input){.written = w[i], .path = spec_relative_path(s, w[i], a)};
        if (!v[i].path)
            return false;
    }
    s->inputs = v;
    s->n_inputs = n;
    return true;
}

void spec_input_read(const spec *sp, const char *path, const void *buf, size_t len)
{
    char hex[65] = "";
    for (size_t i = 0; i < sp->n_inputs; i++) {
        if (strcmp(sp->inputs[i].path, path) != 0)
            continue;
        if (!hex[0])
            sha256_hex(buf, len, hex);
        memcpy(sp->inputs[i].sha256, hex, sizeof hex);
    }
}
