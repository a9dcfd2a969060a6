# CMake toolchain for Debian's aarch64 cross compilers (gcc-aarch64-linux-gnu,
# g++-aarch64-linux-gnu). dist.mk passes it to third_party/boringssl/obtain.sh (BoringSSL) and to
# the shim's own CMake build, so both are built for the same target.
set(CMAKE_SYSTEM_NAME Linux)
# BoringSSL picks its aarch64 assembly from this, not from the compiler's name.
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Headers and libraries come from the cross sysroot only; build tools still come from the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
