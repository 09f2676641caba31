#!/usr/bin/env bash
# Port the series to another driver tree: apply it patch by patch with
# `git am --3way` on a copy of the tree, check every merge, report per patch
# and per conflict, and optionally build the result the way DKMS does.
#
#   scripts/port-series.sh [OPTIONS] DEST
#
# DEST is never changed: the work happens in --work DIR (default
# build/port/<name of DEST>): a `git worktree` of DEST's HEAD on a new
# branch (--branch) when DEST is a git repository, else a copy of DEST made
# a git repository (first commit: DEST as found). Layouts (--layout, default
# auto):
#   kernel  a kernel tree (drivers/gpu/drm/amd/...): upstream, a
#           distribution's kernel, ROCm's ROCK-Kernel-Driver
#   dkms    the amdgpu-dkms source (amd/amdgpu, amd/amdkfd, amd/dkms at the
#           top), as in /usr/src/amdgpu-<version>; paths are rewritten,
#           include/ keeps its path (the tree carries
#           include/uapi/linux/kfd_ioctl.h), and files outside the driver
#           (MAINTAINERS, drivers/gpu/drm/Makefile) are left out and listed
#
# Options:
#   --series DIR   the series (default: for a dkms DEST patches/rocm-6.4,
#                  for a kernel DEST patches/linux-6.12, whichever exists
#                  first of those two, else patches/)
#   --base SRC     the source the series was made against, to rebuild each
#                  patch's preimage for the 3-way merge and to know what each
#                  patch intends: a tarball, a directory or a git repository
#                  (its tag kfdmp-base if it has one, else HEAD). Default: for
#                  patches/rocm-* the amdgpu-dkms tarball in ../shared/vendor/
#                  (VENDOR_TARBALL); otherwise build/tree if `make tree` made
#                  it, else KSRC (/usr/src/linux-source-6.12.tar.xz). Only the
#                  files the series touches are read; the result is cached in
#                  build/port/base-*
#   --pristine SRC the pristine vendor source DEST started from (a tarball
#                  or a directory), to tell, per conflict, whether the
#                  destination's lines are the vendor's own ("base") or local
#                  edits ("local"); without it the origin is "?"
#   --work DIR     where to work (default build/port/<name of DEST>); an
#                  existing one is refused unless --force
#   --branch NAME  the branch made there (default kfdmp-port)
#   --keep-going   survey the whole series: a conflicting region keeps the
#                  destination's side (the patch's lines there are left out),
#                  the rest of the patch is committed (its message says so),
#                  and the next patch is tried. Default: stop at the first
#                  conflict with the `git am` session open in the work tree
#                  (conflict markers in place, the remaining patches queued:
#                  resolve, `git add`, `git am --continue`)
#   --build        after every patch applied, build from a copy of the work
#                  tree: dkms layout: the tree's own top-level Makefile, as
#                  DKMS runs it (make KERNELVER=KVER: amd/dkms/pre-build.sh
#                  with its four arguments, configure, the headers' sanity
#                  check, the build, post-build.sh) against KDIR; kernel
#                  layout: M=drivers/gpu/drm/amd/amdgpu against KDIR
#   --dry-build    print the build instead of running it
#   --make-args S  more arguments for that make (dkms layout), e.g. a switch
#                  of the tree's configure
#   --report FILE  also write the report to FILE
#   --force        replace an existing --work and --branch
#
# Per patch: applied; applied (3-way) - git merged it from the preimage;
# CONFLICT - git could not merge a region, or it merged one wrongly; not
# tried - after a conflict without --keep-going; nothing to apply - no file
# of the patch exists in this layout. Under each patch, one line per
# finding: FILE:LINE, the function or struct, the origin of the
# destination's lines there (base, local, base+local, ?), and what:
#   conflict     git left conflict markers
#   both-kept    both sides inserted lines at one place outside a function
#                body; both were kept, and the patch's lines land in the
#                definition the patch puts them in (not a conflict)
#   wrong-scope  the patch's lines land in another function or struct than
#                the one the patch puts them in
#   declaration  the merge drops a declaration the destination still uses
#   lock         the merge makes a function release a lock it does not take
# A wrong merge counts as a conflict, also when git reported success.
# Exit status: 0 every patch applied (and built, with --build); 1 a
# conflict or a failed build; 2 usage.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

