#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# QP bookkeeping through the RDMA core: 10,000 RC QPs created, moved to RTR
# and destroyed leave no entry and no per-port count behind; kept QPs show
# in qp-get with the path-set spread (fewest live QPs, ties to the lowest
# port); an exact rule beats the path set; a device-scoped path set beats a
# global one; qp-get and qp-add-ntf name the rule that matched (its key as
# installed); without a rule a QP is listed unpinned, with no rule, on its
# default port; an RTR the driver rejects leaves no entry, no port count and
# is counted in qps-rolled-back, a later valid RTR pins normally, and a
# rejected re-modify leaves the QP's entry as it was, also over 1,000
# cycles; notifications announce only what the driver accepted.

source "$(dirname "$0")/lib.sh"

require_module
require_ynl
require_cli
churn_prog
GIDX=$(gid_index "$IBDEV" "$HOST_IP4") || ksft_skip_all "no RoCEv2 GID for $HOST_IP4"
R4=$(ip_hex "$PEER_IP4")
# The shared RUN_DIR (9p) cannot hold a FIFO.
FIFO=$(mktemp -u /tmp/pin_churn.XXXXXX)
defer rm -f "$FIFO"

rp_load 1 || ksft_skip_all "cannot load $ROCEPATH_KO"
defer rp_unload 1

# State is read and pins are set with the C CLI over the same netlink
# operations: a cli.py call costs 2 to 5 s of Python in a TCG guest, and
# this test makes some fifty. pin_ynl.sh drives the family with YNL.

# stat NAME: one counter of stats-get (NAME as in the spec, qps-rolled-back).
stat() {
	"$RP_CLI" -j stats | py -c "import json,sys; print(json.load(sys.stdin)['${1//-/_}'])"
}

# qps: "lqpn rqpn sport pinned default-sport rule" of h1's tracked QPs;
# pinned is 1 or 0; rule is "-" when none matched, else its key as
# "k=v,..." with the spec's names, sorted, the remote in hex as the kernel
# holds it ("ibdev=rxe0,remote=c0000202,rqpn=4660").
qps() {
	"$RP_CLI" -j qp show | py -c '
import ipaddress, json, sys
for q in json.load(sys.stdin):
    r = q["rule"]
    if r is None:
        rule = "-"
    else:
        key = {"ibdev": r["dev"], "remote": ipaddress.ip_address(r["remote"]).packed.hex(),
               "rqpn": r["rqpn"], "lqpn": r["lqpn"]}
        rule = ",".join("%s=%s" % kv for kv in sorted(key.items()) if kv[1] is not None)
    print(q["lqpn"], q["rqpn"], q["sport"], int(q["pinned"]), q["default_sport"], rule)'
}

# pin_qps: "remote [sports] [live QPs per port]" of each pin.
pin_qps() {
	"$RP_CLI" -j pin show | py -c '
import json, sys
for p in json.load(sys.stdin):
    print(p["remote"], p["sports"], p["sport_qps"])'
}

# keep N [ARGS]: create N QPs to the peer and leave them in RTR until release.
keep() {
	local n=$1
	shift
	rm -f "$FIFO"
	mkfifo "$FIFO"
	"$CHURN" -d "$IBDEV" -g "$GIDX" -a "$PEER_IP4" -n "$n" -k "$@" \
		<"$FIFO" >"$RUN_DIR/keep.out" 2>&1 &
	KEEP_PID=$!
	exec 7>"$FIFO"
	retry 60 0.5 grep -q "^qp $((n - 1)) " "$RUN_DIR/keep.out"
}

# resume: a newline to the kept QPs' program (if it still runs).
resume() {
	kill -0 "$KEEP_PID" 2>/dev/null && echo >&7
}

release() {
	resume
	exec 7>&-
	wait "$KEEP_PID"
}

# ntfs_ge N: the monitor has printed at least N qp notifications.
ntfs_ge() {
	[ "$(grep -c '^NTF qp-' "$RUN_DIR/monitor.out")" -ge "$1" ]
}

"$RP_CLI" pin add remote "$PEER_IP4" sport 50003,50002,50001,50000

