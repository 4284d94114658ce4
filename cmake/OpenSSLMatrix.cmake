# The OpenSSL version matrix: kpqcprovider (and, from 3.5 on, the lab's C
# helpers) built again against each OpenSSL series of KPQC_OPENSSL_MATRIX,
# each into build/openssl-<series>/ with what the integration tests expect of
# a build directory: providers/kpqcprovider.so, openssl.cnf, kpqc-env and
# kpqc-openssl on that series' libraries.
#   3.0       the system's OpenSSL (Debian 12's libssl-dev): provider only
#   3.6, 4.0  private builds (cmake/openssl/bootstrap.sh), cached like 3.5
# The default build covers the system's 3.0 when there is one (nothing to
# build); `make test` asks for 3.0, 3.6 and 4.0, and a series asked for that
# cannot be had stops the configuration.
execute_process(COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/openssl/bootstrap.sh 3.0
                OUTPUT_QUIET ERROR_QUIET RESULT_VARIABLE no_system_30)
if(no_system_30)
  set(matrix_default "")
else()
  set(matrix_default "3.0")
endif()
set(KPQC_OPENSSL_MATRIX "${matrix_default}" CACHE STRING
    "OpenSSL series to build the provider against besides the main one (3.0;3.6;4.0)")

# A copy of `target` built against another OpenSSL: the same sources,
# include directories, definitions and options, with OpenSSL::SSL and
# OpenSSL::Crypto replaced by that series' libraries and the output placed
# under `out_dir` as the original is under the build directory.
function(kpqc_openssl_copy target series prefix libdir out_dir)
  get_target_property(type ${target} TYPE)
  get_target_property(src_dir ${target} SOURCE_DIR)
  get_target_property(sources ${target} SOURCES)
  list(TRANSFORM sources PREPEND "${src_dir}/" REGEX "^[^/$]")
  set(copy ${target}-openssl-${series})
  if(type STREQUAL "MODULE_LIBRARY")
    add_library(${copy} MODULE ${sources})
    set(out_prop LIBRARY_OUTPUT_DIRECTORY)
  else()
    add_executable(${copy} ${sources})
    set(out_prop RUNTIME_OUTPUT_DIRECTORY)
  endif()
  foreach(prop INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS LINK_OPTIONS C_VISIBILITY_PRESET PREFIX)
    get_target_property(value ${target} ${prop})
    if(NOT value STREQUAL "value-NOTFOUND") # an empty PREFIX counts
      set_property(TARGET ${copy} PROPERTY ${prop} "${value}")
    endif()
  endforeach()
  target_include_directories(${copy} BEFORE PRIVATE ${prefix}/include)
  get_target_property(libs ${target} LINK_LIBRARIES)
  list(TRANSFORM libs REPLACE "^OpenSSL::SSL$" "${libdir}/libssl.so")
  list(TRANSFORM libs REPLACE "^OpenSSL::Crypto$" "${libdir}/libcrypto.so")
  target_link_libraries(${copy} PRIVATE ${libs})
  get_target_property(out ${target} ${out_prop})
  if(out)
    file(RELATIVE_PATH sub ${PROJECT_BINARY_DIR} ${out})
    set(out ${out_dir}/${sub})
  else()
    set(out ${out_dir})
  endif()
  set_target_properties(${copy} PROPERTIES OUTPUT_NAME ${target} ${out_prop} ${out})
endfunction()

