#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pinned ports are on the wire: with rocepath.ko on both guests, every
# RoCEv2 packet of a QP, captured at the peer, leaves on the port its rule
# gave it (ibv_rc_pingpong over IPv4 and IPv6, ib_write_bw, rping over
# rdma_cm; both directions); a 4-port path set spreads ib_write_bw -q 8 as
# exactly 2 QPs per port (qp-get and wire); without a rule the port is the
# RDMA core's default; rules replaced while traffic runs never re-pin a
# live QP and apply to the next one.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/cap_lib.sh"

require_module
require_ynl
require_cmd ibv_rc_pingpong ib_write_bw rping tcpdump

rp_load 1 || ksft_skip_all "cannot load $ROCEPATH_KO on h1"
rp_load 2 || ksft_skip_all "cannot load $ROCEPATH_KO on h2"
defer rp_unload 1
defer rp_unload 2

PCAP=$ROCEPATH_TOP/selftests/pin_pcap.py

# pin N REMOTE PORTS: add a path set on guest N, with the project's CLI when
# it is built (falling back to YNL, so this stays a test of the kernel).
pin() {
	local ports=${3// /}
	if [ -x "$RP_CLI" ] && on_host "$1" "$RP_CLI pin add remote $2 sport $ports" >/dev/null; then
		return 0
	fi
	on_host "$1" "$YNL_CMD --do pin-add --json '{\"pin\": {\"remote\": \"$(ip_hex "$2")\", \"sport\": [$ports]}}'" >/dev/null
}

flush() {
	if [ -x "$RP_CLI" ] && on_host "$1" "$RP_CLI pin flush" >/dev/null; then
		return 0
	fi
	on_host "$1" "$YNL_CMD --do pin-flush" >/dev/null
}

# wire NAME SRC: "sport dqpn packets" lines of SRC's RoCEv2 packets.
wire() {
	py "$PCAP" "$RUN_DIR/$1.pcap" "$2"
}

# only_port NAME SRC PORT: SRC sent packets, all on PORT. Packets to QP 1
# (the GSI QP: rdma_cm's connection MADs, UD, never pinned) do not count.
only_port() {
	local lines
	lines=$(wire "$1" "$2" | awk '$2 != 1')
	echo "$lines" | sed 's/^/  wire: /'
	if [ -z "$lines" ]; then
		echo "no RoCEv2 packets from $2; the capture holds:"
		tcpdump -nn -r "$RUN_DIR/$1.pcap" 2>&1 | tail -n 20
		return 1
	fi
	! echo "$lines" | awk -v p="$3" '$1 != p { bad = 1 } END { exit !bad }'
}

# capture_both NAME CMD...: capture at both guests while CMD runs.
capture_both() {
	local name=$1 rc
	shift
	if ! cap_start_both "$name" "udp dst port 4791"; then
		cap_stop_both "$name"
		return 1
	fi
	"$@" >"$RUN_DIR/$name.out" 2>&1
	rc=$?
	cap_stop_both "$name"
	[ $rc = 0 ] || sed 's/^/# /' "$RUN_DIR/$name.out"
	return $rc
}

rping_run() {
	on_host_bg 2 rping "rping -s -a $PEER_IP4 -C 5 -S 64"
	retry 30 1 rping -c -a "$PEER_IP4" -C 5 -S 64 -v
	local rc=$?
	[ $rc = 0 ] || kill_bg 2 rping
	wait_bg 2 rping 60 >/dev/null || rc=1
	return $rc
}

both_ways() {
	local name=$1 p1=$2 p2=$3 src1=${4:-$HOST_IP4} src2=${5:-$PEER_IP4}
	only_port "$name-at2" "$src1" "$p1" && only_port "$name-at1" "$src2" "$p2"
}

# (a) Both hosts pin each other; each tool's packets carry the ports.
pin 1 "$PEER_IP4" 50000
pin 2 "$HOST_IP4" 50001
pin 1 "$PEER_IP6" 50010
pin 2 "$HOST_IP6" 50011

if capture_both pp rdma_pingpong; then
	ksft_test "ibv_rc_pingpong: h1 sends on 50000, h2 on 50001" both_ways pp 50000 50001
else
	ksft_fail "ibv_rc_pingpong ran"
fi
if capture_both pp6 rdma_pingpong -6; then
	ksft_test "ibv_rc_pingpong over IPv6: h1 sends on 50010, h2 on 50011" \
		both_ways pp6 50010 50011 "$HOST_IP6" "$PEER_IP6"
else
	ksft_fail "ibv_rc_pingpong over IPv6 ran"
fi
if capture_both bw rdma_write_bw; then
	ksft_test "ib_write_bw: h1 sends on 50000, h2 on 50001" both_ways bw 50000 50001
else
	ksft_fail "ib_write_bw ran"
fi
if capture_both rping rping_run; then
	ksft_test "rping (rdma_cm): h1 sends on 50000, h2 on 50001" both_ways rping 50000 50001
else
	ksft_fail "rping ran"
fi

# (b) A 4-port path set and 8 QPs: 2 QPs per port, in qp-get and on the wire.
flush 1
flush 2
pin 1 "$PEER_IP4" "50100, 50101, 50102, 50103"
python3 selftests/pin_ynl.py monitor 600 >"$RUN_DIR/mon8.out" 2>&1 &
mon=$!
retry 120 0.5 grep -q READY "$RUN_DIR/mon8.out"
capture_both bw8 rdma_write_bw -q 8 -n 200
rc=$?
sleep 2
kill $mon 2>/dev/null
wait $mon 2>/dev/null
# spread: "sport count" of h1's pinned QPs to the peer, from qp-add-ntf
# (the qp nest qp-get dumps); assigned: "rqpn sport" of the same QPs.
ntf_qps() {
	py - "$RUN_DIR/mon8.out" "$PEER_IP4" "$1" <<-'PYEOF'
	import ast, collections, ipaddress, sys
	peer = ipaddress.ip_address(sys.argv[2]).packed
	qps = {}
	for line in open(sys.argv[1]):
	    if not line.startswith("NTF qp-add-ntf "):
	        continue
	    q = ast.literal_eval(line[len("NTF qp-add-ntf "):])["qp"]
	    if q["pinned"] and q["remote"] == peer:
	        qps[q["lqpn"]] = q
	if sys.argv[3] == "spread":
	    c = collections.Counter(q["sport"] for q in qps.values())
	    for p, n in sorted(c.items()):
	        print(p, n)
	else:
	    for q in qps.values():
	        print(q["rqpn"], q["sport"])
	PYEOF
}
# every QP on the wire uses the port the module assigned to it
wire_matches() {
	local assigned lines
	assigned=$(ntf_qps assigned)
	lines=$(wire bw8-at2 "$HOST_IP4" | awk '$2 != 1')
	echo "$lines" | sed 's/^/  wire: /'
	[ -n "$lines" ] || return 1
	echo "$lines" | while read -r sport dqpn n; do
		echo "$assigned" | grep -qx "$dqpn $sport" || { echo "QP to $dqpn on $sport: not its port"; exit 1; }
	done
}
if [ $rc = 0 ]; then
	got=$(ntf_qps spread | tr '\n' ' ')
	[ "$got" = "50100 2 50101 2 50102 2 50103 2 " ] &&
		ksft_pass "path set of 4, ib_write_bw -q 8: 2 QPs per port (qp nests of qp-add-ntf)" ||
		ksft_fail "path set of 4, ib_write_bw -q 8: 2 QPs per port (got '$got')"
	ksft_test "path set of 4, ib_write_bw -q 8: each QP on the wire uses its assigned port" wire_matches
else
	ksft_fail "ib_write_bw -q 8 ran"
fi

# (c) No rule: the port is the one the RDMA core derives from the QPNs.
flush 1
default_port() {
	# rdma_get_udp_sport(0, lqpn, rqpn) from ibv_rc_pingpong's output.
	py - "$RUN_DIR/nopin.out" <<-'PYEOF'
	import re, sys
	t = open(sys.argv[1]).read()
	l = int(re.findall(r"local address:.*?QPN (0x[0-9a-f]+)", t)[-1], 16)
	r = int(re.findall(r"remote address:.*?QPN (0x[0-9a-f]+)", t)[-1], 16)
	v = l * r
	v ^= v >> 20
	v ^= v >> 40
	fl = v & 0xFFFFF
	print(((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000)
	PYEOF
}
if capture_both nopin rdma_pingpong; then
	want=$(default_port)
	ksft_test "no rule: h1 sends on the RDMA core's default port $want" \
		only_port nopin-at2 "$HOST_IP4" "$want"
else
	ksft_fail "ibv_rc_pingpong without rules ran"
fi

# (d) Rules replaced while traffic runs: the running QP keeps its port, the
# next QP takes the newest set, and traffic never breaks.
flush 2
pin 1 "$PEER_IP4" 50200
replacer() {
	python3 selftests/pin_ynl.py replace-loop "$PEER_IP4" 20 | grep -v '^PASS\|^# counts'
}
python3 selftests/pin_ynl.py monitor 600 >"$RUN_DIR/monr.out" 2>&1 &
monr=$!
defer kill $monr
retry 120 0.5 grep -q READY "$RUN_DIR/monr.out"
cap_start 2 repl-at2 "udp dst port 4791"
on_host_bg 2 write_bw "ib_write_bw -d $IBDEV -x $(on_gid_index 2 "$PEER_IP4") -s 4096 -n 300 -F -u $RC_TIMEOUT"
wait_listen 2
( retry 5 1 ib_write_bw -d "$IBDEV" -x "$(gid_index "$IBDEV" "$HOST_IP4")" -s 4096 -n 300 -F -u "$RC_TIMEOUT" "$PEER_IP4" \
	>"$RUN_DIR/repl.out" 2>&1 ) &
client=$!
# Replace only once the QP is up on the first rule's port (qp-add-ntf).
retry 240 0.5 grep -q "^NTF qp-add-ntf .*'sport': 50200\b" "$RUN_DIR/monr.out" ||
	log "qp-add-ntf for a QP on 50200 not seen"
rout=$(replacer)
wait $client
crc=$?
wait_bg 2 write_bw 120 >/dev/null || crc=1
cap_stop 2 repl-at2
[ $crc = 0 ] && [ -z "$rout" ] &&
	ksft_pass "20 replaces while ib_write_bw runs: traffic completes" ||
	ksft_fail "20 replaces while ib_write_bw runs: traffic completes ($rout)"
ksft_test "the running QP kept its port 50200" only_port repl-at2 "$HOST_IP4" 50200
# After 20 replaces (i=20 -> 50201) the next QP takes the newest port.
if capture_both after rdma_pingpong; then
	ksft_test "the next QP takes the newest set's port 50201" only_port after-at2 "$HOST_IP4" 50201
else
	ksft_fail "ibv_rc_pingpong after the replaces ran"
fi

ksft_exit
