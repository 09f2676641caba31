#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-smoke.sh - load test for a (patched) amdgpu.ko.
#
# Boots the Debian kernel under QEMU (TCG, no KVM) with a busybox initramfs
# holding amdgpu's dependency modules and the module under test, loads and
# unloads amdgpu --loops times and checks the directives of the spec file
# (tests/kernel/smoke.conf; the format is described there). Exit status:
# 0 all checks passed, 1 a check failed or a prerequisite is missing,
# 2 usage or spec error.
#
# Outputs (OUTDIR, default build/qemu-smoke):
#   console.log     raw serial console of the guest
#   results.txt     the SMOKE PASS/FAIL/DONE lines
#   sysfs-kfd.txt   every file under /sys/class/kfd/kfd/{topology,proc}
#   dmesg.txt       the guest's kernel log at the end of the run
#   qemu.log        QEMU's own stdout/stderr
#   cache/          initramfs parts, rebuilt when their inputs change
#
# With --stack DIR (ROCm's amdgpu-dkms build, scripts/build-vendor.sh), the
# module under test is DIR/amd/amdgpu/amdgpu.ko and its companion modules
# (amdkcl, amdttm, amd-sched, amddrm_buddy, amddrm_ttm_helper, amdxcp: every
# other .ko under DIR) are loaded after the kernel's own dependencies, in
# the order of their depends; after the checks they are unloaded in reverse
# ("stack unloaded").
#
# `tenant CHECK` lines run tests/kernel/tenant-probe.c in the guest: built
# here with `gcc -static` against the uapi kfd_ioctl.h of the tree under
# test (--uapi FILE; by default the one of the --stack build, or of the
# tree that --ko lies in), cached in cache/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=versions.env
. "$here/versions.env"

KO=$root/build/tree/drivers/gpu/drm/amd/amdgpu/amdgpu.ko
SPEC=$root/tests/kernel/smoke.conf
KVER=${KVER_DEFAULT}
OUTDIR=$root/build/qemu-smoke
LOOPS=5
TIMEOUT=300
MEM=2048
# Debugging knobs (environment): extra kernel command line, vCPU count.
# One vCPU by default: with 2 vCPUs under multi-threaded TCG the guest
# kernel now and then oopses at boot on an int3 left by text_poke_bp()
# (static-key patching racing with the other vCPU), a TCG artefact.
SMP=${QEMU_SMOKE_SMP:-1}
STACK=
UAPI=
EXTRA_APPEND=${QEMU_SMOKE_APPEND:-}

usage() {
	cat <<EOF
Usage: scripts/qemu-smoke.sh [--ko PATH] [--spec FILE] [--kver KVER]
                             [--outdir DIR] [--loops N] [--timeout SECS]
                             [--stack DIR] [--uapi FILE]

Boot /boot/vmlinuz-KVER under qemu-system-x86_64 (TCG) with a busybox
initramfs and load-test amdgpu.ko against the spec.

  --ko PATH       module under test
                  (default: build/tree/drivers/gpu/drm/amd/amdgpu/amdgpu.ko)
  --spec FILE     checks to run (default: tests/kernel/smoke.conf)
  --kver KVER     kernel to boot and take the dependency modules from
                  (default: \$KVER_DEFAULT from scripts/versions.env, $KVER_DEFAULT)
  --outdir DIR    results and cache (default: build/qemu-smoke)
  --loops N       default insmod/rmmod cycles in one boot (default: 5)
  --timeout SECS  bound on the QEMU run (default: 300)
  --stack DIR     an amdgpu-dkms build (build/rocm-KVER[-nodc]): test
                  DIR/amd/amdgpu/amdgpu.ko with its companion modules
  --uapi FILE     kfd_ioctl.h the tenant probe is built against (default:
                  DIR/include/uapi/linux/kfd_ioctl.h of --stack, else that
                  of the tree holding --ko, else build/tree's)

Spec format: see the header of tests/kernel/smoke.conf.
Results: OUTDIR/{results.txt,sysfs-kfd.txt,dmesg.txt,console.log}.
Environment: QEMU_SMOKE_APPEND (extra kernel command line),
QEMU_SMOKE_SMP (vCPUs, default 1).

Exit status: 0 pass, 1 a check failed or a prerequisite is missing,
2 usage or spec error.
EOF
}

die() { echo "qemu-smoke: error: $*" >&2; exit 1; }
usage_err() { echo "qemu-smoke: $*" >&2; echo "Try 'scripts/qemu-smoke.sh --help'." >&2; exit 2; }

while [ $# -gt 0 ]; do
	opt=$1
	case $opt in
	-h | --help) usage; exit 0 ;;
	--*=*) set -- "${opt%%=*}" "${opt#*=}" "${@:2}"; continue ;;
	--ko | --spec | --kver | --outdir | --loops | --timeout | --stack | --uapi)
		[ $# -ge 2 ] || usage_err "option $opt needs an argument"
		val=$2
		shift 2
		case $opt in
		--ko) KO=$val ;;
		--spec) SPEC=$val ;;
		--kver) KVER=$val ;;
		--outdir) OUTDIR=$val ;;
		--loops) LOOPS=$val ;;
		--timeout) TIMEOUT=$val ;;
		--stack) STACK=$val ;;
		--uapi) UAPI=$val ;;
		esac ;;
	*) usage_err "unknown argument '$opt'" ;;
	esac
