# The two commands of the quick start:
#   make demo    install what is missing, build, run profkit on a bundled example
#   make check   install what is missing, build with ASan+UBSan, run every test
# and
#   make install [PREFIX=/usr/local] [DESTDIR=...]
#                build a release and install the library (shared and static),
#                profkit.h, profkit.pc, the command and its man page
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build/release
ASAN_BUILD ?= build/asan
PREFIX ?= /usr/local

.PHONY: all demo check deps test-deps release asan bench clean install

# $(call configure,DIR,FLAGS): configures DIR, printing only profkit's own
# lines (which optional parts it found), or everything when it fails.
configure = mkdir -p $(1) && { cmake -S . -B $(1) $(2) > $(1)/configure.log 2>&1 || \
  { cat $(1)/configure.log; exit 1; }; } && { grep '^-- profkit' $(1)/configure.log || true; }

all: release

deps:
	@bash scripts/deps.sh

test-deps:
	@bash scripts/deps.sh --test
	@bash scripts/tools.sh

release: deps
	@$(call configure,$(BUILD),-DCMAKE_BUILD_TYPE=Release)
	@cmake --build $(BUILD) -j $(JOBS) >/dev/null

asan: test-deps
	@$(call configure,$(ASAN_BUILD),-DCMAKE_BUILD_TYPE=Debug -DPROFKIT_SANITIZE=ON)
	@cmake --build $(ASAN_BUILD) -j $(JOBS) >/dev/null

install: deps
	@$(call configure,$(BUILD),-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$(PREFIX)")
	@cmake --build $(BUILD) -j $(JOBS) >/dev/null
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD)

demo: release
	@bash scripts/deps.sh --demo
	@bash examples/demo.sh $(BUILD)/profkit

check: asan
	@cd $(ASAN_BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)

bench: release
	@bash bench/run.sh $(BUILD)/profkit

clean:
	rm -rf build
