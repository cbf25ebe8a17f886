#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the initramfs for one test kernel: busybox-static, stage 1 init and
# the modules needed to mount the root (virtio, 9p, overlay, virtio_net),
# in the order modprobe --show-depends gives (netfs before 9pnet on 6.12,
# virtio_pci is a module on 6.1 and built in on 6.12).
# Usage: mkinitramfs.sh REL OUTPUT

set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
rel=${1:?usage: mkinitramfs.sh REL OUTPUT}
out=${2:?usage: mkinitramfs.sh REL OUTPUT}
CACHE=${ROCEPATH_CACHE:-$TOP/.cache}
kroot=$CACHE/kernels/$rel
mdir=$kroot/lib/modules/$rel
MODULES="virtio_pci 9pnet_virtio 9p overlay virtio_net"
busybox=/bin/busybox
case $rel in
*-arm64)
	# The guest's own busybox, the virtio port the result goes out on, and
	# a virtio RNG: without one the CRNG of a TCG arm64 guest takes minutes
	# to initialise, and Python blocks on it at start.
	busybox=$CACHE/arm64/root/bin/busybox
	MODULES="$MODULES virtio_console virtio_rng"
	;;
esac

die() { echo "mkinitramfs: error: $*" >&2; exit 1; }
[ -d "$mdir" ] || die "no modules at $mdir: run scripts/deps.sh"
[ -x "$busybox" ] || die "no $busybox: apt-get install busybox-static (arm64: scripts/deps-arm64.sh)"
LC_ALL=C ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	die "$busybox is not static: apt-get install busybox-static"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/lib/modules"
cp "$busybox" "$work/bin/busybox"
ln -s busybox "$work/bin/sh"
cp "$TOP/scripts/vm/init" "$work/init"
chmod 0755 "$work/init"

: >"$work/modules.list"
for m in $MODULES; do
	modprobe -d "$kroot" -S "$rel" --show-depends "$m" ||
		die "modprobe --show-depends $m failed for $rel"
done | awk '$1 == "insmod" { print $2 }' | while read -r ko; do
	relpath=${ko#"$mdir"/}
	grep -qxF "$relpath" "$work/modules.list" && continue
	case $ko in
	*.ko) ;;
	*) die "$ko is compressed: busybox insmod needs plain .ko (rerun scripts/deps.sh)" ;;
	esac
	mkdir -p "$work/lib/modules/$(dirname "$relpath")"
	cp "$ko" "$work/lib/modules/$relpath"
	echo "$relpath" >>"$work/modules.list"
done

(cd "$work" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.$$"
mv -f "$out.$$" "$out"
