#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that `dkms add` + `dkms build` of this tree work against a kernel's
# headers, in a private DKMS tree under a temporary directory (the host's
# /var/lib/dkms and /usr/src are not touched). Exit 4 (skip) when dkms
# cannot run here.
# Usage: scripts/dkms-check.sh REL

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
rel=${1:?usage: dkms-check.sh REL}

command -v dkms >/dev/null || { echo "dkms not installed: run scripts/deps.sh (apt-get install dkms)"; exit 4; }
[ -d "/lib/modules/$rel/build" ] || { echo "no headers for $rel: apt-get install linux-headers-$rel"; exit 4; }
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
[ -n "$ver" ] || { echo "no PACKAGE_VERSION in dkms.conf"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src/rocepath-$ver
mkdir -p "$src" "$tmp/tree" "$tmp/install"
make -s -C "$TOP" DKMS_SRC="$src" dkms-src || { echo "make dkms-src failed"; exit 1; }

d() { dkms "$@" --sourcetree "$tmp/src" --dkmstree "$tmp/tree" --installtree "$tmp/install"; }
d add -m rocepath -v "$ver" || { echo "dkms add failed"; exit 1; }
if ! d build -m rocepath -v "$ver" -k "$rel"; then
	cat "$tmp/tree/rocepath/$ver/build/make.log" 2>/dev/null | tail -n 40
	echo "dkms build failed for $rel"
	exit 1
fi
ko=$(find "$tmp/tree/rocepath/$ver/$rel" -name 'rocepath.ko*' | head -n1)
[ -n "$ko" ] || { echo "dkms build produced no rocepath.ko"; exit 1; }
echo "dkms build ok: ${ko#"$tmp"/}"
