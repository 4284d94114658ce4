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

#endif
