#!/usr/bin/env bash
# CI test of the DKMS staging, without dkms and without the real driver:
#
#  1. a stub "prepared tree" (a git repo in kernel layout whose amdgpu
#     directory builds a tiny amdgpu.ko the way the real Makefile does: an
#     object from ../amdkfd pulled in through $(src)/.., and a trace header
#     that includes itself through TRACE_INCLUDE_PATH
#     ../../drivers/gpu/drm/amd/amdgpu like amdgpu_trace.h);
#  2. scripts/testbox.sh dkms-stage stages it;
#  3. checks of the staged dkms.conf (sourced like dkms does): name, version
#     substituted, BUILT_MODULE_LOCATION exists, BUILD_EXCLUSIVE_KERNEL takes
#     the base kernel and refuses others, the top-level Kbuild is there;
#  4. the MAKE line of dkms.conf run against the headers of KVER_DEFAULT,
#     in a directory laid out as dkms' build tree: the module must come out
#     at BUILT_MODULE_LOCATION/BUILT_MODULE_NAME.ko with the right vermagic.
#     Skipped (exit 77) without those headers.
#  5. `DRY_RUN=1 scripts/testbox.sh dkms-install` prints the dkms steps.
#  6. the vendor kind (a box with /usr/src/amdgpu-*): the patched amdgpu-dkms
#     tree (a stub of build/tree-rocm) is staged whole under its own DKMS
#     name and version, amdgpu-kfdmp <vendor version>-kfdmp, AUTOINSTALL off,
#     its modules and MAKE line kept; dkms-install and dkms-remove (dry)
#     print the steps, and dkms-remove reinstalls the stock package.
# ok and bad always succeed (tests/test-lib.sh): `cond && ok .. || bad ..` is an if-else.
# shellcheck disable=SC2015
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
scratch dkms-test
# The upstream kind unless a part says otherwise: no /usr/src/amdgpu-* here.
export KFDMP_USR_SRC=$tmp/no-usr-src
unset KSRC

# --- 1. stub tree ------------------------------------------------------------------
tree=$tmp/tree
amd=$tree/drivers/gpu/drm/amd
mkdir -p "$amd/amdgpu" "$amd/amdkfd" "$amd/include"
cat >"$amd/amdgpu/Makefile" <<'EOF'
# Stub of drivers/gpu/drm/amd/amdgpu/Makefile: the same path idioms.
FULL_AMD_PATH=$(src)/..
ccflags-y := -I$(FULL_AMD_PATH)/include -I$(FULL_AMD_PATH)/amdgpu -I$(FULL_AMD_PATH)/amdkfd
amdgpu-y := amdgpu_stub.o amdgpu_trace_points.o
AMDKFD_PATH := ../amdkfd
include $(FULL_AMD_PATH)/amdkfd/Makefile
amdgpu-y += $(AMDKFD_FILES)
obj-$(CONFIG_DRM_AMDGPU) += amdgpu.o
EOF
cat >"$amd/amdkfd/Makefile" <<'EOF'
AMDKFD_FILES := $(AMDKFD_PATH)/kfd_stub.o
EOF
cat >"$amd/include/stub_shared.h" <<'EOF'
#define KFDMP_STUB_VALUE 42
EOF
# As amdkfd does: the series' uapi additions through <linux/kfd_ioctl.h>
# and <uapi/linux/kfd_ioctl.h> (the series' commit below adds the define;
# the headers package's kfd_ioctl.h lacks it, as it lacks the tenant ioctl).
cat >"$amd/amdkfd/kfd_stub.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/kfd_ioctl.h>
#include <uapi/linux/kfd_ioctl.h>
#include "stub_shared.h"
int kfdmp_stub_kfd(void);
int kfdmp_stub_kfd(void) { return KFDMP_STUB_VALUE + KFDMP_STUB_UAPI; }
EOF
cat >"$amd/amdgpu/amdgpu_stub.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include "amdgpu_trace.h"
int kfdmp_stub_kfd(void);
static int __init stub_init(void) { trace_amdgpu_stub(kfdmp_stub_kfd()); return 0; }
static void __exit stub_exit(void) { }
module_init(stub_init);
module_exit(stub_exit);
MODULE_LICENSE("GPL");
EOF
cat >"$amd/amdgpu/amdgpu_trace_points.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#define CREATE_TRACE_POINTS
#include "amdgpu_trace.h"
EOF
cat >"$amd/amdgpu/amdgpu_trace.h" <<'EOF'
/* SPDX-License-Identifier: GPL-2.0 */
#if !defined(_AMDGPU_STUB_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _AMDGPU_STUB_TRACE_H_
#include <linux/tracepoint.h>
#undef TRACE_SYSTEM
#define TRACE_SYSTEM amdgpu_stub
#define TRACE_INCLUDE_FILE amdgpu_trace
TRACE_EVENT(amdgpu_stub,
	TP_PROTO(int v), TP_ARGS(v),
	TP_STRUCT__entry(__field(int, v)),
	TP_fast_assign(__entry->v = v;),
	TP_printk("v=%d", __entry->v));
