/* Case-insensitive name matching shared by the KEM and signature lists. */
#ifndef KPQC_NAMES_H
#define KPQC_NAMES_H

/* True if `name` equals `primary` or one of the comma-separated `aliases`. */
int kpqc_name_matches(const char *name, const char *primary, const char *aliases);

#endif
