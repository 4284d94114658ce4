/*
 * The generic vector forms src/common/x86_intrin.h uses in the
 * MemorySanitizer build (tests/ct/msan.cmake) equal the instructions the
 * other builds use: three-way XOR and chi against vpternlogq at each width,
 * the all-zero test against vptest.  Run on the instructions this CPU has;
 * elsewhere (no x86-64) nothing to compare.
 */
#include "harness.h"

#if defined(__x86_64__)
#include <string.h>

#include "common/x86_intrin.h"

static uint64_t state = 0x9E3779B97F4A7C15u;
static uint64_t next(void) { /* xorshift64 */
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
}

#define SAME(x, y) (memcmp(&(x), &(y), sizeof(x)) == 0)

__attribute__((target("avx512f,avx512vl"))) static void ternlog_equal(void) {
    for (int i = 0; i < 1000; i++) {
        __m512i a = _mm512_set_epi64((long long)next(), (long long)next(), (long long)next(), (long long)next(),
                                     (long long)next(), (long long)next(), (long long)next(), (long long)next());
        __m512i b = _mm512_rol_epi64(a, 17), c = _mm512_xor_si512(_mm512_ror_epi64(a, 5), _mm512_set1_epi64((long long)next()));
        __m512i x3 = KPQC_XOR3_TERNLOG(_mm512, a, b, c), x3g = KPQC_XOR3_GENERIC(a, b, c);
        __m512i chi = KPQC_CHI_TERNLOG(_mm512, a, b, c), chig = KPQC_CHI_GENERIC(a, b, c);
        CHECK(SAME(x3, x3g));
        CHECK(SAME(chi, chig));
        __m256i a2 = _mm512_castsi512_si256(a), b2 = _mm512_castsi512_si256(b), c2 = _mm512_castsi512_si256(c);
        __m256i y3 = KPQC_XOR3_TERNLOG(_mm256, a2, b2, c2), y3g = KPQC_XOR3_GENERIC(a2, b2, c2);
        __m256i ychi = KPQC_CHI_TERNLOG(_mm256, a2, b2, c2), ychig = KPQC_CHI_GENERIC(a2, b2, c2);
        CHECK(SAME(y3, y3g));
        CHECK(SAME(ychi, ychig));
        __m128i a1 = _mm512_castsi512_si128(a), b1 = _mm512_castsi512_si128(b), c1 = _mm512_castsi512_si128(c);
        __m128i z3 = KPQC_XOR3_TERNLOG(_mm, a1, b1, c1), z3g = KPQC_XOR3_GENERIC(a1, b1, c1);
        __m128i zchi = KPQC_CHI_TERNLOG(_mm, a1, b1, c1), zchig = KPQC_CHI_GENERIC(a1, b1, c1);
        CHECK(SAME(z3, z3g));
        CHECK(SAME(zchi, zchig));
    }
}

__attribute__((target("avx2"))) static void testz_equal(void) {
    __m256i zero = _mm256_setzero_si256();
    CHECK(KPQC_TESTZ256_PTEST(zero) == 1 && KPQC_TESTZ256_GENERIC(zero) == 1);
    for (int bit = 0; bit < 256; bit++) { /* each single bit set: not zero */
        uint64_t w[4] = {0};
        w[bit / 64] = (uint64_t)1 << (bit % 64);
        __m256i v = _mm256_loadu_si256((const __m256i *)w);
        CHECK_MSG(KPQC_TESTZ256_PTEST(v) == 0 && KPQC_TESTZ256_GENERIC(v) == 0, "bit %d", bit);
    }
    for (int i = 0; i < 1000; i++) {
        __m256i v = _mm256_set_epi64x((long long)next(), (long long)next(), (long long)next(), (long long)next());
        CHECK(KPQC_TESTZ256_PTEST(v) == KPQC_TESTZ256_GENERIC(v));
    }
}

int main(void) {
    int compared = 0;
    if (kpqc_set_impl(KPQC_IMPL_AVX2) == KPQC_OK) testz_equal(), compared++;
    if (kpqc_set_impl(KPQC_IMPL_AVX512) == KPQC_OK) ternlog_equal(), compared++;
    printf("compared the generic forms on %d instruction set(s)\n", compared);
    return test_result("x86_generic");
}
#else
int main(void) {
    printf("x86_generic: not an x86-64 build, nothing to compare\n");
    return 0;
}
#endif
