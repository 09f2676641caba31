#!/usr/bin/env bash
# Preflight of the box path (make check-box; run first by make modules with
# an amdgpu-dkms KSRC or on any host that is not Debian, and by make
# testbox): read-only, installs nothing. Lists every tool the build and the
# run need with its version floor and, for each one missing or too old, the
# install line for this host's family (dnf/yum on Enterprise Linux, apt-get
# on Debian/Ubuntu).
#
#   scripts/check-box.sh [modules|testbox|host]   (default testbox: both lists;
#                                                  host: phase 1 of make testbox,
#                                                  which builds no module: the run's
#                                                  tools without the kernel build's)
#
# Exit 0 when every required tool is there; 1 otherwise (optional ones only
# warn). Environment: KVER (default uname -r), KDIR (default
# /lib/modules/$KVER/build); KFDMP_OS_RELEASE (default /etc/os-release)
# for the tests.
set -euo pipefail
what=${1:-testbox}
case $what in modules|testbox|host) ;; *) echo "usage: $0 [modules|testbox|host]" >&2; exit 2 ;; esac
KVER=${KVER:-$(uname -r)}
KDIR=${KDIR:-/lib/modules/$KVER/build}
OS_RELEASE=${KFDMP_OS_RELEASE:-/etc/os-release}

# The host's family, from os-release's ID and ID_LIKE.
family=unknown
os_name=unknown
if [ -r "$OS_RELEASE" ]; then
	# shellcheck disable=SC1090 # the host's os-release
	os_name=$(. "$OS_RELEASE" && echo "${PRETTY_NAME:-${NAME:-?} ${VERSION_ID:-}}")
	# shellcheck disable=SC1090
	ids=" $(. "$OS_RELEASE" && echo "${ID:-} ${ID_LIKE:-}") "
	case $ids in
	*" rhel "*|*" centos "*|*" fedora "*|*" alinux "*|*" anolis "*|*" rocky "*|*" almalinux "*|*" ol "*) family=el ;;
	*" debian "*|*" ubuntu "*) family=debian ;;
	*" suse "*|*" sles "*|*" opensuse "*) family=suse ;;
	esac
fi
case $family in
el) if command -v dnf >/dev/null; then inst="sudo dnf install -y"; else inst="sudo yum install -y"; fi ;;
debian) inst="sudo apt-get install -y" ;;
suse) inst="sudo zypper install -y" ;;
*) inst="install with the system's package manager:" ;;
esac

# pkg TOOL: the package that provides TOOL on this family.
pkg() {
	case $family:$1 in
	el:g++) echo gcc-c++ ;;
	el:xz) echo xz ;;
	el:libelf) echo elfutils-libelf-devel ;;
	el:flock) echo util-linux ;;
	el:modinfo|el:insmod) echo kmod ;;
	el:awk) echo gawk ;;
	el:find) echo findutils ;;
	el:headers) echo "kernel-devel-$KVER" ;;
	el:mokutil) echo mokutil ;;
	debian:g++) echo g++ ;;
	debian:xz) echo xz-utils ;;
	debian:libelf) echo libelf-dev ;;
	debian:flock) echo util-linux ;;
	debian:modinfo|debian:insmod) echo kmod ;;
	debian:awk) echo gawk ;;
	debian:find) echo findutils ;;
	debian:headers) echo "linux-headers-$KVER" ;;
	*:headers) echo "the kernel headers of $KVER" ;;
	*) echo "$1" ;;
	esac
}

# ver_ge A B: version A >= B (dotted numbers).
ver_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

fails=0 warns=0 missing_pkgs=()
row() { printf '   %-10s %-8s %s\n' "$1" "$2" "$3"; }
# need required|optional TOOL FLOOR VERSION-COMMAND [WHY]
need() {
	local kind=$1 tool=$2 floor=$3 cmd=$4 why=${5:-} v
	if ! command -v "${cmd%% *}" >/dev/null 2>&1; then
		missing "$kind" "$tool" "missing${floor:+ (needs >= $floor)}${why:+: $why}"
		return
	fi
	# "TOOL -": presence only (kmod's tools are not run here)
	[ "${cmd#* }" != - ] || { row "$tool" ok "present${why:+; $why}"; return; }
	v=$(eval "$cmd" 2>/dev/null | grep -oE '[0-9]+(\.[0-9]+)+' | head -n1 || true)
	if [ -n "$floor" ] && { [ -z "$v" ] || ! ver_ge "$v" "$floor"; }; then
		missing "$kind" "$tool" "${v:-unknown version}, needs >= $floor${why:+ ($why)}"
		return
	fi
	row "$tool" ok "${v:-present}${floor:+ (>= $floor)}${why:+; $why}"
}
missing() {
	local kind=$1 tool=$2 detail=$3 p
	p=$(pkg "$tool")
	if [ "$kind" = required ]; then
		row "$tool" MISSING "$detail; install: $inst $p"
		fails=$((fails + 1))
	else
		row "$tool" warn "$detail; install: $inst $p"
		warns=$((warns + 1))
	fi
	missing_pkgs+=("$p")
}

