#!/usr/bin/env bash
# Run the fake-node KUnit suites (kfd_dqm, kfd_tenant: the real device
# queue manager on a fake MI300 node with a software HWS) and the library
# suites (kfd_mp_*, amdkfd_test.ko) against the rocm-6.4
# series: ROCm's amdgpu-dkms module stack (amdkcl, amdttm, amd-sched,
# amddrm_buddy, amddrm_ttm_helper, amdxcp, amdgpu, built as DKMS builds
# them) with the suite built in (CONFIG_HSA_AMD_DQM_KUNIT_TEST), loaded in
# a 5.10 guest under QEMU (TCG, 4 vCPUs): Debian's linux-source-5.10, SMP,
# PREEMPT, lockdep (PROVE_LOCKING) and KASAN
# (tests/kernel/kunit-rocm/guest.config).
#
#   scripts/kunit-rocm.sh [--filter GLOB] [--timeout SECS]
#   scripts/kunit-rocm.sh --each-patch
#
# --each-patch runs no guest: after the stack phase it compiles the suite
# (kfd_device_queue_manager.o with CONFIG_HSA_AMD_DQM_KUNIT_TEST, and
# kfd_chardev.o) at every patch of the tree from the one that adds the fake
# node to its HEAD, in a copy of the stack (build/kunit-rocm-stack-each), and
# fails on the first patch that does not compile: the per-patch compile of
# `scripts/series.sh check` builds for the box's kernel headers, which have
# no KUnit, so it cannot see the suite.
#
# The suite uses KUnit of Linux 6.12 (parameters, actions, static stubs,
# kunit devices, user memory, suites in module sections). The guest kernel
# is a test kernel: its lib/kunit and include/kunit are replaced by those
# of Linux 6.12 (from build/tree's base commit, else from $LINUX_SRC) at
# build time, with tests/kernel/kunit-rocm/kunit-6.12-on-5.10.patch on top
# (what 5.10 lacks: module sections, headers, TAINT_TEST, ...).
#
# Phases, each cached under build/kunit-rocm-* and redone only when its
# inputs change: source (apt-get download linux-source-5.10 from the
# bullseye suite of this machine's Debian archive), kernel (make -j$JOBS),
# stack (the DKMS build of $TREE, default build/tree-rocm prepared by
# scripts/tree.sh apply; KUNIT_ROCM_TREE=DIR builds a worktree as it is),
# initramfs, run. Fails on a failed or crashed case, on no case run, on a
# suite that did not end, or on a lockdep or KASAN report. Prints the
# pass counts per suite and the time of each phase; the guest's console
# is build/kunit-rocm-run/console.log.
#
# KUNIT_ROCM_PARSE=1 only reads the last run's console again.
# Environment: JOBS (default 2), KUNIT_ROCM_STACK=DIR (run a stack built
# there before, as it is), KUNIT_ROCM_QEMU_ARGS (extra QEMU
# arguments, e.g. "-accel tcg,thread=single"), KUNIT_ROCM_APPEND (extra
# kernel command line, e.g. amdgpu.kfd_dqm_stress_seeds=N).
set -euo pipefail
export KSRC=${KSRC:-$(cd "$(dirname "$0")/.." && pwd)/../shared/vendor/amdgpu-dkms-6.12.12-2164967.tar.xz}
JOBS=${JOBS:-2}
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

