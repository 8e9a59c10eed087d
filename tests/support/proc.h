/* proc: run a program in a child process and capture what it did: exit
 * code or signal, stdout, stderr, wall time. Used by the CLI tests. */
#ifndef TFC_TEST_PROC_H
#define TFC_TEST_PROC_H

#include <stdbool.h>
#include <stddef.h>

typedef struct proc_result {
    int exit_code;   /* -1 when killed by a signal */
    int signal;      /* 0 unless killed */
    bool timed_out;  /* killed after the time limit */
    char *out, *err; /* NUL-terminated, malloc'd */
    size_t out_len, err_len;
    double seconds;     /* wall time */
    double cpu_seconds; /* user + system time of the child */
} proc_result;

/* Runs argv[0] with argv, standard input from stdin_path (NULL = /dev/null),
 * killing it after timeout_s seconds; mem_limit bytes of address space
 * (0 = no limit; sanitizer builds need none). Returns false if it could not
 * start. */
bool proc_run(const char *const *argv, const char *stdin_path, double timeout_s, size_t mem_limit,
              proc_result *r);
void proc_result_free(proc_result *r);

/* Runs TFC_BIN with the given arguments (NULL-terminated), 10 s limit. */
bool proc_tfc(proc_result *r, const char *arg0, ...);

#endif
