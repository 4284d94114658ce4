/*
 * The x86-64 intrinsics, for the kernels in *_avx2.c, *_avx512.c and
 * *_pclmul.c.  The build compiles those files for x86-64 processors only
 * (cmake/KpqcIsa.cmake), each with its instruction set's flags; anywhere
 * else this stops the compilation with a reason instead of a page of
 * unknown intrinsics.
 */
#ifndef KPQC_X86_INTRIN_H
#define KPQC_X86_INTRIN_H

#if !defined(__x86_64__)
#error "x86-64 kernel: cmake/KpqcIsa.cmake compiles these files for x86-64 only"
#endif
#include <immintrin.h>
#include <stdint.h>

/*
 * Operations clang's MemorySanitizer (the constant-time check's
 * instrumented build, tests/ct/msan.cmake) does not see through: for
 * vpternlog and vptest it checks the operands strictly instead of
 * propagating their shadow, and would report every secret operand as a
 * leak.  Only in that build they are written as generic vector
 * expressions, which it tracks bit by bit; tests/unit/test_x86_generic.c
 * checks each pair equal.
 *
 * Three-way XOR and Keccak's chi, a ^ (~b & c): one vpternlogq each (truth
 * tables 0x96 and 0xd2); w is the width's prefix: _mm, _mm256, _mm512.
 */
#define KPQC_XOR3_GENERIC(a, b, c) ((a) ^ (b) ^ (c))
#define KPQC_CHI_GENERIC(a, b, c) ((a) ^ (~(b) & (c)))
#define KPQC_XOR3_TERNLOG(w, a, b, c) w##_ternarylogic_epi64((a), (b), (c), 0x96)
#define KPQC_CHI_TERNLOG(w, a, b, c) w##_ternarylogic_epi64((a), (b), (c), 0xd2)
/* 1 if every bit of v is 0, else 0 (vptest; no branch either way). */
#define KPQC_TESTZ256_GENERIC(v)                                                                              \
    ((int)(((((uint64_t)((v)[0] | (v)[1] | (v)[2] | (v)[3])) |                                                 \
             (0 - (uint64_t)((v)[0] | (v)[1] | (v)[2] | (v)[3]))) >> 63) ^ 1))
#define KPQC_TESTZ256_PTEST(v) _mm256_testz_si256((v), (v))
#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#define KPQC_INTRIN_GENERIC 1
#endif
#endif
#ifdef KPQC_INTRIN_GENERIC
#define KPQC_XOR3(w, a, b, c) KPQC_XOR3_GENERIC(a, b, c)
#define KPQC_CHI(w, a, b, c) KPQC_CHI_GENERIC(a, b, c)
#define KPQC_TESTZ256(v) KPQC_TESTZ256_GENERIC(v)
#else
#define KPQC_XOR3(w, a, b, c) KPQC_XOR3_TERNLOG(w, a, b, c)
#define KPQC_CHI(w, a, b, c) KPQC_CHI_TERNLOG(w, a, b, c)
#define KPQC_TESTZ256(v) KPQC_TESTZ256_PTEST(v)
#endif

#endif
