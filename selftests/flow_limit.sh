#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the flow table is bounded: loaded with max_flows=4, twenty RoCEv2
# flows (UDP to port 4791 from twenty source ports) leave at most four
# records, the evictions are counted, and idle flows age out
# once flow_idle_secs is set to 1.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flow_lib.sh"

require_cmd jq python3

rp_load_both max_flows=4 flow_idle_secs=0 || ksft_skip_all "cannot load $ROCEPATH_KO"

stats() {
	on_host 1 "$YNL_CMD --do stats-get --output-json" |
		jq -c '.stats'
}

# a BTH (SEND_ONLY to QP n) and an ICRC-sized tail: enough for the hooks
send_flows() {
	python3 - "$PEER_IP4" <<-'PYEOF'
	import socket, struct, sys
	for i in range(20):
	    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	    s.bind(("", 50000 + i))
	    bth = struct.pack(">BBHII", 0x04, 0, 0xffff, 0x100 + i, 0)
	    s.sendto(bth + bytes(4), (sys.argv[1], 4791))
	    s.close()
	PYEOF
}

bounded() {
	local st flows
	send_flows || return 1
	st=$(stats)
	flows=$(flows_json 1 | jq length)
	log "stats: $st; flows dumped: $flows"
	[ "$flows" -le 4 ] && [ "$flows" -ge 1 ] &&
	jq -e '.flows <= 4 and ."flows-max" == 4 and ."flow-evictions" >= 16' <<<"$st" >/dev/null
}
ksft_test "max_flows=4: 20 flows leave <= 4 records, >= 16 evictions" bounded

aged() {
	local n
	n=$(flows_json 1 | jq length)
	[ "$n" = 0 ] || { echo "$n flows left"; return 1; }
}
on_host 1 "echo 1 > /sys/module/rocepath/parameters/flow_idle_secs"
ksft_test "idle flows age out (flow_idle_secs=1)" retry 30 1 aged
ksft_exit
