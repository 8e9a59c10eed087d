/* emit: a plan as the folder a trainer vendors (docs/codegen.md): the
 * public header and C file, per-stage C and CUDA files, and a MANIFEST, all
 * from the templates in templates/. Emitters read a plan, never YAML, and
 * write into memory; nothing here touches the file system. */
#ifndef TFC_EMIT_H
#define TFC_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "emit_util.h" /* emit_input */
#include "gen.h"
#include "plan.h"

/* Every file but the MANIFEST; false with the reason in d (out of memory,
 * or a template bug). */
bool emit_folder(const emit_input *in, gen_folder *out, diag_list *d);

/* Appends MANIFEST: tfc's version, the spec's sha256, the sha256 and path as
 * written of each of its input files, and the sha256 of every file already
 * in out (docs/codegen.md, "MANIFEST"). Reads only in's label, hashes and
 * inputs (in->p may be NULL: the sweep's folder has a MANIFEST too).
 * TFC_NOMEM, or TFC_IO for an input no plan read (a tfc bug), with the
 * reason in d. */
tfc_status emit_manifest(const emit_input *in, gen_folder *out, diag_list *d);

/* A file name safe to print in a comment or a MANIFEST line: the base name
 * of path with every byte outside [A-Za-z0-9._+-] replaced by '_'
 * ("stdin" for "-"). */
void emit_spec_label(const char *path, char *out, size_t cap);

#endif
