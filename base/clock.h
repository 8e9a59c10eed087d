/* clock: monotonic seconds, for the timings tfc reports (LP phases,
 * compile steps, index builds). The including file defines
 * _POSIX_C_SOURCE (clock_gettime). */
#ifndef TFC_CLOCK_H
#define TFC_CLOCK_H

#include <time.h>

static inline double clock_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
