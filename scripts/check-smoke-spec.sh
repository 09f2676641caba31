#!/usr/bin/env bash
# Fail unless tests/kernel/smoke.conf checks every module parameter and
# every trace event that the series' new files define (drivers/), so the
# QEMU load test cannot silently miss one that a later patch adds.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

spec=${1:-$ROOT/tests/kernel/smoke.conf}
src=$ROOT/drivers/gpu/drm/amd/amdkfd
fail=0

params=$(grep -hoE '^module_param(_cb|_named)?\(([a-z0-9_]+)' "$src"/*.c | sed -E 's/.*\(//' | sort -u)
events=$(sed -n -E 's/^(TRACE_EVENT|DEFINE_EVENT)\(([a-z_]+, )?([a-z_0-9]+),?.*/amdkfd\/\3/p' "$src"/kfd_mp_trace.h | sort -u)

for p in $params; do
	grep -qE "^param[[:space:]]+$p([[:space:]]|$)" "$spec" || { echo "smoke.conf has no 'param $p'"; fail=1; }
	grep -qE "^(load|refuse[[:space:]]+[^[:space:]]+)[[:space:]].*\b$p=" "$spec" || { echo "smoke.conf never loads with $p=..."; fail=1; }
done
for e in $events; do
	grep -qE "^event[[:space:]]+$e([[:space:]]|$)" "$spec" || { echo "smoke.conf has no 'event $e'"; fail=1; }
done
[ "$fail" = 0 ] || die "$spec misses parameters or events of the series"
echo "smoke.conf checks all $(echo "$params" | wc -w) parameters and $(echo "$events" | wc -w) events of the series"
