#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the plan's balance on forwarded traffic: a ring job with 4 QPs per
# connection across both leaves of the QEMU fabric, ib_write_bw from every
# host at once. Without pinning every flow takes the path the leaves' own
# hash (measured with `ip route get`) gives its QPN-derived port; with
# rocepathd's plan every flow takes the planned path and the busiest spine
# link carries max_link_flows flows. The leaves hash the source port only
# (fib_multipath_hash_policy 3): the topology's measured `table` hash is
# keyed by port, see Documentation/fabric.rst.
# rpvm-check-kernels: 6.12
# rpvm-fabric: examples/fabric/topology.json sport
# rpvm-timeout: 720

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fabric_lib.sh"
. "$(dirname "$0")/daemon_lib.sh"

fabric_require
require_module
require_cmd ib_write_bw python3
require_rpd

W=$RUN_DIR/fabric-balance
mkdir -p "$W"
CHECK="$PY $ROCEPATH_TOP/selftests/fabric_check.py"
PLACEMENT=${FABRIC_PLACEMENT:-$(dirname "$FABRIC_TOPOLOGY")/placement.json}
SIZE=${FABRIC_MSG_SIZE:-2048}
ITERS=${FABRIC_ITERS:-20}


# 1. The leaves' hash, measured: leaf -> one local source, one remote
# destination; a second pair checks the choice depends on the port alone.
mapfile -t pairs < <(py - "$FABRIC_TOPOLOGY" <<-'PYEOF'
	import json, sys
	t = json.load(open(sys.argv[1]))
	hs = [(h["nics"][0]["leaf"], h["nics"][0]["ip"]) for h in t["hosts"]]
	for leaf in sorted({l for l, _ in hs}):
	    mine = [ip for l, ip in hs if l == leaf]
	    other = [ip for l, ip in hs if l != leaf]
	    if other:
	        print(leaf, mine[0], other[0], mine[-1], other[-1])
	PYEOF
)
measure() { # BASE_TOPOLOGY OUT: BASE with the leaves' hashes measured
	local base=$1 out=$2 leaf src dst src2 dst2 p args=()
	for p in "${pairs[@]}"; do
		read -r leaf src dst src2 dst2 <<<"$p"
		fab table "$leaf" "$src" "$dst" 49152-65535 >"$W/$leaf.json" || return 1
		fab table "$leaf" "$src2" "$dst2" 49152-49663 >"$W/$leaf-b.json" || return 1
		py - "$W/$leaf.json" "$W/$leaf-b.json" "$leaf" <<-'PYEOF' || return 1
		import json, sys
		a, b = (json.load(open(p)) for p in sys.argv[1:3])
		diff = [p for p in b["table"] if b["table"][p] != a["table"][p]]
		print("%s: %d ports over uplinks %s; second pair differs on %d of %d"
		      % (sys.argv[3], len(a["table"]), a["ports"], len(diff), len(b["table"])))
		sys.exit(1 if diff else 0)
		PYEOF
		args+=("$leaf=$W/$leaf.json")
	done
	$CHECK measured "$base" "$out" "${args[@]}"
}
ksft_test "leaf hashes measured with ip route get (per source port, 16384 ports)" \
	measure "$FABRIC_TOPOLOGY" "$W/topology.json" ||
	ksft_skip_all "no measured topology"
cp "$PLACEMENT" "$W/placement.json"
"$RP_CLI" -j plan topology "$W/topology.json" placement "$W/placement.json" >"$W/plan.json" ||
	ksft_skip_all "rocepath plan failed on the measured topology"
log "plan: $(py -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"])' "$W/plan.json" | cut -c1-160)"

fabric_conns "$W/plan.json"

fabric_hosts_ready


# 2. Without pinning.
ksft_test "ib_write_bw -q 4 on every connection at once, unpinned" traffic unpinned
ksft_test "unpinned: every flow's path = the measured hash of its QPN-derived port" \
	$CHECK ecmp "$W/topology.json" "$W/unpinned-flows.json" "$W/unpinned-qps.json"

