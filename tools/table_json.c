/*
 * The algorithm table as JSON, straight from the C preprocessor's reading
 * of src/algorithms.def, so Python, CMake and the docs need not parse the
 * file themselves.  Top-level keys: "kems", "sigs", "hybrids",
 * "composites", "families"; code points are integers, OIDs dotted strings,
 * aliases lists.  A hybrid's or composite's level is its KpqC half's.
 * Family rows are the families built into this library, with the facts its
 * descriptors carry (display name, rejection rule) and their directory.
 *
 * The rows are those the build selects (KPQC_ALGORITHMS), so everything
 * that reads the JSON lists what the library holds.
 *
 * Built with KPQC_TABLE_ROWS_ONLY it needs no library: CMake compiles it for
 * the build machine at configure time (cmake/AlgorithmTable.cmake), before
 * any family is built, and then the rows are the whole table and the
 * family rows every family it names, with their kind and directory only.
 */
#include "table_json.h"

#include <string.h>

#ifndef KPQC_TABLE_ROWS_ONLY
#include <kpqc/kpqc.h>
#endif

struct kem_row {
    const char *family, *name, *display, *kat_name;
    unsigned level, pk, sk, ct, ss;
    const char *oid;
    unsigned codepoint;
    const char *aliases;
};
struct sig_row {
    const char *family, *name, *display, *kat_name;
    unsigned level, pk, sk, sig;
    const char *oid;
    unsigned codepoint;
    const char *aliases;
};
struct hybrid_row {
    const char *name, *kem, *classical;
    unsigned codepoint;
    const char *aliases;
};
struct composite_row {
    const char *name, *sig, *curve, *digest, *oid;
    unsigned codepoint;
    const char *aliases;
};

