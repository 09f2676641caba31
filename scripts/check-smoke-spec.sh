#!/usr/bin/env bash
# Fail unless tests/kernel/smoke.conf checks every module parameter and
# every trace event that the series' new files define (drivers/), and, once
# the series has the tenant-control ioctl (kfd_mp_tenant.c), every check of
# tests/kernel/tenant-probe.c and the kfdmp-sched one, so the QEMU load
# test cannot silently miss one that a later patch adds.
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
	grep -qE "^(load|refuse[[:space:]]+[^[:space:]]+|fallback[[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+)[[:space:]].*\b$p=" "$spec" || { echo "smoke.conf never loads with $p=..."; fail=1; }
done
for e in $events; do
	grep -qE "^event[[:space:]]+$e([[:space:]]|$)" "$spec" || { echo "smoke.conf has no 'event $e'"; fail=1; }
done
tenant=
if [ -f "$src/kfd_mp_tenant.c" ]; then
	tenant=$(sed -n -E 's/^[[:space:]]*\{ "([a-z-]+)", check_.*/\1/p' "$ROOT/tests/kernel/tenant-probe.c")
	[ -n "$tenant" ] || { echo "no checks found in tests/kernel/tenant-probe.c"; fail=1; }
	tenant="$tenant kfdmp-sched"
	for t in $tenant; do
		grep -qE "^tenant[[:space:]]+$t([[:space:]]|$)" "$spec" || { echo "smoke.conf has no 'tenant $t'"; fail=1; }
	done
fi
[ "$fail" = 0 ] || die "$spec misses parameters, events or tenant checks of the series"
echo "smoke.conf checks all $(echo "$params" | wc -w) parameters, $(echo "$events" | wc -w) events and $(echo "$tenant" | wc -w) tenant checks of the series"
