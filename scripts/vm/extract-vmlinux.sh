#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract the uncompressed ELF vmlinux from a bzImage (xz, zstd or gzip
# payload), like the kernel's scripts/extract-vmlinux. QEMU boots it through
# the PVH entry point, which skips the guest's own decompression: seconds of
# CPU under TCG on every boot.
# Usage: extract-vmlinux.sh BZIMAGE OUTPUT

set -eu
in=${1:?usage: extract-vmlinux.sh BZIMAGE OUTPUT}
out=${2:?usage: extract-vmlinux.sh BZIMAGE OUTPUT}

try() { # MAGIC(hex) DECOMPRESSOR...
	local magic=$1 pos
	shift
	for pos in $(LC_ALL=C grep -obUaP "$magic" "$in" | cut -d: -f1); do
		tail -c +$((pos + 1)) "$in" | "$@" >"$out.$$" 2>/dev/null
		if [ "$(head -c 4 "$out.$$" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; then
			mv -f "$out.$$" "$out"
			return 0
		fi
	done
	rm -f "$out.$$"
	return 1
}

try '\x28\xb5\x2f\xfd' zstd -dcq ||
	try '\xfd\x37\x7a\x58\x5a\x00' xz -dcq ||
	try '\x1f\x8b\x08' gzip -dcq || {
	echo "extract-vmlinux: no ELF payload found in $in" >&2
	exit 1
}