FILTER=
EACH=0
TIMEOUT=3600
while [ $# -gt 0 ]; do
	case $1 in
	--filter) FILTER=$2; shift 2 ;;
	--filter=*) FILTER=${1#*=}; shift ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	--each-patch) EACH=1; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (--filter GLOB, --timeout SECS)" ;;
	esac
done
[ "$SERIES" = rocm-6.4 ] || die "KSRC=$KSRC is not an amdgpu-dkms source"

SRCPKG=linux-source-5.10
SRCDIR=$BUILD/kunit-rocm-src
LINUX=$BUILD/kunit-rocm-linux
STACK=$BUILD/kunit-rocm-stack
RUN=$BUILD/kunit-rocm-run
CFGDIR=$ROOT/tests/kernel/kunit-rocm
KPATCH=$CFGDIR/kunit-6.12-on-5.10.patch
LINUX_SRC=${LINUX_SRC:-/usr/src/linux-source-6.12.tar.xz}
for tool in qemu-system-x86_64 busybox cpio gzip strip modinfo timeout apt-get dpkg; do
	command -v "$tool" >/dev/null || die "'$tool' not found (scripts/setup-deps.sh)"
done

t0=$(date +%s)
if [ "${KUNIT_ROCM_PARSE:-0}" = 1 ]; then
	timings=("(KUNIT_ROCM_PARSE: the last run's console)")
	rc=0
else
phase_start=$t0
timings=()
phase_end() { # NAME
	local now
	now=$(date +%s)
	timings+=("$1 $((now - phase_start)) s")
	note "phase $1: $((now - phase_start)) s"
	phase_start=$now
}

# --- source: Debian's linux-source-5.10 --------------------------------------
# From this machine's apt lists when they know the bullseye suite
# (scripts/setup-deps.sh adds it), else from a private list of bullseye on
# the archive this machine's sources name (no host name in the project).
newest_deb() { find "$SRCDIR" -maxdepth 1 -name "${SRCPKG}_*_all.deb" 2>/dev/null | sort -V | tail -n 1; }
deb=$(newest_deb)
if [ -z "$deb" ]; then
	mkdir -p "$SRCDIR"
	if apt-cache show "$SRCPKG" >/dev/null 2>&1; then
		(cd "$SRCDIR" && apt-get download "$SRCPKG")
	else
		# shellcheck source-path=SCRIPTDIR source=../tests/testbox/apt-archive.sh
		. "$ROOT/tests/testbox/apt-archive.sh"
		uri=$(archive_uri | grep -v security | head -n 1)
		[ -n "$uri" ] || die "no Debian archive in this machine's apt sources to take $SRCPKG from"
		A=$SRCDIR/apt
		mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
		printf 'Types: deb\nURIs: %s\nSuites: bullseye bullseye-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			"$uri" >"$A/bullseye.sources"
		opts=(-o "Dir::State::Lists=$A/lists" -o "Dir::Etc::SourceList=$A/bullseye.sources"
			-o Dir::Etc::SourceParts=/dev/null -o "Dir::Cache=$A/cache")
		apt-get "${opts[@]}" update
		(cd "$SRCDIR" && apt-get "${opts[@]}" download "$SRCPKG")
	fi
	deb=$(newest_deb)
	[ -n "$deb" ] || die "apt-get download $SRCPKG left no package in $SRCDIR"
fi
src_key=$( { basename "$deb"; sha256sum "$KPATCH" "$CFGDIR/guest.config";
	git -C "$BUILD/tree" rev-parse "$BASE_TAG" 2>/dev/null || stat -c '%n %s' "$LINUX_SRC"; } | sha256sum | cut -c1-16)
if [ "$(cat "$LINUX/.kunit-rocm-src" 2>/dev/null)" != "$src_key" ]; then
	note "unpacking $(basename "$deb") into $LINUX, KUnit of Linux 6.12 in it"
	rm -rf "$LINUX" "$SRCDIR/x"
	mkdir -p "$SRCDIR/x"
	dpkg -x "$deb" "$SRCDIR/x"
	tar -xf "$SRCDIR"/x/usr/src/$SRCPKG.tar.xz -C "$SRCDIR/x"
	mv "$SRCDIR/x/$SRCPKG" "$LINUX"
	rm -rf "$SRCDIR/x"
	# KUnit of Linux 6.12 in place of 5.10's (never kept in this repository)
	rm -rf "$LINUX/lib/kunit" "$LINUX/include/kunit"
	if git -C "$BUILD/tree" rev-parse -q --verify "$BASE_TAG" >/dev/null 2>&1; then
		git -C "$BUILD/tree" archive "$BASE_TAG" lib/kunit include/kunit | tar -x -C "$LINUX"
	else
		[ -f "$LINUX_SRC" ] || die "no build/tree and no $LINUX_SRC to take KUnit of Linux 6.12 from"
		tar -xf "$LINUX_SRC" -C "$LINUX" --strip-components=1 --wildcards '*/lib/kunit/*' '*/include/kunit/*'
	fi
	(cd "$LINUX" && patch -p1 -s --no-backup-if-mismatch <"$KPATCH") || die "$KPATCH does not apply"
	printf '%s\n' "$src_key" >"$LINUX/.kunit-rocm-src"
fi
phase_end source

# --- kernel ------------------------------------------------------------------
cfg_key=$(sha256sum "$CFGDIR/guest.config" | cut -c1-16)
if [ "$(cat "$LINUX/.kunit-rocm-cfg" 2>/dev/null)" != "$cfg_key" ] || [ ! -f "$LINUX/.config" ]; then
	(cd "$LINUX" && make -s allnoconfig >/dev/null &&
		scripts/kconfig/merge_config.sh -m .config "$CFGDIR/guest.config" >/dev/null &&
		make -s olddefconfig) 2>&1 | grep -v 'override: .* changes choice state' || true
	printf '%s\n' "$cfg_key" >"$LINUX/.kunit-rocm-cfg"
fi
for opt in CONFIG_KUNIT CONFIG_SMP CONFIG_PREEMPT CONFIG_PROVE_LOCKING CONFIG_KASAN CONFIG_MODULES CONFIG_DRM CONFIG_MMU_NOTIFIER; do
	grep -q "^$opt=y" "$LINUX/.config" || die "$opt is not set in $LINUX/.config (tests/kernel/kunit-rocm/guest.config)"
done
ncpus=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$LINUX/.config")
[ "${ncpus:-1}" -ge 4 ] || die "CONFIG_NR_CPUS=${ncpus:-1}: the guest must have 4 CPUs"
note "building the 5.10 guest kernel in $LINUX (log: $BUILD/kunit-rocm-kernel.log)"
(cd "$LINUX" && make -j"$JOBS" bzImage modules) >"$BUILD/kunit-rocm-kernel.log" 2>&1 || {
	grep -E 'error|Error' "$BUILD/kunit-rocm-kernel.log" | head -n 30
	die "the guest kernel did not build (log: $BUILD/kunit-rocm-kernel.log)"
}
krel=$(cat "$LINUX/include/config/kernel.release")
phase_end kernel

# --- stack: amdgpu-dkms with the suite, against the guest kernel -------------
# The tree's configure reads /lib/modules/$krel/build: a link to the guest
# kernel (a release no package installs).
mkdir -p "/lib/modules/$krel"
[ "$(readlink "/lib/modules/$krel/build" 2>/dev/null)" = "$LINUX" ] || ln -sfn "$LINUX" "/lib/modules/$krel/build"
if [ -n "${KUNIT_ROCM_TREE:-}" ]; then
	TREE=$(cd "$KUNIT_ROCM_TREE" && pwd)
	note "building $TREE as it is (KUNIT_ROCM_TREE)"
else
	"$ROOT/scripts/tree.sh" apply
fi
obj=$STACK
[ -z "${KUNIT_ROCM_STACK:-}" ] || obj=$(cd "$KUNIT_ROCM_STACK" && pwd)
stamp=$(printf '%s %s %s\n' "$(git -C "$TREE" rev-parse "HEAD^{tree}")" \
	"$(git -C "$TREE" diff HEAD | sha256sum | cut -c1-16)" \
	"$krel $(sha256sum "$LINUX/vmlinux" | cut -c1-16) v1")
if [ -n "${KUNIT_ROCM_STACK:-}" ]; then
	note "using the stack built in $obj as it is (KUNIT_ROCM_STACK)"
elif [ "$(cat "$obj/.kfdmp-stamp" 2>/dev/null)" != "$stamp" ] || [ ! -f "$obj/amd/amdgpu/amdgpu.ko" ]; then
	note "building the amdgpu-dkms stack of $TREE for $krel with the suite (log: $obj.log)"
	rm -rf "$obj"
	mkdir -p "$obj"
	rsync -a --exclude=.git "$TREE"/ "$obj"/
	DC=0 supply_register_headers "$obj"
	display_off "$obj"
	# What ROCm 6.4's copy does not build on this guest, fixed in the
	# build copy only (docs/tests.md): amd-sched calls
	# alloc_ordered_workqueue_lockdep_map() (6.12) under CONFIG_LOCKDEP
	# with no compat; amdkcl's kcl_dma-resv.c has a subsys_initcall()
	# under CONFIG_LOCKDEP, which a module cannot have; kcl's
	# pm_runtime_get_if_active() wrapper exists only with CONFIG_PM.
	if ! grep -q alloc_ordered_workqueue_lockdep_map "$LINUX/include/linux/workqueue.h"; then
		sed -i '1i #define alloc_ordered_workqueue_lockdep_map(fmt, flags, map) alloc_ordered_workqueue(fmt, flags) /* kunit-rocm: before 6.12 */' \
			"$obj/scheduler/sched_main.c"
	fi
	sed -i 's|^#if IS_ENABLED(CONFIG_LOCKDEP)$|#if 0 /* kunit-rocm: no initcall in a module */|' \
		"$obj/amd/amdkcl/kcl_dma-resv.c"
	if ! grep -q '^CONFIG_PM=y' "$LINUX/.config"; then
		perl -0pi -e 's/#ifdef CONFIG_PM\n#if defined\(HAVE_PM_RUNTIME_GET_IF_ACTIVE_2ARGS\)/#if 1 \/* kunit-rocm: a !CONFIG_PM guest *\/\n#if 1/' \
			"$obj/include/kcl/kcl_pm_runtime.h"
	fi
	# As DKMS builds, DC=0 and without debug information (lib.sh); the
	# suite's switch reaches every file through KCFLAGS (no Kconfig here).
	if ! (cd "$obj" && export KCFLAGS="-g0 -DCONFIG_HSA_AMD_DQM_KUNIT_TEST=1" &&
		SRCARCH=x86 make KERNELVER="$krel" kernel_build_dir="$LINUX" \
		num_cpu_cores="$JOBS") >"$obj.log" 2>&1; then
		grep -E 'error|Error' "$obj.log" | head -n 30
		die "the amdgpu-dkms build failed; full log: $obj.log"
	fi
	printf '%s\n' "$stamp" >"$obj/.kfdmp-stamp"
fi
# The library suites (kfd_mp_*: amdkfd/tests/Makefile), a module of their
# own that needs nothing of amdgpu.
make -C "$LINUX" M="$obj/amd/amdkfd/tests" CONFIG_HSA_AMD_KUNIT_TEST=m \
	KCFLAGS=-g0 -j"$JOBS" modules >"$obj-tests.log" 2>&1 ||
	die "amd/amdkfd/tests (amdkfd_test.ko) did not build; full log: $obj-tests.log"
phase_end stack

# --- each patch: the suite compiles from the fake node's patch on ----------
if [ "$EACH" = 1 ]; then
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "--each-patch compiles the commits of $TREE: commit or stash its changes first"
	first=$(git -C "$TREE" log --reverse --format=%H --diff-filter=A "$BASE_TAG..HEAD" \
		-- amd/amdkfd/tests/kfd_fake_node.c | head -n 1)
	[ -n "$first" ] || die "no patch of $TREE after $BASE_TAG adds amd/amdkfd/tests/kfd_fake_node.c"
	each=$obj-each
	rm -rf "$each"
	cp -a "$obj" "$each"
	cur=$(git -C "$TREE" rev-parse HEAD)
	for c in $(git -C "$TREE" rev-list --reverse "$first^..HEAD"); do
		n=$(git -C "$TREE" rev-list --count "$BASE_TAG..$c")
		# the copy holds $cur's files: make it $c's
		git -C "$TREE" diff --name-status --no-renames "$cur" "$c" | while read -r st f; do
			case $st in
			D) rm -f "$each/$f" ;;
			*) mkdir -p "$(dirname "$each/$f")"; git -C "$TREE" show "$c:$f" >"$each/$f" ;;
			esac
		done
		cur=$c
		rm -f "$each"/amd/amdkfd/kfd_device_queue_manager.o "$each"/amd/amdkfd/kfd_chardev.o
		if ! (cd "$each" && KCFLAGS="-g0 -DCONFIG_HSA_AMD_DQM_KUNIT_TEST=1" \
			make -s -C "$LINUX" M="$each" TTM_NAME=amdttm SCHED_NAME=amd-sched \
			amd/amdgpu/../amdkfd/kfd_device_queue_manager.o \
			amd/amdgpu/../amdkfd/kfd_chardev.o) >"$each.log" 2>&1; then
			grep -E 'error' "$each.log" | head -n 20 >&2
			die "patch $n ($(git -C "$TREE" log -1 --format='%h %s' "$c")) does not compile the suite; full log: $each.log"
		fi
		note "ok: patch $n compiles the suite ($(git -C "$TREE" log -1 --format='%h %s' "$c"))"
	done
	phase_end each-patch
	note "passed: the suite compiles at every patch from $(git -C "$TREE" rev-list --count "$BASE_TAG..$first") to $n"
	exit 0
