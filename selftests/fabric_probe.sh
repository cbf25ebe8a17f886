#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Path probing on the QEMU fabric in its L4 hash mode (addresses, protocol
# and ports with a fixed seed: no per-switch table describes it). The
# leaves' hashes are "measured": the plan assigns spines from the two
# files alone, each host probes (TTL 2 UDP to port 4791, the answer's
# source names the spine) the ports its flows need, and realises its part
# of the assignment with probed ports. Checked: probes agree with the
# leaf's own ECMP choice (ip route get); with rocepathd's plan every flow
# takes its planned path and the busiest spine link carries max_link_flows;
# a spine that drops its time-exceeded answers makes the probe fail with
# the pair and the port, and rocepathd keeps its last good pins, serving
# pin changes while it probes; spines that police their answers lose some
# to a flood of probes and none to rocepathd within its probe budget.
# rpvm-check-kernels: 6.12
# rpvm-fabric: examples/fabric/topology-measured.json l4
# rpvm-timeout: 720

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fabric_lib.sh"
. "$(dirname "$0")/daemon_lib.sh"

fabric_require
require_module
require_cmd ib_write_bw python3
require_rpd

W=$RUN_DIR/fabric-probe
mkdir -p "$W"
CHECK="$PY $ROCEPATH_TOP/selftests/fabric_check.py"
SIZE=${FABRIC_MSG_SIZE:-2048}
ITERS=${FABRIC_ITERS:-20}
DEAD=${FABRIC_DEAD_SPINE:-spine2}
T=$W/topology.json P=$W/placement.json
cp "$FABRIC_TOPOLOGY" "$T"
cp "$(dirname "$FABRIC_TOPOLOGY")/placement.json" "$P"
mapfile -t guests < <(awk '$1 == "host" { print $2, $3, $4 }' "$RUN_DIR/fabric")

# 1. The assignment alone: paths and the bound, no ports.
"$RP_CLI" -j plan topology "$T" placement "$P" >"$W/assign.json" ||
	ksft_skip_all "rocepath plan failed on the measured topology"
assigned() {
	py - "$W/assign.json" <<-'PYEOF'
	import json, sys
	pl = json.load(open(sys.argv[1]))
	s, un = pl["summary"], pl["unplaced"]
	print("summary: flows %d unplaced %d max_link_flows %d lower_bound %d"
	      % (s["flows"], s["unplaced"], s["max_link_flows"], s["lower_bound"]))
	ok = (not pl["flows"] and un and s["max_link_flows"] == s["lower_bound"] and
	      all(len(f.get("path", [])) == 3 and "no probe answers" in f["reason"] for f in un))
	sys.exit(0 if ok else 1)
	PYEOF
}
ksft_test "without probes: every flow has its assigned path, no port; max_link_flows = lower_bound" assigned

# 2. Probes from every host, as `rocepath probe` sends them.
probe_from() { # N NAME: probe file $W/probes-NAME.json
	local n=$1 name=$2 out
	out=$(on_host "$n" "$RP_CLI -j probe topology $T placement $P host $name out $W/probes-$name.json") ||
		{ echo "$out"; return 1; }
	py -c 'import json, sys
r = json.loads(sys.argv[1])
print("%s: %d ports, %d packets, %.2f s, %d answered, %d failures"
      % (sys.argv[2], r["ports"], r["packets"], r["seconds"], r["answered"], len(r["failures"])))
sys.exit(1 if r["failures"] or not r["answered"] else 0)' "$out" "$name"
}
for g in "${guests[@]}"; do
	read -r n name _ <<<"$g"
	ksft_test "probe from $name: answers for every spine its flows need" probe_from "$n" "$name"
done

