#!/usr/bin/env bash
# A box-shaped system from Debian packages (issue 15): Debian 11 (bullseye:
# gcc-10 10.2.1 as on the box, cmake 3.18, python3, git, make, rsync,
# kmod, sudo, the 5.10 headers), then shaped like the box's EL8 host: no
# dpkg/apt, an Alibaba-Cloud-Linux-3-style /etc/os-release, the headers
# under /usr/src/kernels/<al8-like version> with /lib/modules/<ver>/build
# pointing there, the amdgpu-dkms tree at /usr/src/amdgpu-<ver>.el8,
# sudo's secure_path, tracefs only under /sys/kernel/debug/tracing.
#
#   tests/testbox/boxroot.sh build      make (or reuse) the root directory
#   tests/testbox/boxroot.sh run CMD    run CMD in it (a mount namespace and
#                                       chroot; the checkout at /src, as
#                                       the user "owner" unless BOX_USER=root)
#   tests/testbox/boxroot.sh path       print the root directory
#
# KFDMP_BOXROOT_CACHE: where the root is cached; KFDMP_BOX_BUILD: the
# host directory mounted over the checkout's build/ in the root, so the
# commands there run as typed (no BUILD=) and the host's build/ is kept.
#
# The root is cached outside the clone, keyed by this script's package
# list: KFDMP_BOXROOT_CACHE (default /var/cache/kfdmp), so a second CI run
# on the same machine reuses it. Needs root and mmdebstrap (apt-get install
# mmdebstrap); the archive host is taken from this machine's apt sources.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../../scripts/versions.env
. "$root/scripts/versions.env"
CACHE=${KFDMP_BOXROOT_CACHE:-/var/cache/kfdmp}
BOX_KVER=5.10.134-19.1.al8.x86_64
DEB_KVER=$KVER_510
PKGS="gcc g++ make git rsync kmod python3 sudo cmake googletest xz-utils bc bison flex libelf-dev libssl-dev perl gawk procps findutils util-linux file linux-headers-$DEB_KVER linux-headers-${DEB_KVER%-amd64}-common"
VENDOR_TARBALL=${VENDOR_TARBALL:-$root/$VENDOR_TARBALL_DEFAULT}
DKMS_DIR=/usr/src/amdgpu-6.12.12-2194681.el8
key=$(printf '%s\n' "$PKGS" "$BOX_KVER" "v1" | sha256sum | cut -c1-12)
BOX=$CACHE/boxroot-$key

die() { echo "boxroot: $*" >&2; exit 1; }

# shellcheck source-path=SCRIPTDIR source=apt-archive.sh
. "$root/tests/testbox/apt-archive.sh"

