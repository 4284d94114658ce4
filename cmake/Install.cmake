# `cmake --install build --prefix P`: libkpqc (static and shared), its
# headers, kpqc-kat, kpqc.pc, the CMake package kpqc (find_package(kpqc) ->
# kpqc::kpqc), and with the provider (installed by provider/CMakeLists.txt
# into P/<libdir>/ossl-modules) the OpenSSL configuration files of
# P/share/kpqc-tls; what runs it (the private OpenSSL, kpqc-env,
# kpqc-openssl, kpqc-probe): cmake/InstallRuntime.cmake.
include(CMakePackageConfigHelpers)

# Everything installed is readable by every user (services run as users of
# their own), whatever the umask of the one installing.
set(KPQC_INSTALL_FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
set(KPQC_INSTALL_PROGRAM_PERMISSIONS ${KPQC_INSTALL_FILE_PERMISSIONS} OWNER_EXECUTE GROUP_EXECUTE WORLD_EXECUTE)
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS ${KPQC_INSTALL_PROGRAM_PERMISSIONS})
# CMake creates directories through the umask: the last install rule opens
# every directory on the way to an installed file (the prefix included) to
# all, adding the permissions and taking none away.
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL install CODE [[
  set(root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
  set(dirs "")
  foreach(f ${CMAKE_INSTALL_MANIFEST_FILES})
    get_filename_component(d "${f}" DIRECTORY)
    list(FIND dirs "${d}" seen)
    string(FIND "${d}/" "${root}/" at)
    while(seen EQUAL -1 AND at EQUAL 0)
      list(APPEND dirs "${d}")
      get_filename_component(d "${d}" DIRECTORY)
      list(FIND dirs "${d}" seen)
      string(FIND "${d}/" "${root}/" at)
    endwhile()
  endforeach()
  if(dirs)
    execute_process(COMMAND chmod go+rx ${dirs} COMMAND_ERROR_IS_FATAL ANY)
  endif()
]])

set_target_properties(kpqc_shared PROPERTIES EXPORT_NAME kpqc)
set_target_properties(kpqc PROPERTIES EXPORT_NAME kpqc_static)
install(TARGETS kpqc_shared kpqc EXPORT kpqcTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Unspecified
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS kpqc-kat RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/kpqc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(KPQC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kpqc)
install(EXPORT kpqcTargets NAMESPACE kpqc:: DESTINATION ${KPQC_CMAKE_DIR})
configure_package_config_file(cmake/install/kpqcConfig.cmake.in ${PROJECT_BINARY_DIR}/install/kpqcConfig.cmake
                              INSTALL_DESTINATION ${KPQC_CMAKE_DIR})
# 0.x releases keep their interface within a minor version only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/install/kpqcConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install/kpqcConfig.cmake ${PROJECT_BINARY_DIR}/install/kpqcConfigVersion.cmake
        DESTINATION ${KPQC_CMAKE_DIR})