#endif
/* As in amdgpu_trace.h: relative to an include directory. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../../drivers/gpu/drm/amd/amdgpu
#include <trace/define_trace.h>
EOF
echo "not part of the stage" >"$tree/README"
git -C "$tree" init -q -b kfdmp
git -C "$tree" add -A
git -C "$tree" -c user.name=t -c user.email=t@t commit -q -m base
git -C "$tree" tag kfdmp-base
mkdir -p "$tree/include/uapi/linux"
printf '%s\n' '/* SPDX-License-Identifier: GPL-2.0 */' '#ifndef KFD_IOCTL_H_INCLUDED' \
	'#define KFD_IOCTL_H_INCLUDED' '#define KFDMP_STUB_UAPI 1' '#endif' >"$tree/include/uapi/linux/kfd_ioctl.h"
git -C "$tree" add -A
git -C "$tree" -c user.name=t -c user.email=t@t commit -q -m "the series' uapi change"

# --- 2. stage ----------------------------------------------------------------------------
stage=$tmp/dkms/amdgpu-kfdmp/VERSION/build
if TREE=$tree "$root/scripts/testbox.sh" dkms-stage "$tmp/staged" >"$tmp/stage.log" 2>&1; then
	ok "dkms-stage: $(tail -n1 "$tmp/stage.log")"
else
	cat "$tmp/stage.log"; bad "dkms-stage failed"; exit 1
fi

# --- 3. dkms.conf -----------------------------------------------------------------------------
s=$tmp/staged
[ -f "$s/Kbuild" ] && cmp -s "$s/Kbuild" "$root/Kbuild" && ok "the top-level Kbuild is staged" || bad "no Kbuild in the stage"
[ -e "$s/README" ] && bad "the stage holds files outside drivers/gpu/drm/amd" || ok "only drivers/gpu/drm/amd of the tree is staged"
[ -f "$s/kfdmp-include/linux/kfd_ioctl.h" ] && [ -f "$s/kfdmp-include/uapi/linux/kfd_ioctl.h" ] &&
	grep -q KFDMP_STUB_UAPI "$s/kfdmp-include/uapi/linux/kfd_ioctl.h" &&
	ok "the series' uapi header is staged in kfdmp-include/ (as linux/ and uapi/linux/)" ||
	bad "kfdmp-include/ lacks the series' kfd_ioctl.h"
[ -f "$s/kfdmp-stage.env" ] && grep -q "^tree_head=$(git -C "$tree" rev-parse HEAD)$" "$s/kfdmp-stage.env" &&
	ok "kfdmp-stage.env records the tree commit" || bad "kfdmp-stage.env missing or wrong"
