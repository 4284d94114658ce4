# `cmake --install build --prefix P`: libkpqc (static and shared), its
# headers, kpqc-kat, kpqc.pc, the CMake package kpqc (find_package(kpqc) ->
# kpqc::kpqc), and with the provider (installed by provider/CMakeLists.txt
# into P/<libdir>/ossl-modules) the OpenSSL configuration files of
# P/share/kpqc-tls.
include(CMakePackageConfigHelpers)

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
#   kpqc_install_configured(TEMPLATE DESTINATION) configures TEMPLATE (with
#   @KPQC_PREFIX@, @KPQC_SHARE_DIR@, @KPQC_MODULE_DIR@ and the configure-time
#   variables already substituted) into DESTINATION under the prefix.
function(kpqc_install_configured template destination)
  get_filename_component(name ${template} NAME_WLE)
  set(stage ${PROJECT_BINARY_DIR}/install/${name}.in)
  # First pass now: configure-time variables; the install-time ones are kept.
  set(KPQC_PREFIX "@KPQC_PREFIX@")
  set(KPQC_SHARE_DIR "@KPQC_SHARE_DIR@")
  set(KPQC_MODULE_DIR "@KPQC_MODULE_DIR@")
  configure_file(${template} ${stage} @ONLY)
  install(CODE "
    set(KPQC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(KPQC_SHARE_DIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/kpqc-tls\")
    set(KPQC_MODULE_DIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/ossl-modules\")
    configure_file(\"${stage}\" \"${PROJECT_BINARY_DIR}/install/${name}\" @ONLY)
    file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${destination}\" TYPE FILE
         FILES \"${PROJECT_BINARY_DIR}/install/${name}\")")
endfunction()

kpqc_install_configured(cmake/install/kpqc.pc.in ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(KPQC_BUILD_PROVIDER)
  # kpqc-provider.cnf: to .include from an existing openssl.cnf;
  # openssl.cnf: a configuration of its own, for OPENSSL_CONF.
  foreach(cnf kpqc-provider.cnf openssl.cnf)
    kpqc_install_configured(cmake/install/${cnf}.in ${CMAKE_INSTALL_DATADIR}/kpqc-tls)
  endforeach()
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
