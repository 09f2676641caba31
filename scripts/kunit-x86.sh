#!/usr/bin/env bash
# Run the device queue manager KUnit suite (kfd_dqm: the real dqm, packet
# manager and MQD managers on a fake MI300 node with a software HWS) with
# tools/testing/kunit/kunit.py on x86_64 under QEMU (TCG: no KVM here),
# amdgpu and amdkfd built in, on an SMP preemptible guest (4 vCPUs) with
# lockdep and KASAN (tests/kernel/kunit-x86.kunitconfig).
#
#   scripts/kunit-x86.sh [KUNIT.PY ARGS...]          lockdep + KASAN
#   scripts/kunit-x86.sh --kcsan [KUNIT.PY ARGS...]  lockdep + KCSAN
#   scripts/kunit-x86.sh --build-only                build the kernel only
#   scripts/kunit-x86.sh --run-only [KUNIT.PY ARGS]  run the built kernel
#
# ctest splits the two (kunit-x86-build beside the other builds, then
# kunit-x86 alone: RUN_SERIAL), since the suite's concurrency and hang
# cases run on a TCG guest whose vCPUs other builds would starve.
#
# --kcsan uses tests/kernel/kunit-x86-kcsan.kunitconfig (KCSAN excludes
# KASAN) in its own build directory. The build directory
# ($BUILD/kunit-x86 or $BUILD/kunit-x86-kcsan) is kept, so a second run
# rebuilds only what changed. Fails on any failed or crashed test, on no
# test run, if an option of the configuration is off, or on a lockdep,
# KASAN or KCSAN report. Extra arguments go to kunit.py (e.g. a suite
# filter). The stress's long mode, N more seeds:
#   scripts/kunit-x86.sh --kernel_args amdgpu.kfd_dqm_stress_seeds=N \
#       'kfd_dqm.kfd_dqm_test_stress_long'
# (amdgpu.kfd_dqm_stress_base=S picks the first seed; a failure names its
# seed.)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

name=kunit-x86
sanitizer=CONFIG_KASAN
if [ "${1:-}" = --kcsan ]; then
	shift
	name=kunit-x86-kcsan
	sanitizer=CONFIG_KCSAN
fi
phase=run
case ${1:-} in
--build-only) phase=build; shift ;;
--run-only) phase="exec"; shift ;;
esac
kunitconfig=$ROOT/tests/kernel/$name.kunitconfig
out=$BUILD/$name
log=$BUILD/$name.log
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing (scripts/setup-deps.sh)"

[ "$phase" = exec ] || "$ROOT/scripts/tree.sh" apply
mkdir -p "$out"
rc=0
start=$(date +%s)
if [ "$phase" = build ]; then
	(cd "$TREE" && python3 tools/testing/kunit/kunit.py build --arch=x86_64 \
		--kunitconfig "$kunitconfig" --build_dir "$out" --jobs "$JOBS" "$@") ||
		die "building the KUnit kernel failed ($out)"
	note "kunit.py build took $(( $(date +%s) - start )) s"
	exit 0
fi
if [ "$phase" = exec ]; then
	[ -f "$out/arch/x86/boot/bzImage" ] || die "no kernel in $out: run scripts/kunit-x86.sh --build-only first"
	# the kernel must be the one of the tree's series (built after its apply)
	[ ! -f "$TREE/.git/kfdmp-series" ] || [ "$out/arch/x86/boot/bzImage" -nt "$TREE/.git/kfdmp-series" ] ||
		die "the kernel in $out is older than the series in $TREE: run scripts/kunit-x86.sh --build-only"
	jobopt=()
else
	jobopt=(--jobs "$JOBS")
fi
# -smp 4 with an SMP, preemptible kernel (NR_CPUS=4, PREEMPT): the
# concurrency cases run on 4 vCPUs. -m 2048 for KASAN.
(cd "$TREE" && python3 tools/testing/kunit/kunit.py "$phase" --arch=x86_64 \
	--kunitconfig "$kunitconfig" --build_dir "$out" "${jobopt[@]}" \
	--qemu_args="-smp 4 -m 2048" --timeout 1800 "$@") 2>&1 | tee "$log" || rc=$?
note "kunit.py $phase took $(( $(date +%s) - start )) s"
# What the tests print (kunit_info): the benchmark and the concurrency runs.
if [ -f "$out/test.log" ]; then
	echo "--- figures printed by the tests ($out/test.log) ---"
	grep -E '^[[:space:]]+# kfd_dqm_[a-z0-9_]+: ' "$out/test.log" | sed 's/^[[:space:]]*# //' || true
fi
for opt in CONFIG_SMP CONFIG_PREEMPT CONFIG_PROVE_LOCKING $sanitizer CONFIG_HSA_AMD CONFIG_HSA_AMD_DQM_KUNIT_TEST; do
	grep -q "^$opt=y" "$out/.config" || die "$opt is not set in $out/.config"
done
ncpus=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$out/.config")
[ "${ncpus:-1}" -ge 4 ] || die "CONFIG_NR_CPUS=${ncpus:-1} in $out/.config: the guest must have 4 CPUs"
# On failure, say why where a cut log still shows it (the end): the cases
# that failed or crashed and the first lines of each report.
why() {
	echo "--- why (from $out/test.log) ---" >&2
	grep -E '^[[:space:]]*not ok |# .*: (ASSERTION|EXPECTATION) FAILED|crashed|timed out' "$out/test.log" 2>/dev/null |
		head -n 40 >&2 || true
	grep -E -A 12 "$reports" "$out/test.log" 2>/dev/null | head -n 80 >&2 || true
}
reports='BUG: KASAN|BUG: KCSAN|WARNING: possible circular|WARNING: .*lock|BUG: sleeping function'
[ "$rc" = 0 ] || { why; die "KUnit failed (log: $log)"; }
# Skipped is allowed (kfd_dqm_test_stress_long without extra seeds, the
# lockdep guard without lockdep); failed or crashed is not.
grep -Eq 'Testing complete\. Ran [1-9][0-9]* tests: passed: [0-9]+(, skipped: [0-9]+)?$' "$log" ||
	{ why; die "KUnit ran no test, or not every test passed (log: $log)"; }
if grep -Eq "$reports" "$out/test.log" 2>/dev/null; then
	why
	die "lockdep, KASAN or KCSAN reported a problem (log: $out/test.log)"
fi