conf=$(
	# dkms sources dkms.conf with these set
	# shellcheck disable=SC2034 # read by dkms.conf, if it wants
	kernelver=$KVER_DEFAULT kernel_source_dir=/lib/modules/$KVER_DEFAULT/build dkms_tree=$tmp/dkms
	# shellcheck disable=SC1091
	. "$s/dkms.conf"
	printf '%s\n' "$PACKAGE_NAME" "$PACKAGE_VERSION" "${BUILT_MODULE_NAME[0]}" "${BUILT_MODULE_LOCATION[0]}" \
		"${DEST_MODULE_LOCATION[0]}" "${MAKE[0]}" "$BUILD_EXCLUSIVE_KERNEL" "${AUTOINSTALL:-}" "$CLEAN"
)
mapfile -t c <<<"$conf"
want_ver="${LINUX_SOURCE_VERSION%%-*}-kfdmp.$(git -C "$tree" rev-parse --short=10 HEAD)"
[ "${c[0]}" = amdgpu-kfdmp ] && ok "PACKAGE_NAME ${c[0]}" || bad "PACKAGE_NAME '${c[0]}'"
[ "${c[1]}" = "$want_ver" ] && ok "PACKAGE_VERSION ${c[1]} (substituted)" || bad "PACKAGE_VERSION '${c[1]}', want $want_ver"
[ "${c[2]}" = amdgpu ] && ok "BUILT_MODULE_NAME amdgpu" || bad "BUILT_MODULE_NAME '${c[2]}'"
[ -d "$s/${c[3]}" ] && [ -f "$s/${c[3]}/Makefile" ] && ok "BUILT_MODULE_LOCATION ${c[3]} exists in the stage" ||
	bad "BUILT_MODULE_LOCATION '${c[3]}' is not a directory of the stage"
case ${c[4]} in /kernel*|/updates*|/extra*) ok "DEST_MODULE_LOCATION ${c[4]}" ;; *) bad "DEST_MODULE_LOCATION '${c[4]}'" ;; esac
[[ $KVER_DEFAULT =~ ${c[6]} ]] && ok "BUILD_EXCLUSIVE_KERNEL '${c[6]}' takes $KVER_DEFAULT" || bad "BUILD_EXCLUSIVE_KERNEL '${c[6]}' refuses $KVER_DEFAULT"
for k in 6.1.0-30-amd64 6.11.0 6.13.2 5.12.0; do
	[[ $k =~ ${c[6]} ]] && bad "BUILD_EXCLUSIVE_KERNEL takes $k"
done
ok "BUILD_EXCLUSIVE_KERNEL refuses 6.1, 6.11, 6.13, 5.12"
[ "${c[7]}" != yes ] && ok "AUTOINSTALL off" || bad "AUTOINSTALL is on"
[[ ${c[5]} == "make -C /lib/modules/$KVER_DEFAULT/build M=$tmp/dkms/amdgpu-kfdmp/$want_ver/build NOSTDINC_FLAGS='-nostdinc -I$tmp/dkms/amdgpu-kfdmp/$want_ver/build/kfdmp-include' modules" ]] &&
	ok "MAKE: ${c[5]}" || bad "MAKE expands to '${c[5]}'"

# --- 4. the MAKE line against the headers -----------------------------------------------------------
kdir=/lib/modules/$KVER_DEFAULT/build
if [ ! -f "$kdir/Makefile" ]; then
	echo "SKIP: no headers at $kdir; the build part of this test needs $LINUX_HEADERS_PKG"
	[ "$fail" = 0 ] && exit 77 || exit 1
fi
stage=$tmp/dkms/amdgpu-kfdmp/$want_ver/build
mkdir -p "$(dirname "$stage")"
cp -a "$s" "$stage"
if (cd "$stage" && eval "nice ${c[5]} -j1") >"$tmp/make.log" 2>&1; then
	ko=$stage/${c[3]}/${c[2]}.ko
	if [ -f "$ko" ]; then
		ok "dkms.conf's MAKE built ${ko#"$stage"/} through the top-level Kbuild (vermagic $(modinfo -F vermagic "$ko" | awk '{print $1}'))"
		[ "$(modinfo -F vermagic "$ko" | awk '{print $1}')" = "$KVER_DEFAULT" ] || bad "vermagic is not $KVER_DEFAULT"
		[ -f "$stage/drivers/gpu/drm/amd/amdkfd/kfd_stub.o" ] && ok "the ../amdkfd object was built" || bad "no amdkfd object"
	else
		bad "MAKE succeeded but left no $ko"; tail -n 20 "$tmp/make.log"
	fi
else
	tail -n 30 "$tmp/make.log"; bad "dkms.conf's MAKE failed on the stub stage"
fi

