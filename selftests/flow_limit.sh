#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the flow table is bounded: loaded with max_flows=4, twenty RoCEv2
# flows (ib_write_bw with twenty QPs) leave at most four records, the
# evictions are counted, and idle flows age out once flow_idle_secs is set
# to 1. The flows are real QPs: datagrams a local process sends to 4791
# make no records (flow_forged.sh), and rx-only records evict nothing.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flow_lib.sh"

require_cmd jq ib_write_bw

rp_load_both max_flows=4 flow_idle_secs=0 || ksft_skip_all "cannot load $ROCEPATH_KO"

stats() {
	on_host 1 "$YNL_CMD --do stats-get --output-json" |
		jq -c '.stats'
}

bounded() {
	local st flows
	# on failure, all but the 20 QPs' address lines: the error comes first
	rdma_write_bw -q 20 -n 20 >"$RUN_DIR/flow_limit.bw" 2>&1 ||
		{ grep -v -e 'address' -e 'GID:' "$RUN_DIR/flow_limit.bw"; return 1; }
	st=$(stats)
	flows=$(flows_json 1 | jq length)
	log "stats: $st; flows dumped: $flows"
	[ "$flows" -le 4 ] && [ "$flows" -ge 1 ] &&
	jq -e '.flows <= 4 and ."flows-max" == 4 and ."flow-evictions" >= 16' <<<"$st" >/dev/null
}
ksft_test "max_flows=4: ib_write_bw -q 20 leaves <= 4 records, >= 16 evictions" bounded

aged() {
	local n
	n=$(flows_json 1 | jq length)
	[ "$n" = 0 ] || { echo "$n flows left"; return 1; }
}
on_host 1 "echo 1 > /sys/module/rocepath/parameters/flow_idle_secs"
ksft_test "idle flows age out (flow_idle_secs=1)" retry 30 1 aged
ksft_exit
