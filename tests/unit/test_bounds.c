/*
 * The arithmetic's stated ranges (KPQC_BOUND) fire: in a build with
 * KPQC_CHECK_BOUNDS, each reduction given an input just outside its range
 * stops the (child) process; inputs at the edge of the range pass.  The
 * other unit tests run the real arithmetic in that build with the checks on.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kem/ntruplus/ntruplus.h"
#include "sig/haetae/haetae.h"

#ifdef KPQC_CHECK_BOUNDS
/* Whether f(x) aborts, run in a child process. */
static int aborts(int32_t (*f)(int32_t), int32_t x) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(2); /* the report is expected */
        (void)f(x);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status);
}

static int32_t mont(int32_t a) { return kpqc_ntruplus_mont(a); }
static int32_t canon(int32_t a) { return kpqc_ntruplus_canon((int16_t)a); }

int main(void) {
    const int32_t q = NTRUPLUS_Q, hq = HAETAE_Q;
    CHECK(!aborts(mont, q * 32768 - 1) && aborts(mont, q * 32768));
    CHECK(!aborts(mont, -(q * 32768 - 1)) && aborts(mont, -q * 32768));
    CHECK(!aborts(canon, q - 1) && aborts(canon, q) && aborts(canon, -q));
    CHECK(!aborts(kpqc_haetae_freeze, (1 << 30) - 1) && aborts(kpqc_haetae_freeze, 1 << 30));
    CHECK(!aborts(kpqc_haetae_freeze2q, -(1 << 30) + 1) && aborts(kpqc_haetae_freeze2q, -(1 << 30)));
    CHECK(!aborts(kpqc_haetae_center, hq - 1) && aborts(kpqc_haetae_center, hq));
    return test_result("test_bounds");
}
#else
int main(void) {
    printf("test_bounds: built without KPQC_CHECK_BOUNDS, the bounds are not compiled in\n");
    return 0;
}
#endif
