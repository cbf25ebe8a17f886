#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every rocepath CLI command against the live module on guest 1, in text
# and JSON (-j, -p): the JSON keys of Documentation/cli.rst, exit codes, "Error: ..."
# lines carrying the kernel's extack, bad input rejected before sending,
# pin replace atomicity and round trip (also in several netlink chunks),
# dcqcn set/show, stats, flow reset and monitor events (pins-replaced, and
# qp-add with the pinned port when RDMA traffic runs to guest 2).
# What it tests is userspace, the same on every kernel: make check runs it
# on 6.12 only (pin_wire, pin_churn, pin_ynl and nl_fuzz test the module
# itself on 6.1 too); make check-all runs it on every kernel.
# rpvm-check-kernels: 6.12

source "$(dirname "$0")/lib.sh"

require_module
require_cmd python3
require_cli

T=$(mktemp -d /tmp/cli_basic.XXXXXX)
defer rm -rf "$T"

# rp ARGS...: run the CLI, stdout in $T/out, stderr in $T/err, return its code.
rp() {
	"$RP_CLI" "$@" >"$T/out" 2>"$T/err"
}

# jcheck PYEXPR: evaluate a Python expression over d = json.load($T/out).
jcheck() {
	py - "$T/out" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    print("# JSON check failed: %s\n# got: %s" % (sys.argv[2], json.dumps(d)[:2000]))
sys.exit(0 if ok else 1)
PY
}

# expect_fail DESC PATTERN ARGS...: exit 1, stdout empty, one Error line.
expect_fail() {
	local desc=$1 pat=$2 rc
	shift 2
	rp "$@"
	rc=$?
	if [ $rc = 1 ] && [ ! -s "$T/out" ] && grep -q "^Error: .*$pat" "$T/err" &&
	   [ "$(wc -l <"$T/err")" = 1 ]; then
		ksft_pass "$desc"
	else
		log "rc=$rc stdout=$(head -c 300 "$T/out") stderr=$(cat "$T/err")"
		ksft_fail "$desc"
	fi
}

# ok DESC ARGS...: exit 0 and nothing on stderr.
ok() {
	local desc=$1 rc
	shift
	rp "$@"
	rc=$?
	if [ $rc = 0 ] && [ ! -s "$T/err" ]; then
		ksft_pass "$desc"
	else
		log "rc=$rc stderr=$(cat "$T/err")"
		ksft_fail "$desc"
	fi
}

ok_json() {
	local desc=$1 expr=$2 rc
	shift 2
	rp "$@"
	rc=$?
	if [ $rc = 0 ] && [ ! -s "$T/err" ] && jcheck "$expr"; then
		ksft_pass "$desc"
	else
		log "rc=$rc stderr=$(cat "$T/err")"
		ksft_fail "$desc"
	fi
}

rp_unload 1
expect_fail "no module: clear error, exit 1" "family not found" -j pin show
expect_fail "no module: error says how to load it" "modprobe rocepath" -j pin show

rp_load 1 || ksft_skip_all "cannot load $ROCEPATH_KO"
defer rp_unload 1

# ---- dev ----
ok "dev show (text)" dev show
grep -q "^$IBDEV/" "$T/out" || { log "$(cat "$T/out")"; ksft_fail "dev show lists $IBDEV"; }
ok_json "dev show -j: documented keys" \
	"any(x['dev'] == '$IBDEV' and x['netdev'] == '$NETDEV' and x['roce_v2'] is True and
	     x['driver'] == 'rxe' and isinstance(x['gids'], list) and
	     {'dev','port','netdev','ifindex','roce_v2','driver','gids'} <= set(x) for x in d)" \
	-j dev show
ok_json "dev show dev IBDEV filters" "len(d) >= 1 and all(x['dev'] == '$IBDEV' for x in d)" \
	-j dev show dev "$IBDEV"
rp -j -p dev show && py -c "import json,sys; json.load(open('$T/out'))" &&
	[ "$(wc -l <"$T/out")" -gt 1 ] && ksft_pass "-p pretty JSON parses" ||
	ksft_fail "-p pretty JSON parses"

