#!/usr/bin/env bash
# scripts/trace.sh on a fake tracefs (issue 15, breakage 6): tracefs only
# under debugfs (/sys/kernel/debug/tracing, as on the box), the raw tracefs
# method (no trace-cmd), the ring buffer sized from a total over 224 CPUs
# and the free memory (not 64 MiB per CPU), the old size put back; and no
# tracefs at all: the command runs anyway, trace.env says why.
# shellcheck disable=SC2015,SC2016
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
scratch trace

mkdir -p "$tmp/bin"
printf '#!/bin/sh\n[ "$1" = -u ] && echo 0 || exec /usr/bin/id "$@"\n' >"$tmp/bin/id"
chmod +x "$tmp/bin/id"
export PATH=$tmp/bin:$PATH
tracing=$tmp/debug/tracing
mkdir -p "$tmp/tracing" "$tracing"
echo 1408 >"$tracing/buffer_size_kb"
echo 0 >"$tracing/tracing_on"
: >"$tracing/trace"
while read -r e; do mkdir -p "$tracing/events/${e/://}"; echo 0 >"$tracing/events/${e/://}/enable"; done < <("$root/scripts/trace.sh" events)
export KFDMP_TRACEFS_DIRS="$tmp/tracing $tracing" KFDMP_NCPUS=224 KFDMP_KFD_DEBUGFS=$tmp/kfd TRACE_METHOD=tracefs
printf 'MemTotal:       2113929216 kB\nMemAvailable:   1900000000 kB\n' >"$tmp/meminfo"
export KFDMP_MEMINFO=$tmp/meminfo

# The workload: writes one event line, records what it saw while tracing.
work="echo '  kfdmp-worker-7 [003] ..... 10.000: kfd_queue_create: pasid=5 queue=0' >>$tracing/trace;
	cat $tracing/buffer_size_kb $tracing/tracing_on $tracing/events/amdkfd/kfd_rlq_cycle/enable >$tmp/seen; exit 3"
rc=0; out=$("$root/scripts/trace.sh" record "$tmp/r1" -- bash -c "$work" 2>&1) || rc=$?
[ "$rc" = 3 ] && ok "the command's exit status comes back (3)" || { printf '%s\n' "$out"; bad "record: exit $rc"; }
grep -q 'kfd_queue_create: pasid=5' "$tmp/r1/trace.txt" 2>/dev/null && ok "raw tracefs under debugfs only: trace.txt has the event" || { printf '%s\n' "$out"; bad "no event in trace.txt"; }
# 256 MiB over 224 CPUs: 1170 KiB each (2% of MemAvailable is more)
[ "$(tr '\n' ' ' <"$tmp/seen" 2>/dev/null)" = "1170 1 1 " ] && ok "while the command ran: 1170 KiB per CPU (256 MiB over 224 CPUs), tracing on, events enabled" ||
	bad "while running: buffer/tracing_on/enable were: $(tr '\n' ' ' <"$tmp/seen" 2>/dev/null)"
[ "$(cat "$tracing/buffer_size_kb")" = 1408 ] && [ "$(cat "$tracing/tracing_on")" = 0 ] && [ "$(cat "$tracing/events/amdkfd/kfd_rlq_cycle/enable")" = 0 ] &&
	ok "afterwards: the old buffer size, tracing off, events disabled" || bad "tracefs not put back"
grep -q '^method=tracefs$' "$tmp/r1/trace.env" && grep -q "^tracefs=$tracing\$" "$tmp/r1/trace.env" && ok "trace.env: method and mount point" || bad "trace.env: $(cat "$tmp/r1/trace.env")"

printf 'MemAvailable:   4194304 kB\n' >"$tmp/meminfo"
"$root/scripts/trace.sh" record "$tmp/r2" -- bash -c "$work" >/dev/null 2>&1 || true
[ "$(head -n1 "$tmp/seen")" = 1024 ] && ok "little free memory (4 GiB): 2% over 224 CPUs is under 1 MiB, so 1 MiB per CPU" || bad "4 GiB free: $(head -n1 "$tmp/seen") KiB per CPU"

rc=0; KFDMP_TRACEFS_DIRS="$tmp/none1 $tmp/none2" "$root/scripts/trace.sh" record "$tmp/r3" -- bash -c 'exit 0' >"$tmp/r3.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -q '^status=unavailable$' "$tmp/r3/trace.env" && grep -q '^reason=no tracefs at' "$tmp/r3/trace.env" &&
	ok "no tracefs: the command runs, trace.env says why: $(sed -n 's/^reason=//p' "$tmp/r3/trace.env")" || { cat "$tmp/r3.log"; bad "no tracefs: exit $rc"; }
verdict "trace test"