# 1. Path-set spread on kept QPs.
keep 8
got=$(qps | awk '$4 == 1 { c[$3]++ } END { for (p in c) print p, c[p] }' | sort -n | tr '\n' ' ')
[ "$got" = "50000 2 50001 2 50002 2 50003 2 " ] &&
	ksft_pass "8 QPs on a 4-port path set: 2 per port in qp-get" ||
	ksft_fail "8 QPs on a 4-port path set: 2 per port in qp-get (got '$got')"
got=$(qps | awk '{ print $6 }' | sort -u | tr '\n' ' ')
[ "$got" = "remote=$R4 " ] &&
	ksft_pass "qp-get names the path-set rule (remote only)" ||
	ksft_fail "qp-get names the path-set rule (remote only) (got '$got')"
out=$(pin_qps)
echo "$out" | grep -q " \[2, 2, 2, 2\]$" &&
	ksft_pass "pin-get counts 2 live QPs per port" ||
	ksft_fail "pin-get counts 2 live QPs per port ($out)"
release
[ "$(qps | wc -l)" = 0 ] && ksft_pass "destroyed QPs leave qp-get" ||
	ksft_fail "destroyed QPs leave qp-get ($(qps))"

# Monitor: qp-add-ntf and qp-del-ntf for kept QPs. The kernel sends them
# as the QPs change, so once release returns they are all queued: the
# monitor stops a second after the fourth, where a fifth would show.
python3 selftests/pin_ynl.py monitor 300 >"$RUN_DIR/monitor.out" 2>&1 &
mon=$!
retry 120 0.5 grep -q READY "$RUN_DIR/monitor.out"
keep 2
release
retry 60 0.5 ntfs_ge 4
sleep 1
kill $mon 2>/dev/null
wait $mon 2>/dev/null
adds=$(grep -c "^NTF qp-add-ntf" "$RUN_DIR/monitor.out")
dels=$(grep -c "^NTF qp-del-ntf" "$RUN_DIR/monitor.out")
[ "$adds" = 2 ] && [ "$dels" = 2 ] &&
	ksft_pass "monitor: qp-add-ntf and qp-del-ntf for each QP" ||
	{ sed 's/^/# /' "$RUN_DIR/monitor.out" | tail -5
	  ksft_fail "monitor: qp-add-ntf and qp-del-ntf for each QP ($adds adds, $dels dels)"; }
rules=$(grep "^NTF qp-add-ntf" "$RUN_DIR/monitor.out" | grep -c "'rule': {'remote': b'")
[ "$rules" = 2 ] && ksft_pass "monitor: qp-add-ntf carries the matched rule" ||
	ksft_fail "monitor: qp-add-ntf carries the matched rule ($rules of 2)"

# 2. Ties go to the lowest port: one QP lands on 50000.
keep 1
got=$(qps | awk '{ print $3 }')
release
[ "$got" = 50000 ] && ksft_pass "a lone QP takes the lowest port" ||
	ksft_fail "a lone QP takes the lowest port (got $got)"

# 3. An exact rule beats the path set; a device-scoped set beats a global one.
"$RP_CLI" pin add remote "$PEER_IP4" rqpn 4660 sport 60000
keep 2 -r 4660
got=$(qps | sort -k2n | awk '{ printf "%s:%s ", $2, $3 }')
rules=$(qps | sort -k2n | awk '{ printf "%s:%s ", $2, $6 }')
cli_json=$("$RP_CLI" -j qp show 2>&1)
cli_text=$("$RP_CLI" qp show 2>&1)
release
[ "$got" = "4660:60000 4661:50000 " ] &&
	ksft_pass "exact rqpn rule wins over the path set" ||
	ksft_fail "exact rqpn rule wins over the path set (got '$got')"
[ "$rules" = "4660:remote=$R4,rqpn=4660 4661:remote=$R4 " ] &&
	ksft_pass "qp-get names the exact rule (remote, rqpn) and the path set" ||
	ksft_fail "qp-get names the exact rule (remote, rqpn) and the path set (got '$rules')"