# 3. A third opinion: the leaf's own ECMP choice for each probed port.
kernel_agrees() {
	local g n name ip leaf dst hi rc=0
	for g in "${guests[@]}"; do
		read -r n name ip <<<"$g"
		leaf=$(awk -v n="$name" '$1 == "host" && $3 == n { print $5 }' "$RUN_DIR/fabric")
		while read -r dst hi; do
			fab table "$leaf" "$ip" "$dst" "49152-$hi" >"$W/table-$name-$dst.json" || return 1
			$CHECK probes "$T" "$W/probes-$name.json" "$ip" "$dst" "$W/table-$name-$dst.json" || rc=1
		done < <(py -c 'import json, sys
m = {}
for p in json.load(open(sys.argv[1]))["probes"]:
    # at least the 32 ports a pair of 4 flows may walk (the failure case)
    m[p["dst_ip"]] = max(m.get(p["dst_ip"], 49152 + 63), p["sport"])
for d, hi in sorted(m.items()):
    print(d, hi)' "$W/probes-$name.json")
	done
	return $rc
}
ksft_test "every probe answer names the spine ip route get in the leaf gives" kernel_agrees

# 4. The plan with every host's answers: all flows placed, same paths.
args=()
for g in "${guests[@]}"; do
	read -r _ name _ <<<"$g"
	args+=(probes "$W/probes-$name.json")
done
"$RP_CLI" -j plan topology "$T" placement "$P" "${args[@]}" >"$W/plan.json" ||
	ksft_skip_all "rocepath plan with probes failed"
same_assignment() {
	py - "$W/assign.json" "$W/plan.json" <<-'PYEOF'
	import json, sys
	a, p = (json.load(open(x)) for x in sys.argv[1:3])
	key = lambda f: (f["job"], f["src_ip"], f["dst_ip"], f["rail"], f["qp"])
	want = {key(f): f["path"] for f in a["unplaced"]}
	got = {key(f): f["path"] for f in p["flows"]}
	s = p["summary"]
	print("with probes: flows %d unplaced %d max_link_flows %d lower_bound %d"
	      % (s["flows"], s["unplaced"], s["max_link_flows"], s["lower_bound"]))
	sys.exit(0 if got == want and not p["unplaced"] and
	         s["max_link_flows"] == a["summary"]["max_link_flows"] else 1)
	PYEOF
}
ksft_test "with probes: every flow placed on the path assigned without them" same_assignment
fabric_conns "$W/plan.json"

fabric_hosts_ready

# 5. rocepathd probes by itself (its cache starts empty) and pins what
# `rocepath plan ... host H probes` gives for the same answers.
RPD_EXAMPLE=$W
stop_all() { for h in $hosts; do rpd_stop "$(host_idx "$h")"; done; }
# deferred first, so it runs last: the logs once every daemon stopped
defer rpd_save_logs
defer stop_all
fabric_rpd_setup
ksft_test "rocepathd on every host probed and installed its part of the plan" fabric_rpd_start 300
daemon_pins_match() {
	local h n want got rc=0
	for h in $hosts; do
		n=$(host_idx "$h")
		log "$h: $(on_host "$n" "grep -m1 'probed [0-9]' $RPD_DIR/rocepathd.log")"
		want=$("$RP_CLI" -j plan topology "$T" placement "$P" host "$h" "${args[@]}" |
			py -c 'import json, sys
for p in json.load(sys.stdin):
    print(p["remote"], ",".join(str(s) for s in sorted(p["sports"])))')
		got=$(rpd_pins "$n")
		[ "$want" = "$got" ] || { log "$h: pins '$got', the plan with the CLI's probes says '$want'"; rc=1; }
	done
	return $rc
}
ksft_test "rocepathd's pins = rocepath plan host H with the CLI's probe answers" daemon_pins_match

# 6. Traffic with the plan: observed paths and the busiest link.
ksft_test "ib_write_bw -q 4 on every connection at once, probed plan" traffic probed
ksft_test "probed plan: every flow on its planned path, busiest link = max_link_flows" \
	$CHECK plan "$W/plan.json" "$W/probed-flows.json"

# 6b. A host's RoCE link goes down and up again: it may now reach the
# fabric through other switch ports, so its rocepathd drops the answers
# it had cached for that link's NIC, probes those flows anew (none from
# the cache) and, the fabric being the same, keeps the same pins.
read -r n2 _ _ <<<"${guests[1]}"
reprobed() {
	local before after c p
	local came="link $NETDEV came up: the flows of its 1 NIC\\(s\\) are probed again \\([1-9][0-9]* cached answers dropped\\)"
	local fresh='probed [1-9][0-9]* ports .*, 0 from the cache'
	before=$(rpd_pins "$n2")
	c=$(rpd_log_count "$n2" "$came")
	p=$(rpd_log_count "$n2" "$fresh")
	# its addresses stay, IPv6's too: only the link goes
	on_host "$n2" "sysctl -qw net.ipv6.conf.$NETDEV.keep_addr_on_down=1;
		ip link set $NETDEV down && sleep 1 && ip link set $NETDEV up" || return 1
	rpd_wait_log "$n2" "$came" $((c + 1)) 120 || return 1
	rpd_wait_log "$n2" "$fresh" $((p + 1)) 120 || return 1
	on_host "$n2" "grep -E 'came up|probed [0-9]+ ports' $RPD_DIR/rocepathd.log | tail -n 2"
	after=$(rpd_pins "$n2")
	[ -n "$before" ] && [ "$before" = "$after" ] ||
		{ echo "pins before '$before', after '$after'"; return 1; }
}
ksft_test "link down and up on a host: its flows probed again, none from the cache, same pins" reprobed

# 7. A spine stops answering: a clsact filter on each of its ports drops
# the ICMP time-exceeded it sends.
# a switch's ports in the fabric guest, from the topology's links
spine_ports() {
	py -c 'import json, sys
for l in json.load(open(sys.argv[1]))["links"]:
    for end in ("a", "b"):
        if l[end] == sys.argv[2]:
            print("p%d" % l[end + "_port"])' "$T" "$1"
}
mapfile -t dead_ports < <(spine_ports "$DEAD")
silence() { # add|del
	local p
	for p in "${dead_ports[@]}"; do
		if [ "$1" = add ]; then
			fab_ns "$DEAD" tc qdisc add dev "$p" clsact || return 1
			fab_ns "$DEAD" tc filter add dev "$p" egress protocol ip \
				flower ip_proto icmp type 11 action drop || return 1
		else
			fab_ns "$DEAD" tc qdisc del dev "$p" clsact
		fi
	done
}
silence add || ksft_skip_all "tc flower in $DEAD's namespace failed"
defer silence del
read -r n1 name1 ip1 <<<"${guests[0]}"
dead_reported() {
	local out rc bad
	out=$(on_host "$n1" "$RP_CLI probe topology $T placement $P host $name1 out $W/dead-$name1.json tries 2 timeout 300")
	rc=$?
	grep '^Error:' <<<"$out" | head -n 4
	[ "$rc" != 0 ] || { echo "probe succeeded with $DEAD silent"; return 1; }
	grep -q "^Error: probe $ip1 -> [0-9.]* sport [0-9]*: no answer after 2 tries" <<<"$out" || return 1
	# every port reported is one the leaf sends to the silent spine
	bad=$(grep -o "^Error: probe $ip1 -> [0-9.]* sport [0-9]*" <<<"$out" |
		while read -r _ _ _ _ dst _ port; do
			py -c 'import json, sys
t, tab = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
m = tab["table"].get(sys.argv[3])
leaf = [h["nics"][0]["leaf"] for h in t["hosts"] if h["nics"][0]["ip"] == sys.argv[4]][0]
sp = {l["a_port"]: l["b"] for l in t["links"] if l["a"] == leaf}
print("" if m is not None and sp[tab["ports"][m]] == sys.argv[5] else sys.argv[3])' \
				"$T" "$W/table-$name1-$dst.json" "$port" "$ip1" "$DEAD"
		done | tr -d '\n')
	[ -z "$bad" ] || { echo "reported ports not behind $DEAD: $bad"; return 1; }
}
ksft_test "probe with $DEAD silent: retried, then reported with pair and port" dead_reported

# The topology file changes (same meaning, other bytes): the cache is
# stale, rocepathd probes again, the probe fails, the pins stay. Every
# port behind the silent spine costs 3 tries x 500 ms, and meanwhile the
# daemon's loop still serves: pins flushed by hand are back before the
# round ends.
# reformat INDENT OUT: the topology with the same meaning, other bytes
reformat() {
	py -c 'import json, sys
json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), indent=int(sys.argv[3]) or None)' \
		"$T" "$2" "$1"
}
before1=$(rpd_pins "$n1")
failed1=$(rpd_log_count "$n1" 'keeping the last good plan')
rounds1=$(rpd_log_count "$n1" 'probing from')
same_pins() { [ "$(rpd_pins "$1")" = "$2" ]; }
served_while_probing() {
	local outside
	reformat 0 "$W/topology-reformatted.json"
	outside=$(rpd_log_count "$n1" 'changed outside rocepathd')
	# Flush as soon as the round starts: one loop in the guest, not a poll
	# from here, and started before the topology changes. A round lasts
	# about 4 s; on the debug kernel the steps between the change and a
	# loop started after it took most of that, and the flush came after
	# the round.
	on_host_bg "$n1" flusher "for i in \$(seq 1200); do
			[ \$(grep -c 'probing from' $RPD_DIR/rocepathd.log) -gt $rounds1 ] &&
				exec $RP_CLI pin flush
			sleep 0.05
		done; echo 'no probe round started'; exit 1"
	on_host "$n1" "cp $W/topology-reformatted.json $RPD_DIR/.topology.tmp &&
		mv $RPD_DIR/.topology.tmp $RPD_DIR/topology.json" || return 1
	wait_bg "$n1" flusher 120 || return 1
	rpd_wait_log "$n1" 'changed outside rocepathd' $((outside + 1)) 50 || return 1
	retry 50 0.2 same_pins "$n1" "$before1" ||
		{ echo "pins not re-pushed: '$(rpd_pins "$n1")', want '$before1'"; return 1; }
	# The daemon's log, not this script's clock, says which came first:
	# under TCG these checks can take longer than the round itself.
	rpd_wait_log "$n1" 'keeping the last good plan' $((failed1 + 1)) 300 || return 1
	on_host "$n1" "awk -v r=$((rounds1 + 1)) '
		/probing from/ && ++n == r { on = 1 }
		on && /changed outside rocepathd|pins installed|keeping the last good plan/ { print; if (/keeping/) exit }
		' $RPD_DIR/rocepathd.log" >"$W/served.log"
	cat "$W/served.log"
	grep -q 'pins installed' <(sed '/keeping the last good plan/q' "$W/served.log") ||
		{ echo "the probe round ended before the pins were back"; return 1; }
}
ksft_test "rocepathd: pins flushed by hand during a probe round are back before it ends" served_while_probing
kept_pins() {
	local after
	rpd_wait_log "$n1" 'keeping the last good plan' $((failed1 + 1)) 300 || return 1
	on_host "$n1" "grep -E 'probe $ip1 -> .* sport [0-9]+: no answer' $RPD_DIR/rocepathd.log | head -n 3"
	on_host "$n1" "grep 'keeping the last good plan' $RPD_DIR/rocepathd.log | tail -n 1"
	after=$(rpd_pins "$n1")
	[ -n "$before1" ] && [ "$before1" = "$after" ] ||
		{ echo "pins before '$before1', after '$after'"; return 1; }
}
ksft_test "rocepathd: failed probe logged with pair and port, last good pins kept" kept_pins

