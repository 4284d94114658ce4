/*
 * Names of the provider interface that OpenSSL 3.0's headers lack.  The
 * provider needs only the 3.0 provider ABI; these names are plain strings
 * (or a zeroed entry) in that ABI, so a provider built against the system's
 * 3.0 headers still offers the same parameters to a newer core.  Whether the
 * running core understands them is decided at load time (core_version in
 * prov_entry.c), never here.
 */
#ifndef KPQC_PROV_COMPAT_H
#define KPQC_PROV_COMPAT_H

#include <openssl/core_names.h>

#ifndef OSSL_DISPATCH_END
#define OSSL_DISPATCH_END {0, NULL}
#endif

/* TLS-SIGALG capability (understood by cores >= 3.2). */
#ifndef OSSL_CAPABILITY_TLS_SIGALG_NAME
#define OSSL_CAPABILITY_TLS_SIGALG_IANA_NAME "tls-sigalg-iana-name"
#define OSSL_CAPABILITY_TLS_SIGALG_NAME "tls-sigalg-name"
#define OSSL_CAPABILITY_TLS_SIGALG_OID "tls-sigalg-oid"
#define OSSL_CAPABILITY_TLS_SIGALG_CODE_POINT "tls-sigalg-code-point"
#define OSSL_CAPABILITY_TLS_SIGALG_SECURITY_BITS "tls-sigalg-sec-bits"
#define OSSL_CAPABILITY_TLS_SIGALG_MIN_TLS "tls-min-tls"
#define OSSL_CAPABILITY_TLS_SIGALG_MAX_TLS "tls-max-tls"
#define OSSL_CAPABILITY_TLS_SIGALG_MIN_DTLS "tls-min-dtls"
#define OSSL_CAPABILITY_TLS_SIGALG_MAX_DTLS "tls-max-dtls"
#endif

/* Signature context strings (passed by cores >= 3.5; ignored before). */
#ifndef OSSL_SIGNATURE_PARAM_CONTEXT_STRING
#define OSSL_SIGNATURE_PARAM_CONTEXT_STRING "context-string"
#endif

#endif
