#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the qemu-smoke initramfs (busybox ash). Packed by
# scripts/qemu-smoke.sh together with:
#   /smoke.env        LOOPS=<n>
#   /smoke.spec       the spec, normalised by the host (comments and blank
#                     lines removed, one directive per line, tokens joined
#                     by one space); each line is also the check's name
#   /lib/smoke-deps/  the dependency modules, loaded in the order of
#                     /lib/smoke-deps/order
#   /amdgpu.ko        the module under test (debug info stripped)
#   /bin/kmod         kmod and its libraries, for insmod/rmmod (busybox's
#                     insmod retries a failed finit_module() with
#                     init_module(): a refused load would run twice)
#   /bin/tenant-probe the tenant-control probe (tests/kernel/tenant-probe.c),
#                     when the spec has `tenant` lines
#   /bin/kfdmp-sched  the tenant scheduler (tests/harness/sched), when the
#                     spec has `tenant kfdmp-sched`
#
# Results go to /dev/kmsg so that each one is a single kernel log record:
# atomic on the serial console and in order with the kernel's own messages.
#   SMOKE PASS <check>
#   SMOKE FAIL <check>: <detail>
#   SMOKE INFO <text>          (progress; ignored by the host)
#   SMOKE DONE passed=<n> failed=<n>
# The /sys/class/kfd capture and the final dmesg are written to the console
# between SMOKE-SYSFS-BEGIN/END and SMOKE-DMESG-BEGIN/END, with the console
# log level lowered meanwhile so that no kernel message lands inside them.

PATH=/bin
export PATH
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
exec </dev/null >/dev/console 2>&1

LOOPS=5
# shellcheck source=/dev/null
[ -r /smoke.env ] && . /smoke.env
KO=/amdgpu.ko
SPEC=/smoke.spec
npass=0
nfail=0

kinsmod() { /kmod/insmod "$@"; }
krmmod() { /kmod/rmmod "$@"; }

log() {
	# One record per line; no newlines inside, bounded length.
	printf '<5>SMOKE %s\n' "$(printf '%s' "$*" | tr '\n\r\t' '   ' | cut -c1-700)" >/dev/kmsg
}
pass() { npass=$((npass + 1)); log "PASS $1"; }
fail() { nfail=$((nfail + 1)); log "FAIL $1: $2"; }
info() { log "INFO $*"; }

# Uptime in centiseconds, for timing.
now_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}
since() { # since START_CS -> "1.23s"
	d=$(($(now_cs) - $1))
	printf '%d.%02ds' $((d / 100)) $((d % 100))
}

klines() { dmesg | wc -l; }
# Kernel log lines after line $1 (from an earlier klines), on one line.
kdelta() { dmesg | tail -n +$(($1 + 1)); }
oneline() { tr '\n' '|' | cut -c1-400; }
BADRE='(^|[^[:alnum:]_])(BUG|WARNING|Oops)([^[:alnum:]_]|$)|Call Trace'

quiet_console() {
	read -r saved_loglevel _ </proc/sys/kernel/printk
	echo 1 >/proc/sys/kernel/printk
}
loud_console() { echo "$saved_loglevel" >/proc/sys/kernel/printk; }

# --- dependency modules ---------------------------------------------------
t=$(now_cs)
ndeps=0
deperr=
out=$(kmod --version 2>&1) || deperr=" kmod does not run: $out"
while read -r m <&3; do
	[ -n "$m" ] || continue
	if out=$(kinsmod "/lib/smoke-deps/$m" 2>&1); then
		ndeps=$((ndeps + 1))
	else
		deperr="$deperr $m ($out)"
	fi
done 3</lib/smoke-deps/order
if [ -z "$deperr" ]; then
	pass "deps loaded"
	info "loaded $ndeps dependency modules in $(since "$t")"
else
	fail "deps loaded" "insmod failed:$deperr"
fi

