/*
 * The AVX2 CDT sample of eight candidates (haetae_cdt_avx2.c): each 83-bit
 * value as three 28-bit limbs, limb t of the eight values in rt's 32-bit
 * lanes; returns the eight samples in the same lanes.
 */
#ifndef KPQC_HAETAE_CDT_AVX2_H
#define KPQC_HAETAE_CDT_AVX2_H

#include "common/x86_intrin.h"

#define HAETAE_CDT_LIMB_BITS 28
__m256i kpqc_haetae_cdt8_avx2(__m256i r0, __m256i r1, __m256i r2);

#endif
