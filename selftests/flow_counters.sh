#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the per-flow counters equal what tcpdump counts on the wire for a
# known run (ibv_rc_pingpong -n 20 over IPv4 and IPv6 GIDs), in both
# directions, and that the flow is attributed to the QP (lqpn, dqpn, sport).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flow_lib.sh"
. "$(dirname "$0")/cap_lib.sh"

require_cmd ibv_rc_pingpong tcpdump tshark jq python3

rp_load_both || ksft_skip_all "cannot load $ROCEPATH_KO"
ksft_pass "rocepath.ko loaded on h1 and h2"

pcap=$RUN_DIR/flow_counters.pcap
cap_start 1 flow_counters "udp port 4791" || ksft_fail "tcpdump started on h1"

ksft_test "ibv_rc_pingpong IPv4" rdma_pingpong
ksft_test "ibv_rc_pingpong IPv6" rdma_pingpong -6
sleep 1
cap_stop 1 flow_counters

# wire counts: packets and IP lengths per direction and family
wire() {
	local filter=$1
	tshark -r "$pcap" -Y "$filter && infiniband.bth.opcode != 0x81" \
		-T fields -e ip.len -e ipv6.plen 2>/dev/null |
		awk -F'\t' '{n++; if ($1 != "") b += $1; else b += $2 + 40} END {print n+0, b+0}'
}

# the flows' totals per family and direction
check() {
	local fam=$1 me=$2 peer=$3 want_tx want_rx flows got
	want_tx=$(wire "$fam.src == $me && udp.dstport == 4791")
	want_rx=$(wire "$fam.dst == $me && udp.dstport == 4791")
	flows=$(flows_json 1)
	got=$(jq -r --arg r "$(ip_hex "$peer")" \
		'[.[] | select(.remote == $r)] |
		 "\(map(."tx-packets") | add // 0) \(map(."tx-bytes") | add // 0)",
		 "\(map(."rx-packets") | add // 0) \(map(."rx-bytes") | add // 0)"' <<<"$flows")
	log "$fam wire tx: $want_tx rx: $want_rx; flows: $(echo $got)"
	[ "$(printf '%s\n%s' "$want_tx" "$want_rx")" = "$got" ] || return 1
	[ "${want_tx% *}" -gt 0 ] && [ "${want_rx% *}" -gt 0 ]
}

ksft_test "IPv4 counters equal the wire (tcpdump)" check ip "$HOST_IP4" "$PEER_IP4"
ksft_test "IPv6 counters equal the wire (tcpdump)" check ipv6 "$HOST_IP6" "$PEER_IP6"

attributed() {
	local flows
	flows=$(flows_json 1)
	echo "$flows" | jq -c '.[]'
	# one flow per QP, known to the QP table: lqpn, dqpn, and tx and rx
	# counted in the same record
	jq -e --arg r "$(ip_hex "$PEER_IP4")" \
		'[.[] | select(.remote == $r and .lqpn != null and .dqpn != null and
		  ."tx-packets" > 0 and ."rx-packets" > 0 and .ibdev == "'"$IBDEV"'")] | length >= 1' \
		<<<"$flows" >/dev/null
}
ksft_test "tx and rx attributed to one flow per QP with lqpn and dqpn" attributed

sport_ok() {
	local sports
	sports=$(tshark -r "$pcap" -Y "ip.src == $HOST_IP4" -T fields -e udp.srcport 2>/dev/null | sort -u)
	log "wire source ports: $(echo $sports)"
	flows_json 1 | jq -e --arg r "$(ip_hex "$PEER_IP4")" --argjson s "[$(echo $sports | tr ' ' ',')]" \
		'[.[] | select(.remote == $r) | .sport] - $s | length == 0' >/dev/null
}
ksft_test "flow sport is the QP's wire source port" sport_ok

cli_ok() {
	local out want
	[ -x "$RP_CLI" ] || { echo "rocepath not built ($RP_CLI): make -C daemon"; return 4; }
	out=$("$RP_CLI" -j flow show dev "$IBDEV" 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	want=$(flows_json 1 | jq '[.[] | ."tx-packets"] | add')
	# dqpn on the QPs' flows only: packets that came after a QP was gone
	# make an rx-only record, which has none
	echo "$out" | jq -e --argjson w "$want" '
		all(.[]; has("dev") and has("local") and has("remote") and has("sport") and
		    has("tx_packets") and has("rx_ce") and has("cnp_rx")) and
		any(.[]; has("dqpn")) and
		([.[] | .tx_packets] | add) == $w' >/dev/null
}
ksft_test "rocepath -j flow show prints the same flows" cli_ok

reset() {
	on_host 1 "$YNL_CMD --do flow-reset" || return 1
	[ "$(flows_json 1 | jq length)" = 0 ]
}
ksft_test "flow-reset forgets every flow" reset
ksft_exit
