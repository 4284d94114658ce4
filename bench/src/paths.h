/*
 * The code paths of libkpqc a measurement program runs: every path this
 * machine can run, fastest first, or only the one named by --impl.
 */
#ifndef KPQC_BENCH_PATHS_H
#define KPQC_BENCH_PATHS_H

#include <string.h>

#include <kpqc/kpqc.h>

static const struct {
    kpqc_impl impl;
    const char *name;
} bench_paths[] = {{KPQC_IMPL_AVX512, "avx512"}, {KPQC_IMPL_AVX2, "avx2"}, {KPQC_IMPL_PORTABLE, "portable"}};

#define BENCH_PATH_COUNT (sizeof bench_paths / sizeof bench_paths[0])

/* Switches to path i and returns 1 when it is wanted (only == NULL: all)
 * and this machine runs it; 0 otherwise. */
static inline int bench_path_select(size_t i, const char *only) {
    if (only != NULL && strcmp(only, bench_paths[i].name) != 0) return 0;
    return kpqc_set_impl(bench_paths[i].impl) == KPQC_OK;
}

#endif
