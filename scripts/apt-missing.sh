#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install whichever of the named Debian packages are missing, quietly; say
# which on stderr. Shared by scripts/deps.sh and scripts/debug-kernel.sh.
# Usage: scripts/apt-missing.sh PROG PKG...   (PROG prefixes the messages)

prog=${1:?usage: apt-missing.sh PROG PKG...}
shift
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -n "$missing" ] || exit 0
[ "$(id -u)" = 0 ] || { echo "$prog: error: missing packages:$missing (installing needs root)" >&2; exit 1; }
echo "$prog: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null ||
	{ echo "$prog: error: apt-get update failed: check the Debian mirror in /etc/apt/sources.list" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null ||
	{ echo "$prog: error: apt-get install failed for:$missing" >&2; exit 1; }
