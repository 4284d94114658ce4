# The constant-time check under MemorySanitizer (a KPQC_CT_MSAN build, see
# docs/design-notes.md): the harness of ct_check.c, built instrumented, run
# natively on every code path this CPU has, avx512 included (valgrind's
# emulated CPU has none).  A path the CPU lacks is skipped (exit 77), never
# replaced.  MSan's own exit code is set to 1 so a report is never taken
# for that skip.
set(msan_env "MSAN_OPTIONS=exitcode=1")
add_executable(ct_check_msan ct/ct_check.c)
target_link_libraries(ct_check_msan PRIVATE kpqc_ct)
target_include_directories(ct_check_msan PRIVATE ${PROJECT_SOURCE_DIR}/src/common)

# The method must be able to fail: a secret-indexed load, a secret-
# dependent branch, a branch on the high half of a secret product
# (through KPQC_CT_TAINT), and ones on kpqc_ct_nonzero_mask32 of a small
# secret and on a byte kpqc_ct_cmov chose by a secret (their borrows,
# marked in ct.h) are each reported (MSan stops at its first report).
foreach(leak index branch product mask cmov)
  add_test(NAME ct_msan_selftest_detects_${leak} COMMAND ct_check_msan --self-test ${leak})
  set_tests_properties(ct_msan_selftest_detects_${leak} PROPERTIES ENVIRONMENT "${msan_env}"
                       PASS_REGULAR_EXPRESSION "MemorySanitizer: use-of-uninitialized-value"
                       FAIL_REGULAR_EXPRESSION "unflagged")
endforeach()
add_test(NAME ct_msan_selftest_detects_early_public COMMAND ct_check_msan --self-test public)
set_tests_properties(ct_msan_selftest_detects_early_public PROPERTIES ENVIRONMENT "${msan_env}"
                     PASS_REGULAR_EXPRESSION "is public too early" FAIL_REGULAR_EXPRESSION "unflagged")
add_test(NAME ct_msan_selftest_detects_public_word COMMAND ct_check_msan --self-test public_word)
set_tests_properties(ct_msan_selftest_detects_public_word PROPERTIES ENVIRONMENT "${msan_env}"
                     PASS_REGULAR_EXPRESSION "part of the self-test's words is public too early"
                     FAIL_REGULAR_EXPRESSION "unflagged")

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(msan_impls portable avx2 avx512)
else()
  set(msan_impls portable)
endif()
foreach(fam ${KPQC_FAMILIES})
  foreach(impl ${msan_impls})
    add_test(NAME ct_msan_${fam}_${impl} COMMAND ct_check_msan ${KPQC_ALGS_${fam}})
    set_tests_properties(ct_msan_${fam}_${impl} PROPERTIES ENVIRONMENT "${msan_env};KPQC_IMPL=${impl}"
                         SKIP_RETURN_CODE 77)
  endforeach()
endforeach()
