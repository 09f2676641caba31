#!/usr/bin/env bash
# Prepare the base tree and apply the series.
#
#   scripts/tree.sh prepare   extract KSRC into TREE as a git repository whose
#                             first commit (tag kfdmp-base) is the pristine base
#   scripts/tree.sh apply     git am patches/ onto the base, unless TREE already
#                             holds exactly this series
#   scripts/tree.sh status    say what TREE holds
#
# TREE is a build product: `apply` resets it to the base before applying a
# changed series. Commits made in TREE by hand are never thrown away: when
# TREE has commits that patches/ does not hold, `apply` stops and says so
# (export them with scripts/series.sh export, or FORCE=1 to discard them).
# `prepare` re-makes TREE only for another base (KSRC's real path and size),
# and refuses while TREE holds other branches or worktrees (someone's work)
# unless KFDMP_TREE_RESET=1.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

base_id() {
	if [ -d "$KSRC" ]; then
		printf 'dir %s\n' "$(cd "$KSRC" && pwd -P)"
	else
		[ -f "$KSRC" ] || die "KSRC=$KSRC: no such tarball or directory (scripts/setup-deps.sh installs $LINUX_SOURCE_PKG)"
		# By its real path (../x and /abs/x are the same base) and size,
		# not its mtime: a copy of the same tarball is the same base.
		stat -c 'tar %n %s' "$(realpath "$KSRC")"
	fi
}

series_id() {
	{ series_patches | while read -r p; do sha256sum "$p"; done; } |
		sed "s#$ROOT/##" | sha256sum | cut -d' ' -f1
}

prepare() {
	local id
	id=$(base_id)
	if [ -f "$TREE/.git/kfdmp-base-id" ]; then
		case $(cat "$TREE/.git/kfdmp-base-id") in
		# the same base (an id of before 2026-11-27 has the mtime after it)
		"$id" | "$id "*) return 0 ;;
		esac
		# A different base: the tree is re-made. Never with someone's work
		# in it (other branches or worktrees): say so and stop.
		if [ -d "$TREE/.git" ] && [ -z "${KFDMP_TREE_RESET:-}" ] &&
			{ [ "$(git -C "$TREE" worktree list | wc -l)" -gt 1 ] ||
				git -C "$TREE" for-each-ref --format='%(refname:short)' refs/heads |
				grep -qvxE 'kfdmp|kfdmp-base'; }; then
			die "$TREE was prepared from another base than $KSRC and holds other branches or worktrees; move them away or set KFDMP_TREE_RESET=1 to re-make it"
		fi
	fi
	note "preparing the base tree in $TREE from $KSRC"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	if [ -d "$KSRC" ]; then
		git -C "$KSRC" rev-parse --git-dir >/dev/null 2>&1 &&
			note "note: KSRC is a git tree; its working files are copied, its history is not used"
		rsync -a --exclude=.git "$KSRC"/ "$TREE.tmp"/
	else
		tar -xf "$KSRC" -C "$TREE.tmp" --strip-components=1
	fi
	(
		cd "$TREE.tmp"
		git_init . kfdmp
		git config core.autocrlf false
		git config gc.auto 0
		# Debian's source tarball ignores every top-level entry in
		# .gitignore (for its packaging repository), so add by force.
		git add -A -f .
		GIT_AUTHOR_DATE=$BASE_DATE GIT_COMMITTER_DATE=$BASE_DATE \
			git commit -q -m "Base: $(basename "$KSRC")" \
			-m "Pristine source as shipped; prepared by kfd-mp scripts/tree.sh."
		git tag "$BASE_TAG"
	)
	printf '%s\n' "$id" >"$TREE.tmp/.git/kfdmp-base-id"
	mv "$TREE.tmp" "$TREE"
	note "base commit $(git -C "$TREE" rev-parse --short HEAD)"
}

apply() {
	local want head stamp p
	prepare
	want=$(series_id)
	head=$(git -C "$TREE" rev-parse HEAD)
	stamp=$(cat "$TREE/.git/kfdmp-series" 2>/dev/null || echo "none none")
	if [ "$stamp" = "$want $head" ]; then
		return 0
	fi
	if [ "${stamp#* }" != "$head" ] && [ "$head" != "$(git -C "$TREE" rev-parse "$BASE_TAG")" ] &&
	   [ "${FORCE:-0}" != 1 ]; then
		if [ "${stamp%% *}" = "$want" ]; then
			note "$TREE has commits that $PATCHES_REL does not hold; building them as they are"
			note "(scripts/series.sh export writes them to $PATCHES_REL)"
			return 0
		fi
		die "$TREE has commits that $PATCHES_REL does not hold, and $PATCHES_REL changed too; export them (scripts/series.sh export) or discard them with FORCE=1"
	fi
	git -C "$TREE" am --abort >/dev/null 2>&1 || true
	git -C "$TREE" reset -q --hard "$BASE_TAG"
	git -C "$TREE" clean -q -fdx -e '*.o' -e '*.cmd' -e '*.ko' -e '*.mod*' -e '*.a' -e 'modules.order' -e 'Module.symvers' -e '.tmp*' >/dev/null 2>&1 || true
	while read -r p; do
		if ! git -C "$TREE" am -q --committer-date-is-author-date "$p" >/dev/null 2>&1; then
			git -C "$TREE" am --abort >/dev/null 2>&1 || true
			die "patch does not apply: ${p#"$ROOT"/}"
		fi
	done < <(series_patches)
	printf '%s %s\n' "$want" "$(git -C "$TREE" rev-parse HEAD)" >"$TREE/.git/kfdmp-series"
	note "applied $(series_patches | wc -l) patches onto $BASE_TAG"
}

case "${1:-}" in
prepare) prepare ;;
apply) apply ;;
series-id) series_id ;;
status)
	git -C "$TREE" log --oneline "$BASE_TAG^!" HEAD 2>/dev/null || echo "no tree at $TREE" ;;
*) echo "usage: $0 prepare|apply|status|series-id" >&2; exit 2 ;;
esac
