# The two commands of the quick start:
#   make demo    install what is missing, build, run profkit on a bundled example
#   make check   install what is missing, build with ASan+UBSan, run every test
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build/release
ASAN_BUILD ?= build/asan

.PHONY: all demo check deps test-deps release asan bench clean

all: release

deps:
	@bash scripts/deps.sh

test-deps:
	@bash scripts/deps.sh --test
	@bash scripts/tools.sh

release: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) >/dev/null

asan: test-deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPROFKIT_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS) >/dev/null

demo: release
	@bash scripts/deps.sh --demo
	@bash examples/demo.sh $(BUILD)/profkit

check: asan
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

bench: release
	@bash bench/run.sh $(BUILD)/profkit

clean:
	rm -rf build
