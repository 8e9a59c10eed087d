/* specbuf: spec loading helpers for the Criterion tests. */
#include "specbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void load_str(loaded *l, const char *yaml)
{
    memset(l, 0, sizeof *l);
    arena_init(&l->a, 0);
    diag_init(&l->d, 100);
    l->status = spec_load_buffer("t.yaml", yaml, strlen(yaml), &l->a, &l->d, &l->s);
    size_t o = 0;
    for (size_t i = 0; i < l->d.n && o < sizeof l->dump; i++) {
        int w = snprintf(l->dump + o, sizeof l->dump - o, "%u:%u: %s\n", l->d.items[i].line, l->d.items[i].col,
                         l->d.items[i].msg);
        if (w < 0)
            break;
        o += (size_t)w;
    }
}

char *read_text_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n)
        b[n] = '\0';
    else {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

void load_file(loaded *l, const char *path)
{
    char *yaml = read_text_file(path);
    if (!yaml) {
        memset(l, 0, sizeof *l);
        arena_init(&l->a, 0);
        diag_init(&l->d, 100);
        l->status = TFC_IO;
        snprintf(l->dump, sizeof l->dump, "%s: cannot read\n", path);
        return;
    }
    load_str(l, yaml);
    free(yaml);
}

void loaded_free(loaded *l)
{
    diag_free(&l->d);
    arena_free(&l->a);
}

bool has_error(const loaded *l, unsigned line, unsigned col, const char *fragment)
{
    for (size_t i = 0; i < l->d.n; i++) {
        const diag *e = &l->d.items[i];
        if ((line == 0 || e->line == line) && (col == 0 || e->col == col) && strstr(e->msg, fragment))
            return true;
    }
    return false;
}

bool builtin_why(spec_schedule kind, uint32_t ranks, uint32_t stages_per_rank, uint32_t microbatches, arena *a,
                 char *why, size_t cap, sched **out)
{
    diag_list d;
    diag_init(&d, 4);
    tfc_status st = sched_builtin(kind, ranks, stages_per_rank, microbatches, a, &d, NULL, (spec_pos){0, 0}, out);
    snprintf(why, cap, "%s", d.n ? d.items[0].msg : (d.nomem ? "out of memory" : ""));
    diag_free(&d);
    return st == TFC_OK;
}