# 3. With rocepathd's plan on every host.
RPD_EXAMPLE=$W
stop_all() { for h in $hosts; do rpd_stop "$(host_idx "$h")"; done; }
# deferred first, so it runs last: the logs once every daemon stopped
defer rpd_save_logs
defer stop_all
fabric_rpd_setup
ksft_test "rocepathd on every host installed its part of the plan" fabric_rpd_start
ksft_test "ib_write_bw -q 4 on every connection at once, with the plan" traffic planned
ksft_test "with the plan: every flow on its planned path, busiest link = max_link_flows" \
	$CHECK plan "$W/plan.json" "$W/planned-flows.json"
# 4. A leaf-spine link fails. The fabric withdraws it at once (the leaves'
# groups shrink to 3 uplinks, so their hash is measured again); once the
# topology file says so, rocepathd re-plans and re-pins, and new QPs are
# balanced over the links that remain.
FAIL_A=${FABRIC_FAIL_LEAF:-leaf0} FAIL_B=${FABRIC_FAIL_SPINE:-spine0}
py - "$FABRIC_TOPOLOGY" "$W/down-base.json" "$FAIL_A" "$FAIL_B" <<-'PYEOF'
	import json, sys
	t = json.load(open(sys.argv[1]))
	for ln in t["links"]:
	    if {ln["a"], ln["b"]} == set(sys.argv[3:5]):
	        ln["up"] = False
	json.dump(t, open(sys.argv[2], "w"))
	PYEOF
if fab link "$FAIL_A" "$FAIL_B" down; then
	ksft_pass "link $FAIL_A-$FAIL_B down on the fabric"
else
	ksft_fail "link $FAIL_A-$FAIL_B down on the fabric"
fi
ksft_test "leaf hashes measured again over the remaining uplinks" \
	measure "$W/down-base.json" "$W/topology-down.json"
withdrawn() { # each measured leaf used exactly its uplinks via spines that reach the peer leaf
	py - "$W/down-base.json" "$W" <<-'PYEOF'
	import json, os, sys
	t = json.load(open(sys.argv[1]))
	up = [l for l in t["links"] if l.get("up", True)]
	def nbrs(sw):
	    return [(l["a_port"], l["b"]) if l["a"] == sw else (l["b_port"], l["a"])
	            for l in up if sw in (l["a"], l["b"])]
	leaves = {h["nics"][0]["leaf"] for h in t["hosts"]}
	bad = 0
	for leaf in sorted(leaves):
	    f = os.path.join(sys.argv[2], leaf + ".json")
	    others = leaves - {leaf}
	    want = sorted(p for p, sp in nbrs(leaf)
	                  if any(o in [x for _, x in nbrs(sp)] for o in others))
	    got = json.load(open(f))["ports"]
	    print("%s: ECMP group ports %s, expected %s" % (leaf, got, want))
	    bad += got != want
	sys.exit(1 if bad else 0)
	PYEOF
}
ksft_test "routes withdrawn: each leaf hashes over its uplinks via spines that still reach the other leaf" withdrawn
"$RP_CLI" -j plan topology "$W/topology-down.json" placement "$W/placement.json" >"$W/plan-down.json"
log "plan with $FAIL_A-$FAIL_B down: $(py -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"])' "$W/plan-down.json" | cut -c1-120)"
# A host none of whose flows crossed the failed link re-plans to the pins it
# has ("file change gave the installed pins"); the checks after this one
# find out whether every flow is on its re-planned path.
REPLANNED='file change (applied|gave the installed pins)'
repin() {
	local h n before
	for h in $hosts; do
		n=$(host_idx "$h")
		before=$(rpd_log_count "$n" "$REPLANNED")
		on_host "$n" "cp '$W/topology-down.json' $RPD_DIR/.topology.tmp &&
			mv $RPD_DIR/.topology.tmp $RPD_DIR/topology.json" || return 1
		rpd_wait_log "$n" "$REPLANNED" $((before + 1)) || return 1
	done
}
ksft_test "rocepathd on every host re-planned from the topology with the link down" repin
ksft_test "ib_write_bw -q 4 on every connection at once, link down, re-planned" traffic failed
ksft_test "link down: every new flow on its re-planned path, busiest link = max_link_flows" \
	$CHECK plan "$W/plan-down.json" "$W/failed-flows.json"
fab link "$FAIL_A" "$FAIL_B" up >/dev/null

log "fabric guest: $(on_host "$FABRIC_HOST" "free -m | awk '/^Mem:/ { print \$3 \" MiB used of \" \$2 }'")"
ksft_exit
