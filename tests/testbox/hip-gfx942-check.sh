#!/usr/bin/env bash
# The harness's HIP build for the box's GPU (gfx942, MI308X) with the hipcc
# of the box's ROCm 7 userland (issue 15): Debian sid ships hipcc 7.0.2
# (its clang 21) with HIP 6.4.3 and hipBLAS 6.4.4; the box has ROCm 7.0.2.
# Builds (or reuses) a sid chroot with mmdebstrap, cached under
# KFDMP_HIP_CACHE (default /var/cache/kfdmp), with hipcc and the HIP and
# hipBLAS development packages, then configures and builds tests/harness
# there with KFDMP_GPU=hip KFDMP_HIP_ARCHS=gfx942 (--offload-arch=gfx942)
# and checks that the gfx942 code objects are in the result.
#
#   sudo make hip-gfx942-check        (= sudo tests/testbox/hip-gfx942-check.sh)
#
# Needs root (mmdebstrap, chroot) and the Debian archive named in this
# machine's apt sources; skips (77) without them. Opt-in: not in ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KFDMP_HIP_CACHE:-/var/cache/kfdmp}
PKGS="hipcc libamdhip64-dev libhipblas-dev cmake make g++ file"
key=$(printf '%s\n' "$PKGS" sid v1 | sha256sum | cut -c1-12)
CH=$CACHE/sid-hip-$key
JOBS=${JOBS:-2}

die() { echo "hip-gfx942-check: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root (mmdebstrap, chroot): sudo make hip-gfx942-check"
command -v mmdebstrap >/dev/null || skip "no mmdebstrap (apt-get install mmdebstrap)"

# shellcheck source-path=SCRIPTDIR source=apt-archive.sh
. "$root/tests/testbox/apt-archive.sh"

if [ ! -f "$CH/.kfdmp-sid-hip" ]; then
	uri=$(archive_uri | grep -E '/debian/?$' | head -n1)
	[ -n "$uri" ] || die "no Debian archive (…/debian) in this machine's apt sources"
	mkdir -p "$CACHE"
	rm -rf "$CH.tmp"
	s=$(date +%s)
	echo "hip-gfx942-check: building $CH from sid ($uri)"
	# sid's Release file is valid for a week; a mirror or clock that is
	# behind would refuse it (seen here: "expired"), so the date is not checked.
	if ! mmdebstrap --variant=minbase --aptopt='Acquire::Check-Valid-Until "false"' \
		--include="${PKGS// /,}" sid "$CH.tmp" "$uri" >"$CH.log" 2>&1; then
		grep -E 'E:|Unable to locate|unmet|Depends' "$CH.log" | head -n 20
		die "mmdebstrap failed: $CH.log"
	fi
	date -u +%FT%TZ >"$CH.tmp/.kfdmp-sid-hip"
	mv "$CH.tmp" "$CH"
	echo "hip-gfx942-check: sid chroot built in $(($(date +%s) - s)) s"
fi

mkdir -p "$CH/src"
s=$(date +%s)
rc=0
# shellcheck disable=SC2016 # expanded by the inner bash
unshare -m --propagation private -- bash -c '
	set -e
	ch=$1 src=$2 jobs=$3
	mount --bind "$src" "$ch/src"
	mount -t proc proc "$ch/proc"
	exec chroot "$ch" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root JOBS="$jobs" bash -c "
		set -e
		echo \"versions: \$(hipcc --version 2>/dev/null | grep -m1 -iE \"clang version|HIP version\"); \$(dpkg-query -W -f=\"\\\${Package} \\\${Version}; \" hipcc libamdhip64-dev libhipblas-dev cmake g++)\"
		hipcc --version | head -n 3
		rm -rf /tmp/hipb
		cmake -S /src/tests/harness -B /tmp/hipb -DKFDMP_GPU=hip -DKFDMP_HIP_ARCHS=gfx942 \
			-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_BUILD_TYPE=Release 2>&1 | grep -iE \"kfdmp|hip|error|warn\" || true
		cmake --build /tmp/hipb -j\$JOBS >/tmp/hipb.log 2>&1 || { grep -E \"error|Error\" /tmp/hipb.log | head -n 30; echo \"FAIL: the build failed\"; exit 1; }
		echo \"build: \$(grep -c \"warning:\" /tmp/hipb.log) compiler warnings\"
		grep -A3 \"warning:\" /tmp/hipb.log | head -n 20 || true
		blas=\$(sed -n \"s/^KFDMP_HIPBLAS_LIBRARY:FILEPATH=//p\" /tmp/hipb/CMakeCache.txt)
		[ -n \"\$blas\" ] && echo \"ok: hipBLAS found (\$blas): the gemm workload is built\" || { echo \"FAIL: hipBLAS not found\"; exit 1; }
	"
' hip-gfx942-check "$CH" "$root" "$JOBS" || rc=$?
echo "hip-gfx942-check: configure and build took $(($(date +%s) - s)) s (JOBS=$JOBS)"
[ "$rc" = 0 ] || die "the harness's HIP build for gfx942 failed (above)"
# What was built, read in the chroot (its /tmp/hipb stays until the next run).
b=$CH/tmp/hipb
for f in gpu_workloads.o kfdmp-reference kfdmp_kernel-gfx942.co; do
	if [ -f "$b/$f" ] && grep -q gfx942 "$b/$f"; then
		echo "ok: $f holds gfx942 code ($(stat -c %s "$b/$f") bytes)"
	else
		die "$f: missing or without gfx942 code"
	fi
done
for f in kfdmp kfdmp-worker kfdmp-bare kfdmp-inspect; do
	[ -x "$b/$f" ] || die "$f was not linked"
done
needed=$(chroot "$CH" objdump -p /tmp/hipb/kfdmp-worker | awk '/NEEDED/ { print $2 }' | grep -E 'hip|blas' | tr '\n' ' ')
case $needed in
*libamdhip64*libhipblas*) echo "ok: kfdmp, kfdmp-worker, kfdmp-bare, kfdmp-inspect linked; kfdmp-worker needs $needed" ;;
*) die "kfdmp-worker does not link HIP and hipBLAS (NEEDED: $needed)" ;;
esac
echo "hip-gfx942-check: passed"
