# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the fabric_*.sh selftests (sourced after lib.sh). The tests
# run under scripts/vm/run.sh -f (or their "# rpvm-fabric:" line): guests
# 1..FABRIC_HOSTS are the topology's hosts, guest FABRIC_HOST is the
# fabric (Documentation/fabric.rst).
#
#   fabric_require            skip unless this is a fabric run
#   fab ARGS...               scripts/vm/fabric.py ARGS on the fabric guest
#   fab_ns SWITCH CMD...      a shell command in SWITCH's namespace
#   host_ip N                 host guest N's test address
#   host_gid N                its RoCEv2 GID index on rxe0

fabric_require() {
	[ -n "${FABRIC_HOST:-}" ] ||
		ksft_skip_all "not a fabric run: boot with scripts/vm/run.sh -f TOPOLOGY"
}

fab() {
	on_host "$FABRIC_HOST" "python3 scripts/vm/fabric.py $*"
}

fab_ns() {
	local ns=$1
	shift
	on_host "$FABRIC_HOST" "ip netns exec $ns $*"
}

host_ip() {
	awk -v n="$1" '$1 == "host" && $2 == n { print $4 }' "$RUN_DIR/fabric"
}

host_gid() {
	on_host "$1" "source selftests/lib.sh; gid_index $IBDEV $(host_ip "$1")"
}
