# Entry points.  `make bench` and `make test` install what is missing,
# build everything (OpenSSL 3.5 too, once, if the system's is older) and run.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 45
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build test test-asan fuzz bench paper clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite: unit, KAT (both code paths), constant-time (valgrind),
# integration (openssl CLI, TLS, MQTT), then the same unit tests under
# AddressSanitizer + UndefinedBehaviorSanitizer.
test: build test-asan fuzz
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	CC=clang cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DKPQC_SANITIZE=ON -DKPQC_BUILD_PROVIDER=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -E '^(kat_|ct_)'

# Every libFuzzer target for FUZZ_SECONDS each (ASan + UBSan).
fuzz: deps
	CC=clang cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DKPQC_SANITIZE=ON -DKPQC_FUZZ=ON -DKPQC_WERROR=ON -DBUILD_TESTING=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	sh tests/fuzz/run_fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	$(BUILD)/venv/bin/python bench/kpqc-bench quick

paper: build
	$(BUILD)/venv/bin/python bench/kpqc-bench paper

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
