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
CACHE=${ROCEPATH_CACHE:-$TOP/.cache}
# Installed headers, or the build tree of a kernel the project built itself
# (the debug lane's, linked by scripts/debug-kernel.sh).
kdir=/lib/modules/$rel/build
[ -d "$kdir" ] || kdir=$CACHE/kernels/$rel/build
cross=()
case $rel in
*-arm64)
	# Debian's arm64 headers (scripts/deps-arm64.sh), cross-compiled.
	kdir=$CACHE/arm64/usr/src/linux-headers-$rel
	cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC=aarch64-linux-gnu-gcc-12)
	;;
esac
[ -d "$kdir" ] || { echo "kbuild: no headers for $rel: apt-get install linux-headers-$rel (arm64: scripts/deps-arm64.sh)" >&2; exit 1; }
out=$TOP/build/$rel
mkdir -p "$out"
# rsync-free mirror: only what Kbuild reads. Objects stay and -p keeps
# mtimes, so an unchanged tree is not rebuilt (make check's sparse pass then
# also serves as the build); sources deleted at the top go here too.
mkdir -p "$out/kmod"
for f in "$out"/kmod/*.[ch]; do
	[ -e "$f" ] && [ ! -e "$TOP/kmod/${f##*/}" ] && rm -f "$f"
done
cp -p "$TOP"/kmod/*.[ch] "$out/kmod/"
rm -rf "$out/include"
cp -rp "$TOP/include" "$out/"
cp -p "$TOP/Kbuild" "$out/"
# -j: a cold build of the module is some twenty objects, one core each.
make -s -j"$(nproc)" -C "$kdir" M="$out" "${cross[@]}" modules "$@"
echo "kbuild: $out/rocepath.ko"
