# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the flow_*.sh and dcqcn_*.sh selftests (sourced after lib.sh).
#
#   flow_load                 insmod rocepath.ko on both guests (rmmod at exit)
#   ynl ARGS...               the kernel's YNL CLI on the rocepath spec
#   flows_json N              flow-get dump of guest N as a JSON array of flows
#   dcqcn_set N DEV JSON      dcqcn-set on guest N, JSON = {"np-enable": 1, ...}
#   flow_sum N FILTER FIELD   sum of FIELD over flows of guest N matching
#                             the jq FILTER (e.g. '.remote == "c0000202"')
#   hexip ADDR                an address as the dump prints it (hex bytes)

# Development override: FLOW_KO_DIR/<release>/rocepath.ko instead of the
# harness's $ROCEPATH_KO.
: "${FLOW_KO:=$ROCEPATH_KO}"

YNL_CLI=$ROCEPATH_TOP/.cache/linux-src/tools/net/ynl/cli.py
YNL_SPEC=$ROCEPATH_TOP/Documentation/netlink/specs/rocepath.yaml

ynl() {
	python3 "$YNL_CLI" --spec "$YNL_SPEC" --no-schema "$@"
}

flow_unload() {
	on_host 1 'rmmod rocepath 2>/dev/null; true'
	on_host 2 'rmmod rocepath 2>/dev/null; true'
}

flow_load() {
	local params=$*

	[ -f "$FLOW_KO" ] || ksft_skip_all "rocepath.ko not built for $(uname -r) ($FLOW_KO)"
	flow_unload >/dev/null
	defer flow_unload
	on_host 1 "insmod $FLOW_KO $params" || return 1
	on_host 2 "insmod $FLOW_KO $params" || return 1
}

# flows_json N: JSON array of the flow objects of guest N
flows_json() {
	on_host "$1" "python3 $YNL_CLI --spec $YNL_SPEC --no-schema --dump flow-get --output-json" |
		jq -c '[.[] | .flow]'
}

dcqcn_json() {
	on_host "$1" "python3 $YNL_CLI --spec $YNL_SPEC --no-schema --dump dcqcn-get --output-json" |
		jq -c '[.[] | .dcqcn]'
}

dcqcn_set() {
	local n=$1 dev=$2 json=$3
	json=$(jq -c --arg d "$dev" '{dcqcn: ({ibdev: $d} + .)}' <<<"$json")
	on_host "$n" "python3 $YNL_CLI --spec $YNL_SPEC --no-schema --do dcqcn-set --json '$json'"
}

hexip() {
	python3 -c 'import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]).packed.hex())' "$1"
}

# flow_sum N FILTER FIELD
flow_sum() {
	flows_json "$1" | jq "[.[] | select($2) | .$3 // 0] | add // 0"
}

