#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's generic YNL CLI drives the rocepath family from its spec
# alone: devices, pin add/dump/del/flush, a multi-message replace
# transaction, stats, monitor notifications, CAP_NET_ADMIN, and every
# documented rejection with its errno and extack message.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/pin_lib.sh"

require_module
require_ynl
require_cmd setpriv

R4=$(ip_hex "$PEER_IP4")
R6=$(ip_hex "$PEER_IP6")

rp_load 1 || ksft_skip_all "cannot load $ROCEPATH_KO"
defer rp_unload 1

# expect_err ERRNO_TEXT EXTACK_TEXT YNL_ARGS...: the request fails with that
# error code and extack message.
expect_err() {
	local code=$1 msg=$2 out
	shift 2
	out=$(ynl "$@" 2>&1) && { log "unexpected success: $out"; return 1; }
	echo "$out" | grep -q -- "'error': $code" ||
		{ log "want error $code: $out"; return 1; }
	echo "$out" | grep -qi -- "$msg" ||
		{ log "want extack '$msg': $out"; return 1; }
}

# 1. Devices.
out=$(ynl --dump dev-get 2>&1)
log "$(echo "$out" | head -c 600)"
echo "$out" | grep -q "'ibdev': '$IBDEV'" && echo "$out" | grep -q "'roce-v2': 1" &&
	ksft_pass "dev-get dumps $IBDEV with RoCEv2 GIDs" ||
	ksft_fail "dev-get dumps $IBDEV with RoCEv2 GIDs"
out=$(ynl --dump dev-get --json '{"ibdev": "nosuchdev"}' 2>&1)
[ "$out" = "[]" ] && ksft_pass "dev-get filters by ibdev" ||
	ksft_fail "dev-get filters by ibdev ($out)"

# 2. Add, dump, delete.
ksft_test "pin-add an IPv4 path set" \
	ynl --do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"sport\": [50001, 50000, 50000]}}"
ksft_test "pin-add an IPv6 rule scoped to $IBDEV with rqpn" \
	ynl --do pin-add --json "{\"pin\": {\"remote\": \"$R6\", \"ibdev\": \"$IBDEV\", \"rqpn\": 17, \"sport\": [60000]}}"
out=$(ynl --dump pin-get 2>&1)
log "$out"
echo "$out" | grep -q "'remote': b'\\\\xc0\\\\x00\\\\x02\\\\x0[0-9]'\|'sport': \[50000, 50001\]" &&
	echo "$out" | grep -q "'sport': \[50000, 50001\]" &&
	echo "$out" | grep -q "'ibdev': '$IBDEV'" && echo "$out" | grep -q "'rqpn': 17" &&
	ksft_pass "pin-get shows both rules (ports sorted, duplicates merged)" ||
	ksft_fail "pin-get shows both rules"
ksft_test "pin-del the IPv6 rule by key" \
	ynl --do pin-del --json "{\"pin\": {\"remote\": \"$R6\", \"ibdev\": \"$IBDEV\", \"rqpn\": 17}}"
n=$(ynl --dump pin-get 2>&1 | grep -o "'pin'" | wc -l)
[ "$n" = 1 ] && ksft_pass "one rule left after pin-del" || ksft_fail "one rule left after pin-del (got $n)"

# 3. Rejections.
ksft_test "duplicate rule: EEXIST" expect_err -17 "exists" \
	--do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"sport\": [50002]}}"
ksft_test "port below 49152: ERANGE from the policy" expect_err -34 "range" \
	--do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"rqpn\": 1, \"sport\": [1000]}}"
ksft_test "remote of 5 bytes: EINVAL" expect_err -22 "4 (IPv4) or 16" \
	--do pin-add --json '{"pin": {"remote": "c000020201", "sport": [50000]}}'
ksft_test "remote of 3 bytes: EINVAL from the policy" expect_err -22 "" \
	--do pin-add --json '{"pin": {"remote": "c00002", "sport": [50000]}}'
ksft_test "unknown device: ENODEV" expect_err -19 "unknown RDMA device" \
	--do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"ibdev\": \"nosuchdev\", \"sport\": [50000]}}"
ksft_test "empty path set: EINVAL" expect_err -22 "path set is empty" \
	--do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"rqpn\": 2}}"
many=$(seq -s, 50000 50064)
ksft_test "65 ports with max_sports=64: E2BIG" expect_err -7 "max_sports" \
	--do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"rqpn\": 3, \"sport\": [$many]}}"
ksft_test "delete a missing rule: ENOENT" expect_err -2 "no pin rule" \
	--do pin-del --json "{\"pin\": {\"remote\": \"$R4\", \"rqpn\": 99}}"
