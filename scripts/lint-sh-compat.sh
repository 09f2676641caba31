#!/usr/bin/env bash
# Shell lint for the test box's floors: no bash newer than 4.4 and no git
# newer than 2.27 (EL8 and its derivatives) in the scripts that run there.
#
#   scripts/lint-sh-compat.sh [FILE...]   default: scripts/*.sh, scripts/*.mk,
#                                         Makefile
#
# A pattern list, not a parser: each entry is an extended regular expression,
# the version that added the construct, and what to use instead. A line may
# opt out with a trailing comment "# lint-sh-compat: ok" (say why next to it).
# Prints FILE:LINE: construct (needs ...); exit 1 when anything is found.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ $# -eq 0 ]; then
	set -- scripts/*.sh scripts/*.mk Makefile
fi

# regex <TAB> needs <TAB> instead
rules=$(cat <<'RULES'
\$\{?EPOCH(REAL)?(SECONDS|TIME)	bash 5.0	date +%s / date +%s.%N
\$\{?SRANDOM	bash 5.1	$RANDOM or od -An -N4 /dev/urandom
\$\{?BASH_ARGV0	bash 5.0	$0
\$\{[#!]?[A-Za-z_][A-Za-z_0-9]*(\[[^]]*\])?@[ULuKk]\}	bash 5.1 (@U @u @L @K) / 5.2 (@k)	tr, awk
(^|[;&|[:space:]])wait([[:space:]]+-[a-z]+)*[[:space:]]+-[a-z]*[pf]([[:space:]]|$)	bash 5.0 (wait -f) / 5.1 (wait -p)	wait PID, with the PID kept from $!
shopt[[:space:]]+-[su][[:space:]]+[a-z_ ]*(localvar_inherit|localvar_unset|assoc_expand_once|patsub_replacement|varredir_close|noexpand_translation|array_expand_once)	bash 5.0-5.2	(none: do without)
git([[:space:]]+-C[[:space:]]+[^[:space:]]+)?[[:space:]]+init([[:space:]]+-[a-z]+)*[[:space:]]+(-b|--initial-branch)	git 2.28	git_init DIR BRANCH (scripts/lib.sh): git init + git symbolic-ref HEAD
init\.defaultBranch	git 2.28	git_init DIR BRANCH (scripts/lib.sh)
git([[:space:]]+-C[[:space:]]+[^[:space:]]+)?[[:space:]]+maintenance	git 2.29	git gc
rebase[[:space:]].*--committer-date-is-author-date	git 2.29	git am --committer-date-is-author-date
git([[:space:]]+-C[[:space:]]+[^[:space:]]+)?[[:space:]]+diff[[:space:]].*--merge-base	git 2.30	git diff $(git merge-base A B) B
config[[:space:]].*--fixed-value	git 2.30	a regex-quoted value
sparse-checkout[[:space:]]+set[[:space:]].*--(no-)?cone	git 2.35 (set --no-cone)	git sparse-checkout init + set
git([[:space:]]+-C[[:space:]]+[^[:space:]]+)?[[:space:]]+archive[[:space:]].*--add-file	git 2.35	tar -r
am[[:space:]].*--empty=	git 2.35	(none)
clone[[:space:]].*--reject-shallow	git 2.34	(none)
merge-tree[[:space:]].*--write-tree	git 2.38	git merge-file
%\(describe	git 2.32	git describe
RULES
)

found=0
for f in "$@"; do
	[ -f "$f" ] || { echo "lint-sh-compat: no file $f" >&2; exit 2; }
	while IFS=$'\t' read -r re needs instead; do
		while IFS=: read -r line text; do
			case $text in *"lint-sh-compat: ok"*) continue ;; esac
			# comment lines say what not to use; they do not run
			[[ $text =~ ^[[:space:]]*# ]] && continue
			printf '%s:%s: needs %s; instead: %s\n   %s\n' "$f" "$line" "$needs" "$instead" "$(printf '%s' "$text" | sed 's/^[[:space:]]*//')"
			found=$((found + 1))
		done < <(grep -nE -- "$re" "$f" || true)
	done <<<"$rules"
done
echo "lint-sh-compat: $# files, $found finding(s)$([ "$found" = 0 ] || echo "; these break on the box's bash 4.4 / git 2.27")"
[ "$found" = 0 ]
