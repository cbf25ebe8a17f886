# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the pinning selftests (sourced after lib.sh): the kernel's
# YNL CLI on the rocepath spec, module load/unload on a guest, and a
# capture of RoCEv2 source ports at a peer.

YNL_DIR=$ROCEPATH_TOP/.cache/linux-src/tools/net/ynl
YNL_SPEC=$ROCEPATH_TOP/Documentation/netlink/specs/rocepath.yaml
YNL_SCHEMA=$ROCEPATH_TOP/.cache/linux-src/Documentation/netlink/genetlink-legacy.yaml
# Same command line on every guest (on_host joins words, so no quoting here).
YNL="python3 $YNL_DIR/cli.py --spec $YNL_SPEC --schema $YNL_SCHEMA"

require_ynl() {
	[ -f "$YNL_DIR/cli.py" ] || ksft_skip_all "YNL cli.py missing: run scripts/deps.sh"
	require_cmd python3
}

# ynl ARGS...: run the YNL CLI locally (guest 1).
ynl() {
	timeout 60 $YNL "$@"
}

# rp_load N [PARAMS...]: (re)load the module on guest N.
rp_load() {
	local n=$1
	shift
	on_host "$n" "rmmod rocepath 2>/dev/null; insmod $ROCEPATH_KO $*" >/dev/null
}

rp_unload() {
	on_host "$1" "rmmod rocepath 2>/dev/null; true" >/dev/null
}

# ip_hex ADDR: the address as the hex string YNL takes for binary attributes.
ip_hex() {
	python3 -c 'import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]).packed.hex())' "$1"
}

# cap_start N NAME FILTER: start tcpdump on guest N's $NETDEV.
cap_start() {
	local n=$1 name=$2
	shift 2
	on_host "$n" "rm -f $RUN_DIR/$name.pcap"
	on_host_bg "$n" "cap-$name" "exec tcpdump -i $NETDEV -nn -U -w $RUN_DIR/$name.pcap $*"
	# tcpdump needs a moment before it sees packets.
	retry 20 0.5 on_host "$n" "test -s $RUN_DIR/$name.pcap" >/dev/null
	sleep 1
}

cap_stop() {
	kill_bg "$1" "cap-$2" >/dev/null 2>&1
	sleep 1
}

# cap_sports NAME SRC: "count sport" lines of RoCEv2 packets from SRC.
cap_sports() {
	tcpdump -nn -r "$RUN_DIR/$1.pcap" "src host $2 and udp dst port 4791" 2>/dev/null |
		awk '{ n = split($3, a, "."); print a[n] }' | sort -n | uniq -c
}

# ynl_fast ARGS...: cli.py without validating the spec against the schema
# (ynl validates once per process; that alone takes ~10 s under TCG).
ynl_fast() {
	timeout 60 python3 "$YNL_DIR/cli.py" --spec "$YNL_SPEC" --no-schema "$@"
}
