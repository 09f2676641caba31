#!/usr/bin/env bash
# CI test of scripts/port-series.sh on throwaway trees made from the prepared
# base tree (build/tree, tag kfdmp-base). Skipped (exit 77) without it.
#
# DEST is never changed: every port works in its own --work directory
# (a git worktree of DEST, or a copy when DEST is not a repository).
#
#  kernel layout: `git clone --shared --no-checkout` of the base (objects by
#  alternates: nothing is copied, and the shared repository's config is not
#  touched, which `git worktree add` + sparse-checkout would do), with a
#  sparse checkout of the directories the series touches (MAINTAINERS,
#  drivers/gpu/drm/Makefile, drivers/gpu/drm/amd/amdkfd/...), at kfdmp-base:
#    clean     every patch applies
#    context   a context line of a hunk of the first patch changed: the
#              patch applies by 3-way merge, the report says "applied (3-way)"
#    conflict  a line a patch changes is changed too: the report
#              says CONFLICT with the file; stop mode leaves the git am
#              session open and the later patches "not tried"; --keep-going
#              skips it, tries the rest and leaves no session open
#  dkms layout: amd/amdkfd and amd/amdgpu of the base (and the include/
#  files the series changes, at the same path) in a fresh repository without
#  the base's objects, with a changed context line: the rewritten patches
#  apply (3-way, from preimage blobs of the series' base), include/ is
#  changed where it is, MAINTAINERS and drivers/gpu/drm/Makefile are
#  reported as left out; a directory that is
#  not a repository (as /usr/src/amdgpu-x.y is) is copied, not changed.
#  --dry-build prints the build command for both layouts.
#  The wrong merges on the vendor tree: port-vendor-test.sh.
# ok and bad always succeed (tests/test-lib.sh): `cond && ok .. || bad ..` is an if-else.
# shellcheck disable=SC2015
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
base=${TREE:-$root/build/tree}
port_sh=$root/scripts/port-series.sh
if ! git -C "$base" rev-parse -q --verify kfdmp-base >/dev/null 2>&1; then
	echo "SKIP: no prepared base tree with tag kfdmp-base at $base (make tree)"
	exit 77
fi
scratch port-test
# port DEST [ARGS]: port-series with this series, working in $tmp/w-<name of DEST>
port() { local d=$1; shift; "$port_sh" "$d" --series "$series" --work "$tmp/w-$(basename "$d")" "$@"; }

series=$root/patches/linux-6.12
[ -d "$series" ] || series=$root/patches
patches=()
for p in "$series"/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-*) ;; *) patches+=("$p") ;; esac
done
npatch=${#patches[@]}
first=${patches[0]}
# Paths the series touches, and sparse patterns for them: files at the top,
# directories (of the amd driver) otherwise.
mapfile -t touched < <(grep -h '^diff --git ' "${patches[@]}" | awk '{ sub(/^a\//, "", $3); print $3 }' | sort -u)
sparse=()
for f in "${touched[@]}"; do
	case $f in
	drivers/gpu/drm/amd/*) d=$(echo "$f" | cut -d/ -f1-5); sparse+=("/$d/") ;;
	*) sparse+=("/$f") ;;
	esac
done
mapfile -t sparse < <(printf '%s\n' "${sparse[@]}" | sort -u)

# A line a patch removes or changes, in a .c/.h file: FILE<TAB>LINE, from
# the first patch that has one (pc: its number). The line must occur once in
# its file: edit() changes the first line equal to it, and a common line
# (`dqm_unlock(dqm);`) would be changed somewhere the patch does not touch.
changed='' pc=''
# (in a file of the base, not one the series creates)
for p in "${patches[@]}"; do
	while IFS= read -r c; do
		git -C "$base" cat-file -e "kfdmp-base:${c%%$'\t'*}" 2>/dev/null || continue
		[ "$(git -C "$base" show "kfdmp-base:${c%%$'\t'*}" | grep -cxF -- "${c#*$'\t'}")" = 1 ] || continue
		changed=$c
		break
	done < <(awk '/^diff --git /{ f = $3; sub(/^a\//, "", f) } f ~ /\.[ch]$/ && /^-[^-]/ { print f "\t" substr($0, 2) }' "$p")
	[ -z "$changed" ] || { pc=$(basename "$p" | cut -c1-4); break; }
done
# The first context line of a hunk of the first patch that starts with three
# context lines: FILE<TAB>LINE.
context=$(awk '
	/^diff --git /{ f = $3; sub(/^a\//, "", f) }
	/^@@ / { h = 1; n = 0; next }
	h && /^ / { n++; if (n == 1) l = substr($0, 2); if (n == 3 && f ~ /\.[ch]$/ && l ~ /[a-z]/) { print f "\t" l; exit } next }
	{ h = 0 }' "$first")
[ -n "$changed" ] && [ -n "$context" ] || { echo "cannot find lines to change in the series $series"; exit 1; }

# vendor_tree DIR: a sparse clone of the base at kfdmp-base on branch vendor.
vendor_tree() {
	git clone -q --shared --no-checkout --branch kfdmp-base "$base" "$1" 2>/dev/null
	git -C "$1" sparse-checkout set --no-cone "${sparse[@]}"
	git -C "$1" checkout -q -b vendor
	git -C "$1" config user.name vendor
	git -C "$1" config user.email vendor@example.org
}

# edit DIR FILE<TAB>LINE: append a comment to the first line equal to LINE.
edit() {
	local dir=$1 file=${2%%$'\t'*} line=${2#*$'\t'}
	LINE=$line awk '!done && $0 == ENVIRON["LINE"] { $0 = $0 " /* vendor change */"; done = 1 } { print } END { exit !done }' \
		"$dir/$file" >"$dir/$file.new" || { echo "line not found in $file: $line"; return 1; }
	mv "$dir/$file.new" "$dir/$file"
	git -C "$dir" commit -q -a -m "vendor: change $file"
}

