/* tmpl: placeholder filling, one pass, no recursion: a value is copied as
 * it is, never scanned for placeholders itself. */
#include "tmpl.h"

#include <string.h>

static bool is_key_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

bool tmpl_render(FILE *out, const char *text, const tmpl_var *vars, size_t n_vars, diag_list *d)
{
    const char *p = text;
    for (;;) {
        const char *at = strchr(p, '@');
        if (!at) {
            fputs(p, out);
            return true;
        }
        fwrite(p, 1, (size_t)(at - p), out);
        const char *end = at + 1;
        while (is_key_char(*end))
            end++;
        const char *value = NULL;
        if (*end == '@' && end > at + 1)
            for (size_t i = 0; i < n_vars && !value; i++)
                if (strlen(vars[i].key) == (size_t)(end - at - 1) && memcmp(vars[i].key, at + 1, (size_t)(end - at - 1)) == 0)
                    value = vars[i].value;
        if (!value) {
            diag_error(d, NULL, 0, 0, "template placeholder %.*s has no value", (int)(end - at + (*end == '@')), at);
            return false;
        }
        fputs(value, out);
        p = end + 1;
    }
}
