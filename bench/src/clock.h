/* Timing for benchmarks: wall-clock ns, the time-stamp counter, and the
 * CPU time of the calling thread (which a busy machine's preemption does
 * not inflate). */
#ifndef KPQC_BENCH_CLOCK_H
#define KPQC_BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t bench_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline uint64_t bench_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline uint64_t bench_cycles(void) {
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    return 0;
#endif
}

#endif