status_of() { # REPORT NNNN: the status column of patch NNNN
	awk -v n="$2" '$1 ~ "^"n"-" { $1 = ""; sub(/^ +/, ""); print; exit }' "$1"
}

t0=$(date +%s)
# --- clean ---------------------------------------------------------------------------
vendor_tree "$tmp/clean"
ok "sparse clone of the base: $(find "$tmp/clean" -path "$tmp/clean/.git" -prune -o -type f -print | wc -l) files checked out ($(( $(date +%s) - t0 )) s; patterns: ${sparse[*]})"
if port "$tmp/clean" --report "$tmp/clean.txt" >"$tmp/clean.log" 2>&1; then
	ok "clean: port-series exits 0"
else
	cat "$tmp/clean.log"; bad "clean: port-series failed"
fi
n=$(grep -cE '^  [0-9]{4}-.* applied$' "$tmp/clean.txt" || true)
[ "$n" = "$npatch" ] && ok "clean: all $npatch patches reported applied" || { cat "$tmp/clean.txt"; bad "clean: $n of $npatch applied"; }
[ "$(git -C "$tmp/clean" rev-list --count vendor..kfdmp-port)" = "$npatch" ] && ok "clean: branch kfdmp-port holds $npatch commits" ||
	bad "clean: kfdmp-port does not hold $npatch commits"
[ "$(git -C "$tmp/w-clean" symbolic-ref --short HEAD)" = kfdmp-port ] && ok "clean: the work tree is on kfdmp-port" || bad "clean: work tree not on kfdmp-port"
[ "$(git -C "$tmp/clean" symbolic-ref --short HEAD)" = vendor ] && [ -z "$(git -C "$tmp/clean" status --porcelain)" ] &&
	ok "clean: DEST is still on its branch, unchanged" || bad "clean: DEST changed"
# The same again is refused without --force, then works with it.
if port "$tmp/clean" >/dev/null 2>&1; then bad "an existing work tree was not refused"
else ok "an existing work tree (and kfdmp-port branch) is refused without --force"; fi
# (--force replaces them: the --dry-build run at the end)

# --- context ---------------------------------------------------------------------------
vendor_tree "$tmp/ctx"
edit "$tmp/ctx" "$context"
if port "$tmp/ctx" --report "$tmp/ctx.txt" >"$tmp/ctx.log" 2>&1; then
	ok "context: port-series exits 0"
else
	cat "$tmp/ctx.log"; bad "context: port-series failed"
