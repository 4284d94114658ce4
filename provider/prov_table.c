/*
 * The provider's list of algorithms, derived from the one table: KPQC_KEM
 * rows are pure groups, KPQC_HYBRID rows hybrid ones, KPQC_SIG rows pure
 * signatures and KPQC_COMPOSITE rows composite ones.  Only algorithms whose
 * family is built into libkpqc appear.  OIDs and code points can be
 * replaced at load time (openssl.cnf), so each table owns its strings.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "kpqcprovider.h"

typedef struct {
    const char *name, *pq_id, *aliases, *oid, *digest;
    kpqc_prov_kind kind;
    kpqc_classical classical;
    unsigned codepoint;
} row;

#define CLASSICAL_x25519 KPQC_X25519
#define CLASSICAL_x448 KPQC_X448
#define CLASSICAL_p256 KPQC_P256
#define CLASSICAL_p384 KPQC_P384
#define CLASSICAL_p521 KPQC_P521

static const row rows[] = {
#define KPQC_KEM(fam, id, disp, kat, lvl, pk, sk, ct, ss, oid, cp, al) \
    {#id, #id, al, oid, NULL, KPQC_PROV_KEM, KPQC_CLASSICAL_NONE, cp},
#define KPQC_HYBRID(name, kem, classical, cp, al) \
    {#name, #kem, al, NULL, NULL, KPQC_PROV_KEM, CLASSICAL_##classical, cp},
#define KPQC_SIG(fam, id, disp, kat, lvl, pk, sk, sig, oid, cp, al) \
    {#id, #id, al, oid, NULL, KPQC_PROV_SIG, KPQC_CLASSICAL_NONE, cp},
#define KPQC_COMPOSITE(name, sig, curve, digest, oid, cp, al) \
    {#name, #sig, al, oid, digest, KPQC_PROV_SIG, CLASSICAL_##curve, cp},
#include "algorithms.def"
};
#define ROWS (sizeof rows / sizeof rows[0])

/* "name:alias1:alias2[:oid][:bc_oid]" as OpenSSL's name lists are written
 * (Bouncy Castle's OID, for the decoders only, sends its key files to them). */
static char *name_list(const char *name, const char *aliases, const char *oid, const char *bc_oid) {
    size_t len = strlen(name) + strlen(aliases) + (oid ? strlen(oid) : 0) + (bc_oid ? strlen(bc_oid) : 0) + 4;
    char *s = OPENSSL_malloc(len);
    if (s == NULL) return NULL;
    snprintf(s, len, "%s%s%s%s%s%s%s", name, aliases[0] ? ":" : "", aliases, oid ? ":" : "", oid ? oid : "",
             bc_oid ? ":" : "", bc_oid ? bc_oid : "");
    for (char *p = s; *p; p++)
        if (*p == ',') *p = ':';
    return s;
}

/* Every key an override of `what` ("oid", "codepoint") for row r is read
 * under: each name the table gives the algorithm (its name, each alias), as
 * the table writes it, in lower case and in upper case, then ".what".
 * Their number (duplicates skipped). */
#define KEY_SIZE 96
#define MAX_KEYS 48
static size_t override_keys(const row *r, const char *what, char keys[MAX_KEYS][KEY_SIZE]) {
    size_t count = 0;
    for (const char *p = r->name, *next = r->aliases; p != NULL;) {
        size_t n = p == r->name ? strlen(p) : strcspn(p, ",");
        for (int spelling = 0; spelling < 3 && n > 0 && n + strlen(what) + 2 <= KEY_SIZE && count < MAX_KEYS;
             spelling++) {
            char *key = keys[count];
            for (size_t i = 0; i < n; i++)
                key[i] = spelling == 0 ? p[i] : (char)(spelling == 1 ? tolower((unsigned char)p[i])
                                                                     : toupper((unsigned char)p[i]));
            snprintf(key + n, KEY_SIZE - n, ".%s", what);
            int seen = 0;
            for (size_t k = 0; k < count && !seen; k++) seen = strcmp(keys[k], key) == 0;
            if (!seen) count++;
        }
        /* the aliases, one after another */
        if (next == NULL || *next == '\0') break;
        p = next;
        next = p + strcspn(p, ",");
        next = *next == ',' ? next + 1 : NULL;
    }
    return count;
}

static const char *const attributes[] = {"oid", "codepoint"};

int kpqc_prov_table_reads_key(const char *key) {
    char keys[MAX_KEYS][KEY_SIZE];
    for (size_t i = 0; i < ROWS; i++)
        for (size_t a = 0; a < sizeof attributes / sizeof attributes[0]; a++) {
            size_t n = override_keys(&rows[i], attributes[a], keys);
            for (size_t k = 0; k < n; k++)
                if (strcmp(keys[k], key) == 0) return 1;
        }
    return 0;
}

/* The override of `what` for row r under any of its keys (OpenSSL gives a
 * provider the value of a key it asks for, never the list of its section's
 * keys: these are the keys it asks for).  0 when two of them are set to
 * different values (`why` says which). */
