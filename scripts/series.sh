#!/usr/bin/env bash
# The patch series: export it from the prepared tree and check it.
#
#   scripts/series.sh export   write patches/ (git format-patch --cover-letter
#                              --base) from the commits in TREE after the base,
#                              and mirror the files the series adds into drivers/
#   scripts/series.sh check    apply patches/ on a fresh worktree of the base and
#                              fail unless: every patch applies; patches/ is
#                              exactly what export writes; drivers/ equals the
#                              files the series adds; checkpatch --strict is
#                              clean; each patch compiles the objects it touches
#                              (bisectable); W=1 and sparse add no warning
#
# Two series: SERIES=linux-6.12 (the default; upstream Linux, patches/linux-6.12)
# and SERIES=rocm-6.4 (ROCm's amdgpu-dkms, patches/rocm-6.4; KSRC is the
# amdgpu-dkms source). patches/ is the source of truth. drivers/ is generated
# from patches/linux-6.12 for reading and review; the check fails when the two
# drift apart. The rocm-6.4 series adds the same new files byte for byte
# (only the hooks in the vendor's files differ): its check fails unless every
# file it adds equals the one in drivers/, and every file of drivers/ it does
# not add is one the vendor base already has (kfd_trace.[ch]). Its checkpatch
# is the one of the prepared 6.12 tree; its per-patch compile is against the
# headers of KVER, in a copy configured as DKMS configures it (5.10 in CI:
# cheaper than 6.12); W=1/sparse run on the upstream series only. The cover
# letter's subject and text are kept from 0000-cover-letter.patch, its
# shortlog and diffstat are regenerated.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$SERIES" = linux-6.12 ]; then
	CHECK_TREE=${CHECK_TREE:-$BUILD/check}
else
	CHECK_TREE=${CHECK_TREE:-$BUILD/check-$SERIES}
fi
# The upstream path of a file of the series (drivers/ holds upstream paths).
upstream_path() {
	case "$SERIES" in
	linux-*) printf '%s\n' "$1" ;;
	*) printf 'drivers/gpu/drm/%s\n' "$1" ;;
	esac
}

# Subject (first line) and text of the current cover letter.
cover_description() {
	local cover=$PATCHES/0000-cover-letter.patch
	if [ ! -f "$cover" ]; then
		printf '*** SUBJECT HERE ***\n\n*** BLURB HERE ***\n'
		return
	fi
	awk '
		/^Subject: / && !subj { sub(/^Subject: \[[^]]*\] */, ""); subj = $0; getline
			while ($0 ~ /^[ \t]/) { sub(/^[ \t]+/, " "); subj = subj $0; getline }
			print subj; print ""; hdr = 1 }
		hdr && /^$/ && !body { body = 1; next }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }
	' "$cover" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# export_series TREE REV OUTDIR: format-patch BASE..REV of TREE into OUTDIR.
export_series() {
	local tree=$1 rev=$2 out=$3 date
	git -C "$tree" config branch."$(git -C "$tree" symbolic-ref --short HEAD 2>/dev/null || echo kfdmp)".description \
		"$(cover_description)"
	rm -rf "$out"
	mkdir -p "$out"
	# Empty context lines without the leading space (git apply and GNU patch
	# read both): checkpatch run on a patch file that git tracks reads it as
	# a source file, and would flag every " " line as trailing whitespace.
	git -C "$tree" -c diff.suppressBlankEmpty=true -c core.abbrev=7 format-patch -q --cover-letter --cover-from-description=subject \
		--base="$BASE_TAG" --zero-commit --no-signature -o "$out" "$BASE_TAG..$rev"
	# The cover letter carries the date of the series' last commit, so that
	# the same series always exports to the same bytes.
	date=$(git -C "$tree" log -1 --format=%aD "$rev")
	sed -i "s/^Date: .*/Date: $date/" "$out/0000-cover-letter.patch"
}

# added_files TREE: the files the series adds to the base.
added_files() {
	git -C "$1" diff --name-only --diff-filter=A "$BASE_TAG" HEAD
}

