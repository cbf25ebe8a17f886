#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves CE marks come from a real queue: leaf1 shapes its port to h3 (tbf)
# behind a RED queue that marks ECN-capable packets at a threshold and
# drops the others, as a switch's WRED/ECN does; h1 and h2 (leaf0) write
# to h3 at once (incast). DCQCN off: the queue drops and marks nothing.
# DCQCN on (RP with fq on the senders, NP on h3): every CE mark h3 counts
# was made by that queue, CNPs reach both senders, the queue drops less.
# Backlog, drops, marks, per-sender rates and Jain's index are logged;
# scripts/bench/fabric_congestion.sh runs it longer, with an ECN-only phase.
# rpvm-check-kernels: 6.12
# rpvm-fabric: examples/fabric/topology.json l4
# rpvm-timeout: 600
# shellcheck disable=SC2317 # functions run through ksft_test and defer

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fabric_lib.sh"

fabric_require
require_module
require_cmd ib_write_bw python3 jq tc busybox
require_cli

# Tunables (selftests/settings env=): the phases (off: no ECT, no CNP;
# ecn: the RP marks data ECT(0) but h3 sends no CNPs; on: DCQCN), the
# bottleneck's rate, the write size, and SECS: each sender writes what its
# fair share of the bottleneck carries in SECS. A phase ends after
# 3 x SECS at most; a writer still running then is stopped, as stalled.
SECS=${FABRIC_CONG_SECS:-12}
PHASES=${FABRIC_CONG_PHASES:-off on}
RATE=${FABRIC_CONG_RATE_KBIT:-4000}
SIZE=${FABRIC_CONG_SIZE:-4096}
WRITES=$((SECS * RATE * 125 / 2 / SIZE))
W=$RUN_DIR/fabric-congestion
mkdir -p "$W"
CONG="$PY $ROCEPATH_TOP/selftests/fabric_congestion.py"

# Two senders on one leaf, the receiver on another (guest indexes).
read -r S1 S2 R <<<"$(awk '$1 == "host" { idx[++k] = $2; lf[k] = $5 }
	END { for (i = 1; i <= k && !a; i++)
		for (j = i + 1; j <= k; j++)
			if (lf[j] == lf[i]) { a = idx[i]; b = idx[j]; sl = lf[i]; break }
	      for (i = 1; i <= k; i++)
		if (a && lf[i] != sl) { print a, b, idx[i]; exit } }' "$RUN_DIR/fabric")"
[ -n "$R" ] || ksft_skip_all "the topology has no leaf with two hosts and another with one"
RLEAF=$(awk -v n="$R" '$1 == "host" && $2 == n { print $5 }' "$RUN_DIR/fabric")
RDEV=host$R
R_IP=$(host_ip "$R")
log "incast: h$S1 ($(host_ip "$S1")) and h$S2 ($(host_ip "$S2")) -> h$R ($R_IP); bottleneck $RLEAF $RDEV at $RATE kbit/s"

