#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves forged RoCEv2 packets cannot borrow a live QP: with np_enable 1 on
# h1 and a live QP to h2, CE-marked packets naming that QP from another
# address (192.0.2.200, added on h2) draw no CNP, land in rx-only records
# and leave the QP's flow as the wire says; at a full table (max_flows=4)
# they evict nothing, and a new QP's flow then evicts an rx-only record.
# RoCEv2-shaped datagrams a local process sends leave no record at all.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flow_lib.sh"
. "$(dirname "$0")/cap_lib.sh"

require_cmd ibv_rc_pingpong tcpdump tshark jq python3

FORGED=192.0.2.200
FORGE=$ROCEPATH_TOP/selftests/flow_forge.py

rp_load_both max_flows=4 flow_idle_secs=0 || ksft_skip_all "cannot load $ROCEPATH_KO"

ksft_test "dcqcn set np_enable 1 np_min_time_between_cnps 0 on h1" \
	dcqcn_set 1 "$IBDEV" '{"np-enable": 1, "np-min-time-between-cnps": 0}'
on_host 2 "ip addr add $FORGED/32 dev $NETDEV" ||
	ksft_skip_all "cannot add $FORGED on h2"
defer on_host 2 "ip addr del $FORGED/32 dev $NETDEV"

stats() {
	on_host 1 "$YNL_CMD --do stats-get --output-json" |
		jq -c '.stats'
}

pcap=$RUN_DIR/flow_forged.pcap
cap_start 1 flow_forged "udp port 4791" || ksft_fail "tcpdump started on h1"

# A live QP: small ping-pongs until stopped, h1 the client.
lgid=$(gid_index "$IBDEV" "$HOST_IP4") || ksft_skip_all "no RoCEv2 GID for $HOST_IP4"
rgid=$(on_gid_index 2 "$PEER_IP4") ||
	ksft_skip_all "no RoCEv2 GID for $PEER_IP4 on h2"
on_host_bg 2 pp "ibv_rc_pingpong -d $IBDEV -g $rgid -s 64 -n 1000000"
wait_listen 2
retry 5 1 ibv_rc_pingpong -d "$IBDEV" -g "$lgid" -s 64 -n 1000000 "$PEER_IP4" \
	>"$RUN_DIR/flow_forged.pp" 2>&1 &
pppid=$!
defer "__kill_tree $pppid"

peer_hex=$(ip_hex "$PEER_IP4")
forged_hex=$(ip_hex "$FORGED")
live=
get_live() {
	live=$(flows_json 1 | jq -c --arg r "$peer_hex" \
		'[.[] | select(.remote == $r and .lqpn != null and .dqpn != null and
		  ."rx-packets" > 0)] | last // empty')
	[ -n "$live" ]
}
retry 60 1 get_live || ksft_skip_all "no live QP flow on h1 ($(cat "$RUN_DIR/flow_forged.pp"))"
lqpn=$(jq .lqpn <<<"$live")
log "live QP flow: $live"

ksft_test "20 CE-marked packets to QP $lqpn from $FORGED" \
	on_host 2 "python3 $FORGE $FORGED $HOST_IP4 50000 20 $lqpn --tos 3"
sleep 2
__kill_tree "$pppid"
wait "$pppid" 2>/dev/null
kill_bg 2 pp
sleep 2
cap_stop 1 flow_forged

wire() {
	tshark -r "$pcap" -Y "$1" -T fields -e frame.number 2>/dev/null | grep -c .
}

arrived() {
	local n
	n=$(wire "ip.src == $FORGED && udp.dstport == 4791")
	log "forged packets captured on h1: $n"
	[ "$n" = 20 ]
}
ksft_test "the forged packets reached h1" arrived

no_cnp() {
	local n
	n=$(wire "ip.dst == $FORGED")
	log "packets from h1 to $FORGED: $n"
	[ "$n" = 0 ]
}
ksft_test "h1 sends no CNP to the forged address" no_cnp

flows=$(flows_json 1)
printf '%s\n' "$flows" | jq -c '.[]' | sed 's/^/# /'
# the QP's record: read here, and kept intact by a full table below
real=$(jq -c --arg r "$peer_hex" --argjson l "$lqpn" \
	'[.[] | select(.lqpn == $l and .remote == $r and .dqpn != null)][0]' <<<"$flows")
