#!/usr/bin/env bash
# Run the device queue manager KUnit suite (kfd_dqm: the real dqm, packet
# manager and MQD managers on a fake MI300 node with a software HWS) with
# tools/testing/kunit/kunit.py on x86_64 under QEMU (TCG: no KVM here),
# amdgpu and amdkfd built in, lockdep and KASAN on
# (tests/kernel/kunit-x86.kunitconfig). The build directory
# ($BUILD/kunit-x86) is kept, so a second run rebuilds only what changed.
# Fails on any failed or crashed test, on no test run, or if lockdep or
# KASAN was off. Extra arguments go to kunit.py (e.g. a suite filter).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

kunitconfig=$ROOT/tests/kernel/kunit-x86.kunitconfig
out=$BUILD/kunit-x86
log=$BUILD/kunit-x86.log
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing (scripts/setup-deps.sh)"

"$ROOT/scripts/tree.sh" apply
mkdir -p "$out"
rc=0
start=$(date +%s)
# -smp 2, but the kernel has NR_CPUS=1: the guest uses one CPU (README).
# -m 2048 for KASAN.
(cd "$TREE" && python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	--kunitconfig "$kunitconfig" --build_dir "$out" --jobs "$JOBS" \
	--qemu_args="-smp 2 -m 2048" --timeout 1800 "$@") 2>&1 | tee "$log" || rc=$?
note "kunit.py took $(( $(date +%s) - start )) s"
# What the tests print (kunit_info): the benchmark and the concurrency runs.
if [ -f "$out/test.log" ]; then
	echo "--- figures printed by the tests ($out/test.log) ---"
	grep -E '^[[:space:]]+# kfd_dqm_[a-z0-9_]+: ' "$out/test.log" | sed 's/^[[:space:]]*# //' || true
fi
for opt in CONFIG_PROVE_LOCKING CONFIG_KASAN CONFIG_HSA_AMD CONFIG_HSA_AMD_DQM_KUNIT_TEST; do
	grep -q "^$opt=y" "$out/.config" || die "$opt is not set in $out/.config"
done
[ "$rc" = 0 ] || die "KUnit failed (log: $log)"
grep -Eq 'Testing complete\. Ran [1-9][0-9]* tests: passed: [0-9]+$' "$log" ||
	die "KUnit ran no test, or not every test passed (log: $log)"
if grep -Eq 'BUG: KASAN|WARNING: possible circular|WARNING: .*lock|BUG: sleeping function' "$out/test.log" 2>/dev/null; then
	die "lockdep or KASAN reported a problem (log: $out/test.log)"
fi