# The bottleneck: TBF at RATE; under it RoCEv2 (UDP to 4791) queues in a
# RED that marks ECT packets between MIN and MAX bytes of average queue
# (probability up to 0.1, every ECT packet above MAX) and drops Not-ECT
# ones instead, hard limit LIMIT. Everything else (ib_write_bw's TCP
# exchange, ARP) goes first, through a fifo, as a fabric carries it in
# another class: through the RED, whose average stays above MAX for
# seconds, every Not-ECT segment of the final exchange was dropped and
# the writers, done writing, overran the phase bound on the debug kernel.
# Thresholds scale with the rate: 20 ms, 60 ms, 200 ms of queue; the limit
# never goes below 100 kB (200 ms at 4000 kbit/s), as an unpaced sender
# bursts its RC window (rxe keeps up to 64 packets in flight) and a
# smaller buffer tail-drops each go-back-N retry whole: at 1000 kbit/s
# with 25 kB, a debug-kernel sender sat in RC timeouts for the phase.
BPS=$((RATE * 125))
MIN=$((BPS / 50)) MAX=$((BPS * 3 / 50)) LIMIT=$((BPS / 5))
[ $LIMIT -ge 100000 ] || LIMIT=100000
QDELAY_MS=$((LIMIT * 1000 / BPS))
AVPKT=1100
BURST=$(((2 * MIN + MAX) / (3 * AVPKT) + 1))
bottleneck() {
	on_host "$FABRIC_HOST" "tc -n $RLEAF qdisc replace dev $RDEV root handle 1: tbf \
			rate ${RATE}kbit burst 4000 limit $((2 * LIMIT)) &&
		tc -n $RLEAF qdisc add dev $RDEV parent 1:1 handle 2: prio bands 2 \
			priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
		tc -n $RLEAF qdisc add dev $RDEV parent 2:1 handle 20: pfifo limit 1000 &&
		tc -n $RLEAF qdisc add dev $RDEV parent 2:2 handle 10: red limit $LIMIT \
			min $MIN max $MAX avpkt $AVPKT burst $BURST bandwidth ${RATE}kbit \
			probability 0.1 ecn &&
		tc -n $RLEAF filter add dev $RDEV parent 2: protocol ip prio 1 u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff flowid 2:2 &&
		tc -n $RLEAF filter add dev $RDEV parent 2: protocol ipv6 prio 2 u32 \
			match ip6 protocol 17 0xff match ip6 dport 4791 0xffff flowid 2:2 &&
		tc -n $RLEAF qdisc show dev $RDEV"
}
unshape() { on_host "$FABRIC_HOST" "tc -n $RLEAF qdisc del dev $RDEV root"; }
defer unshape
ksft_test "bottleneck: $RLEAF's port to h$R shaped to $RATE kbit/s, RED marks ECN at $MIN..$MAX bytes" \
	bottleneck || ksft_exit

# rocepath on the three hosts (accounting always; RP/NP per phase). The
# pacing bound (rp_pace_max_delay_ms) is 300 ms at 4000 kbit/s and grows
# as the rate falls (up to the module's 5 s): while a QP's pacing debt is
# at the bound, its 64 packets in flight leave once per bound, about
# 1.9 Mbit/s at 300 ms, so a bound too short for the fair share leaves the
# reaction point unable to slow a sender to it (at 1000 kbit/s: queue at
# its limit, both writers stalled). The QPs' RC timeout (ib_write_bw -u U:
# 4.096 us x 2^U) is the shortest from 1.07 s (U 18) that outlasts 1.5 x
# the pacing bound plus the queue's worst delay (QDELAY_MS), so that a
# packet held by both is not retransmitted.
PACE_MS=$((300 * 4000 / RATE))
[ $PACE_MS -ge 300 ] || PACE_MS=300
[ $PACE_MS -le 5000 ] || PACE_MS=5000
RC_U=18
while [ $(((4096 << RC_U) / 1000000)) -le $(((PACE_MS + QDELAY_MS) * 3 / 2)) ] && [ $RC_U -lt 24 ]; do
	RC_U=$((RC_U + 1))
done
for n in $S1 $S2 $R; do
	defer rp_unload "$n"
	rp_load "$n" rp_pace_max_delay_ms=$PACE_MS || ksft_skip_all "cannot load $ROCEPATH_KO on h$n"
done
# The RP's pacing needs fq on the senders; it is there in every phase so
# that the phases differ in DCQCN only.
unfq() { for n in $S1 $S2; do on_host "$n" "tc qdisc del dev $NETDEV root"; done; }
defer unfq
for n in $S1 $S2; do
	on_host "$n" "tc qdisc replace dev $NETDEV root fq" || ksft_skip_all "no fq qdisc on h$n"
	on_host "$n" "busybox ping -c 1 -W 3 $R_IP" >/dev/null
