#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build rocepath.ko for one kernel release in build/<rel>/, a copy of the
# module sources, so builds for several kernels do not clobber each other.
# Usage: scripts/kbuild.sh REL [extra kbuild args, e.g. C=2]

set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
rel=${1:?usage: kbuild.sh REL [make args]}
shift
kdir=/lib/modules/$rel/build
[ -d "$kdir" ] || { echo "kbuild: no headers for $rel: apt-get install linux-headers-$rel" >&2; exit 1; }
out=$TOP/build/$rel
mkdir -p "$out"
# rsync-free mirror: only what Kbuild reads.
rm -rf "$out/kmod" "$out/include"
cp -r "$TOP/kmod" "$TOP/include" "$out/"
cp "$TOP/Kbuild" "$out/"
make -s -C "$kdir" M="$out" modules "$@"
echo "kbuild: $out/rocepath.ko"