build() {
	[ ! -f "$BOX/.kfdmp-boxroot" ] || { echo "boxroot: reusing $BOX"; return 0; }
	[ "$(id -u)" = 0 ] || die "building the box root needs root"
	command -v mmdebstrap >/dev/null || die "no mmdebstrap (apt-get install mmdebstrap)"
	[ -f "$VENDOR_TARBALL" ] || die "no $VENDOR_TARBALL (the amdgpu-dkms tree to put at $DKMS_DIR)"
	local uri start
	uri=$(archive_uri | head -n1)
	[ -n "$uri" ] || die "no Debian archive in this machine's apt sources"
	start=$(date +%s)
	rm -rf "$BOX.tmp"
	mkdir -p "$CACHE"
	echo "boxroot: building $BOX from bullseye ($uri)"
	# No fsync per file (force-unsafe-io): a root whose build fails is
	# thrown away (the .tmp directory), so nothing needs to survive a crash.
	mmdebstrap --variant=minbase --dpkgopt=force-unsafe-io --aptopt='Acquire::Languages "none"' \
		--include="${PKGS// /,}" bullseye "$BOX.tmp" "$uri" >"$CACHE/boxroot-$key.log" 2>&1 ||
		die "mmdebstrap failed: $CACHE/boxroot-$key.log"
	local r=$BOX.tmp
	# EL8-shaped: no dpkg/apt, an EL os-release, headers under /usr/src/kernels.
	rm -f "$r"/usr/bin/dpkg* "$r"/usr/bin/apt* "$r"/usr/sbin/dpkg* "$r"/etc/debian_version
	cat >"$r/etc/os-release" <<'OS'
NAME="Alibaba Cloud Linux"
VERSION="3 (Soaring Falcon)"
ID="alinux"
ID_LIKE="rhel fedora centos anolis"
VERSION_ID="3"
PLATFORM_ID="platform:al8"
PRETTY_NAME="Alibaba Cloud Linux 3 (Soaring Falcon)"
OS
	mkdir -p "$r/usr/src/kernels" "$r/lib/modules/$BOX_KVER"
	cp -rL "$r/usr/src/linux-headers-$DEB_KVER" "$r/usr/src/kernels/$BOX_KVER"
	rm -rf "$r/lib/modules/$DEB_KVER"
	ln -sfn "/usr/src/kernels/$BOX_KVER" "$r/lib/modules/$BOX_KVER/build"
	mkdir -p "$r$DKMS_DIR"
	tar -xf "$VENDOR_TARBALL" -C "$r$DKMS_DIR" --strip-components=1
	grep -q secure_path "$r/etc/sudoers" || die "bullseye's sudoers has no secure_path"
	chroot "$r" useradd -m -s /bin/bash owner
	echo 'owner ALL=(ALL) NOPASSWD: ALL' >"$r/etc/sudoers.d/owner"
	chmod 440 "$r/etc/sudoers.d/owner"
	mkdir -p "$r/src" "$r/sys/kernel/debug/tracing"
	date -u +%FT%TZ >"$r/.kfdmp-boxroot"
	mv "$BOX.tmp" "$BOX"
	echo "boxroot: built $BOX in $(($(date +%s) - start)) s"
}

run() {
	[ -f "$BOX/.kfdmp-boxroot" ] || die "no box root at $BOX (tests/testbox/boxroot.sh build)"
	[ $# -gt 0 ] || die "usage: $0 run CMD..."
	local user=${BOX_USER:-owner}
	# The checkout at /src; Debian's linux-source-6.12 (register headers the
	# public tarball lacks) at its usual path; a build directory outside the
	# checkout, mounted over /src/build, so the host's build/ is not
	# touched: KFDMP_BOX_BUILD (default: in the cache; CI gives build/box,
	# whose modules rocm-qemu-smoke loads).
	local bld=${KFDMP_BOX_BUILD:-$CACHE/boxbuild-$key}
	mkdir -p "$bld"
	chmod 777 "$bld"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -m --propagation private -- bash -c '
		set -e
		r=$1 src=$2 bld=$3 user=$4; shift 4
		mount --bind "$src" "$r/src"
		mkdir -p "$r/src/build"; mount --bind "$bld" "$r/src/build"
		mount -t proc proc "$r/proc"
		mount --bind /dev "$r/dev"
		if [ -f /usr/src/linux-source-6.12.tar.xz ]; then
			touch "$r/usr/src/linux-source-6.12.tar.xz"
			mount --bind /usr/src/linux-source-6.12.tar.xz "$r/usr/src/linux-source-6.12.tar.xz"
		fi
		exec chroot "$r" /usr/bin/env -i HOME=/home/owner TERM=dumb \
			PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
			JOBS="${JOBS:-2}" ${DEBUG_INFO:+DEBUG_INFO="$DEBUG_INFO"} \
			su -s /bin/bash "$user" -c "cd /src && $*"
	' boxroot "$BOX" "$root" "$bld" "$user" "$@"
}

case ${1:-} in
build) build ;;
run) shift; run "$@" ;;
path) echo "$BOX" ;;
*) echo "usage: $0 build | run CMD... | path" >&2; exit 2 ;;
esac
