#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the soft-RoCE NP and RP stay within their bounds: CNPs leave on
# the interface the RoCE traffic arrived on even when a policy route sends
# UDP to the peer elsewhere (IPv4 and IPv6); with rp_gd 0 a CNP leaves the rate within
# [floor, ceiling]; paced at a 10 kb/s floor, no packet is stamped further
# ahead than rp_pace_max_delay_ms, so a 512 KiB ib_write_bw completes.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flow_lib.sh"

require_cmd ibv_rc_pingpong ib_write_bw jq python3 tc ip

FLOOR=10	# kb/s
rp_load_both rp_rate_floor_kbps=$FLOOR || ksft_skip_all "cannot load $ROCEPATH_KO"

# h2 marks every RoCEv2 packet arriving CE and answers with CNPs
ce_mark_on 2 || ksft_skip_all "cannot install the CE marking filter on h2"
defer ce_mark_off 2
dcqcn_set 2 "$IBDEV" '{"np-enable": 1, "np-min-time-between-cnps": 0}' ||
	ksft_skip_all "dcqcn set on h2 failed"

stat() {
	on_host "$1" "$YNL_CMD --do stats-get --output-json" |
		jq ".stats.\"$2\""
}
flow_reset() {
	on_host "$1" "$YNL_CMD --do flow-reset" >/dev/null
}
h1_flow() {
	flows_json 1 | jq -c --arg r "$(ip_hex "$PEER_IP4")" \
		'[.[] | select(.remote == $r and ."rate-kbps" != null)] | last'
}

# 1. A policy rule on h2 sends UDP lookups without an interface to a dummy
# device; rxe routes with its own interface and is not affected, a CNP
# routed without one would be.
on_host 2 "ip link add rpdummy0 type dummy &&
	sysctl -qw net.ipv6.conf.rpdummy0.disable_ipv6=1 && ip link set rpdummy0 up &&
	ip route add $HOST_IP4/32 dev rpdummy0 table 4791 &&
	ip rule add pref 100 ipproto udp table 4791" ||
	ksft_skip_all "cannot set up the policy route on h2"
defer on_host 2 "ip rule del pref 100; ip -6 rule del pref 100; ip -6 rule del pref 99; ip link del rpdummy0"
dummy_tx() {
	on_host 2 "cat /sys/class/net/rpdummy0/statistics/tx_packets"
}
dt0=$(dummy_tx)
ksft_test "ibv_rc_pingpong with CE marks, UDP to h1 policy-routed to a dummy on h2" \
	rdma_pingpong -s 64 -n 10
sleep 1
cnp_oif_ok() {
	local tx rx dt
	tx=$(stat 2 cnp-tx)
	rx=$(stat 1 cnp-rx)
	dt=$(($(dummy_tx) - dt0))
	log "h2 cnp_tx $tx, h1 cnp_rx $rx, h2 rpdummy0 tx_packets +$dt"
	[ "$tx" -gt 0 ] && [ "$rx" = "$tx" ] && [ "$dt" = 0 ]
}
ksft_test "CNPs leave on the receiving interface, not the policy route" cnp_oif_ok

# IPv6: rxe does not bind its IPv6 lookups to the interface, so only
# lookups without one go to the dummy; CE comes from h1 (traffic class 3).
on_host 2 "sysctl -qw net.ipv6.conf.rpdummy0.disable_ipv6=0 &&
	ip -6 route add $HOST_IP6/128 dev rpdummy0 table 4791 &&
	ip -6 rule add pref 99 ipproto udp oif $NETDEV table main &&
	ip -6 rule add pref 100 ipproto udp table 4791" ||
	ksft_fail "IPv6 policy route on h2"
write_bw6() {
	local lgid rgid rc
	lgid=$(gid_index "$IBDEV" "$HOST_IP6") || return 1
	rgid=$(on_gid_index 2 "$PEER_IP6") || return 1
	on_host_bg 2 bw6 "ib_write_bw -d $IBDEV -x $rgid -s 4096 -n 5 -F -u $RC_TIMEOUT"
	wait_listen 2 >/dev/null
	retry 5 1 ib_write_bw -d "$IBDEV" -x "$lgid" -s 4096 -n 5 -F -u "$RC_TIMEOUT" --tclass=3 "$PEER_IP4" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 0 ] || kill_bg 2 bw6
	wait_bg 2 bw6 120 >/dev/null 2>&1 || rc=1
	return "$rc"
}
tx0=$(stat 2 cnp-tx)
rx0=$(stat 1 cnp-rx)
ksft_test "ib_write_bw over IPv6 GIDs with CE, UDP to h1 policy-routed to the dummy" write_bw6
sleep 1
cnp6_oif_ok() {
	local tx rx
	tx=$(($(stat 2 cnp-tx) - tx0))
	rx=$(($(stat 1 cnp-rx) - rx0))
	log "IPv6: h2 cnp_tx +$tx, h1 cnp_rx +$rx"
	[ "$tx" -gt 0 ] && [ "$rx" = "$tx" ]
}
ksft_test "IPv6: CNPs leave on the receiving interface, not the policy route" cnp6_oif_ok
on_host 2 "ip rule del pref 100; ip -6 rule del pref 100; ip -6 rule del pref 99; ip link del rpdummy0"

