#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in a QEMU guest (scripts/deb.sh check): the root is the host's /
# under a tmpfs overlay, so nothing of rocepath is installed and nothing
# done here outlives the guest. Installs the three packages from
# $DEB_DIR, checks that DKMS built the module for this kernel and that it
# loads, that the unit verifies, that an upgrade of rocepath keeps an
# edited /etc/rocepath, and that purging both leaves nothing behind.

source "$(dirname "$0")/../selftests/lib.sh"

: "${DEB_DIR:?DEB_DIR unset}"
rel=$(uname -r)
export DEBIAN_FRONTEND=noninteractive
dkms_deb=$(ls "$DEB_DIR"/rocepath-dkms_*_all.deb | head -n1)
cli_deb=$(ls "$DEB_DIR"/rocepath_*_amd64.deb | head -n1)
slurm_deb=$(ls "$DEB_DIR"/rocepath-slurm_*_all.deb | head -n1)
new_deb=$(ls "$DEB_DIR"/upgrade/rocepath_*_amd64.deb 2>/dev/null | head -n1)
[ -f "$dkms_deb" ] && [ -f "$cli_deb" ] && [ -f "$slurm_deb" ] || ksft_skip_all "no packages in $DEB_DIR: scripts/deb.sh build"
dpkg-query -W rocepath >/dev/null 2>&1 && ksft_skip_all "rocepath is installed on the host: not a clean root"

# The modules tree of the test kernel is bound in from the shared cache:
# keep DKMS's install and depmod in a tmpfs layer over it.
mkdir -p /tmp/mods/u /tmp/mods/w
mount -t overlay overlay -o "lowerdir=/lib/modules/$rel,upperdir=/tmp/mods/u,workdir=/tmp/mods/w" \
	"/lib/modules/$rel" || ksft_skip_all "cannot overlay /lib/modules/$rel"
# What linux-headers-<rel> adds on a real host (the test kernel's tree was
# extracted from the image package only).
[ -d "/usr/src/linux-headers-$rel" ] || ksft_skip_all "no linux-headers-$rel on the host: scripts/deps.sh"
[ -e "/lib/modules/$rel/build" ] || ln -s "/usr/src/linux-headers-$rel" "/lib/modules/$rel/build"

WATCH="/etc /usr/sbin /usr/src /usr/lib/modules-load.d /lib/systemd/system /usr/share/doc
       /usr/share/man/man8 /var/lib/dkms /var/lib/systemd /lib/modules/$rel"
snapshot() { find $WATCH -xdev 2>/dev/null | grep -v '^/etc/ld.so.cache$' | sort; }
snapshot >"$RUN_DIR/before.txt"

install_both() {
	local t0=$SECONDS
	dpkg -i "$dkms_deb" "$cli_deb" "$slurm_deb" >"$RUN_DIR/install.log" 2>&1 ||
		{ tail -n 30 "$RUN_DIR/install.log"; return 1; }
	echo "installed in $((SECONDS - t0)) s (DKMS build included)"
}
ksft_test "dpkg -i rocepath-dkms rocepath rocepath-slurm" install_both

dkms_module() {
	local ko
	dkms status rocepath
	dkms status rocepath -k "$rel" | grep -q installed || return 1
	ko=$(modinfo -n rocepath) || return 1
	echo "module: $ko"
	case $ko in */updates/dkms/*) ;; *) return 1 ;; esac
	modprobe rocepath && rocepath stats >/dev/null && modprobe -r rocepath
}
ksft_test "DKMS built rocepath.ko for $rel; it loads and answers rocepath stats" dkms_module

unit_verify() {
	[ -x /usr/lib/rocepath/slurm/rocepath-slurmctld ] || { echo "no rocepath-slurmctld"; return 1; }
	systemd-analyze verify /lib/systemd/system/rocepathd.service &&
		[ -L /etc/systemd/system/multi-user.target.wants/rocepathd.service ] &&
		rocepathd -c /etc/rocepath/rocepathd.conf --check 2>&1 | grep -q topology.json
}
ksft_test "systemd-analyze verify rocepathd.service; enabled; rocepathd reads the shipped config; slurm script in place" unit_verify

upgrade_keeps_etc() {
	local before after
	[ -n "$new_deb" ] || { echo "no upgrade package (scripts/deb.sh check builds it)"; return 4; }
	printf '{"topology": "topology.json", "placement": "/run/rocepath/placement.json", "host": "guest1"}\n' \
		>/etc/rocepath/rocepathd.conf
	cp "$ROCEPATH_TOP/examples/two-host/topology.json" /etc/rocepath/topology.json
	before=$(cd /etc/rocepath && find . -printf '%p %m %s\n' | sort; sha256sum ./*)
	dpkg -i "$new_deb" >"$RUN_DIR/upgrade.log" 2>&1 || { tail -n 20 "$RUN_DIR/upgrade.log"; return 1; }
	after=$(cd /etc/rocepath && find . -printf '%p %m %s\n' | sort; sha256sum ./*)
	dpkg-query -W rocepath
	[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); return 1; }
}
ksft_test "upgrade of rocepath keeps an edited /etc/rocepath untouched" upgrade_keeps_etc

purge_clean() {
	local rc=0
	dpkg --purge rocepath rocepath-dkms rocepath-slurm >"$RUN_DIR/purge.log" 2>&1 || { tail -n 20 "$RUN_DIR/purge.log"; return 1; }
	dkms status rocepath | grep . && rc=1
	snapshot >"$RUN_DIR/after.txt"
	# The administrator's own file stays (dpkg keeps what it did not ship).
	diff "$RUN_DIR/before.txt" "$RUN_DIR/after.txt" | grep '^[<>]' >"$RUN_DIR/purge.diff"
	if [ "$(cat "$RUN_DIR/purge.diff")" != "> /etc/rocepath
> /etc/rocepath/topology.json" ]; then
		echo "left behind or removed by purge:"
		head -n 20 "$RUN_DIR/purge.diff"
		rc=1
	fi
	return $rc
}
ksft_test "dpkg --purge of all three: nothing left but the administrator's own /etc/rocepath/topology.json" purge_clean

ksft_exit