qp_flow_ok() {
	local want late
	want=$(wire "ip.src == $PEER_IP4 && udp.dstport == 4791 && infiniband.bth.opcode != 0x81")
	# h1's QP goes first: what h2 still sends until it is stopped (its
	# retransmissions) matches no live QP and makes an rx-only record
	late=$(jq -c --arg r "$peer_hex" --argjson l "$lqpn" \
		'[.[] | select(.lqpn == $l and .remote == $r and .dqpn == null)]' <<<"$flows")
	log "wire from $PEER_IP4: $want; QP flow: $real; after the QP: $late"
	# only the real peer's record is attributed to the QP, and with the
	# peer's late packets it holds exactly what the peer sent, no CE
	jq -e --arg r "$peer_hex" --argjson l "$lqpn" \
		'[.[] | select(.lqpn == $l and .dqpn != null) | .remote] | unique == [$r]' \
		<<<"$flows" >/dev/null &&
	jq -e --argjson w "$want" --argjson late "$late" \
		'."rx-packets" > 0 and ."rx-ce" == 0 and
		 ."rx-packets" + ($late | map(."rx-packets") | add // 0) == $w and
		 ($late | map(."rx-ce") | add // 0) == 0' <<<"$real" >/dev/null
}
ksft_test "the QP's flow counts only the peer's packets" qp_flow_ok

rx_only_ok() {
	# rx-only: no dqpn in the dump
	jq -e --arg r "$forged_hex" \
		'[.[] | select(.remote == $r)] | length == 1 and
		 (map(select(.dqpn == null)) | length == 1) and
		 (map(."rx-packets") | add) == 20 and (map(."rx-ce") | add) == 20 and
		 (map(."cnp-tx") | add) == 0' <<<"$flows" >/dev/null
}
ksft_test "the forged packets are counted in an rx-only record" rx_only_ok

# Fill the table: two records are free; 20 more forged flows (one source
# port each, half naming the QP's number) may take them but evict nothing.
st0=$(stats)
ksft_test "20 forged flows from $FORGED at a filling table" \
	on_host 2 "python3 $FORGE $FORGED $HOST_IP4 51000 20 $lqpn,0x123456 --vary-sport --tos 3"
sleep 1
flows=$(flows_json 1)
st=$(stats)
log "stats before: $st0"
log "stats after: $st"
printf '%s\n' "$flows" | jq -c '.[]' | sed 's/^/# /'
kept() {
	jq -e --argjson f "$real" 'map(select(. == $f)) | length == 1' <<<"$flows" >/dev/null &&
	jq -e --argjson s "$st0" '."flow-evictions" == $s."flow-evictions" and .flows == 4 and
		."flow-alloc-failures" > $s."flow-alloc-failures"' <<<"$st" >/dev/null
}
ksft_test "a full table: forged flows evict nothing, the QP's flow is intact" kept

# A new QP needs a record: the victim is an rx-only record.
ksft_test "ibv_rc_pingpong, a new QP" rdma_pingpong -s 64 -n 5
new_qp_ok() {
	local fl st1
	fl=$(flows_json 1)
	st1=$(stats)
	printf '%s\n' "$fl" | jq -c '.[]'
	log "stats: $st1"
	# the old QP's record (counters unchanged), a new QP's record, two
	# rx-only records left
	jq -e --argjson f "$real" 'map(select(. == $f)) | length == 1' <<<"$fl" >/dev/null &&
	jq -e --arg r "$peer_hex" --argjson l "$lqpn" \
		'map(select(.remote == $r and .lqpn != $l and .dqpn != null and
		     ."tx-packets" > 0)) | length == 1' <<<"$fl" >/dev/null &&
	jq -e 'map(select(.dqpn == null)) | length == 2' <<<"$fl" >/dev/null &&
	jq -e --argjson s "$st" '."flow-evictions" == $s."flow-evictions" + 1' <<<"$st1" >/dev/null
}
ksft_test "a new QP's flow evicts an rx-only record, not the old QP's" new_qp_ok

# A local process (root's, even) sends RoCEv2-shaped datagrams from a UDP
# socket to h2, naming the QP's peer QPN: not the RDMA stack's packets
# (rxe sends from its QPs' kernel sockets), so h1 keeps no record of them
# and, at its full table, neither evicts nor tries to.
st2=$(stats)
rqpn=$(jq .dqpn <<<"$real")
ksft_test "20 RoCEv2-shaped datagrams from a UDP socket on h1 to QP $rqpn on h2" \
	py "$FORGE" "$HOST_IP4" "$PEER_IP4" 52000 20 "$rqpn" --vary-sport
sleep 1
local_ok() {
	local fl st3
	fl=$(flows_json 1)
	st3=$(stats)
	log "stats before: $st2"
	log "stats after: $st3"
	jq -e '[.[] | select(.sport != null and .sport >= 52000 and .sport < 52020)] |
		length == 0' <<<"$fl" >/dev/null &&
	jq -e --argjson s "$st2" '."flow-evictions" == $s."flow-evictions" and
		."flow-alloc-failures" == $s."flow-alloc-failures"' <<<"$st3" >/dev/null
}
ksft_test "h1 keeps no flow record for a local process's datagrams" local_ok
ksft_exit