# ---- pin ----
ok "pin flush" pin flush
ok_json "pin show -j on an empty set is []" "d == []" -j pin show
ok "pin add path set (IPv4)" pin add remote "$PEER_IP4" sport 49152,49153
ok "pin add exact rule (IPv6, dev, rqpn)" pin add remote "$PEER_IP6" sport 50000 dev "$IBDEV" rqpn 17
ok "pin add exact rule (lqpn)" pin add remote "$PEER_IP4" sport 50001 lqpn 5
ok_json "pin show -j: documented keys and values" \
	"len(d) == 3 and all({'dev','remote','sports','rqpn','lqpn'} <= set(x) for x in d) and
	 {'dev': None, 'remote': '$PEER_IP4', 'sports': [49152, 49153], 'rqpn': None, 'lqpn': None}.items() <= [x for x in d if x['sports'] == [49152, 49153]][0].items() and
	 [x for x in d if x['sports'] == [50000]][0]['dev'] == '$IBDEV' and
	 [x for x in d if x['sports'] == [50000]][0]['rqpn'] == 17 and
	 [x for x in d if x['sports'] == [50001]][0]['lqpn'] == 5" \
	-j pin show
ok "pin show (text)" pin show
[ "$(wc -l <"$T/out")" = 3 ] && grep -q "remote $PEER_IP4 sport 49152,49153" "$T/out" &&
	ksft_pass "pin show text: one line per rule" ||
	{ log "$(cat "$T/out")"; ksft_fail "pin show text: one line per rule"; }
expect_fail "pin add duplicate key: kernel extack, exit 1" "" \
	pin add remote "$PEER_IP4" sport 49154
log "duplicate add said: $(cat "$T/err")"
expect_fail "pin add port below 49152 rejected before sending" "sport" \
	pin add remote "$PEER_IP4" sport 1234
expect_fail "pin add bad address rejected" "remote" pin add remote 192.0.2 sport 49152
expect_fail "pin add rqpn out of range rejected" "rqpn" \
	pin add remote "$PEER_IP4" sport 49152 rqpn 16777216
ok "pin del exact rule" pin del remote "$PEER_IP4" lqpn 5
expect_fail "pin del missing rule: kernel extack" "" pin del remote "$PEER_IP4" lqpn 5
log "missing del said: $(cat "$T/err")"
ok "pin show prefix-matched (p s)" p s

# replace round trip
rp -j pin show && cp "$T/out" "$T/saved.json"
ok "pin flush again" pin flush
ok "pin replace file (round trip of pin show -j)" pin replace file "$T/saved.json"
rp -j pin show
py - "$T/saved.json" "$T/out" <<'PY' && ksft_pass "replace restores the exact set" || ksft_fail "replace restores the exact set"
import json, sys
norm = lambda f: sorted(json.dumps({k: x[k] for k in ('dev','remote','sports','rqpn','lqpn')}, sort_keys=True) for x in json.load(open(f)))
a, b = norm(sys.argv[1]), norm(sys.argv[2])
if a != b:
    print("# saved %s\n# now   %s" % (a, b))
sys.exit(a != b)
PY

# invalid file: named error, live set untouched
printf '[{"remote": "%s", "sports": [49152]}, {"remote": "%s", "sports": [80]}]\n' \
	"$PEER_IP4" "$PEER_IP4" >"$T/bad.json"
expect_fail "pin replace bad file: names file, index, reason" \
	"bad.json: pin 1: sports\[0\] is not a port" pin replace file "$T/bad.json"
ok_json "bad replace left the live set alone" "len(d) == 2" -j pin show

# big replace: several netlink messages (begin, chunks, commit)
rp -j stats && cp "$T/out" "$T/stats0.json"
N=$(py -c "import json; s=json.load(open('$T/stats0.json')); print(min(20000, s.get('rules_max', 20000)))")
py - "$N" >"$T/big.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps([{"dev": None, "remote": "10.%d.%d.%d" % (i >> 16 & 255, i >> 8 & 255, i & 255),
                   "sports": [49152 + i % 16000, 65535 - i % 100], "rqpn": None, "lqpn": None}
                  for i in range(n)]))
PY
ok "pin replace with $N rules (chunked)" pin replace file "$T/big.json"
ok_json "stats shows $N rules after the big replace" "d['rules'] == $N" -j stats
ok "pin flush after big replace" pin flush

# Dumps racing replaces: each pin show is one whole set (the kernel flags
# the racing dump NLM_F_DUMP_INTR and the CLI reruns it).
for s in 49152 49153; do
	py -c "import json; print(json.dumps([{'remote': '10.1.%d.%d' % (i >> 8, i & 255), 'sports': [$s]} for i in range(3000)]))" >"$T/set$s.json"