# --- spec checks run with the module loaded by default ---------------------
# check_line LINE: 0 if the param/event/debugfs/write/tenant check holds,
# else 1 with the reason in $detail ($note: what a passed tenant check
# saw). Other directives return 2 (not a load check).
check_line() {
	detail=
	note=
	set -f
	# shellcheck disable=SC2086
	set -- $1
	set +f
	d=$1
	shift
	case $d in
	param)
		[ -e "/sys/module/amdgpu/parameters/$1" ] && return 0
		detail="/sys/module/amdgpu/parameters/$1 missing"
		return 1 ;;
	event)
		[ -d "/sys/kernel/tracing/events/$1" ] && return 0
		detail="/sys/kernel/tracing/events/$1 missing"
		return 1 ;;
	debugfs)
		p=/sys/kernel/debug/$1
		shift
		if ! out=$(cat "$p" 2>&1); then
			detail="cat $p failed: $(printf '%s' "$out" | oneline)"
			return 1
		fi
		[ $# -eq 0 ] && return 0
		printf '%s\n' "$out" | grep -qE -- "$*" && return 0
		detail="$p does not match /$*/: $(printf '%s' "$out" | oneline)"
		return 1 ;;
	write)
		p=/sys/kernel/debug/$1
		shift
		if out=$({ printf '%s\n' "$*" >"$p"; } 2>&1); then
			return 0
		fi
		[ -n "$out" ] || out="write(2) returned an error"
		detail="write '$*' to $p failed: $(printf '%s' "$out" | oneline)"
		return 1 ;;
	tenant)
		[ "$1" = kfdmp-sched ] && { sched_check; return $?; }
		if out=$(/bin/tenant-probe "$1" 2>&1); then
			note=$(printf '%s' "$out" | oneline)
			return 0
		fi
		detail="tenant-probe $1: $(printf '%s' "$out" | oneline)"
		return 1 ;;
	esac
	return 2
}

# tenant kfdmp-sched: the daemon's kfd backend against the loaded driver.
# Two KFD processes (tenant-probe --hold): the best-effort tenant, and the
# critical one, which sends "busy" to the daemon's socket. The daemon must
# probe the interface (num_targets 0), open the best-effort tenant's pidfd,
# suspend it when the report comes and get the kernel's per-target answer
# for it: ENOENT on a node-less load (a KFD process without a GPU), not
# EBADF (the pidfd refused) nor a call-level error; then, on SIGTERM, exit
# 0 with nothing left suspended.
sched_check() {
	rm -f /tmp/hold.* /tmp/kfdmp-sched.*
	s_sock=/tmp/kfdmp-sched.sock
	/bin/tenant-probe --hold >/tmp/hold.1 2>&1 &
	s_h1=$!
	/bin/tenant-probe --hold "$s_sock" >/tmp/hold.2 2>&1 &
	s_h2=$!
	s_try=0
	while ! grep -q held /tmp/hold.1 || ! grep -q held /tmp/hold.2; do
		s_try=$((s_try + 1))
		if [ $s_try -gt 50 ]; then
			detail="tenant-probe --hold did not start: $(cat /tmp/hold.1 /tmp/hold.2 | oneline)"
			kill "$s_h1" "$s_h2" 2>/dev/null
			wait
			return 1
		fi
		sleep 0.1
	done
	s_log=/tmp/kfdmp-sched.jsonl
	/bin/kfdmp-sched --backend kfd --best-effort "$s_h1" --critical "$s_h2" \
		--socket "$s_sock" --log "$s_log" 2>/tmp/kfdmp-sched.err &
	s_d=$!
	s_try=0
	while [ $s_try -le 100 ] && ! grep -q '"event":"suspend"' "$s_log" 2>/dev/null; do
		kill -0 "$s_d" 2>/dev/null || break
		s_try=$((s_try + 1))
		sleep 0.1
	done
	kill -TERM "$s_d" 2>/dev/null
	wait "$s_d"
	s_rc=$?
	kill "$s_h1" "$s_h2" 2>/dev/null
	wait
	s_all="$(cat /tmp/kfdmp-sched.err "$s_log" /tmp/hold.2 2>/dev/null | oneline)"
	if [ $s_rc -ne 0 ]; then
		detail="kfdmp-sched exited $s_rc: $s_all"
	elif ! grep -q '"event":"start".*"backend":"kfd"' "$s_log"; then
		detail="no start line with backend kfd: $s_all"
	elif grep -q '"event":"tenant_refused"' "$s_log"; then
		detail="the best-effort tenant was not taken (pidfd): $s_all"
	elif ! grep '"event":"suspend"' "$s_log" | grep -q "\"refused\":\"$s_h1: ENOENT"; then
		detail="no suspend of pid $s_h1 answered ENOENT per target: $s_all"
	elif ! grep -q '"event":"shutdown".*"left_suspended":0' "$s_log"; then
		detail="no shutdown line with left_suspended 0: $s_all"
	else
		note="kfdmp-sched --backend kfd: probe ok, pidfd of $s_h1 taken, suspend on busy from $s_h2 answered ENOENT for it (no GPU), SIGTERM exit 0, left_suspended 0"
		return 0
	fi
	return 1
}

