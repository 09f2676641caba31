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


# is_debian_host: dpkg manages this system (where make deps installs).
is_debian_host() {
	[ -f /etc/debian_version ] && command -v dpkg-query >/dev/null
}

# git_init DIR BRANCH: an empty repository whose first branch is BRANCH.
# Not `git init -b` (git 2.28): EL8 ships git 2.27 and older.
git_init() {
	git -C "$1" init -q && git -C "$1" symbolic-ref HEAD "refs/heads/$2"
}

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

# uapi_overlay TREE DIR: the uapi headers the series changes in TREE (today
# include/uapi/linux/kfd_ioctl.h, by the tenant-control patch), copied into
# DIR both as uapi/linux/X and linux/X. Out of tree, <linux/kfd_ioctl.h> and
# <uapi/linux/kfd_ioctl.h> would otherwise come from the kernel headers
# package, without the series' additions; kbuild puts NOSTDINC_FLAGS before
# every include directory, so -I DIR there wins. A file is copied only when
# it differs, so that an unchanged header does not rebuild the module.
uapi_overlay() {
	local tree=$1 dir=$2 f rel dst keep=
	mkdir -p "$dir"
	while read -r f; do
		[ -n "$f" ] && [ -f "$tree/$f" ] || continue
		rel=${f#include/uapi/}
		for dst in "$dir/uapi/$rel" "$dir/$rel"; do
			mkdir -p "$(dirname "$dst")"
			cmp -s "$tree/$f" "$dst" || cp "$tree/$f" "$dst"
			keep="$keep|$dst|"
		done
	done < <(git -C "$tree" diff --name-only "$BASE_TAG" HEAD -- include/uapi 2>/dev/null)
	# What an earlier state of TREE (a bisect step) changed and this one does not.
	while read -r f; do
		case $keep in *"|$f|"*) ;; *) rm -f "$f" ;; esac
	done < <(find "$dir" -type f)
}

# DEBUG_INFO=0: build without debug information (-g0) and, where the
# kernel's configuration asks for it, without the modules' BTF. The tests
# build so (tests/kernel/CMakeLists.txt): the same code, about a quarter less
# compile time, a 27 MB amdgpu.ko instead of 600 MB, and a faster insmod
# under QEMU (no .BTF to load). The default, 1, builds as the kernel's
# configuration says, for a module to debug or ship.
DEBUG_INFO=${DEBUG_INFO:-1}
case $DEBUG_INFO in 0|1) ;; *) die "DEBUG_INFO=$DEBUG_INFO: 1 (as the kernel's configuration says, the default) or 0 (no debug information, no BTF)" ;; esac
nodebug_kcflags() { [ "$DEBUG_INFO" = 1 ] || printf ' -g0'; }

# Build flags for amdgpu.ko out of tree: amdgpu_trace.h includes itself
# through a path relative to the kernel tree, so drivers/gpu must be on the
# include path; the series' uapi headers come first (uapi_overlay). KCFLAGS
# from the environment is kept (series.sh check: -g0).
kbuild_module() {
	local tree=$1 inc; shift
	local -a nobtf=()
	[ "$DEBUG_INFO" = 1 ] || nobtf=(CONFIG_DEBUG_INFO_BTF_MODULES=)
	inc=$BUILD/kfdmp-include-$(basename "$tree")
	uapi_overlay "$tree" "$inc"
	make -C "$KDIR" M="$tree/$AMDGPU_DIR" KCFLAGS="-I$tree/drivers/gpu${KCFLAGS:+ $KCFLAGS}$(nodebug_kcflags)" \
		NOSTDINC_FLAGS="-nostdinc -I$inc" "${nobtf[@]}" -j"$JOBS" "$@"
}

# Register headers for DKMS sources that lack some, and the DC=0 switch:
# used by scripts/build-vendor.sh and the rocm series check.
LINUX_SRC=${LINUX_SRC:-/usr/src/linux-source-6.12.tar.xz}
# Register headers: amd/include/asic_reg holds *_offset.h and *_sh_mask.h in
# pairs. A tree that lacks some _sh_mask.h (the public tarball lacks 35,
# ../shared/vendor/README.md) gets them from Debian's linux-source-6.12 at
# build time, in the build copy only.
# supply_register_headers DIR: in the DKMS copy DIR (DC=0 or 1 from the
# environment).
supply_register_headers() {
	local dir=$1 f missing=() reg=$BUILD/asic-reg-6.12 got=0 none=()
	while read -r f; do
		[ -f "${f%_offset.h}_sh_mask.h" ] || missing+=("${f%_offset.h}_sh_mask.h")
	done < <(find "$dir/amd/include/asic_reg" -name '*_offset.h' | sort)
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ ! -d "$reg" ]; then
		if [ -d "$BUILD/tree/drivers/gpu/drm/amd/include/asic_reg" ]; then
			mkdir -p "$reg.tmp"
			cp -r "$BUILD/tree/drivers/gpu/drm/amd/include/asic_reg/." "$reg.tmp/"
		elif [ -f "$LINUX_SRC" ]; then
			note "extracting the register headers of $LINUX_SRC"
			mkdir -p "$reg.tmp"
			tar -xf "$LINUX_SRC" -C "$reg.tmp" --strip-components=7 --wildcards \
				'*/drivers/gpu/drm/amd/include/asic_reg/*'
		else
			die "$KSRC lacks ${#missing[@]} register headers and there is no $LINUX_SRC to take them from"
		fi
		mv "$reg.tmp" "$reg"
	fi
	for f in "${missing[@]}"; do
		if [ -f "$reg/${f#"$dir"/amd/include/asic_reg/}" ]; then
			cp "$reg/${f#"$dir"/amd/include/asic_reg/}" "$f"
			got=$((got + 1))
		else
			none+=("${f#"$dir"/}")
		fi
	done
	note "the tree lacks ${#missing[@]} register headers: $got supplied from Debian's linux-source-6.12 for this build, ${#none[@]} found nowhere${none[*]:+: ${none[*]}}"
	if [ ${#none[@]} -gt 0 ] && [ "${DC:-1}" = 1 ]; then
		die "display (DC) does not compile without them; build without display: DC=0"
	fi
}

# DC=0: take display out of the tree's own Kbuild (the CONFIG_DRM_AMD_DC*
# switches it sets for every DKMS build).
display_off() {
	local kbuild=$1/amd/dkms/Kbuild
	sed -i -E '/^[[:space:]]*(export CONFIG_DRM_AMD_DC(_[A-Z]+)?=y|subdir-ccflags-y \+= -DCONFIG_DRM_AMD_DC(_[A-Z]+)?)[[:space:]]*$/d' "$kbuild"
	! grep -q 'CONFIG_DRM_AMD_DC' "$kbuild" ||
		die "$kbuild still sets CONFIG_DRM_AMD_DC* after DC=0 took its switches out; this tree sets display up differently"
}

# One identity for every commit the scripts make and for the series, and a
# fixed date for the base commit, so that the base and the applied series get
# the same hashes on every machine.
KFDMP_NAME="kfd-mp developers"
KFDMP_EMAIL="kfd-mp@example.org"
export GIT_AUTHOR_NAME=$KFDMP_NAME GIT_AUTHOR_EMAIL=$KFDMP_EMAIL
export GIT_COMMITTER_NAME=$KFDMP_NAME GIT_COMMITTER_EMAIL=$KFDMP_EMAIL
BASE_DATE="2025-07-05T18:26:00Z"
