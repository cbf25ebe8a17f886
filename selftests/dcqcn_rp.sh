#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the soft-RoCE reaction point enforces its rate: h2 marks every
# arriving RoCEv2 packet CE and answers with CNPs (np_enable); with
# rp_enable 1 and fq on h1's eth0, ib_write_bw from h1 falls to what the
# reported rate allows, the rate recovers once marking stops, and with
# rp_enable 0 the same marking does not slow it down. Data leaves as
# ECT(0) while rp_enable is set. Rates are set far below TCG's ~2 Mbit/s.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flow_lib.sh"
. "$(dirname "$0")/cap_lib.sh"

require_cmd ib_write_bw tcpdump tshark jq python3 tc
require_cli

rp_load_both rp_rate_floor_kbps=200 || ksft_skip_all "cannot load $ROCEPATH_KO"

ce_mark_on 2 || ksft_skip_all "cannot install the CE marking filter on h2"
defer ce_mark_off 2
on_host 1 "tc qdisc replace dev $NETDEV root fq" || ksft_skip_all "no fq qdisc"
defer on_host 1 "tc qdisc del dev $NETDEV root"

dcqcn_set 2 "$IBDEV" '{"np-enable": 1, "np-min-time-between-cnps": 0}' ||
	ksft_skip_all "dcqcn set on h2 failed"
# Emulated time scale: packets are milliseconds apart, so alpha decays
# every 131 ms (not every 1 us), each CNP halves the rate and clamps the
# target to it; ceiling 10 Mb/s, floor 0.2 Mb/s (module parameter);
# timer-only recovery every 131 ms, additive after 31 fast-recovery steps
# (about 4 s at the floor after the last CNP, so the rate can be read).
rp='{"rp-max-rate": 10, "rp-min-rate": 0, "rp-rate-to-set-on-first-cnp": 0,
     "rp-time-reset": 131071, "rp-byte-reset": 0, "rp-threshold": 31,
     "rp-ai-rate": 5, "rp-hai-rate": 5, "rp-dce-tcp-rtt": 131071,
     "rp-clamp-tgt-rate": 1}'
dcqcn_set 1 "$IBDEV" "$rp" || ksft_skip_all "dcqcn set on h1 failed"

# write_bw [N]: N (50) 4 KiB RDMA writes; prints the average bandwidth in Mbit/s
write_bw() {
	local lgid rgid out rc n=${1:-50}
	lgid=$(gid_index "$IBDEV" "$HOST_IP4") || return 1
	rgid=$(on_gid_index 2 "$PEER_IP4") || return 1
	on_host_bg 2 write_bw "ib_write_bw -d $IBDEV -x $rgid -s 4096 -n $n -F -u 20"
	wait_listen 2 >/dev/null
	out=$(retry 5 1 ib_write_bw -d "$IBDEV" -x "$lgid" -s 4096 -n "$n" -F -u 20 "$PEER_IP4" 2>&1)
	rc=$?
	[ "$rc" = 0 ] || kill_bg 2 write_bw
	wait_bg 2 write_bw 240 >/dev/null 2>&1 || rc=1
	[ "$rc" = 0 ] || { echo "$out" >&2; return 1; }
	echo "$out" | awk '$1 == 4096 && NF >= 4 { printf "%.3f\n", $4 * 8 * 1.048576 }'
}

# h1's flow to h2 with rate state, read with the C CLI: a tenth of a second
# where a YNL cli.py call takes seconds (tens of them on the debug kernel).
h1_rate_flow() {
	"$RP_CLI" -j flow show dev "$IBDEV" |
		jq -c --arg r "$PEER_IP4" '[.[] | select(.remote == $r and .rate_kbps != null)] | last'
}

ksft_test "dcqcn set rp_enable 0 on h1" dcqcn_set 1 "$IBDEV" '{"rp-enable": 0}'
bw_off=$(write_bw) || ksft_fail "ib_write_bw with marking, rp_enable 0"
f=$(flows_json 1 | jq -c --arg r "$(ip_hex "$PEER_IP4")" '[.[] | select(.remote == $r and ."tx-packets" > 100)] | last')
log "rp_enable 0: $bw_off Mbit/s; flow $f"
[ "$(jq '."cnp-rx"' <<<"$f")" -gt 0 ] && [ "$(jq '."rate-kbps"' <<<"$f")" = null ] &&
	ksft_pass "rp_enable 0: CNPs arrive, no rate state" ||
	ksft_fail "rp_enable 0: CNPs arrive, no rate state"

