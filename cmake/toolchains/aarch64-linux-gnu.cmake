# 64-bit ARM Linux (a Raspberry Pi 4/5, AWS Graviton, Apple silicon under
# Linux) from an x86-64 Debian or Ubuntu machine with its cross compiler
# (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross).  Programs the build runs
# (ctest) go through qemu-aarch64 (qemu-user) with the cross C library.
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(KPQC_CROSS_TRIPLE aarch64-linux-gnu)
set(KPQC_CROSS_SYSROOT /usr/${KPQC_CROSS_TRIPLE})
set(CMAKE_C_COMPILER ${KPQC_CROSS_TRIPLE}-gcc)
# The provider's OpenSSL: cmake/openssl/bootstrap.sh cross-builds it once.
set(KPQC_OPENSSL_CROSS ${KPQC_CROSS_TRIPLE})

# Headers and libraries from the cross sysroot only; tools from the host.
set(CMAKE_FIND_ROOT_PATH ${KPQC_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(KPQC_QEMU_AARCH64 qemu-aarch64)
if(KPQC_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${KPQC_QEMU_AARCH64} -L ${KPQC_CROSS_SYSROOT})
endif()
