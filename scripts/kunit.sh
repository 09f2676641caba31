#!/usr/bin/env bash
# Run the KUnit tests of the series (drivers/gpu/drm/amd/amdkfd/tests) with
# tools/testing/kunit/kunit.py in the prepared tree (UML), lockdep on.
# Fails on any failed or crashed test, or if lockdep was not on.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

"$ROOT/scripts/tree.sh" apply
[ -f "$TREE/$KUNIT_DIR/.kunitconfig" ] || die "the series has no $KUNIT_DIR/.kunitconfig"
out=$BUILD/kunit
mkdir -p "$out"
rc=0
(cd "$TREE" && python3 tools/testing/kunit/kunit.py run \
	--kunitconfig "$KUNIT_DIR" --build_dir "$out" --jobs "$JOBS" \
	--timeout 600 "$@") 2>&1 | tee "$BUILD/kunit.log" || rc=$?
# What the tests print (kunit_info): the request-queue benchmark and the
# IDs and doorbell places the slot logic gives 8 processes.
if [ -f "$out/test.log" ]; then
	echo "--- figures printed by the tests ($out/test.log) ---"
	grep -E '^[[:space:]]+# kfd_mp_[a-z0-9_]+: ' "$out/test.log" | sed 's/^[[:space:]]*# //' || true
fi
grep -q '^CONFIG_PROVE_LOCKING=y' "$out/.config" || die "CONFIG_PROVE_LOCKING is not set in $out/.config"
[ "$rc" = 0 ] || die "KUnit failed (log: $BUILD/kunit.log)"
grep -Eq 'Testing complete\. Ran [1-9][0-9]* tests: passed: [0-9]+$' "$BUILD/kunit.log" ||
	die "KUnit ran no test, or not every test passed (log: $BUILD/kunit.log)"
