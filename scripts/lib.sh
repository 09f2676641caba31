# shellcheck shell=bash
# Common settings of the kfd-mp scripts. Source it; it sets:
#   ROOT  the repository root      BUILD  $ROOT/build (or $BUILD)
#   KVER  kernel release           KDIR   headers/build dir of KVER
#   KSRC  the pristine base source: a tarball or a directory
#   TREE  the prepared tree (git, base commit + series)
#   SERIES   which series: linux-6.12 (upstream Linux, kernel layout, the
#            default) or rocm-6.4 (ROCm's amdgpu-dkms, DKMS layout); chosen
#            from KSRC when it is a DKMS source
#   PATCHES  patches/$SERIES
# Every one of them can be overridden from the environment.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=versions.env
. "$ROOT/scripts/versions.env"
BUILD=${BUILD:-$ROOT/build}
KVER=${KVER:-$KVER_DEFAULT}
KDIR=${KDIR:-/lib/modules/$KVER/build}
KSRC=${KSRC:-/usr/src/linux-source-6.12.tar.xz}

# is_dkms_source PATH: PATH is an amdgpu-dkms source (a directory or a
# tarball of one): it has dkms.conf and amd/dkms/configure at its top.
is_dkms_source() {
	if [ -d "$1" ]; then
		[ -f "$1/dkms.conf" ] && [ -f "$1/amd/dkms/configure" ]
	elif [ -f "$1" ]; then
		tar -tf "$1" 2>/dev/null | awk -F/ '
			$2 == "dkms.conf" && NF == 2 { d = 1 }
			$2 == "amd" && $3 == "dkms" && $4 == "configure" { c = 1 }
			END { exit !(d && c) }'
	else
		return 1
	fi
}

if [ -z "${SERIES:-}" ]; then
	SERIES=linux-6.12
	case "$KSRC" in
	*/linux-source-*) ;;
	*) if is_dkms_source "$KSRC"; then SERIES=rocm-6.4; fi ;;
	esac
fi
PATCHES_REL=patches/$SERIES
PATCHES=$ROOT/$PATCHES_REL
case "$SERIES" in
rocm-*)
	TREE=${TREE:-$BUILD/tree-rocm}
	AMD_DIR=amd ;;
*)
	TREE=${TREE:-$BUILD/tree}
	AMD_DIR=drivers/gpu/drm/amd ;;
esac
AMDGPU_DIR=$AMD_DIR/amdgpu
AMDKFD_DIR=$AMD_DIR/amdkfd
KUNIT_DIR=$AMDKFD_DIR/tests
BASE_TAG=kfdmp-base
JOBS=${JOBS:-$(nproc)}


die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "${0##*/}" "$*"; }

# The patches of the series, in order, without the cover letter.
series_patches() {
	local p
	for p in "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -e "$p" ] || continue
		case "$p" in */0000-cover-letter.patch) continue ;; esac
		printf '%s\n' "$p"
	done
}

# Build flags for amdgpu.ko out of tree: amdgpu_trace.h includes itself
# through a path relative to the kernel tree, so drivers/gpu must be on the
# include path.
kbuild_module() {
	local tree=$1; shift
	make -C "$KDIR" M="$tree/$AMDGPU_DIR" KCFLAGS="-I$tree/drivers/gpu" \
		-j"$JOBS" "$@"
}

# One identity for every commit the scripts make and for the series, and a
# fixed date for the base commit, so that the base and the applied series get
# the same hashes on every machine.
KFDMP_NAME="kfd-mp developers"
KFDMP_EMAIL="kfd-mp@example.org"
export GIT_AUTHOR_NAME=$KFDMP_NAME GIT_AUTHOR_EMAIL=$KFDMP_EMAIL
export GIT_COMMITTER_NAME=$KFDMP_NAME GIT_COMMITTER_EMAIL=$KFDMP_EMAIL
BASE_DATE="2025-07-05T18:26:00Z"