py -c '
import json, sys
want = {4660: {"dev": None, "remote": sys.argv[1], "rqpn": 4660, "lqpn": None},
        4661: {"dev": None, "remote": sys.argv[1], "rqpn": None, "lqpn": None}}
got = {q["rqpn"]: q["rule"] for q in json.loads(sys.argv[2])}
sys.exit(got != want)' "$PEER_IP4" "$cli_json" &&
	ksft_pass "rocepath -j qp show: rule objects of the exact rule and the path set" ||
	ksft_fail "rocepath -j qp show: rule objects of the exact rule and the path set ($cli_json)"
echo "$cli_text" | grep -q "rqpn 4660 .* rule remote $PEER_IP4 rqpn 4660\$" &&
	echo "$cli_text" | grep -q "rqpn 4661 .* rule remote $PEER_IP4\$" &&
	ksft_pass "rocepath qp show: the line ends with the rule as pin add takes it" ||
	ksft_fail "rocepath qp show: the line ends with the rule as pin add takes it ($cli_text)"
"$RP_CLI" pin add remote "$PEER_IP4" dev "$IBDEV" sport 55555
keep 1 -r 9999
got=$(qps | awk '{ print $3 }')
rules=$(qps | awk '{ print $6 }')
release
[ "$got" = 55555 ] && ksft_pass "device-scoped path set wins over the global one" ||
	ksft_fail "device-scoped path set wins over the global one (got $got)"
[ "$rules" = "ibdev=$IBDEV,remote=$R4" ] &&
	ksft_pass "qp-get names the device-scoped rule (ibdev, remote)" ||
	ksft_fail "qp-get names the device-scoped rule (ibdev, remote) (got '$rules')"

# 4. No rule: listed unpinned, on the default port.
"$RP_CLI" pin flush
keep 1
got=$(qps | awk '{ print $4, ($3 == $5), $6 }')
release
[ "$got" = "0 1 -" ] &&
	ksft_pass "without a rule a QP is unpinned, with no rule, on its default port" ||
	ksft_fail "without a rule a QP is unpinned, with no rule, on its default port (got '$got')"

# 5. 10,000 create/modify/destroy cycles leave nothing behind.
"$RP_CLI" pin add remote "$PEER_IP4" sport 50000,50001
seen0=$(stat qps-pinned)
out=$("$CHURN" -d "$IBDEV" -g "$GIDX" -a "$PEER_IP4" -n 10000 2>&1)
log "$out"
seen1=$(stat qps-pinned)
left=$(stat qps)
[ "$((seen1 - seen0))" = 10000 ] && ksft_pass "10,000 cycles: 10,000 QPs pinned" ||
	ksft_fail "10,000 cycles: 10,000 QPs pinned (got $((seen1 - seen0)))"
[ "$left" = 0 ] && ksft_pass "10,000 cycles: no stale QP entry" ||
	ksft_fail "10,000 cycles: no stale QP entry ($left left)"
out=$(pin_qps)
echo "$out" | grep -q " \[0, 0\]$" &&
	ksft_pass "10,000 cycles: per-port counts back to 0" ||
	ksft_fail "10,000 cycles: per-port counts back to 0 ($out)"

# 6. A modify the driver rejects (path MTU above the port's maximum), after
# the hook pinned the QP, is rolled back. pin_qp_churn -f -k: a rejected
# INIT->RTR, a pause, the valid RTR, then a rejected re-modify (another
# rqpn), which must put the QP's entry back as it was.
rb0=$(stat qps-rolled-back)
python3 selftests/pin_ynl.py monitor 300 >"$RUN_DIR/monitor.out" 2>&1 &
mon=$!
retry 120 0.5 grep -q READY "$RUN_DIR/monitor.out"
rm -f "$FIFO"
mkfifo "$FIFO"
"$CHURN" -d "$IBDEV" -g "$GIDX" -a "$PEER_IP4" -n 1 -k -f \
	<"$FIFO" >"$RUN_DIR/keep.out" 2>&1 &
