#!/usr/bin/env bash
# CI test of scripts/port-series.sh on throwaway trees made from the prepared
# base tree (build/tree, tag kfdmp-base). Skipped (exit 77) without it.
#
#  kernel layout: `git clone --shared --no-checkout` of the base (objects by
#  alternates: nothing is copied, and the shared repository's config is not
#  touched, which `git worktree add` + sparse-checkout would do), with a
#  sparse checkout of the directories the series touches (MAINTAINERS,
#  drivers/gpu/drm/Makefile, drivers/gpu/drm/amd/amdkfd/...), at kfdmp-base:
#    clean     every patch applies
#    context   a context line of a hunk of the first patch changed: the
#              patch applies by 3-way merge, the report says "applied (3-way)"
#    conflict  a line the first patch changes is changed too: the report
#              says CONFLICT with the file; stop mode leaves the git am
#              session open and the later patches "not tried"; --keep-going
#              skips it, tries the rest and leaves no session open
#  dkms layout: amd/amdkfd of the base in a fresh repository without the
#  base's objects, with a changed context line: the rewritten patches apply
#  (3-way, from preimage blobs copied from the base), MAINTAINERS and
#  drivers/gpu/drm/Makefile are reported as left out.
#  --dry-build prints the build command for both layouts.
# ok and bad always succeed (tests/test-lib.sh): `cond && ok .. || bad ..` is an if-else.
# shellcheck disable=SC2015
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
base=${TREE:-$root/build/tree}
port=$root/scripts/port-series.sh
if ! git -C "$base" rev-parse -q --verify kfdmp-base >/dev/null 2>&1; then
	echo "SKIP: no prepared base tree with tag kfdmp-base at $base (make tree)"
	exit 77
fi
scratch port-test

patches=()
for p in "$root"/patches/[0-9][0-9][0-9][0-9]-*.patch; do
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

