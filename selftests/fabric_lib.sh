# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the fabric_*.sh selftests (sourced after lib.sh). The tests
# run under scripts/vm/run.sh -f (or their "# rpvm-fabric:" line): guests
# 1..FABRIC_HOSTS are the topology's hosts, guest FABRIC_HOST is the
# fabric (Documentation/fabric.rst).
#
#   fabric_require            skip unless this is a fabric run
#   fab ARGS...               scripts/vm/fabric.py ARGS on the fabric guest
#   fab_ns SWITCH CMD...      a shell command in SWITCH's namespace
#   fabric_routing            the fabric's routing: kernel or frr
#   bgp_routes SWITCH         its routes of proto bgp, "DST=DEV,DEV..." sorted
#   bgp_established SWITCH    how many of its BGP sessions are Established
#   host_ip N                 host guest N's test address
#   host_gid N                its RoCEv2 GID index on rxe0
#   host_idx NAME             host guest index of a topology host name
#   fabric_conns PLAN         conns[] ("src dst dst_ip qps") and hosts of a plan
#   traffic NAME              every connection's ib_write_bw at once, captured
#                             at the spines: $W/NAME-flows.json, -qps.json
#                             (needs W, CHECK, SIZE, ITERS, conns, hosts)
#   fabric_hosts_ready        rocepath.ko on the hosts (unloaded at exit),
#                             each connection's peer pinged
#   fabric_rpd_setup          rocepathd's files and the module on every host
#                             (daemon_lib.sh's rpd_setup), gone at exit; from
#                             the test's own shell, not under ksft_test
#   fabric_rpd_start [TRIES]  rocepathd on every host, until each has a pin
#                             for each of its connections

fabric_require() {
	[ -n "${FABRIC_HOST:-}" ] ||
		ksft_skip_all "not a fabric run: boot with scripts/vm/run.sh -f TOPOLOGY"
}

fab() {
	on_host "$FABRIC_HOST" "python3 scripts/vm/fabric.py $*"
}

fab_ns() {
	local ns=$1
	shift
	on_host "$FABRIC_HOST" "ip netns exec $ns $*"
}

fabric_routing() {
	awk '$1 == "routing" { r = $2 } END { print r ? r : "kernel" }' "$RUN_DIR/fabric"
}

bgp_routes() {
	fab_ns "$1" "ip -j route show proto bgp" |
		jq -r 'map(.dst + "=" + ([.dev] + [(.nexthops // [])[].dev] | map(select(. != null)) | sort | join(","))) | sort | join(" ")'
}

bgp_established() {
	on_host "$FABRIC_HOST" "vtysh -N $1 -c 'show ip bgp summary json' 2>/dev/null" |
		jq '[.ipv4Unicast.peers // {} | .[] | select(.state == "Established")] | length'
}

# __fabric_host COL VALUE OUT: field OUT of the "host" line of the fabric's
# description whose field COL is VALUE (fields from 0). Bash alone: the
# fabric tests look hosts up hundreds of times a run.
__fabric_host() {
	local -a w
	while read -ra w; do
		[ "${w[0]:-}" = host ] && [ "${w[$1]:-}" = "$2" ] && { echo "${w[$3]:-}"; return 0; }
	done <"$RUN_DIR/fabric"
}

host_ip() { __fabric_host 1 "$1" 3; }

host_gid() {
	on_gid_index "$1" "$(host_ip "$1")"
}

# host guest index of a topology host name
host_idx() { __fabric_host 2 "$1" 1; }

# fabric_conns PLAN: conns[] and hosts of the plan's flows
fabric_conns() {
	mapfile -t conns < <(py - "$1" <<-'PYEOF'
		import json, sys
		n = {}
		for f in json.load(open(sys.argv[1]))["flows"]:
		    k = (f["src_host"], f["dst_host"], f["dst_ip"])
		    n[k] = n.get(k, 0) + 1
		for (s, d, ip), q in sorted(n.items()):
		    print(s, d, ip, q)
		PYEOF
	)
	hosts=$(for c in "${conns[@]}"; do read -r s d _ <<<"$c"; echo "$s"; echo "$d"; done | sort -u)
}

