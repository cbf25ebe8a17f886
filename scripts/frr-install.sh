#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install Debian's frr for the fabric's FRR routing mode without starting
# it here: FRR runs only in the fabric guest's switch namespaces
# (scripts/vm/fabric.py), which see this machine's / over 9p. The package
# enables and starts frr.service; a policy-rc.d that refuses every start
# covers the install, and the service is then disabled so no boot starts it.

set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)

dpkg-query -W -f='${Status}' frr 2>/dev/null | grep -q 'install ok installed' && exit 0
[ "$(id -u)" = 0 ] || { echo "frr-install: error: frr is missing (installing needs root)" >&2; exit 1; }

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
printf '#!/bin/sh\n# frr-install.sh: no service starts while it installs\nexit 101\n' >"$prc"
chmod 755 "$prc"
"$TOP/scripts/apt-missing.sh" frr-install frr
if command -v systemctl >/dev/null; then
	systemctl disable --now frr.service >/dev/null 2>&1 || true
fi
