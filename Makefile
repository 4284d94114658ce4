# Entry points.  `make bench` and `make test` install what is missing,
# build everything (OpenSSL 3.5 too, once, if the system's is older) and run.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FORTIFY_BUILD ?= build-fortify
AARCH64_BUILD ?= build-aarch64
CTMSAN_BUILD ?= build-ctmsan
SELECT_BUILD ?= build-select
SIZE_BUILD ?= build-size
# The reduced selection `make test-select` builds and tests (KPQC_ALGORITHMS).
SELECT_ALGORITHMS ?= smaugt1;haetae2
FUZZ_SECONDS ?= 60
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# OpenSSL series the provider is also built and tested against (the version
# matrix, cmake/OpenSSLMatrix.cmake); `make test` runs all of them.  Empty:
# keep what the build directory has (3.0, the system's, by default).
OPENSSL_MATRIX ?=

.PHONY: all deps build test test-asan test-fortify test-aarch64 test-ctmsan test-select test-size fuzz ct-report soak bench paper clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	    $(if $(OPENSSL_MATRIX),-DKPQC_OPENSSL_MATRIX="$(OPENSSL_MATRIX)") $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite: unit, KAT (every code path), constant-time (valgrind,
# and MemorySanitizer natively on every path, avx512 included),
# integration (openssl CLI, TLS, MQTT), then the same unit tests under
# AddressSanitizer + UndefinedBehaviorSanitizer; the provider also against
# the system's OpenSSL 3.0 and private 3.6 and 4.0 builds (cached).
test: OPENSSL_MATRIX = 3.0;3.6;4.0
test: build test-asan test-fortify test-aarch64 test-ctmsan test-select test-size fuzz
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	CC=clang cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DKPQC_SANITIZE=ON -DKPQC_CHECK_BOUNDS=ON -DKPQC_BUILD_PROVIDER=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -E '^(kat_|ct_)'

# The library and unit tests with -D_FORTIFY_SOURCE=3 (glibc's checked
# string and memory functions) and every warning as an error.
test-fortify: deps
	cmake -S . -B $(FORTIFY_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DKPQC_FORTIFY=ON \
	    -DKPQC_BUILD_PROVIDER=OFF $(CMAKE_FLAGS)
	cmake --build $(FORTIFY_BUILD) -j $(JOBS)
	cd $(FORTIFY_BUILD) && ctest --output-on-failure -j $(JOBS) -E '^(kat_|ct_)'

# libkpqc, kpqc-kat, the unit tests and kpqcprovider cross-built for
# aarch64 (cmake/toolchains/aarch64-linux-gnu.cmake; OpenSSL 3.5 cross-built
# once and cached) and run under qemu-aarch64: every KAT (AIMer's s sets on
# their first 10 records), every unit test, and a TLS 1.3 handshake between
# aarch64 s_server and s_client (x25519_smaugt1, HAETAE2 certificates).
test-aarch64: deps
	cmake -S . -B $(AARCH64_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	    -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
	cmake --build $(AARCH64_BUILD) -j $(JOBS)
	cd $(AARCH64_BUILD) && ctest --output-on-failure -j $(JOBS)

# The constant-time check under MemorySanitizer (clang, secrets poisoned):
# libkpqc and the harness only, every family on every path the CPU runs.
test-ctmsan: deps
	CC=clang cmake -S . -B $(CTMSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DKPQC_CT_MSAN=ON \
	    -DKPQC_BUILD_PROVIDER=OFF $(CMAKE_FLAGS)
	cmake --build $(CTMSAN_BUILD) -j $(JOBS) --target ct_check_msan
	cd $(CTMSAN_BUILD) && ctest --output-on-failure -j $(JOBS) -R '^ct_msan_'

# A build of SELECT_ALGORITHMS only (library, kpqc-kat, provider): its
# unit, KAT, constant-time and provider tests, the provider listing exactly
# the selection, and the table's checks.
test-select: deps
	cmake -S . -B $(SELECT_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DKPQC_ALGORITHMS="$(SELECT_ALGORITHMS)" \
	    $(CMAKE_FLAGS)
	cmake --build $(SELECT_BUILD) -j $(JOBS)
	cd $(SELECT_BUILD) && ctest --output-on-failure -j $(JOBS) \
	    -R '^(algorithm_table|symbols_prefixed|test_|kat_|ct_|provider_(kem|lists|capabilities|private_keys|failures|contexts)$$)'

# The size-first build (-Os, portable code only): every algorithm's unit
# tests, KATs and constant-time check.
test-size: deps
	cmake -S . -B $(SIZE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DKPQC_SIZE_FIRST=ON \
	    -DKPQC_BUILD_PROVIDER=OFF $(CMAKE_FLAGS)
	cmake --build $(SIZE_BUILD) -j $(JOBS)
	cd $(SIZE_BUILD) && ctest --output-on-failure -j $(JOBS) -R '^(algorithm_table|test_|kat_|ct_)'

# One report of the constant-time checks of every algorithm and path.
ct-report: build test-ctmsan
	$(BUILD)/venv/bin/python tests/hardening/ct_report.py --build-dir $(BUILD) --msan-build-dir $(CTMSAN_BUILD) \
	    --out $(BUILD)/ct-report.md

# 20,000 handshakes from 32 concurrent clients over a mix of KpqC groups.
soak: build
	$(BUILD)/venv/bin/python tests/hardening/load_test.py --build-dir $(BUILD) --handshakes 20000 --clients 32

# Every libFuzzer target for FUZZ_SECONDS each (ASan + UBSan).
fuzz: deps
	CC=clang cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DKPQC_SANITIZE=ON -DKPQC_FUZZ=ON -DKPQC_WERROR=ON -DBUILD_TESTING=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	sh tests/fuzz/run_fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(BUILD)

bench: build
	$(BUILD)/venv/bin/python bench/kpqc-bench quick

paper: build
	$(BUILD)/venv/bin/python bench/kpqc-bench paper

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(FORTIFY_BUILD) $(AARCH64_BUILD) $(CTMSAN_BUILD) $(SELECT_BUILD) \
	    $(SIZE_BUILD)
