/*
 * The one way libkpqc chooses a code path.
 *
 * Feature module (cpu.c, this header, cmake/KpqcIsa.cmake).  The CPU's
 * features are read once: on x86-64 CPUID plus XGETBV (the OS must save the
 * YMM/ZMM state it would have to restore), on aarch64 getauxval(AT_HWCAP)
 * where a feature is optional; other processors have none.  The features
 * are grouped into implementation levels, a ladder per architecture:
 *
 *     portable  <  avx2 (AVX2, FMA, BMI1, BMI2, PCLMULQDQ)
 *               <  avx512 (and AVX-512 F/BW/DQ/VL/IFMA/VBMI, VPCLMULQDQ) x86-64
 *     portable                                                     elsewhere
 *
 * The process runs at one level: the highest the CPU has, or the one named
 * by KPQC_IMPL=<level> in the environment or kpqc_set_impl(), refused when
 * the CPU lacks it.
 *
 * Kernel tables.  Every family with vector code (Keccak on one, four and
 * eight states, SMAUG-T, NTRU+, HAETAE, AIMer) declares a struct of
 * function pointers whose first member is a kpqc_backend_info, defines one
 * such table per backend (<family>_<isa>.c holds that backend's kernels and its table),
 * and lists the tables best first, ending with the portable one whose
 * `needs` is 0.  An operation picks its table once, with kpqc_backend_select,
 * and calls through it to the end: a level change in another thread never
 * mixes backends within an operation.
 *
 * Adding a backend, e.g. NEON:
 *   feature module: a KPQC_FEAT_ bit and a KPQC_LEVEL_ below, its
 *     detection and a row of the level ladder in cpu.c, the level's
 *     kpqc_impl value in kpqc.h, and the file suffix's compiler flags and
 *     processors in cmake/KpqcIsa.cmake (which also defines KPQC_ISA_<ISA>
 *     where they are compiled);
 *   per family: <family>_<isa>.c with the kernels and the table, and its
 *     line in the family's candidate list (guarded by KPQC_ISA_<ISA>).
 * Nothing else in the library changes.  The unit tests compare every
 * backend the CPU can run with the portable one as they are; the KAT tests
 * run per level named in tests/CMakeLists.txt (KPQC_KAT_IMPLS).
 */
#ifndef KPQC_CPU_H
#define KPQC_CPU_H

#include <stddef.h>

/* CPU features a backend may need. */
#define KPQC_FEAT_AVX2 (1u << 0)   /* AVX2, FMA, BMI1, BMI2; YMM state saved by the OS */
#define KPQC_FEAT_PCLMUL (1u << 1) /* PCLMULQDQ, SSE4.1 */
#define KPQC_FEAT_AVX512 (1u << 2) /* AVX-512 F/BW/DQ/VL/IFMA/VBMI, VPCLMULQDQ; opmask and ZMM state saved */

/* The features of each level (the ladder above). */
#define KPQC_LEVEL_PORTABLE 0u
#define KPQC_LEVEL_AVX2 (KPQC_FEAT_AVX2 | KPQC_FEAT_PCLMUL)
#define KPQC_LEVEL_AVX512 (KPQC_LEVEL_AVX2 | KPQC_FEAT_AVX512)

/* First member of every family's kernel table. */
typedef struct kpqc_backend_info {
    const char *name; /* "portable", "avx2", ...: what kpqc_*_impl_name reports */
    unsigned needs;   /* KPQC_FEAT_* bits its kernels execute */
} kpqc_backend_info;

/* The first of the n candidates (best first, the last portable) whose
 * needs the current level allows. */
const kpqc_backend_info *kpqc_backend_select(const kpqc_backend_info *const *candidates, size_t n);

/* Whether a backend may run on this CPU at all, whatever the level (tests
 * compare every such backend with the portable one). */
int kpqc_backend_usable(const kpqc_backend_info *b);

/* Features the current level allows (a subset of the CPU's). */
unsigned kpqc_cpu_allowed(void);

/*
 * A family's choice, from its candidate array `list` of kernel tables of
 * type `type`: defines `const type *select(void)` and, for the tests,
 * `const kpqc_backend_info *const *all(size_t *n)` listing every candidate.
 */
#define KPQC_BACKEND_CHOICE(type, select, all, list)                                      \
    const type *select(void) {                                                          \
        return (const type *)kpqc_backend_select(list, sizeof list / sizeof list[0]);   \
    }                                                                                   \
    const kpqc_backend_info *const *all(size_t *n) {                                    \
        *n = sizeof list / sizeof list[0];                                              \
        return list;                                                                    \
    }

#endif