# The build directory of a series, as the integration tests use one: the
# provider's scripts and configuration with that series' paths (the
# variables set here are local to the function).
function(kpqc_openssl_build_dir series prefix libdir out)
  set(PROJECT_BINARY_DIR ${out})
  set(KPQC_PROVIDER_DIR ${out}/providers)
  set(KPQC_OPENSSL_PREFIX ${prefix})
  set(KPQC_OPENSSL_LIBDIR ${libdir})
  set(KPQC_OPENSSL_BIN ${prefix}/bin/openssl)
  set(OPENSSL_VERSION ${series})
  kpqc_env_paths(${out} ${out}/openssl.cnf ${prefix}/bin)
  foreach(script kpqc-env kpqc-openssl)
    configure_file(${PROJECT_SOURCE_DIR}/provider/${script}.in ${out}/${script} @ONLY
                   FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endforeach()
  if(series STREQUAL "3.0")
    # 3.0 knows no ML-KEM: the stock-system snippet is its configuration.
    set(KPQC_STOCK_MODULE ${KPQC_PROVIDER_DIR}/kpqcprovider.so)
    set(KPQC_SHARE_DIR ${out})
    configure_file(${PROJECT_SOURCE_DIR}/cmake/install/kpqc-stock-system.cnf.in ${out}/kpqc-stock-system.cnf @ONLY)
    file(WRITE ${out}/openssl.cnf "openssl_conf = openssl_init\n.include ${out}/kpqc-stock-system.cnf\n")
  else()
    configure_file(${PROJECT_SOURCE_DIR}/provider/openssl.cnf.in ${out}/openssl.cnf @ONLY)
  endif()
endfunction()

# The installed stock-system snippet points at the provider built against
# the system's headers, installed apart from the main one (same file name).
set(KPQC_STOCK_MODULE_DIR ${CMAKE_INSTALL_LIBDIR}/kpqc-tls/openssl-3.0)

# The capabilities on the main OpenSSL too (TLS signature algorithms offered).
if(BUILD_TESTING)
  add_executable(test_provider_capabilities ${PROJECT_SOURCE_DIR}/tests/integration/test_provider_capabilities.c)
  target_link_libraries(test_provider_capabilities PRIVATE OpenSSL::Crypto)
  add_test(NAME provider_capabilities COMMAND test_provider_capabilities $<TARGET_FILE_DIR:kpqcprovider>)
  set_tests_properties(provider_capabilities PROPERTIES ENVIRONMENT "LD_LIBRARY_PATH=${KPQC_OPENSSL_LIBDIR}")
endif()

foreach(series ${KPQC_OPENSSL_MATRIX})
  execute_process(COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/openssl/bootstrap.sh ${series}
                  OUTPUT_VARIABLE prefix OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT prefix)
    message(FATAL_ERROR "OpenSSL ${series} of KPQC_OPENSSL_MATRIX: not found and not built (cmake/openssl/bootstrap.sh ${series})")
  endif()
  if(EXISTS ${prefix}/lib/libcrypto.so)
    set(libdir ${prefix}/lib)
  else() # the system's, in its multiarch directory
    execute_process(COMMAND pkg-config --variable=libdir openssl OUTPUT_VARIABLE libdir OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
  set(out ${PROJECT_BINARY_DIR}/openssl-${series})
  message(STATUS "OpenSSL ${series} of the matrix at ${prefix} -> ${out}")

  kpqc_openssl_copy(kpqcprovider ${series} ${prefix} ${libdir} ${out})
  if(NOT series STREQUAL "3.0") # the helpers use TLS features of 3.5 and later
    foreach(helper kpqc-handshake kpqc-mqtt kpqc-prims)
      if(TARGET ${helper})
        kpqc_openssl_copy(${helper} ${series} ${prefix} ${libdir} ${out})
      endif()
    endforeach()
  endif()

  kpqc_openssl_build_dir(${series} ${prefix} ${libdir} ${out})
  # The tests run with --build-dir ${out}: the same algorithm table there.
  add_custom_command(TARGET kpqc-kat POST_BUILD
                     COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_BINARY_DIR}/algorithms.json ${out}/algorithms.json
                     VERBATIM)

  if(series STREQUAL "3.0")
    set(KPQC_STOCK_MODULE "@KPQC_PREFIX@/${KPQC_STOCK_MODULE_DIR}/kpqcprovider.so") # completed at install time
    kpqc_install_configured(cmake/install/kpqc-stock-system.cnf.in ${CMAKE_INSTALL_DATADIR}/kpqc-tls)
    install(TARGETS kpqcprovider-openssl-3.0 LIBRARY DESTINATION ${KPQC_STOCK_MODULE_DIR})
  endif()

  if(BUILD_TESTING AND TARGET test_provider_kem)
    get_property(provider_kem_args GLOBAL PROPERTY KPQC_PROVIDER_KEM_ARGS)
    foreach(test test_provider_kem test_provider_capabilities)
      kpqc_openssl_copy(${test} ${series} ${prefix} ${libdir} ${out}/tests)
    endforeach()
    set(env "LD_LIBRARY_PATH=${libdir}")
    add_test(NAME openssl_${series}_capabilities
             COMMAND test_provider_capabilities-openssl-${series} ${out}/providers)
    add_test(NAME openssl_${series}_provider_kem
             COMMAND test_provider_kem-openssl-${series} ${out}/providers ${provider_kem_args})
    # 3.0: what it can do and refuses (test_versions), keys (encrypted keys,
    # validation on load) and Debian's own programs through the stock-system
    # snippet; the rest of the suite assumes 3.5 (ML-KEM, `list -tls-groups`,
    # TLS signatures).  3.6 and later: the provider's whole integration
    # suite (not the lab's, network or MQTT tests; the Python client there
    # is the one of 3.5, the main build).
    if(series STREQUAL "3.0")
      set(checks test_versions.py test_encrypted_keys.py test_key_validation.py test_stock_system.py)
      set(skip "")
    else()
      set(checks test_versions.py test_tls_groups.py test_tls_signatures.py test_signatures.py
          test_identifiers.py test_deployment_notes.py test_encrypted_keys.py test_key_validation.py)
      set(skip -k "not test_python_ssl_client")
    endif()
    list(TRANSFORM checks PREPEND ${PROJECT_SOURCE_DIR}/tests/integration/)
    add_test(NAME openssl_${series}_integration
             COMMAND ${PROJECT_BINARY_DIR}/venv/bin/python -m pytest -q -rs -p no:cacheprovider ${checks} ${skip}
                     --build-dir ${out})
    set_tests_properties(openssl_${series}_capabilities openssl_${series}_provider_kem PROPERTIES ENVIRONMENT ${env})
    if(series STREQUAL "3.0")
      # Same ABI (libcrypto.so.3) both ways: the main provider on the system's
      # core offers no TLS signature algorithms, the one built against the
      # system's headers offers them on the main core.
      add_test(NAME openssl_3.0_capabilities_of_the_main_provider
               COMMAND test_provider_capabilities-openssl-3.0 $<TARGET_FILE_DIR:kpqcprovider>)
      set_tests_properties(openssl_3.0_capabilities_of_the_main_provider PROPERTIES ENVIRONMENT ${env})
      add_test(NAME openssl_3.0_provider_on_the_main_openssl COMMAND test_provider_capabilities ${out}/providers)
      set_tests_properties(openssl_3.0_provider_on_the_main_openssl PROPERTIES
                           ENVIRONMENT "LD_LIBRARY_PATH=${KPQC_OPENSSL_LIBDIR}")
    endif()
    set_tests_properties(openssl_${series}_integration PROPERTIES TIMEOUT 900)
  endif()
endforeach()
