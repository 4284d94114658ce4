/*
 * The parsers of untrusted ciphertexts and signatures, callable alone so
 * that the decoder fuzz targets reach them at thousands of inputs a second
 * (a whole verification or decapsulation spends its time elsewhere).  Each
 * takes the parameter set by its index in the family (table order) and
 * returns 0 when the input parses, -1 when it is refused (wrong length,
 * invalid code), never reading outside `in`.
 */
#ifndef KPQC_DECODERS_H
#define KPQC_DECODERS_H

#include <stddef.h>
#include <stdint.h>

/* NTRU+ 768/864/1152: the ciphertext polynomial (coefficients canonical). */
int kpqc_ntruplus_unpack_ciphertext(unsigned set, const uint8_t *in, size_t len);
/* SMAUG-T 1/3/5/TiMER: the k compressed polynomials c1 and c2. */
int kpqc_smaugt_unpack_ciphertext(unsigned set, const uint8_t *in, size_t len);
/* HAETAE 2/3/5: challenge, low bits of z1, and the two rANS streams (high
 * bits of z1, hint h), with the zero padding after them. */
int kpqc_haetae_unpack_signature(unsigned set, const uint8_t *in, size_t len);
/* AIMer 128f/128s/192f/192s/256f/256s: salt, h1, h2, the hidden party of
 * each repetition and every field element of its proof. */
int kpqc_aimer_parse_signature(unsigned set, const uint8_t *in, size_t len);
/* The sum of the field elements the last parse read (every bit pattern is a
 * field element: storing it keeps the loads from being optimised away). */
extern volatile uint64_t kpqc_aimer_parse_fold;

#endif
