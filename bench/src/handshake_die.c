/* The one way kpqc-handshake's parts fail: a leaf of its own, so that the
 * program's entry point and the files of its modes depend on it and not on
 * each other. */
#include <stdio.h>
#include <stdlib.h>

#include <openssl/err.h>

#include "handshake.h"

_Noreturn void die(const char *what) {
    fprintf(stderr, "kpqc-handshake: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}
