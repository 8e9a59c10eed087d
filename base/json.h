/* json: the two pieces of JSON that need care: strings (escaped) and numbers
 * (real.h's shortest text that reads back to the same double, so output is
 * exact and stable). Structure is written by the callers with fprintf. */
#ifndef TFC_JSON_H
#define TFC_JSON_H

#include <stdio.h>

void json_string(FILE *f, const char *s);
/* real_shortest(v) for finite v; anything else is written as null. */
void json_number(FILE *f, double v);

#endif
