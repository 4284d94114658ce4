/*
 * Run-time choice of code path.  The CPU's features are read once with
 * CPUID; vector state must also be saved by the operating system, which
 * XGETBV's XCR0 tells: bits 1-2 (SSE, AVX) for AVX2, and bits 5-7 (opmask,
 * upper halves of zmm0-15, zmm16-31) as well for AVX-512.
 *
 * KPQC_IMPL=portable|avx2|avx512 in the environment, or kpqc_set_impl(),
 * forces one path so that every path can be tested on one machine.  A path
 * the machine cannot run is refused: kpqc_set_impl() returns
 * KPQC_ERR_UNSUPPORTED, the environment variable says so on stderr once,
 * and kpqc_impl_name() always names the path actually taken.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <kpqc/kpqc.h>

#include "../internal.h"

enum {
    FEAT_AVX2 = 1,      /* AVX2 + BMI1 + BMI2, YMM state saved */
    FEAT_PCLMUL = 2,
    FEAT_AVX512 = 4,    /* AVX-512 F/BW/DQ/VL + VPCLMULQDQ, ZMM and opmask state saved */
    FEAT_KNOWN = 1 << 30,
};

static atomic_int features;   /* FEAT_KNOWN | detected bits */
static atomic_int forced = -1; /* -1: not decided yet; else kpqc_impl */

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
static int detect(void) {
    unsigned a, b, c, d;
    int f = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int pclmul = (c >> 1) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (pclmul) f |= FEAT_PCLMUL;
    if (!osxsave || !avx || __get_cpuid_max(0, NULL) < 7) return f;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    __cpuid_count(7, 0, a, b, c, d);
    int avx2 = (b >> 5) & 1, bmi1 = (b >> 3) & 1, bmi2 = (b >> 8) & 1;
    int avx512 = ((b >> 16) & 1) /* F */ && ((b >> 17) & 1) /* DQ */ && ((b >> 30) & 1) /* BW */ &&
                 ((b >> 31) & 1) /* VL */ && ((c >> 10) & 1) /* VPCLMULQDQ */;
    if ((lo & 0x06) == 0x06 && avx2 && bmi1 && bmi2) {
        f |= FEAT_AVX2;
        if ((lo & 0xe6) == 0xe6 && avx512 && pclmul) f |= FEAT_AVX512;
    }
    return f;
}
#else
static int detect(void) { return 0; }
#endif

static int detected(void) {
    int f = atomic_load_explicit(&features, memory_order_relaxed);
    if (!(f & FEAT_KNOWN)) {
        f = detect() | FEAT_KNOWN;
        atomic_store_explicit(&features, f, memory_order_relaxed);
    }
    return f;
}

/* The features a path may use, or -1 when this machine cannot run it. */
static int path_features(kpqc_impl impl) {
    int f = detected();
    switch (impl) {
    case KPQC_IMPL_AUTO: return f;
    case KPQC_IMPL_PORTABLE: return FEAT_KNOWN;
    case KPQC_IMPL_AVX2: return (f & FEAT_AVX2) ? (f & ~FEAT_AVX512) : -1;
    case KPQC_IMPL_AVX512: return (f & FEAT_AVX512) ? f : -1;
    }
    return -1;
}

static const struct { const char *name; kpqc_impl impl; } impl_names[] = {
    {"portable", KPQC_IMPL_PORTABLE}, {"avx2", KPQC_IMPL_AVX2}, {"avx512", KPQC_IMPL_AVX512},
};

static int from_environment(void) {
    const char *env = getenv("KPQC_IMPL");
    if (env == NULL || *env == 0 || strcasecmp(env, "auto") == 0) return KPQC_IMPL_AUTO;
    for (size_t i = 0; i < sizeof impl_names / sizeof impl_names[0]; i++)
        if (strcasecmp(env, impl_names[i].name) == 0) {
            if (path_features(impl_names[i].impl) >= 0) return (int)impl_names[i].impl;
            fprintf(stderr, "libkpqc: KPQC_IMPL=%s is not supported by this CPU or operating system; "
                            "using the automatic choice\n", env);
            return KPQC_IMPL_AUTO;
        }
    fprintf(stderr, "libkpqc: unknown KPQC_IMPL=%s (portable, avx2, avx512 or auto); "
                    "using the automatic choice\n", env);
    return KPQC_IMPL_AUTO;
}

static int current_features(void) {
    int impl = atomic_load_explicit(&forced, memory_order_relaxed);
    if (impl < 0) {
        impl = from_environment();
        atomic_store_explicit(&forced, impl, memory_order_relaxed);
    }
    return path_features((kpqc_impl)impl);
}

int kpqc_set_impl(kpqc_impl impl) {
    if (path_features(impl) < 0) return KPQC_ERR_UNSUPPORTED;
    atomic_store_explicit(&forced, (int)impl, memory_order_relaxed);
    return KPQC_OK;
}

int kpqc_use_avx2(void) { return (current_features() & FEAT_AVX2) != 0; }

int kpqc_use_avx512(void) { return (current_features() & FEAT_AVX512) != 0; }

int kpqc_use_pclmul(void) { return (current_features() & FEAT_PCLMUL) != 0; }

const char *kpqc_impl_name(void) {
    return kpqc_use_avx512() ? "avx512" : kpqc_use_avx2() ? "avx2" : "portable";
}