mirror_drivers() {
	local tree=$1 f
	rm -rf "$ROOT/drivers"
	while read -r f; do
		mkdir -p "$ROOT/$(dirname "$f")"
		cp "$tree/$f" "$ROOT/$f"
	done < <(added_files "$tree")
}

cmd_export() {
	[ -d "$TREE/.git" ] || die "no prepared tree at $TREE (make tree)"
	[ "$(git -C "$TREE" symbolic-ref --short HEAD)" = kfdmp ] || die "$TREE is not on branch kfdmp"
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes; commit them first"
	export_series "$TREE" HEAD "$PATCHES"
	if [ "$SERIES" != linux-6.12 ]; then
		printf '%s %s\n' "$("$ROOT/scripts/tree.sh" series-id)" "$(git -C "$TREE" rev-parse HEAD)" \
			>"$TREE/.git/kfdmp-series"
		note "wrote $(series_patches | wc -l) patches and the cover letter to $PATCHES_REL (drivers/ is generated from patches/linux-6.12)"
		check_new_files "$TREE" || die "the new files of $PATCHES_REL differ from drivers/ (patches/linux-6.12)"
		return
	fi
	mirror_drivers "$TREE"
	# The tree now holds exactly this series.
	printf '%s %s\n' "$("$ROOT/scripts/tree.sh" series-id)" "$(git -C "$TREE" rev-parse HEAD)" \
		>"$TREE/.git/kfdmp-series"
	note "wrote $(series_patches | wc -l) patches and the cover letter to $PATCHES_REL, mirrored $(added_files "$TREE" | wc -l) new files into drivers/"
}

fail=0
bad() { printf 'FAIL: %s\n' "$*"; fail=1; }
ok() { printf 'ok: %s\n' "$*"; }

# A fresh worktree of the base with the series applied, commit by commit.
check_apply() {
	local p n=0
	"$ROOT/scripts/tree.sh" prepare
	# Locked, so that a `git worktree prune` run by something else on TREE
	# during the check leaves it alone.
	git -C "$TREE" worktree remove --force --force "$CHECK_TREE" >/dev/null 2>&1 || rm -rf "$CHECK_TREE"
	git -C "$TREE" worktree prune
	git -C "$TREE" branch -D kfdmp-check >/dev/null 2>&1 || true
	git -C "$TREE" worktree add -q --lock -b kfdmp-check "$CHECK_TREE" "$BASE_TAG"
	while read -r p; do
		if ! git -C "$CHECK_TREE" am -q --committer-date-is-author-date "$p" >/dev/null 2>&1; then
			git -C "$CHECK_TREE" am --abort >/dev/null 2>&1 || true
			bad "patch does not apply on the base: ${p#"$ROOT"/}"
			return 1
		fi
		n=$((n + 1))
	done < <(series_patches)
	ok "all $n patches apply on $BASE_TAG"
}

check_export() {
	local tmp
	tmp=$(mktemp -d)
	export_series "$CHECK_TREE" HEAD "$tmp/patches"
	if diff -r "$PATCHES" "$tmp/patches" >"$BUILD/series-export-$SERIES.diff"; then
		ok "$PATCHES_REL is exactly what scripts/series.sh export writes"
	else
		bad "$PATCHES_REL differs from a fresh export (see $BUILD/series-export-$SERIES.diff); run scripts/series.sh export"
	fi
	rm -rf "$tmp"
}

check_drivers() {
	local f want have
	want=$(added_files "$CHECK_TREE" | sort)
	have=$(cd "$ROOT" && find drivers -type f 2>/dev/null | sort)
	if [ "$want" != "$have" ]; then
		bad "drivers/ does not hold exactly the files the series adds:"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$have") | sed -n 's/^[<>]/  &/p'
		return
	fi
	for f in $want; do
		cmp -s "$CHECK_TREE/$f" "$ROOT/$f" || bad "drivers/ drifted from $PATCHES_REL: $f"
	done
	[ "$fail" = 0 ] && ok "drivers/ equals the $(printf '%s\n' "$want" | grep -c .) files the series adds"
}