fi

# --- initramfs ---------------------------------------------------------------
mkdir -p "$RUN"
stage=$RUN/stage
rm -rf "$stage"
mkdir -p "$stage"/{bin,proc,sys,dev,tmp,lib/stack}
cp "$(command -v busybox)" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
# The stack's modules in the order of their depends.
declare -A mpath=() mdeps=()
while read -r ko; do
	n=$(modinfo -F name "$ko" | tr - _)
	mpath[$n]=$ko
	mdeps[$n]=$(modinfo -F depends "$ko" | tr ',-' ' _')
done < <(find "$obj" -name '*.ko' -not -path '*/.tmp*')
[ -n "${mpath[amdgpu]:-}" ] || die "no amdgpu.ko in $obj"
order=()
declare -A placed=()
while [ ${#placed[@]} -lt ${#mpath[@]} ]; do
	progress=0
	for n in "${!mpath[@]}"; do
		[ -z "${placed[$n]:-}" ] || continue
		ok=1
		for d in ${mdeps[$n]}; do
			[ -z "${mpath[$d]:-}" ] || [ -n "${placed[$d]:-}" ] || ok=0
		done
		[ "$ok" = 1 ] || continue
		placed[$n]=1
		order+=("$n")
		progress=1
	done
	[ "$progress" = 1 ] || die "the stack's modules depend on each other in a cycle"
done
for n in "${order[@]}"; do
	strip --strip-debug -o "$stage/lib/stack/$n.ko" "${mpath[$n]}"
	echo "$n" >>"$stage/lib/stack/order"
done
cat >"$stage/init" <<'EOF'
#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
echo "KUNIT-ROCM: loading the stack"
for m in $(cat /lib/stack/order); do
	# amdgpu's suites run while it loads (KUnit's module notifier)
	insmod /lib/stack/$m.ko $(cat /proc/cmdline | tr ' ' '\n' | sed -n "s/^$m\.//p") ||
		echo "KUNIT-ROCM: insmod $m failed"
done
echo "KUNIT-ROCM: done"
poweroff -f
EOF
chmod +x "$stage/init"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$RUN/initrd.gz"
phase_end initramfs

# --- run ---------------------------------------------------------------------
append="console=ttyS0 panic=-1 oops=panic panic_on_warn=0 kunit.enable=1 loglevel=7 ${KUNIT_ROCM_APPEND:-}"
[ -z "$FILTER" ] || append="$append kunit.filter_glob=$FILTER"
note "booting $krel on 4 vCPUs (TCG) with the stack: ${order[*]}"
rc=0
# shellcheck disable=SC2086
timeout "$TIMEOUT" qemu-system-x86_64 -nodefaults -nographic -no-reboot \
	-machine q35 -cpu max -smp 4 -m 3072 -serial "file:$RUN/console.log" \
	-kernel "$LINUX/arch/x86/boot/bzImage" -initrd "$RUN/initrd.gz" \
	-append "$append" ${KUNIT_ROCM_QEMU_ARGS:-} >"$RUN/qemu.log" 2>&1 || rc=$?
phase_end run
fi

# --- result ------------------------------------------------------------------
log=$RUN/console.log
ktap=$RUN/ktap.log
# KTAP: the suites' lines, without the console's timestamps
sed 's/^\[ *[0-9.]*\] //' "$log" | tr -d '\r' | awk '
	/^KTAP version|^TAP version|^ *# Subtest:|^ *1\.\.[0-9]|^ *(not )?ok [0-9]|^ *# [a-z0-9_]+: (pass|fail|skip)|^ *# Totals/ { print }' >"$ktap"
echo "--- per suite (pass/fail/skip/total) ---"
grep -E '^# [a-z0-9_]+: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+ total:[0-9]+$' "$ktap" | sed 's/^# //' || true
awk '/^# [a-z0-9_]+: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+ total:[0-9]+$/ {
	split($3, p, ":"); split($4, f, ":"); split($5, k, ":"); split($6, t, ":")
	P += p[2]; F += f[2]; K += k[2]; T += t[2] }
	END { printf "all suites: pass:%d fail:%d skip:%d total:%d (a parameterised case counts once)\n", P, F, K, T }' "$ktap"
echo "--- time per phase ---"
printf '%s\n' "${timings[@]}" "total $(( $(date +%s) - t0 )) s"
[ "$rc" = 0 ] || die "QEMU ended with $rc$([ "$rc" = 124 ] && echo " (timeout ${TIMEOUT}s)") (console: $log)"
grep -q 'KUNIT-ROCM: done' "$log" || die "the guest did not finish (console: $log)"
! grep -q 'KUNIT-ROCM: insmod .* failed' "$log" || die "$(grep -m1 'KUNIT-ROCM: insmod' "$log") (console: $log)"
suites=$(grep -cE '^# [a-z0-9_]+: pass:' "$ktap" || true)
[ "${suites:-0}" -gt 0 ] || die "no suite ran (console: $log)"
started=$(grep -cE '^# Subtest: ' "$ktap" || true)
[ "$started" -le "$suites" ] || die "$((started - suites)) suite(s) started and did not end (a crash?) (console: $log)"
if grep -qE '^ *# [a-z0-9_]+: pass:[0-9]+ fail:[1-9]' "$ktap" || grep -qE '^ *not ok [0-9]+ ' "$ktap"; then
	grep -E '^ *not ok ' "$ktap" | head -n 40
	die "KUnit: a case failed (console: $log)"
fi
grep -qE '^ *# [a-z0-9_]+: pass:[1-9]' "$ktap" || die "no case passed (console: $log)"
if grep -qE 'BUG: KASAN|WARNING: possible circular|WARNING: .*lock|BUG: sleeping function|BUG: workqueue lockup|Kernel panic|general protection fault|BUG: unable to handle' "$log"; then
	grep -m 5 -E 'BUG: KASAN|WARNING: |BUG: |Kernel panic|general protection' "$log"
	die "lockdep, KASAN or an oops reported a problem (console: $log)"
fi
note "passed: $suites suites (KTAP: $ktap)"
