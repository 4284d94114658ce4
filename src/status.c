#include <kpqc/kpqc.h>

const char *kpqc_status_string(int status) {
    switch (status) {
    case KPQC_OK: return "success";
    case KPQC_ERR_ARGUMENT: return "invalid argument or unknown algorithm";
    case KPQC_ERR_LENGTH: return "buffer has the wrong length";
    case KPQC_ERR_RNG: return "random number generator failed";
    case KPQC_ERR_VERIFY: return "signature verification failed";
    case KPQC_ERR_DECODE: return "malformed encoding";
    case KPQC_ERR_INTERNAL: return "internal error";
    case KPQC_ERR_DECAPS: return "ciphertext rejected";
    case KPQC_ERR_UNSUPPORTED: return "code path not supported by this CPU or operating system";
    default: return "unknown status";
    }
}
