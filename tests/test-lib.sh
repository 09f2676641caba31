# shellcheck shell=bash
# Shared by the shell tests under tests/: source it after `set -euo pipefail`.
#   root           the repository root (and scripts/versions.env is sourced)
#   scratch NAME   make $tmp, removed at exit unless KEEP is set
#   ok/bad MSG     report a check; ok and bad always succeed, so
#                  `cond && ok .. || bad ..` is an if-else in the tests
#   verdict NAME   print NAME: PASSED, or NAME: FAILED and exit 1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../scripts/versions.env
. "$root/scripts/versions.env"
fail=0

scratch() {
	tmp=$(mktemp -d "/tmp/kfdmp-$1.XXXXXX")
	trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
}

ok() { printf 'ok: %s\n' "$*"; }
bad() { printf 'FAIL: %s\n' "$*"; fail=1; }

verdict() {
	if [ "$fail" = 0 ]; then
		echo "$1: PASSED"
	else
		echo "$1: FAILED"
		exit 1
	fi
}