# fabric_hosts_ready: rocepath.ko on every host of conns (unloaded at
# exit); each sender pings its peer, since rxe sends to a peer it has no
# neighbour entry for only after ARP.
fabric_unload() { for h in $hosts; do on_host "$(host_idx "$h")" 'rmmod rocepath 2>/dev/null'; done; }
fabric_hosts_ready() {
	local h c s d ip
	defer fabric_unload
	for h in $hosts; do
		on_host "$(host_idx "$h")" "insmod $ROCEPATH_KO" || ksft_skip_all "insmod failed on $h"
	done
	for c in "${conns[@]}"; do
		read -r s d ip _ <<<"$c"
		on_host "$(host_idx "$s")" "busybox ping -c 1 -W 3 $ip" >/dev/null
	done
}

# traffic NAME: every connection's ib_write_bw at once, captured at the
# spines; each phase listens on its own ports.
phase=0
traffic() {
	local name=$1 k=0 s d ip q si di gs gd rc=0 port0=$((18515 + 10 * phase))
	phase=$((phase + 1))
	on_host "$FABRIC_HOST" "cd $ROCEPATH_TOP && python3 scripts/vm/fabric.py counters" >"$W/$name-before.json"
	for h in $hosts; do on_host "$(host_idx "$h")" "$RP_CLI flow reset" >/dev/null; done
	fab capture start
	for c in "${conns[@]}"; do
		read -r s d ip q <<<"$c"
		di=$(host_idx "$d")
		gd=$(host_gid "$di") || return 1
		on_host_bg "$di" "srv$k" "ib_write_bw -d $IBDEV -x $gd -q $q -s $SIZE -n $ITERS -F -p $((port0 + k))"
		k=$((k + 1))
	done
	k=0
	for c in "${conns[@]}"; do
		read -r s d ip q <<<"$c"
		si=$(host_idx "$s")
		gs=$(host_gid "$si") || return 1
		on_host_bg "$si" "cli$k" "source selftests/lib.sh; retry 60 1 ib_write_bw -d $IBDEV -x $gs -q $q -s $SIZE -n $ITERS -F -p $((port0 + k)) $ip"
		k=$((k + 1))
	done
	k=0
	for c in "${conns[@]}"; do
		read -r s d ip q <<<"$c"
		wait_bg "$(host_idx "$s")" "cli$k" 300 >"$W/$name-cli$k.log" 2>&1 ||
			{ log "ib_write_bw $s -> $d failed:"; tail -n 5 "$W/$name-cli$k.log" | sed 's/^/#   /'; rc=1; }
		wait_bg "$(host_idx "$d")" "srv$k" 60 >"$W/$name-srv$k.log" 2>&1 ||
			{ log "ib_write_bw server on $d failed:"; tail -n 5 "$W/$name-srv$k.log" | sed 's/^/#   /'; rc=1; }
		k=$((k + 1))
	done
	fab capture stop
	fab flows >"$W/$name-flows.json"
	on_host "$FABRIC_HOST" "cd $ROCEPATH_TOP && python3 scripts/vm/fabric.py counters" >"$W/$name-after.json"
	for h in $hosts; do
		on_host "$(host_idx "$h")" "$RP_CLI -j flow show"
	done | py -c 'import json, sys
out = []
for line in sys.stdin:
    line = line.strip()
    if line.startswith("["):
        out += json.loads(line)
json.dump(out, open(sys.argv[1], "w"))' "$W/$name-qps.json"
	log "bytes per spine link, $name:"
	$CHECK bytes "$W/$name-before.json" "$W/$name-after.json"
	return $rc
}

# fabric_rpd_setup: rpd_setup on every host of the plan. What rpd_setup
# defers (the daemon's directory and the module go at exit) is lost in
# ksft_test's subshell: a test that shares its boot must not leave them.
# A failure is fabric_rpd_start's to report.
fabric_rpd_setup() {
	local h
	fabric_rpd_failed=
	for h in $hosts; do
		rpd_setup "$(host_idx "$h")" >/dev/null || fabric_rpd_failed+=" $h"
	done
}

# fabric_rpd_start [TRIES]: rocepathd on every host of the plan (after
# fabric_rpd_setup), until each has pins for its connections (TRIES
# polls, 0.2 s apart; default 50).
fabric_rpd_start() {
	local h
	[ -z "${fabric_rpd_failed-unset}" ] ||
		{ echo "rocepathd's set-up failed or did not run on:${fabric_rpd_failed:- every host}"; return 1; }
	for h in $hosts; do
		rpd_start "$(host_idx "$h")" >/dev/null || return 1
	done
	for c in "${conns[@]}"; do
		read -r s d ip q <<<"$c"
		retry "${1:-50}" 0.2 on_host "$(host_idx "$s")" \
			"$RP_CLI -j pin show | grep -q '\"remote\":\"$ip\"'" || { log "no pin on $s for $ip"; return 1; }
	done
}