# 8. Spines that police their ICMP answers, as a switch's control plane
# (CoPP) does: each spine's time-exceeded answers pass one policer of
# POLICE pps, burst 4 (a tc police action shared by the filters on all of
# its ports). The hosts then run an all-to-all job of 8 QPs per
# connection: each probes two pairs anew, a few dozen ports. Without a
# budget (50 probes/s per host, all hosts at once) the policers drop
# answers. With "probe_budget_pps": POLICE and 1 probe/s per host the four
# hosts share one slot, 4 probes/s fabric-wide, within POLICE and the
# burst even were all onto one spine, and after a topology change no
# answer is policed.
POLICE=${FABRIC_POLICE_PPS:-5}
silence del
mapfile -t spines < <(py -c 'import json, sys
for s in json.load(open(sys.argv[1]))["switches"]:
    if s["tier"] == "spine":
        print(s["name"])' "$T")
police() { # add|del
	local sp p
	for sp in "${spines[@]}"; do
		if [ "$1" = add ]; then
			fab_ns "$sp" tc actions add action police pkts_rate "$POLICE" \
				pkts_burst 4 conform-exceed drop/ok index 29 || return 1
		fi
		for p in $(spine_ports "$sp"); do
			if [ "$1" = add ]; then
				fab_ns "$sp" tc qdisc add dev "$p" clsact || return 1
				fab_ns "$sp" tc filter add dev "$p" egress protocol ip \
					flower ip_proto icmp type 11 action police index 29 || return 1
			else
				fab_ns "$sp" tc qdisc del dev "$p" clsact
			fi
		done
		[ "$1" = add ] || fab_ns "$sp" tc actions flush action police
	done
}
# answers the policers dropped so far, all spines together
policed() {
	local sp d sum=0
	for sp in "${spines[@]}"; do
		d=$(fab_ns "$sp" tc -s actions get action police index 29 |
			sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1)
		[ -n "$d" ] || { echo "no police counters on $sp" >&2; return 1; }
		sum=$((sum + d))
	done
	echo "$sum"
}
police add || ksft_skip_all "tc police (pkts_rate) in the spines' namespaces failed"
defer police del
py -c 'import json, sys
hosts = [h["name"] for h in json.load(open(sys.argv[1]))["hosts"]]
json.dump({"jobs": [{"id": "flood", "pattern": "alltoall", "qps_per_connection": 8,
                     "rails": [0], "hosts": hosts}]}, open(sys.argv[2], "w"))' "$T" "$W/placement-flood.json"
# put FILE NAME on every host (rename over); wait for a new probe round's end
declare -A rounds
new_round() {
	local g n
	for g in "${guests[@]}"; do
		read -r n _ _ <<<"$g"
		rounds[$n]=$(rpd_log_count "$n" 'probed [0-9]+ ports')
	done
	# on every host at once: the rounds overlap
	for g in "${guests[@]}"; do
		read -r n _ _ <<<"$g"
		on_host "$n" "cp $1 $RPD_DIR/.new.tmp && mv $RPD_DIR/.new.tmp $RPD_DIR/$2" &
	done
	wait
	for g in "${guests[@]}"; do
		read -r n _ _ <<<"$g"
		rpd_wait_log "$n" 'probed [0-9]+ ports' $((rounds[$n] + 1)) 240 || return 1
		on_host "$n" "grep -E 'probed [0-9]+ ports' $RPD_DIR/rocepathd.log | tail -n 1"
	done
}
unbudgeted() {
	local d0 d1
	d0=$(policed) || return 1
	new_round "$W/placement-flood.json" placement.json || return 1
	d1=$(policed) || return 1
	log "no budget, 50 probes/s per host: $((d1 - d0)) answers policed"
	[ "$d1" -gt "$d0" ] ||
		{ echo "the policers dropped nothing: the budget run below would show nothing"; return 1; }
}
ksft_test "policed spines ($POLICE pps): every host probing at 50/s at once loses answers" unbudgeted
budgeted() {
	local g n name d0 d1 r p rc=0
	d0=$(policed) || return 1
	# the budget, by SIGHUP; each host plans once with it (what the
	# round above left unanswered is probed then, in the budget too)
	for g in "${guests[@]}"; do
		read -r n _ _ <<<"$g"
		r=$(rpd_log_count "$n" 'reload: .*\(topology ')
		p=$(rpd_log_count "$n" 'plan for host|plan failed')
		on_host "$n" "sed -i 's/^{/{\"probe_rate_pps\": 1, \"probe_budget_pps\": $POLICE, /' $RPD_DIR/rocepathd.conf &&
			kill -HUP \$(cat $RPD_DIR/rocepathd.pid)" || return 1
		rpd_wait_log "$n" 'reload: .*\(topology ' $((r + 1)) 60 || return 1
		rpd_wait_log "$n" 'plan for host|plan failed' $((p + 1)) 240 || return 1
	done
	# then every host's cache goes stale at once, as after a spine change
	reformat 1 "$W/topology-budget.json"
	new_round "$W/topology-budget.json" topology.json || return 1
	for g in "${guests[@]}"; do
		read -r n name _ <<<"$g"
		on_host "$n" "grep 'probe budget' $RPD_DIR/rocepathd.log | tail -n 1"
		on_host "$n" "grep -E 'probed [0-9]+ ports' $RPD_DIR/rocepathd.log | tail -n 1" |
			grep -qE 'probed ([1-9][0-9]*) ports \([0-9]+ packets, \1 answered\)' ||
			{ echo "$name: no port probed, or one went unanswered"; rc=1; }
	done
	d1=$(policed) || return 1
	log "probe_budget_pps $POLICE, 1 probe/s per host: $((d1 - d0)) answers policed"
	[ "$d1" = "$d0" ] || rc=1
	return $rc
}
ksft_test "probe_budget_pps $POLICE: every host re-probed after a topology change, no answer policed" budgeted

log "fabric guest: $(on_host "$FABRIC_HOST" "free -m | awk '/^Mem:/ { print \$3 \" MiB used of \" \$2 }'")"
ksft_exit