done
(
	trap - EXIT
	for i in $(seq 40); do
		"$RP_CLI" pin replace file "$T/set49152.json" && sleep 0.1 &&
			"$RP_CLI" pin replace file "$T/set49153.json" && sleep 0.1 || exit 1
	done
) &
racer=$!
race_ok=1
for i in $(seq 8); do
	"$RP_CLI" -j pin show >"$T/race.json" 2>"$T/race.err" || { log "pin show: $(cat "$T/race.err")"; race_ok=0; continue; }
	py - "$T/race.json" <<'PY' || race_ok=0
import json, sys
d = json.load(open(sys.argv[1]))
ports = {tuple(x['sports']) for x in d}
ok = len(d) in (0, 3000) and len(ports) <= 1
if not ok:
    print("# torn dump: %d rules, ports %s" % (len(d), sorted(ports)[:5]))
sys.exit(not ok)
PY
done
kill $racer 2>/dev/null
wait $racer 2>/dev/null
[ $race_ok = 1 ] && ksft_pass "pin show never returns a torn set while replaces race it" ||
	ksft_fail "pin show never returns a torn set while replaces race it"
"$RP_CLI" pin flush

# ---- qp / flow ----
ok_json "qp show -j is an array" "isinstance(d, list)" -j qp show
ok "qp show dev IBDEV (text)" qp show dev "$IBDEV"
ok_json "flow show -j is an array" "isinstance(d, list)" -j flow show
ok "flow reset" flow reset
ok_json "flow show after reset is empty" "d == []" -j flow show

# ---- dcqcn ----
PARAMS="np_enable rp_enable rp_clamp_tgt_rate rp_clamp_tgt_rate_ati rp_time_reset rp_byte_reset rp_threshold rp_ai_rate rp_max_rate rp_hai_rate rp_min_dec_fac rp_min_rate rp_rate_to_set_on_first_cnp rp_dce_tcp_g rp_dce_tcp_rtt rp_rate_reduce_monitor_period rp_initial_alpha_value rp_gd np_min_time_between_cnps np_cnp_dscp np_cnp_prio_mode np_cnp_prio"
ok_json "dcqcn show -j: dev and every mlx5 cc_params name" \
	"any(x['dev'] == '$IBDEV' and set('$PARAMS'.split()) <= set(x) for x in d)" \
	-j dcqcn show
ok "dcqcn set dev IBDEV rp_ai_rate 7 np_enable 1" dcqcn set dev "$IBDEV" rp_ai_rate 7 np_enable 1
ok_json "dcqcn show reflects the set" "d[0]['rp_ai_rate'] == 7 and d[0]['np_enable'] == 1" \
	-j dcqcn show dev "$IBDEV"
ok "dcqcn show (text)" dcqcn show
expect_fail "dcqcn set out of range: rejected with the spec's range" "np_cnp_dscp out of range 0..63" \
	dcqcn set dev "$IBDEV" np_cnp_dscp 64
log "out-of-range dcqcn said: $(cat "$T/err")"
expect_fail "dcqcn set on an unknown device fails" "" dcqcn set dev nosuchdev0 rp_ai_rate 5
expect_fail "dcqcn set unknown parameter rejected" "unknown parameter" \
	dcqcn set dev "$IBDEV" rp_bogus 1
ok "dcqcn set np_enable 0" dcqcn set dev "$IBDEV" np_enable 0 rp_enable 0
# rp_min_rate <= a non-zero rp_max_rate: the CLI judges what it is given,
# the module what the device will hold (Documentation/flows-dcqcn.rst).
expect_fail "dcqcn set rp_min_rate above rp_max_rate in one command: rejected before sending" \
	"rp_min_rate 200 above rp_max_rate 100" \
	dcqcn set dev "$IBDEV" rp_min_rate 200 rp_max_rate 100
ok "dcqcn set rp_max_rate 100" dcqcn set dev "$IBDEV" rp_max_rate 100
expect_fail "dcqcn set rp_min_rate above the device's rp_max_rate: the module's extack" \
	"rp_min_rate above rp_max_rate" dcqcn set dev "$IBDEV" rp_min_rate 200
ok "dcqcn set rp_max_rate 0 (no ceiling) takes rp_min_rate 200" \
	dcqcn set dev "$IBDEV" rp_max_rate 0 rp_min_rate 200
