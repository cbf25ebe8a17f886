#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves a module survives many load / pin / unload cycles while everything
# that touches it runs at once: QPs are created, pinned and destroyed in a
# loop on two devices, ib_write_bw runs both ways, a monitor listener is
# subscribed, dumps loop, and an RDMA device is renamed in a loop. Run on
# the debug kernel by make check-debug; scripts/stress-abc.sh runs it with
# control modules to tell whose a crash is.
#
# Usage: unload_stress.sh [-c CYCLES] [-m MODULE.ko]
#   -c  load/unload cycles (default 200); the run stops early, and fails
#       saying how many it did, when 90% of the guest's time is used
#   -m  the module to cycle (default rocepath.ko); rocepath-specific steps
#       (pins, dumps, monitor) are skipped for any other module
#
# QEMU 7.2's TCG now and then ends a guest with a double fault of its own
# (Documentation/module-safety.rst): twice in some 250 cycles here. Every
# 10 cycles the test prints "# rpvm-resume: CYCLES"; scripts/check.sh runs a
# test lost that way once more with RPVM_RESUME set to the last one, and
# the rerun does the cycles that are left on fresh guests.

source "$(dirname "$0")/../lib.sh"

cycles=200
ko=$ROCEPATH_KO
while getopts "c:m:" o; do
	case $o in
	c) cycles=$OPTARG ;;
	m) ko=$OPTARG ;;
	*) ksft_skip_all "usage: unload_stress.sh [-c CYCLES] [-m MODULE.ko]" ;;
	esac
done
[ -f "$ko" ] || ksft_skip_all "no module $ko (build it first)"
resumed=${RPVM_RESUME:-0}
case $resumed in
'' | *[!0-9]*) ksft_skip_all "RPVM_RESUME wants a cycle count, got '$resumed'" ;;
esac
[ "$resumed" -lt "$cycles" ] || ksft_skip_all "RPVM_RESUME=$resumed: no cycles left of $cycles"
[ "$resumed" = 0 ] || log "resuming after $resumed cycles done on guests lost to an emulator fault"
mod=$(basename "$ko" .ko)
is_rp=
[ "$mod" = rocepath ] && is_rp=1
require_cmd ib_write_bw rdma
[ -z "$is_rp" ] || require_cli

churn_prog
GIDX=$(gid_index "$IBDEV" "$HOST_IP4") || ksft_skip_all "no RoCEv2 GID for $HOST_IP4"
STOP=$RUN_DIR/stress.stop
rm -f "$STOP"

# A second soft-RoCE device on a dummy link, the one that gets renamed.
ip link add rpstress0 type dummy && ip link set rpstress0 up &&
	ip addr add 203.0.113.1/24 dev rpstress0 &&
	rdma link add rxe_s0 type rxe netdev rpstress0 ||
	ksft_skip_all "cannot add a second rxe device on a dummy link"
defer 'ip link del rpstress0 2>/dev/null'
defer 'rdma link delete rxe_s0 2>/dev/null; rdma link delete rxe_s1 2>/dev/null'
SGIDX=$(gid_index rxe_s0 203.0.113.1) || ksft_skip_all "no RoCEv2 GID on rxe_s0"
defer "touch $STOP; rmmod $mod 2>/dev/null; sleep 1"
defer "kill_bg 2 bw_srv >/dev/null 2>&1; kill_bg 2 bw_cli >/dev/null 2>&1"

