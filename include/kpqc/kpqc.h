/*
 * libkpqc — Korean post-quantum cryptography (SMAUG-T, NTRU+, HAETAE, AIMer).
 *
 * One uniform API for every parameter set: look an algorithm up by name,
 * read its sizes from the descriptor, call keypair/encaps/decaps or
 * keypair/sign/verify with explicit buffer lengths.  Every randomised call
 * takes an optional RNG (NULL = the operating system's randomness).
 *
 * All functions return KPQC_OK (0) on success and a negative kpqc_status
 * otherwise; nothing in this API aborts on bad input.
 */
#ifndef KPQC_KPQC_H
#define KPQC_KPQC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KPQC_VERSION_STRING "0.1.0"

/* The functions below are the library's interface, exported from
 * libkpqc.so; everything else in the library is built hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define KPQC_API __attribute__((visibility("default")))
#else
#define KPQC_API
#endif

typedef enum kpqc_status {
    KPQC_OK = 0,
    KPQC_ERR_ARGUMENT = -1,  /* NULL pointer or unknown algorithm */
    KPQC_ERR_LENGTH = -2,    /* a buffer has the wrong length */
    KPQC_ERR_RNG = -3,       /* the random number generator failed */
    KPQC_ERR_VERIFY = -4,    /* signature does not verify */
    KPQC_ERR_DECODE = -5,    /* malformed key or signature encoding */
    KPQC_ERR_INTERNAL = -6,  /* should not happen: a bug if it does */
    KPQC_ERR_DECAPS = -7,    /* ciphertext rejected (KEMs with explicit rejection) */
    KPQC_ERR_UNSUPPORTED = -8, /* the CPU or OS cannot run the requested code path */
} kpqc_status;

/* A short English description of a status code (never NULL). */
KPQC_API const char *kpqc_status_string(int status);

/* ---------------------------------------------------------------------
 * Randomness.  `fill` writes `len` random bytes to `out` and returns 0 on
 * success, non-zero on failure (which every caller turns into KPQC_ERR_RNG
 * after wiping its partial state).  Pass NULL wherever a `const kpqc_rng *`
 * is asked for to use the operating system (getrandom(2) on Linux,
 * getentropy(2) on macOS and the BSDs).
 * ------------------------------------------------------------------- */
typedef int (*kpqc_rng_fill_fn)(void *ctx, uint8_t *out, size_t len);

typedef struct kpqc_rng {
    kpqc_rng_fill_fn fill;
    void *ctx;
} kpqc_rng;

/* Draw from `rng` (or the OS when NULL). */
KPQC_API int kpqc_randombytes(const kpqc_rng *rng, uint8_t *out, size_t len);

/* ---------------------------------------------------------------------
 * Code paths.  By default the fastest level the CPU supports is used;
 * KPQC_IMPL=portable|avx2|avx512 in the environment (read once; a level the
 * machine cannot run is reported on stderr and the automatic choice runs)
 * or kpqc_set_impl() picks one.  Every level gives byte-identical results.
 * ------------------------------------------------------------------- */
typedef enum kpqc_impl {
    KPQC_IMPL_AUTO = 0,     /* the best level this machine has */
    KPQC_IMPL_PORTABLE = 1, /* plain C11 */
    KPQC_IMPL_AVX2 = 2,     /* x86-64: AVX2, FMA, BMI1/2, PCLMULQDQ */
    KPQC_IMPL_AVX512 = 3,   /* x86-64: AVX-512 F/BW/DQ/VL, VPCLMULQDQ, and the above */
} kpqc_impl;

/* KPQC_OK, or KPQC_ERR_UNSUPPORTED (level unchanged) when this build, the
 * CPU or the operating system cannot run `impl`. */
KPQC_API int kpqc_set_impl(kpqc_impl impl);
/* The level calls made now run at: "portable", "avx2", "avx512".  Each
 * family takes its best kernels within it (kpqc_kem_impl_name and
 * kpqc_sig_impl_name say which). */
KPQC_API const char *kpqc_impl_name(void);

/* ---------------------------------------------------------------------
 * Key encapsulation.
 * ------------------------------------------------------------------- */
typedef struct kpqc_kem_ops kpqc_kem_ops; /* internal */

typedef struct kpqc_kem {
    const char *name;       /* primary name, e.g. "smaugt1" */
    const char *display;    /* as the specification writes it, "SMAUG-T1" */
    const char *family;     /* "SMAUG-T" */
    const char *kat_name;   /* header line of the official KAT file */
    const char *aliases;    /* comma-separated alternative names */
    unsigned nist_level;
    size_t pk_len, sk_len, ct_len, ss_len;
    const kpqc_kem_ops *ops;
    /* How decapsulation answers an invalid ciphertext, as the specification
     * says: KPQC_REJECT_IMPLICIT (SMAUG-T: a pseudo-random secret and
     * KPQC_OK) or KPQC_REJECT_EXPLICIT (NTRU+: an all-zero secret and
     * KPQC_ERR_DECAPS). */
    int rejection;
} kpqc_kem;