LAYOUT=auto
SERIES_DIR=
BASE_SRC=
PRISTINE=
WORK=
BRANCH=kfdmp-port
KEEP_GOING=0
DO_BUILD=0
DRY_BUILD=0
MAKE_ARGS=
REPORT=
FORCE=0
DEST=
CHECK=$ROOT/scripts/port-check.py

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
need_arg() { if [ $# -lt 2 ] || [ -z "$2" ]; then echo "port-series: $1 needs a value" >&2; exit 2; fi; }
while [ $# -gt 0 ]; do
	case $1 in
	--layout|--series|--base|--pristine|--work|--branch|--make-args|--report) need_arg "$@" ;;
	esac
	case $1 in
	--layout) LAYOUT=$2; shift ;;
	--series) SERIES_DIR=$2; shift ;;
	--base) BASE_SRC=$2; shift ;;
	--pristine) PRISTINE=$2; shift ;;
	--work) WORK=$2; shift ;;
	--branch) BRANCH=$2; shift ;;
	--keep-going) KEEP_GOING=1 ;;
	--build) DO_BUILD=1 ;;
	--dry-build) DO_BUILD=1; DRY_BUILD=1 ;;
	--make-args) MAKE_ARGS=$2; shift ;;
	--report) REPORT=$2; shift ;;
	--force) FORCE=1 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "port-series: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) [ -z "$DEST" ] || { echo "port-series: one DEST only" >&2; exit 2; }; DEST=$1 ;;
	esac
	shift
done
[ -n "$DEST" ] || { echo "usage: $0 [OPTIONS] DEST (see --help)" >&2; exit 2; }
case $LAYOUT in auto|kernel|dkms) ;; *) echo "port-series: --layout: kernel, dkms or auto" >&2; exit 2 ;; esac
[ -d "$DEST" ] || die "no directory $DEST"
DEST=$(cd "$DEST" && pwd)
command -v python3 >/dev/null || die "python3 is missing (scripts/setup-deps.sh)"

if [ "$LAYOUT" = auto ]; then
	if [ -d "$DEST/drivers/gpu/drm/amd/amdkfd" ]; then LAYOUT=kernel
	elif [ -d "$DEST/amd/amdkfd" ]; then LAYOUT=dkms
	else die "cannot tell the layout of $DEST (no drivers/gpu/drm/amd/amdkfd, no amd/amdkfd); give --layout"; fi
fi

# --- the series -------------------------------------------------------------------------------
if [ -z "$SERIES_DIR" ]; then
	if [ "$LAYOUT" = dkms ]; then cands=(rocm-6.4 linux-6.12); else cands=(linux-6.12 rocm-6.4); fi
	SERIES_DIR=$ROOT/patches
	for c in "${cands[@]}"; do
		[ -d "$ROOT/patches/$c" ] && { SERIES_DIR=$ROOT/patches/$c; break; }
	done
fi
[ -d "$SERIES_DIR" ] || die "--series: no directory $SERIES_DIR"
SERIES_DIR=$(cd "$SERIES_DIR" && pwd)
PLIST=()
for p in "$SERIES_DIR"/[0-9][0-9][0-9][0-9]-*.patch; do
	[ -e "$p" ] || continue
	case $p in */0000-cover-letter.patch) continue ;; esac
	PLIST+=("$p")