# The control: the same stage without the include flag of the top-level
# Kbuild must fail on the trace header, as the real amdgpu_trace.h would.
neg=$tmp/neg
cp -a "$s" "$neg"
sed -i '/subdir-ccflags/d' "$neg/Kbuild"
if nice make -C "$kdir" M="$neg" modules -j1 >"$tmp/neg.log" 2>&1; then
	bad "control: the stage built without subdir-ccflags-y; the test no longer shows that the Kbuild flag is needed"
elif grep -q 'drivers/gpu/drm/amd/amdgpu/amdgpu_trace.h: No such file' "$tmp/neg.log"; then
	ok "control: without the Kbuild's include flag the trace header is not found"
else
	tail -n 10 "$tmp/neg.log"; bad "control: failed for another reason"
fi

# --- 5. dkms-install, dry ---------------------------------------------------------------------------
if out=$(DRY_RUN=1 TREE=$tree KVER=$KVER_DEFAULT "$root/scripts/testbox.sh" dkms-install 2>&1) &&
   grep -q "would run: dkms add -m amdgpu-kfdmp -v $want_ver" <<<"$out" &&
   grep -q "would run: dkms install -m amdgpu-kfdmp -v $want_ver -k $KVER_DEFAULT" <<<"$out" &&
   grep -q "/usr/src/amdgpu-kfdmp-$want_ver" <<<"$out"; then
	ok "DRY_RUN=1 dkms-install prints the stage path and dkms add/build/install"
else
	printf '%s\n' "$out"; bad "DRY_RUN=1 dkms-install"
fi
[ ! -e "/usr/src/amdgpu-kfdmp-$want_ver" ] && ok "DRY_RUN=1 left /usr/src alone" || bad "DRY_RUN=1 wrote /usr/src"
# --- 6. the vendor kind: the patched amdgpu-dkms tree under its own DKMS name -----------------------
# A stub of the tree make modules KSRC=... prepares (DKMS layout, git, tag
# kfdmp-base, the series as commits), a box whose /usr/src has the stock
# amdgpu-dkms source, and a dkms that reports the stock package installed.
vkver=5.10.134-13.an8.x86_64
vt=$tmp/tree-rocm
mkdir -p "$vt/amd/dkms" "$vt/amd/amdkfd" "$tmp/usrsrc/amdgpu-6.12.12-2194681.el8/amd/dkms" "$tmp/bin"
cat >"$vt/dkms.conf" <<'EOF'
PACKAGE_NAME="amdgpu"
PACKAGE_VERSION="6.12.12-2194681.el8"
AUTOINSTALL="yes"
BUILT_MODULE_NAME[0]="amdgpu"
BUILT_MODULE_LOCATION[0]="amd/amdgpu"
BUILT_MODULE_NAME[1]="amdttm"
BUILT_MODULE_LOCATION[1]="ttm"
MAKE[0]="'make' KERNELVER=$kernelver"
EOF
cp "$vt/dkms.conf" "$tmp/usrsrc/amdgpu-6.12.12-2194681.el8/dkms.conf"
printf '#!/bin/bash\n' >"$vt/amd/dkms/pre-build.sh"
chmod +x "$vt/amd/dkms/pre-build.sh"
git -C "$vt" init -q -b kfdmp && git -C "$vt" add -A && git -C "$vt" -c user.name=t -c user.email=t@t commit -q -m base && git -C "$vt" tag kfdmp-base
echo "/* series */" >"$vt/amd/amdkfd/kfd_mp.c"
git -C "$vt" add -A && git -C "$vt" -c user.name=t -c user.email=t@t commit -q -m "drm/amdkfd: the series"
# shellcheck disable=SC2016 # expands when it runs
printf '#!/bin/sh\n[ "$1" = status ] && echo "amdgpu/6.12.12-2194681.el8, %s, x86_64: installed"\nexit 0\n' "$vkver" >"$tmp/bin/dkms"
chmod +x "$tmp/bin/dkms"
vtb() { PATH=$tmp/bin:$PATH VENDOR_TREE=$vt KFDMP_USR_SRC=$tmp/usrsrc KVER=$vkver "$root/scripts/testbox.sh" "$@"; }
vver=6.12.12-2194681.el8-kfdmp
if vtb dkms-stage "$tmp/vstaged" >"$tmp/vstage.log" 2>&1; then ok "vendor dkms-stage: $(tail -n1 "$tmp/vstage.log")"
else cat "$tmp/vstage.log"; bad "vendor dkms-stage failed"; fi
vconf=$(
	# shellcheck disable=SC2034 # read by dkms.conf
	kernelver=$vkver
	# shellcheck disable=SC1091
	. "$tmp/vstaged/dkms.conf"
	# shellcheck disable=SC2031 # set by the sourced dkms.conf in this subshell
	printf '%s\n' "$PACKAGE_NAME" "$PACKAGE_VERSION" "$AUTOINSTALL" "${#BUILT_MODULE_NAME[@]}" "${MAKE[0]}"
)
mapfile -t v <<<"$vconf"
[ "${v[0]}" = amdgpu-kfdmp ] && [ "${v[1]}" = "$vver" ] && ok "vendor: its own DKMS name and version: ${v[0]} ${v[1]} (the stock package is amdgpu 6.12.12-2194681.el8)" ||
	bad "vendor: PACKAGE_NAME/VERSION '${v[0]}' '${v[1]}'"
