#!/usr/bin/env bash
# The box path as the box's owner meets it (issue 15), on stubs: an EL8
# derivative without dpkg/apt, a normal user with sudo, dkms and rpm that
# know which amdgpu tree is installed and whether it was edited.
#
#   root       make testbox as a normal user is refused before anything is
#              built, with the sudo line to type
#   tree       without KSRC the tree dkms status names installed for the
#              running kernel (dkms 3.x "amdgpu/VER, KVER, ARCH: installed"
#              and 2.x "amdgpu, VER, KVER, ARCH: installed"), never a
#              sibling picked by name (..._preempt)
#   pristine   a tree that rpm -V reports modified is refused naming its
#              files; --pristine SRC builds from the pristine copy;
#              --accept-local-edits builds on the edits with the port report
#   preflight  make check-box on an EL host: every tool with its floor, the
#              dnf/yum line for what is missing (rsync here)
#   users      a process in a container holding /dev/kfd is named (/proc)
#   secureboot Secure Boot / lockdown refuses the run, saying how to sign
#   no-debian  make modules KSRC=<tree> on a host without dpkg runs the
#              preflight, never scripts/setup-deps.sh
# No root, no module is loaded, nothing is installed.
# shellcheck disable=SC2015,SC2016
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
scratch box-path

export KVER=5.10.134-19.1.al8.x86_64 MOCK=$tmp/box
export KFDMP_USR_SRC=$MOCK/usr/src KFDMP_KFD_SYSFS=$MOCK/sys/class/kfd/kfd KFDMP_MOD_SYSFS=$MOCK/sys/module/amdgpu
export KFDMP_TESTBOX_STATE=$MOCK/run/kfdmp-testbox KDIR=$MOCK/kdir
export KFDMP_OS_RELEASE=$MOCK/os-release
mkdir -p "$tmp/bin" "$KDIR" "$MOCK/run"
touch "$KDIR/Makefile"
cat >"$KFDMP_OS_RELEASE" <<'OS'
NAME="Alibaba Cloud Linux"
VERSION="3 (Soaring Falcon)"
ID="alinux"
ID_LIKE="rhel fedora centos anolis"
VERSION_ID="3"
PRETTY_NAME="Alibaba Cloud Linux 3 (Soaring Falcon)"
OS
reg=$KFDMP_USR_SRC/amdgpu-6.12.12-2194681.el8
for t in amdgpu-6.12.12-2194681.el8 amdgpu-6.12.12-2194681.el8_preempt amdgpu-debug-6.12.12-2194681.el8; do
	mkdir -p "$KFDMP_USR_SRC/$t/amd/dkms" "$KFDMP_USR_SRC/$t/amd/amdkfd"
	printf 'PACKAGE_NAME="amdgpu"\nPACKAGE_VERSION="%s"\n' "${t#amdgpu-}" >"$KFDMP_USR_SRC/$t/dkms.conf"