done

# DCQCN tuned to the emulated fabric, whose round trip is milliseconds
# (not microseconds): the microsecond timers of mlx5's defaults times
# about 1000 (CNP interval and cut period 50 ms, alpha and rate-increase
# timers 55 ms), byte counter off, ceiling 10 Mb/s, floor 0.1 Mb/s
# (rp_rate_floor_kbps default), F = 5 fast-recovery steps, AI 1 Mb/s (the
# smallest step the parameters allow).
RP_TUNED="rp_max_rate 10 rp_min_rate 0 rp_time_reset 55000 rp_byte_reset 0
	rp_threshold 5 rp_ai_rate 1 rp_hai_rate 1 rp_dce_tcp_rtt 55000
	rp_rate_reduce_monitor_period 50000"
dcqcn() { # PHASE: set the senders' RP and the receiver's NP
	local rp=0 np=0 n
	case $1 in
	ecn) rp=1 ;;
	on) rp=1 np=1 ;;
	esac
	for n in $S1 $S2; do
		# shellcheck disable=SC2086 # RP_TUNED is a list of words
		on_host "$n" "$RP_CLI dcqcn set dev $IBDEV rp_enable $rp" $RP_TUNED || return 1
	done
	on_host "$R" "$RP_CLI dcqcn set dev $IBDEV np_enable $np np_min_time_between_cnps 50000"
}

if ! { GR=$(host_gid "$R") && G1=$(host_gid "$S1") && G2=$(host_gid "$S2"); }; then
	ksft_skip_all "no RoCEv2 GID on a host"
fi
BW="ib_write_bw -d $IBDEV -s $SIZE -n $WRITES -F -u $RC_U"

