/*
 * The feature module: what the CPU has, which implementation level the
 * process runs at, and the choice of a family's kernel table (see cpu.h).
 */
#include "cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include <kpqc/kpqc.h>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

/* The ladder of levels of this architecture, lowest first. */
static const struct level {
    const char *name;
    kpqc_impl impl;
    unsigned features;
} levels[] = {
    {"portable", KPQC_IMPL_PORTABLE, KPQC_LEVEL_PORTABLE},
#ifdef KPQC_ISA_AVX2
    {"avx2", KPQC_IMPL_AVX2, KPQC_LEVEL_AVX2},
#endif
#ifdef KPQC_ISA_AVX512
    {"avx512", KPQC_IMPL_AVX512, KPQC_LEVEL_AVX512},
#endif
};
#define NLEVELS (sizeof levels / sizeof levels[0])

#if defined(__x86_64__)
/* Vector state must also be saved by the operating system, which XGETBV's
 * XCR0 tells: bits 1-2 (SSE, AVX) for AVX2, and bits 5-7 (opmask, upper
 * halves of zmm0-15, zmm16-31) as well for AVX-512. */
static unsigned detect(void) {
    unsigned a, b, c, d, f = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const unsigned pclmul = (c >> 1) & 1, fma = (c >> 12) & 1, sse41 = (c >> 19) & 1;
    const unsigned osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (pclmul && sse41) f |= KPQC_FEAT_PCLMUL;
    if (!osxsave || !avx || __get_cpuid_max(0, NULL) < 7) return f;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    __cpuid_count(7, 0, a, b, c, d);
    const unsigned bmi1 = (b >> 3) & 1, avx2 = (b >> 5) & 1, bmi2 = (b >> 8) & 1;
    const unsigned avx512 = ((b >> 16) & 1) /* F */ && ((b >> 17) & 1) /* DQ */ && ((b >> 30) & 1) /* BW */ &&
                            ((b >> 31) & 1) /* VL */ && ((b >> 21) & 1) /* IFMA */ &&
                            ((c >> 1) & 1) /* VBMI */ && ((c >> 10) & 1) /* VPCLMULQDQ */;
    if ((lo & 0x06) == 0x06 && avx2 && fma && bmi1 && bmi2) f |= KPQC_FEAT_AVX2;
    if ((lo & 0xe6) == 0xe6 && avx512) f |= KPQC_FEAT_AVX512;
    return f;
}
#elif defined(__aarch64__) && defined(__linux__)
/* Advanced SIMD is architectural on aarch64; optional extensions a backend
 * may come to need (PMULL, SHA3) are read from the kernel's HWCAP.  No level
 * uses them yet. */
static unsigned detect(void) {
    (void)getauxval(AT_HWCAP);
    return 0;
}
#else
static unsigned detect(void) { return 0; }
#endif

/* 0 until decided, then 1 + index into levels[]; features likewise + 1. */
static atomic_uint current_level;
static atomic_uint cpu_features;

static unsigned features(void) {
    unsigned f = atomic_load_explicit(&cpu_features, memory_order_relaxed);
    if (f == 0) {
        f = detect() + 1;
        atomic_store_explicit(&cpu_features, f, memory_order_relaxed);
    }
    return f - 1;
}

static int level_available(size_t i) { return (levels[i].features & ~features()) == 0; }

static size_t best_level(void) {
    size_t best = 0;
    for (size_t i = 0; i < NLEVELS; i++)
        if (level_available(i)) best = i;
    return best;
}

/* KPQC_IMPL=auto (or unset) takes the best level; a level this build or
 * this machine does not have is refused loudly and the best level runs. */
static size_t level_from_environment(void) {
    const char *env = getenv("KPQC_IMPL");
    if (env == NULL || *env == '\0' || strcasecmp(env, "auto") == 0) return best_level();
    for (size_t i = 0; i < NLEVELS; i++)
        if (strcasecmp(env, levels[i].name) == 0) {
            if (level_available(i)) return i;
            break;
        }
    fprintf(stderr, "libkpqc: KPQC_IMPL=%s is not available on this machine (levels:", env);
    for (size_t i = 0; i < NLEVELS; i++)
        if (level_available(i)) fprintf(stderr, " %s", levels[i].name);
    fprintf(stderr, "); using the automatic choice\n");
    return best_level();
}

static const struct level *level(void) {
    unsigned l = atomic_load_explicit(&current_level, memory_order_relaxed);
    if (l == 0) {
        l = (unsigned)level_from_environment() + 1;
        atomic_store_explicit(&current_level, l, memory_order_relaxed);
    }
    return &levels[l - 1];
}

int kpqc_set_impl(kpqc_impl impl) {
    size_t choice = NLEVELS;
    if (impl == KPQC_IMPL_AUTO) choice = best_level();
    for (size_t i = 0; i < NLEVELS && choice == NLEVELS; i++)
        if (levels[i].impl == impl && level_available(i)) choice = i;
    if (choice == NLEVELS) return KPQC_ERR_UNSUPPORTED;
    atomic_store_explicit(&current_level, (unsigned)choice + 1, memory_order_relaxed);
    return KPQC_OK;
}

const char *kpqc_impl_name(void) { return level()->name; }

unsigned kpqc_cpu_allowed(void) { return level()->features; }

const kpqc_backend_info *kpqc_backend_select(const kpqc_backend_info *const *candidates, size_t n) {
    const unsigned allowed = kpqc_cpu_allowed();
    for (size_t i = 0; i + 1 < n; i++)
        if ((candidates[i]->needs & ~allowed) == 0) return candidates[i];
    return candidates[n - 1];
}

int kpqc_backend_usable(const kpqc_backend_info *b) { return (b->needs & ~features()) == 0; }
