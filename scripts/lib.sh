# shellcheck shell=bash
# Common settings of the kfd-mp scripts. Source it; it sets:
#   ROOT  the repository root      BUILD  $ROOT/build (or $BUILD)
#   KVER  kernel release           KDIR   headers/build dir of KVER
#   KSRC  the pristine base source: a tarball or a directory
#   TREE  the prepared tree (git, base commit + series)
# Every one of them can be overridden from the environment.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=versions.env
. "$ROOT/scripts/versions.env"
BUILD=${BUILD:-$ROOT/build}
KVER=${KVER:-$KVER_DEFAULT}
KDIR=${KDIR:-/lib/modules/$KVER/build}
KSRC=${KSRC:-/usr/src/linux-source-6.12.tar.xz}
TREE=${TREE:-$BUILD/tree}
AMDGPU_DIR=drivers/gpu/drm/amd/amdgpu
KUNIT_DIR=drivers/gpu/drm/amd/amdkfd/tests
BASE_TAG=kfdmp-base
JOBS=${JOBS:-$(nproc)}


die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "${0##*/}" "$*"; }

# The patches of the series, in order, without the cover letter.
series_patches() {
	local p
	for p in "$ROOT"/patches/[0-9][0-9][0-9][0-9]-*.patch; do
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
