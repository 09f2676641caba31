#!/usr/bin/env bash
# Record the amdkfd trace events of the series: trace-cmd when installed,
# the raw tracefs files otherwise.
#
#   scripts/trace.sh record OUTDIR [-- CMD [ARGS...]]
#       reset the tracing state, record the events below while CMD runs
#       (or until Ctrl-C without CMD), then write the text report
#       OUTDIR/trace.txt (with trace-cmd also OUTDIR/trace.dat) and
#       kfd/mp_stats before and after. When tracing cannot run, CMD still
#       runs; OUTDIR/trace.env says why (status=unavailable, reason=...)
#   scripts/trace.sh probe            can tracing run here? prints how, or
#                                     why not (exit 1)
#   scripts/trace.sh report OUTDIR     (re)write OUTDIR/trace.txt (trace-cmd)
#   scripts/trace.sh events            print the event list
#   scripts/trace.sh check-events HDR  fail unless the list equals the events
#                                      that kfd_trace.h HDR defines
# Needs root. tracefs is looked for at /sys/kernel/tracing and
# /sys/kernel/debug/tracing (mounted there when absent). The ring buffer
# is sized from a total over all CPUs, not per CPU: TRACE_BUFFER_MB
# (default: 256 MiB, and at most 2% of MemAvailable), split over the CPUs,
# 1 MiB per CPU at least; on a 224-CPU box 64 MiB per CPU would be 14 GiB.
# TRACE_BUFFER_KB still sets the per-CPU size directly. TRACE_METHOD=tracefs
# uses the raw files even where trace-cmd is installed.
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
	amdkfd:kfd_tenant_ctl
)
MP_STATS=${KFDMP_KFD_DEBUGFS:-/sys/kernel/debug/kfd}/mp_stats
# The mount points, in order; overridable for tests.
TRACEFS_DIRS=${KFDMP_TRACEFS_DIRS:-/sys/kernel/tracing /sys/kernel/debug/tracing}
MEMINFO=${KFDMP_MEMINFO:-/proc/meminfo}

die() { printf 'trace.sh: %s\n' "$*" >&2; exit 1; }

# find_tracefs: print the tracefs directory (one with events/), mounting
# tracefs (or debugfs) when neither mount point has it.
find_tracefs() {
	local d
	for d in $TRACEFS_DIRS; do
		[ -d "$d/events" ] && { echo "$d"; return 0; }
	done
	[ -z "${KFDMP_TRACEFS_DIRS:-}" ] || return 1
	if [ -d /sys/kernel/tracing ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
	   [ -d /sys/kernel/tracing/events ]; then
		echo /sys/kernel/tracing; return 0
	fi
	if [ -d /sys/kernel/debug ] && ! [ -d /sys/kernel/debug/tracing ]; then
		mount -t debugfs nodev /sys/kernel/debug 2>/dev/null || true
	fi
	[ -d /sys/kernel/debug/tracing/events ] && { echo /sys/kernel/debug/tracing; return 0; }
	return 1
}

# buffer_kb: the per-CPU buffer in KiB, from the total budget.
buffer_kb() {
	if [ -n "${TRACE_BUFFER_KB:-}" ]; then echo "$TRACE_BUFFER_KB"; return; fi
	local cpus avail_kb budget_kb per
	cpus=$(getconf _NPROCESSORS_CONF 2>/dev/null || nproc)
	[ -z "${KFDMP_NCPUS:-}" ] || cpus=$KFDMP_NCPUS
	avail_kb=$(awk '$1 == "MemAvailable:" { print $2 }' "$MEMINFO" 2>/dev/null || true)
	budget_kb=$((${TRACE_BUFFER_MB:-256} * 1024))
	if [ -n "$avail_kb" ] && [ "$budget_kb" -gt $((avail_kb / 50)) ]; then budget_kb=$((avail_kb / 50)); fi
	per=$((budget_kb / cpus))
	[ "$per" -ge 1024 ] || per=1024
	echo "$per"
}

# probe: TRACEFS and METHOD set, or the reason printed and exit status 1.
TRACEFS='' METHOD='' WHY=''
# probe [--no-events]: --no-events before the patched module is loaded.
probe() {
	local e
	if [ "$(id -u)" != 0 ]; then WHY="tracing needs root"; return 1; fi
	if ! TRACEFS=$(find_tracefs); then
		WHY="no tracefs at ${TRACEFS_DIRS// / or }, and mounting it failed"
		return 1
	fi
	for e in "${EVENTS[@]}"; do
		[ "${1:-}" != --no-events ] || break
		[ -d "$TRACEFS/events/${e/://}" ] ||
			{ WHY="event $e is not in $TRACEFS/events: is the patched amdgpu loaded?"; return 1; }
	done
	case ${TRACE_METHOD:-auto} in
	auto) if command -v trace-cmd >/dev/null; then METHOD=trace-cmd; else METHOD=tracefs; fi ;;
	trace-cmd|tracefs) METHOD=$TRACE_METHOD ;;
	*) die "TRACE_METHOD=$TRACE_METHOD: auto, trace-cmd or tracefs" ;;
	esac
}
save_mp_stats() {
	if [ -r "$MP_STATS" ]; then cat "$MP_STATS" >"$1"; else echo "absent" >"$1"; fi
}

