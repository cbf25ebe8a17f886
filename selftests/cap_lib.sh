# SPDX-License-Identifier: GPL-2.0
#
# Packet captures on a guest's test link for the selftests that check the
# wire (sourced after lib.sh): started and ready before the traffic,
# written where tcpdump keeps up, read back from $RUN_DIR.

# cap_launch N NAME FILTER: start tcpdump on guest N's $NETDEV; cap_ready N
# NAME: it has written its file header, which it does once the capture is
# open (given 30 s: a busy TCG guest was seen taking over 10). It writes to
# the guest's tmpfs: on the 9p share each packet is a slow write, and on
# the debug kernel tcpdump fell so far behind that the kernel dropped most
# of a busy capture.
# cap_stop copies the file to $RUN_DIR/NAME.pcap.
# --immediate-mode: without it libpcap reads a TPACKET_V3 ring, whose
# kernel hands packets over only when a block fills or its 1 s timer
# fires; tcpdump exits on SIGTERM without the open block, so the packets
# of the last second before cap_stop were lost (CI: rping's reply
# direction, whole, missing from h1's capture). Immediate mode reads a
# TPACKET_V2 ring of fixed-size frames, each as large as the snapshot
# length allows, and libpcap lets a frame hold 64 KiB on a NIC with
# offloads: tcpdump's default 2 MiB then held 31 packets, and a burst
# overran it (6.1 dcqcn_np: 40 of 80 CNPs captured). -s 4096 (a RoCEv2
# packet on these 1500-byte links is at most 1514 bytes; a longer one
# would show truncated, and fail the ICRC check) and -B 8192 (KiB) make
# room for about 1,900 packets.
cap_launch() {
	local n=$1 name=$2
	shift 2
	on_host "$n" "rm -f /tmp/rpcap-$name.pcap $RUN_DIR/$name.pcap"
	on_host_bg "$n" "cap-$name" \
		"exec tcpdump -i $NETDEV -nn -U --immediate-mode -s 4096 -B 8192 -w /tmp/rpcap-$name.pcap $*"
}

cap_ready() {
	local end=$((SECONDS + 30))
	until on_host "$1" "test -s /tmp/rpcap-$2.pcap" >/dev/null; do
		[ $SECONDS -lt $end ] || { log "tcpdump $2 did not start on h$1 in 30 s"; return 1; }
		sleep 0.5
	done
}

# cap_save N NAME: once guest N's tcpdump for NAME has exited, move its file
# to $RUN_DIR/NAME.pcap.
cap_save() {
	on_host "$1" "for ((i = 0; i < 30; i++)); do pgrep -f '^tcpdump .*rpcap-$2[.]pcap' >/dev/null || break; sleep 0.1; done
		mv /tmp/rpcap-$2.pcap $RUN_DIR/$2.pcap"
}

# cap_start N NAME FILTER: a capture on guest N, started and ready.
cap_start() {
	cap_launch "$@"
	cap_ready "$1" "$2" || return 1
	# tcpdump needs a moment before it sees packets.
	sleep 1
}

# cap_term N NAME: SIGTERM to guest N's tcpdump for NAME, which then writes
# out what it has read and exits; kill_bg's SIGKILL would cut it short.
cap_term() {
	on_host "$1" "pkill -TERM -f '^tcpdump .*rpcap-$2[.]pcap'" >/dev/null 2>&1
}

cap_stop() {
	cap_term "$1" "$2"
	cap_save "$1" "$2"
	kill_bg "$1" "cap-$2" >/dev/null 2>&1
}

# cap_start_both NAME FILTER / cap_stop_both NAME: captures NAME-at1 and
# NAME-at2 on both guests, started side by side (tcpdump takes 2 to 4 s
# to start in a TCG guest). Fails if either did not start; the caller
# still calls cap_stop_both.
cap_start_both() {
	local name=$1 rc=0
	shift
	cap_launch 2 "$name-at2" "$@"
	cap_launch 1 "$name-at1" "$@"
	cap_ready 2 "$name-at2" || rc=1
	cap_ready 1 "$name-at1" || rc=1
	sleep 1
	return $rc
}

cap_stop_both() {
	cap_term 1 "$1-at1"
	cap_term 2 "$1-at2"
	cap_save 1 "$1-at1"
	cap_save 2 "$1-at2"
	kill_bg 1 "cap-$1-at1" >/dev/null 2>&1
	kill_bg 2 "cap-$1-at2" >/dev/null 2>&1
}

# cap_sports NAME [SRC]: "count sport" lines of RoCEv2 packets (from SRC),
# by port.
cap_sports() {
	tcpdump -nn -r "$RUN_DIR/$1.pcap" "${2:+src host $2 and }udp dst port 4791" 2>/dev/null |
		awk '{ n = split($3, a, "."); print a[n] }' | sort -n | uniq -c
}
