#!/usr/bin/env bash
# Build the patched amdgpu.ko: prepare the base tree, apply patches/, build
# against the headers of KVER with M=, print the module's path.
# Overrides: KVER, KDIR (headers), KSRC (base source tarball or directory),
# BUILD, JOBS. With KSRC an amdgpu-dkms source (DKMS layout), builds the
# rocm-6.4 series with scripts/build-vendor.sh instead (DC=0: no display).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# Packages are installed only on the Debian build machine (make deps; CI):
# the box path - an amdgpu-dkms tree as KSRC, or a host without dpkg -
# installs nothing and runs the read-only preflight instead, which names
# what is missing with the install line of the host's family.
if { [ "$SERIES" = rocm-6.4 ] && [ -d "$KSRC" ]; } || ! is_debian_host; then
	[ "${KFDMP_PREFLIGHT_DONE:-0}" = 1 ] || KVER=$KVER KDIR=$KDIR "$ROOT/scripts/check-box.sh" modules >&2 ||
		die "the preflight failed (above); nothing was built"
else
	"$ROOT/scripts/setup-deps.sh" --quiet
fi
# ROCm's amdgpu-dkms source: the rocm-6.4 series, built as DKMS builds it.
if [ "$SERIES" = rocm-6.4 ]; then
	exec "$ROOT/scripts/build-vendor.sh"
fi
[ -f "$KDIR/Makefile" ] || die "no kernel headers at KDIR=$KDIR (install linux-headers-$KVER, or set KDIR)"
"$ROOT/scripts/tree.sh" apply
note "building amdgpu.ko against $KDIR"
kbuild_module "$TREE" modules >"$BUILD/module-build.log" 2>&1 || {
	grep -E 'error|Error' "$BUILD/module-build.log" | head -n 30
	die "build failed; full log: $BUILD/module-build.log"
}
ko=$TREE/$AMDGPU_DIR/amdgpu.ko
[ -f "$ko" ] || die "the build left no $ko"
grep -E '^(.*: )?warning:' "$BUILD/module-build.log" && note "the build printed warnings (see above)"
note "vermagic: $(modinfo -F vermagic "$ko")"
echo "$ko"
