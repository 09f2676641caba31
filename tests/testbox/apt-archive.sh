# shellcheck shell=bash
# archive_uri: the archive URIs of this machine's apt sources (deb822 or
# one-line form), one per line, first found first. Sourced by boxroot.sh
# and hip-gfx942-check.sh, which take their mirror from it (never a host
# name written into the project).
archive_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^URIs:/ { print $2; exit }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' "$f"
	done
}
