#include <string.h>
#include <strings.h>

#include "names.h"

int kpqc_name_matches(const char *name, const char *primary, const char *aliases) {
    size_t len = strlen(name);
    if (strcasecmp(name, primary) == 0) return 1;
    for (const char *p = aliases; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
        if (n == len && strncasecmp(p, name, n) == 0) return 1;
        p = end != NULL ? end + 1 : NULL;
    }
    return 0;
}
