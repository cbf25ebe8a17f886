# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the flow_*.sh and dcqcn_*.sh selftests (sourced after lib.sh,
# which loads the module and runs YNL).
#
#   flows_json N              flow-get dump of guest N as a JSON array of flows
#   dcqcn_set N DEV JSON      dcqcn-set on guest N, JSON = {"np-enable": 1, ...}
#   flow_sum N FILTER FIELD   sum of FIELD over flows of guest N matching
#                             the jq FILTER (e.g. '.remote == "c0000202"')

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
	local n=$1 dev=$2 json=$3
	json=$(jq -c --arg d "$dev" '{dcqcn: ({ibdev: $d} + .)}' <<<"$json")
	on_host "$n" "$YNL_CMD --do dcqcn-set --json '$json'"
}

# flow_sum N FILTER FIELD
flow_sum() {
	flows_json "$1" | jq "[.[] | select($2) | .$3 // 0] | add // 0"
}

