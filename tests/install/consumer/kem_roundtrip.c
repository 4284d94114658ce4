/*
 * A program as a user of the installed libkpqc writes it: every KEM of the
 * library, one key pair, encapsulation and decapsulation, the two secrets
 * compared.  Prints "<n> KEMs agree" and exits 0 when all do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kpqc/kpqc.h>

static int round_trip(const kpqc_kem *kem) {
    uint8_t *pk = malloc(kem->pk_len), *sk = malloc(kem->sk_len), *ct = malloc(kem->ct_len);
    uint8_t *ss1 = malloc(kem->ss_len), *ss2 = malloc(kem->ss_len);
    int ok = pk && sk && ct && ss1 && ss2 &&
             kpqc_kem_keypair(kem, pk, kem->pk_len, sk, kem->sk_len, NULL) == KPQC_OK &&
             kpqc_kem_encaps(kem, ct, kem->ct_len, ss1, kem->ss_len, pk, kem->pk_len, NULL) == KPQC_OK &&
             kpqc_kem_decaps(kem, ss2, kem->ss_len, ct, kem->ct_len, sk, kem->sk_len) == KPQC_OK &&
             memcmp(ss1, ss2, kem->ss_len) == 0;
    free(pk), free(sk), free(ct), free(ss1), free(ss2);
    return ok;
}

int main(void) {
    size_t n = kpqc_kem_count();
    if (n == 0) {
        fprintf(stderr, "no KEM in the library\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        const kpqc_kem *kem = kpqc_kem_at(i);
        if (!round_trip(kem)) {
            fprintf(stderr, "%s: round trip failed\n", kem->name);
            return 1;
        }
    }
    printf("%zu KEMs agree (libkpqc %s, %s)\n", n, KPQC_VERSION_STRING, kpqc_impl_name());
    return 0;
}
