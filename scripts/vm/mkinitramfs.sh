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
kroot=$TOP/.cache/kernels/$rel
mdir=$kroot/lib/modules/$rel
MODULES="virtio_pci 9pnet_virtio 9p overlay virtio_net"

die() { echo "mkinitramfs: error: $*" >&2; exit 1; }
[ -d "$mdir" ] || die "no modules at $mdir: run scripts/deps.sh"
[ -x /bin/busybox ] || die "no /bin/busybox: apt-get install busybox-static"
LC_ALL=C ldd /bin/busybox 2>&1 | grep -q 'not a dynamic' ||
	die "/bin/busybox is not static: apt-get install busybox-static"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/lib/modules"
cp /bin/busybox "$work/bin/busybox"
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
