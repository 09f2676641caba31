#!/usr/bin/env bash
# Record the amdkfd trace events of the series with trace-cmd.
#
#   scripts/trace.sh record OUTDIR [-- CMD [ARGS...]]
#       reset the tracing state, record the events below while CMD runs
#       (or until Ctrl-C without CMD), then write OUTDIR/trace.dat, the
#       text report OUTDIR/trace.txt and kfd/mp_stats before and after
#   scripts/trace.sh report OUTDIR     (re)write OUTDIR/trace.txt
#   scripts/trace.sh events            print the event list
#   scripts/trace.sh check-events HDR  fail unless the list equals the events
#                                      that kfd_trace.h HDR defines
# Needs root and trace-cmd. TRACE_BUFFER_KB sets the per-CPU buffer.
set -euo pipefail

# The fixed event list: every event of TRACE_SYSTEM amdkfd in kfd_trace.h.
EVENTS=(
	amdkfd:kfd_queue_create
	amdkfd:kfd_queue_destroy
	amdkfd:kfd_doorbell_bo_alloc
	amdkfd:kfd_runlist_submit
	amdkfd:kfd_unmap_queues
	amdkfd:kfd_rlq_request
	amdkfd:kfd_rlq_cycle
)
BUFFER_KB=${TRACE_BUFFER_KB:-65536}
MP_STATS=/sys/kernel/debug/kfd/mp_stats

die() { printf 'trace.sh: %s\n' "$*" >&2; exit 1; }

save_mp_stats() {
	if [ -r "$MP_STATS" ]; then cat "$MP_STATS" >"$1"; else echo "absent" >"$1"; fi
}

record() {
	local out=$1 rc=0 e
	shift
	[ "${1:-}" != -- ] || shift
	command -v trace-cmd >/dev/null || die "trace-cmd is missing (scripts/setup-deps.sh)"
	[ "$(id -u)" = 0 ] || die "recording needs root"
	for e in "${EVENTS[@]}"; do
		[ -d "/sys/kernel/tracing/events/${e/://}" ] ||
			die "event $e is not available: is the patched amdgpu.ko loaded?"
	done
	mkdir -p "$out"
	trace-cmd reset >/dev/null
	save_mp_stats "$out/mp_stats.before"
	local args=(-b "$BUFFER_KB" -o "$out/trace.dat")
	for e in "${EVENTS[@]}"; do args+=(-e "$e"); done
	if [ $# -gt 0 ]; then
		trace-cmd record "${args[@]}" -- "$@" || rc=$?
	else
		echo "trace.sh: recording until Ctrl-C"
		trace-cmd record "${args[@]}" || rc=$?
	fi
	save_mp_stats "$out/mp_stats.after"
	trace-cmd reset >/dev/null
	report "$out"
	return "$rc"
}

report() {
	[ -f "$1/trace.dat" ] || die "no $1/trace.dat"
	trace-cmd report -i "$1/trace.dat" >"$1/trace.txt"
	echo "trace.sh: $(grep -c ' kfd_' "$1/trace.txt" || true) events in $1/trace.txt"
}

check_events() {
	local hdr=$1 defined listed
	[ -f "$hdr" ] || die "no $hdr"
	defined=$(sed -n -E 's/^(TRACE_EVENT|DEFINE_EVENT)\(([a-z_]+, )?([a-z_0-9]+),?.*/amdkfd:\3/p' "$hdr" | sort)
	listed=$(printf '%s\n' "${EVENTS[@]}" | sort)
	if [ "$defined" != "$listed" ]; then
		diff <(printf '%s\n' "$defined") <(printf '%s\n' "$listed") | sed -n 's/^</  defined, not recorded:/p; s/^>/  recorded, not defined:/p'
		die "the event list differs from $hdr"
	fi
	echo "trace.sh: the event list matches $hdr ($(printf '%s\n' "${EVENTS[@]}" | wc -l) events)"
}

case "${1:-}" in
record) [ $# -ge 2 ] || die "usage: $0 record OUTDIR [-- CMD...]"; shift; record "$@" ;;
report) [ $# -eq 2 ] || die "usage: $0 report OUTDIR"; report "$2" ;;
events) printf '%s\n' "${EVENTS[@]}" ;;
check-events) [ $# -eq 2 ] || die "usage: $0 check-events HDR"; check_events "$2" ;;
*) echo "usage: $0 record OUTDIR [-- CMD...] | report OUTDIR | events | check-events HDR" >&2; exit 2 ;;
esac
