/* render: fills a template at build time, for the parts of tfc that run
 * the same text they emit (templates/lcp_core.inc):
 *   render IN OUT KEY=VALUE...  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: render IN OUT KEY=VALUE...\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    if (n == sizeof text - 1) {
        fprintf(stderr, "%s: too large\n", argv[1]);
        return 1;
    }
    text[n] = '\0';
    tmpl_var vars[32];
    int nv = 0;
    for (int i = 3; i < argc && nv < 32; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "render: expected KEY=VALUE, got %s\n", argv[i]);
            return 2;
        }
        *eq = '\0';
        vars[nv++] = (tmpl_var){argv[i], eq + 1};
    }
    FILE *out = fopen(argv[2], "w");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    fprintf(out, "/* Generated at build time by tools/render.c from %s; do not edit. */\n", strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1]);
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    if (!tmpl_render(out, text, vars, (size_t)nv, &d)) {
        diag_print(&d, stderr);
        diag_free(&d);
        fclose(out);
        remove(argv[2]);
        return 1;
    }
    diag_free(&d);
    return fclose(out) == 0 ? 0 : 1;
}
