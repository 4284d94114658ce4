/* SMAUG-T's product: every backend this CPU can run against a plain
 * schoolbook negacyclic product, on random and extreme inputs; bit-string packing
 * round trips for every width the scheme uses. */
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "kem/smaugt/smaugt.h"

static void schoolbook(uint16_t r[SMAUGT_N], const uint16_t a[SMAUGT_N], const int16_t s[SMAUGT_N]) {
    for (unsigned i = 0; i < SMAUGT_N; i++)
        for (unsigned j = 0; j < SMAUGT_N; j++) {
            uint16_t t = (uint16_t)((uint32_t)a[i] * (uint16_t)s[j]);
            if (i + j < SMAUGT_N) r[i + j] = (uint16_t)(r[i + j] + t);
            else r[i + j - SMAUGT_N] = (uint16_t)(r[i + j - SMAUGT_N] - t); /* x^256 = -1 */
        }
}

int main(void) {
    kpqc_nist_drbg d;
    kpqc_rng rng = test_rng(&d, 7);
    size_t nb;
    const kpqc_backend_info *const *backends = kpqc_smaugt_backends(&nb);
    for (unsigned trial = 0; trial < 200; trial++) {
        uint16_t a[SMAUGT_N], r0[SMAUGT_N], r1[SMAUGT_N], start[SMAUGT_N];
        int16_t s[SMAUGT_N];
        uint8_t rnd[3 * SMAUGT_N];
        kpqc_randombytes(&rng, rnd, sizeof rnd);
        for (unsigned i = 0; i < SMAUGT_N; i++) {
            a[i] = trial == 0 ? 0xFFFF : (uint16_t)(rnd[2 * i] | rnd[2 * i + 1] << 8);
            s[i] = trial == 1 ? -1 : (int16_t)((int)(rnd[2 * SMAUGT_N + i] % 7) - 3);
            r0[i] = start[i] = (uint16_t)(rnd[i] * 257u);
        }
        schoolbook(r0, a, s);
        for (size_t b = 0; b < nb; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            memcpy(r1, start, sizeof r1);
            ((const kpqc_smaugt_backend *)backends[b])->mul_acc(r1, a, s);
            CHECK_MSG(memcmp(r0, r1, sizeof r0) == 0, "%s product, trial %u", backends[b]->name, trial);
        }
    }
    static const unsigned widths[] = {3, 4, 5, 7, 8, 9, 10, 11};
    for (unsigned w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        uint16_t v[SMAUGT_N], back[SMAUGT_N];
        uint8_t bytes[11 * SMAUGT_N / 8 + 1];
        for (unsigned i = 0; i < SMAUGT_N; i++) v[i] = (uint16_t)((i * 2654435761u >> 7) & ((1u << widths[w]) - 1));
        kpqc_smaugt_pack_bits(bytes, v, widths[w]);
        kpqc_smaugt_unpack_bits(back, bytes, widths[w]);
        CHECK(memcmp(v, back, sizeof v) == 0);
        /* bit i*w of the string is the low bit of coefficient i */
        for (unsigned i = 0; i < SMAUGT_N; i++)
            CHECK(((bytes[i * widths[w] / 8] >> (i * widths[w] % 8)) & 1) == (v[i] & 1));
    }
    for (size_t b = 0; b < nb; b++)
        printf("%s kernels %s\n", backends[b]->name,
               kpqc_backend_usable(backends[b]) ? "checked" : "not available on this CPU");
    return test_result("test_smaugt_poly");
}