# 2. rp_gd 0: the cut Rc * alpha / 2^0 is larger than Rc
on_host 1 "tc qdisc replace dev $NETDEV root fq" || ksft_skip_all "no fq qdisc"
defer on_host 1 "tc qdisc del dev $NETDEV root"
# slow recovery (as dcqcn_rp.sh), so the rate stays where the CNPs put it
slow='"rp-time-reset": 131071, "rp-byte-reset": 0, "rp-threshold": 31,
      "rp-ai-rate": 5, "rp-hai-rate": 5, "rp-dce-tcp-rtt": 131071,
      "rp-clamp-tgt-rate": 1, "rp-max-rate": 10, "rp-min-rate": 0,
      "rp-rate-to-set-on-first-cnp": 0'
ksft_test "dcqcn set rp_enable 1 rp_gd 0 rp_min_dec_fac 1 on h1" \
	dcqcn_set 1 "$IBDEV" "{\"rp-enable\": 1, \"rp-gd\": 0, \"rp-min-dec-fac\": 1, $slow}"
flow_reset 1
ksft_test "ibv_rc_pingpong with CE marks, rp_gd 0" rdma_pingpong -s 64 -n 5
gd0_ok() {
	local f
	f=$(h1_flow)
	log "h1 flow: $f"
	jq -e --argjson lo "$FLOOR" \
		'."cnp-rx" > 0 and ."rate-kbps" >= $lo and ."rate-kbps" <= 10000' \
		<<<"$f" >/dev/null
}
ksft_test "rp_gd 0: rate within [$FLOOR kb/s, 10000 kb/s] after CNPs" gd0_ok

# 3. Paced at the floor: 10 kb/s is 0.9 s per 1 KiB packet, and rxe keeps
# 64 packets in flight, so unbounded stamps would reach a minute ahead,
# far past fq's 10 s horizon and the QP's 4 s timeout (-u 20). Bounded,
# 64 packets leave per rp_pace_max_delay_ms: about 30 KB/s. 512 KiB is
# eight windows of 64 packets, enough to stall an unbounded QP, and takes
# some 17 s where 2 MiB took 62 s.
maxdelay=$(cat /sys/module/rocepath/parameters/rp_pace_max_delay_ms 2>/dev/null)
bound_ok() {
	log "rp_pace_max_delay_ms: ${maxdelay:-missing}"
	[ -n "$maxdelay" ] && [ "$maxdelay" -gt 0 ] && [ "$maxdelay" -lt 4000 ]
}
ksft_test "rp_pace_max_delay_ms reads back, under the QP timeout (4.3 s)" bound_ok
ksft_test "dcqcn set rp_gd 11 rp_min_dec_fac 50 on h1" \
	dcqcn_set 1 "$IBDEV" '{"rp-gd": 11, "rp-min-dec-fac": 50}'
flow_reset 1
write_bw() {
	local lgid rgid rc
	lgid=$(gid_index "$IBDEV" "$HOST_IP4") || return 1
	rgid=$(on_gid_index 2 "$PEER_IP4") || return 1
	on_host_bg 2 write_bw "ib_write_bw -d $IBDEV -x $rgid -s 65536 -n 8 -F -u 20"
	wait_listen 2
	retry 5 1 ib_write_bw -d "$IBDEV" -x "$lgid" -s 65536 -n 8 -F -u 20 "$PEER_IP4" 2>&1 |
		grep -v -e "Couldn't connect" -e "Unable to" | tail -n 8
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || kill_bg 2 write_bw
	wait_bg 2 write_bw 60 >/dev/null 2>&1 || rc=1
	return "$rc"
}
ksft_test_bg_out=$RUN_DIR/dcqcn_bounds.bw
(
	trap - EXIT
	ON_HOST_TIMEOUT=300 write_bw >"$ksft_test_bg_out" 2>&1
	echo $? >"$ksft_test_bg_out.rc"
) &
bwpid=$!
defer "__kill_tree $bwpid"
paced_ok() {
	jq -e --argjson lo "$FLOOR" '."rp-paced" == 1 and ."rate-kbps" <= 10 * $lo' \
		<<<"${f:-null}" >/dev/null
}
# The CNPs cut the rate to the floor within seconds; a fixed 20 s wait
# cost that much on every kernel. At most 20 polls, a second apart (each
# read of the flow takes its own time on top).
paced_now() {
	f=$(h1_flow)
	paced_ok
}
retry 20 1 paced_now
log "h1 flow during the transfer: $f"
ksft_test "rate near the floor during the transfer" paced_ok
# a stalled QP may never give up, and its retransmissions slow the guest
# down: stop it 200 s from here (the debug kernel's margin)
deadline=$((SECONDS + 200))
while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$bwpid" 2>/dev/null; do
	sleep 1
done
if kill -0 "$bwpid" 2>/dev/null; then
	__kill_tree "$bwpid"
	kill_bg 2 write_bw
	echo "ib_write_bw still running after 220 s: stopped" >>"$ksft_test_bg_out"
	echo 124 >"$ksft_test_bg_out.rc"
fi
wait "$bwpid" 2>/dev/null
sed 's/^/# /' "$ksft_test_bg_out"
log "h1 fq: $(tc -s qdisc show dev "$NETDEV" | tr '\n' ' ')"
[ "$(cat "$ksft_test_bg_out.rc" 2>/dev/null)" = 0 ] &&
	ksft_pass "ib_write_bw 512 KiB at the rate floor completes" ||
	ksft_fail "ib_write_bw 512 KiB at the rate floor completes"
ksft_exit
