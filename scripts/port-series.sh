#!/usr/bin/env bash
# Port the series to another driver tree: try patches/ (without the cover
# letter) with `git am --3way`, report per patch whether it applied, and
# optionally build amdgpu.ko from the result.
#
#   scripts/port-series.sh [OPTIONS] DEST
#
# DEST is a git repository holding amdgpu/amdkfd sources, in one of two
# layouts (--layout, default auto):
#   kernel  a kernel tree, paths as in the patches (drivers/gpu/drm/amd/...):
#           upstream, a distribution's kernel, ROCm's ROCK-Kernel-Driver
#   dkms    the amdgpu-dkms source layout (amd/amdgpu, amd/amdkfd, amd/dkms
#           at the top, as in /usr/src/amdgpu-<version>): the patches are
#           rewritten drivers/gpu/drm/amd/ -> amd/, and their files outside
#           drivers/gpu/drm/amd (MAINTAINERS, drivers/gpu/drm/Makefile of the
#           KUnit patch) are left out and listed
#
# Options:
#   --branch NAME  branch to apply on, made from DEST's HEAD (default
#                  kfdmp-port); an existing one is refused unless --force
#   --keep-going   on a conflict, record it, skip that patch (git am --skip)
#                  and try the rest: a survey of the whole series. Later
#                  patches often build on a skipped one, so read their
#                  status with that in mind. The branch then holds only the
#                  patches that applied; nothing is left half-applied.
#                  Default: stop at the first conflict and leave the git am
#                  session open, with conflict markers where the 3-way
#                  merge could not decide, so that you resolve, `git add`
#                  and `git am --continue` (which applies the remaining
#                  patches of the session), or `git am --abort`.
#   --init         DEST is not a git repository (an unpacked dkms source):
#                  make it one, with its files as the first commit
#   --base DIR     git repository with the series' preimage blobs (default:
#                  the prepared tree, build/tree). They are copied into DEST
#                  so that --3way can rebuild the base of a patch; without
#                  them a patch whose context differs fails like plain apply
#   --build        after every patch applied, build amdgpu.ko from DEST
#                  (kernel layout: M=DEST/drivers/gpu/drm/amd/amdgpu against
#                  KDIR; dkms layout: amd/dkms/pre-build.sh KVER and make
#                  TTM_NAME=amdttm SCHED_NAME=amd-sched, as the amdgpu-dkms
#                  package does)
#   --dry-build    print the build command instead of running it
#   --report FILE  also write the report to FILE
#   --force        replace an existing --branch
#
# Statuses: applied; applied (3-way) - the context differed and git merged
# it from the preimage; CONFLICT - it did not apply (the files are listed);
# not tried - after a conflict without --keep-going; nothing to apply - no
# file of the patch exists in this layout.
# Exit status: 0 every patch applied (and built, with --build); 1 a conflict
# or a failed build; 2 usage.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

LAYOUT=auto
BRANCH=kfdmp-port
KEEP_GOING=0
INIT=0
BASE=$TREE
DO_BUILD=0
DRY_BUILD=0
REPORT=
FORCE=0
DEST=

while [ $# -gt 0 ]; do
	case $1 in
	--layout) LAYOUT=$2; shift ;;
	--branch) BRANCH=$2; shift ;;
	--keep-going) KEEP_GOING=1 ;;
	--init) INIT=1 ;;
	--base) BASE=$2; shift ;;
	--build) DO_BUILD=1 ;;
	--dry-build) DO_BUILD=1; DRY_BUILD=1 ;;
	--report) REPORT=$2; shift ;;
	--force) FORCE=1 ;;
	-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	-*) echo "port-series: unknown option $1" >&2; exit 2 ;;
	*) [ -z "$DEST" ] || { echo "port-series: one DEST only" >&2; exit 2; }; DEST=$1 ;;
	esac
	shift
done
[ -n "$DEST" ] || { echo "usage: $0 [OPTIONS] DEST (see --help)" >&2; exit 2; }
[ -d "$DEST" ] || die "no directory $DEST"
DEST=$(cd "$DEST" && pwd)

if ! git -C "$DEST" rev-parse --git-dir >/dev/null 2>&1; then
	[ "$INIT" = 1 ] || die "$DEST is not a git repository (--init makes it one)"
	note "making $DEST a git repository"
	git -C "$DEST" init -q
	git -C "$DEST" add -A -f .
	git -C "$DEST" commit -q -m "Vendor tree as found in $DEST"
fi
[ -z "$(git -C "$DEST" status --porcelain --untracked-files=no)" ] || die "$DEST has uncommitted changes"
[ ! -d "$(git -C "$DEST" rev-parse --absolute-git-dir)/rebase-apply" ] || die "$DEST has a git am or rebase in progress"

