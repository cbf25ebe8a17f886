#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rocepathd recovers by itself: SIGTERM leaves the pins installed and a
# restart reconciles them without a gap (no replace: the generation does not
# move); pins changed behind its back are put back; a module reload is
# followed by a re-push of pins and DCQCN; a re-created RDMA device gets
# its DCQCN profile; link down/up of the RoCE netdev is followed.
# What it tests is userspace, the same on every kernel: make check runs it
# on 6.12 only (pin_wire, pin_churn, pin_ynl and nl_fuzz test the module
# itself on 6.1 too); make check-all runs it on every kernel.
# rpvm-check-kernels: 6.12

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/daemon_lib.sh"

require_module
require_cmd python3 rdma
require_rpd

defer rpd_save_logs
defer rpd_stop 1

rpd_setup 1 || ksft_skip_all "cannot load $ROCEPATH_KO"
rpd_start 1
want="192.0.2.2 $(rpd_plan_ports h1 h2 | paste -sd,)"
pins_ok() {
	local got
	got=$(rpd_pins 1)
	[ "$got" = "$want" ] || { log "pins: got '$got', want '$want'"; return 1; }
}
dcqcn_ai() {
	on_host 1 "'$RP_CLI' -j dcqcn show dev '$IBDEV'" |
		py -c "import json, sys; print(json.load(sys.stdin)[0]['rp_ai_rate'])"
}

if rpd_wait_log 1 'ready: ' && pins_ok; then
	ksft_pass "daemon ready with the plan installed"
else
	ksft_fail "daemon not ready"
fi

# 1. SIGTERM: clean exit, pins stay.
gen=$(rpd_generation 1)
if rpd_stop 1 TERM && ! rpd_running 1 && pins_ok && [ "$(rpd_generation 1)" = "$gen" ]; then
	ksft_pass "SIGTERM: daemon exits, pins stay installed (generation $gen)"
else
	ksft_fail "SIGTERM: pins or generation changed"
fi

# 2. Restart: the installed pins match, nothing is pushed, no gap.
before=$(rpd_log_count 1 'ready: ')
rpd_start 1
if rpd_wait_log 1 'ready: ' $((before + 1)) && pins_ok &&
   [ "$(rpd_generation 1)" = "$gen" ]; then
	ksft_pass "restart: reconciled against the dump, no replace (generation still $gen)"
else
	ksft_fail "restart: generation moved from $gen to $(rpd_generation 1) or pins differ"
fi

# 3. Somebody flushes the pins: the daemon puts them back.
before=$(rpd_log_count 1 'pins installed: ')
on_host 1 "'$RP_CLI' pin flush"
if rpd_wait_log 1 'pins installed: ' $((before + 1)) 40 && pins_ok; then
	ksft_pass "pins flushed behind the daemon's back are restored"
else
	ksft_fail "flushed pins were not restored"
fi

# 4. Module reload: family gone and back; pins and DCQCN re-pushed.
before=$(rpd_log_count 1 'module \(re\)loaded')
if rp_unload 1 && rpd_wait_log 1 'module unloaded' 1 20; then
	ksft_pass "module unload noticed (nlctrl DELFAMILY)"
else
	ksft_fail "module unload not noticed"
fi
rp_load 1 || log "cannot load $ROCEPATH_KO again"
if rpd_wait_log 1 'module \(re\)loaded' $((before + 1)) 20 &&
   retry 20 0.5 pins_ok && [ "$(dcqcn_ai)" = 7 ]; then
	ksft_pass "module reload: pins and DCQCN re-pushed"
else
	ksft_fail "module reload: not re-pushed (rp_ai_rate $(dcqcn_ai))"
fi

# 5. The RDMA device is re-created: dev-add-ntf, DCQCN pushed to it.
before=$(rpd_log_count 1 'dcqcn: rxe0|dcqcn: '"$IBDEV")
if on_host 1 "rdma link delete '$IBDEV' && rdma link add '$IBDEV' type rxe netdev '$NETDEV'"; then
	if rpd_wait_log 1 'device '"$IBDEV"' appeared' 1 20 &&
	   rpd_wait_log 1 "dcqcn: $IBDEV" $((before + 1)) 20 &&
	   [ "$(dcqcn_ai)" = 7 ]; then
		ksft_pass "new RDMA device: DCQCN profile pushed on dev-add-ntf"
	else
		ksft_fail "new RDMA device: no DCQCN push"
	fi
else
	ksft_skip "cannot re-create $IBDEV here"
fi

# 6. Link down/up of the RoCE netdev is logged.
down=$(rpd_log_count 1 "link $NETDEV .* is down")
up=$(rpd_log_count 1 "link $NETDEV .* is up")
# Down flushes the link's IPv6 addresses: the guest's is put back, as the
# tests after this one in the same boot expect it, and the link-local one
# that up makes again is waited for: until its duplicate address
# detection ends (a second or two) it has no local route, and the state
# check after this test found the guest changed.
on_host 1 "ip link set '$NETDEV' down; sleep 1; ip link set '$NETDEV' up &&
	ip addr replace '$HOST_IP6/64' dev '$NETDEV' nodad &&
	for ((i = 0; i < 100; i++)); do
		[ -n \"\$(ip -6 addr show dev '$NETDEV' tentative)\" ] || break
		sleep 0.1
	done"
if rpd_wait_log 1 "link $NETDEV .* is down" $((down + 1)) 20 &&
   rpd_wait_log 1 "link $NETDEV .* is up" $((up + 1)) 20; then
	ksft_pass "link down/up of $NETDEV followed (libnl route cache)"
else
	ksft_fail "link down/up of $NETDEV not logged"
fi

if rpd_running 1; then
	ksft_pass "daemon still running after all of the above"
else
	ksft_fail "daemon died"
fi

ksft_exit
