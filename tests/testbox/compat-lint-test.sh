#!/usr/bin/env bash
# The box's floors, statically: every Python script under scripts/ parses as
# Python 3.6 and uses no 3.7+ library argument (scripts/lint-py36.py), every
# box-side shell script uses no bash newer than 4.4 and no git newer than
# 2.27 (scripts/lint-sh-compat.sh). First each lint is shown to catch what it
# is for, on snippets written here (the constructs issue 15 found).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$tmp/bad.py" <<'PY'
import argparse, subprocess
ap = argparse.ArgumentParser()
sub = ap.add_subparsers(dest="cmd", required=True)
out = subprocess.run(["true"], capture_output=True, text=True).stdout
from dataclasses import dataclass
PY
printf 'x = 1\nprint(f"{x=}")\n' >"$tmp/fstr.py"
printf 'if (n := 3) > 2:\n    pass\n' >"$tmp/walrus.py"
out=$(python3 "$root/scripts/lint-py36.py" "$tmp/bad.py" || true)
for want in 'add_subparsers(required=...) needs Python 3.7' 'run(capture_output=...) needs Python 3.7' \
	'run(text=...) needs Python 3.7' 'module dataclasses needs Python 3.7'; do
	grep -qF "$want" <<<"$out" || fail "lint-py36 missed: $want; it said: $out"
done
{ python3 "$root/scripts/lint-py36.py" "$tmp/walrus.py" || true; } | grep 'syntax that Python 3.6 does not parse' >/dev/null ||
	fail "lint-py36 missed the walrus operator"
{ python3 "$root/scripts/lint-py36.py" "$tmp/fstr.py" || true; } | grep -E "does not parse|f-string '=' specifier" >/dev/null ||
	fail "lint-py36 missed the f-string = specifier"

cat >"$tmp/bad.sh" <<'SH'
git init -q -b kfdmp
git -C "$d" init --initial-branch=main
t=$EPOCHREALTIME
echo "${name@U}"
wait -n -p pid
echo "${name@Q}"
SH
out=$("$root/scripts/lint-sh-compat.sh" "$tmp/bad.sh" || true)
[ "$(grep -c '^[^ ].*: needs ' <<<"$out")" = 5 ] || fail "lint-sh-compat: want 5 findings (not \${name@Q}: bash 4.4 has it); it said: $out"

echo "== the project"
python3 "$root/scripts/lint-py36.py"
"$root/scripts/lint-sh-compat.sh"
