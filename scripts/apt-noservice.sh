#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install whichever of the named Debian packages are missing without
# starting a service here: packages whose daemons run only inside the test
# guests (FRR in the fabric guest's switches, the NFS server), which see
# this machine's / over 9p. A policy-rc.d that refuses every start covers
# the install; then every systemd unit the newly installed packages ship
# is disabled, so that no boot of this machine starts them either.
# Usage: scripts/apt-noservice.sh PROG PKG...   (PROG prefixes the messages)

set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
prog=${1:?usage: apt-noservice.sh PROG PKG...}
shift

installed() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null | awk '/^ii/ { print $2 }' | sort; }
# All there: done, without touching policy-rc.d (apt-missing.sh says which
# are missing otherwise, and whether root is needed).
[ "$(dpkg-query -W -f='${Status}\n' "$@" 2>/dev/null | grep -c 'install ok installed')" = $# ] && exit 0
[ "$(id -u)" = 0 ] || exec "$TOP/scripts/apt-missing.sh" "$prog" "$@"

prc=/usr/sbin/policy-rc.d
saved=
if [ -e "$prc" ]; then
	saved=$(mktemp)
	cp -p "$prc" "$saved"
fi
restore() {
	if [ -n "$saved" ]; then mv -f "$saved" "$prc"; else rm -f "$prc"; fi
}
trap restore EXIT
printf '#!/bin/sh\n# apt-noservice.sh: no service starts while it installs\nexit 101\n' >"$prc"
chmod 755 "$prc"

before=$(installed)
"$TOP/scripts/apt-missing.sh" "$prog" "$@"
command -v systemctl >/dev/null || exit 0
comm -13 <(echo "$before") <(installed) | while read -r p; do
	dpkg -L "$p" 2>/dev/null
done | sed -nE 's:^/(usr/)?lib/systemd/system/([^/]+\.(service|socket|timer|path|target))$:\2:p' |
	sort -u | while read -r unit; do
	systemctl disable --now "$unit" >/dev/null 2>&1 || true
done