done
[ ${#PLIST[@]} -gt 0 ] || die "--series: $SERIES_DIR holds no NNNN-*.patch"
first_path=$(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "${PLIST[@]}" | grep -m1 -E '^(amd|drivers/gpu/drm/amd)/' || true)
case $first_path in
amd/*) SLAYOUT=dkms ;;
drivers/gpu/drm/amd/*) SLAYOUT=kernel ;;
*) die "cannot tell the layout of the series in $SERIES_DIR (no path under amd/ or drivers/gpu/drm/amd/)" ;;
esac

# Files the series changes that exist before it (series paths), in order.
mapfile -t NEEDED < <(awk '
	/^diff --git / { f = $3; sub(/^a\//, "", f); isnew = 0; pending = f; next }
	/^new file mode/ { created[pending] = 1; next }
	/^(---|index) / && pending != "" { if (!(pending in created) && !(pending in seen)) { seen[pending] = 1; print pending } pending = "" }
' "${PLIST[@]}")

# --- the base: the series' own base, with the series applied as commits --------------------------
VENDOR_TARBALL=${VENDOR_TARBALL:-$(find "$ROOT/../shared/vendor" -maxdepth 1 -name 'amdgpu-dkms-*.tar.xz' 2>/dev/null | sort -V | tail -n1 || true)}
base_rev=
if [ -z "$BASE_SRC" ]; then
	case $SERIES_DIR in
	*/rocm-*)
		[ -f "${VENDOR_TARBALL:-/nonexistent}" ] ||
			die "no base for $SERIES_DIR: no amdgpu-dkms tarball in $ROOT/../shared/vendor (give --base with the ROCm source the series was made against)"
		BASE_SRC=$VENDOR_TARBALL ;;
	*)
		if git -C "$TREE" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null 2>&1; then BASE_SRC=$TREE
		elif [ -e "$KSRC" ]; then BASE_SRC=$KSRC
		else die "no base for $SERIES_DIR: neither a prepared tree ($TREE, make tree) nor KSRC=$KSRC (apt-get install $LINUX_SOURCE_PKG, or give --base)"; fi ;;
	esac
fi
[ -e "$BASE_SRC" ] || die "--base: no such file or directory $BASE_SRC"
BASE_SRC=$(cd "$(dirname "$BASE_SRC")" && pwd)/$(basename "$BASE_SRC")

# alt_path P: P in the other layout.
alt_path() {
	case $1 in
	drivers/gpu/drm/amd/*) echo "amd/${1#drivers/gpu/drm/amd/}" ;;
	amd/*) echo "drivers/gpu/drm/amd/${1#amd/}" ;;
	*) echo "$1" ;;
	esac
}

# extract_files SRC OUT PATH...: the files PATH (series layout) of SRC (a
# tarball, a directory or a git repository) into OUT, under their series path.
extract_files() {
	local src=$1 out=$2 p a f rev got
	shift 2
	mkdir -p "$out"
	if [ -f "$src" ]; then
		local pats=() x=$out.x
		rm -rf "$x"; mkdir -p "$x"
		for p in "$@"; do pats+=("*/$p" "*/$(alt_path "$p")" "$p" "$(alt_path "$p")"); done
		tar -x -C "$x" -f "$src" --wildcards --no-wildcards-match-slash "${pats[@]}" 2>/dev/null || true
		for p in "$@"; do
			got=
			for a in "$p" "$(alt_path "$p")"; do
				got=$(find "$x" -path "*/$a" -type f 2>/dev/null | awk '{ print length($0) "\t" $0 }' | sort -n | head -n1 | cut -f2)
				[ -z "$got" ] || break
			done
			[ -n "$got" ] || continue
			mkdir -p "$out/$(dirname "$p")"
			mv "$got" "$out/$p"
		done
		rm -rf "$x"
	elif git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		rev=$(git -C "$src" rev-parse -q --verify "$BASE_TAG^{commit}" 2>/dev/null || git -C "$src" rev-parse HEAD)
		base_rev=$rev
		for p in "$@"; do
			for a in "$p" "$(alt_path "$p")"; do
				if git -C "$src" cat-file -e "$rev:$a" 2>/dev/null; then
					mkdir -p "$out/$(dirname "$p")"
					git -C "$src" cat-file blob "$rev:$a" >"$out/$p"
					break
				fi
			done
		done
	else
		for p in "$@"; do
			for f in "$src/$p" "$src/$(alt_path "$p")"; do
				[ -f "$f" ] || continue
				mkdir -p "$out/$(dirname "$p")"
				cp "$f" "$out/$p"
				break
			done
		done
	fi
}

