# kfd-mp: the amdkfd multi-process scheduling series, built out of tree.
#
#   make modules   build the patched amdgpu.ko (prints its path); with
#                  KSRC=<amdgpu-dkms source> (ROCm's DKMS tree or its
#                  tarball) the rocm-6.4 series and the whole DKMS module
#                  set (DC=0: without display)
#   make test      build it and run every test (ctest: series check, KUnit,
#                  QEMU load test, harness unit tests, scaling suite)
#   make testbox   on a test box: build, load each configuration, measure,
#                  report, restore the stock driver (scripts/testbox.sh);
#                  as root: sudo make testbox
#   make check-box the box path's read-only preflight: every tool with its
#                  version floor, install lines for the host's family
#   make deps      install the build machine's packages (Debian 12 only)
#   make box-shaped-test  the box's two commands on a box-shaped system built
#                  from Debian 11 packages (root; tests/testbox/boxroot.sh)
#   make hip-gfx942-check  the harness's HIP build for gfx942 with Debian
#                  sid's hipcc 7.0.2 in a sid chroot (root; mmdebstrap)
#
# Overrides: KVER, KDIR, KSRC, BUILD, JOBS, DC, DEBUG_INFO, SERIES (see
# docs/build.md).
SHELL := /bin/bash
BUILD ?= $(CURDIR)/build
export KVER KDIR KSRC BUILD JOBS DC DEBUG_INFO SERIES

# CI has 90 minutes on 2 cores: `make test` leaves out the tests labelled
# `long` (none today; docs/tests.md); `make test-all` runs them too.
CTEST_ARGS ?= -LE long
# Two tests at a time: the machine CI runs on has 2 cores, and more tests
# at once would only share them (docs/tests.md).
CTEST_JOBS ?= 2

include scripts/testbox.mk

.PHONY: all modules tree series check-series kunit smoke test test-all deps check-box box-shaped-test hip-gfx942-check clean help

all: modules

help:
	@sed -n '/^#/!q; s/^# \{0,1\}//p' Makefile

deps:
	scripts/setup-deps.sh

modules:
	scripts/build-module.sh

check-box:
	scripts/check-box.sh testbox

box-shaped-test:
	KFDMP_BOX_SHAPED=1 tests/testbox/box-shaped-test.sh

hip-gfx942-check:
	tests/testbox/hip-gfx942-check.sh

tree:
	scripts/tree.sh apply

series:
	scripts/series.sh export

check-series:
	scripts/series.sh check

kunit:
	scripts/kunit.sh

smoke: modules
	scripts/qemu-smoke.sh

test-all: CTEST_ARGS =
test-all: test

# The module is built by ctest's `modules` test (after the `tree` test
# prepares the base), two tests at a time: tests/kernel/CMakeLists.txt.
test:
	@bash -c '. scripts/lib.sh; ! is_debian_host || scripts/setup-deps.sh --quiet'
	cmake -S . -B $(BUILD)/cmake -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD)/cmake -j$${JOBS:-$$(nproc)}
	cd $(BUILD)/cmake && { ctest --output-on-failure -j$(CTEST_JOBS) $(CTEST_ARGS) || \
		{ bash $(CURDIR)/scripts/ctest-failures.sh . ; exit 8; }; }

clean:
	rm -rf $(BUILD)
