#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the arm64 lane (make check-arm64) needs on an x86-64 Debian 12 host,
# all from Debian's archive, idempotently:
#   - the cross compiler, QEMU for aarch64 and the arm64 -dev packages the
#     CLI and daemon link against (dpkg --add-architecture arm64);
#   - Debian's arm64 6.1 and 6.12 kernels and their headers, extracted
#     into .cache (never installed), the headers wired to the host's own
#     linux-kbuild of the same version, which builds for any architecture;
#   - the guests' root: Debian arm64 packages and their dependencies,
#     unpacked with dpkg-deb -x into .cache/arm64/root (no maintainer
#     scripts run: the guest init sets up what they would).
# Run after scripts/deps.sh (the host side of the x86-64 lanes).

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${ROCEPATH_CACHE:-$TOP/.cache}
A=$CACHE/arm64
KERNEL_METAS_ARM64=${KERNEL_METAS_ARM64:-"linux-image-arm64 linux-image-6.12-arm64"}
HOST_PKGS="gcc-aarch64-linux-gnu qemu-system-arm libc6-dev:arm64
	libmnl-dev:arm64 libjson-c-dev:arm64 libnl-3-dev:arm64 libnl-route-3-dev:arm64
	libibverbs-dev:arm64 librdmacm-dev:arm64"
# The guest root: what the selftests and the guest init run.
ROOT_PKGS="busybox-static libc-bin bash bash-builtins coreutils util-linux mount procps grep sed gawk findutils
	diffutils gzip tar kmod iproute2 iputils-ping ethtool nftables tcpdump tshark jq gojq
	python3 python3-yaml rdma-core ibverbs-providers ibverbs-utils perftest rdmacm-utils
	libmnl0 libjson-c5 libnl-3-200 libnl-route-3-200 libibverbs1 librdmacm1"

