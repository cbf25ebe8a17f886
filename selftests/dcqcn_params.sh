#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves dcqcn-get shows every rxe device with mlx5's published defaults,
# dcqcn-set changes only what it names, rejects out-of-range values with an
# extack naming the parameter (and changes nothing), answers ENODEV for an
# unknown device and EPERM to an unprivileged user, and flags rp_enable
# without fq on every transmit queue (an mq root over fq is fine).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flow_lib.sh"

require_cmd jq python3 tc setpriv

rp_load_both || ksft_skip_all "cannot load $ROCEPATH_KO"

param() {
	dcqcn_json 1 | jq -r --arg d "$IBDEV" --arg p "$1" '.[] | select(.ibdev == $d) | .[$p]'
}

defaults_ok() {
	local want='{"np-enable":0,"rp-enable":0,"rp-ai-rate":5,"rp-hai-rate":50,
		"rp-time-reset":300,"rp-byte-reset":32767,"rp-threshold":1,"rp-gd":11,
		"rp-min-dec-fac":50,"rp-min-rate":1,"rp-dce-tcp-g":1019,"rp-dce-tcp-rtt":1,
		"rp-rate-reduce-monitor-period":4,"rp-initial-alpha-value":1023,
		"np-min-time-between-cnps":4,"np-cnp-dscp":48,"np-cnp-prio":6,"soft":1}'
	dcqcn_json 1 | jq -e --arg d "$IBDEV" --argjson w "$want" \
		'.[] | select(.ibdev == $d) | to_entries as $e | $w | to_entries |
		 all(.value == ($e | from_entries)[.key])'
}
ksft_test "dcqcn-get shows $IBDEV with the published defaults" defaults_ok

set_ok() {
	dcqcn_set 1 "$IBDEV" '{"rp-ai-rate": 10, "np-cnp-dscp": 26}' &&
	[ "$(param rp-ai-rate)" = 10 ] && [ "$(param np-cnp-dscp)" = 26 ] &&
	[ "$(param rp-hai-rate)" = 50 ]
}
ksft_test "dcqcn-set changes the named parameters only" set_ok

# The ranges are the spec's (checks: min/max), enforced by the generated
# policy: the extack carries the policy's message, the offending attribute
# and the policy itself with its range.
rejected() {
	local json=$1 attr=$2 min=$3 max=$4 out
	out=$(dcqcn_set 1 "$IBDEV" "$json" 2>&1) && { echo "accepted: $json"; return 1; }
	echo "$out" | tail -3
	echo "$out" | grep -q "out of range" || return 1
	echo "$out" | grep -q "'bad-attr': '.dcqcn.$attr'" || return 1
	echo "$out" | grep -q "'min-value': $min, 'max-value': $max" || return 1
	[ "$(param rp-ai-rate)" = 10 ]
}
ksft_test "rp_min_dec_fac 101 rejected by the policy" rejected \
	'{"rp-ai-rate": 11, "rp-min-dec-fac": 101}' rp-min-dec-fac 1 100
ksft_test "np_cnp_dscp 64 rejected by the policy" rejected '{"np-cnp-dscp": 64}' np-cnp-dscp 0 63
ksft_test "rp_enable 2 rejected by the policy" rejected '{"rp-enable": 2}' rp-enable 0 1
ksft_test "rp_initial_alpha_value 1024 rejected by the policy" rejected \
	'{"rp-initial-alpha-value": 1024}' rp-initial-alpha-value 0 1023
ksft_test "rp_time_reset 0 rejected by the policy" rejected \
	'{"rp-time-reset": 0}' rp-time-reset 1 131071

min_over_max() {
	local out
	out=$(dcqcn_set 1 "$IBDEV" '{"rp-max-rate": 100, "rp-min-rate": 200}' 2>&1) && return 1
	echo "$out" | tail -2
	echo "$out" | grep -q "rp_min_rate above rp_max_rate" &&
		echo "$out" | grep -q "'bad-attr': '.dcqcn.rp-min-rate'" &&
		[ "$(param rp-max-rate)" = 0 ]
}
ksft_test "rp_min_rate above rp_max_rate rejected, naming rp-min-rate" min_over_max

output_only() {
	local out
	out=$(dcqcn_set 1 "$IBDEV" '{"fq-missing": 0}' 2>&1) && return 1
	echo "$out" | tail -2
	echo "$out" | grep -q "output only"
}
ksft_test "dcqcn-set with fq-missing (output only) rejected" output_only

