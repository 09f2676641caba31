#!/usr/bin/env bash
# Build ROCm's amdgpu-dkms module set with the rocm-6.4 series applied, the
# way DKMS builds it: a copy of the tree, its own amd/dkms/pre-build.sh and
# configure (run by its top-level Makefile), then make against the headers
# of KVER. Prints every module's path and vermagic.
#
#   KSRC   the amdgpu-dkms source: a directory in DKMS layout
#          (/usr/src/amdgpu-6.12.12-2194681.el8) or a tarball of one
#   KVER   kernel release to build for; its headers must be at
#          /lib/modules/$KVER/build (the tree's configure reads them there)
#   DC     1 (default) builds display (DC) like DKMS does; 0 builds without
#          it: the compute stack only, in about half the time. A copy that
#          lacks display register headers (the public ROCm 6.4.1 tarball)
#          only builds with DC=0.
#   DEBUG_INFO  1 (default) or 0: without debug information (-g0), as the
#          tests build (scripts/lib.sh)
#
# Called by scripts/build-module.sh when KSRC is a DKMS source.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

DC=${DC:-1}
case "$DC" in 0|1) ;; *) die "DC=$DC: 1 (build display, the default) or 0 (without display)" ;; esac
is_dkms_source "$KSRC" || die "KSRC=$KSRC is not an amdgpu-dkms source (no dkms.conf and amd/dkms/configure at its top)"
[ -f "$KDIR/Makefile" ] || die "no kernel headers at KDIR=$KDIR (install linux-headers-$KVER)"
# The tree's configure finds the kernel through /lib/modules/$KVER; other
# headers would be configured for one kernel and built for another.
[ "$(realpath "$KDIR")" = "$(realpath -m "/lib/modules/$KVER/build")" ] ||
	die "KDIR=$KDIR: the amdgpu-dkms configure reads /lib/modules/$KVER/build; install the headers there instead of setting KDIR"

"$ROOT/scripts/tree.sh" apply

# The build directory: a copy of the tree, as DKMS makes one under
# /var/lib/dkms. pre-build.sh edits its sources in place; the git tree
# stays clean.
obj=$BUILD/rocm-$KVER
[ "$DC" = 0 ] && obj=$obj-nodc
log=$obj.log
stamp=$(printf '%s %s %s\n' "$(git -C "$TREE" rev-parse "HEAD^{tree}")" \
	"$(git -C "$TREE" diff HEAD | sha256sum | cut -c1-16)" "$KVER DC=$DC DEBUG_INFO=$DEBUG_INFO v1")

# The seven modules DKMS installs: BUILT_MODULE_LOCATION/NAME in dkms.conf.
modules() {
	(
		# shellcheck disable=SC1090,SC1091,SC2034
		kernelver=$KVER; . "$1/dkms.conf"
		for i in "${!BUILT_MODULE_NAME[@]}"; do
			printf '%s/%s.ko\n' "${BUILT_MODULE_LOCATION[$i]:-.}" "${BUILT_MODULE_NAME[$i]}"
		done
	) | sed 's#^\./##'
}

if [ "$(cat "$obj/.kfdmp-stamp" 2>/dev/null)" != "$stamp" ] ||
   ! (cd "$obj" && modules . | xargs -r ls >/dev/null 2>&1); then
	note "building the amdgpu-dkms module set for $KVER$([ "$DC" = 0 ] && echo ", without display (DC=0)") in $obj (log: $log)"
	rm -rf "$obj"
	mkdir -p "$obj"
	rsync -a --exclude=.git "$TREE"/ "$obj"/
	supply_register_headers "$obj"
	[ "$DC" = 1 ] || display_off "$obj"
	start=$(date +%s)
	# As DKMS: make KERNELVER=$kernelver in the copy. SRCARCH: Debian's
	# objtool wrapper needs it, or every configure test fails.
	# DEBUG_INFO=0 (scripts/lib.sh): KCFLAGS reaches kbuild through the
	# environment, after the kernel's own -g.
	if ! (cd "$obj" && { [ "$DEBUG_INFO" = 1 ] || export KCFLAGS="${KCFLAGS:+$KCFLAGS }-g0"; } &&
		SRCARCH=x86 make KERNELVER="$KVER" kernel_build_dir="$KDIR" \
		num_cpu_cores="$JOBS") >"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 30
		die "the amdgpu-dkms build failed; full log: $log"
	fi
	printf '%s\n' "$stamp" >"$obj/.kfdmp-stamp"
	note "built in $(($(date +%s) - start)) s"
fi
rc=0
while read -r m; do
	if [ -f "$obj/$m" ]; then
		printf '%s  %s\n' "$obj/$m" "$(modinfo -F vermagic "$obj/$m")"
	else
		echo "missing: $obj/$m" >&2
		rc=1
	fi
done < <(modules "$obj")
[ "$rc" = 0 ] || die "the build left modules missing (log: $log)"