done
[[ $LOOPS =~ ^[1-9][0-9]*$ ]] || usage_err "--loops must be a positive integer, not '$LOOPS'"
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || usage_err "--timeout must be a positive integer, not '$TIMEOUT'"
[ -n "$KVER" ] || usage_err "--kver is empty"
if [ -n "$STACK" ]; then
	[ -d "$STACK" ] || usage_err "--stack $STACK: no such directory"
	STACK=$(cd "$STACK" && pwd)
	[ "$KO" = "$root/build/tree/drivers/gpu/drm/amd/amdgpu/amdgpu.ko" ] && KO=$STACK/amd/amdgpu/amdgpu.ko
fi

start=$(date +%s.%N)
elapsed() { LC_ALL=C awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }

# --- prerequisites (all hard failures) -------------------------------------
for tool in qemu-system-x86_64 timeout strip cpio xz modprobe modinfo readelf ldd sha256sum flock; do
	command -v "$tool" >/dev/null ||
		die "'$tool' not found (install the packages in TOOL_PKGS, scripts/setup-deps.sh)"
done
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "$BUSYBOX not found (install busybox-static)"
if readelf -l "$BUSYBOX" 2>/dev/null | grep -q INTERP; then
	die "$BUSYBOX is dynamically linked; install busybox-static"
fi
KERNEL=/boot/vmlinuz-$KVER
[ -r "$KERNEL" ] || die "kernel image $KERNEL not found or not readable (install linux-image-$KVER-unsigned)"
[ -d "/lib/modules/$KVER" ] || die "/lib/modules/$KVER not found (install linux-image-$KVER-unsigned)"
[ -f "$KO" ] || die "module $KO not found (build it, or pass --ko PATH)"
[ -r "$KO" ] || die "module $KO is not readable"
[ -f "$SPEC" ] || die "spec $SPEC not found (pass --spec FILE)"
vermagic=$(modinfo -F vermagic "$KO" 2>/dev/null) || die "$KO is not a kernel module (modinfo failed)"
[ "${vermagic%% *}" = "$KVER" ] ||
	die "$KO has vermagic '${vermagic%% *}', the kernel is '$KVER' (wrong --kver, or a module built against other headers)"