# incast PHASE: both senders write to the receiver at once while the
# bottleneck's qdisc is sampled. Writes $W/PHASE.json; fails when nothing
# crossed the bottleneck or, with DCQCN on, a writer stalled.
phase_no=0
incast() {
	local ph=$1 p1 p2 n t0 wall stalled=()
	p1=$((18515 + 2 * phase_no)) p2=$((18516 + 2 * phase_no))
	phase_no=$((phase_no + 1))
	dcqcn "$ph" || { echo "dcqcn set failed"; return 1; }
	for n in $S1 $S2 $R; do on_host "$n" "$RP_CLI flow reset" >/dev/null; done
	on_host_bg "$R" srv1 "$BW -x $GR -p $p1"
	on_host_bg "$R" srv2 "$BW -x $GR -p $p2"
	retry 60 0.5 on_host "$R" "ss -ltn | grep -q ':$p1 ' && ss -ltn | grep -q ':$p2 '" ||
		{ echo "ib_write_bw servers not listening on h$R"; return 1; }
	fab qdisc watch "$RLEAF" "$RDEV" || return 1
	t0=$(date +%s.%N)
	# The guests stop a writer after 3 x SECS (on_host's timeout).
	ON_HOST_TIMEOUT=$((3 * SECS)) on_host_bg "$S1" cli1 \
		"source selftests/lib.sh; retry 10 1 $BW -x $G1 -p $p1 $R_IP"
	ON_HOST_TIMEOUT=$((3 * SECS)) on_host_bg "$S2" cli2 \
		"source selftests/lib.sh; retry 10 1 $BW -x $G2 -p $p2 $R_IP"
	wait_bg "$S1" cli1 $((3 * SECS + 60)) >"$W/$ph-h$S1.log" 2>&1 || stalled+=("h$S1")
	wait_bg "$S2" cli2 $((3 * SECS + 60)) >"$W/$ph-h$S2.log" 2>&1 || stalled+=("h$S2")
	wall=$(awk -v t0="$t0" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - t0 }')
	fab qdisc report >"$W/$ph-qdisc.json" || return 1
	wait_bg "$R" srv1 10 >"$W/$ph-srv1.log" 2>&1
	wait_bg "$R" srv2 10 >"$W/$ph-srv2.log" 2>&1
	for n in $S1 $S2 $R; do
		on_host "$n" "$RP_CLI -j flow show" >"$W/$ph-flows-h$n.json" || return 1
	done
	$CONG row "$ph" "$wall" "$W/$ph-qdisc.json" "$W/$ph-flows-h$R.json" \
		"$(host_ip "$S1")=$W/$ph-h$S1.log:$W/$ph-flows-h$S1.json" \
		"$(host_ip "$S2")=$W/$ph-h$S2.log:$W/$ph-flows-h$S2.json" >"$W/$ph.json" || return 1
	echo "$ph, $wall s: $(cat "$W/$ph.json")"
	if [ ${#stalled[@]} -gt 0 ]; then
		echo "stalled after $((3 * SECS)) s, stopped: ${stalled[*]}"
		[ "$ph" != on ] || return 1
	fi
	[ "$(jq .queue.packets "$W/$ph.json")" -gt 0 ] || { echo "nothing crossed the bottleneck"; return 1; }
}

val() { jq -r "$2" "$W/$1.json"; }
for ph in $PHASES; do
	case $ph in
	off) desc="DCQCN off (data Not-ECT)" ;;
	ecn) desc="ECN only (the RP marks data ECT(0), h$R sends no CNPs)" ;;
	on) desc="DCQCN on (RP + fq on the senders, NP on h$R)" ;;
	*) ksft_fail "unknown phase $ph"; continue ;;
	esac
	ksft_test "incast, $desc: $WRITES writes of $SIZE B from each sender" incast "$ph"
	[ -f "$W/$ph.json" ] || continue
	case $ph in
	off)
		# Not-ECT packets cannot be marked: the queue drops them, and
		# nothing else on the path marks CE.
		drops=$(val off .queue.drops) marked=$(val off .queue.marked) ce=$(val off .receiver.rx_ce)
		ksft_test "DCQCN off: the queue dropped $drops, marked $marked; h$R saw $ce CE" \
			test "$drops" -gt 0 -a "$marked" = 0 -a "$ce" = 0
		;;
	on)
		# Every CE mark the receiver counted was made by the queue (no
		# filter marks anything), and each sender got CNPs for them.
		ce=$(val on .receiver.rx_ce) marked=$(val on .queue.marked)
		ksft_test "DCQCN on: CE marks from the queue: h$R counted $ce, the queue marked $marked" \
			test "$ce" -gt 0 -a "$ce" -le "$marked"
		ksft_test "DCQCN on: CNPs reached both senders ($(val on '[.senders[].cnp_rx] | join(" ")') of $(val on .receiver.cnp_tx) sent)" \
			jq -e '[.senders[] | select(.cnp_rx > 0)] | length == 2' "$W/on.json"
		;;
	esac
done
if [ -f "$W/off.json" ] && [ -f "$W/on.json" ]; then
	ksft_test "the bottleneck drops less with DCQCN: $(val on .queue.drops) vs $(val off .queue.drops) off" \
		test "$(val on .queue.drops)" -lt "$(val off .queue.drops)"
fi
rows=()
for ph in $PHASES; do [ -f "$W/$ph.json" ] && rows+=("$W/$ph.json"); done
if [ ${#rows[@]} -gt 0 ]; then
	log "bottleneck $RLEAF $RDEV, $RATE kbit/s, RED $MIN..$MAX B (limit $LIMIT, $QDELAY_MS ms); pacing bound $PACE_MS ms; RC timeout -u $RC_U; $WRITES writes of $SIZE B per sender, phase bound $((3 * SECS)) s:"
	$CONG table "${rows[@]}" | sed 's/^/# | /'
fi
log "fabric guest: $(on_host "$FABRIC_HOST" "free -m | awk '/^Mem:/ { print \$3 \" MiB used of \" \$2 }'")"
ksft_exit