done
stub() { printf '#!/usr/bin/env bash\nset -eu\n%s\n' "$2" >"$tmp/bin/$1"; chmod +x "$tmp/bin/$1"; }
stub id '[ "${1:-}" = -u ] && echo "${MOCK_UID:-0}" || /usr/bin/id "$@"'
stub uname '[ "${1:-}" = -r ] && echo "$KVER" || /bin/uname "$@"'
stub dkms '[ "${1:-}" = status ] || exit 0
if [ "${MOCK_DKMS_FMT:-3}" = 3 ]; then echo "amdgpu/6.12.12-2194681.el8, $KVER, x86_64: installed"
else echo "amdgpu, 6.12.12-2194681.el8, $KVER, x86_64: installed"; fi'
# rpm: the registered tree belongs to amdgpu-dkms; -V reports the files
# listed in $MOCK/modified (rpm -V format: flags, attribute, path).
stub rpm 'case $1 in
-qf) case $2 in "$KFDMP_USR_SRC"/amdgpu-6.12.12-2194681.el8/*) echo amdgpu-dkms-6.12.12-2194681.el8.noarch ;; *) echo "file $2 is not owned by any package"; exit 1 ;; esac ;;
-V) [ ! -f "$MOCK/modified" ] || while read -r f; do printf "S.5....T.    %s\n" "$KFDMP_USR_SRC/amdgpu-6.12.12-2194681.el8/$f"; done <"$MOCK/modified"; [ ! -f "$MOCK/modified" ] ;;
esac'
# make: the inner make modules (testbox.sh's build step) is logged and
# refused; the outer make is /usr/bin/make by its path.
stub make 'echo "make $*" >>"$MOCK/make.log"; exit 1'
export PATH=$tmp/bin:$PATH
gmake=$(PATH=${PATH#*:} command -v make)

# --- root ----------------------------------------------------------------------
rc=0; out=$(MOCK_UID=1000 "$gmake" -s -C "$root" testbox 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -q 'needs root; nothing was built or changed. Run: sudo make testbox' <<<"$out" && [ ! -e "$MOCK/make.log" ] &&
	ok "root: a normal user's make testbox is refused before building: $(grep -o 'Run: .*' <<<"$out")" ||
	{ printf '%s\n' "$out" | tail -n 15; bad "root: exit $rc; inner make called: $(cat "$MOCK/make.log" 2>/dev/null || echo no)"; }
rc=0; out=$(MOCK_UID=1000 "$gmake" -s -C "$root" testbox-tenant TENANT_RATE=30 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -q 'needs root; nothing was built or changed. Run: sudo make testbox-tenant TENANT_RATE=30$' <<<"$out" && [ ! -e "$MOCK/make.log" ] &&
	ok "root: a normal user's make testbox-tenant is refused the same way: $(grep -o 'Run: .*' <<<"$out")" ||
	{ printf '%s\n' "$out" | tail -n 15; bad "root: testbox-tenant: exit $rc"; }

# --- tree ------------------------------------------------------------------------
for fmt in 3 2; do
	rc=0; out=$(MOCK_DKMS_FMT=$fmt KFDMP_PREFLIGHT_DONE=1 "$root/scripts/testbox.sh" check --phase driver --no-trace 2>&1) || rc=$?
	grep -qE "source +ok +builds from $reg \(dkms status: amdgpu 6.12.12-2194681.el8 installed for $KVER\)" <<<"$out" &&
		ok "tree: dkms $fmt.x status format: the registered tree, not a sibling by name" ||
		{ printf '%s\n' "$out" | grep -E 'source|tree|kernel'; bad "tree: dkms $fmt.x: wrong or no tree"; }
done

# --- pristine ----------------------------------------------------------------------
# The tree, its state and the users of amdgpu matter to phase 2 (the
# driver arms: a build and a load); phase 1 builds nothing.
tbc() { KFDMP_PREFLIGHT_DONE=1 "$root/scripts/testbox.sh" check --phase driver --no-trace "$@" 2>&1 || true; }
out=$(tbc)
grep -qE "tree +ok +$reg .*pristine \(rpm -V amdgpu-dkms-6.12.12-2194681.el8.noarch\)" <<<"$out" &&
	ok "pristine: an unmodified tree passes rpm -V of its package" || { printf '%s\n' "$out" | grep -E '^ +tree'; bad "pristine: unmodified tree"; }
printf '%s\n' amd/amdkfd/kfd_device_queue_manager.c amd/amdgpu/amdgpu_amdkfd.c >"$MOCK/modified"
out=$(tbc)
grep -qE "tree +fail +$reg is modified: 2 files differ from amdgpu-dkms-6.12.12-2194681.el8.noarch \(rpm -V .*\): amd/amdgpu/amdgpu_amdkfd.c amd/amdkfd/kfd_device_queue_manager.c\. Give --pristine" <<<"$out" &&
	ok "pristine: a modified tree is refused, file by file" || { printf '%s\n' "$out" | grep -E '^ +tree'; bad "pristine: modified tree not refused"; }
mkdir -p "$tmp/pristine"
out=$(tbc --pristine "$tmp/pristine")
grep -qE "tree +ok +$reg is modified .*building from the pristine source $tmp/pristine" <<<"$out" &&
	grep -qE "source +ok +builds from $tmp/pristine" <<<"$out" &&
	ok "pristine: --pristine SRC builds from SRC" || { printf '%s\n' "$out" | grep -E '^ +(tree|source)'; bad "pristine: --pristine"; }
out=$(ACCEPT_LOCAL_EDITS=1 "$root/scripts/testbox.sh" --dry-run --phase driver --no-trace --configs stock --harness-dir "$tmp" --out "$tmp/dry" 2>&1 || true)
grep -qE "tree +warn +$reg is modified .*--accept-local-edits" <<<"$out" && grep -q "would run: scripts/port-series.sh --keep-going .* $reg" <<<"$out" &&
	grep -q '^tree_state=modified (local edits accepted)$' "$tmp/dry/run.env" && grep -q '^tree_package=amdgpu-dkms' "$tmp/dry/run.env" &&
	ok "pristine: --accept-local-edits builds on the edits, runs the port report, run.env records tree, package and state" ||
	{ printf '%s\n' "$out" | grep -E 'tree|port'; cat "$tmp/dry/run.env" 2>/dev/null; bad "pristine: --accept-local-edits"; }
rm "$MOCK/modified"

# --- users and Secure Boot ------------------------------------------------------------
# amdgpu loaded; a process in a Docker container holds /dev/kfd open (only
# /proc names it); Secure Boot on in the EFI variable.
export KFDMP_KFD_DEV=$MOCK/dev/kfd KFDMP_PROC=$MOCK/proc KFDMP_EFIVARS=$MOCK/efivars
export KFDMP_LOCKDOWN=$MOCK/lockdown KFDMP_SIG_ENFORCE=$MOCK/sig_enforce
mkdir -p "$KFDMP_MOD_SYSFS/parameters" "$KFDMP_MOD_SYSFS/holders" "$MOCK/dev" "$KFDMP_PROC/4321/fd" "$KFDMP_PROC/99/fd" "$KFDMP_EFIVARS"
echo 0 >"$KFDMP_MOD_SYSFS/refcnt"; touch "$KFDMP_KFD_DEV"
ln -s "$KFDMP_KFD_DEV" "$KFDMP_PROC/4321/fd/7"; ln -s /dev/null "$KFDMP_PROC/99/fd/0"
echo python3 >"$KFDMP_PROC/4321/comm"; echo bash >"$KFDMP_PROC/99/comm"
echo "0::/system.slice/docker-0123456789abcdef0123456789abcdef.scope" >"$KFDMP_PROC/4321/cgroup"
printf '\x06\x00\x00\x00\x01' >"$KFDMP_EFIVARS/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
echo "none [integrity] confidentiality" >"$KFDMP_LOCKDOWN"
out=$(tbc)
grep -qE 'amdgpu-users +fail +amdgpu is in use: .*open by \[python3\(4321, container docker-0123456789ab\)' <<<"$out" &&
	ok "users: a container's process holding /dev/kfd is named, from /proc" || { printf '%s\n' "$out" | grep users || true; bad "users: not named"; }
grep -qE 'secureboot +fail +Secure Boot is enabled;kernel lockdown=integrity: the kernel refuses our unsigned modules\. Sign each \.ko' <<<"$out" &&
	ok "secure boot: refused before anything is loaded, saying how to sign" || { printf '%s\n' "$out" | grep -i secure || true; bad "secure boot: not checked"; }
rm -rf "$KFDMP_MOD_SYSFS" "$KFDMP_EFIVARS" "$KFDMP_LOCKDOWN"

# --- preflight ----------------------------------------------------------------------
# A PATH with everything of this machine but rsync, dpkg and apt.
mkdir -p "$tmp/sys"
for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
	for f in "$d"/*; do
		n=${f##*/}
		case $n in rsync|dpkg*|apt*) continue ;; esac
		[ -e "$tmp/sys/$n" ] || ln -s "$f" "$tmp/sys/$n"
	done