ksft_test "QPN above 2^24-1: ERANGE from the policy" expect_err -34 "range" \
	--do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"rqpn\": 16777216, \"sport\": [50000]}}"
ksft_test "replace without begin: EINVAL" expect_err -22 "send begin first" \
	--do pin-replace --json "{\"replace-flags\": 2}"
ksft_test "replace commit on a stale generation: ESTALE" expect_err -116 "changed since" \
	--do pin-replace --json "{\"replace-flags\": 3, \"generation\": 123456}"
ksft_test "pin-add without a pin: EINVAL" expect_err -22 "missing" \
	--do pin-add --json '{}'

# 4. Unprivileged: changes get EPERM, dumps still work.
unpriv() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all $YNL "$@"
}
out=$(unpriv --do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"rqpn\": 5, \"sport\": [50000]}}" 2>&1)
echo "$out" | grep -q "'error': -1\b" && ksft_pass "unprivileged pin-add: EPERM" ||
	ksft_fail "unprivileged pin-add: EPERM ($out)"
for op in pin-flush; do
	out=$(unpriv --do $op 2>&1)
	echo "$out" | grep -q "'error': -1\b" && ksft_pass "unprivileged $op: EPERM" ||
		ksft_fail "unprivileged $op: EPERM ($out)"
done
out=$(unpriv --do pin-replace --json '{"replace-flags": 3}' 2>&1)
echo "$out" | grep -q "'error': -1\b" && ksft_pass "unprivileged pin-replace: EPERM" ||
	ksft_fail "unprivileged pin-replace: EPERM ($out)"
out=$(unpriv --dump pin-get 2>&1)
echo "$out" | grep -q "'pin'" && ksft_pass "unprivileged pin-get dump works" ||
	ksft_fail "unprivileged pin-get dump works ($out)"

# 5. Replace transaction over several messages of one socket.
gen0=$(ynl --do stats-get | python3 -c 'import ast,sys; print(ast.literal_eval(sys.stdin.read())["stats"]["generation"])')
out=$(ynl --multi pin-replace "{\"replace-flags\": 1, \"pin\": [{\"remote\": \"$R4\", \"sport\": [51000]}]}" \
	  --multi pin-replace "{\"pin\": [{\"remote\": \"$R6\", \"sport\": [51001, 51002]}]}" \
	  --multi pin-replace "{\"replace-flags\": 2, \"generation\": $gen0}" 2>&1)
log "$out"
out=$(ynl --dump pin-get 2>&1)
echo "$out" | grep -q "'sport': \[51000\]" && echo "$out" | grep -q "'sport': \[51001, 51002\]" &&
	! echo "$out" | grep -q "50000" &&
	ksft_pass "begin / pins / commit in three messages replaces the set" ||
	ksft_fail "begin / pins / commit in three messages replaces the set ($out)"
# A staging set dies with its socket: commit from a new socket finds none.
ynl --do pin-replace --json "{\"replace-flags\": 1, \"pin\": [{\"remote\": \"$R4\", \"sport\": [52000]}]}" >/dev/null 2>&1
ksft_test "staging set dropped when its socket closes" expect_err -22 "send begin first" \
	--do pin-replace --json "{\"replace-flags\": 2}"

# 6. Monitor notifications.
ynl --subscribe monitor --sleep 4 >"$RUN_DIR/monitor.txt" 2>&1 &
mon=$!
sleep 2
ynl --do pin-flush >/dev/null
wait $mon
grep -q "pins-replaced-ntf" "$RUN_DIR/monitor.txt" &&
	ksft_pass "monitor group carries pins-replaced-ntf" ||
	ksft_fail "monitor group carries pins-replaced-ntf ($(cat "$RUN_DIR/monitor.txt"))"

# 7. Stats carry the limits; ENOSPC at max_rules.
out=$(ynl --do stats-get 2>&1)
log "$out"
echo "$out" | grep -q "'rules-max': 131072" && echo "$out" | grep -q "'qps-max': 65536" &&
	echo "$out" | grep -q "'sports-max': 64" &&
	ksft_pass "stats-get reports the limits" || ksft_fail "stats-get reports the limits"
rp_load 1 max_rules=2 max_sports=4
ynl --do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"sport\": [50000]}}" >/dev/null
ynl --do pin-add --json "{\"pin\": {\"remote\": \"$R6\", \"sport\": [50000]}}" >/dev/null
ksft_test "third rule with max_rules=2: ENOSPC" expect_err -28 "full" \
	--do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"rqpn\": 7, \"sport\": [50000]}}"
ksft_test "5 ports with max_sports=4: E2BIG" expect_err -7 "max_sports" \
	--do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"rqpn\": 8, \"sport\": [50000, 50001, 50002, 50003, 50004]}}"

ksft_exit