kmsg_mark
# On h1 everything that races the cycles runs at nice 10: it still runs
# whenever a cycle blocks (in synchronize_rcu(), rcu_barrier(), a sleep),
# which is where the races are, but it no longer starves the cycles. At
# nice 0 a debug guest under TCG did one cycle in 40-55 s and 200 did not
# fit the lane's time; softirq and rxe's work items are not niced.
bg_nice() { renice -n 10 -p "$1" >/dev/null; }
# Traffic both ways: h2 serves and sends, h1 serves and sends, in loops.
rgid=$(on_gid_index 2 "$PEER_IP4")
on_host_bg 2 bw_srv "while :; do ib_write_bw -d $IBDEV -x $rgid -s 4096 -D 4 -F -p 18600 >/dev/null 2>&1; done"
# A client that finds no server yet (it restarts between runs) tries again;
# any other failure counts.
on_host_bg 2 bw_cli "n=0; f=0; while :; do sleep 1; out=\$(ib_write_bw -d $IBDEV -x $rgid -s 4096 -D 4 -F -p 18601 $HOST_IP4 2>&1) && n=\$((n+1)) || { echo \"\$out\" | grep -q \"Couldn't connect\" || f=\$((f+1)); }; echo \"\$n \$f\" >/tmp/bw_cli.count; done"
(
	bg_nice $BASHPID
	while [ ! -e "$STOP" ]; do
		ib_write_bw -d "$IBDEV" -x "$GIDX" -s 4096 -p 18601 -D 4 -F >/dev/null 2>&1
	done
) &
(
	n=0 f=0
	bg_nice $BASHPID
	while [ ! -e "$STOP" ]; do
		sleep 1
		if out=$(ib_write_bw -d "$IBDEV" -x "$GIDX" -s 4096 -D 4 -F -p 18600 "$PEER_IP4" 2>&1); then
			n=$((n + 1))
		elif ! grep -q "Couldn't connect" <<<"$out"; then
			f=$((f + 1))
			printf '%s\n' "$out" | tail -n 5 >"$RUN_DIR/bw_h1.fail"
		fi
		echo "$n $f" >"$RUN_DIR/bw_h1.count"
	done
) &
# QP churn on both devices; rxe_s0's modifies race its renames.
"$CHURN" -d "$IBDEV" -g "$GIDX" -a "$PEER_IP4" -n 100000000 >/dev/null 2>&1 &
churn1=$!
bg_nice $churn1
"$CHURN" -d rxe_s0 -g "$SGIDX" -a 203.0.113.2 -n 100000000 >/dev/null 2>&1 &
churn2=$!
bg_nice $churn2
# Rename loop.
(
	bg_nice $BASHPID
	while [ ! -e "$STOP" ]; do
		rdma dev set rxe_s0 name rxe_s1 2>/dev/null
		rdma dev set rxe_s1 name rxe_s0 2>/dev/null
	done
) &
if [ -n "$is_rp" ]; then
	(
		bg_nice $BASHPID
		while [ ! -e "$STOP" ]; do
			"$RP_CLI" monitor >/dev/null 2>&1
			sleep 0.1
		done
	) &
	(
		bg_nice $BASHPID
		while [ ! -e "$STOP" ]; do
			for o in "qp show" "pin show" "flow show" "dcqcn show" "dev show" "stats"; do
				# shellcheck disable=SC2086
				"$RP_CLI" -j $o >/dev/null 2>&1
			done
		done
	) &
fi

# The loop starts no program beyond insmod, rmmod and the CLI: on the
# debug kernel, beside the aggressors, date, seq, lsmod and grep made a
# cycle 9.4 s where it now takes 6.3 (16 cycles each, same guests).
ok=1
done_cycles=$resumed
t0=$SECONDS
budget=$((${RPVM_TIMEOUT:-3600} * 9 / 10 - 120))
for ((i = resumed + 1; i <= cycles; i++)); do
	if [ $((SECONDS - t0)) -ge "$budget" ]; then
		log "time budget of $budget s used after $done_cycles cycles"
		ok=
		break
	fi
	if ! insmod "$ko"; then
		log "insmod in cycle $i failed"
		ok=
		break
	fi
	if [ -n "$is_rp" ]; then
		"$RP_CLI" pin add remote "$PEER_IP4" sport 50000,50001,50002 >/dev/null 2>&1
		"$RP_CLI" pin add remote 203.0.113.2 sport 51000,51001 dev rxe_s0 >/dev/null 2>&1
	fi
	sleep "0.$((RANDOM % 8 + 1))"
	for try in 1 2 3 4 5 6 7 8 9 10; do
		rmmod "$mod" 2>/dev/null && break
		sleep 0.3
	done
	if [ -d "/sys/module/$mod" ]; then
		log "rmmod in cycle $i failed"
		ok=
		break
	fi
	done_cycles=$i
	if [ $((i % 10)) = 0 ]; then
		log "$i cycles, $((SECONDS - t0)) s"
		echo "# rpvm-resume: $i"
	fi
done
log "$((done_cycles - resumed)) cycles in $((SECONDS - t0)) s"
what="$cycles load/unload cycles of $mod under traffic, QP churn, renames${is_rp:+, dumps and a monitor}"
[ "$resumed" = 0 ] || what+=" (the first $resumed on guests lost to an emulator fault)"
[ -n "$ok" ] && ksft_pass "$what" || ksft_fail "$what ($done_cycles done)"
kill -0 $churn1 2>/dev/null && kill -0 $churn2 2>/dev/null &&
	ksft_pass "both QP churns survived every unload" ||
	ksft_fail "both QP churns survived every unload"
touch "$STOP"
kill $churn1 $churn2 2>/dev/null
wait $churn1 $churn2 2>/dev/null
sleep 5
read -r n1 f1 2>/dev/null <"$RUN_DIR/bw_h1.count"
read -r n2 f2 < <(on_host 2 "cat /tmp/bw_cli.count" 2>/dev/null)
log "ib_write_bw runs: h1->h2 ${n1:-0} ok ${f1:-?} failed, h2->h1 ${n2:-0} ok ${f2:-?} failed"
[ "${n1:-0}" -gt 0 ] && [ "${n2:-0}" -gt 0 ] && [ "${f1:-1}" = 0 ] && [ "${f2:-1}" = 0 ] &&
	ksft_pass "ib_write_bw both ways: every run completed" ||
	ksft_fail "ib_write_bw both ways: every run completed"
bugs=$(kmsg_bugs)
[ -z "$bugs" ] && ksft_pass "no WARN, BUG, KASAN, lockdep or leak report in dmesg" ||
	{ echo "$bugs" | sed 's/^/# /'; ksft_fail "no WARN, BUG, KASAN, lockdep or leak report in dmesg"; }
ksft_exit
