/*
 * KPQC_BOUND(cond): a range the arithmetic relies on (a reduction's input
 * bound, a transform's headroom), stated where it is relied on.  Built with
 * KPQC_CHECK_BOUNDS (the sanitizer build of the tests, `make test-asan`) a
 * false one names its file, line and condition and aborts; otherwise it is
 * nothing at all, so the constant-time builds gain no branch on secrets.
 */
#ifndef KPQC_BOUNDS_H
#define KPQC_BOUNDS_H

#ifdef KPQC_CHECK_BOUNDS
__attribute__((noreturn)) void kpqc_bound_failed(const char *file, int line, const char *cond);
#define KPQC_BOUND(cond) ((cond) ? (void)0 : kpqc_bound_failed(__FILE__, __LINE__, #cond))
#else
#define KPQC_BOUND(cond) ((void)0)
#endif

#endif
