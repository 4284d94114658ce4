/*
 * The provider's list of KEMs and TLS groups, derived from the one table:
 * every KPQC_KEM row is a pure group, every KPQC_HYBRID row a hybrid one.
 * Only KEMs built into libkpqc appear.
 */
#include <stdlib.h>
#include <string.h>

#include "kpqcprovider.h"

typedef struct {
    const char *name, *kem_id, *aliases, *oid;
    kpqc_classical classical;
    unsigned group_id;
} row;

#define CLASSICAL_x25519 KPQC_X25519
#define CLASSICAL_x448 KPQC_X448
#define CLASSICAL_p256 KPQC_P256
#define CLASSICAL_p384 KPQC_P384
#define CLASSICAL_p521 KPQC_P521

static const row rows[] = {
#define KPQC_KEM(fam, id, disp, kat, lvl, pk, sk, ct, ss, oid, cp, al) {#id, #id, al, oid, KPQC_CLASSICAL_NONE, cp},
#define KPQC_HYBRID(name, kem, classical, cp, al) {#name, #kem, al, NULL, CLASSICAL_##classical, cp},
#include "algorithms.def"
};

static kpqc_prov_kem *list;
static size_t list_len;

/* "name:alias1:alias2[:oid]" as OpenSSL's name lists are written. */
static char *name_list(const row *r) {
    size_t len = strlen(r->name) + strlen(r->aliases) + (r->oid ? strlen(r->oid) : 0) + 3;
    char *s = malloc(len);
    if (s == NULL) return NULL;
    strcpy(s, r->name);
    if (r->aliases[0] != '\0') {
        strcat(s, ":");
        strcat(s, r->aliases);
    }
    if (r->oid != NULL) {
        strcat(s, ":");
        strcat(s, r->oid);
    }
    for (char *p = s; *p; p++)
        if (*p == ',') *p = ':';
    return s;
}

int kpqc_prov_algorithms_init(void) {
    list = calloc(sizeof rows / sizeof rows[0], sizeof *list);
    if (list == NULL) return 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const kpqc_kem *kem = kpqc_kem_by_name(rows[i].kem_id);
        if (kem == NULL) continue; /* family not built in */
        kpqc_prov_kem *k = &list[list_len];
        k->name = rows[i].name;
        k->aliases = rows[i].aliases;
        k->names = name_list(&rows[i]);
        if (k->names == NULL) return 0;
        k->kem = kem;
        k->classical = rows[i].classical;
        k->group_id = rows[i].group_id;
        k->secbits = kem->nist_level == 1 ? 128 : kem->nist_level == 3 ? 192 : 256;
        list_len++;
    }
    return 1;
}

void kpqc_prov_algorithms_free(void) {
    for (size_t i = 0; i < list_len; i++) free((char *)list[i].names);
    free(list);
    list = NULL;
    list_len = 0;
}

size_t kpqc_prov_kem_count(void) { return list_len; }
const kpqc_prov_kem *kpqc_prov_kem_at(size_t i) { return i < list_len ? &list[i] : NULL; }
