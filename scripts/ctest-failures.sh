#!/usr/bin/env bash
# Print, at the end of a failed `make test`, why each failed test failed:
# its lines that name a failure (not ok, fail, BUG:, WARNING:, error, timed out) and
# the last lines of its output, from ctest's LastTest.log. CI shows the
# head and the tail of a long run; with --output-on-failure a failed
# test's own output sits in the middle, where it may be cut.
#
#   scripts/ctest-failures.sh CMAKE_BUILD_DIR [LINES]
set -euo pipefail
dir=${1:?usage: ctest-failures.sh CMAKE_BUILD_DIR [LINES]}
lines=${2:-40}
failed=$dir/Testing/Temporary/LastTestsFailed.log
log=$dir/Testing/Temporary/LastTest.log
if [ ! -s "$failed" ] || [ ! -f "$log" ]; then
	echo "ctest-failures.sh: no failed test recorded in $dir" >&2
	exit 0
fi
echo "=================== why the failed tests failed ==================="
while IFS=: read -r _ name; do
	[ -n "$name" ] || continue
	# the output of test NAME: between its "Output:" rule and "<end of output>"
	out=$(awk -v t="$name" '
		$0 ~ "^[0-9]+/[0-9]+ Testing: " && substr($0, index($0, ": ") + 2) == t { want = 1; next }
		want && /^Output:$/ { inside = 1; getline; next }
		inside && /^<end of output>$/ { exit }
		inside { print }' "$log")
	echo "--- $name: lines naming a failure (at most 30) ---"
	printf '%s\n' "$out" | grep -Ei 'not ok|fail|BUG:|WARNING:|error|timed out' | grep -Ev 'Skipped\)| fail:0 |failed preemptions|failed by a fault' | tail -n 30 || true
	echo "--- $name: its last $lines lines ---"
	printf '%s\n' "$out" | tail -n "$lines"
done < "$failed"
