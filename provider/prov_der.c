/*
 * The two DER structures keys travel in, written and read here with strict
 * DER rules (definite minimal lengths, nothing trailing):
 *
 *   SubjectPublicKeyInfo ::= SEQUENCE { SEQUENCE { OID }, BIT STRING pub }
 *   PrivateKeyInfo       ::= SEQUENCE { INTEGER 0, SEQUENCE { OID }, OCTET STRING priv }
 *
 * The AlgorithmIdentifier has no parameters, as for Ed25519 and ML-DSA.
 * A `wrapped` key is the key bytes inside an OCTET STRING of their own (as
 * Bouncy Castle writes its KpqC keys, see prov_bc.c).
 * Kept outside libcrypto's X509_PUBKEY/PKCS8 code on purpose: those call
 * back into the decoders, and this parser is small enough to fuzz whole.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "kpqcprovider.h"

enum {
    TAG_INTEGER = 0x02,
    TAG_BIT_STRING = 0x03,
    TAG_OCTET_STRING = 0x04,
    TAG_OID = 0x06,
    TAG_SEQUENCE = 0x30,
    TAG_PUBLIC_KEY = 0x81, /* OneAsymmetricKey's [1] IMPLICIT BIT STRING */
};

/* One arc of a dotted OID at *p (digits, no leading zero); 0 when it does
 * not fit an unsigned long, which is what the encoder below can write. */
static int parse_arc(const char **p, unsigned long *arc) {
    const char *s = *p;
    unsigned long v = 0;
    if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9')) return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (ULONG_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *arc = v;
    *p = s;
    return 1;
}

int kpqc_der_oid(const char *dotted, unsigned char *out, size_t *len) {
    unsigned long arcs[32];
    size_t n = 0, pos = 0;
    const char *p = dotted;
    while (*p != '\0') {
        if (n == 32 || !parse_arc(&p, &arcs[n++])) return 0;
        if (*p == '.' && p[1] != '\0') p++;
        else if (*p != '\0') return 0;
    }
    /* the first two arcs share one subidentifier, 40 * first + second */
    if (n < 2 || arcs[0] > 2 || (arcs[0] < 2 && arcs[1] > 39) || arcs[1] > ULONG_MAX - 40 * arcs[0]) return 0;
    arcs[1] += 40 * arcs[0];
    for (size_t i = 1; i < n; i++) {
        unsigned char tmp[(sizeof(unsigned long) * 8 + 6) / 7];
        size_t k = 0;
        unsigned long v = arcs[i];
        do tmp[k++] = v & 0x7F; while ((v >>= 7) != 0);
        if (pos + k > *len) return 0;
        while (k > 0) {
            k--;
            out[pos++] = (unsigned char)(tmp[k] | (k != 0 ? 0x80 : 0));
        }
    }
    *len = pos;
    return 1;
}

/* ------------------------------------------------------------ writing */

static size_t len_size(size_t len) { return len < 0x80 ? 1 : len < 0x100 ? 2 : len < 0x10000 ? 3 : 4; }
static size_t tlv_size(size_t len) { return 1 + len_size(len) + len; }

static unsigned char *put_header(unsigned char *p, unsigned tag, size_t len) {
    *p++ = (unsigned char)tag;
    size_t n = len_size(len) - 1;
    if (n == 0) {
        *p++ = (unsigned char)len;
    } else {
        *p++ = (unsigned char)(0x80 | n);
        while (n-- > 0) *p++ = (unsigned char)(len >> (8 * n));
    }
    return p;
}

/* SEQUENCE { [INTEGER v,] SEQUENCE { OID }, <tag> [00] [OCTET STRING] key [, [1] 00 pub] } */
int kpqc_der_write_key_info(const char *dotted_oid, int pkcs8, int wrapped, const kpqc_der_key *k, unsigned char **out,
                            size_t *out_len) {
    unsigned char oid[64];
    size_t oid_len = sizeof oid;
    if (dotted_oid == NULL || !kpqc_der_oid(dotted_oid, oid, &oid_len)) return 0;
    int with_pub = pkcs8 && k->pub != NULL; /* OneAsymmetricKey (RFC 5958) version 1 */
    size_t algid = tlv_size(oid_len);
    size_t value = wrapped ? tlv_size(k->key_len) : k->key_len;
    size_t body = pkcs8 ? value : value + 1; /* BIT STRING: unused-bits byte */
    size_t inner = (pkcs8 ? 3 : 0) + tlv_size(algid) + tlv_size(body) + (with_pub ? tlv_size(k->pub_len + 1) : 0);
    size_t total = tlv_size(inner);
    unsigned char *buf = OPENSSL_secure_malloc(total), *p = buf;
    if (buf == NULL) return 0;
    p = put_header(p, TAG_SEQUENCE, inner);
    if (pkcs8) *p++ = TAG_INTEGER, *p++ = 1, *p++ = (unsigned char)with_pub;
    p = put_header(p, TAG_SEQUENCE, algid);
    p = put_header(p, TAG_OID, oid_len);
    memcpy(p, oid, oid_len), p += oid_len;
    p = put_header(p, pkcs8 ? TAG_OCTET_STRING : TAG_BIT_STRING, body);
    if (!pkcs8) *p++ = 0;
    if (wrapped) p = put_header(p, TAG_OCTET_STRING, k->key_len);
    memcpy(p, k->key, k->key_len), p += k->key_len;
    if (with_pub) {
        p = put_header(p, TAG_PUBLIC_KEY, k->pub_len + 1);
        *p++ = 0;
        memcpy(p, k->pub, k->pub_len);
    }
    *out = buf;
    *out_len = total;
    return 1;
}

