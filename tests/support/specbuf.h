/* specbuf: load a spec from a string in a test and ask about the errors. */
#ifndef TFC_TEST_SPECBUF_H
#define TFC_TEST_SPECBUF_H

#include <stdbool.h>

#include "arena.h"
#include "diag.h"
#include "sched_builtin.h"
#include "spec.h"

typedef struct loaded {
    arena a;
    diag_list d;
    const spec *s;
    tfc_status status;
    char dump[4096]; /* every diagnostic, one per line, for failure messages */
} loaded;

/* Loads yaml (as file "t.yaml") with room for 100 errors. */
void load_str(loaded *l, const char *yaml);
/* load_str on a file's text; status TFC_IO (and nothing loaded) if it
 * cannot be read. */
void load_file(loaded *l, const char *path);
/* A whole file, NUL-terminated (malloc; the caller frees), or NULL. */
char *read_text_file(const char *path);
void loaded_free(loaded *l);
/* An error at line:col (0 = any) whose message contains fragment. */
bool has_error(const loaded *l, unsigned line, unsigned col, const char *fragment);

/* sched_builtin with its first message in why (for assertions). */
bool builtin_why(spec_schedule kind, uint32_t ranks, uint32_t stages_per_rank, uint32_t microbatches, arena *a,
                 char *why, size_t cap, sched **out);

#endif
