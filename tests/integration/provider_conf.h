/* A configuration file for the integration tests: the default provider
 * activated, and kpqcprovider's section (the module from `dir`, activated
 * or not, `extra` lines in it), written under TMPDIR with a name made of
 * the process and `tag`; its path in `path`.  1 when written. */
#ifndef KPQC_TEST_PROVIDER_CONF_H
#define KPQC_TEST_PROVIDER_CONF_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline int write_provider_conf(char *path, size_t size, const char *dir, const char *tag, int activate,
                                      const char *extra) {
    snprintf(path, size, "%s/kpqc-%ld-%s.cnf", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(), tag);
    FILE *f = fopen(path, "w");
    if (f == NULL) return 0;
    fprintf(f,
            "openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n"
            "[provider_sect]\ndefault = default_sect\nkpqcprovider = kpqc_sect\n"
            "[default_sect]\nactivate = 1\n"
            "[kpqc_sect]\nmodule = %s/kpqcprovider.so\nactivate = %d\n%s\n",
            dir, activate, extra);
    return fclose(f) == 0;
}

#endif
