#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's generic YNL tooling drives the rocepath family from its spec
# alone: cli.py adds, dumps and deletes a pin; the YNL library then checks
# devices, replace transactions over several messages, monitor
# notifications, CAP_NET_ADMIN (EPERM for an unprivileged user) and every
# documented rejection with its errno and extack message.

source "$(dirname "$0")/lib.sh"

require_module
require_ynl
require_cmd setpriv jq

R4=$(ip_hex "$PEER_IP4")

rp_load 1 || ksft_skip_all "cannot load $ROCEPATH_KO"
defer rp_unload 1

# run_py CMD...: turn pin_ynl.py's PASS/FAIL lines into TAP results.
run_py() {
	local st rest out rc

	out=$(mktemp)
	"$@" >"$out" 2>&1
	rc=$?
	while read -r st rest; do
		case $st in
		PASS) ksft_pass "$rest" ;;
		FAIL) ksft_fail "$rest" ;;
		*) echo "# $st $rest" ;;
		esac
	done <"$out"
	# A run that dies before its first result (an import error) must not
	# vanish from the count.
	grep -q "^# counts " "$out" || ksft_fail "$*: exited with $rc before reporting"
	rm -f "$out"
}

# 1. cli.py: devices, then add, dump and delete a pin.
out=$(ynl --dump dev-get 2>&1)
log "$(echo "$out" | head -c 400)"
echo "$out" | grep -q "'ibdev': '$IBDEV'" && echo "$out" | grep -q "'roce-v2': 1" &&
	ksft_pass "cli.py dev-get dumps $IBDEV with RoCEv2 GIDs" ||
	ksft_fail "cli.py dev-get dumps $IBDEV with RoCEv2 GIDs"
ksft_test "cli.py pin-add of an IPv4 path set" \
	ynl --do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"sport\": [50001, 50000, 50000]}}"
out=$(ynl --dump pin-get 2>&1)
log "$out"
echo "$out" | grep -q "'sport': \[50000, 50001\]" && echo "$out" | grep -q "'sport-qps': \[0, 0\]" &&
	ksft_pass "cli.py pin-get shows it (ports sorted, duplicate merged)" ||
	ksft_fail "cli.py pin-get shows it"
ksft_test "cli.py pin-del of the rule" \
	ynl --do pin-del --json "{\"pin\": {\"remote\": \"$R4\"}}"
out=$(ynl --dump pin-get 2>&1)
[ "$out" = "[]" ] && ksft_pass "cli.py pin-get is empty again" ||
	ksft_fail "cli.py pin-get is empty again ($out)"
ynl --do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"sport\": [50000]}}" >/dev/null

# 2. The rest through the YNL library (one process: fast under TCG).
run_py python3 selftests/pin_ynl.py main "$PEER_IP4" "$PEER_IP6" "$IBDEV"

# RDMA devices coming and going (an rxe on a local veth pair).
if command -v rdma >/dev/null; then
	run_py python3 selftests/pin_ynl.py devices "$PEER_IP4"
else
	ksft_skip "dev-add-ntf / dev-del-ntf: iproute2 rdma missing"
fi

# 3. Unprivileged: every change and pin-get are EPERM, other reads work.
ynl --do pin-add --json "{\"pin\": {\"remote\": \"$R4\", \"sport\": [50000]}}" >/dev/null
# Python opens its script by absolute path, so it is staged too.
YNL_PUB=$(ynl_stage 1 "$ROCEPATH_TOP/selftests/pin_ynl.py") || YNL_PUB=/nonexistent
YNL_DIR=$YNL_PUB YNL_SPEC=$YNL_PUB/${YNL_SPEC##*/} \
	run_py setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	--bounding-set=-all python3 "$YNL_PUB/pin_ynl.py" unpriv "$PEER_IP4"

# 4. Limits are module parameters.
rp_load 1 max_rules=2 max_sports=4
run_py python3 selftests/pin_ynl.py limits "$PEER_IP4" "$PEER_IP6"

# 5. Notifications the hook queues are bounded in bytes (max_ntf_bytes):
# with a 1-byte limit none fits, so a listener gets no qp-add-ntf for the
# QPs of a ping-pong and every one is counted in ntf-dropped.
rp_load 1 max_ntf_bytes=1
ntf_bound() {
	local mon pid st i
	mon=$(mktemp)
	python3 selftests/pin_ynl.py monitor 60 >"$mon" 2>&1 &
	pid=$!
	for i in $(seq 50); do grep -q READY "$mon" && break; sleep 0.2; done
	rdma_pingpong >/dev/null || echo "rc_pingpong failed"
	sleep 1
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	st=$(ynl --do stats-get --output-json)
	echo "$st" | jq -c '.stats | {"ntf-dropped", "ntf-queue-limit"}'
	grep -m3 NTF "$mon"
	if grep -q "NTF qp-add-ntf" "$mon"; then
		rm -f "$mon"
		return 1
	fi
	rm -f "$mon"
	echo "$st" | jq -e '.stats["ntf-queue-limit"] == 1 and .stats["ntf-dropped"] >= 1' >/dev/null
}
ksft_test "max_ntf_bytes=1: qp-add-ntf dropped and counted in ntf-dropped" ntf_bound

ksft_exit
