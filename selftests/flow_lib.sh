# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the flow_*.sh and dcqcn_*.sh selftests (sourced after lib.sh,
# which loads the module and runs YNL).
#
#   flows_json N              flow-get dump of guest N as a JSON array of flows
#   dcqcn_set N DEV JSON      dcqcn-set on guest N, JSON = {"np-enable": 1, ...}
#   flow_sum N FILTER FIELD   sum of FIELD over flows of guest N matching
#                             the jq FILTER (e.g. '.remote == "c0000202"')
#   ce_mark_on N / ce_mark_off N
#                             set CE on every RoCEv2 packet arriving at
#                             guest N (tc pedit on $NETDEV ingress) / stop

# flows_json N: JSON array of the flow objects of guest N
flows_json() {
	on_host "$1" "$YNL_CMD --dump flow-get --output-json" |
		jq -c '[.[] | .flow]'
}

dcqcn_json() {
	on_host "$1" "$YNL_CMD --dump dcqcn-get --output-json" |
		jq -c '[.[] | .dcqcn]'
}

dcqcn_set() {
	local n=$1 dev=$2 json=$3 out rc=0
	json=$(jq -c --arg d "$dev" '{dcqcn: ({ibdev: $d} + .)}' <<<"$json")
	out=$(on_host "$n" "$YNL_CMD --do dcqcn-set --json '$json'") || rc=$?
	# cli.py prints "None" for a do that has no reply: not worth a log line
	[ -z "$out" ] || [ "$out" = None ] || printf '%s\n' "$out"
	return "$rc"
}

# flow_sum N FILTER FIELD
flow_sum() {
	flows_json "$1" | jq "[.[] | select($2) | .$3 // 0] | add // 0"
}

# A switch would mark CE at a queue; here every RoCEv2 packet arriving at
# guest N is marked, so that its notification point answers each one.
ce_mark_on() {
	on_host "$1" "tc qdisc add dev $NETDEV clsact &&
		tc filter add dev $NETDEV ingress pref 10 protocol ip u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			action pedit ex munge ip tos set 3 pipe action csum ip"
}

ce_mark_off() {
	on_host "$1" "tc qdisc del dev $NETDEV clsact"
}