key=$( { printf '%s\n' "$BASE_SRC" "$SLAYOUT"; stat -c '%s %Y' "$BASE_SRC"; git -C "$BASE_SRC" rev-parse HEAD 2>/dev/null || true; cat "${PLIST[@]}"; } | sha1sum | cut -c1-12)
SBASE=$BUILD/port/base-$key
if ! git -C "$SBASE" rev-parse -q --verify refs/heads/series >/dev/null 2>&1; then
	note "preparing the series' base from $BASE_SRC (${#NEEDED[@]} files) in $SBASE"
	rm -rf "$SBASE" "$SBASE.tmp"
	mkdir -p "$SBASE.tmp"
	extract_files "$BASE_SRC" "$SBASE.tmp" "${NEEDED[@]}"
	missing=()
	for p in "${NEEDED[@]}"; do [ -f "$SBASE.tmp/$p" ] || missing+=("$p"); done
	# Files outside the driver (MAINTAINERS, drivers/gpu/drm/Makefile) may
	# be absent from a dkms-layout base; the patches touching them fail below.
	git_init "$SBASE.tmp" base
	git -C "$SBASE.tmp" add -A -f .
	git -C "$SBASE.tmp" commit -q --allow-empty -m "base: ${#NEEDED[@]} files of $BASE_SRC"
	git -C "$SBASE.tmp" checkout -q -b series
	for p in "${PLIST[@]}"; do
		if ! git -C "$SBASE.tmp" am -q "$p" >"$SBASE.tmp.log" 2>&1; then
			git -C "$SBASE.tmp" am --abort 2>/dev/null || true
			die "--base $BASE_SRC is not the base of $SERIES_DIR: $(basename "$p") does not apply to it$([ ${#missing[@]} = 0 ] || echo "; files not found there: ${missing[*]}") ($(grep -m1 -E 'error|does not' "$SBASE.tmp.log" || true))"
		fi
	done
	mv "$SBASE.tmp" "$SBASE"
	rm -f "$SBASE.tmp.log"
