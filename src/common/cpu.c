/*
 * Run-time choice of code path.  The CPU's features are read once with
 * CPUID (AVX2 also needs the OS to save YMM state: OSXSAVE + XGETBV);
 * KPQC_IMPL=portable in the environment or kpqc_set_impl() forces the
 * portable C path so both paths can be tested on one machine.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <kpqc/kpqc.h>

#include "../internal.h"

enum { FEAT_AVX2 = 1, FEAT_PCLMUL = 2, FEAT_BMI2 = 4, FEAT_KNOWN = 1 << 30 };

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
    if (osxsave && avx) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        if ((lo & 6) == 6 && __get_cpuid_max(0, NULL) >= 7) {
            __cpuid_count(7, 0, a, b, c, d);
            if ((b >> 5) & 1) f |= FEAT_AVX2;
            if (((b >> 3) & 1) && ((b >> 8) & 1)) f |= FEAT_BMI2; /* BMI1 and BMI2 */
        }
    }
    return f;
}
#else
static int detect(void) { return 0; }
#endif

static int current_features(void) {
    int f = atomic_load_explicit(&features, memory_order_relaxed);
    if (!(f & FEAT_KNOWN)) {
        f = detect() | FEAT_KNOWN;
        atomic_store_explicit(&features, f, memory_order_relaxed);
    }
    int impl = atomic_load_explicit(&forced, memory_order_relaxed);
    if (impl < 0) {
        const char *env = getenv("KPQC_IMPL");
        impl = (env != NULL && strcasecmp(env, "portable") == 0) ? KPQC_IMPL_PORTABLE : KPQC_IMPL_AUTO;
        atomic_store_explicit(&forced, impl, memory_order_relaxed);
    }
    return impl == KPQC_IMPL_PORTABLE ? FEAT_KNOWN : f;
}

void kpqc_set_impl(kpqc_impl impl) {
    atomic_store_explicit(&forced, impl == KPQC_IMPL_PORTABLE ? KPQC_IMPL_PORTABLE : KPQC_IMPL_AUTO,
                          memory_order_relaxed);
}

int kpqc_use_avx2(void) {
    return (current_features() & (FEAT_AVX2 | FEAT_BMI2)) == (FEAT_AVX2 | FEAT_BMI2);
}

int kpqc_use_pclmul(void) { return (current_features() & FEAT_PCLMUL) != 0; }

const char *kpqc_impl_name(void) { return kpqc_use_avx2() ? "avx2" : "portable"; }