# --- spec -----------------------------------------------------------------
# Normalise: drop blank lines and comments ('#' at the start of a line or
# after whitespace), join tokens with one space. The normalised line is the
# check's name on both sides.
spec_lines=()
tenant_checks=()
lineno=0
while IFS= read -r raw || [ -n "$raw" ]; do
	lineno=$((lineno + 1))
	line=${raw%%[[:space:]]#*}
	case $line in \#*) line= ;; esac
	read -r -a w <<<"$line" || true
	[ ${#w[@]} -gt 0 ] || continue
	line="${w[*]}"
	where="$SPEC:$lineno"
	nargs=$((${#w[@]} - 1))
	case ${w[0]} in
	param) [ $nargs -eq 1 ] || usage_err "$where: 'param NAME' takes one argument: $line" ;;
	event)
		if [ $nargs -ne 1 ] || [[ ${w[1]} != ?*/?* ]]; then
			usage_err "$where: 'event SYSTEM/NAME' takes one argument: $line"
		fi ;;
	debugfs) [ $nargs -ge 1 ] || usage_err "$where: 'debugfs PATH [REGEX]' needs a path: $line" ;;
	write) [ $nargs -ge 2 ] || usage_err "$where: 'write PATH VALUE' needs a path and a value: $line" ;;
	load) ;;
	refuse) [ $nargs -ge 2 ] || usage_err "$where: 'refuse REGEX ARGS...' needs a regex and arguments: $line" ;;
	fallback)
		if [ $nargs -lt 3 ] || [[ ${w[1]} != [a-z]*=* ]]; then
			usage_err "$where: 'fallback NAME=VALUE REGEX ARGS...' needs a parameter's read-back, a regex and arguments: $line"
		fi ;;
	tenant)
		[ $nargs -eq 1 ] || usage_err "$where: 'tenant CHECK' takes one argument: $line"
		tenant_checks+=("${w[1]}:$where") ;;
	*) usage_err "$where: unknown directive '${w[0]}' (param, event, debugfs, write, load, refuse, fallback, tenant)" ;;
	esac
	spec_lines+=("$line")
done <"$SPEC"

# The checks the guest must report as passed, in its order.
expected=("deps loaded")
for ((i = 1; i <= LOOPS; i++)); do
	expected+=("loop $i/$LOOPS insmod" "loop $i/$LOOPS /dev/kfd")
	for l in "${spec_lines[@]}"; do
		case $l in param\ * | event\ * | debugfs\ * | write\ * | tenant\ *) [ "$i" -eq 1 ] && expected+=("$l") ;; esac
	done
	expected+=("loop $i/$LOOPS rmmod")
done
for l in "${spec_lines[@]}"; do
	case $l in load | load\ * | refuse\ * | fallback\ *) expected+=("$l") ;; esac
done
[ -n "$STACK" ] && expected+=("stack unloaded")
expected+=("kernel taint clean")

# --- initramfs --------------------------------------------------------------
mkdir -p "$OUTDIR/cache"
OUTDIR=$(cd "$OUTDIR" && pwd)
CACHE=$OUTDIR/cache
exec 9>"$OUTDIR/.lock"
flock -n 9 || die "another qemu-smoke run is using $OUTDIR"

