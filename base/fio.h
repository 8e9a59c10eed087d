/* fio: checked file input. Every failure becomes a diagnostic naming the
 * file and the reason; nothing here prints or exits. */
#ifndef TFC_FIO_H
#define TFC_FIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"

/* Reads the whole of path ("-" = standard input) into a malloc'd buffer with
 * a NUL after the last byte. path may be a regular file or a pipe or FIFO
 * with a writer (process substitution); a FIFO with no writer is refused
 * at once instead of waiting, and so are directories, devices and sockets.
 * Refuses anything over limit bytes without reading more than limit + 1
 * bytes. On success the caller frees *buf. TFC_INVALID: more than limit
 * bytes (an input error, reported at 1:1); TFC_IO: could not open or read
 * (missing, not a file, no writer, permission, ...); TFC_NOMEM. */
tfc_status fio_read_all(const char *path, size_t limit, char **buf, size_t *len, diag_list *d);

/* What a file's st_mode says it is, for messages: "a directory", "a FIFO",
 * "a character device", ... */
const char *fio_kind(unsigned mode);

/* Whether path is the file st describes (the same device and inode, however
 * the path is spelt or linked); false when path cannot be stat'ed. */
struct stat;
bool fio_same_file(const char *path, const struct stat *st);

/* Opens path for reading when it is a regular file (what is memory-mapped:
 * shards, index files), without blocking on a FIFO; otherwise files the
 * reason under path ("is a FIFO, not a regular file ...", naming what) and
 * returns -1. */
int fio_open_regular(const char *path, const char *what, diag_list *d);

/* Opens path for writing (O_TRUNC, created 0666) without blocking on a
 * FIFO with no reader (refused: "no reader"); a FIFO with a reader, a
 * device (/dev/null) or a regular file are fine. NULL, with the reason
 * filed under path, otherwise. */
FILE *fio_open_output(const char *path, diag_list *d);

/* Writes len bytes to path through a temporary file in the same folder,
 * flushed and renamed into place: path is either untouched or complete.
 * TFC_IO (the reason filed under path) or TFC_NOMEM on failure. */
tfc_status fio_write_atomic(const char *path, const void *data, size_t len, diag_list *d);

/* fio_write_atomic in two steps, for a file that must appear only with
 * other output: fio_stage writes the temporary file (refusing a path that
 * is a directory, where the rename would fail) and hands its name back in
 * *tmp; fio_commit renames it into place, fio_discard removes it; either
 * frees *tmp. A device at path (/dev/null) is written in place by
 * fio_stage, never replaced (*tmp NULL, and fio_commit does nothing). */
tfc_status fio_stage(const char *path, const void *data, size_t len, diag_list *d, char **tmp);
tfc_status fio_commit(char *tmp, const char *path, diag_list *d);
void fio_discard(char *tmp);

/* Streamed output that appears whole or not at all: fio_out_open opens a
 * temporary file beside path (a regular file or none yet) and
 * fio_out_close renames it into place when ok and every write, the flush
 * and the sync succeeded, or removes it (TFC_IO, the reason under path
 * unless !ok, where the caller has filed it). A device or a FIFO with a
 * reader is written in place. A directory at path is refused. */
typedef struct fio_out {
    FILE *f;
    char *tmp;
    const char *path;
} fio_out;
bool fio_out_open(fio_out *o, const char *path, diag_list *d);
tfc_status fio_out_close(fio_out *o, bool ok, diag_list *d);

#endif
