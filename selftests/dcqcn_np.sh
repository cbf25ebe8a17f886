#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the soft-RoCE notification point: with CE set on every RoCEv2
# packet arriving at h2 (tc pedit on eth0 ingress), h2 counts rx_ce equal to
# the marked packets, answers with CNPs no closer than
# np_min_time_between_cnps, h1 counts them as cnp_rx on the right flow,
# and on the wire they are valid CNPs (opcode 0x81, ICRC as rxe computes
# it) to h1's QP from h2's QP source port; then the same over IPv6 GIDs
# with CE set by the sender (ib_write_bw --tclass=3).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flow_lib.sh"
. "$(dirname "$0")/cap_lib.sh"

require_cmd ibv_rc_pingpong tcpdump tshark jq python3 tc

rp_load_both || ksft_skip_all "cannot load $ROCEPATH_KO"

marked() {
	on_host 2 "tc -s -j filter show dev $NETDEV ingress" |
		jq '[.[] | .options.actions[]? | select(.kind == "pedit") | .stats.packets] | add // 0'
}

ksft_test "CE marking on h2 ingress (tc pedit)" ce_mark_on 2
defer ce_mark_off 2

interval=100000	# us
ksft_test "dcqcn set np_enable 1 np_min_time_between_cnps $interval on h2" \
	dcqcn_set 2 "$IBDEV" "{\"np-enable\": 1, \"np-min-time-between-cnps\": $interval}"

# capture on both ends: h2's egress timestamps show the CNP spacing as
# sent, h1's capture what arrived
pcap=$RUN_DIR/dcqcn_np.pcap
pcap2=$RUN_DIR/dcqcn_np_h2.pcap
cap_launch 1 dcqcn_np "udp port 4791"
cap_launch 2 dcqcn_np_h2 "udp port 4791 and src host $PEER_IP4"
{ cap_ready 1 dcqcn_np && cap_ready 2 dcqcn_np_h2; } || ksft_fail "tcpdump started on h1 and h2"
sleep 1

ksft_test "ibv_rc_pingpong -n 50 with CE marks" rdma_pingpong -n 50
sleep 1
cap_stop 1 dcqcn_np
cap_stop 2 dcqcn_np_h2

# Each side's records for the other: its QP's flow, which sent the most,
# and an rx-only one for packets that came after its QP was gone. Either
# side's QP can go first: h1's as its last CE-marked packets draw a CNP
# (ibv_rc_pingpong exits), h2's while h1 still answers h2's retransmitted
# last packets (seen on a starved guest). Such a packet cannot count on
# the QP's flow, and an rx-only record sends no CNP.
peer_records() { # HOST REMOTE_IP
	flows_json "$1" | jq -c --arg r "$(ip_hex "$2")" '[.[] | select(.remote == $r)]'
}
fl1=$(peer_records 1 "$PEER_IP4")
fl2=$(peer_records 2 "$HOST_IP4")
f1=$(jq -c 'max_by(."tx-packets")' <<<"$fl1")
f2=$(jq -c 'max_by(."tx-packets")' <<<"$fl2")
rx1=$(jq '[.[]."cnp-rx"] | add // 0' <<<"$fl1")
log "h1 records for h2: $(jq length <<<"$fl1"), h2 records for h1: $(jq length <<<"$fl2")"
log "h1 flow: $f1"
log "h2 flows: $fl2"
nmarked=$(marked)
log "packets marked by pedit on h2: $nmarked"

ce_ok() { # every marked packet counted once, as CE, on h2
	[ "$nmarked" -gt 0 ] &&
	[ "$(jq '[.[]."rx-ce"] | add' <<<"$fl2")" = "$nmarked" ] &&
	[ "$(jq '[.[]."rx-packets"] | add' <<<"$fl2")" = "$nmarked" ]
}
ksft_test "h2 rx_ce equals the marked packets" ce_ok

cnps() {
	tshark -r "$pcap" -Y "ip.src == $PEER_IP4 && infiniband.bth.opcode == 0x81" \
		-T fields -e frame.time_epoch -e infiniband.bth.destqp -e udp.srcport 2>/dev/null
}
wire_cnps=$(cnps)
nwire=$(printf '%s' "$wire_cnps" | grep -c .)
log "CNPs on the wire: $nwire"

counts_ok() {
	local tx rx
	tx=$(jq '."cnp-tx"' <<<"$f2")
	rx=$(jq '."cnp-rx"' <<<"$f1")
	log "h2 cnp_tx $tx, h1 cnp_rx $rx on the QP's flow and $((rx1 - rx)) after it, wire $nwire"
	[ "$nwire" -ge 2 ] && [ "$tx" = "$nwire" ] && [ "$rx1" = "$nwire" ] &&
		[ "$rx" -ge $((nwire - 1)) ]
}
ksft_test "h2 cnp_tx = h1 cnp_rx = CNPs on the wire (>= 2)" counts_ok

spacing_ok() {
	# Emulated NICs stall for tens of ms under load, so capture timestamps
	# cannot show the spacing one gap at a time; the count can: CNPs sent
	# no closer than the interval number at most 1 + span / interval, where
	# span is the time over which CE-marked packets were sent (h1's
	# capture), plus one for the capture skew.
	local span n
	span=$(tshark -r "$pcap" -Y "ip.src == $HOST_IP4 && infiniband" -T fields \
		-e frame.time_epoch 2>/dev/null | awk 'NR == 1 { f = $1 } { l = $1 } END { print l - f }')
	n=$(tshark -r "$pcap2" -Y "infiniband.bth.opcode == 0x81" -T fields \
		-e frame.time_epoch 2>/dev/null | grep -c .)
	log "$n CNPs over ${span}s of CE-marked traffic, interval ${interval}us"
	awk -v n="$n" -v s="$span" -v i="$interval" \
		'BEGIN { exit !(n >= 2 && n <= 2 + s * 1000000 / i) }'
}
ksft_test "CNP count bounded by np_min_time_between_cnps" spacing_ok