# A newc archive with /dev/console, so that init has a console from the
# start (no mknod, so no root needed).
newc_entry() { # NAME MODE(octal) RDEVMAJOR RDEVMINOR INO
	local name=$1 namesize=$((${#1} + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		"$5" "$((8#$2))" 0 0 1 0 0 0 0 "$3" "$4" "$namesize" 0
	printf '%s\0' "$name"
	head -c $(((4 - (110 + namesize) % 4) % 4)) /dev/zero
}
devnodes_cpio() {
	newc_entry dev 040755 0 0 1
	newc_entry dev/console 020600 5 1 2
	newc_entry TRAILER!!! 0 0 0 0
}
pack() { # pack DIR: newc archive of DIR (owned by root) on stdout
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet)
}

# Base part: busybox, the dependency modules (decompressed) and their
# order. Keyed on the kernel version, the module list and the files.
deps=()
# The stack's companion modules, in the order of their depends, and the
# kernel modules they and amdgpu need that are not in the stack.
stack=()
kmods=(amdgpu)
if [ -n "$STACK" ]; then
	declare -A in_stack=() stack_path=() stack_deps=()
	while read -r p; do
		# Module names as the kernel knows them: '-' reads as '_'.
		n=$(modinfo -F name "$p" 2>/dev/null | tr - _) || die "$p is not a kernel module"
		in_stack[$n]=1
		stack_path[$n]=$p
		stack_deps[$n]=$(modinfo -F depends "$p" | tr ',-' ' _')
	done < <(find "$STACK" -name '*.ko' ! -path "$(realpath "$KO")" | sort)
	stack_deps[amdgpu]=$(modinfo -F depends "$KO" | tr ',-' ' _')
	kmods=()
	for n in "${!stack_deps[@]}"; do
		for d in ${stack_deps[$n]}; do
			[ -n "${in_stack[$d]:-}" ] || kmods+=("$d")
		done
	done
	declare -A placed=()
	while [ ${#placed[@]} -lt ${#stack_path[@]} ]; do
		progress=0
		for n in $(printf '%s\n' "${!stack_path[@]}" | sort); do
			[ -z "${placed[$n]:-}" ] || continue
			ready=1
			for d in ${stack_deps[$n]}; do
				[ -z "${in_stack[$d]:-}" ] || [ -n "${placed[$d]:-}" ] || ready=0
			done
			[ "$ready" = 1 ] || continue
			stack+=("${stack_path[$n]}")
			placed[$n]=1
			progress=1
		done
		[ "$progress" = 1 ] || die "the modules under $STACK depend on each other in a cycle"
	done
fi
declare -A seen=()
for km in $(printf '%s\n' "${kmods[@]}" | sort -u); do
	depends=$(modprobe -S "$KVER" --show-depends "$km" 2>&1) ||
		die "modprobe -S $KVER --show-depends $km failed: $depends"
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		name=$(basename "$path")
		name=${name%.xz}
		name=${name%.zst}
		name=${name%.gz}
		[ "$name" = amdgpu.ko ] && continue
		[ -z "${seen[$path]:-}" ] || continue
		seen[$path]=1
		deps+=("$path")
	done <<<"$depends"
done
[ ${#deps[@]} -gt 0 ] || die "no dependency modules for amdgpu in /lib/modules/$KVER"
# kmod's insmod, not busybox's: busybox retries a failed finit_module()
# with init_module(), so every refused load would run twice (~7 s each
# under TCG), logging its errors twice. kmod is dynamic: take its libraries.
KMOD=$(command -v kmod) || die "'kmod' not found (install kmod)"
KMOD=$(realpath "$KMOD")
kmod_libs=()
while read -r lib; do
	kmod_libs+=("$lib")
done < <(ldd "$KMOD" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
[ ${#kmod_libs[@]} -gt 0 ] || die "ldd $KMOD listed no libraries"
base_key=$({
	echo "v3 $KVER"
	sha256sum "$BUSYBOX" "$KMOD"
	stat -L -c '%n %s %Y' "${kmod_libs[@]}" "${deps[@]}" ${stack[@]+"${stack[@]}"}
} | sha256sum | cut -c1-16)
BASE=$CACHE/base-$base_key.cpio
if [ ! -f "$BASE" ]; then
	echo "qemu-smoke: building base initramfs (busybox + ${#deps[@]} dependency modules${STACK:+ + ${#stack[@]} companion modules of the stack})"
	stage=$CACHE/stage-base
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,proc,sys,dev,tmp,lib/smoke-deps}
	cp "$BUSYBOX" "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	cp "$KMOD" "$stage/bin/kmod"
	# kmod picks the command from argv[0].
	mkdir -p "$stage/kmod"
	ln -s ../bin/kmod "$stage/kmod/insmod"
	ln -s ../bin/kmod "$stage/kmod/rmmod"
	for lib in "${kmod_libs[@]}"; do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
	for p in "${deps[@]}"; do
		name=$(basename "$p")
		case $name in
		*.xz) name=${name%.xz}; xz -dc "$p" >"$stage/lib/smoke-deps/$name" ;;
		*.zst) name=${name%.zst}; zstd -qdc "$p" >"$stage/lib/smoke-deps/$name" ;;
		*.gz) name=${name%.gz}; gzip -dc "$p" >"$stage/lib/smoke-deps/$name" ;;
		*) cp "$p" "$stage/lib/smoke-deps/$name" ;;
		esac
		echo "$name" >>"$stage/lib/smoke-deps/order"
	done
	for p in ${stack[@]+"${stack[@]}"}; do
		name=$(basename "$p")
		strip --strip-debug -o "$stage/lib/smoke-deps/$name" "$p" || die "strip --strip-debug $p failed"
		echo "$name" >>"$stage/lib/smoke-deps/order"
		modinfo -F name "$p" | tr - _ >>"$stage/lib/smoke-deps/stack"
	done
	rm -f "$CACHE"/base-*.cpio
	{ devnodes_cpio; pack "$stage"; } >"$BASE.tmp"
	mv "$BASE.tmp" "$BASE"
	rm -rf "$stage"
fi

# Module part: amdgpu.ko with the debug info stripped (~600 MB -> ~30 MB).
# Keyed on the file's path, size, mtime and inode.
ko_abs=$(realpath "$KO")
ko_key=$(stat -c '%n %s %.9Y %i %d' "$ko_abs" | sha256sum | cut -c1-16)
KOCPIO=$CACHE/ko-$ko_key.cpio
if [ ! -f "$KOCPIO" ]; then
	echo "qemu-smoke: stripping $KO"
	stage=$CACHE/stage-ko
	rm -rf "$stage"
	mkdir -p "$stage"
	strip --strip-debug -o "$stage/amdgpu.ko" "$ko_abs" || die "strip --strip-debug $KO failed"
	rm -f "$CACHE"/ko-*.cpio
	pack "$stage" >"$KOCPIO.tmp"
	mv "$KOCPIO.tmp" "$KOCPIO"
	rm -rf "$stage"
fi

# The tenant probe, when the spec has `tenant` lines. Keyed on the source,
# the header and the compiler.
PROBE=
if [ ${#tenant_checks[@]} -gt 0 ]; then
	command -v gcc >/dev/null || die "'gcc' not found: the spec's tenant lines need it (install gcc)"
	if [ -z "$UAPI" ]; then
		if [ -n "$STACK" ]; then
			UAPI=$STACK/include/uapi/linux/kfd_ioctl.h
		elif [[ $ko_abs == */drivers/gpu/drm/amd/amdgpu/amdgpu.ko ]]; then
			UAPI=${ko_abs%/drivers/gpu/drm/amd/amdgpu/amdgpu.ko}/include/uapi/linux/kfd_ioctl.h
		fi
		[ -f "$UAPI" ] || UAPI=$root/build/tree/include/uapi/linux/kfd_ioctl.h
	fi
	[ -f "$UAPI" ] || die "uapi header $UAPI not found: the spec's tenant lines need the patched kfd_ioctl.h (pass --uapi FILE)"
	grep -q 'define AMDKFD_IOC_TENANT_CTL' "$UAPI" ||
		die "$UAPI has no AMDKFD_IOC_TENANT_CTL (a tree without patch 0025?): pass --uapi FILE of the series"
	probe_src=$root/tests/kernel/tenant-probe.c
	probe_key=$({ echo v1; sha256sum "$probe_src" "$UAPI"; gcc --version | head -n 1; } | sha256sum | cut -c1-16)
	PROBE=$CACHE/tenant-probe-$probe_key
	if [ ! -x "$PROBE" ]; then
		echo "qemu-smoke: building the tenant probe against $UAPI"
		pinc=$CACHE/probe-include
		rm -rf "$pinc"
		mkdir -p "$pinc/linux" "$pinc/drm"
		cp "$UAPI" "$pinc/linux/kfd_ioctl.h"
		# kfd_ioctl.h includes <drm/drm.h> for nothing but the types.
		printf '#include <linux/types.h>\n#include <linux/ioctl.h>\n' >"$pinc/drm/drm.h"
		rm -f "$CACHE"/tenant-probe-*
		out=$(gcc -static -O2 -Wall -Wextra -Werror -std=gnu11 -I"$pinc" -o "$PROBE.tmp" "$probe_src" 2>&1) ||
			die "building $probe_src against $UAPI failed (number or layout differ from the series?):"$'\n'"$out"
		mv "$PROBE.tmp" "$PROBE"
	fi
	known=$("$PROBE" --list | cut -f1; echo kfdmp-sched)
	for tc in "${tenant_checks[@]}"; do
		grep -qx -- "${tc%%:*}" <<<"$known" ||
			usage_err "${tc#*:}: unknown tenant check '${tc%%:*}' (tenant-probe --list: ${known//$'\n'/ })"
	done
fi

# `tenant kfdmp-sched`: the daemon of tests/harness/sched, built
# statically with its own copy of the ABI (kfd_tenant_uapi.h).
SCHED=
if printf '%s\n' "${tenant_checks[@]}" | grep -q '^kfdmp-sched:'; then
	command -v g++ >/dev/null || die "'g++' not found: 'tenant kfdmp-sched' needs it (install g++)"
	sched_dir=$root/tests/harness/sched/src
	sched_src=("$sched_dir"/*.cpp)
	sched_key=$({ echo v1; sha256sum "${sched_src[@]}" "$sched_dir"/*.h; g++ --version | head -n 1; } | sha256sum | cut -c1-16)
	SCHED=$CACHE/kfdmp-sched-$sched_key
	if [ ! -x "$SCHED" ]; then
		echo "qemu-smoke: building kfdmp-sched (static) from $sched_dir"
		rm -f "$CACHE"/kfdmp-sched-*
		out=$(g++ -std=c++17 -O2 -static -Wall -Wextra -I"$sched_dir" -o "$SCHED.tmp" "${sched_src[@]}" 2>&1) ||
			die "building kfdmp-sched failed:"$'\n'"$out"
		mv "$SCHED.tmp" "$SCHED"
	fi
fi

# Run part: /init, the normalised spec and the settings (always rebuilt).
stage=$CACHE/stage-run
rm -rf "$stage"
mkdir -p "$stage"
install -m 0755 "$here/qemu-smoke-init.sh" "$stage/init"
printf '%s\n' "${spec_lines[@]}" >"$stage/smoke.spec"
echo "LOOPS=$LOOPS" >"$stage/smoke.env"
if [ -n "$PROBE" ]; then
	mkdir -p "$stage/bin"
	install -m 0755 "$PROBE" "$stage/bin/tenant-probe"
fi
[ -z "$SCHED" ] || install -m 0755 "$SCHED" "$stage/bin/kfdmp-sched"
pack "$stage" >"$CACHE/run.cpio"
rm -rf "$stage"

INITRD=$OUTDIR/initrd.cpio
cat "$BASE" "$KOCPIO" "$CACHE/run.cpio" >"$INITRD"

# --- boot ----------------------------------------------------------------
CONSOLE=$OUTDIR/console.log
rm -f "$CONSOLE" "$OUTDIR"/{results.txt,sysfs-kfd.txt,dmesg.txt,qemu.log}
APPEND="console=ttyS0,115200 panic=-1 loglevel=7 printk.devkmsg=on log_buf_len=4M rdinit=/init${EXTRA_APPEND:+ $EXTRA_APPEND}"
echo "qemu-smoke: booting $KERNEL ($LOOPS loops, ${#spec_lines[@]} spec lines, timeout ${TIMEOUT}s); console: $CONSOLE"
boot_start=$(date +%s)
qrc=0
# timeout(1) runs in its own process group, out of reach of a terminal's
# ^C: pass INT/TERM on so that QEMU does not outlive this script.
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 \
	-accel tcg -cpu max -smp "$SMP" -m "$MEM" \
	-nographic -nodefaults -no-reboot -monitor none \
	-serial "file:$CONSOLE" \
	-kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND" \
	</dev/null >"$OUTDIR/qemu.log" 2>&1 &
qpid=$!
trap 'kill -TERM "$qpid" 2>/dev/null; echo "qemu-smoke: interrupted" >&2; exit 130' INT TERM
wait "$qpid" || qrc=$?
trap - INT TERM
boot_secs=$(($(date +%s) - boot_start))

# --- results -----------------------------------------------------------------
[ -f "$CONSOLE" ] || die "QEMU wrote no console log (exit $qrc): $(tail -n 5 "$OUTDIR/qemu.log")"
clean=$OUTDIR/.console.txt
tr -d '\r' <"$CONSOLE" >"$clean"

# section BEGIN END: the lines between the markers
section() { awk -v b="$1" -v e="$2" '$0 == e { f = 0 } f { print } $0 == b { f = 1 }' "$clean"; }
has_marker() { grep -qx "$1" "$clean"; }
section SMOKE-SYSFS-BEGIN SMOKE-SYSFS-END >"$OUTDIR/sysfs-kfd.txt"
section SMOKE-DMESG-BEGIN SMOKE-DMESG-END >"$OUTDIR/dmesg.txt"
# The console without the two captured sections.
outside=$(awk '/^SMOKE-(SYSFS|DMESG)-BEGIN$/ { f = 1 } !f { print } /^SMOKE-(SYSFS|DMESG)-END$/ { f = 0 }' "$clean")
grep -o 'SMOKE \(PASS\|FAIL\|DONE\) .*' <<<"$outside" >"$OUTDIR/results.txt" || true

declare -A passed=()
while IFS= read -r l; do
	passed["${l#SMOKE PASS }"]=1
done < <(grep '^SMOKE PASS ' "$OUTDIR/results.txt" || true)

failures=()
while IFS= read -r l; do
	failures+=("${l#SMOKE FAIL }")
done < <(grep '^SMOKE FAIL ' "$OUTDIR/results.txt" || true)

# Expected checks with no result at all (guest died, hung, or timed out).
missing=()
for e in "${expected[@]}"; do
	[ -n "${passed[$e]:-}" ] && continue
	grep -qF "SMOKE FAIL $e: " "$OUTDIR/results.txt" && continue
	missing+=("$e")
done
if [ ${#missing[@]} -gt 0 ] && [ ${#missing[@]} -le 3 ]; then
	for e in "${missing[@]}"; do failures+=("$e: no result (guest died, hung or timed out before reporting it)"); done
elif [ ${#missing[@]} -gt 3 ]; then
	failures+=("${#missing[@]} checks never reported (guest died, hung or timed out): '${missing[0]}', '${missing[1]}', ... '${missing[-1]}'")
fi

# Host-side checks.
host_total=0
host_check() { # host_check NAME OK DETAIL
	host_total=$((host_total + 1))
	[ "$2" = 1 ] || failures+=("$1: $3")
}
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	host_check "qemu finished" 0 "timed out after ${TIMEOUT}s (see $CONSOLE)"
elif [ $qrc -ne 0 ]; then
	host_check "qemu finished" 0 "qemu exited with $qrc: $(tail -n 3 "$OUTDIR/qemu.log" | tr '\n' ' ')"
else
	host_check "qemu finished" 1
fi
if grep -q '^SMOKE DONE' "$OUTDIR/results.txt"; then host_check "SMOKE DONE" 1; else host_check "SMOKE DONE" 0 "never printed"; fi
if has_marker SMOKE-SYSFS-END; then host_check "sysfs-kfd captured" 1; else host_check "sysfs-kfd captured" 0 "markers missing"; fi
if has_marker SMOKE-DMESG-END; then host_check "dmesg captured" 1; else host_check "dmesg captured" 0 "markers missing"; fi

# Kernel log scan: the serial console (outside the captured sections) and
# the saved dmesg, without our own SMOKE lines.
BADRE='(^|[^[:alnum:]_])(BUG|WARNING|Oops)([^[:alnum:]_]|$)|Call Trace'
bad=$( { printf '%s\n' "$outside"; cat "$OUTDIR/dmesg.txt"; } | grep -v 'SMOKE ' | grep -E "$BADRE" | sort -u | head -n 20 || true)
if [ -z "$bad" ]; then
	host_check "kernel log clean" 1
else
	host_check "kernel log clean" 0 "BUG/WARNING/Oops/Call Trace in the kernel log:"$'\n        '"${bad//$'\n'/$'\n        '}"
fi

total=$((${#expected[@]} + host_total))
nfail=${#failures[@]}
t=$(elapsed)
if [ "$nfail" -eq 0 ]; then
	echo "qemu-smoke: PASS: $total/$total checks passed (${#expected[@]} in the guest, $host_total on the host)," \
		"${t}s wall (${boot_secs}s in QEMU)"
	echo "qemu-smoke: results in $OUTDIR/{results.txt,sysfs-kfd.txt,dmesg.txt,console.log}"
	exit 0
fi
echo "qemu-smoke: FAIL: $nfail failed check(s), $((${#passed[@]})) of ${#expected[@]} guest checks passed, ${t}s wall (${boot_secs}s in QEMU):" >&2
for f in "${failures[@]}"; do echo "  FAIL $f" >&2; done
echo "qemu-smoke: console log: $CONSOLE; kernel log: $OUTDIR/dmesg.txt" >&2
exit 1
