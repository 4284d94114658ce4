# What an installed prefix P needs to run the provider, for every user of
# the machine (included by provider/CMakeLists.txt):
#   - the OpenSSL the provider was built against when it is a private one
#     (not the system's, KPQC_INSTALL_OPENSSL): its libraries and its
#     openssl binary in P/<libdir>/kpqc-tls, a directory no other program
#     searches (the system's programs keep the system's OpenSSL), the binary
#     finding the libraries through its RUNPATH;
#   - P/bin/kpqc-env CMD... and P/bin/kpqc-openssl (provider/*.in) on that
#     OpenSSL and P/share/kpqc-tls/openssl.cnf;
#   - P/bin/kpqc-probe (tools/kpqc-probe.c), built as build/kpqc-probe;
#   - a systemd drop-in example, P/share/kpqc-tls/systemd/kpqc-tls.conf.
set(KPQC_PRIVATE_SUBDIR ${CMAKE_INSTALL_LIBDIR}/kpqc-tls)
if(KPQC_OPENSSL_PREFIX MATCHES "^/usr/?$" OR CMAKE_CROSSCOMPILING)
  set(private_default OFF)
else()
  set(private_default ON)
endif()
option(KPQC_INSTALL_OPENSSL "Install the OpenSSL the provider is built against under <libdir>/kpqc-tls"
       ${private_default})

add_executable(kpqc-probe ${PROJECT_SOURCE_DIR}/tools/kpqc-probe.c)
target_include_directories(kpqc-probe PRIVATE ${PROJECT_SOURCE_DIR}/src ${KPQC_SELECTION_DIR})
target_compile_definitions(kpqc-probe PRIVATE _GNU_SOURCE)
target_link_libraries(kpqc-probe PRIVATE OpenSSL::SSL OpenSSL::Crypto)
file(RELATIVE_PATH probe_conf /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_DATADIR}/kpqc-tls/openssl.cnf)
target_compile_definitions(kpqc-probe PRIVATE KPQC_PROBE_INSTALLED_CONF="${probe_conf}")
set_target_properties(kpqc-probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
install(TARGETS kpqc-probe RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(KPQC_INSTALL_OPENSSL)
  find_program(KPQC_PATCHELF patchelf DOC "patchelf, to give the installed openssl its RUNPATH")
  file(GLOB private_libs ${KPQC_OPENSSL_LIBDIR}/libcrypto.so.[0-9]* ${KPQC_OPENSSL_LIBDIR}/libssl.so.[0-9]*)
  install(FILES ${private_libs} DESTINATION ${KPQC_PRIVATE_SUBDIR} PERMISSIONS ${KPQC_INSTALL_PROGRAM_PERMISSIONS})
  install(PROGRAMS ${KPQC_OPENSSL_BIN} DESTINATION ${KPQC_PRIVATE_SUBDIR}/bin)
  # RUNPATH, not LD_LIBRARY_PATH: the binary (and libssl, for its libcrypto)
  # find the libraries beside them wherever the prefix is.
  set(private_dir "\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${KPQC_PRIVATE_SUBDIR}")
  install(CODE "
    if(NOT EXISTS \"${KPQC_PATCHELF}\")
      message(FATAL_ERROR \"patchelf is missing (scripts/install-deps.sh installs it)\")
    endif()
    file(GLOB libssl \"${private_dir}/libssl.so.*\")
    foreach(pair \"bin/openssl;\\\$ORIGIN/..\" \"\${libssl};\\\$ORIGIN\")
      list(GET pair 0 file)
      list(GET pair 1 runpath)
      if(NOT IS_ABSOLUTE \"\${file}\")
        set(file \"${private_dir}/\${file}\")
      endif()
      execute_process(COMMAND \"${KPQC_PATCHELF}\" --set-rpath \"\${runpath}\" \"\${file}\" RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR \"patchelf failed on \${file}\")
      endif()
    endforeach()")
  file(RELATIVE_PATH probe_runpath /${CMAKE_INSTALL_BINDIR} /${KPQC_PRIVATE_SUBDIR})
  set_target_properties(kpqc-probe PROPERTIES INSTALL_RPATH "\$ORIGIN/${probe_runpath}")
endif()

# The installed kpqc-env and kpqc-openssl: the same templates as the build
# tree's, with the installed paths (substituted at install time).
function(kpqc_install_environment)
  set(KPQC_PROVIDER_DIR "@KPQC_MODULE_DIR@")
  set(KPQC_DROPIN_LIBRARY_PATH "# The system's OpenSSL: no library path of its own.")
  if(KPQC_INSTALL_OPENSSL)
    set(KPQC_DROPIN_LIBRARY_PATH "Environment=LD_LIBRARY_PATH=@KPQC_PRIVATE_DIR@")
    set(KPQC_OPENSSL_LIBDIR "@KPQC_PRIVATE_DIR@")
    set(KPQC_OPENSSL_BIN "@KPQC_PRIVATE_DIR@/bin/openssl")
    kpqc_env_paths("@KPQC_BIN_DIR@" "@KPQC_SHARE_DIR@/openssl.cnf" "@KPQC_PRIVATE_DIR@/bin")
  else()
    get_filename_component(bindir ${KPQC_OPENSSL_BIN} DIRECTORY)
    kpqc_env_paths("@KPQC_BIN_DIR@" "@KPQC_SHARE_DIR@/openssl.cnf" ${bindir})
  endif()
  foreach(script kpqc-env kpqc-openssl)
    kpqc_install_configured(${PROJECT_SOURCE_DIR}/provider/${script}.in ${CMAKE_INSTALL_BINDIR} PROGRAM)
  endforeach()
  kpqc_install_configured(${PROJECT_SOURCE_DIR}/cmake/install/kpqc-tls.conf.in
                          ${CMAKE_INSTALL_DATADIR}/kpqc-tls/systemd)
endfunction()
kpqc_install_environment()