nodev() {
	local out
	out=$(dcqcn_set 1 nosuchdev0 '{"rp-ai-rate": 5}' 2>&1) && return 1
	echo "$out" | tail -2
	echo "$out" | grep -q "no such rdma device" && echo "$out" | grep -qi "no such device\|ENODEV\|-19"
}
ksft_test "unknown device: ENODEV with extack" nodev

YNL_NOBODY=$(ynl_unpriv 1) || { log "staging YNL for uid 65534 failed"; YNL_NOBODY=false; }

eperm() {
	local out
	out=$(on_host 1 "$YNL_NOBODY --do dcqcn-set --json '{\"dcqcn\": {\"ibdev\": \"$IBDEV\", \"rp-ai-rate\": 7}}'" 2>&1) && return 1
	echo "$out" | tail -2
	echo "$out" | grep -qi "not permitted\|EPERM\|-1\b" && [ "$(param rp-ai-rate)" = 10 ]
}
ksft_test "unprivileged dcqcn-set: EPERM" eperm

unpriv_read() {
	on_host 1 "$YNL_NOBODY --dump dcqcn-get" >/dev/null
}
ksft_test "unprivileged dcqcn-get allowed" unpriv_read

fq_flag() {
	on_host 1 "tc qdisc del dev $NETDEV root 2>/dev/null; true"
	dcqcn_set 1 "$IBDEV" '{"rp-enable": 1}' || return 1
	[ "$(param fq-missing)" = 1 ] || { echo "fq-missing not set without fq"; return 1; }
	on_host 1 "dmesg | grep -q 'rp_enable set but $NETDEV has no fq'" ||
		{ echo "no warning in dmesg"; return 1; }
	on_host 1 "tc qdisc replace dev $NETDEV root fq" || return 1
	[ "$(param fq-missing)" = 0 ] || { echo "fq-missing set with fq"; return 1; }
	on_host 1 "tc qdisc del dev $NETDEV root"
	dcqcn_set 1 "$IBDEV" '{"rp-enable": 0}'
}
ksft_test "rp_enable without fq root qdisc is flagged and warned" fq_flag

# A multi-queue device's mq root gives each queue its own qdisc: fq on every
# queue is what paces, whatever the root is (an rxe on a 4-queue veth).
mq_missing() {
	dcqcn_json 1 | jq -r '.[] | select(.ibdev == "rpmq") | ."fq-missing"'
}
fq_mq() {
	on_host 1 "ip link add rpmq0 numtxqueues 4 numrxqueues 4 type veth peer name rpmq1 &&
		ip addr add 203.0.113.1/24 dev rpmq0 && ip link set rpmq0 up && ip link set rpmq1 up &&
		rdma link add rpmq type rxe netdev rpmq0" || return 4
	dcqcn_set 1 rpmq '{"rp-enable": 1}' >/dev/null || return 1
	on_host 1 "tc qdisc replace dev rpmq0 root handle 1: mq &&
		for i in 1 2 3 4; do tc qdisc replace dev rpmq0 parent 1:\$i fq || exit 1; done" || return 1
	[ "$(mq_missing)" = 0 ] || { echo "fq-missing $(mq_missing) with mq over fq"; return 1; }
	on_host 1 "tc qdisc replace dev rpmq0 parent 1:3 pfifo" || return 1
	[ "$(mq_missing)" = 1 ] || { echo "fq-missing $(mq_missing) with one queue on pfifo"; return 1; }
}
fq_mq_cleanup() {
	on_host 1 "rdma link del rpmq; ip link del rpmq0" >/dev/null 2>&1
}
command -v rdma >/dev/null && ksft_test "mq root over fq on every queue is not flagged, one pfifo child is" fq_mq
fq_mq_cleanup

cli_ok() {
	local out
	[ -x "$RP_CLI" ] || { echo "rocepath not built ($RP_CLI): make -C daemon"; return 4; }
	out=$("$RP_CLI" -j dcqcn show dev "$IBDEV" 2>&1) || { echo "$out"; return 1; }
	echo "$out" | jq -e '.[0].rp_ai_rate == 10 and .[0].np_enable == 0' >/dev/null || { echo "$out"; return 1; }
	out=$("$RP_CLI" dcqcn set dev "$IBDEV" rp_min_dec_fac 0 2>&1) && return 1
	echo "$out"
	echo "$out" | grep -q "Error: .*rp_min_dec_fac out of range"
}
ksft_test "rocepath CLI: dcqcn show / set rejection" cli_ok
ksft_exit