fi
[ "$(status_of "$tmp/ctx.txt" 0001)" = "applied (3-way)" ] && ok "context: 0001 reported 'applied (3-way)' (changed: ${context%%$'\t'*})" ||
	{ cat "$tmp/ctx.txt"; bad "context: 0001 is '$(status_of "$tmp/ctx.txt" 0001)'"; }
grep -q 'vendor change' "$tmp/w-ctx/${context%%$'\t'*}" && ok "context: the vendor change survives the merge" || bad "context: vendor change lost"

# --- conflict, stop ----------------------------------------------------------------------
vendor_tree "$tmp/conf"
edit "$tmp/conf" "$changed"
if port "$tmp/conf" --report "$tmp/conf.txt" >"$tmp/conf.log" 2>&1; then
	cat "$tmp/conf.log"; bad "conflict: port-series exited 0"
else
	ok "conflict: port-series exits non-zero"
fi
st=$(status_of "$tmp/conf.txt" "$pc")
[[ $st == CONFLICT* ]] && grep -qF "! ${changed%%$'\t'*}:" "$tmp/conf.txt" && ok "conflict: $pc reported: $st, with ${changed%%$'\t'*}" ||
	{ cat "$tmp/conf.txt"; bad "conflict: $pc is '$st'"; }
[[ $(status_of "$tmp/conf.txt" "$(printf %04d "$npatch")") == "not tried"* ]] && ok "conflict: later patches 'not tried'" ||
	bad "conflict: the last patch is '$(status_of "$tmp/conf.txt" "$(printf %04d "$npatch")")'"
[ -d "$(git -C "$tmp/w-conf" rev-parse --absolute-git-dir)/rebase-apply" ] && ok "conflict: the git am session is left open for resolving" ||
	bad "conflict: no open git am session"
grep -q '^<<<<<<<' "$tmp/w-conf/${changed%%$'\t'*}" && ! grep -q '^<<<<<<<' "$tmp/conf/${changed%%$'\t'*}" && ok "conflict: conflict markers in ${changed%%$'\t'*}" ||
	bad "conflict: no conflict markers"
grep -q 'am --continue' "$tmp/conf.txt" && ok "conflict: the report says how to go on" || bad "conflict: no hint"

# --- conflict, keep going ---------------------------------------------------------------------
vendor_tree "$tmp/keep"
edit "$tmp/keep" "$changed"
port "$tmp/keep" --keep-going --report "$tmp/keep.txt" >"$tmp/keep.log" 2>&1 && bad "keep-going: exited 0" ||
	ok "keep-going: exits non-zero"
[[ $(status_of "$tmp/keep.txt" "$pc") == CONFLICT* ]] && ok "keep-going: $pc CONFLICT" || bad "keep-going: $pc is '$(status_of "$tmp/keep.txt" "$pc")'"
tried=$(grep -cE '^  [0-9]{4}-.* (applied|applied \(3-way\)|CONFLICT)( |$)' "$tmp/keep.txt" || true)
summary=$(for k in $(seq "$npatch"); do status_of "$tmp/keep.txt" "$(printf %04d "$k")" | cut -d' ' -f1; done | sort | uniq -c | tr -s ' \n' ' ')
[ "$tried" = "$npatch" ] && ok "keep-going: every patch was tried:$summary" ||
	{ cat "$tmp/keep.txt"; bad "keep-going: $tried of $npatch patches tried"; }
[ ! -d "$(git -C "$tmp/w-keep" rev-parse --absolute-git-dir)/rebase-apply" ] && ok "keep-going: no git am session left open" ||
	bad "keep-going: a git am session is still open"