#define KPQC_REJECT_IMPLICIT 0
#define KPQC_REJECT_EXPLICIT 1

KPQC_API size_t kpqc_kem_count(void);
KPQC_API const kpqc_kem *kpqc_kem_at(size_t index);
/* Case-insensitive; accepts primary names and aliases.  NULL if unknown. */
KPQC_API const kpqc_kem *kpqc_kem_by_name(const char *name);

KPQC_API int kpqc_kem_keypair(const kpqc_kem *kem, uint8_t *pk, size_t pk_len,
                              uint8_t *sk, size_t sk_len, const kpqc_rng *rng);
KPQC_API int kpqc_kem_encaps(const kpqc_kem *kem, uint8_t *ct, size_t ct_len,
                             uint8_t *ss, size_t ss_len, const uint8_t *pk,
                             size_t pk_len, const kpqc_rng *rng);
/* An invalid ciphertext of the right length is answered as the scheme's
 * specification says (see kpqc_kem.rejection); never by a crash. */
KPQC_API int kpqc_kem_decaps(const kpqc_kem *kem, uint8_t *ss, size_t ss_len,
                             const uint8_t *ct, size_t ct_len, const uint8_t *sk,
                             size_t sk_len);
/* KPQC_OK if the secret key carries the public key `pk` (both SMAUG-T and
 * NTRU+ secret keys hold pk or its hash for the FO transform), else
 * KPQC_ERR_DECODE.  Its secret polynomials are not tested: to load a key
 * pair from storage, follow this with an encapsulate/decapsulate round. */
KPQC_API int kpqc_kem_check_keypair(const kpqc_kem *kem, const uint8_t *pk,
                                    size_t pk_len, const uint8_t *sk, size_t sk_len);
/* The kernels this KEM's operations take now ("portable", "avx2", ...);
 * NULL for a NULL kem. */
KPQC_API const char *kpqc_kem_impl_name(const kpqc_kem *kem);

/* ---------------------------------------------------------------------
 * Signatures.  Every scheme takes a context string of 0..255 bytes.
 * `sig_len` is the maximum signature size; sign reports the actual size.
 * ------------------------------------------------------------------- */
typedef struct kpqc_sig_ops kpqc_sig_ops; /* internal */

#define KPQC_SIG_MAX_CONTEXT 255

typedef struct kpqc_sig {
    const char *name;       /* "haetae2" */
    const char *display;    /* "HAETAE2" */
    const char *family;     /* "HAETAE" */
    const char *kat_name;
    const char *aliases;
    unsigned nist_level;
    size_t pk_len, sk_len, sig_len;
    const kpqc_sig_ops *ops;
} kpqc_sig;

KPQC_API size_t kpqc_sig_count(void);
KPQC_API const kpqc_sig *kpqc_sig_at(size_t index);
KPQC_API const kpqc_sig *kpqc_sig_by_name(const char *name);

KPQC_API int kpqc_sig_keypair(const kpqc_sig *alg, uint8_t *pk, size_t pk_len,
                              uint8_t *sk, size_t sk_len, const kpqc_rng *rng);
KPQC_API int kpqc_sig_sign(const kpqc_sig *alg, uint8_t *sig, size_t *sig_len,
                           const uint8_t *msg, size_t msg_len, const uint8_t *ctx,
                           size_t ctx_len, const uint8_t *sk, size_t sk_len,
                           const kpqc_rng *rng);
/* KPQC_OK if valid, KPQC_ERR_VERIFY if not (including malformed input). */
KPQC_API int kpqc_sig_verify(const kpqc_sig *alg, const uint8_t *sig, size_t sig_len,
                             const uint8_t *msg, size_t msg_len, const uint8_t *ctx,
                             size_t ctx_len, const uint8_t *pk, size_t pk_len);
/* KPQC_OK if `sk` is a well-formed secret key whose public key is `pk`
 * (recomputed from the secret part, deterministically), else
 * KPQC_ERR_DECODE: a corrupted or spliced key is refused before it signs.
 * Only the verdict depends on the secret. */
KPQC_API int kpqc_sig_check_keypair(const kpqc_sig *alg, const uint8_t *pk,
                                    size_t pk_len, const uint8_t *sk, size_t sk_len);
/* The kernels this scheme's operations take now; NULL for a NULL alg. */
KPQC_API const char *kpqc_sig_impl_name(const kpqc_sig *alg);

#ifdef __cplusplus
}
#endif
#endif /* KPQC_KPQC_H */
