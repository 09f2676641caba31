#!/usr/bin/env bash
# ok and bad always succeed (tests/test-lib.sh): `cond && ok .. || bad ..` is an if-else.
# shellcheck disable=SC2015
# scripts/tree.sh on a toy base tree (KSRC as a directory, a scratch copy of
# the scripts with their own patches/): prepare makes a pristine tagged base
# with a reproducible hash; apply applies the series once and is a no-op
# after; a patch that does not apply stops apply and is named; commits made
# by hand in the tree are never thrown away.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
scratch tree-test

# A project copy whose patches/ we control.
mkdir -p "$tmp/proj/scripts" "$tmp/proj/patches/linux-6.12" "$tmp/src/drivers"
cp "$root"/scripts/{lib.sh,tree.sh,versions.env} "$tmp/proj/scripts/"
printf 'line 1\nline 2\nline 3\n' >"$tmp/src/drivers/a.c"
export KSRC=$tmp/src BUILD=$tmp/build TREE=$tmp/build/tree
tree=$tmp/proj/scripts/tree.sh

# Two patches made against the toy base.
"$tree" prepare >/dev/null
base=$(git -C "$TREE" rev-parse kfdmp-base)
( cd "$TREE"
  sed -i 's/line 2/line two/' drivers/a.c && git commit -qam "drm/amdkfd: first" -s
  echo "line 4" >>drivers/a.c && git commit -qam "drm/amdkfd: second" -s
  git format-patch -q -o "$tmp/proj/patches/linux-6.12" --zero-commit kfdmp-base..HEAD )
rm -rf "$TREE"

"$tree" prepare >/dev/null
[ "$(git -C "$TREE" rev-parse kfdmp-base)" = "$base" ] && ok "prepare: same base hash on a second preparation" ||
	bad "prepare: base hash changed"
[ -z "$(git -C "$TREE" status --porcelain)" ] && ok "prepare: pristine" || bad "prepare: tree not clean"

"$tree" apply >"$tmp/apply.log" 2>&1 && grep -q 'applied 2 patches' "$tmp/apply.log" &&
	[ "$(git -C "$TREE" log --format=%s -1)" = "drm/amdkfd: second" ] && ok "apply: 2 patches" || bad "apply: $(cat "$tmp/apply.log")"
head=$(git -C "$TREE" rev-parse HEAD)
"$tree" apply >"$tmp/again.log" 2>&1 && [ ! -s "$tmp/again.log" ] && [ "$(git -C "$TREE" rev-parse HEAD)" = "$head" ] &&
	ok "apply: a second run does nothing" || bad "apply again: $(cat "$tmp/again.log")"

# A hand-made commit is kept and built as it is while patches/ is unchanged ...
( cd "$TREE" && echo "line 5" >>drivers/a.c && git commit -qam "wip" )
"$tree" apply >"$tmp/wip.log" 2>&1 && grep -q 'commits that patches/linux-6.12 does not hold' "$tmp/wip.log" &&
	[ "$(git -C "$TREE" log --format=%s -1)" = wip ] && ok "apply: keeps a hand-made commit" || bad "apply with wip: $(cat "$tmp/wip.log")"
# ... and apply refuses to throw it away when patches/ changes too.
sed -i 's/line two/line 2b/' "$tmp/proj/patches/linux-6.12/0001-"*.patch
rc=0; "$tree" apply >"$tmp/both.log" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q 'FORCE=1' "$tmp/both.log" && [ "$(git -C "$TREE" log --format=%s -1)" = wip ] &&
	ok "apply: refuses to discard a hand-made commit" || bad "apply with wip and new patches: rc=$rc $(cat "$tmp/both.log")"

# A patch that does not apply stops apply and is named: the first patch
# (changed above) still applies, the second's context is gone.
rc=0; FORCE=1 "$tree" apply >"$tmp/broken.log" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q 'patch does not apply: patches/linux-6.12/0002-drm-amdkfd-second.patch' "$tmp/broken.log" &&
	ok "apply: names the patch that does not apply" || bad "broken patch: rc=$rc $(cat "$tmp/broken.log")"

verdict "tree test"
