#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rocepathd on both guests with the bundled two-host example: each installs
# exactly its host's part of the plan and its DCQCN profile; the UDP source
# ports on the wire, captured at the peer, are the plan's ports for each
# direction; editing the placement re-pins new QPs; a broken placement keeps
# the last good plan installed and the daemon says why.
# What it tests is userspace, the same on every kernel: make check runs it
# on 6.12 only (pin_wire, pin_churn, pin_ynl and nl_fuzz test the module
# itself on 6.1 too); make check-all runs it on every kernel.
# rpvm-check-kernels: 6.12

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/daemon_lib.sh"

require_module
require_cmd ib_write_bw tcpdump python3 jq
require_rpd

defer rpd_save_logs
defer rpd_stop 1
defer rpd_stop 2

for n in 1 2; do
	rpd_setup $n || ksft_skip_all "cannot load $ROCEPATH_KO on h$n"
	rpd_start $n
done

# 1. Both daemons come up and install their part of the plan.
ok=1
for n in 1 2; do
	rpd_wait_log $n 'ready: ' || ok=0
done
[ $ok = 1 ] && ksft_pass "both daemons ready after the first push" ||
	ksft_fail "a daemon did not become ready"

# 2. Installed pins are exactly the host part of the plan.
check_pins() {
	local place=$1 n peer want got rc=0
	for n in 1 2; do
		peer=$((3 - n))
		want="192.0.2.$peer $(rpd_plan_ports h$n h$peer "$place" | paste -sd,)"
		got=$(rpd_pins $n)
		if [ "$got" != "$want" ]; then
			log "h$n pins: got '$got', plan says '$want'"
			rc=1
		fi
	done
	return $rc
}
ksft_test "pins on each host equal its part of \`rocepath plan\`" check_pins

# 3. DCQCN profile pushed to rxe0 on both.
check_dcqcn() {
	local n out
	for n in 1 2; do
		out=$(on_host $n "'$RP_CLI' -j dcqcn show dev '$IBDEV'")
		echo "$out" | py -c "
import json, sys
d = json.load(sys.stdin)[0]
sys.exit(0 if (d['rp_ai_rate'], d['np_enable'], d['rp_enable']) == (7, 1, 1) else 1)" ||
			{ log "h$n dcqcn: $out"; return 1; }
	done
}
ksft_test "DCQCN profile (np_enable 1, rp_enable 1, rp_ai_rate 7) pushed to $IBDEV" check_dcqcn

# 4. Ports on the wire, per direction, captured at the receiving peer.
wire_check() {
	local qps=$1 place=$2 rc=0 want12 want21 got12 got21
	want12=$(rpd_plan_ports h1 h2 "$place" | head -n "$qps" | paste -sd,)
	want21=$(rpd_plan_ports h2 h1 "$place" | head -n "$qps" | paste -sd,)
	rpd_capture_start 2 192.0.2.1 >/dev/null || return 1
	rpd_capture_start 1 192.0.2.2 >/dev/null || return 1
	rpd_traffic 2 1 "$qps" || rc=1
	got12=$(rpd_capture_ports 2 | paste -sd,)
	got21=$(rpd_capture_ports 1 | paste -sd,)
	log "h1->h2 on the wire: $got12 (plan: $want12)"
	log "h2->h1 on the wire: $got21 (plan: $want21)"
	[ -n "$got12" ] && [ "$got12" = "$want12" ] || rc=1
	[ -n "$got21" ] && [ "$got21" = "$want21" ] || rc=1
	return $rc
}
ksft_test "ib_write_bw -q 4: source ports on the wire = planned ports, both directions" \
	wire_check 4 "$RPD_EXAMPLE/placement.json"

# 5. Edit the placement (scheduler style: temp file + rename): 3 QPs per
# connection, which moves one port; new QPs follow the new plan.
rpd_placement_qps 3 "$RUN_DIR/placement-q3.json"
before1=$(rpd_log_count 1 'file change applied')
before2=$(rpd_log_count 2 'file change applied')
for n in 1 2; do
	on_host $n "cp '$RUN_DIR/placement-q3.json' $RPD_DIR/.placement.tmp &&
		mv $RPD_DIR/.placement.tmp $RPD_DIR/placement.json"
done
rpd_wait_log 1 'file change applied' $((before1 + 1)) &&
	rpd_wait_log 2 'file change applied' $((before2 + 1)) &&
	check_pins "$RUN_DIR/placement-q3.json"
if [ $? = 0 ]; then
	ksft_pass "placement edit: new plan installed on both hosts"
	on_host 1 "grep 'file change applied' $RPD_DIR/rocepathd.log | tail -n1" | sed 's/^/# h1: /'
else
	ksft_fail "placement edit: new plan not installed"
fi
ksft_test "after the edit, new QPs (ib_write_bw -q 3) leave on the new plan's ports" \
	wire_check 3 "$RUN_DIR/placement-q3.json"

# 6. A broken placement: logged, last good plan kept, daemon alive.
before=$(rpd_log_count 1 'plan failed, keeping the last good plan')
gen=$(rpd_generation 1)
on_host 1 "printf '{\"jobs\": [{\"id\": ' >$RPD_DIR/placement.json"
if rpd_wait_log 1 'plan failed, keeping the last good plan' $((before + 1)); then
	on_host 1 "grep 'plan failed' $RPD_DIR/rocepathd.log | tail -n1" | sed 's/^/# h1: /'
	sleep 1
	if rpd_running 1 && check_pins "$RUN_DIR/placement-q3.json" &&
	   [ "$(rpd_generation 1)" = "$gen" ]; then
		ksft_pass "broken placement: reason logged, last good pins kept untouched"
	else
		ksft_fail "broken placement: daemon died or pins changed"
	fi
else
	ksft_fail "broken placement: no error logged"
fi

# 7. A placement naming an unknown host: also rejected, pins kept.
on_host 1 "echo '{\"jobs\": [{\"id\": \"x\", \"pattern\": \"ring\", \"qps_per_connection\": 1,
	\"rails\": [0], \"hosts\": [\"h1\", \"h9\"]}]}' >$RPD_DIR/placement.json"
if rpd_wait_log 1 'plan failed, keeping the last good plan' $((before + 2)); then
	on_host 1 "grep 'plan failed' $RPD_DIR/rocepathd.log | tail -n1" | sed 's/^/# h1: /'
	check_pins "$RUN_DIR/placement-q3.json" &&
		ksft_pass "placement with an unknown host: rejected, pins kept" ||
		ksft_fail "placement with an unknown host changed the pins"
else
	ksft_fail "placement with an unknown host: no error logged"
fi

ksft_exit
