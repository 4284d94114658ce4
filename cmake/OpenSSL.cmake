# Finds OpenSSL >= 3.5 for the provider, the benchmarks and the integration
# tests, building a private copy once when the system has none
# (cmake/openssl/bootstrap.sh).  Sets KPQC_OPENSSL_PREFIX, KPQC_OPENSSL_BIN
# and the usual OpenSSL:: imported targets.
# A cross build (KPQC_OPENSSL_CROSS, set by the toolchain file) takes a
# private OpenSSL cross-built for its target, cached like the native one.
if(NOT KPQC_OPENSSL_PREFIX)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env KPQC_OPENSSL_CROSS=${KPQC_OPENSSL_CROSS}
            sh ${CMAKE_CURRENT_LIST_DIR}/openssl/bootstrap.sh
    OUTPUT_VARIABLE prefix OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT prefix)
    message(FATAL_ERROR "Could not find or build OpenSSL >= 3.5 (cmake/openssl/bootstrap.sh)")
  endif()
  set(KPQC_OPENSSL_PREFIX ${prefix} CACHE PATH "OpenSSL >= 3.5 installation used by the provider")
endif()
set(OPENSSL_ROOT_DIR ${KPQC_OPENSSL_PREFIX})
if(CMAKE_CROSSCOMPILING)
  list(APPEND CMAKE_FIND_ROOT_PATH ${KPQC_OPENSSL_PREFIX})
endif()
set(OPENSSL_USE_STATIC_LIBS OFF)
find_package(OpenSSL 3.5 REQUIRED)
find_program(KPQC_OPENSSL_BIN openssl PATHS ${KPQC_OPENSSL_PREFIX}/bin NO_DEFAULT_PATH REQUIRED)
set(KPQC_OPENSSL_LIBDIR ${KPQC_OPENSSL_PREFIX}/lib)
message(STATUS "OpenSSL ${OPENSSL_VERSION} at ${KPQC_OPENSSL_PREFIX}")