# A line the first patch removes or changes, in a .c/.h file: FILE<TAB>LINE.
changed=$(awk '/^diff --git /{ f = $3; sub(/^a\//, "", f) } f ~ /\.[ch]$/ && /^-[^-]/ { print f "\t" substr($0, 2); exit }' "$first")
# The first context line of a hunk of the first patch that starts with three
# context lines: FILE<TAB>LINE.
context=$(awk '
	/^diff --git /{ f = $3; sub(/^a\//, "", f) }
	/^@@ / { h = 1; n = 0; next }
	h && /^ / { n++; if (n == 1) l = substr($0, 2); if (n == 3 && f ~ /\.[ch]$/ && l ~ /[a-z]/) { print f "\t" l; exit } next }
	{ h = 0 }' "$first")
[ -n "$changed" ] && [ -n "$context" ] || { echo "cannot find lines to change in $first"; exit 1; }

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
if "$port" "$tmp/clean" --report "$tmp/clean.txt" >"$tmp/clean.log" 2>&1; then
	ok "clean: port-series exits 0"
else
	cat "$tmp/clean.log"; bad "clean: port-series failed"
fi
n=$(grep -cE '^  [0-9]{4}-.* applied$' "$tmp/clean.txt" || true)
[ "$n" = "$npatch" ] && ok "clean: all $npatch patches reported applied" || { cat "$tmp/clean.txt"; bad "clean: $n of $npatch applied"; }
[ "$(git -C "$tmp/clean" rev-list --count vendor..kfdmp-port)" = "$npatch" ] && ok "clean: branch kfdmp-port holds $npatch commits" ||
	bad "clean: kfdmp-port does not hold $npatch commits"
[ "$(git -C "$tmp/clean" symbolic-ref --short HEAD)" = kfdmp-port ] && ok "clean: on kfdmp-port" || bad "clean: not on kfdmp-port"
# The same again is refused without --force, then works with it.
if "$port" "$tmp/clean" >/dev/null 2>&1; then bad "an existing kfdmp-port branch was not refused"
else ok "an existing kfdmp-port branch is refused without --force"; fi
git -C "$tmp/clean" checkout -q vendor
"$port" "$tmp/clean" --force >/dev/null 2>&1 && ok "--force replaces kfdmp-port" || bad "--force"

# --- context ---------------------------------------------------------------------------
vendor_tree "$tmp/ctx"
edit "$tmp/ctx" "$context"
if "$port" "$tmp/ctx" --report "$tmp/ctx.txt" >"$tmp/ctx.log" 2>&1; then
	ok "context: port-series exits 0"
else
	cat "$tmp/ctx.log"; bad "context: port-series failed"
fi
[ "$(status_of "$tmp/ctx.txt" 0001)" = "applied (3-way)" ] && ok "context: 0001 reported 'applied (3-way)' (changed: ${context%%$'\t'*})" ||
	{ cat "$tmp/ctx.txt"; bad "context: 0001 is '$(status_of "$tmp/ctx.txt" 0001)'"; }
grep -q 'vendor change' "$tmp/ctx/${context%%$'\t'*}" && ok "context: the vendor change survives the merge" || bad "context: vendor change lost"

# --- conflict, stop ----------------------------------------------------------------------
vendor_tree "$tmp/conf"
edit "$tmp/conf" "$changed"
if "$port" "$tmp/conf" --report "$tmp/conf.txt" >"$tmp/conf.log" 2>&1; then
	cat "$tmp/conf.log"; bad "conflict: port-series exited 0"
else
	ok "conflict: port-series exits non-zero"
fi
st=$(status_of "$tmp/conf.txt" 0001)
[[ $st == CONFLICT*"${changed%%$'\t'*}"* ]] && ok "conflict: 0001 reported: $st" || { cat "$tmp/conf.txt"; bad "conflict: 0001 is '$st'"; }
[ "$(status_of "$tmp/conf.txt" "$(printf %04d "$npatch")")" = "not tried" ] && ok "conflict: later patches 'not tried'" ||
	bad "conflict: the last patch is '$(status_of "$tmp/conf.txt" "$(printf %04d "$npatch")")'"
[ -d "$(git -C "$tmp/conf" rev-parse --absolute-git-dir)/rebase-apply" ] && ok "conflict: the git am session is left open for resolving" ||
	bad "conflict: no open git am session"
grep -q '^<<<<<<<' "$tmp/conf/${changed%%$'\t'*}" && ok "conflict: conflict markers in ${changed%%$'\t'*}" ||
	bad "conflict: no conflict markers"
grep -q 'am --continue' "$tmp/conf.txt" && ok "conflict: the report says how to go on" || bad "conflict: no hint"

# --- conflict, keep going ---------------------------------------------------------------------
vendor_tree "$tmp/keep"
edit "$tmp/keep" "$changed"
"$port" "$tmp/keep" --keep-going --report "$tmp/keep.txt" >"$tmp/keep.log" 2>&1 && bad "keep-going: exited 0" ||
	ok "keep-going: exits non-zero"
[[ $(status_of "$tmp/keep.txt" 0001) == CONFLICT* ]] && ok "keep-going: 0001 CONFLICT" || bad "keep-going: 0001 is '$(status_of "$tmp/keep.txt" 0001)'"
tried=$(grep -cE '^  [0-9]{4}-.* (applied|applied \(3-way\)|CONFLICT)( |$)' "$tmp/keep.txt" || true)
summary=$(for k in $(seq "$npatch"); do status_of "$tmp/keep.txt" "$(printf %04d "$k")" | cut -d' ' -f1; done | sort | uniq -c | tr -s ' \n' ' ')
[ "$tried" = "$npatch" ] && ok "keep-going: every patch was tried:$summary" ||
	{ cat "$tmp/keep.txt"; bad "keep-going: $tried of $npatch patches tried"; }
[ ! -d "$(git -C "$tmp/keep" rev-parse --absolute-git-dir)/rebase-apply" ] && ok "keep-going: no git am session left open" ||
	bad "keep-going: a git am session is still open"

# --- dkms layout -------------------------------------------------------------------------------
d=$tmp/dkms
mkdir -p "$d/amd"
git -C "$base" archive kfdmp-base drivers/gpu/drm/amd/amdkfd | tar -x -C "$tmp"
mv "$tmp/drivers/gpu/drm/amd/amdkfd" "$d/amd/amdkfd"
mkdir -p "$d/amd/dkms"
echo '#!/bin/sh' >"$d/amd/dkms/pre-build.sh"
cp -a "$d" "$tmp/dkms-plain"
# --init on a directory that is not a repository (as /usr/src/amdgpu-x.y is)
"$port" "$tmp/dkms-plain" --init >"$tmp/init.log" 2>&1 && git -C "$tmp/dkms-plain" rev-parse -q --verify kfdmp-port >/dev/null &&
	ok "--init makes a repository of an unpacked source and ports onto it" || { cat "$tmp/init.log"; bad "--init"; }
git -C "$d" init -q
git -C "$d" config user.name vendor
git -C "$d" config user.email vendor@example.org
git -C "$d" add -A
git -C "$d" commit -q -m "amdgpu-dkms sources (amd/amdkfd of the base)"
ctx_dkms=${context/#drivers\/gpu\/drm\/amd\//amd/}
edit "$d" "$ctx_dkms"
if "$port" "$d" --report "$tmp/dkms.txt" --dry-build >"$tmp/dkms.log" 2>&1; then
	ok "dkms layout: port-series exits 0 ($(grep -o '[0-9]* blob(s) copied' "$tmp/dkms.log"))"
else
	cat "$tmp/dkms.log"; bad "dkms layout: port-series failed"
fi
grep -q '^layout: dkms' "$tmp/dkms.txt" && ok "dkms layout detected" || bad "dkms layout not detected"
[ "$(status_of "$tmp/dkms.txt" 0001 | cut -d' ' -f1-2)" = "applied (3-way)" ] && ok "dkms layout: 0001 applied (3-way) with the changed context" ||
	{ cat "$tmp/dkms.txt"; bad "dkms layout: 0001 is '$(status_of "$tmp/dkms.txt" 0001)'"; }
grep -q 'left out (not in the dkms layout): MAINTAINERS' "$tmp/dkms.txt" && ok "dkms layout: MAINTAINERS reported as left out" ||
	bad "dkms layout: MAINTAINERS not reported"
[ -f "$d/amd/amdkfd/kfd_mp.c" ] && ok "dkms layout: amd/amdkfd/kfd_mp.c created" || bad "dkms layout: no amd/amdkfd/kfd_mp.c"
grep -q 'build (--dry-build): .*amd/dkms/pre-build.sh' "$tmp/dkms.log" && ok "dkms layout: --dry-build prints pre-build.sh + make" ||
	bad "dkms layout: --dry-build output"
git -C "$tmp/clean" checkout -q vendor
"$port" "$tmp/clean" --force --dry-build 2>&1 | grep -q "build (--dry-build): make -C .* M=$tmp/clean/drivers/gpu/drm/amd/amdgpu KCFLAGS=-I$tmp/clean/drivers/gpu" &&
	ok "kernel layout: --dry-build prints the M= build" || bad "kernel layout: --dry-build output"

echo "port test: $(( $(date +%s) - t0 )) s"
verdict "port test"
