#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian packages of rocepath (Documentation/packaging.rst).
#   scripts/deb.sh build   rocepath_<v>_<arch>.deb, rocepath-dkms_<v>_all.deb and
#                          rocepath-slurm_<v>_all.deb into build/deb/ with
#                          dpkg-buildpackage, then lintian
#   scripts/deb.sh quick   (make check) the files the package takes from
#                          make install-files are there, the unit verifies
#                          against them, versions agree; no packaging tools
#   scripts/deb.sh check   build (also a +t1 version for the upgrade), then in a
#                          QEMU guest of the 6.12 test kernel (a clean root:
#                          the host's / read-only under a tmpfs overlay):
#                          install them, DKMS builds and loads the module,
#                          systemd-analyze verify, upgrade keeps /etc/rocepath,
#                          purge leaves nothing (scripts/deb-guest.sh)
# The packaging tools (debhelper, dh-dkms, lintian: 19.5 MB download, 87 MB
# installed) are installed on first use, not by scripts/deps.sh.

set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build/deb
mode=${1:-build}

log() { printf 'deb: %s\n' "$*" >&2; }
die() { printf 'deb: error: %s\n' "$*" >&2; exit 1; }

version() { dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version; }

# build_one DIR [VERSION_SUFFIX]: a copy of the tree (tracked and new files,
# no build products) built in DIR; a suffix adds a changelog entry.
build_one() {
	local dir=$1 suffix=${2:-} v src
	v=$(version)$suffix
	rm -rf "$dir" && mkdir -p "$dir"
	src=$dir/rocepath-$v
	mkdir -p "$src"
	(cd "$TOP" && git ls-files -co --exclude-standard -z | grep -zv '^debian/.*\.deb$' |
		xargs -0 cp --parents -t "$src")
	if [ -n "$suffix" ]; then
		(cd "$src" && { printf 'rocepath (%s) unstable; urgency=medium\n\n  * Upgrade test build.\n\n -- rocepath developers <rocepath@example.org>  %s\n\n' \
			"$v" "$(date -R)"; cat debian/changelog; } >debian/changelog.new &&
			mv debian/changelog.new debian/changelog)
	fi
	log "building $v in $dir"
	(cd "$src" && dpkg-buildpackage -us -uc -b >"$dir/build.log" 2>&1) ||
		{ tail -n 40 "$dir/build.log" >&2; die "dpkg-buildpackage failed (log: $dir/build.log)"; }
	rm -rf "$src"
}

# quick: no packaging tools needed, nothing installed; seconds.
quick() {
	local tmp rc=0 f v dv fams
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	make -s -C "$TOP" install-files DESTDIR="$tmp" UNITDIR=/lib/systemd/system >/dev/null ||
		{ echo "make install-files failed"; return 1; }
	for f in usr/sbin/rocepath usr/sbin/rocepathd lib/systemd/system/rocepathd.service \
		usr/lib/modules-load.d/rocepath.conf etc/rocepath/rocepathd.conf \
		usr/share/man/man8/rocepath.8 usr/share/man/man8/rocepathd.8; do
		[ -e "$tmp/$f" ] || { echo "missing from install-files: /$f"; rc=1; }
	done
	# The unit, pointed at the staged binaries (its man page too).
	sed "s|/usr/sbin/|$tmp/usr/sbin/|g" "$tmp/lib/systemd/system/rocepathd.service" \
		>"$tmp/rocepathd.service"
	systemd-analyze verify --man=no "$tmp/rocepathd.service" || rc=1
	# Every family rocepathd opens sockets in: netlink (genl, rtnl), unix
	# (sd_notify), and inet/inet6 for the prober's UDP probes and their
	# ICMP answers; a family the unit leaves out fails socket() with
	# EAFNOSUPPORT, and every plan of a measured topology with it.
	fams=" $(sed -n 's/^RestrictAddressFamilies=//p' "$tmp/rocepathd.service") "
	for f in AF_NETLINK AF_UNIX AF_INET AF_INET6; do
		[[ $fams == *" $f "* ]] ||
			{ echo "rocepathd.service: RestrictAddressFamilies=${fams:1:-1} lacks $f"; rc=1; }
	done
	v=$(version)
	dv=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
	[ "${v%%[+~-]*}" = "$dv" ] ||
		{ echo "debian/changelog $v does not match dkms.conf PACKAGE_VERSION $dv"; rc=1; }
	[ $rc = 0 ] && echo "install-files, unit and versions ($v) ok"
	return $rc
}
[ "$mode" = quick ] && { quick; exit; }

"$TOP/scripts/apt-missing.sh" deb dpkg-dev debhelper dh-dkms lintian \
	libjson-c-dev libmnl-dev libnl-3-dev libnl-route-3-dev pkg-config || exit 1

case $mode in
build)
	t0=$(date +%s)
	build_one "$OUT"
	log "built in $(($(date +%s) - t0)) s:"
	for f in "$OUT"/*.deb; do
		printf '  %s  %s bytes, %s KiB installed\n' "${f##*/}" "$(stat -c %s "$f")" \
			"$(dpkg-deb -f "$f" Installed-Size)"
	done
	log "lintian:"
	# Errors and warnings fail the build; info and pedantic tags are shown.
	lintian --display-info --pedantic --fail-on error,warning \
		"$OUT"/rocepath_*.changes | tee "$OUT/lintian.txt"
	log "lintian: $(grep -c . "$OUT/lintian.txt" || true) tags (build/deb/lintian.txt)"
	;;
check)
	"$0" build	# never test packages of an older tree
	build_one "$OUT/upgrade" "+t1"
	# DKMS compiles the module inside the TCG guest: about 10 minutes on
	# one vCPU of a quiet 2-core host; two vCPUs when the host has them.
	ROCEPATH_VM_PASSENV="DEB_DIR" DEB_DIR=$OUT ROCEPATH_VM_SMP=${ROCEPATH_VM_SMP:-2} \
		"$TOP/scripts/vm/run.sh" -k 6.12 -n 1 -t 1800 "$TOP/scripts/deb-guest.sh"
	;;
*)
	die "usage: scripts/deb.sh build|quick|check"
	;;
esac
