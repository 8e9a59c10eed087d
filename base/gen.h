/* gen: a generated folder held in memory until every file is complete and
 * checked; outdir.c then writes it in one piece. */
#ifndef TFC_GEN_H
#define TFC_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct gen_file {
    char *name; /* a plain file name, no '/' */
    char *data;
    size_t len;
} gen_file;

typedef struct gen_folder {
    gen_file *files; /* in the order written */
    size_t n, cap;
} gen_folder;

void gen_folder_free(gen_folder *g);
/* The file called name, or NULL. */
const gen_file *gen_find(const gen_folder *g, const char *name);

/* One file being written: text goes to f (an in-memory stream). */
typedef struct gen_writer {
    FILE *f;
    char *buf;
    size_t len;
} gen_writer;

bool gen_open(gen_writer *w);
/* Closes w and appends its text to g as name; false on out of memory, a
 * write error, or a duplicate name (w is released either way). */
bool gen_close(gen_folder *g, const char *name, gen_writer *w);

#endif