if [ "$LAYOUT" = auto ]; then
	if [ -d "$DEST/drivers/gpu/drm/amd/amdkfd" ]; then LAYOUT=kernel
	elif [ -d "$DEST/amd/amdkfd" ]; then LAYOUT=dkms
	else die "cannot tell the layout of $DEST (no drivers/gpu/drm/amd/amdkfd, no amd/amdkfd); give --layout"; fi
fi
case $LAYOUT in kernel|dkms) ;; *) die "--layout: kernel or dkms" ;; esac

mapfile -t PATCHES < <(series_patches)
[ ${#PATCHES[@]} -gt 0 ] || die "patches/ holds no patch"
work=$(mktemp -d /tmp/kfdmp-port.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The patches as DEST's layout needs them, and what each one leaves out.
declare -a SESSION=() STATUS=() DETAIL=()
for i in "${!PATCHES[@]}"; do
	p=${PATCHES[$i]}
	STATUS[i]="not tried"
	DETAIL[i]=
	if [ "$LAYOUT" = kernel ]; then
		SESSION+=("$i")
		continue
	fi
	out=$work/$(basename "$p")
	awk -v dropped="$work/dropped.$i" '
		/^diff --git / {
			keep = ($3 ~ /^a\/drivers\/gpu\/drm\/amd\//)
			if (!keep) { f = $3; sub(/^a\//, "", f); print f >> dropped }
		}
		!started && /^diff --git / { started = 1 }
		!started { print; next }
		keep {
			sub(/^diff --git a\/drivers\/gpu\/drm\/amd\//, "diff --git a/amd/")
			sub(/ b\/drivers\/gpu\/drm\/amd\//, " b/amd/")
			sub(/^--- a\/drivers\/gpu\/drm\/amd\//, "--- a/amd/")
			sub(/^\+\+\+ b\/drivers\/gpu\/drm\/amd\//, "+++ b/amd/")
			sub(/^rename from drivers\/gpu\/drm\/amd\//, "rename from amd/")
			sub(/^rename to drivers\/gpu\/drm\/amd\//, "rename to amd/")
			print
		}
	' "$p" >"$out"
	PATCHES[i]=$out
	if [ -f "$work/dropped.$i" ]; then
		DETAIL[i]="left out (not in the dkms layout): $(sort -u "$work/dropped.$i" | paste -sd' ')"
	fi
	if grep -q '^diff --git ' "$out"; then
		SESSION+=("$i")
	else
		STATUS[i]="nothing to apply"
	fi
done

# Preimage blobs for --3way: every "index A..B" of the series, from BASE.
imported=0
if git -C "$BASE" rev-parse --git-dir >/dev/null 2>&1; then
	while read -r abbrev; do
		full=$(git -C "$BASE" rev-parse -q --verify "$abbrev^{blob}" 2>/dev/null) || continue
		git -C "$DEST" cat-file -e "$full" 2>/dev/null && continue
		git -C "$BASE" cat-file blob "$full" | git -C "$DEST" hash-object -w --stdin >/dev/null
		imported=$((imported + 1))
	done < <(sed -n 's/^index \([0-9a-f]*\)\.\.[0-9a-f]*.*/\1/p' "${PATCHES[@]}" | sort -u | grep -v '^0*$')
	note "3-way preimages: $imported blob(s) copied from $BASE"
else
	note "no base repository at $BASE: --3way can only use blobs DEST already has"
fi

if git -C "$DEST" rev-parse -q --verify "refs/heads/$BRANCH" >/dev/null; then
	[ "$FORCE" = 1 ] || die "branch $BRANCH exists in $DEST (--force replaces it, --branch picks another)"
	[ "$(git -C "$DEST" symbolic-ref --short HEAD 2>/dev/null)" != "$BRANCH" ] || git -C "$DEST" checkout -q --detach
fi
start=$(git -C "$DEST" rev-parse HEAD)
git -C "$DEST" checkout -q -B "$BRANCH" "$start"

# One git am session; its output says, patch by patch, what happened.
session_files=()
for i in "${SESSION[@]}"; do session_files+=("${PATCHES[$i]}"); done
log=$work/am.log
rc=0
if [ ${#session_files[@]} -gt 0 ]; then
	LC_ALL=C git -C "$DEST" am --3way "${session_files[@]}" >>"$log" 2>&1 || rc=$?
fi
stopped=0
skipped=0
while [ "$rc" != 0 ]; do
	n=$(sed -n 's/^Patch failed at \([0-9]*\) .*/\1/p' "$log" | tail -n1)
	[ -n "$n" ] || { cat "$log" >&2; die "git am failed without saying which patch"; }
	i=${SESSION[$((10#$n - 1))]}
	conflicted=$(git -C "$DEST" diff --name-only --diff-filter=U | paste -sd' ')
	failed=$(awk -v n="$n" '
		/^Applying: / { k++ } k == n && /^error: / { sub(/^error: /, ""); printf "%s; ", $0 }' "$log")
	STATUS[i]=CONFLICT
	[ "$skipped" = 0 ] || failed="${failed:+$failed; }after $skipped skipped patch(es): may only lack them"
	failed=${failed%; }
	DETAIL[i]="${conflicted:+conflicted: $conflicted}${failed:+${conflicted:+; }$failed}${DETAIL[i]:+; ${DETAIL[i]}}"
	if [ "$KEEP_GOING" = 0 ]; then stopped=1; break; fi
	echo "--- skip $n" >>"$log"
	skipped=$((skipped + 1))
	rc=0
	LC_ALL=C git -C "$DEST" am --skip >>"$log" 2>&1 || rc=$?
done
# Applied ones: the "Applying:" sections without a failure.
k=0
while IFS= read -r sect; do
	k=$((k + 1))
	i=${SESSION[$((k - 1))]}
	[ "${STATUS[i]}" = CONFLICT ] && continue
	case $sect in
	*3way*) STATUS[i]="applied (3-way)" ;;
	*) STATUS[i]=applied ;;
	esac
done < <(awk '
	/^Applying: / { if (n) print s; n++; s = "ok" }
	/^Falling back to patching base and 3-way merge/ { s = "3way" }
	END { if (n) print s }' "$log")
# Sections after a stop were never tried.
if [ "$stopped" = 1 ]; then
	seen=$(grep -c '^Applying: ' "$log" || true)
	for ((k = seen; k < ${#SESSION[@]}; k++)); do STATUS[${SESSION[$k]}]="not tried"; done
fi

# --- report ----------------------------------------------------------------------------
conflicts=0
for st in "${STATUS[@]}"; do [ "$st" != CONFLICT ] || conflicts=$((conflicts + 1)); done
{
	echo "port of the kfd-mp series to $DEST"
	echo "layout: $LAYOUT; branch $BRANCH from $(git -C "$DEST" rev-parse --short "$start"); mode: $([ "$KEEP_GOING" = 1 ] && echo keep-going || echo stop at the first conflict)"
	for i in "${!PATCHES[@]}"; do
		name=$(basename "${PATCHES[$i]}")
		printf '  %-68s %s%s\n' "${name:0:68}" "${STATUS[$i]}" "${DETAIL[$i]:+ - ${DETAIL[$i]}}"
	done
	if [ "$stopped" = 1 ]; then
		echo "stopped at the first conflict; the git am session in $DEST is open:"
		echo "  resolve the files, git add them, git -C $DEST am --continue (applies the rest), or git -C $DEST am --abort"
	fi
	echo "result: $conflicts conflict(s); $(printf '%s\n' "${STATUS[@]}" | grep -c '^applied') of ${#PATCHES[@]} patches applied"
} | tee "$work/report"
[ -z "$REPORT" ] || cp "$work/report" "$REPORT"
[ "$conflicts" = 0 ] || exit 1

# --- build ---------------------------------------------------------------------------------
[ "$DO_BUILD" = 1 ] || exit 0
if [ "$LAYOUT" = kernel ]; then
	build=(make -C "$KDIR" M="$DEST/$AMDGPU_DIR" KCFLAGS="-I$DEST/drivers/gpu" -j"$JOBS" modules)
	ko=$DEST/$AMDGPU_DIR/amdgpu.ko
else
	build=(sh -c "cd '$DEST' && ./amd/dkms/pre-build.sh '$KVER' && make -C '$KDIR' M='$DEST' TTM_NAME=amdttm SCHED_NAME=amd-sched -j$JOBS")
	ko=$DEST/amd/amdgpu/amdgpu.ko
fi
if [ "$DRY_BUILD" = 1 ]; then
	printf 'build (--dry-build): %s\n' "$(printf '%q ' "${build[@]}")"
	exit 0
fi
[ -f "$KDIR/Makefile" ] || die "no kernel headers at KDIR=$KDIR"
note "building amdgpu.ko from $DEST against $KDIR (log: $DEST.build.log)"
if "${build[@]}" >"$DEST.build.log" 2>&1 && [ -f "$ko" ]; then
	note "built $ko, vermagic $(modinfo -F vermagic "$ko")"
else
	grep -E 'error|Error' "$DEST.build.log" | head -n 20
	die "build failed; log: $DEST.build.log"
fi
