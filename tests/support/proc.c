/* proc: fork/exec with captured output, for black-box tests of tfc. */
#define _DEFAULT_SOURCE /* wait4 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *slurp(int fd, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    if (!b)
        return NULL;
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        if (n == cap) {
            char *nb = realloc(b, cap * 2 + 1);
            if (!nb)
                break;
            b = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    b[n] = '\0';
    *len = n;
    return b;
}

static int temp_fd(void)
{
    char name[] = "/tmp/tfc-test-XXXXXX";
    int fd = mkstemp(name);
    if (fd >= 0)
        unlink(name);
    return fd;
}

bool proc_run(const char *const *argv, const char *stdin_path, double timeout_s, size_t mem_limit,
              proc_result *r)
{
    memset(r, 0, sizeof *r);
    int out = temp_fd(), err = temp_fd();
    int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0)
        return false;
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        if (mem_limit) {
            struct rlimit rl = {mem_limit, mem_limit};
            setrlimit(RLIMIT_AS, &rl);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(in);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid)
            break;
        if (now() - t0 > timeout_s) {
            kill(pid, SIGKILL);
            wait4(pid, &status, 0, &ru);
            r->timed_out = true;
            break;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    r->seconds = now() - t0;
    r->cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                     (double)ru.ru_stime.tv_usec * 1e-6;
    if (WIFEXITED(status)) {
        r->exit_code = WEXITSTATUS(status);
    } else {
        r->exit_code = -1;
        r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    r->out = slurp(out, &r->out_len);
    r->err = slurp(err, &r->err_len);
    close(out);
    close(err);
    return r->out && r->err;
}

void proc_result_free(proc_result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

bool proc_tfc(proc_result *r, const char *arg0, ...)
{
    const char *argv[32] = {TFC_BIN};
    size_t n = 1;
    va_list ap;
    va_start(ap, arg0);
    for (const char *a = arg0; a && n < 31; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    return proc_run(argv, NULL, 10.0, 0, r);
}
