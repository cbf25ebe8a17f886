#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cross-build for the arm64 guests, into build/: the module for each arm64
# test kernel (build/<rel>/rocepath.ko, scripts/kbuild.sh), the CLI and the
# daemon against Debian's arm64 -dev packages (build/arm64/daemon/) and the
# selftest helpers (build/arm64/selftests/). Needs scripts/deps-arm64.sh.
# Usage: scripts/cross-arm64.sh [REL...]   (default: both arm64 kernels)

set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${ROCEPATH_CACHE:-$TOP/.cache}
CROSS=aarch64-linux-gnu
out=$TOP/build/arm64

die() { echo "cross-arm64: error: $*" >&2; exit 1; }
[ -f "$CACHE/arm64/kernels.env" ] || die "no $CACHE/arm64/kernels.env: run scripts/deps-arm64.sh"
command -v $CROSS-gcc >/dev/null || die "no $CROSS-gcc: run scripts/deps-arm64.sh"

rels=("$@")
[ ${#rels[@]} -gt 0 ] || mapfile -t rels < <(sed -n 's/^KREL_[0-9]*_ARM64=//p' "$CACHE/arm64/kernels.env")
for rel in "${rels[@]}"; do
	"$TOP/scripts/kbuild.sh" "$rel" 2>&1 | grep -v '^Skipping BTF generation' >&2
done

# A mirror of the userspace sources, so the host's objects stay x86-64.
# Sources gone from the tree go from the mirror too (with their objects):
# a header left behind would shadow the one that moved.
mkdir -p "$out/daemon" "$out/include"
rm -rf "$out/include"
cp -rp "$TOP/include" "$out/include"
(cd "$out/daemon" && find . -name '*.[ch]') | while read -r f; do
	[ -e "$TOP/daemon/$f" ] || rm -f "$out/daemon/$f" "$out/daemon/${f%.c}.o"
done
(cd "$TOP/daemon" && find . -name '*.[ch]' -o -name Makefile) | while read -r f; do
	mkdir -p "$out/daemon/$(dirname "$f")"
	cmp -s "$TOP/daemon/$f" "$out/daemon/$f" || cp -p "$TOP/daemon/$f" "$out/daemon/$f"
done
PKG_CONFIG_LIBDIR=/usr/lib/$CROSS/pkgconfig:/usr/share/pkgconfig \
	make -s -C "$out/daemon" -j2 CC=$CROSS-gcc CACHE="$CACHE" all
# The helpers the arm64 lane's tests use (not mpi_allreduce: no arm64 mpicc).
make -s -C "$TOP/selftests" CC=$CROSS-gcc OUTPUT="$out/selftests" \
	"$out/selftests/pin_qp_churn" "$out/selftests/qp_modify_flood" "$out/selftests/ynl_client"
file "$out/daemon/rocepath" | grep -q aarch64 || die "$out/daemon/rocepath is not an arm64 binary"
echo "cross-arm64: modules for ${rels[*]}, userspace in ${out#"$TOP"/}" >&2