# --- dkms layout -------------------------------------------------------------------------------
d=$tmp/dkms
mkdir -p "$d/amd"
# and the files under include/ the series changes, at the same path (as
# amdgpu-dkms carries include/uapi/linux/kfd_ioctl.h)
mapfile -t incs < <(printf '%s\n' "${touched[@]}" | grep '^include/' || true)
have=()
for f in "${incs[@]}"; do git -C "$base" cat-file -e "kfdmp-base:$f" 2>/dev/null && have+=("$f"); done
git -C "$base" archive kfdmp-base drivers/gpu/drm/amd/amdkfd drivers/gpu/drm/amd/amdgpu "${have[@]}" | tar -x -C "$tmp"
mv "$tmp/drivers/gpu/drm/amd/amdkfd" "$d/amd/amdkfd"
mv "$tmp/drivers/gpu/drm/amd/amdgpu" "$d/amd/amdgpu"
[ ${#have[@]} = 0 ] || mv "$tmp/include" "$d/include"
mkdir -p "$d/amd/dkms"
echo '#!/bin/sh' >"$d/amd/dkms/pre-build.sh"
cp -a "$d" "$tmp/dkms-plain"
# a directory that is not a repository (as /usr/src/amdgpu-x.y is): copied
port "$tmp/dkms-plain" >"$tmp/init.log" 2>&1 && git -C "$tmp/w-dkms-plain" rev-parse -q --verify kfdmp-port >/dev/null &&
	[ ! -e "$tmp/dkms-plain/.git" ] && [ ! -e "$tmp/dkms-plain/amd/amdkfd/kfd_mp.c" ] &&
	ok "a directory that is not a repository is copied, the copy made a repository and ported; the directory is unchanged" ||
	{ cat "$tmp/init.log"; bad "port of a plain directory"; }
git -C "$d" init -q
git -C "$d" config user.name vendor
git -C "$d" config user.email vendor@example.org
git -C "$d" add -A
git -C "$d" commit -q -m "amdgpu-dkms sources (amd/amdkfd of the base)"
ctx_dkms=${context/#drivers\/gpu\/drm\/amd\//amd/}
edit "$d" "$ctx_dkms"
if port "$d" --report "$tmp/dkms.txt" --dry-build >"$tmp/dkms.log" 2>&1; then
	ok "dkms layout: port-series exits 0 ($(grep -o '[0-9]* blob(s) copied' "$tmp/dkms.log"))"
else
	cat "$tmp/dkms.log"; bad "dkms layout: port-series failed"
fi
grep -q '^layout: dkms' "$tmp/dkms.txt" && ok "dkms layout detected" || bad "dkms layout not detected"
[ "$(status_of "$tmp/dkms.txt" 0001 | cut -d' ' -f1-2)" = "applied (3-way)" ] && ok "dkms layout: 0001 applied (3-way) with the changed context" ||
	{ cat "$tmp/dkms.txt"; bad "dkms layout: 0001 is '$(status_of "$tmp/dkms.txt" 0001)'"; }
grep -q 'left out (not in the dkms layout): MAINTAINERS' "$tmp/dkms.txt" && ok "dkms layout: MAINTAINERS reported as left out" ||
	bad "dkms layout: MAINTAINERS not reported"
if [ ${#incs[@]} -gt 0 ]; then
	if grep -q 'left out (not in the dkms layout):.* include/' "$tmp/dkms.txt"; then bad "dkms layout: include/ reported as left out"
	elif git -C "$tmp/w-dkms" diff --quiet "$(git -C "$d" rev-parse HEAD)" kfdmp-port -- "${incs[@]}"; then bad "dkms layout: the series' changes to ${incs[*]} are missing"
	else ok "dkms layout: ${incs[*]} changed at the same path, not left out"; fi
fi
[ -f "$tmp/w-dkms/amd/amdkfd/kfd_mp.c" ] && [ ! -e "$d/amd/amdkfd/kfd_mp.c" ] && ok "dkms layout: amd/amdkfd/kfd_mp.c created in the work tree, not in DEST" || bad "dkms layout: kfd_mp.c"
grep -q "build (--dry-build): make -C $tmp/w-dkms.build KERNELVER=$KVER_DEFAULT kernel_build_dir=/lib/modules/$KVER_DEFAULT/build .* modules" "$tmp/dkms.log" &&
	ok "dkms layout: --dry-build prints the tree's own make (KERNELVER=, on a copy)" || { grep build "$tmp/dkms.log"; bad "dkms layout: --dry-build output"; }
port "$tmp/clean" --force --dry-build 2>&1 | grep -q "build (--dry-build): make -C .* M=$tmp/w-clean/drivers/gpu/drm/amd/amdgpu KCFLAGS=-I$tmp/w-clean/drivers/gpu" &&
	ok "kernel layout: --force replaces the work tree; --dry-build prints the M= build" || bad "kernel layout: --force --dry-build"

echo "port test: $(( $(date +%s) - t0 )) s"
verdict "port test"