ksft_test "dcqcn set rp_enable 1 on h1" dcqcn_set 1 "$IBDEV" '{"rp-enable": 1}'
on_host 1 "flow_reset() { $YNL_CMD --do flow-reset; }; flow_reset" >/dev/null
pcap=$RUN_DIR/dcqcn_rp.pcap
cap_start 1 dcqcn_rp "udp port 4791 and src host $HOST_IP4" || ksft_fail "tcpdump started on h1"
# The rate while the paced transfer runs (75 writes at 0.2 Mb/s take
# about 12 s, 150 took 25 s to show the same): the last paced sample of
# a poll that lasts as long as the transfer. One sample at a fixed time came after the end on the debug
# kernel, where setting up and dumping take several times longer.
write_bw 75 >"$RUN_DIR/dcqcn_rp.bw_on" &
bwpid=$!
f=null
while kill -0 "$bwpid" 2>/dev/null; do
	s=$(h1_rate_flow)
	[ "$(jq '.rp_paced' <<<"$s" 2>/dev/null)" = true ] && f=$s
	sleep 1
done
wait "$bwpid" || ksft_fail "ib_write_bw with marking, rp_enable 1"
bw_on=$(cat "$RUN_DIR/dcqcn_rp.bw_on")
cap_stop 1 dcqcn_rp
log "rp_enable 1: $bw_on Mbit/s; flow $f"

rate=$(jq '.rate_kbps // 0' <<<"$f")
# The paced rate on the wire, kb/s, from h1's capture (taken after fq, so
# at the packets' departure times): the bytes of the data packets from
# the first that left later than twice the rate allows after the one
# before it, over the time they took. Until the first CNPs have cut the
# rate the flow is at the ceiling and unpaced, and how many packets leave
# so depends on the emulator's speed: 9, 71 and 130 of the 300 in three
# runs, the 130 within 11 ms. ib_write_bw's average counts those too, and
# it prints MB/s with two decimals, steps of 84 kb/s against a bound of
# 400. Once paced, the flow leaves at most about 1.4 x rate: at 200 kb/s
# the stamps of rxe's 64 packets in flight reach rp_pace_max_delay_ms
# (2 s), and from there 64 packets leave every 2 s (flows-dcqcn.rst,
# Enforcement).
wire_kbps() { # RATE_KBPS
	tshark -r "$pcap" -Y infiniband -T fields -e frame.time_epoch -e frame.len 2>/dev/null |
		awk -v r="$1" '{ t[NR] = $1; l[NR] = $2 }
		END {
			for (i = 2; i <= NR; i++)
				if (r > 0 && t[i] - t[i - 1] >= l[i] * 8 / (2 * r * 1000))
					break
			if (NR - i + 1 < 40 || t[NR] <= t[i - 1]) exit 1
			for (j = i; j <= NR; j++)
				b += l[j]
			printf "%.0f %d\n", b * 8 / (t[NR] - t[i - 1]) / 1000, NR - i + 1
		}'
}
read -r wire npaced < <(wire_kbps "$rate") || wire=
log "rp_enable 1: the last ${npaced:-?} data packets left at ${wire:-?} kb/s"
slowed() {
	# paced (below the ceiling), the wire at most 2 x the rate reported
	# during the run, and ib_write_bw well below rp_enable 0
	[ "$f" != null ] || { echo "flow never paced during the run"; return 1; }
	[ -n "$wire" ] || { echo "fewer than 40 data packets in $pcap left paced"; return 1; }
	awk -v w="$wire" -v on="$bw_on" -v off="$bw_off" -v r="$rate" \
		'BEGIN { exit !(r > 0 && w <= 2 * r && on < 0.5 * off) }'
}
ksft_test "rp_enable 1: paced wire ${wire:-?} kb/s <= 2 x rate during the run ${rate} kb/s; $bw_on Mbit/s < half of $bw_off" slowed

ect() {
	local n all
	all=$(tshark -r "$pcap" -Y "infiniband" -T fields -e ip.dsfield.ecn 2>/dev/null | grep -c .)
	n=$(tshark -r "$pcap" -Y "infiniband && ip.dsfield.ecn == 2" -T fields -e ip.dsfield.ecn 2>/dev/null | grep -c .)
	log "ECT(0) on $n of $all data packets"
	[ "$all" -gt 0 ] && [ "$n" = "$all" ]
}
ksft_test "rp_enable 1: data leaves as ECT(0)" ect

unmark() {
	on_host 2 "tc qdisc del dev $NETDEV clsact; ! tc filter show dev $NETDEV ingress | grep -q pedit"
}
ksft_test "CE marking removed on h2" retry 5 2 unmark
recovered() {
	local r
	r=$(flows_json 1 | jq --arg r "$(ip_hex "$PEER_IP4")" \
		'[.[] | select(.remote == $r and ."tx-packets" > 100)] | last | ."rate-kbps"')
	log "rate now $r kb/s"
	[ "$r" -ge 10000 ]
}
ksft_test "rate recovers to rp_max_rate once marking stops" retry 30 1 recovered

bw_after=$(write_bw) || ksft_fail "ib_write_bw after marking"
log "after marking: $bw_after Mbit/s; flow $(h1_rate_flow)"
awk -v a="$bw_after" -v on="$bw_on" 'BEGIN { exit !(a > 2 * on) }' &&
	ksft_pass "throughput recovers without marks" || ksft_fail "throughput recovers without marks"
ksft_exit
