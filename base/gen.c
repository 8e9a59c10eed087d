/* gen: in-memory files built on open_memstream. */
#define _POSIX_C_SOURCE 200809L
#include "gen.h"

#include <stdlib.h>
#include <string.h>

void gen_folder_free(gen_folder *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->files[i].name);
        free(g->files[i].data);
    }
    free(g->files);
    memset(g, 0, sizeof *g);
}

const gen_file *gen_find(const gen_folder *g, const char *name)
{
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->files[i].name, name) == 0)
            return &g->files[i];
    return NULL;
}

bool gen_open(gen_writer *w)
{
    w->buf = NULL;
    w->len = 0;
    w->f = open_memstream(&w->buf, &w->len);
    return w->f != NULL;
}

bool gen_close(gen_folder *g, const char *name, gen_writer *w)
{
    bool ok = !ferror(w->f);
    ok = (fclose(w->f) == 0) && ok;
    w->f = NULL;
    if (ok && gen_find(g, name))
        ok = false;
    if (ok && g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        gen_file *files = realloc(g->files, cap * sizeof *files);
        if (files) {
            g->files = files;
            g->cap = cap;
        } else {
            ok = false;
        }
    }
    char *copy = ok ? strdup(name) : NULL;
    if (!copy) {
        free(w->buf);
        w->buf = NULL;
        return false;
    }
    g->files[g->n++] = (gen_file){copy, w->buf, w->len};
    w->buf = NULL;
    return true;
}
