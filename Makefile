# Entry points.  `make bench` and `make test` install what is missing,
# build everything (OpenSSL 3.5 too, once, if the system's is older) and run.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build test test-unit test-asan bench paper clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite: unit, KAT (both code paths), constant-time (valgrind),
# integration (openssl CLI, TLS, MQTT), then the same unit tests under
# AddressSanitizer + UndefinedBehaviorSanitizer.
test: build test-asan
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	CC=clang cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DKPQC_SANITIZE=ON -DKPQC_BUILD_PROVIDER=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -E '^(kat_|ct_)'

bench: build
	$(BUILD)/venv/bin/python bench/kpqc-bench quick

paper: build
	$(BUILD)/venv/bin/python bench/kpqc-bench paper

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
