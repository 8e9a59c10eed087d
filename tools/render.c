/* render: fills templates at build time, for the parts of tfc that run
 * the same text they emit (templates/lcp_core.inc and the parts it lists):
 *   render OUT IN... KEY=VALUE...
 * The inputs are filled one after another, a blank line between them, as
 * compiler/emit/emit_lcp.c pastes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl.h"

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: render OUT IN... KEY=VALUE...\n");
        return 2;
    }
    tmpl_var vars[32];
    int nv = 0, first_in = 2, n_in = 0;
    for (int i = 2; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            if (nv) {
                fprintf(stderr, "render: inputs come before KEY=VALUE, got %s\n", argv[i]);
                return 2;
            }
            n_in++;
            continue;
        }
        if (nv == 32) {
            fprintf(stderr, "render: more than 32 KEY=VALUE\n");
            return 2;
        }
        *eq = '\0';
        vars[nv++] = (tmpl_var){argv[i], eq + 1};
    }
    if (!n_in) {
        fprintf(stderr, "usage: render OUT IN... KEY=VALUE...\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "/* Generated at build time by tools/render.c from");
    for (int i = first_in; i < first_in + n_in; i++)
        fprintf(out, " %s", base(argv[i]));
    fprintf(out, "; do not edit. */\n");
    static char text[1 << 20];
    int rc = 0;
    for (int i = first_in; i < first_in + n_in && rc == 0; i++) {
        FILE *in = fopen(argv[i], "rb");
        if (!in) {
            perror(argv[i]);
            rc = 1;
            break;
        }
        size_t n = fread(text, 1, sizeof text - 1, in);
        fclose(in);
        if (n == sizeof text - 1) {
            fprintf(stderr, "%s: too large\n", argv[i]);
            rc = 1;
            break;
        }
        text[n] = '\0';
        if (i > first_in)
            fputc('\n', out);
        diag_list d;
        diag_init(&d, DIAG_DEFAULT_MAX);
        if (!tmpl_render(out, text, vars, (size_t)nv, &d)) {
            diag_print(&d, stderr);
            rc = 1;
        }
        diag_free(&d);
    }
    if (fclose(out) != 0)
        rc = 1;
    if (rc)
        remove(argv[1]);
    return rc;
}
