#!/usr/bin/env bash
# The harness on the box's system compiler (issue 15, breakage 4): a CPU
# build (KFDMP_GPU=none) with g++-10 (Debian 11's 10.2.1, the box's GCC
# 10.2.1) and GoogleTest built from the distribution's source copy
# (/usr/src/googletest) as on a host without the GoogleTest package, then
# its unit tests. Also: without any GoogleTest the configure says so loudly
# and ctest has a test that fails saying why. Skips without g++-10 or the
# googletest source. About 2.5 min on the 2-core build machine.
# CMAKE (default cmake) picks the cmake; the 3.18 floor was checked with
# Debian 11's cmake 3.18.4 (docs/test-box.md).
# shellcheck disable=SC2015
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
scratch harness-gcc10
cmake=${CMAKE:-cmake}
command -v g++-10 >/dev/null || { echo "SKIP: no g++-10 (scripts/setup-deps.sh installs it from bullseye)"; exit 77; }
[ -f /usr/src/googletest/CMakeLists.txt ] || { echo "SKIP: no /usr/src/googletest (googletest package)"; exit 77; }
jobs=${JOBS:-2}

b=$tmp/build
if "$cmake" -S "$root/tests/harness" -B "$b" -DCMAKE_CXX_COMPILER=g++-10 -DKFDMP_GPU=none \
	-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON >"$tmp/cfg.log" 2>&1 &&
   "$cmake" --build "$b" -j"$jobs" >"$tmp/build.log" 2>&1; then
	ok "the harness builds with $(g++-10 --version | head -n1) and $("$cmake" --version | head -n1)"
else
	grep -E 'error|Error' "$tmp/cfg.log" "$tmp/build.log" | head -n 20
	bad "the harness does not build with g++-10"
fi
grep -q 'building the source copy in /usr/src/googletest' "$tmp/cfg.log" && ok "GoogleTest built from /usr/src/googletest (no package used)" || bad "GoogleTest source path not taken"
if [ -x "$b/kfdmp-unit-tests" ]; then
	(cd "$b" && ctest -L unit -j"$jobs" >"$tmp/ctest.log" 2>&1) && ok "unit tests: $(grep -E 'tests passed' "$tmp/ctest.log")" ||
		{ tail -n 20 "$tmp/ctest.log"; bad "unit tests failed with g++-10"; }
fi

n=$tmp/nogtest
"$cmake" -S "$root/tests/harness" -B "$n" -DKFDMP_GPU=none -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
	-DKFDMP_GTEST_SOURCE="$tmp/none" >"$tmp/n.log" 2>&1 || true
grep -q 'NO GOOGLETEST: the harness.s unit tests and scaling suite are NOT built' "$tmp/n.log" && ok "no GoogleTest: the configure says so" || { cat "$tmp/n.log"; bad "no GoogleTest: no loud message"; }
rc=0; (cd "$n" && ctest >"$tmp/nc.log" 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -q 'harness.no-googletest .*Failed' "$tmp/nc.log" && ok "no GoogleTest: ctest fails harness.no-googletest" || { cat "$tmp/nc.log"; bad "no GoogleTest: ctest exit $rc"; }
verdict "harness gcc-10 test"