KEEP_PID=$!
exec 7>"$FIFO"
if retry 60 0.5 grep -q "^rtr-fail 0 " "$RUN_DIR/keep.out"; then
	ksft_pass "an RTR with a path MTU above the port's maximum fails in the driver"
else
	sed 's/^/# /' "$RUN_DIR/keep.out"
	ksft_fail "an RTR with a path MTU above the port's maximum fails in the driver"
fi
got=$(qps | wc -l)
[ "$got" = 0 ] && ksft_pass "a failed RTR leaves no entry in qp-get" ||
	ksft_fail "a failed RTR leaves no entry in qp-get ($(qps))"
out=$(pin_qps)
echo "$out" | grep -q " \[0, 0\]$" &&
	ksft_pass "a failed RTR leaves no live-QP count on its port" ||
	ksft_fail "a failed RTR leaves no live-QP count on its port ($out)"
rb1=$(stat qps-rolled-back)
[ "$((rb1 - rb0))" = 1 ] && ksft_pass "a failed RTR counts in qps-rolled-back" ||
	ksft_fail "a failed RTR counts in qps-rolled-back (got $((rb1 - rb0)))"
resume
retry 60 0.5 grep -q "^qp 0 " "$RUN_DIR/keep.out"
grep -q "^re-rtr-fail 0 " "$RUN_DIR/keep.out" ||
	{ sed 's/^/# /' "$RUN_DIR/keep.out"; log "the re-modify did not fail"; }
got=$(qps | awk '{ print $2, $3, $4, $6 }')
[ "$got" = "4660 50000 1 remote=$R4" ] &&
	ksft_pass "a valid RTR after a failed one pins normally; a failed re-modify keeps it" ||
	ksft_fail "a valid RTR after a failed one pins normally; a failed re-modify keeps it (got '$got')"
out=$(pin_qps)
rb2=$(stat qps-rolled-back)
echo "$out" | grep -q " \[1, 0\]$" && [ "$((rb2 - rb0))" = 2 ] &&
	ksft_pass "a failed re-modify is rolled back with its port count" ||
	ksft_fail "a failed re-modify is rolled back with its port count ($((rb2 - rb0)) rollbacks, $out)"
release
retry 60 0.5 ntfs_ge 2
sleep 1
kill $mon 2>/dev/null
wait $mon 2>/dev/null
got=$(sed -n 's/^NTF \(qp-[a-z]*\)-ntf.*/\1/p' "$RUN_DIR/monitor.out" | tr '\n' ' ')
[ "$got" = "qp-add qp-del " ] &&
	ksft_pass "monitor: rejected modifies announce nothing; the accepted RTR and the destroy do" ||
	ksft_fail "monitor: rejected modifies announce nothing; the accepted RTR and the destroy do (got '$got')"
[ "$(stat qps)" = 0 ] && ksft_pass "rolled-back QPs leave nothing behind" ||
	ksft_fail "rolled-back QPs leave nothing behind ($(stat qps) left)"

# 7. 1,000 cycles of rejected RTR, RTR, rejected re-modify, destroy.
rb0=$(stat qps-rolled-back)
fails=$("$CHURN" -d "$IBDEV" -g "$GIDX" -a "$PEER_IP4" -n 1000 -f 2>&1 | grep -c "fail .*(expected)$")
rb1=$(stat qps-rolled-back)
left=$(stat qps)
out=$(pin_qps)
[ "$fails" = 2000 ] && [ "$((rb1 - rb0))" = 2000 ] && [ "$left" = 0 ] &&
	echo "$out" | grep -q " \[0, 0\]$" &&
	ksft_pass "1,000 cycles with 2,000 rejected modifies: all rolled back, nothing left" ||
	ksft_fail "1,000 cycles with 2,000 rejected modifies: all rolled back, nothing left ($fails failed, $((rb1 - rb0)) rolled back, $left left, $out)"
[ "$(stat probe-missed)" = 0 ] && ksft_pass "no modify or destroy went unwatched (probe-missed 0)" ||
	ksft_fail "no modify or destroy went unwatched (probe-missed $(stat probe-missed))"

ksft_exit