int kpqc_der_spki(const kpqc_prov_alg *alg, const unsigned char *pub, size_t pub_len, unsigned char **out,
                  size_t *out_len) {
    kpqc_der_key k = {pub, pub_len, NULL, 0};
    return kpqc_der_write_key_info(alg->oid, 0, 0, &k, out, out_len);
}

int kpqc_der_pkcs8(const kpqc_prov_alg *alg, const unsigned char *priv, size_t priv_len, unsigned char **out,
                   size_t *out_len) {
    kpqc_der_key k = {priv, priv_len, NULL, 0};
    return kpqc_der_write_key_info(alg->oid, 1, 0, &k, out, out_len);
}

/* ------------------------------------------------------------ reading */

typedef struct {
    const unsigned char *p, *end;
} cursor;

/* Reads one TLV with tag `tag`; its contents become `inner`. */
static int get_tlv(cursor *c, unsigned tag, cursor *inner) {
    if (c->end - c->p < 2 || c->p[0] != tag) return 0;
    const unsigned char *p = c->p + 1;
    size_t len = *p++;
    if (len & 0x80) {
        size_t n = len & 0x7F;
        if (n == 0 || n > 3 || (size_t)(c->end - p) < n || p[0] == 0) return 0; /* minimal, definite */
        len = 0;
        while (n-- > 0) len = (len << 8) | *p++;
        if (len < 0x80) return 0;
    }
    if ((size_t)(c->end - p) < len) return 0;
    inner->p = p;
    inner->end = p + len;
    c->p = p + len;
    return 1;
}

static int get_algid(cursor *c, const char *dotted_oid) {
    cursor algid, oid;
    unsigned char want[64];
    size_t want_len = sizeof want;
    if (dotted_oid == NULL || !kpqc_der_oid(dotted_oid, want, &want_len)) return 0;
    if (!get_tlv(c, TAG_SEQUENCE, &algid) || !get_tlv(&algid, TAG_OID, &oid) || algid.p != algid.end) return 0;
    return (size_t)(oid.end - oid.p) == want_len && memcmp(oid.p, want, want_len) == 0;
}

/* The key bytes of a wrapped key: the whole of `c` is one OCTET STRING. */
static int unwrap(cursor *c, int wrapped) {
    cursor inner;
    if (!wrapped) return 1;
    if (!get_tlv(c, TAG_OCTET_STRING, &inner) || c->p != c->end) return 0;
    *c = inner;
    return 1;
}

int kpqc_der_parse_key_info(const char *dotted_oid, int pkcs8, int wrapped, const unsigned char *in, size_t len,
                            kpqc_der_key *k) {
    cursor all = {in, in + len}, seq, version, value, pub = {NULL, NULL};
    if (!get_tlv(&all, TAG_SEQUENCE, &seq) || all.p != all.end) return 0;
    if (pkcs8 && (!get_tlv(&seq, TAG_INTEGER, &version) || version.end - version.p != 1 || version.p[0] > 1))
        return 0;
    if (!get_algid(&seq, dotted_oid) || !get_tlv(&seq, pkcs8 ? TAG_OCTET_STRING : TAG_BIT_STRING, &value)) return 0;
    /* Version 1 may end with its public key; attributes are not expected. */
    if (pkcs8 && version.p[0] == 1 && seq.p != seq.end &&
        (!get_tlv(&seq, TAG_PUBLIC_KEY, &pub) || pub.p == pub.end || pub.p[0] != 0))
        return 0;
    if (seq.p != seq.end) return 0;
    if (!pkcs8) {
        if (value.p == value.end || value.p[0] != 0) return 0; /* whole bytes only */
        value.p++;
    }
    if (!unwrap(&value, wrapped)) return 0;
    k->key = value.p;
    k->key_len = (size_t)(value.end - value.p);
    k->pub = pub.p != NULL ? pub.p + 1 : NULL;
    k->pub_len = pub.p != NULL ? (size_t)(pub.end - pub.p) - 1 : 0;
    return 1;
}

int kpqc_der_parse_spki(const kpqc_prov_alg *alg, const unsigned char *in, size_t len,
                        const unsigned char **pub, size_t *pub_len) {
    kpqc_der_key k;
    if (!kpqc_der_parse_key_info(alg->oid, 0, 0, in, len, &k)) return 0;
    *pub = k.key, *pub_len = k.key_len;
    return 1;
}

int kpqc_der_parse_pkcs8(const kpqc_prov_alg *alg, const unsigned char *in, size_t len,
                         const unsigned char **priv, size_t *priv_len) {
    kpqc_der_key k;
    if (!kpqc_der_parse_key_info(alg->oid, 1, 0, in, len, &k) || k.pub != NULL) return 0; /* ours carry pk inside */
    *priv = k.key, *priv_len = k.key_len;
    return 1;
}