addressed_ok() {
	local lqpn sport
	lqpn=$(jq '.lqpn' <<<"$f1")
	sport=$(jq '.sport' <<<"$f2")
	log "want destqp $lqpn from sport $sport"
	local t q p n=0
	while read -r t q p; do
		[ -n "$t" ] || continue
		if [ $((q)) != "$lqpn" ] || [ "$p" != "$sport" ]; then
			echo "bad CNP: destqp $q sport $p"
			n=$((n + 1))
		fi
	done <<<"$wire_cnps"
	[ "$n" = 0 ]
}
ksft_test "CNPs go to h1's QP from h2's QP source port" addressed_ok

decoded_ok() {
	# tshark 4.0 (Debian 12) has no name for opcode 0x81 and prints
	# "Unknown (129)"; newer versions print CNP
	local out
	out=$(tshark -r "$pcap" -V -Y "infiniband.bth.opcode == 0x81" 2>/dev/null |
		sed -n '/^InfiniBand/,/^$/p' | head -16)
	echo "$out"
	echo "$out" | grep -Eq "Opcode: (.*CNP.*|Unknown \(129\))" &&
	echo "$out" | grep -q "Partition Key: 65535" &&
	echo "$out" | grep -q "Destination Queue Pair: 0x0*$(printf '%x' "$(jq .lqpn <<<"$f1")")"
}
ksft_test "tshark decodes them as InfiniBand BTH opcode 0x81 to h1's QP" decoded_ok

icrc_ok() {
	local data cnp
	data=$(py "$ROCEPATH_TOP/selftests/flow_icrc.py" "$pcap")
	cnp=$(py "$ROCEPATH_TOP/selftests/flow_icrc.py" "$pcap" 0x81)
	log "ICRC ok/bad: all packets $data, CNP $cnp"
	[ "${data% *}" -gt 0 ] && [ "${data#* }" = 0 ] &&
	[ "${cnp% *}" = "$nwire" ] && [ "${cnp#* }" = 0 ]
}
ksft_test "CNP ICRC valid (same algorithm accepts rxe's own packets)" icrc_ok

global_ok() {
	on_host 2 "$YNL_CMD --do stats-get --output-json" |
		jq -e '.stats."cnp-tx" > 0' >/dev/null
}
ksft_test "stats-get reports cnp_tx" global_ok

# IPv6: h1's ib_write_bw sends with traffic class 3 (CE) itself; with
# np_min_time_between_cnps 0 every CE-marked packet is answered
ksft_test "dcqcn set np_min_time_between_cnps 0 on h2" \
	dcqcn_set 2 "$IBDEV" '{"np-min-time-between-cnps": 0}'
pcap6=$RUN_DIR/dcqcn_np6.pcap
cap_start 1 dcqcn_np6 "ip6 and udp port 4791" || ksft_fail "tcpdump started on h1"
write_bw6() {
	local lgid rgid rc
	lgid=$(gid_index "$IBDEV" "$HOST_IP6") || return 1
	rgid=$(on_gid_index 2 "$PEER_IP6") || return 1
	on_host_bg 2 bw6 "ib_write_bw -d $IBDEV -x $rgid -s 4096 -n 20 -F -u $RC_TIMEOUT"
	wait_listen 2 >/dev/null
	retry 5 1 ib_write_bw -d "$IBDEV" -x "$lgid" -s 4096 -n 20 -F -u "$RC_TIMEOUT" --tclass=3 "$PEER_IP4" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 0 ] || kill_bg 2 bw6
	wait_bg 2 bw6 120 >/dev/null 2>&1 || rc=1
	return "$rc"
}
ksft_test "ib_write_bw over IPv6 GIDs with CE (traffic class 3)" write_bw6
sleep 1
cap_stop 1 dcqcn_np6

np6_ok() { # the records as above: QP's flows, and rx-only ones
	local gl1 gl2 g1 g2 wire icrc
	gl1=$(peer_records 1 "$PEER_IP6")
	gl2=$(peer_records 2 "$HOST_IP6")
	g1=$(jq -c 'max_by(."tx-packets")' <<<"$gl1")
	g2=$(jq -c 'max_by(."tx-packets")' <<<"$gl2")
	log "h1 v6 flows: $gl1"
	log "h2 v6 flows: $gl2"
	wire=$(tshark -r "$pcap6" -Y "infiniband.bth.opcode == 0x81" -T fields -e infiniband.bth.destqp 2>/dev/null | grep -c .)
	icrc=$(py "$ROCEPATH_TOP/selftests/flow_icrc.py" "$pcap6")
	log "IPv6 CNPs on the wire: $wire; ICRC ok/bad (all packets): $icrc"
	jq -e '."rx-ce" > 0 and ."rx-ce" == ."rx-packets" and ."cnp-tx" == ."rx-ce"' <<<"$g2" >/dev/null &&
	[ "$(jq '."cnp-tx"' <<<"$g2")" = "$wire" ] &&
	[ "$(jq '."cnp-rx"' <<<"$g1")" -gt 0 ] &&
	[ "$(jq '[.[]."cnp-rx"] | add' <<<"$gl1")" = "$wire" ] &&
	[ "${icrc#* }" = 0 ]
}
ksft_test "IPv6: every CE answered (interval 0), CNPs received and valid" np6_ok
ksft_exit