[ "${v[2]}" = no ] && ok "vendor: AUTOINSTALL no" || bad "vendor: AUTOINSTALL '${v[2]}'"
[ "${v[3]}" = 2 ] && [ "${v[4]}" = "'make' KERNELVER=$vkver" ] && ok "vendor: the tree's modules and MAKE line kept: ${v[4]}" || bad "vendor: modules/MAKE changed: ${v[3]} '${v[4]}'"
[ -f "$tmp/vstaged/amd/amdkfd/kfd_mp.c" ] && [ -x "$tmp/vstaged/amd/dkms/pre-build.sh" ] && ok "vendor: the whole patched tree is staged" || bad "vendor: stage incomplete"
grep -q '^kind=vendor$' "$tmp/vstaged/kfdmp-stage.env" && grep -q '^stock_dkms=amdgpu/6.12.12-2194681.el8$' "$tmp/vstaged/kfdmp-stage.env" &&
	ok "vendor: kfdmp-stage.env records the stock package for dkms-remove" || { cat "$tmp/vstaged/kfdmp-stage.env"; bad "vendor: kfdmp-stage.env"; }
out=$(DRY_RUN=1 vtb dkms-install 2>&1) || true
grep -q "would run: dkms add -m amdgpu-kfdmp -v $vver" <<<"$out" && grep -q "would run: dkms install -m amdgpu-kfdmp -v $vver -k $vkver --force" <<<"$out" &&
	grep -q "/usr/src/amdgpu-kfdmp-$vver" <<<"$out" && ok "vendor: DRY_RUN=1 dkms-install stages /usr/src/amdgpu-kfdmp-$vver and runs dkms add/build/install" ||
	{ printf '%s\n' "$out"; bad "vendor: DRY_RUN=1 dkms-install"; }
out=$(DRY_RUN=1 vtb dkms-remove 2>&1) || true
grep -q "would run: dkms remove -m amdgpu-kfdmp -v $vver --all" <<<"$out" && grep -q "would run: rm -rf /usr/src/amdgpu-kfdmp-$vver" <<<"$out" &&
	grep -q "would run: dkms install -m amdgpu -v 6.12.12-2194681.el8 -k $vkver --force" <<<"$out" &&
	ok "vendor: DRY_RUN=1 dkms-remove removes ours and reinstalls the stock package's modules" || { printf '%s\n' "$out"; bad "vendor: DRY_RUN=1 dkms-remove"; }
out=$(DRY_RUN=1 VENDOR_TREE=$tmp/none PATH=$tmp/bin:$PATH KFDMP_USR_SRC=$tmp/usrsrc KVER=$vkver "$root/scripts/testbox.sh" dkms-install 2>&1) &&
	bad "vendor: no patched tree was not refused" || { grep -q 'make modules KSRC=' <<<"$out" && ok "vendor: without the patched tree: $out" || bad "vendor: message: $out"; }
[ ! -e "/usr/src/amdgpu-kfdmp-$vver" ] && ok "vendor: DRY_RUN=1 left /usr/src alone" || bad "vendor: DRY_RUN=1 wrote /usr/src"
verdict "dkms test"
