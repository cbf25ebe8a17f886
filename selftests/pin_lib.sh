# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the pinning selftests (sourced after lib.sh, which loads the
# module and runs YNL): a capture of RoCEv2 source ports at a peer.

require_ynl() {
	[ -f "$YNL_CLI" ] || ksft_skip_all "YNL cli.py missing: run scripts/deps.sh"
	require_cmd python3
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