record() {
	local out=$1 rc=0 e kb
	shift
	[ "${1:-}" != -- ] || shift
	mkdir -p "$out"
	if ! probe; then
		printf 'status=unavailable\nreason=%s\n' "$WHY" >"$out/trace.env"
		echo "trace.sh: not tracing: $WHY; running without a trace" >&2
		save_mp_stats "$out/mp_stats.before"
		if [ $# -gt 0 ]; then "$@" || rc=$?; fi
		save_mp_stats "$out/mp_stats.after"
		return "$rc"
	fi
	kb=$(buffer_kb)
	printf 'status=on\nmethod=%s\ntracefs=%s\nbuffer_kb_per_cpu=%s\n' "$METHOD" "$TRACEFS" "$kb" >"$out/trace.env"
	save_mp_stats "$out/mp_stats.before"
	if [ "$METHOD" = trace-cmd ]; then
		trace-cmd reset >/dev/null
		local args=(-b "$kb" -o "$out/trace.dat")
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
	fi
	# raw tracefs: size, enable, run, stop, copy, reset
	local kb0
	kb0=$(cat "$TRACEFS/buffer_size_kb")
	echo 0 >"$TRACEFS/tracing_on"
	: >"$TRACEFS/trace"
	if ! echo "$kb" >"$TRACEFS/buffer_size_kb" 2>/dev/null; then
		echo "trace.sh: could not set buffer_size_kb=$kb (ENOMEM?); keeping $(cat "$TRACEFS/buffer_size_kb")" >&2
		echo "buffer_note=could not set $kb KiB per CPU" >>"$out/trace.env"
	fi
	for e in "${EVENTS[@]}"; do echo 1 >"$TRACEFS/events/${e/://}/enable"; done
	echo 1 >"$TRACEFS/tracing_on"
	if [ $# -gt 0 ]; then
		"$@" || rc=$?
	else
		echo "trace.sh: recording until Ctrl-C"
		trap 'true' INT
		sleep infinity || true
		trap - INT
	fi
	echo 0 >"$TRACEFS/tracing_on"
	save_mp_stats "$out/mp_stats.after"
	cat "$TRACEFS/trace" >"$out/trace.txt"
	for e in "${EVENTS[@]}"; do echo 0 >"$TRACEFS/events/${e/://}/enable"; done
	: >"$TRACEFS/trace"
	echo "${kb0%% *}" >"$TRACEFS/buffer_size_kb" 2>/dev/null || true
	echo "trace.sh: $(grep -c ' kfd_' "$out/trace.txt" || true) events in $out/trace.txt (raw tracefs $TRACEFS)"
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
probe) if probe "${2:-}"; then echo "trace.sh: $METHOD on $TRACEFS, $(buffer_kb) KiB per CPU"; else echo "trace.sh: $WHY"; exit 1; fi ;;
record) [ $# -ge 2 ] || die "usage: $0 record OUTDIR [-- CMD...]"; shift; record "$@" ;;
report) [ $# -eq 2 ] || die "usage: $0 report OUTDIR"; report "$2" ;;
events) printf '%s\n' "${EVENTS[@]}" ;;
check-events) [ $# -eq 2 ] || die "usage: $0 check-events HDR"; check_events "$2" ;;
*) echo "usage: $0 record OUTDIR [-- CMD...] | probe | report OUTDIR | events | check-events HDR" >&2; exit 2 ;;
esac