# Run the load checks; on the first loop report each one, later only
# report regressions of checks that passed so far (as "<check> [loop N]").
# $bad holds the spec line numbers of checks already reported failed.
bad=" "
run_checks() { # run_checks LOOP LOADED
	idx=0
	while read -r line <&3; do
		idx=$((idx + 1))
		case $line in
		param\ * | event\ * | debugfs\ * | write\ * | tenant\ *) ;;
		*) continue ;;
		esac
		case $bad in *" $idx "*) continue ;; esac
		# tenant checks: the first load only (each costs a few process
		# starts under TCG; later loads test the load cycle)
		case $line in tenant\ *) [ "$1" -eq 1 ] || continue ;; esac
		if [ "$2" -ne 1 ]; then
			if [ "$1" -eq 1 ]; then
				fail "$line" "amdgpu not loaded in loop 1"
				bad="$bad$idx "
			fi
			continue
		fi
		check_line "$line"
		rc=$?
		if [ "$1" -eq 1 ]; then
			if [ $rc -eq 0 ]; then pass "$line"; else fail "$line" "$detail"; fi
			[ -z "$note" ] || info "$line: $note"
		elif [ $rc -ne 0 ]; then
			fail "$line [loop $1]" "$detail"
		fi
		[ $rc -eq 0 ] || bad="$bad$idx "
	done 3<"$SPEC"
}

capture_sysfs() {
	quiet_console
	echo "SMOKE-SYSFS-BEGIN"
	for d in /sys/class/kfd/kfd/topology /sys/class/kfd/kfd/proc; do
		if [ ! -d "$d" ]; then
			echo "==> $d <== (missing)"
			continue
		fi
		find "$d" -type f | sort | while read -r f; do
			echo "==> $f <=="
			if [ -r "$f" ]; then
				out=$(cat "$f" 2>&1) || out="(read error: $out)"
				[ -n "$out" ] && printf '%s\n' "$out"
			else
				echo "(not readable)"
			fi
		done
	done
	echo "SMOKE-SYSFS-END"
	loud_console
}

# rmmod amdgpu and check that it is really gone; detail in $detail.
unload() {
	detail=
	if ! out=$(krmmod amdgpu 2>&1); then
		detail="rmmod failed: $out"
		return 1
	fi
	if [ -e /sys/module/amdgpu ]; then
		detail="rmmod returned 0 but /sys/module/amdgpu still exists"
		return 1
	fi
	if [ -e /dev/kfd ]; then
		detail="/dev/kfd still exists after rmmod"
		return 1
	fi
	return 0
}

# --- default load loops ---------------------------------------------------
i=1
while [ "$i" -le "$LOOPS" ]; do
	n="loop $i/$LOOPS"
	t=$(now_cs)
	k=$(klines)
	if out=$(kinsmod "$KO" 2>&1); then
		loaded=1
		pass "$n insmod"
		info "$n insmod took $(since "$t")"
	else
		loaded=0
		fail "$n insmod" "$out; dmesg: $(kdelta "$k" | tail -n 5 | oneline)"
	fi
	if [ $loaded -eq 1 ]; then
		if [ -c /dev/kfd ]; then pass "$n /dev/kfd"; else fail "$n /dev/kfd" "missing"; fi
	else
		fail "$n /dev/kfd" "amdgpu not loaded"
	fi
	run_checks "$i" "$loaded"
	if [ "$i" -eq 1 ] && [ $loaded -eq 1 ]; then
		capture_sysfs
	fi
	if [ $loaded -eq 1 ]; then
		t=$(now_cs)
		if unload; then
			pass "$n rmmod"
			info "$n rmmod took $(since "$t")"
		else
			fail "$n rmmod" "$detail"
		fi
	else
		fail "$n rmmod" "amdgpu not loaded"
	fi
	i=$((i + 1))
done

