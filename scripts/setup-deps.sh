#!/usr/bin/env bash
# Install everything the build and the tests need on Debian 12 (bookworm).
# Idempotent: a second run with everything present only checks and exits.
# Adds the bookworm-backports suite (the 6.12.95 kernel) and Debian 11's
# bullseye suite (the 5.10 kernel the vendor path is built and loaded on,
# pinned at priority 100 so it never replaces a bookworm package), taking the
# archive host from the machine's existing apt sources (never a hard-coded
# host).
set -euo pipefail
quiet=0
[ "${1:-}" = --quiet ] && quiet=1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "setup-deps: run as root (or install sudo)" >&2; exit 1; }
	SUDO=sudo
fi

want=("$LINUX_SOURCE_PKG=$LINUX_SOURCE_VERSION" "$LINUX_HEADERS_PKG" "$LINUX_IMAGE_PKG")
for p in $TOOL_PKGS $LINUX_510_PKGS; do want+=("$p"); done

missing=()
for spec in "${want[@]}"; do
	name=${spec%%=*}
	ver=
	[ "$name" != "$spec" ] && ver=${spec#*=}
	have=$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$name" 2>/dev/null || true)
	case "$have" in
	"ii "*)
		if [ -n "$ver" ] && [ "${have#ii  }" != "$ver" ] && [ "${have#ii }" != "$ver" ]; then
			missing+=("$spec")
		fi ;;
	*) missing+=("$spec") ;;
	esac
done
if [ ${#missing[@]} -eq 0 ]; then
	[ "$quiet" = 1 ] || echo "setup-deps: all packages present"
	exit 0
fi
echo "setup-deps: installing ${missing[*]}"

# The archive host comes from the existing Debian entry for bookworm.
find_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN{RS="";FS="\n"}
		     /Suites:[^\n]*bookworm([ \n]|$)/ && /Components:[^\n]*main/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", $i); split($i, u, " "); print u[1]; exit }
		     }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" && $0 ~ / bookworm / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' "$f"
	done
}
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	uri=$(find_uri | head -n1)
	[ -n "$uri" ] || { echo "setup-deps: no Debian bookworm entry in the apt sources to take the archive host from" >&2; exit 1; }
	echo "setup-deps: adding bookworm-backports from $uri"
	$SUDO tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null <<SRC
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
if ! grep -rqs '^Suites:.*bullseye' /etc/apt/sources.list.d/ &&
   ! grep -qs '^deb .* bullseye ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list; then
	uri=$(find_uri | head -n1)
	[ -n "$uri" ] || { echo "setup-deps: no Debian bookworm entry in the apt sources to take the archive host from" >&2; exit 1; }
	echo "setup-deps: adding bullseye (Debian 11, for its 5.10 kernel) from $uri"
	$SUDO tee /etc/apt/sources.list.d/bullseye.sources >/dev/null <<SRC
Types: deb
URIs: $uri
Suites: bullseye
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	# Only what is asked for by name comes from bullseye.
	$SUDO tee /etc/apt/preferences.d/kfdmp-bullseye >/dev/null <<PIN
Package: *
Pin: release n=bullseye
Pin-Priority: 100
PIN
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup-deps: done"
