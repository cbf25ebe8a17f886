#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 20 load/unload cycles of rocepath.ko while RDMA traffic runs and QPs are
# created, pinned and destroyed in a loop: traffic completes, no WARN or
# BUG (the harness fails the run on any), and no hook is left behind (the
# return probes are gone once the module is).

source "$(dirname "$0")/lib.sh"

require_module
require_cmd ib_write_bw
# The CLI, not cli.py, pins in the loop: a YNL call costs 2 to 5 s of
# Python in a TCG guest, the CLI a tenth of a second.
require_cli

churn_prog
GIDX=$(gid_index "$IBDEV" "$HOST_IP4") || ksft_skip_all "no RoCEv2 GID for $HOST_IP4"
defer rp_unload 1

body_starts
kmsg_mark
rgid=$(on_gid_index 2 "$PEER_IP4")
on_host_bg 2 write_bw "ib_write_bw -d $IBDEV -x $rgid -s 4096 -n 400 -F -u $RC_TIMEOUT"
wait_listen 2
( retry 5 1 ib_write_bw -d "$IBDEV" -x "$GIDX" -s 4096 -n 400 -F -u "$RC_TIMEOUT" "$PEER_IP4" \
	>"$RUN_DIR/bw.out" 2>&1 ) &
client=$!
"$CHURN" -d "$IBDEV" -g "$GIDX" -a "$PEER_IP4" -n 1000000 >/dev/null 2>&1 &
churn=$!

KPROBES=/sys/kernel/debug/kprobes/list
[ -r "$KPROBES" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
# hooked: "TYPE FUNCTION " for each line of $list ("ADDR TYPE SYM+OFF
# MOD") on the two hooked functions. In bash alone, as the whole loop: on
# the debug kernel each program started costs tenths of a second.
hooked() {
	local type sym m="" d=""
	while read -r _ type sym _; do
		case $sym in
		_ib_modify_qp+*) m+="$type _ib_modify_qp " ;;
		ib_destroy_qp_user+*) d+="$type ib_destroy_qp_user " ;;
		esac
	done <<<"$list"
	echo "$m$d"
}
probed=0
log_list=
ok=1
for ((i = 1; i <= 20; i++)); do
	insmod "$ROCEPATH_KO" || { ok=0; log "insmod $i failed"; break; }
	list=
	[ -r "$KPROBES" ] && list=$(<"$KPROBES")
	# a return probe (r) on each function, and nothing else on them
	[ "$(hooked)" = "r _ib_modify_qp r ib_destroy_qp_user " ] &&
		probed=1 || log_list=$list
	"$RP_CLI" pin add remote "$PEER_IP4" sport 50000,50001 || log "pin add in cycle $i failed"
	sleep 0.5
	rmmod rocepath || { ok=0; log "rmmod $i failed"; break; }
done
[ $ok = 1 ] && ksft_pass "20 load/unload cycles under traffic and QP churn" ||
	ksft_fail "20 load/unload cycles under traffic and QP churn"
kill -0 $churn 2>/dev/null && ksft_pass "the QP churn survived every unload" ||
	ksft_fail "the QP churn survived every unload"
kill $churn 2>/dev/null
wait $churn 2>/dev/null
wait $client
rc=$?
wait_bg 2 write_bw 300 >/dev/null || rc=1
[ $rc = 0 ] && ksft_pass "ib_write_bw completed across the cycles" ||
	{ sed 's/^/# /' "$RUN_DIR/bw.out"; ksft_fail "ib_write_bw completed across the cycles"; }
if [ -r "$KPROBES" ]; then
	[ "$probed" = 1 ] && ksft_pass "while loaded, _ib_modify_qp and ib_destroy_qp_user have return probes" ||
		{ sed 's/^/# /' <<<"$log_list"
		  ksft_fail "while loaded, _ib_modify_qp and ib_destroy_qp_user have return probes"; }
	grep -q "_ib_modify_qp\|ib_destroy_qp_user" "$KPROBES" &&
		ksft_fail "no kprobe left after unload" || ksft_pass "no kprobe left after unload"
else
	ksft_skip "kprobes list: debugfs not available"
fi
bugs=$(kmsg_bugs)
[ -z "$bugs" ] && ksft_pass "no WARN, BUG or leak report in dmesg" ||
	{ echo "$bugs" | sed 's/^/# /'; ksft_fail "no WARN, BUG or leak report in dmesg"; }

ksft_exit