echo "check-box: $os_name (family: $family), kernel $KVER; read-only, installs nothing"
if [ "$what" = host ]; then
	# Phase 1 of make testbox (issue 24): no module is built or loaded.
	echo "== the run, phase 1 (make testbox: the driver already loaded; no module build)"
	if [ $((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1])) -ge 404 ]; then row bash ok "$BASH_VERSION (>= 4.4)"
	else row bash MISSING "$BASH_VERSION, needs >= 4.4"; fails=$((fails + 1)); fi
	need required make 4.2.1 "make --version"
	need required python3 3.6 "python3 --version"
	need required coreutils 8.30 "stat --version"
	need required sed "" "sed --version"
	need required awk "" "awk --version"
	need required find "" "find --version"
	need required flock "" "flock --version"
	need required cmake 3.18 "cmake --version" "the harness"
	need required g++ 10 "g++ -dumpfullversion" "the harness (GCC 10 / libstdc++ 10 floor)"
	need optional hipcc "" "hipcc --version" "the harness's GPU backend; ROCm's hipcc (/opt/rocm/bin on PATH)"
	need optional docker "" "docker --version" "a workload in a container (WORKLOAD=\"docker exec -i ...\", CONTAINER=)"
	need optional trace-cmd "" "trace-cmd --version" "tracing falls back to raw tracefs without it"
fi
[ "$what" = host ] || {
echo "== the build (make modules)"
if [ $((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1])) -ge 404 ]; then row bash ok "$BASH_VERSION (>= 4.4)"
else row bash MISSING "$BASH_VERSION, needs >= 4.4"; fails=$((fails + 1)); fi
need required make 4.2.1 "make --version"
need required git 2.27 "git --version"
need required python3 3.6 "python3 --version"
need required coreutils 8.30 "stat --version"
need required rsync "" "rsync --version" "copies the DKMS tree"
need required tar "" "tar --version"
need required xz "" "xz --version"
need required sed "" "sed --version"
need required awk "" "awk --version"
need required find "" "find --version"
need required flock "" "flock --version"
need required modinfo "" "modinfo -"
# The compiler the kernel was built with: Kbuild calls $(CC) from the
# headers' configuration; DKMS does the same.
ccv=
if [ -r "$KDIR/include/config/auto.conf" ]; then
	ccv=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' "$KDIR/include/config/auto.conf")
fi
[ -n "$ccv" ] || [ "$KVER" != "$(uname -r)" ] || ccv=$(sed -n 's/^Linux version [^(]*(\([^)]*\)).*/\1/p' /proc/version 2>/dev/null | grep -i gcc || true)
need required gcc "" "gcc --version" "the kernel was built with: ${ccv:-unknown}"
if [ -n "$ccv" ] && command -v gcc >/dev/null; then
	kv=$(grep -oE '[0-9]+\.[0-9]+\.[0-9]+' <<<"$ccv" | head -n1 || true)
	hv=$(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion)
	if [ -n "$kv" ] && [ "${kv%%.*}" != "${hv%%.*}" ]; then
		row gcc warn "gcc is $hv, the kernel was built with $kv: the module build uses gcc; a different major version may refuse or miscompile (scl enable gcc-toolset-N, or CC=)"
		warns=$((warns + 1))
	fi
fi
if [ -f "$KDIR/Makefile" ]; then row headers ok "$KDIR"
else
	row headers MISSING "no kernel headers at $KDIR; install: $inst $(pkg headers)"
	fails=$((fails + 1))
	missing_pkgs+=("$(pkg headers)")
fi

if [ "$what" = testbox ]; then
	echo "== the run (make testbox)"
	need required insmod "" "insmod -"
	need required cmake 3.18 "cmake --version" "the harness"
	need required g++ 10 "g++ -dumpfullversion" "the harness (GCC 10 / libstdc++ 10 floor)"
	need optional hipcc "" "hipcc --version" "the harness's GPU backend; ROCm's hipcc (/opt/rocm/bin on PATH)"
	need optional dkms "" "dkms --version" "says which amdgpu tree is installed for $KVER"
	need optional trace-cmd "" "trace-cmd --version" "tracing falls back to raw tracefs without it"
	need optional lsof "" "lsof -" "the /proc scan names /dev/kfd users without it"
	need optional mokutil "" "mokutil --version" "reads the Secure Boot state (also read from efivars)"
fi
}
echo
if [ ${#missing_pkgs[@]} -gt 0 ]; then
	echo "check-box: to install what is missing: $inst $(printf '%s\n' "${missing_pkgs[@]}" | sort -u | tr '\n' ' ')"
fi
if [ "$fails" -gt 0 ]; then
	echo "check-box: $fails required tool(s) missing or too old; nothing was built or changed" >&2
	exit 1
fi
echo "check-box: ok ($warns optional tool(s) missing)"
