#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug-lane guest kernel (KASAN, KFENCE, lockdep, PROVE_RCU,
# kmemleak, ...) from Debian's linux-source-6.12 with the options in
# selftests/debug/config, and expose it to the VM harness as a test kernel.
#
# The build is cached outside the checkout, keyed by the source package
# version and a hash of the config fragment and of the build recipe's
# version (RECIPE below), so only the first run pays for it (and a fresh
# clone reuses it):
#   $ROCEPATH_DEBUG_CACHE (default /var/cache/rocepath/debug-kernel)/
#     src-<srcver>/          the extracted source tree (shared by all keys)
#     <srcver>-<hash>/obj/   the build (O=), also the module build tree
#     <srcver>-<hash>/root/  boot/vmlinuz-REL and lib/modules/REL
# A new key's build starts from a copy of the newest cached one's obj/, so
# a changed option costs an incremental build.
# .cache/kernels/REL links to root/ and root/build to obj/, where
# scripts/vm/run.sh and scripts/kbuild.sh look for a kernel.
#
# Prints the kernel release (REL) on stdout as its last line.
# Usage: scripts/debug-kernel.sh [--print-rel]   (--print-rel: no build,
#        print REL if the cached build is complete, exit 1 otherwise)

set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${ROCEPATH_CACHE:-$TOP/.cache}
DCACHE=${ROCEPATH_DEBUG_CACHE:-/var/cache/rocepath/debug-kernel}
FRAG=$TOP/selftests/debug/config
PKGS="linux-source-6.12 dwarves bc flex bison libelf-dev libssl-dev xz-utils cpio python3"
LOCALVERSION=-rocepath-debug
# Bump when the way the kernel is built changes (the cache key has it).
RECIPE=1

log() { printf 'debug-kernel: %s\n' "$*" >&2; }
die() { printf 'debug-kernel: error: %s\n' "$*" >&2; exit 1; }

print_only=
[ "${1:-}" = --print-rel ] && print_only=1

if [ -z "$print_only" ]; then
	# shellcheck disable=SC2086
	"$TOP/scripts/apt-missing.sh" debug-kernel $PKGS || exit 1
fi
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
[ -n "$srcver" ] || exit 1

# Options only: a comment edited in the fragment must not cost an hour.
hash=$( (grep -v -e '^#' -e '^$' "$FRAG"; echo "recipe $RECIPE $LOCALVERSION") | sha256sum | cut -c1-12)
key=$(printf '%s' "$srcver" | tr -c 'A-Za-z0-9.+-' '_')-$hash
kdir=$DCACHE/$key
obj=$kdir/obj
root=$kdir/root

if [ -e "$kdir/.done" ]; then
	rel=$(cat "$kdir/.rel")
elif [ -n "$print_only" ]; then
	exit 1
else
	src=$DCACHE/src-$(printf '%s' "$srcver" | tr -c 'A-Za-z0-9.+-' '_')
	if [ ! -e "$src/.done" ]; then
		tarball=$(ls /usr/src/linux-source-6.12*.tar.xz 2>/dev/null | head -n1)
		[ -n "$tarball" ] || die "no /usr/src/linux-source-6.12*.tar.xz"
		log "extracting $tarball"
		rm -rf "$src" && mkdir -p "$src"
		tar -xf "$tarball" -C "$src" --strip-components=1 || die "extracting $tarball failed"
		touch "$src/.done"
	fi
	rm -rf "$kdir" && mkdir -p "$root"
	t0=$(date +%s)
	# A config change rebuilds only what depends on the options changed
	# (kbuild tracks each object's CONFIG_ use), so seed the new build
	# from the newest complete one of the same source: a one-option
	# change costs minutes, not the cold build's hour.
	seed=$(ls -dt "$DCACHE/${key%-*}"-*/.done 2>/dev/null | head -n1)
	seed=${seed%/.done}
	if [ -n "$seed" ] && [ -d "$seed/obj" ]; then
		log "seeding $obj from $seed/obj (incremental build)"
		cp -a "$seed/obj" "$obj" || die "copying $seed/obj failed"
		echo "$seed" >"$kdir/.seed"
	fi
	mkdir -p "$obj"
	log "configuring in $obj (x86_64_defconfig + kvm_guest.config + $FRAG)"
	make -s -C "$src" O="$obj" x86_64_defconfig >/dev/null
	make -s -C "$src" O="$obj" kvm_guest.config >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$FRAG" >/dev/null
	make -s -C "$src" O="$obj" LOCALVERSION="$LOCALVERSION" olddefconfig >/dev/null
	# Every option asked for must have survived olddefconfig's dependency
	# resolution: a silently dropped checker would make the lane a lie.
	bad=
	while IFS= read -r line; do
		case $line in
		CONFIG_*=n) opt=${line%=n}; grep -q "^$opt=" "$obj/.config" && bad="$bad $line" ;;
		CONFIG_*=*) grep -qxF "$line" "$obj/.config" || bad="$bad $line" ;;
		esac
	done <"$FRAG"
	[ -z "$bad" ] || die "options not in the resolved config:$bad"
	log "building (nproc $(nproc)); the first build takes a while"
	make -s -C "$src" O="$obj" LOCALVERSION="$LOCALVERSION" -j"$(nproc)" bzImage modules >"$kdir/build.log" 2>&1 ||
		{ tail -n 40 "$kdir/build.log" >&2; die "kernel build failed (log: $kdir/build.log)"; }
	rel=$(make -s -C "$src" O="$obj" LOCALVERSION="$LOCALVERSION" kernelrelease)
	mkdir -p "$root/boot"
	cp "$obj/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$rel"
	cp "$obj/.config" "$root/boot/config-$rel"
	make -s -C "$src" O="$obj" LOCALVERSION="$LOCALVERSION" INSTALL_MOD_PATH="$root" \
		modules_install >>"$kdir/build.log" 2>&1 || die "modules_install failed"
	depmod -b "$root" "$rel"
	echo "$rel" >"$kdir/.rel"
	echo "$(($(date +%s) - t0))" >"$kdir/.build-seconds"
	touch "$kdir/.done"
	log "built $rel in $(cat "$kdir/.build-seconds") s"
fi

mkdir -p "$CACHE/kernels"
ln -sfn "$root" "$CACHE/kernels/$rel"
ln -sfn "$obj" "$root/build"
echo "$rel"
