#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the QEMU leaf-spine fabric forwards: every host reaches every
# other through its leaf, a leaf spreads UDP source ports over all its
# uplinks, per-link counters count the traffic, and a failed leaf-spine
# link is withdrawn on both leaves (and restored) while RDMA still flows.
# With FRR routing (fabric_bgp.sh) it also checks that the routes are
# BGP's and that BGP withdraws and restores them.
# rpvm-check-kernels: 6.12
# rpvm-fabric: examples/fabric/topology.json l4

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fabric_lib.sh"

fabric_require
require_cmd ibv_rc_pingpong busybox python3 jq

# Every host pings every other (rxe resolves peers without ARP: ping first).
fail=
for ((i = 1; i <= FABRIC_HOSTS; i++)); do
	for ((j = 1; j <= FABRIC_HOSTS; j++)); do
		[ "$i" = "$j" ] && continue
		on_host "$i" "busybox ping -c 1 -W 3 $(host_ip "$j")" >/dev/null ||
			{ log "h$i cannot reach h$j ($(host_ip "$j"))"; fail=1; }
	done
done
if [ -z "$fail" ]; then ksft_pass "every host reaches every other"; else ksft_fail "every host reaches every other"; fi

# The leaf's own ECMP choice for 64 ports: every uplink used.
uplinks() { # LEAF SRC_HOST DST_HOST: distinct egress devices for 64 ports
	fab table "$1" "$(host_ip "$2")" "$(host_ip "$3")" 50000-50063 |
		py -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("p%d" % p for p in d["ports"]), len(set(d["table"].values())))'
}
out=$(uplinks leaf0 1 3)
log "leaf0 -> leaf1 group: $out"
[ "$out" = "p33 p34 p35 p36 4" ] && ksft_pass "leaf0 hashes 64 ports over its 4 uplinks" ||
	ksft_fail "leaf0 hashes 64 ports over its 4 uplinks"

# Counters: traffic h1 -> h3 shows up on leaf0's uplinks and leaf1's downlinks.
sum_up() {
	fab counters | py -c 'import json,sys
d = json.load(sys.stdin)
print(sum(l["tx_packets"] for l in d if l["from"] == sys.argv[1] and l["to"].startswith("spine")))' "$1"
}
before=$(sum_up leaf0)
on_host 1 "busybox ping -c 20 -i 0.05 -W 2 $(host_ip 3)" >/dev/null
after=$(sum_up leaf0)
log "leaf0 uplink tx packets: $before -> $after"
[ -n "$after" ] && [ $((after - before)) -ge 20 ] && ksft_pass "per-link counters count forwarded packets" ||
	ksft_fail "per-link counters count forwarded packets"

rdma_cross() { # client host A, server host B
	local a=$1 b=$2 ga gb
	ga=$(host_gid "$a") || return 1
	gb=$(host_gid "$b") || return 1
	on_host_bg "$b" pp "ibv_rc_pingpong -d $IBDEV -g $gb -n 10"
	if ! on_host "$a" "source selftests/lib.sh; retry 30 1 ibv_rc_pingpong -d $IBDEV -g $ga -n 10 $(host_ip "$b")"; then
		kill_bg "$b" pp
		return 1
	fi
	wait_bg "$b" pp 60
}
ksft_test "RDMA ping-pong across the fabric (h1 -> h3)" rdma_cross 1 3

frr=
[ "$(fabric_routing)" = frr ] && frr=1
# bgp_expect SWITCH WANT-ROUTES WANT-SESSIONS DESCRIPTION
bgp_expect() {
	local r e
	r=$(bgp_routes "$1") e=$(bgp_established "$1")
	log "$1: BGP routes: $r; sessions established: $e"
	if [ "$r" = "$2" ] && [ "$e" = "$3" ]; then
		ksft_pass "$4"
	else
		on_host "$FABRIC_HOST" "tail -n 8 /run/rocepath-fabric/frr/$1/bgpd.log" | sed 's/^/# bgpd.log: /'
		ksft_fail "$4"
	fi
}
h1=$(host_ip 1) h2=$(host_ip 2) h3=$(host_ip 3) h4=$(host_ip 4)
all4=p33,p34,p35,p36 three=p34,p35,p36
if [ -n "$frr" ]; then
	on_host "$FABRIC_HOST" "free -m; ps -o rss=,args= -C zebra,bgpd" | sed 's/^/# fabric guest: /'
	bgp_expect leaf0 "$h3=$all4 $h4=$all4" 4 "leaf0: BGP routes to leaf1's hosts over 4 spines"
	bgp_expect leaf1 "$h1=$all4 $h2=$all4" 4 "leaf1: BGP routes to leaf0's hosts over 4 spines"
	bgp_expect spine0 "$h1=p1 $h2=p1 $h3=p2 $h4=p2" 2 "spine0: BGP routes to every host"
fi

# A leaf-spine link fails: both leaves drop spine0 toward each other.
link() { # A B up|down; fabric.py says how long BGP took
	local out
	out=$(fab link "$@" 2>&1)
	[ -z "$out" ] || log "$out"
}
link leaf0 spine0 down
out0=$(uplinks leaf0 1 3)
out1=$(uplinks leaf1 3 1)
log "after leaf0-spine0 down: leaf0 group $out0, leaf1 group $out1"
[ "$out0" = "p34 p35 p36 3" ] && [ "$out1" = "p34 p35 p36 3" ] &&
	ksft_pass "a failed link is withdrawn on both leaves" ||
	ksft_fail "a failed link is withdrawn on both leaves"
ksft_test "RDMA ping-pong across the fabric with a link down" rdma_cross 3 1
if [ -n "$frr" ]; then
	# leaf1's own links stayed up: only BGP can have told it about spine0.
	bgp_expect leaf0 "$h3=$three $h4=$three" 3 "leaf0: the failed link's session is down, its routes gone"
	bgp_expect leaf1 "$h1=$three $h2=$three" 4 "leaf1: spine0 withdrew leaf0's hosts"
	bgp_expect spine0 "$h3=p2 $h4=p2" 1 "spine0: leaf0's hosts withdrawn, no path through leaf1"
fi
link leaf0 spine0 up
out0=$(uplinks leaf0 1 3)
[ "$out0" = "p33 p34 p35 p36 4" ] && ksft_pass "a restored link rejoins the group" ||
	ksft_fail "a restored link rejoins the group"
if [ -n "$frr" ]; then
	bgp_expect leaf1 "$h1=$all4 $h2=$all4" 4 "leaf1: spine0 announces leaf0's hosts again"
	bgp_expect spine0 "$h1=p1 $h2=p1 $h3=p2 $h4=p2" 2 "spine0: its session to leaf0 is back"
fi

# What run.sh checks before any guest boots: bad topologies are refused
# with the JSON path and the reason.
refused() { # JQ-EDIT EXPECTED-REASON
	local f=$RUN_DIR/bad-topology.json out
	jq "$1" "$FABRIC_TOPOLOGY" >"$f" || return 1
	out=$(python3 scripts/vm/fabric.py check "$f" 2>&1) && { echo "accepted: $1"; return 1; }
	echo "$out"
	grep -q "$2" <<<"$out"
}
ksft_test "refused: a link to nowhere" refused '.links[0].b = "spine9"' "links\[0\].b: link to nowhere"
ksft_test "refused: a host on an unknown leaf" refused '.hosts[1].nics[0].leaf = "leaf7"' "hosts\[1\].nics\[0\].leaf"
ksft_test "refused: a link between two leaves" refused '.links[0].b = "leaf1"' "fabric links join a leaf and a spine"
ksft_exit
