/* tmpl: filling @KEY@ placeholders in a text. The texts themselves are
 * templates/ (embedded into tfc at build time: compiler/emit/embedded.h). */
#ifndef TFC_TMPL_H
#define TFC_TMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"

typedef struct tmpl_var {
    const char *key;   /* without the @s: "NAME" */
    const char *value;
} tmpl_var;

/* Writes text to out with every @KEY@ replaced by its value. A '@' that
 * does not start a known placeholder is a bug in tfc: returns false and
 * files the error in d. */
bool tmpl_render(FILE *out, const char *text, const tmpl_var *vars, size_t n_vars, diag_list *d);

#endif