#define KPQC_KEM(fam, id, disp, kat, lvl, pk, sk, ct, ss, oid, cp, al) \
    KPQC_SELECTED(id, {#fam, #id, disp, kat, lvl, pk, sk, ct, ss, oid, cp, al},)
static const struct kem_row kems[] = {
#include "algorithms.def"
    {.family = "", .name = NULL}, /* end marker (the build may select no row of a kind) */
};
#define KPQC_SIG(fam, id, disp, kat, lvl, pk, sk, sig, oid, cp, al) \
    KPQC_SELECTED(id, {#fam, #id, disp, kat, lvl, pk, sk, sig, oid, cp, al},)
static const struct sig_row sigs[] = {
#include "algorithms.def"
    {.family = "", .name = NULL}, /* end marker (the build may select no row of a kind) */
};
#define KPQC_HYBRID(id, kem, classical, cp, al) KPQC_SELECTED(id, {#id, #kem, #classical, cp, al},)
static const struct hybrid_row hybrids[] = {
#include "algorithms.def"
    {.name = NULL}, /* end marker (the build may select no row of a kind) */
};
#define KPQC_COMPOSITE(id, sig, curve, digest, oid, cp, al) \
    KPQC_SELECTED(id, {#id, #sig, #curve, digest, oid, cp, al},)
static const struct composite_row composites[] = {
#include "algorithms.def"
    {.name = NULL}, /* end marker (the build may select no row of a kind) */
};

/* The table's strings are plain ASCII without quotes or backslashes
 * (table_check.py); escape anyway rather than trust that. */
static void str(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        if ((unsigned char)*s < 0x20) fprintf(out, "\\u%04x", *s);
        else fputc(*s, out);
    }
    fputc('"', out);
}

static void aliases(FILE *out, const char *list) {
    fputs("[", out);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        char one[64];
        if (n >= sizeof one) n = sizeof one - 1;
        memcpy(one, p, n);
        one[n] = '\0';
        str(out, one);
        p += n;
        if (*p == ',') {
            p++;
            fputs(", ", out);
        }
    }
    fputs("]", out);
}

static void lower(FILE *out, const char *s) {
    char buf[32];
    size_t i = 0;
    for (; s[i] && i + 1 < sizeof buf; i++) buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    buf[i] = '\0';
    str(out, buf);
}

static unsigned kem_level(const char *name) {
    for (size_t i = 0; kems[i].name != NULL; i++)
        if (strcmp(kems[i].name, name) == 0) return kems[i].level;
    return 0;
}

static unsigned sig_level(const char *name) {
    for (size_t i = 0; sigs[i].name != NULL; i++)
        if (strcmp(sigs[i].name, name) == 0) return sigs[i].level;
    return 0;
}

/* Opens a family row: name, kind and directory (src/<kind>/<name>). */
static void family_row(FILE *out, int *first, const char *family, const char *kind) {
    fputs(*first ? "\n    {\"name\": " : ",\n    {\"name\": ", out);
    *first = 0;
    lower(out, family);
    fprintf(out, ", \"kind\": \"%s\", \"directory\": \"src/%s/", kind, kind);
    for (const char *c = family; *c; c++) fputc(*c - 'A' + 'a', out);
    fputc('"', out);
}

#ifdef KPQC_TABLE_ROWS_ONLY
/* One family row per family the table names. */
static void families(FILE *out) {
    int first = 1;
    for (size_t i = 0; kems[i].name != NULL; i++) {
        if (i > 0 && strcmp(kems[i - 1].family, kems[i].family) == 0) continue;
        family_row(out, &first, kems[i].family, "kem");
        fputs("}", out);
    }
    for (size_t i = 0; sigs[i].name != NULL; i++) {
        if (i > 0 && strcmp(sigs[i - 1].family, sigs[i].family) == 0) continue;
        family_row(out, &first, sigs[i].family, "sig");
        fputs("}", out);
    }
}
#else
/* One family row per built family, from its first descriptor. */
static void families(FILE *out) {
    int first = 1;
    for (size_t i = 0; kems[i].name != NULL; i++) {
        const kpqc_kem *k = kpqc_kem_by_name(kems[i].name);
        if (k == NULL || (i > 0 && strcmp(kems[i - 1].family, kems[i].family) == 0)) continue;
        family_row(out, &first, kems[i].family, "kem");
        fputs(", \"display\": ", out);
        str(out, k->family);
        fprintf(out, ", \"rejection\": \"%s\"}", k->rejection == KPQC_REJECT_EXPLICIT ? "explicit" : "implicit");
    }
    for (size_t i = 0; sigs[i].name != NULL; i++) {
        const kpqc_sig *s = kpqc_sig_by_name(sigs[i].name);
        if (s == NULL || (i > 0 && strcmp(sigs[i - 1].family, sigs[i].family) == 0)) continue;
        family_row(out, &first, sigs[i].family, "sig");
        fputs(", \"display\": ", out);
        str(out, s->family);
        fputs("}", out);
    }
}
#endif

void kpqc_table_json(FILE *out) {
    fputs("{\n  \"kems\": [", out);
    for (size_t i = 0; kems[i].name != NULL; i++) {
        const struct kem_row *r = &kems[i];
        fputs(i ? ",\n    {\"family\": " : "\n    {\"family\": ", out);
        lower(out, r->family);
        fputs(", \"name\": ", out), str(out, r->name);
        fputs(", \"display\": ", out), str(out, r->display);
        fputs(", \"kat_name\": ", out), str(out, r->kat_name);
        fprintf(out, ", \"level\": %u, \"pk_len\": %u, \"sk_len\": %u, \"ct_len\": %u, \"ss_len\": %u, \"oid\": ",
                r->level, r->pk, r->sk, r->ct, r->ss);
        str(out, r->oid);
        fprintf(out, ", \"group_codepoint\": %u, \"aliases\": ", r->codepoint);
        aliases(out, r->aliases);
        fputs("}", out);
    }
    fputs("\n  ],\n  \"sigs\": [", out);
    for (size_t i = 0; sigs[i].name != NULL; i++) {
        const struct sig_row *r = &sigs[i];
        fputs(i ? ",\n    {\"family\": " : "\n    {\"family\": ", out);
        lower(out, r->family);
        fputs(", \"name\": ", out), str(out, r->name);
        fputs(", \"display\": ", out), str(out, r->display);
        fputs(", \"kat_name\": ", out), str(out, r->kat_name);
        fprintf(out, ", \"level\": %u, \"pk_len\": %u, \"sk_len\": %u, \"sig_len\": %u, \"oid\": ", r->level, r->pk,
                r->sk, r->sig);
        str(out, r->oid);
        fprintf(out, ", \"sigalg_codepoint\": %u, \"aliases\": ", r->codepoint);
        aliases(out, r->aliases);
        fputs("}", out);
    }
    fputs("\n  ],\n  \"hybrids\": [", out);
    for (size_t i = 0; hybrids[i].name != NULL; i++) {
        const struct hybrid_row *r = &hybrids[i];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
        str(out, r->name);
        fputs(", \"kem\": ", out), str(out, r->kem);
        fputs(", \"classical\": ", out), str(out, r->classical);
        fprintf(out, ", \"level\": %u, \"group_codepoint\": %u, \"aliases\": ", kem_level(r->kem), r->codepoint);
        aliases(out, r->aliases);
        fputs("}", out);
    }
    fputs("\n  ],\n  \"composites\": [", out);
    for (size_t i = 0; composites[i].name != NULL; i++) {
        const struct composite_row *r = &composites[i];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
        str(out, r->name);
        fputs(", \"sig\": ", out), str(out, r->sig);
        fputs(", \"curve\": ", out), str(out, r->curve);
        fputs(", \"digest\": ", out), str(out, r->digest);
        fprintf(out, ", \"level\": %u, \"oid\": ", sig_level(r->sig));
        str(out, r->oid);
        fprintf(out, ", \"sigalg_codepoint\": %u, \"aliases\": ", r->codepoint);
        aliases(out, r->aliases);
        fputs("}", out);
    }
    fputs("\n  ],\n  \"families\": [", out);
    families(out);
    fputs("\n  ]\n}\n", out);
}