# --- load / refuse / fallback lines ---------------------------------------
while read -r line <&3; do
	set -f
	# shellcheck disable=SC2086
	set -- $line
	set +f
	d=$1
	shift
	case $d in
	load)
		[ -e /sys/module/amdgpu ] && krmmod amdgpu >/dev/null 2>&1
		k=$(klines)
		t=$(now_cs)
		if out=$(kinsmod "$KO" "$@" 2>&1); then
			if unload; then
				pass "$line"
				info "$line: insmod+rmmod took $(since "$t")"
			else
				fail "$line" "$detail"
			fi
		else
			fail "$line" "insmod failed: $out; dmesg: $(kdelta "$k" | tail -n 5 | oneline)"
		fi ;;
	refuse)
		re=$1
		shift
		[ -e /sys/module/amdgpu ] && krmmod amdgpu >/dev/null 2>&1
		k=$(klines)
		if out=$(kinsmod "$KO" "$@" 2>&1); then
			delta=$(kdelta "$k")
			unload >/dev/null 2>&1
			fail "$line" "insmod $* succeeded but should have been refused; dmesg: $(printf '%s' "$delta" | tail -n 5 | oneline)"
		else
			delta=$(kdelta "$k")
			if printf '%s\n' "$delta" | grep -qE "$BADRE"; then
				fail "$line" "kernel BUG/WARNING/Oops during refused insmod: $(printf '%s\n' "$delta" | grep -E "$BADRE" | head -n 3 | oneline)"
			elif printf '%s\n' "$delta" | grep -qE -- "$re"; then
				pass "$line"
			else
				fail "$line" "insmod refused ($out) but its dmesg does not match /$re/: $(printf '%s' "$delta" | oneline)"
			fi
			if [ -e /sys/module/amdgpu ]; then
				unload >/dev/null 2>&1
				fail "$line [module left loaded]" "insmod failed but /sys/module/amdgpu exists"
			fi
		fi ;;
	fallback)
		pname=${1%%=*}
		want=${1#*=}
		re=$2
		shift 2
		[ -e /sys/module/amdgpu ] && krmmod amdgpu >/dev/null 2>&1
		k=$(klines)
		if ! out=$(kinsmod "$KO" "$@" 2>&1); then
			fail "$line" "insmod $* failed, but a bad value must fall back: $out; dmesg: $(kdelta "$k" | tail -n 5 | oneline)"
			continue
		fi
		got=$(cat "/sys/module/amdgpu/parameters/$pname" 2>&1) || got="unreadable: $got"
		delta=$(kdelta "$k")
		if unload; then unloaded=1; else unloaded=0; fi
		if printf '%s\n' "$delta" | grep -qE "$BADRE"; then
			fail "$line" "kernel BUG/WARNING/Oops during the load: $(printf '%s\n' "$delta" | grep -E "$BADRE" | head -n 3 | oneline)"
		elif ! printf '%s\n' "$delta" | grep -qE -- "$re"; then
			fail "$line" "loaded, but its dmesg does not match /$re/: $(printf '%s' "$delta" | tail -n 5 | oneline)"
		elif [ "$got" != "$want" ]; then
			fail "$line" "loaded and warned, but $pname reads back '$got', not the default '$want'"
		elif [ $unloaded -eq 0 ]; then
			fail "$line" "$detail"
		else
			pass "$line"
		fi ;;
	esac
done 3<"$SPEC"

# --- the companion modules of a DKMS stack, unloaded in reverse order -------
if [ -s /lib/smoke-deps/stack ]; then
	[ -e /sys/module/amdgpu ] && krmmod amdgpu >/dev/null 2>&1
	unloadErr=
	for m in $(sed -n '1!G;h;$p' /lib/smoke-deps/stack); do
		out=$(krmmod "$m" 2>&1) || unloadErr="$unloadErr $m ($out)"
		[ ! -e "/sys/module/$m" ] || unloadErr="$unloadErr $m (still loaded)"
	done
	if [ -z "$unloadErr" ]; then
		pass "stack unloaded"
	else
		fail "stack unloaded" "rmmod failed:$unloadErr"
	fi
fi

# --- kernel taint: D (oops) W (warning) L (soft lockup) B (bad page) M ----
read -r taint </proc/sys/kernel/tainted
bad=$((taint & (128 | 512 | 16384 | 32 | 16)))
if [ "$bad" -eq 0 ]; then
	pass "kernel taint clean"
else
	fail "kernel taint clean" "tainted=$taint (bad bits $bad: 16 M, 32 B, 128 D oops, 512 W warning, 16384 L soft lockup)"
fi

quiet_console
echo "SMOKE-DMESG-BEGIN"
dmesg
echo "SMOKE-DMESG-END"
loud_console
log "DONE passed=$npass failed=$nfail"
sync
poweroff -f
# Not reached unless poweroff fails; panic=-1 + -no-reboot ends QEMU then.
sleep 5
exit 1