log() { printf 'deps-arm64: %s\n' "$*" >&2; }
die() { printf 'deps-arm64: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (dpkg --add-architecture, apt-get)"
[ -f "$CACHE/kernels.env" ] || die "run scripts/deps.sh first (make deps)"

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	log "adding the arm64 architecture to dpkg"
	dpkg --add-architecture arm64
	apt-get update -q >/dev/null
fi
# shellcheck disable=SC2086
"$TOP/scripts/apt-missing.sh" deps-arm64 $HOST_PKGS || exit 1

mkdir -p "$A/debs" "$A/usr/lib"

resolve_rel() {
	apt-cache depends "$1:arm64" 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | sed 's/:arm64$//' |
		grep -v unsigned | head -n1
}

# download PKG...: the arm64 .debs into $A/debs that are not there yet, in
# one apt-get call; dies on failure. An Architecture: all package has no
# PKG:arm64 candidate, and one such name fails the whole call, so those
# that apt-cache does not show as arm64 are asked for without the suffix.
# (19 of the guest root's 188 are. Asked for with it, they sent all 188
# down the one-by-one path below: over 16 minutes of a fresh make check,
# at nice 19 beside the VM tests.)
download() {
	local p want=() names=() arm64
	for p in "$@"; do
		ls "$A/debs/${p}"_*_arm64.deb "$A/debs/${p}"_*_all.deb >/dev/null 2>&1 ||
			want+=("$p")
	done
	[ ${#want[@]} -gt 0 ] || return 0
	arm64=" $(apt-cache show --no-all-versions "${want[@]/%/:arm64}" 2>/dev/null |
		sed -n 's/^Package: //p' | tr '\n' ' ') "
	for p in "${want[@]}"; do
		if [[ $arm64 == *" $p "* ]]; then names+=("$p:arm64"); else names+=("$p"); fi
	done
	(cd "$A/debs" && apt-get download -q "${names[@]}" >/dev/null 2>&1) && return 0
	for p in "${want[@]}"; do
		ls "$A/debs/${p}"_*_arm64.deb "$A/debs/${p}"_*_all.deb >/dev/null 2>&1 && continue
		(cd "$A/debs" && { apt-get download -q "$p:arm64" || apt-get download -q "$p"; } >/dev/null 2>&1) ||
			die "apt-get download $p:arm64 failed"
	done
}

env_file=$A/kernels.env
: >"$env_file.tmp"
for meta in $KERNEL_METAS_ARM64; do
	rel=$(resolve_rel "$meta")
	[ -n "$rel" ] || { apt-get update -q >/dev/null; rel=$(resolve_rel "$meta"); }
	[ -n "$rel" ] || die "cannot resolve $meta:arm64 to a kernel release"
	dir=$CACHE/kernels/$rel
	if [ ! -e "$dir/.done" ]; then
		log "fetching kernel $rel and its headers"
		rm -rf "$dir"
		mkdir -p "$dir"
		download "linux-image-$rel-unsigned" "linux-headers-$rel"
		dpkg-deb -x "$(ls "$A/debs/linux-image-$rel-unsigned"_*_arm64.deb)" "$dir"
		find "$dir/lib/modules/$rel" -name '*.ko.xz' -exec xz -d -f {} +
		depmod -b "$dir" "$rel"
		[ -f "$dir/boot/vmlinuz-$rel" ] || die "no vmlinuz in linux-image-$rel-unsigned"
		dpkg-deb -x "$(ls "$A/debs/linux-headers-$rel"_*_arm64.deb)" "$A"
		touch "$dir/.done"
	fi
	# The headers name their kbuild as ../../lib/linux-kbuild-VER and the
	# common part by absolute path: both are the host's (linux-headers-*
	# of the same version, which scripts/deps.sh installs for amd64).
	kb=$(readlink "$A/usr/src/linux-headers-$rel/scripts")
	kb=${kb#../../lib/}
	kb=${kb%/scripts}
	[ -d "/usr/lib/$kb" ] || die "no /usr/lib/$kb: the host needs linux-kbuild of the same version as $rel"
	ln -sfn "/usr/lib/$kb" "$A/usr/lib/$kb"
	common=$(sed -n 's|^include \(/usr/src/[^ ]*\)/Makefile$|\1|p' "$A/usr/src/linux-headers-$rel/Makefile")
	[ -d "$common" ] || die "no $common: apt-get install ${common#/usr/src/}"
	case $rel in
	6.1.*) echo "KREL_61_ARM64=$rel" >>"$env_file.tmp" ;;
	6.12.*) echo "KREL_612_ARM64=$rel" >>"$env_file.tmp" ;;
	esac
done
mv "$env_file.tmp" "$env_file"

# The root: the dependency closure of ROOT_PKGS for arm64, unpacked. Kept
# as long as the package list (and this script's way of building it) holds.
rhash=$(echo "$ROOT_PKGS" | cat - "$0" | sha1sum | cut -c1-12)
if [ "$(cat "$A/root/.rpvm-root" 2>/dev/null)" != "$rhash" ]; then
	log "assembling the arm64 guest root"
	# shellcheck disable=SC2086
	pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $(printf '%s:arm64 ' $ROOT_PKGS) 2>/dev/null |
		grep -v '^ ' | grep -v '^<' | sed 's/:arm64$//' | sort -u)
	[ -n "$pkgs" ] || die "apt-cache depends found no packages (apt-get update?)"
	# shellcheck disable=SC2086
	download $pkgs
	rm -rf "$A/root"
	mkdir -p "$A/root"
	for p in $pkgs; do
		deb=$(ls "$A/debs/${p}"_*_arm64.deb "$A/debs/${p}"_*_all.deb 2>/dev/null | head -n1)
		dpkg-deb -x "$deb" "$A/root"
	done
	# What maintainer scripts and base-passwd would have made.
	r=$A/root
	mkdir -p "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/run" "$r/root" "$r/var/tmp"
	cp /etc/passwd /etc/group "$r/etc/"
	[ -e "$r/bin/sh" ] || ln -s bash "$r/bin/sh"
	[ -e "$r/usr/bin/awk" ] || ln -s gawk "$r/usr/bin/awk"
	[ -e "$r/usr/bin/python3" ] || ln -s "$(cd "$r/usr/bin" && ls python3.* | head -n1)" "$r/usr/bin/python3"
	[ -e "$r/usr/bin/busybox" ] || ln -s /bin/busybox "$r/usr/bin/busybox"
	echo "$rhash" >"$r/.rpvm-root"
fi
log "ok ($(tr '\n' ' ' <"$env_file"), root $(du -sh "$A/root" | cut -f1))"
