#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the build, the tests and the demo need, idempotently:
# Debian packages, the two test kernels (extracted into .cache, never
# installed into /boot) and the parts of linux-source-6.12 we build with
# (kselftest headers, YNL tools, checkpatch.pl).
#
# A second run only checks and returns within seconds.

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${ROCEPATH_CACHE:-$TOP/.cache}
# The two test kernels, as Debian's meta packages name them.
KERNEL_METAS=${KERNEL_METAS:-"linux-image-amd64 linux-image-6.12-amd64"}

PKGS="build-essential pkg-config bc flex bison libelf-dev kmod cpio xz-utils zstd
      qemu-system-x86 busybox-static iproute2 ethtool tcpdump tshark
      rdma-core ibverbs-utils perftest rdmacm-utils libibverbs-dev librdmacm-dev
      openmpi-bin libopenmpi-dev libucx0 ucx-utils libfabric1 libfabric-bin
      libmnl-dev libnl-3-dev libnl-route-3-dev libjson-c-dev
      linux-headers-amd64 linux-headers-6.12-amd64 linux-source-6.12
      python3 python3-yaml python3-jsonschema jq gojq bash-builtins
      sparse cppcheck valgrind dkms dpkg-dev systemd"

log() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (apt-get, depmod); try: sudo $0"

# shellcheck disable=SC2086
"$TOP/scripts/apt-missing.sh" deps $PKGS || exit 1
# Daemons that run only in the guests, installed without starting their
# services here: FRR for the fabric's "frr" routing (fabric_bgp.sh), the
# NFS server for the placement on NFS (daemon_nfs.sh).
"$TOP/scripts/apt-noservice.sh" deps frr nfs-kernel-server || exit 1

mkdir -p "$CACHE/kernels" "$CACHE/debs"

# Resolve each meta package to its concrete kernel release, e.g.
# linux-image-6.12-amd64 -> linux-image-6.12.117+deb12-amd64 -> 6.12.117+deb12-amd64.
resolve_rel() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | grep -v unsigned | head -n1
}

env_file=$CACHE/kernels.env
: >"$env_file.tmp"
for meta in $KERNEL_METAS; do
	rel=$(resolve_rel "$meta")
	[ -n "$rel" ] || { apt-get update -q >/dev/null; rel=$(resolve_rel "$meta"); }
	[ -n "$rel" ] || die "cannot resolve $meta to a kernel release (apt-cache depends $meta)"
	dir=$CACHE/kernels/$rel
	if [ ! -e "$dir/.done" ]; then
		log "fetching kernel $rel"
		rm -rf "$dir"
		mkdir -p "$dir"
		(cd "$CACHE/debs" && apt-get download -q "linux-image-$rel-unsigned" >/dev/null 2>&1 ||
			apt-get download -q "linux-image-$rel" >/dev/null) ||
			die "apt-get download linux-image-$rel(-unsigned) failed"
		deb=$(ls -t "$CACHE/debs"/linux-image-"$rel"*_amd64.deb | head -n1)
		dpkg-deb -x "$deb" "$dir"
		# 6.12 ships .ko.xz: decompress so busybox insmod in the initramfs can load them.
		find "$dir/lib/modules/$rel" -name '*.ko.xz' -exec xz -d -f {} +
		depmod -b "$dir" "$rel"
		[ -f "$dir/boot/vmlinuz-$rel" ] || die "no vmlinuz in $deb"
		touch "$dir/.done"
	fi
	[ -d "/lib/modules/$rel/build" ] ||
		die "headers for $rel are not installed: apt-get install linux-headers-$rel"
	case $rel in
	6.1.*) echo "KREL_61=$rel" >>"$env_file.tmp" ;;
	6.12.*) echo "KREL_612=$rel" >>"$env_file.tmp" ;;
	esac
	echo "KRELS+=$rel" >>"$env_file.tmp"
done
mv "$env_file.tmp" "$env_file"

# The parts of the 6.12 source tree we use; MAINTAINERS lets ynl-gen-c.py
# find the tree root.
src=$CACHE/linux-src
if [ ! -e "$src/.done" ]; then
	log "extracting kselftest headers, YNL and checkpatch from linux-source-6.12"
	tarball=$(ls /usr/src/linux-source-6.12*.tar.xz | head -n1)
	[ -n "$tarball" ] || die "no /usr/src/linux-source-6.12*.tar.xz: apt-get install linux-source-6.12"
	rm -rf "$src" && mkdir -p "$src"
	tar -xf "$tarball" -C "$src" --strip-components=1 --wildcards \
		'*/MAINTAINERS' '*/tools/net/ynl/*' '*/Documentation/netlink/*' \
		'*/tools/testing/selftests/kselftest*' '*/tools/testing/selftests/net/lib.sh' \
		'*/tools/include/*' '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' ||
		die "extracting $tarball failed"
	touch "$src/.done"
fi
# node_exporter and promtool for selftests/metrics_prom.sh (binaries only).
ROCEPATH_CACHE=$CACHE "$TOP/scripts/prom-tools.sh" || die "scripts/prom-tools.sh failed"
log "ok ($(tr '\n' ' ' <"$env_file"))"