# Files naming installed paths are written at install time, when the prefix
# is known (`cmake --install --prefix` may differ from the configured one):
#   kpqc_install_configured(TEMPLATE DESTINATION [PROGRAM]) configures
#   TEMPLATE (with @KPQC_PREFIX@, @KPQC_BIN_DIR@, @KPQC_SHARE_DIR@,
#   @KPQC_MODULE_DIR@ and @KPQC_PRIVATE_DIR@ -- the directory of a private
#   OpenSSL, see cmake/InstallRuntime.cmake -- and the configure-time
#   variables already substituted) into DESTINATION under the prefix;
#   PROGRAM makes it executable.
set(KPQC_INSTALL_TIME_DIRS KPQC_PREFIX KPQC_BIN_DIR KPQC_SHARE_DIR KPQC_MODULE_DIR KPQC_PRIVATE_DIR)
function(kpqc_install_configured template destination)
  get_filename_component(name ${template} NAME_WLE)
  set(stage ${PROJECT_BINARY_DIR}/install/${name}.in)
  # First pass now: configure-time variables; the install-time ones are kept.
  foreach(var ${KPQC_INSTALL_TIME_DIRS})
    set(${var} "@${var}@")
  endforeach()
  configure_file(${template} ${stage} @ONLY)
  set(permissions ${KPQC_INSTALL_FILE_PERMISSIONS})
  if(ARGV2 STREQUAL "PROGRAM")
    set(permissions ${KPQC_INSTALL_PROGRAM_PERMISSIONS})
  endif()
  install(CODE "
    set(KPQC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(KPQC_BIN_DIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
    set(KPQC_SHARE_DIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/kpqc-tls\")
    set(KPQC_MODULE_DIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/ossl-modules\")
    set(KPQC_PRIVATE_DIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/kpqc-tls\")
    configure_file(\"${stage}\" \"${PROJECT_BINARY_DIR}/install/${name}\" @ONLY)
    file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${destination}\" TYPE FILE
         FILES \"${PROJECT_BINARY_DIR}/install/${name}\" PERMISSIONS ${permissions}
         DIR_PERMISSIONS ${KPQC_INSTALL_PROGRAM_PERMISSIONS})")
endfunction()

# The signature algorithms of openssl.cnf (provider/openssl.cnf.in): the
# built KpqC ones (pure, then composite) before OpenSSL's ML-DSA and its
# classical defaults (without SHA-1 and DSA).
kpqc_table_names(kpqc_sigs sigs FAMILIES ${KPQC_FAMILIES})
kpqc_table_names(kpqc_composites composites FAMILIES ${KPQC_FAMILIES})
list(APPEND kpqc_sigs ${kpqc_composites} mldsa65 mldsa87 mldsa44 ecdsa_secp256r1_sha256 ecdsa_secp384r1_sha384 ecdsa_secp521r1_sha512
     ed25519 ed448 ecdsa_brainpoolP256r1tls13_sha256 ecdsa_brainpoolP384r1tls13_sha384
     ecdsa_brainpoolP512r1tls13_sha512 rsa_pss_rsae_sha256 rsa_pss_rsae_sha384 rsa_pss_rsae_sha512
     rsa_pss_pss_sha256 rsa_pss_pss_sha384 rsa_pss_pss_sha512 rsa_pkcs1_sha256 rsa_pkcs1_sha384 rsa_pkcs1_sha512)
string(REPLACE ";" ":" KPQC_TLS_SIGALGS "${kpqc_sigs}")
set(KPQC_CONFIG_DIAGNOSTICS 0) # the build tree's; the installed file says 1

# The paths of kpqc-env and kpqc-openssl (provider/*.in) for an environment
# whose scripts are in DIR, configuration CONF, openssl binary in BINDIR.
macro(kpqc_env_paths dir conf bindir)
  set(KPQC_ENV ${dir}/kpqc-env)
  set(KPQC_ENV_CONF ${conf})
  set(KPQC_ENV_PATH ${bindir})
endmacro()

kpqc_install_configured(cmake/install/kpqc.pc.in ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(KPQC_BUILD_PROVIDER)
  # kpqc-provider.cnf: to .include from an existing openssl.cnf;
  # openssl.cnf: a configuration of its own, for OPENSSL_CONF, the build
  # tree's with the installed module and errors reported.
  kpqc_install_configured(cmake/install/kpqc-provider.cnf.in ${CMAKE_INSTALL_DATADIR}/kpqc-tls)
  set(KPQC_PROVIDER_DIR "@KPQC_MODULE_DIR@")
  set(KPQC_CONFIG_DIAGNOSTICS 1)
  kpqc_install_configured(provider/openssl.cnf.in ${CMAKE_INSTALL_DATADIR}/kpqc-tls)
  set(KPQC_CONFIG_DIAGNOSTICS 0)
  unset(KPQC_PROVIDER_DIR)
endif()

# `cpack -G DEB` in the build directory: the same files as a Debian package,
# under the configured prefix.  For a system package configure with
# -DCMAKE_INSTALL_PREFIX=/usr (libdir lib/<multiarch>: the provider lands in
# Debian's module directory); it needs the system's libcrypto >= 3.5.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kpqc-tls)
set(CPACK_PACKAGE_VENDOR kpqc-tls)
set(CPACK_PACKAGE_CONTACT "kpqc-tls developers <kpqc-tls@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Korean post-quantum cryptography for OpenSSL 3: libkpqc and kpqcprovider")
set(CPACK_SET_DESTDIR ON) # the install-time files name the prefix, not the staging directory
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libssl3 (>= 3.5) | libssl3t64 (>= 3.5)")
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
include(CPack)