fi
mapfile -t SCOMMITS < <(git -C "$SBASE" rev-list --reverse base..series)
[ ${#SCOMMITS[@]} = ${#PLIST[@]} ] || die "$SBASE: ${#SCOMMITS[@]} commits for ${#PLIST[@]} patches (remove it and run again)"

# --- the pristine vendor source (only the files the series touches) ----------------------------------
PRIS=
if [ -n "$PRISTINE" ]; then
	[ -e "$PRISTINE" ] || die "--pristine: no such file or directory $PRISTINE"
	PRIS=$(mktemp -d /tmp/kfdmp-port-pristine.XXXXXX)
	mapfile -t touched < <(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "${PLIST[@]}" | sort -u)
	extract_files "$PRISTINE" "$PRIS" "${touched[@]}"
	[ -n "$(find "$PRIS" -type f | head -n1)" ] || die "--pristine $PRISTINE holds none of the files the series changes"
fi

# --- the work tree -----------------------------------------------------------------------------------
: "${WORK:=$BUILD/port/$(basename "$DEST")}"
mkdir -p "$(dirname "$WORK")"
WORK=$(cd "$(dirname "$WORK")" && pwd)/$(basename "$WORK")
case $WORK/ in "$DEST"/*) die "--work $WORK is inside DEST; DEST is never changed: give a directory outside it" ;; esac
DEST_GIT=0
git -C "$DEST" rev-parse --git-dir >/dev/null 2>&1 && [ "$(git -C "$DEST" rev-parse --show-toplevel)" = "$DEST" ] && DEST_GIT=1
if [ -e "$WORK" ]; then
	[ "$FORCE" = 1 ] || die "--work $WORK exists (--force replaces it, --work picks another)"
	if [ "$DEST_GIT" = 1 ] && git -C "$DEST" worktree list --porcelain | grep -qx "worktree $WORK"; then
		git -C "$DEST" worktree remove --force "$WORK"
	fi
	rm -rf "$WORK" "$WORK.build"
	[ "$DEST_GIT" = 0 ] || git -C "$DEST" worktree prune
fi
if [ "$DEST_GIT" = 1 ]; then
	[ -z "$(git -C "$DEST" status --porcelain --untracked-files=no)" ] ||
		note "warning: $DEST has uncommitted changes; the port starts from its HEAD without them"
	if git -C "$DEST" rev-parse -q --verify "refs/heads/$BRANCH" >/dev/null; then
		[ "$FORCE" = 1 ] || die "branch $BRANCH exists in $DEST (--force replaces it, --branch picks another)"
		[ "$(git -C "$DEST" symbolic-ref -q --short HEAD || true)" != "$BRANCH" ] || die "branch $BRANCH is checked out in $DEST; give --branch"
	fi
	git -C "$DEST" worktree add -q --detach "$WORK" HEAD
	git -C "$WORK" checkout -q -B "$BRANCH"
	from="$(basename "$DEST") $(git -C "$DEST" rev-parse --short HEAD) (git worktree)"
else
	note "copying $DEST to $WORK (DEST is not a git repository)"
	mkdir -p "$WORK"
	cp -a "$DEST/." "$WORK/"
	git_init "$WORK" vendor
	git -C "$WORK" add -A -f .
	git -C "$WORK" commit -q -m "Vendor tree as found in $DEST"
	git -C "$WORK" checkout -q -b "$BRANCH"
	from="a copy of $DEST"
fi
GITDIR=$(git -C "$WORK" rev-parse --absolute-git-dir)
PDIR=$GITDIR/kfdmp-port
rm -rf "$PDIR"
mkdir -p "$PDIR"
tmp=$(mktemp -d /tmp/kfdmp-port.XXXXXX)
trap 'rm -rf "$tmp" ${PRIS:+"$PRIS"}' EXIT

# Every blob of the series' base and of each patch's result, for --3way.
git -C "$WORK" fetch -q --no-tags "$SBASE" "+refs/heads/series:refs/kfdmp-port/series"
git -C "$WORK" update-ref -d refs/kfdmp-port/series

# --- the patches in DEST's layout ---------------------------------------------------------------------
# to_dest P: a series path in DEST's layout, or nothing when it has no place there.
to_dest() {
	if [ "$SLAYOUT" = "$LAYOUT" ]; then echo "$1"; return; fi
	case $LAYOUT:$1 in
	dkms:drivers/gpu/drm/amd/*|kernel:amd/*) alt_path "$1" ;;
	*:include/*) echo "$1" ;;
	esac
}
# to_series P: a path of DEST in the series' layout.
to_series() { if [ "$SLAYOUT" = "$LAYOUT" ]; then echo "$1"; else alt_path "$1"; fi; }
declare -a RPATCH=() STATUS=() DETAIL=()
for i in "${!PLIST[@]}"; do
	p=${PLIST[$i]}
	out=$PDIR/$(basename "$p")
	STATUS[i]="not tried"
	DETAIL[i]=
	if [ "$SLAYOUT" = "$LAYOUT" ]; then
		cp "$p" "$out"
	else
		from_re='drivers\/gpu\/drm\/amd\/' to_pre='amd/'
		[ "$SLAYOUT" = dkms ] && { from_re='amd\/'; to_pre='drivers/gpu/drm/amd/'; }
		awk -v dropped="$tmp/dropped.$i" -v from="^$from_re" -v to="$to_pre" '
			function fix(s,  pre, rest) {
				# s: "a/PATH" or "b/PATH"
				pre = substr(s, 1, 2); rest = substr(s, 3)
				if (rest ~ from) { sub(from, to, rest) }
				return pre rest
			}
			/^diff --git / {
				f = $3; sub(/^a\//, "", f)
				keep = (f ~ from || f ~ /^include\//)
				if (!keep) print f >> dropped
				if (keep) { $3 = fix($3); $4 = fix($4) }
			}
			!started && /^diff --git / { started = 1 }
			!started { print; next }
			keep {
				if ($0 ~ /^--- a\//) { $0 = "--- " fix(substr($0, 5)) }
				else if ($0 ~ /^\+\+\+ b\//) { $0 = "+++ " fix(substr($0, 5)) }
				else if ($0 ~ /^rename (from|to) /) { w = $2; r = substr($0, length("rename " w " ") + 1); if (r ~ from) sub(from, to, r); $0 = "rename " w " " r }
				print
			}
		' "$p" >"$out"
		if [ -f "$tmp/dropped.$i" ]; then
			DETAIL[i]="left out (not in the $LAYOUT layout): $(sort -u "$tmp/dropped.$i" | paste -sd' ')"
		fi
	fi
	RPATCH[i]=$out
	grep -q '^diff --git ' "$out" || STATUS[i]="nothing to apply"
done

# --- checks of one patch's result -----------------------------------------------------------------------
# check_patch I PRE [resolve]: run port-check.py on every file patch I
# changes that existed before it; findings go to $tmp/find.I (FILE<TAB>...).
# With "resolve", conflicted files get their survey resolution in
# $tmp/resolved/FILE.
check_patch() {
	local i=$1 pre=$2 mode=${3:-} sp dp rc n=0 d
	local sb=${SCOMMITS[$i]}^ st=${SCOMMITS[$i]}
	: >"$tmp/find.$i"
	: >"$tmp/manifest"
	while read -r sp; do
		dp=$(to_dest "$sp")
		[ -n "$dp" ] || continue
		git -C "$WORK" cat-file -e "$pre:$dp" 2>/dev/null || continue
		git -C "$SBASE" cat-file -e "$sb:$sp" 2>/dev/null || continue
		git -C "$SBASE" cat-file -e "$st:$sp" 2>/dev/null || continue
		n=$((n + 1))
		d=$tmp/f$n
		mkdir -p "$d"
		git -C "$WORK" cat-file blob "$pre:$dp" >"$d/ours"
		git -C "$SBASE" cat-file blob "$sb:$sp" >"$d/base"
		git -C "$SBASE" cat-file blob "$st:$sp" >"$d/theirs"
		local merged='' pristine='' resolve=''
		[ -z "$PRIS" ] || [ ! -f "$PRIS/$sp" ] || pristine=$PRIS/$sp
		if [ "$mode" = resolve ]; then
			mkdir -p "$tmp/resolved/$(dirname "$dp")"
			resolve=$tmp/resolved/$dp
		elif git -C "$WORK" cat-file blob "HEAD:$dp" >"$d/merged" 2>/dev/null; then
			merged=$d/merged
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$dp" "$d/ours" "$d/base" "$d/theirs" "$merged" "$pristine" "$resolve" >>"$tmp/manifest"
	done < <(git -C "$SBASE" diff --name-only "$sb" "$st")
	[ "$n" -gt 0 ] || return 0
	rc=0
	python3 "$CHECK" --manifest "$tmp/manifest" >"$tmp/find.$i" || rc=$?
	[ "$rc" -le 1 ] || die "port-check.py failed on patch $((i + 1))"
}
# wrong I: how many findings of patch I are not both-kept.
wrong() { awk -F'\t' '$2 != "both-kept"' "$tmp/find.$1" | wc -l; }

# --- apply, patch by patch --------------------------------------------------------------------------------
stopped=-1
for i in "${!PLIST[@]}"; do
	[ "${STATUS[$i]}" = "not tried" ] || continue
	pre=$(git -C "$WORK" rev-parse HEAD)
	rc=0
	LC_ALL=C git -C "$WORK" am --3way "${RPATCH[$i]}" >"$tmp/am.$i" 2>&1 || rc=$?
	threeway=0
	grep -q '^Falling back to patching base and 3-way merge' "$tmp/am.$i" && threeway=1
	if [ "$rc" = 0 ]; then
		check_patch "$i" "$pre"
		if [ "$(wrong "$i")" = 0 ]; then
			STATUS[i]=applied
			[ "$threeway" = 0 ] || STATUS[i]="applied (3-way)"
			continue
		fi
		STATUS[i]="CONFLICT (git merged it, wrongly)"
		if [ "$KEEP_GOING" = 0 ]; then stopped=$i; break; fi
		git -C "$WORK" commit -q --amend -m "$(git -C "$WORK" log -1 --format=%B)
kfdmp-port: WRONG MERGE, see the port report" || true
		continue
	fi
	[ -d "$GITDIR/rebase-apply" ] || { cat "$tmp/am.$i" >&2; die "git am failed on $(basename "${PLIST[$i]}") without a session to resolve"; }
	mapfile -t conflicted < <(git -C "$WORK" diff --name-only --diff-filter=U)
	check_patch "$i" "$pre" resolve
	# Conflicted files the checks did not cover: the patch creates a file
	# that the destination has already (add/add), or one of its own.
	for f in "${conflicted[@]}"; do
		awk -F'\t' -v f="$f" '$1 == f { found = 1 } END { exit !found }' "$tmp/find.$i" && continue
		o="?"
		[ -z "$PRIS" ] || { [ -f "$PRIS/$(to_series "$f")" ] && o=base || o=local; }
		if git -C "$WORK" cat-file -e "$pre:$f" 2>/dev/null && ! git -C "$SBASE" cat-file -e "${SCOMMITS[$i]}^:$(to_series "$f")" 2>/dev/null; then
			what="the patch creates this file, and the destination has one already"
		else
			what="git could not merge it"
		fi
		printf '%s\tconflict\t0\ttop level\t%s\t%s\n' "$f" "$o" "$what" >>"$tmp/find.$i"
	done
	if [ "$(wrong "$i")" = 0 ] && [ ${#conflicted[@]} -gt 0 ]; then
		# Only insert/insert regions whose both sides could be kept.
		for f in "${conflicted[@]}"; do cp "$tmp/resolved/$f" "$WORK/$f"; git -C "$WORK" add -- "$f"; done
		if GIT_EDITOR=true git -C "$WORK" am --continue >>"$tmp/am.$i" 2>&1; then
			STATUS[i]="applied (3-way, both sides kept)"
			continue
		fi
		cat "$tmp/am.$i" >&2; die "git am --continue failed after keeping both sides"
	fi
	STATUS[i]=CONFLICT
	if [ ${#conflicted[@]} = 0 ]; then
		DETAIL[i]="$(grep -m3 '^error: ' "$tmp/am.$i" | sed 's/^error: //' | paste -sd';')${DETAIL[i]:+; ${DETAIL[i]}}"
	fi
	if [ "$KEEP_GOING" = 0 ]; then
		# Leave the session open with this patch and every later one queued.
		git -C "$WORK" am --abort
		rest=()
		for ((k = i; k < ${#PLIST[@]}; k++)); do [ "${STATUS[$k]}" = "nothing to apply" ] || rest+=("${RPATCH[$k]}"); done
		LC_ALL=C git -C "$WORK" am --3way "${rest[@]}" >/dev/null 2>&1 || true
		stopped=$i
		break
	fi
	# Survey: the destination's side of each conflicting region.
	for f in "${conflicted[@]}"; do
		if [ -f "$tmp/resolved/$f" ]; then cp "$tmp/resolved/$f" "$WORK/$f"
		else git -C "$WORK" checkout --ours -- "$f" 2>/dev/null || git -C "$WORK" rm -q -- "$f"; fi
		git -C "$WORK" add -- "$f" 2>/dev/null || true
	done
	if git -C "$WORK" diff --cached --quiet; then
		git -C "$WORK" am --skip >>"$tmp/am.$i" 2>&1
		DETAIL[i]="nothing of it was left to commit${DETAIL[i]:+; ${DETAIL[i]}}"
	else
		GIT_EDITOR=true git -C "$WORK" am --continue >>"$tmp/am.$i" 2>&1 || { cat "$tmp/am.$i" >&2; die "git am --continue failed in the survey"; }
		git -C "$WORK" commit -q --amend -m "$(git -C "$WORK" log -1 --format=%B)
kfdmp-port: CONFLICT in ${conflicted[*]}: the destination's side kept, the patch's lines there left out" || true
	fi
done

# --- report ---------------------------------------------------------------------------------------------------
conflicts=0
applied=0
for st in "${STATUS[@]}"; do
	case $st in CONFLICT*) conflicts=$((conflicts + 1)) ;; applied*) applied=$((applied + 1)) ;; esac
done
{
	echo "port of the kfd-mp series $(basename "$SERIES_DIR")/ ($SLAYOUT layout) to $DEST"
	echo "layout: $LAYOUT; work tree $WORK, branch $BRANCH from $from; base $BASE_SRC${base_rev:+ at ${base_rev:0:12}}; pristine: ${PRISTINE:-none (origin ?)}; mode: $([ "$KEEP_GOING" = 1 ] && echo keep-going || echo stop at the first conflict)"
	for i in "${!PLIST[@]}"; do
		name=$(basename "${PLIST[$i]}")
		printf '  %-68s %s%s\n' "${name:0:68}" "${STATUS[$i]}" "${DETAIL[$i]:+ - ${DETAIL[$i]}}"
		[ -s "$tmp/find.$i" ] || continue
		awk -F'\t' '{ printf "      %s %s:%s %s [%s] %s: %s\n", ($2 == "both-kept" ? " " : "!"), $1, $3, $4, $5, $2, $6 }' "$tmp/find.$i"
	done
	if [ "$stopped" -ge 0 ]; then
		case ${STATUS[$stopped]} in
		"CONFLICT (git merged it, wrongly)")
			echo "stopped: git applied $(basename "${PLIST[$stopped]}") as the last commit of $BRANCH in $WORK, but the merge is wrong (lines marked !):"
			echo "  fix it there and git commit --amend; then apply the rest:"
			printf '  git -C %s am --3way' "$WORK"
			for ((k = stopped + 1; k < ${#PLIST[@]}; k++)); do [ "${STATUS[$k]}" = "nothing to apply" ] || printf ' %s' "${RPATCH[$k]}"; done
			echo ;;
		*)
			echo "stopped at the first conflict; the git am session in $WORK is open (the later patches are queued):"
			echo "  resolve the files, git add them, git -C $WORK am --continue (applies the rest), or git -C $WORK am --abort" ;;
		esac
	fi
	[ "$KEEP_GOING" = 0 ] || [ "$conflicts" = 0 ] || echo "survey: $BRANCH in $WORK holds every patch with the conflicting regions left out (marked in their messages); it is not a working port"
	echo "result: $conflicts conflict(s); $applied of ${#PLIST[@]} patches applied; findings: $(cat "$tmp"/find.* 2>/dev/null | awk -F'\t' '$2 != "both-kept" { n++; o[$5]++ } END { printf "%d", n; for (k in o) printf ", %s %d", k, o[k] }')"
	echo "DEST $DEST is unchanged"
} | tee "$tmp/report"
[ -z "$REPORT" ] || cp "$tmp/report" "$REPORT"
[ "$conflicts" = 0 ] || exit 1

# --- build -----------------------------------------------------------------------------------------------------
[ "$DO_BUILD" = 1 ] || exit 0
if [ "$LAYOUT" = kernel ]; then
	build=(make -C "$KDIR" M="$WORK/$AMDGPU_DIR" KCFLAGS="-I$WORK/drivers/gpu" -j"$JOBS" modules)
	bdir=$WORK
else
	# pre-build.sh edits the sources it builds (sed -i): build a copy.
	bdir=$WORK.build
	# shellcheck disable=SC2206 # split on purpose: a list of make arguments
	build=(make -C "$bdir" KERNELVER="$KVER" kernel_build_dir="$KDIR" num_cpu_cores="$JOBS" $MAKE_ARGS modules)
fi
if [ "$DRY_BUILD" = 1 ]; then
	[ "$LAYOUT" = kernel ] || printf 'build (--dry-build): git -C %q archive HEAD | tar -x -C %q\n' "$WORK" "$bdir"
	printf 'build (--dry-build): %s\n' "$(printf '%q ' "${build[@]}")"
	exit 0
fi
[ -f "$KDIR/Makefile" ] || die "no kernel headers at KDIR=$KDIR"
if [ "$LAYOUT" = dkms ]; then
	{ [ -f "$WORK/Makefile" ] && [ -x "$WORK/amd/dkms/pre-build.sh" ]; } || die "$DEST has no top-level Makefile or amd/dkms/pre-build.sh: not an amdgpu-dkms source"
	rm -rf "$bdir"
	mkdir -p "$bdir"
	git -C "$WORK" archive HEAD | tar -x -C "$bdir"
	# The tree's configure reads the kernel at /lib/modules/$KVER/build.
	[ "$(realpath -m "$KDIR")" = "$(realpath -m "/lib/modules/$KVER/build")" ] ||
		note "warning: KDIR=$KDIR is not /lib/modules/$KVER/build, where the tree's configure looks"
	# Debian's objtool wrapper needs SRCARCH (../shared/vendor/README.md).
	if [ -z "${SRCARCH:-}" ] && [ "$(uname -m)" = x86_64 ]; then export SRCARCH=x86; fi
fi
log=$bdir.build.log
note "building from $bdir against $KDIR (log: $log)"
if ! "${build[@]}" >"$log" 2>&1; then
	grep -E 'error|Error|exit\.\.\.' "$log" | head -n 20
	die "build failed; log: $log"
fi
n=0
while IFS= read -r ko; do
	note "built $ko, vermagic $(modinfo -F vermagic "$ko" | awk '{print $1}')"
	n=$((n + 1))
done < <(find "$bdir" -name '*.ko' | sort)
[ "$n" -gt 0 ] || die "the build made no module; log: $log"