# check_new_files TREE: the files the rocm series adds equal those of
# drivers/; the files of drivers/ it does not add are in its base.
check_new_files() {
	local tree=$1 f u n=0 rc=0
	while read -r f; do
		u=$(upstream_path "$f")
		if [ ! -f "$ROOT/$u" ]; then
			bad "$PATCHES_REL adds $f, which patches/linux-6.12 does not add ($u)"; rc=1
		elif ! cmp -s "$tree/$f" "$ROOT/$u"; then
			bad "$PATCHES_REL and patches/linux-6.12 differ in a new file: $f ($(diff "$ROOT/$u" "$tree/$f" | grep -c '^[<>]') lines)"; rc=1
		fi
		n=$((n + 1))
	done < <(added_files "$tree")
	while read -r u; do
		f=${u#drivers/gpu/drm/}
		git -C "$tree" cat-file -e "$BASE_TAG:$f" 2>/dev/null && continue
		added_files "$tree" | grep -qxF "$f" ||
			{ bad "$PATCHES_REL lacks $f, which patches/linux-6.12 adds and the base does not have"; rc=1; }
	done < <(cd "$ROOT" && find drivers -type f | sort)
	[ "$rc" = 0 ] && ok "the $n files $PATCHES_REL adds are byte-identical to drivers/ (patches/linux-6.12); the others are in the vendor base"
	return $rc
}

check_checkpatch() {
	# UNKNOWN_COMMIT_ID: the Fixes: and "commit <sha> upstream." lines of
	# the fixes at the front name upstream commits, which the base tree's
	# history (one commit) cannot resolve.
	local out errs warns checks cpdir=$CHECK_TREE ignore=(--ignore UNKNOWN_COMMIT_ID)
	if [ "$SERIES" != linux-6.12 ]; then
		# The DKMS tree has no checkpatch: the prepared 6.12 tree's. It
		# has no MAINTAINERS either, so no file-path-changes check.
		cpdir=$BUILD/tree
		KSRC=/usr/src/linux-source-6.12.tar.xz SERIES=linux-6.12 TREE=$cpdir \
			"$ROOT/scripts/tree.sh" prepare
		ignore+=(--ignore FILE_PATH_CHANGES)
	fi
	# Every tracked patch file, the send-ready upstream set too: checkpatch
	# run on a file git tracks reads it as a source file (trailing blanks).
	local blank
	# (grep finds nothing: status 1, which pipefail would pass on)
	blank=$({ grep -l '[[:space:]]$' "$ROOT"/patches/*/*.patch || true; } | sed "s#$ROOT/##" | tr '\n' ' ')
	if [ -n "$blank" ]; then
		bad "trailing whitespace in $blank(export with diff.suppressBlankEmpty and --no-signature)"
	else
		ok "no trailing whitespace in patches/*/*.patch"
	fi
	# checkpatch runs spdxcheck.py, which needs Debian's python3-ply and
	# python3-git: use the system python3 even if another one is first
	# on PATH.
	out=$(cd "$cpdir" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict \
		"${ignore[@]}" --quiet --no-summary $(series_patches) 2>&1) || true
	printf '%s\n' "$out" >"$BUILD/checkpatch-$SERIES.log"
	errs=$(grep -c '^ERROR:' "$BUILD/checkpatch-$SERIES.log" || true)
	warns=$(grep -c '^WARNING:' "$BUILD/checkpatch-$SERIES.log" || true)
	checks=$(grep -c '^CHECK:' "$BUILD/checkpatch-$SERIES.log" || true)
	if grep -q '^Traceback' "$BUILD/checkpatch-$SERIES.log"; then
		bad "checkpatch could not run all its checks (see $BUILD/checkpatch-$SERIES.log)"
	elif [ "$errs" = 0 ] && [ "$warns" = 0 ]; then
		ok "checkpatch --strict: 0 errors, 0 warnings ($checks checks, see $BUILD/checkpatch-$SERIES.log)"
	else
		grep -A4 -E '^(ERROR|WARNING):' "$BUILD/checkpatch-$SERIES.log"
		bad "checkpatch --strict: $errs errors, $warns warnings"
	fi
}

# Objects of amdgpu.ko (relative to the amdgpu directory) that a commit's
# change touches: its .c files, and for a header every .c file of
# amdgpu/amdkfd that includes it.
touched_objects() {
	local tree=$1 rev=$2 f h
	git -C "$tree" diff --name-only "$rev^" "$rev" -- "$AMDGPU_DIR" "$AMDKFD_DIR" |
	while read -r f; do
		case "$f" in
		*/tests/*) ;;
		*.c) [ -f "$tree/$f" ] && echo "$f" ;;
		*.h)
			h=$(basename "$f")
			grep -l "#include \"$h\"" "$tree/$AMDKFD_DIR"/*.c \
				"$tree/$AMDGPU_DIR"/*amdkfd*.c 2>/dev/null |
				sed "s#^$tree/##" || true ;;
		esac
	done | sort -u | sed -e "s#^$AMDGPU_DIR/##" -e "s#^$AMD_DIR/#../#" -e 's#\.c$#.o#' |
		built_in_config
}

# Keep the objects the kernel's configuration builds into amdgpu.ko (as the
# module build in TREE shows); kfd_svm.c, for one, is not built without
# CONFIG_HSA_AMD_SVM. Without a module build, keep them all.
built_in_config() {
	local o
	if [ "$SERIES" != linux-6.12 ]; then
		# The objects the module build of KVER built (build-vendor.sh,
		# DC=0): kfd_svm.o and kfd_migrate.o only with SVM, which 5.10
		# lacks. Without that build, keep them all.
		local built=$BUILD/rocm-$KVER-nodc/$AMDGPU_DIR
		if [ ! -f "$built/amdgpu.ko" ]; then
			cat
			return
		fi
		while read -r o; do
			[ -f "$built/$o" ] && echo "$o"
		done
		return
	fi
	if [ ! -f "$TREE/$AMDGPU_DIR/amdgpu.ko" ]; then
		# No module build: leave out the objects of an
		# ifneq ($(CONFIG_X),) block of the amdkfd Makefile whose
		# CONFIG_X the headers' configuration does not set.
		local cond
		while read -r o; do
			cond=$(awk -v o="/${o##*/}" '
				/^ifneq \(\$\(CONFIG_[A-Z0-9_]+\),\)/ { c = $0; sub(/^ifneq \(\$\(/, "", c); sub(/\),\).*/, "", c) }
				/^endif/ { c = "" }
				c && index($0, o) { print c; exit }' "$TREE/$AMDKFD_DIR/Makefile")
			[ -n "$cond" ] && ! grep -q "^$cond=" "$KDIR/include/config/auto.conf" && continue
			echo "$o"
		done
		return
	fi
	while read -r o; do
		[ -f "$TREE/$AMDGPU_DIR/$o" ] && echo "$o"
	done
}

# The KUnit objects (relative to the tests directory) to compile after a
# commit REV (or "all"): every object of the UML test module that the tests
# Makefile lists, when the commit touches an amdkfd file, since the tests
# include the files they test. The device queue manager suite
# (kfd_dqm_test.c and the fake node and HWS it includes) is no object of its
# own: kfd_device_queue_manager.c includes it with
# CONFIG_HSA_AMD_DQM_KUNIT_TEST, which needs a KUnit kernel; kunit-x86
# builds and runs it.
touched_test_objects() {
	local tree=$1 rev=$2
	[ -f "$tree/$KUNIT_DIR/Makefile" ] || return 0
	[ "$rev" = all ] || ! git -C "$tree" diff --quiet "$rev^" "$rev" -- drivers/gpu/drm/amd/amdkfd ||
		return 0
	sed -n '/^amdkfd_test-y/,/^$/p' "$tree/$KUNIT_DIR/Makefile" | grep -o '[A-Za-z0-9_]*\.o'
}

# compile_tests TREE LOG [W=1 C=2] OBJ...: build single KUnit objects against
# the headers (they only compile there: the Debian kernel has no KUnit).
compile_tests() {
	local tree=$1 log=$2; shift 2
	[ $# -gt 0 ] || return 0
	make -C "$KDIR" M="$tree/$KUNIT_DIR" CONFIG_HSA_AMD_KUNIT_TEST=m -j"$JOBS" "$@" >"$log" 2>&1
}

# compile_objects TREE LOG OBJ...: build single objects of amdgpu.ko.
compile_objects() {
	local tree=$1 log=$2; shift 2
	[ $# -gt 0 ] || return 0
	kbuild_module "$tree" "$@" >"$log" 2>&1
}

# Per patch, kbuild would read the whole amdgpu Makefile tree again (about
# 16 CPU seconds here for one object, 6 for the KUnit directory) before
# compiling anything. The objects it compiled once already have their
# command in their .cmd file: the check replays those commands (the module
# build's in TREE, or an earlier patch's in the check tree) and goes through
# kbuild only for a patch that changes a Makefile or Kbuild file, or an
# object no build has compiled yet. A replayed object must be listed in a
# Makefile at that patch (kbuild would have no rule for it otherwise).
#
# kbuild_cmd OBJ: the command kbuild recorded for the object file OBJ
# (savedcmd_ in 6.12, cmd_ in 5.10), or nothing.
kbuild_cmd() {
	local c
	c=$(dirname "$1")/.$(basename "$1").cmd
	[ -f "$c" ] && sed -n -E '1{s/^(saved)?cmd_[^ ]+ := +//p;}' "$c"
}

# replay_cmds ROOT DIR TREE OBJ...: the commands for OBJ (paths under
# ROOT/DIR, where the check compiles), one per line, from ROOT's own .cmd or
# from TREE's (paths and the uapi overlay moved to ROOT, -g0 added); fails
# if an object has neither.
replay_cmds() {
	local root=$1 dir=$2 tree=$3 o c; shift 3
	for o in "$@"; do
		c=$(kbuild_cmd "$root/$dir/$o") || c=
		if [ -z "$c" ] && [ -n "$tree" ]; then
			c=$(kbuild_cmd "$tree/$dir/$o") || c=
			c=${c//$BUILD\/kfdmp-include-$(basename "$tree")/$BUILD/kfdmp-include-$(basename "$root")}
			c=${c//$tree\//$root/}
		fi
		[ -n "$c" ] || return 1
		case " $c " in *" -g0 "*) ;; *) c=${c/ -c -o / -g0 -c -o } ;; esac
		printf '%s\n' "$c"
	done
}

# replay LOG CMD...: run the commands in KDIR (their include paths are
# relative to it), JOBS at a time; fails if one does.
replay() {
	local log=$1 dir i=0 c rc=0; shift
	dir=$(mktemp -d)
	for c in "$@"; do i=$((i + 1)); printf '%s\n' "$c" >"$dir/$i.sh"; done
	(cd "$KDIR" && printf '%s\n' "$dir"/*.sh | xargs -P "$JOBS" -n 1 sh) >"$log" 2>&1 || rc=1
	rm -rf "$dir"
	return $rc
}

# unlisted REV DIR OBJ...: the objects that no Makefile of amdgpu, amdkfd
# or DIR lists at REV.
unlisted() {
	local rev=$1 dir=$2 o; shift 2
	for o in "$@"; do
		git -C "$CHECK_TREE" grep -q -w -F "$(basename "$o")" "$rev" -- \
			"$AMDGPU_DIR/Makefile" "$AMDKFD_DIR/Makefile" "$dir/Makefile" || echo "$o"
	done
}

# build_changed REV: REV changes how a Makefile or Kbuild file of the driver
# compiles (a line with flags, an include or an export). A line that only
# adds an object to a list does not count: the new object's command comes
# from the module build, and `unlisted` checks the lists.
build_changed() {
	git -C "$CHECK_TREE" diff -U0 "$1^" "$1" -- "$AMD_DIR" | awk '
		/^diff --git / { f = ($3 ~ /\/(Makefile|Kbuild)[^\/]*$/ || $3 ~ /\.mk$/); next }
		f && /^[-+]/ && !/^(\+\+\+|---) / && !/^[-+][[:space:]]*#/ && /(flags|FLAGS|[[:space:]]-[IDWfm]|include|export|subdir)/ { found = 1 }
		END { exit !found }'
}

# compile_step REV LOG ROOT DIR TREE KBUILD-FN OBJ...: compile the objects
# (paths relative to ROOT/DIR) as they are at REV, by replay or with
# KBUILD-FN ROOT LOG OBJ...
compile_step() {
	local rev=$1 log=$2 root=$3 dir=$4 tree=$5 fn=$6 o cmds
	shift 6
	[ $# -gt 0 ] || { : >"$log"; return 0; }
	for o in "$@"; do rm -f "$root/$dir/$o"; done
	if ! build_changed "$rev" && cmds=$(replay_cmds "$root" "$dir" "$tree" "$@"); then
		o=$(unlisted "$rev" "$dir" "$@")
		if [ -n "$o" ]; then
			# shellcheck disable=SC2086 # one line per object
			printf 'kfd-mp: no Makefile lists %s at this patch\n' $o >"$log"
			return 1
		fi
		mapfile -t cmds <<<"$cmds"
		replay "$log" "${cmds[@]}" || return 1
		printf 'kfd-mp: %d objects compiled by replaying their kbuild commands\n' $# >>"$log"
		return 0
	fi
	"$fn" "$root" "$log" "$@"
}

check_bisect() {
	local revs rev objs tobjs n=0 start=$SECONDS
	revs=$(git -C "$CHECK_TREE" rev-list --reverse "$BASE_TAG..HEAD")
	for rev in $revs; do
		n=$((n + 1))
		git -C "$CHECK_TREE" checkout -q "$rev"
		uapi_overlay "$CHECK_TREE" "$BUILD/kfdmp-include-$(basename "$CHECK_TREE")"
		mapfile -t objs < <(touched_objects "$CHECK_TREE" "$rev")
		mapfile -t tobjs < <(touched_test_objects "$CHECK_TREE" "$rev")
		if compile_step "$rev" "$BUILD/bisect-$n.log" "$CHECK_TREE" "$AMDGPU_DIR" "$TREE" compile_objects "${objs[@]}" &&
		   compile_step "$rev" "$BUILD/bisect-$n-kunit.log" "$CHECK_TREE" "$KUNIT_DIR" "" compile_tests "${tobjs[@]}"; then
			ok "patch $n compiles the ${#objs[@]} amdgpu.ko objects and ${#tobjs[@]} KUnit objects it touches"
		else
			grep -hE 'error|Error|kfd-mp:' "$BUILD/bisect-$n.log" "$BUILD/bisect-$n-kunit.log" 2>/dev/null | head -n 20 || true
			bad "patch $n ($(git -C "$CHECK_TREE" log -1 --format=%s "$rev")) does not compile; see $BUILD/bisect-$n*.log"
		fi
	done
	git -C "$CHECK_TREE" checkout -q kfdmp-check
	note "per-patch compile: $((SECONDS - start)) s"
}

# The rocm series, patch by patch: a copy of the base configured as DKMS
# configures it (the tree's own pre-build.sh and configure, once, without
# display), then for each patch the files it changes copied in with the
# tree's CONFIG_*_AMDKCL renames applied (the ones pre-build.sh made in the
# copy), and the objects it touches built with the tree's Kbuild against
# the headers of KVER.
rocm_configure() {
	local cfg=$1 id
	id="$(git -C "$CHECK_TREE" rev-parse "$BASE_TAG") $KVER v1"
	[ "$(cat "$cfg/.kfdmp-configured" 2>/dev/null)" = "$id" ] && return 0
	note "configuring a copy of the base for $KVER in $cfg"
	rm -rf "$cfg" || return 1
	mkdir -p "$cfg"
	git -C "$CHECK_TREE" archive "$BASE_TAG" | tar -x -C "$cfg"
	DC=0 supply_register_headers "$cfg" >/dev/null
	display_off "$cfg"
	(cd "$cfg" && SRCARCH=x86 make KERNELVER="$KVER" kernel_build_dir="$KDIR" sanity-check) \
		>"$BUILD/bisect-configure-$SERIES.log" 2>&1 || { tail -n 20 "$BUILD/bisect-configure-$SERIES.log"; return 1; }
	grep -rhoE --exclude='.*.cmd' 'CONFIG_[A-Z0-9_]+_AMDKCL' "$cfg/amd" "$cfg/include" "$cfg/ttm" "$cfg/scheduler" |
		sed 's/_AMDKCL$//' | sort -u >"$cfg/.kfdmp-renamed"
	printf '%s\n' "$id" >"$cfg/.kfdmp-configured"
}

# rocm_copy_in CFG REV FILE...: the files as REV has them (removed where
# REV has none), with the renames pre-build.sh made in the copy.
rocm_copy_in() {
	local cfg=$1 rev=$2 f c
	shift 2
	local -a sed_args=()
	while read -r c; do sed_args+=(-e "s/\\<$c\\>/&_AMDKCL/"); done <"$cfg/.kfdmp-renamed"
	for f in "$@"; do
		if git -C "$CHECK_TREE" cat-file -e "$rev:$f" 2>/dev/null; then
			mkdir -p "$cfg/$(dirname "$f")"
			git -C "$CHECK_TREE" show "$rev:$f" | sed "${sed_args[@]}" >"$cfg/$f"
		else
			rm -f "$cfg/$f"
		fi
	done
}

# rocm_compile CFG LOG OBJ...: build the objects in the configured copy.
# Without a module build to say which objects this configuration builds
# (built_in_config), kbuild says it: an object it has "no rule" for is not
# in the configuration (kfd_svm.o and kfd_migrate.o without
# CONFIG_DEVICE_PRIVATE, as on Debian's 5.10); it is left out, named in the
# log, and the rest built again. Make stops at the first such object, so
# this repeats at most once per object.
rocm_compile() {
	local cfg=$1 log=$2 o x
	shift 2
	local -a objs=("$@") left
	: >"$log"
	while [ ${#objs[@]} -gt 0 ]; do
		if (SRCARCH=x86 make -C "$KDIR" M="$cfg" TTM_NAME=amdttm SCHED_NAME=amd-sched -j"$JOBS" \
			"${objs[@]}" >>"$log" 2>&1); then
			return 0
		fi
		o=$(sed -n "s#.*No rule to make target '$cfg/\(amd/amdgpu/[^']*\.o\)'.*#\1#p" "$log" | tail -n 1)
		[ -n "$o" ] || return 1
		left=()
		for x in "${objs[@]}"; do [ "$x" = "$o" ] || left+=("$x"); done
		[ ${#left[@]} -lt ${#objs[@]} ] || return 1
		echo "kfd-mp: $o is not in this configuration (kbuild has no rule for it); left out" >>"$log"
		echo "$o" >>"$cfg/.kfdmp-notbuilt"
		objs=("${left[@]}")
	done
}

check_bisect_rocm() {
	local cfg=$BUILD/check-$SERIES-$KVER revs rev objs n=0 start
	local -a files
	rocm_configure "$cfg" || { bad "the base does not configure for $KVER (see $BUILD/bisect-configure-$SERIES.log)"; return; }
	# Back to the base: every file this series or the last check changed.
	git -C "$CHECK_TREE" diff --name-only "$BASE_TAG" HEAD >>"$cfg/.kfdmp-touched"
	mapfile -t files < <(sort -u "$cfg/.kfdmp-touched")
	rocm_copy_in "$cfg" "$BASE_TAG" "${files[@]}"
	git -C "$CHECK_TREE" diff --name-only "$BASE_TAG" HEAD >"$cfg/.kfdmp-touched"
	revs=$(git -C "$CHECK_TREE" rev-list --reverse "$BASE_TAG..HEAD")
	start=$SECONDS
	for rev in $revs; do
		n=$((n + 1))
		git -C "$CHECK_TREE" checkout -q "$rev"
		mapfile -t files < <(git -C "$CHECK_TREE" diff --name-only "$rev^" "$rev")
		rocm_copy_in "$cfg" "$rev" "${files[@]}"
		mapfile -t objs < <(touched_objects "$CHECK_TREE" "$rev" | sed 's#^#amd/amdgpu/#' |
			{ if [ -f "$cfg/.kfdmp-notbuilt" ]; then grep -vxF -f "$cfg/.kfdmp-notbuilt" || true; else cat; fi; })
		if compile_step "$rev" "$BUILD/bisect-$SERIES-$n.log" "$cfg" . "" rocm_compile "${objs[@]}"; then
			ok "patch $n compiles the ${#objs[@]} objects it touches (against $KVER)"
		else
			grep -hE 'error|Error' "$BUILD/bisect-$SERIES-$n.log" | head -n 20 || true
			bad "patch $n ($(git -C "$CHECK_TREE" log -1 --format=%s "$rev")) does not compile; see $BUILD/bisect-$SERIES-$n.log"
		fi
	done
	git -C "$CHECK_TREE" checkout -q kfdmp-check
	note "per-patch compile: $((SECONDS - start)) s"
}

# The distinct warnings of W=1 and sparse, without line numbers, so that code
# moved by a patch compares equal, and a warning of a base header counts once
# however many new files include it.
warnings_of() {
	grep -E '(warning|error):' "$1" | grep -v '^make' |
		sed -E -e "s#$CHECK_TREE/##g" -e 's#:[0-9]+:[0-9]+:#:#' -e 's#:[0-9]+:#:#' | sort -u
}

check_warnings() {
	local rev objs tobjs base_objs all
	mapfile -t objs < <(for rev in $(git -C "$CHECK_TREE" rev-list "$BASE_TAG..HEAD"); do
		touched_objects "$CHECK_TREE" "$rev" || true; done | sort -u)
	[ ${#objs[@]} -gt 0 ] || { ok "no objects to check for W=1/sparse"; return; }
	# The same objects at the base, where they exist there.
	git -C "$CHECK_TREE" checkout -q "$BASE_TAG"
	base_objs=()
	for o in "${objs[@]}"; do
		[ -f "$CHECK_TREE/$AMDGPU_DIR/${o%.o}.c" ] && base_objs+=("$o")
	done
	touch_sources "${base_objs[@]}"
	compile_objects "$CHECK_TREE" "$BUILD/warn-base.log" W=1 C=2 "${base_objs[@]}" || true
	git -C "$CHECK_TREE" checkout -q kfdmp-check
	touch_sources "${objs[@]}"
	compile_objects "$CHECK_TREE" "$BUILD/warn-series.log" W=1 C=2 "${objs[@]}" || true
	# The KUnit objects are all new: every warning of theirs counts.
	mapfile -t tobjs < <(touched_test_objects "$CHECK_TREE" all)
	(cd "$CHECK_TREE/$KUNIT_DIR" && touch ./*.c)
	compile_tests "$CHECK_TREE" "$BUILD/warn-kunit.log" W=1 C=2 "${tobjs[@]}" || true
	cat "$BUILD/warn-kunit.log" >>"$BUILD/warn-series.log"
	all=$(comm -13 <(warnings_of "$BUILD/warn-base.log") <(warnings_of "$BUILD/warn-series.log"))
	if [ -z "$all" ]; then
		ok "W=1 and sparse add no warning on the ${#objs[@]} touched objects"
	else
		printf '%s\n' "$all"
		bad "W=1/sparse: the series adds warnings (logs: $BUILD/warn-{base,series}.log)"
	fi
}

touch_sources() {
	local o
	for o in "$@"; do touch "$CHECK_TREE/$AMDGPU_DIR/${o%.o}.c"; done
}

cmd_check() {
	[ -n "$(series_patches)" ] || die "$PATCHES_REL holds no patch"
	command -v sparse >/dev/null || die "sparse is missing (scripts/setup-deps.sh)"
	check_apply || { echo "series check: FAILED"; exit 1; }
	# The compile checks look for errors and warnings only: no debug
	# information (kbuild appends KCFLAGS last, so -g0 wins over the
	# config's -g). They build in their own trees, never the module's.
	export KCFLAGS="${KCFLAGS:+$KCFLAGS }-g0"
	check_export
	if [ "$SERIES" = linux-6.12 ]; then
		check_drivers
		check_checkpatch
		check_bisect
		check_warnings
	else
		check_new_files "$CHECK_TREE" || true
		check_checkpatch
		check_bisect_rocm
	fi
	if [ "$fail" = 0 ]; then echo "series check: PASSED"; else echo "series check: FAILED"; exit 1; fi
}

case "${1:-}" in
export) cmd_export ;;
check) cmd_check ;;
*) echo "usage: $0 export|check" >&2; exit 2 ;;
esac