static int lookup(const char *(*override)(void *, const char *), void *arg, const row *r, const char *what,
                  const char **value, char *why, size_t why_size) {
    char keys[MAX_KEYS][KEY_SIZE];
    const char *first = NULL;
    *value = NULL;
    if (override == NULL) return 1;
    size_t n = override_keys(r, what, keys);
    for (size_t k = 0; k < n; k++) {
        const char *v = override(arg, keys[k]);
        if (v == NULL) continue;
        if (*value == NULL) {
            *value = v;
            first = keys[k];
        } else if (strcmp(v, *value) != 0) {
            snprintf(why, why_size, "%s = %s and %s = %s set one %s two ways", first, *value, keys[k], v, r->name);
            return 0;
        }
    }
    return 1;
}

/* The row's entry with its overrides applied; 0 when an override is malformed. */
static int make_entry(kpqc_prov_alg *a, const row *r, const char *(*override)(void *, const char *), void *arg,
                      char *why, size_t why_size) {
    a->name = r->name;
    a->aliases = r->aliases;
    a->classical = r->classical;
    a->digest = r->digest;
    a->codepoint = r->codepoint;
    const char *cp, *oid;
    if (!lookup(override, arg, r, "codepoint", &cp, why, why_size) || !lookup(override, arg, r, "oid", &oid, why, why_size))
        return 0;
    if (cp != NULL) {
        char *end;
        unsigned long v = strtoul(cp, &end, 0);
        if (*cp == '\0' || *end != '\0' || v == 0 || v > 0xFFFF) {
            snprintf(why, why_size, "%s.codepoint = %s is not a code point in 1..0xFFFF", r->name, cp);
            return 0;
        }
        a->codepoint = (unsigned)v;
        a->overridden = 1;
    }
    if (oid != NULL) a->overridden = 1;
    else oid = r->oid;
    if (oid != NULL) {
        unsigned char der[64];
        size_t der_len = sizeof der;
        if (!kpqc_der_oid(oid, der, &der_len)) {
            snprintf(why, why_size, "%s.oid = %s is not a dotted OID whose arcs fit 64 bits", r->name, oid);
            return 0;
        }
        if ((a->oid = OPENSSL_strdup(oid)) == NULL) return 0;
    }
    return (a->names = name_list(a->name, a->aliases, a->oid, NULL)) != NULL &&
           (a->decoder_names = name_list(a->name, a->aliases, a->oid, kpqc_bc_oid(a->name))) != NULL;
}

/* Two entries must never share a TLS code point of the same kind (groups and
 * signature schemes are separate registries) or an OID. */
static int find_collision(const kpqc_prov_table *t, char *why, size_t why_size) {
    for (size_t i = 0; i < t->len; i++)
        for (size_t j = i + 1; j < t->len; j++) {
            const kpqc_prov_alg *a = &t->algs[i], *b = &t->algs[j];
            if (a->kind == b->kind && a->codepoint == b->codepoint) {
                snprintf(why, why_size, "%s and %s both have code point 0x%04X", a->name, b->name, a->codepoint);
                return 1;
            }
            if (a->oid != NULL && b->oid != NULL && strcmp(a->oid, b->oid) == 0) {
                snprintf(why, why_size, "%s and %s both have OID %s", a->name, b->name, a->oid);
                return 1;
            }
        }
    return 0;
}

int kpqc_prov_table_init(kpqc_prov_table *t, const char *(*override)(void *arg, const char *key), void *arg,
                         char *why, size_t why_size) {
    why[0] = '\0';
    t->len = 0;
    if ((t->algs = OPENSSL_zalloc(ROWS * sizeof *t->algs)) == NULL) return 0;
    for (size_t i = 0; i < ROWS; i++) {
        const row *r = &rows[i];
        kpqc_prov_alg *a = &t->algs[t->len];
        a->kind = r->kind;
        if (r->kind == KPQC_PROV_KEM) {
            if ((a->kem = kpqc_kem_by_name(r->pq_id)) == NULL) continue; /* family not built in */
            a->pq_pk_len = a->kem->pk_len, a->pq_sk_len = a->kem->sk_len;
            a->display = a->kem->display;
            a->secbits = a->kem->nist_level == 1 ? 128 : a->kem->nist_level == 3 ? 192 : 256;
        } else {
            if ((a->sig = kpqc_sig_by_name(r->pq_id)) == NULL) continue;
            a->pq_pk_len = a->sig->pk_len, a->pq_sk_len = a->sig->sk_len;
            a->display = a->sig->display;
            a->secbits = a->sig->nist_level <= 2 ? 128 : a->sig->nist_level == 3 ? 192 : 256;
        }
        t->len++; /* counted before it is complete, so that a failure frees what it holds */
        if (!make_entry(a, r, override, arg, why, why_size)) goto fail;
    }
    if (find_collision(t, why, why_size)) goto fail;
    return 1;
fail:
    kpqc_prov_table_free(t);
    return 0;
}

void kpqc_prov_table_free(kpqc_prov_table *t) {
    for (size_t i = 0; t->algs != NULL && i < t->len; i++) {
        OPENSSL_free(t->algs[i].names);
        OPENSSL_free(t->algs[i].decoder_names);
        OPENSSL_free(t->algs[i].oid);
    }
    OPENSSL_free(t->algs);
    t->algs = NULL;
    t->len = 0;
}

const kpqc_prov_alg *kpqc_prov_table_find(const kpqc_prov_table *t, const char *name) {
    for (size_t i = 0; i < t->len; i++)
        if (strcmp(t->algs[i].name, name) == 0) return &t->algs[i];
    return NULL;
}