done
rc=0; out=$(PATH=$tmp/bin:$tmp/sys "$gmake" -s -C "$root" check-box 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -qE '^ +rsync +MISSING +missing: copies the DKMS tree; install: sudo (dnf|yum) install -y rsync' <<<"$out" &&
	grep -qE '^ +git +ok +[0-9.]+ \(>= 2.27\)' <<<"$out" && grep -q 'family: el' <<<"$out" &&
	ok "preflight: make check-box on EL names rsync with the dnf/yum line, floors stated" || { printf '%s\n' "$out"; bad "preflight: exit $rc"; }

# --- no-debian ------------------------------------------------------------------------
rc=0; out=$(PATH=$tmp/bin:$tmp/sys KSRC=$reg "$gmake" -s -C "$root" modules KSRC="$reg" KVER="$KVER" BUILD="$tmp/build" 2>&1) || rc=$?
! grep -q 'setup-deps' <<<"$out" && grep -q 'check-box: .*family: el' <<<"$out" && grep -q 'the preflight failed' <<<"$out" &&
	ok "no-debian: make modules KSRC=<tree> runs the preflight, not setup-deps, and stops on the missing rsync" ||
	{ printf '%s\n' "$out" | tail -n 20; bad "no-debian: exit $rc"; }

verdict "box path test"