ok "dcqcn set rp_min_rate 1 (default)" dcqcn set dev "$IBDEV" rp_min_rate 1

# ---- stats ----
ok_json "stats -j: one object with counters and limits" \
	"isinstance(d, dict) and {'rules','rules_max','qps','qps_max','generation','sports_max','flows','flows_max'} <= set(d)" \
	-j stats
ok "stats (text)" stats
ok_json "stats -j: notification queue limit and drops" \
	"d.get('ntf_queue_limit') == 1048576 and d.get('ntf_dropped', -1) >= 0" \
	-j stats
rp stats
if grep -q "^ntf_queue_limit  *1048576$" "$T/out" && grep -q "^ntf_dropped " "$T/out"; then
	ksft_pass "stats (text) shows ntf_dropped and ntf_queue_limit"
else
	log "$(cat "$T/out")"
	ksft_fail "stats (text) shows ntf_dropped and ntf_queue_limit"
fi

# ---- monitor ----
on_host_bg 1 mon "timeout 60 '$RP_CLI' -j monitor"
sleep 2
"$RP_CLI" pin replace file "$T/saved.json"
# qp-add events need RDMA: ibv_rc_pingpong to guest 2, with a pin on it.
have_rdma=0
if command -v ibv_rc_pingpong >/dev/null && [ "${NHOSTS:-2}" -ge 2 ] &&
   g1=$(gid_index "$IBDEV" "$HOST_IP4") &&
   g2=$(on_gid_index 2 "$PEER_IP4"); then
	"$RP_CLI" pin flush
	"$RP_CLI" pin add remote "$PEER_IP4" sport 51000
	on_host_bg 2 srv "timeout 90 ibv_rc_pingpong -d $IBDEV -g $g2 -n 5"
	sleep 2
	retry 10 2 timeout 30 ibv_rc_pingpong -d "$IBDEV" -g "$g1" -n 5 "$PEER_IP4" >/dev/null 2>&1 &&
		have_rdma=1
	wait_bg 2 srv 30 >/dev/null
fi
sleep 2
"$RP_CLI" pin flush
sleep 2
kill_bg 1 mon
out=$(cat "${RPVM_BG_DIR:-/tmp/rocepath-bg.$$}/1.mon.out" 2>/dev/null)
printf '%s\n' "$out" >"$T/mon.out"
py - "$T/mon.out" "$have_rdma" <<'PY' && ksft_pass "monitor -j: one JSON object per event line, pins-replaced seen" || ksft_fail "monitor -j: one JSON object per event line, pins-replaced seen"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = all(isinstance(e, dict) and 'event' in e for e in ev) and \
     sum(e['event'] == 'pins-replaced' and 'generation' in e for e in ev) >= 2
if not ok:
    print("# events: %s" % ev)
sys.exit(not ok)
PY
if [ $have_rdma = 1 ]; then
	py - "$T/mon.out" <<'PY' && ksft_pass "monitor: qp-add with the pinned port 51000" || ksft_fail "monitor: qp-add with the pinned port 51000"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
qa = [e for e in ev if e['event'] == 'qp-add']
ok = any(e.get('sport') == 51000 and e.get('pinned') is True for e in qa)
if not ok:
    print("# qp events: %s" % qa)
sys.exit(not ok)
PY
else
	ksft_skip "monitor: qp-add (no RDMA traffic possible)"
fi

# ---- valgrind against the live family (where installed) ----
if command -v valgrind >/dev/null; then
	vg_ok=1
	# A dump, a chunked transaction, a kernel rejection with extack.
	"$RP_CLI" pin flush
	for args in "pin replace file $T/set49152.json" "-j pin show" \
		    "pin add remote 10.1.0.0 sport 49152"; do
		valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
			--error-exitcode=99 "$RP_CLI" $args >/dev/null 2>"$T/vg"
		[ $? = 99 ] && { vg_ok=0; log "valgrind: rocepath $args"; sed 's/^/#   /' "$T/vg" | head -20; }
	done
	"$RP_CLI" pin flush
	[ $vg_ok = 1 ] && ksft_pass "valgrind-clean on live requests" ||
		ksft_fail "valgrind-clean on live requests"
else
	ksft_skip "valgrind-clean on live requests (no valgrind)"
fi

# ---- grammar ----
expect_fail "unknown object fails" "unknown" bogus show
expect_fail "unknown pin command fails" "unknown command" pin frob
ok "help" help

ksft_exit
