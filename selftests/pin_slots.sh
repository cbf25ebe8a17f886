#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No local user can make another's modify go unpinned: while uid 65534
# loops RESET->INIT->RTR on 2,048 RC QPs from 128 threads towards an
# address nobody answers (each RTR sleeps in the RDMA core, holding a
# return-probe slot; the module is loaded with the fewest slots, 16, so
# that they run out for certain), root's QPs to a pinned remote are all
# pinned: 32 kept in RTR show in qp show on the path set, spread evenly,
# and ib_write_bw -q 8's packets leave only on the path set's ports. The
# exhaustion is real (probe-missed grows), the entry hook missed nothing
# (hook-missed 0) and what no return reported was settled from the QPs'
# state (verdicts-inferred).
# rpvm-timeout: 900

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/cap_lib.sh"

require_module
require_cli
require_cmd ib_write_bw tcpdump setpriv python3
churn_prog
helper_prog FLOOD qp_modify_flood -libverbs -lpthread
GIDX=$(gid_index "$IBDEV" "$HOST_IP4") || ksft_skip_all "no RoCEv2 GID for $HOST_IP4"
PORTS="50200,50201,50202,50203"
# On the test link, never configured on any guest: no neighbour answers.
DEAD=192.0.2.250
FIFO=$(mktemp -u /tmp/pin_slots.XXXXXX)
defer rm -f "$FIFO"

rp_load 1 probe_slots=16 || ksft_skip_all "cannot load $ROCEPATH_KO"
defer rp_unload 1

stat() {
	"$RP_CLI" -j stats | py -c "import json,sys; print(json.load(sys.stdin)['${1//-/_}'])"
}

"$RP_CLI" pin add remote "$PEER_IP4" sport "$PORTS" >/dev/null ||
	ksft_skip_all "rocepath pin add failed"

# The attacker, unprivileged, as long as the whole test takes.
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$FLOOD" -d "$IBDEV" -g "$GIDX" -a "$DEAD" -q 2048 -t 128 -s 400 \
	>"$RUN_DIR/flood.out" 2>&1 &
FLOOD_PID=$!
defer kill "$FLOOD_PID"
retry 240 0.5 grep -q '^ready' "$RUN_DIR/flood.out" ||
	{ cat "$RUN_DIR/flood.out"; ksft_skip_all "uid 65534 could not create 2,048 QPs"; }
missed0=$(stat probe-missed)
# The slots run out within the first neighbour timeouts.
exhausted() { [ "$(stat probe-missed)" -gt "$missed0" ]; }
ksft_test "uid 65534's modifies exhaust the return-probe slots (probe-missed grows)" \
	retry 60 1 exhausted

# (a) 32 QPs kept in RTR: each in qp show, pinned on the path set, 8 a port.
rm -f "$FIFO"
mkfifo "$FIFO"
"$CHURN" -d "$IBDEV" -g "$GIDX" -a "$PEER_IP4" -n 32 -k <"$FIFO" >"$RUN_DIR/keep.out" 2>&1 &
KEEP_PID=$!
exec 7>"$FIFO"
kept() { grep -q "^qp 31 " "$RUN_DIR/keep.out"; }
if retry 240 0.5 kept; then
	pinned=$("$RP_CLI" -j qp show | py -c '
import collections, ipaddress, json, sys
peer, ports = sys.argv[1], {int(p) for p in sys.argv[2].split(",")}
qps = [q for q in json.load(sys.stdin) if q["remote"] == peer]
good = [q for q in qps if q["pinned"] and q["sport"] in ports]
spread = collections.Counter(q["sport"] for q in good)
print(len(qps), len(good), " ".join("%d:%d" % kv for kv in sorted(spread.items())))' \
		"$PEER_IP4" "$PORTS")
	log "qp show: QPs to the peer, pinned on the path set, spread: $pinned"
	[ "$pinned" = "32 32 50200:8 50201:8 50202:8 50203:8" ] &&
		ksft_pass "under the flood, 32 of 32 root QPs pinned in qp show, 8 per port" ||
		ksft_fail "under the flood, 32 of 32 root QPs pinned in qp show, 8 per port (got $pinned)"
else
	sed 's/^/# /' "$RUN_DIR/keep.out"
	ksft_fail "under the flood, 32 of 32 root QPs pinned in qp show, 8 per port (pin_qp_churn did not finish)"
fi
echo >&7
exec 7>&-
wait "$KEEP_PID"

# (b) ib_write_bw -q 8 under the flood: every packet on a path-set port.
cap_start 2 slots-at2 "udp dst port 4791 and src host $HOST_IP4" ||
	ksft_fail "capture at h2 started"
if rdma_write_bw -q 8 -n 100 >"$RUN_DIR/bw.out" 2>&1; then
	cap_stop 2 slots-at2
	wire=$(cap_sports slots-at2 "$HOST_IP4")
	echo "$wire" | sed 's/^/# wire: /'
	bad=$(echo "$wire" | awk -v p="$PORTS" 'BEGIN { split(p, a, ","); for (i in a) ok[a[i]] = 1 }
		NF == 2 && !($2 in ok) { print $2 }')
	[ -n "$wire" ] && [ -z "$bad" ] &&
		ksft_pass "under the flood, ib_write_bw -q 8 leaves only on the path set's ports" ||
		ksft_fail "under the flood, ib_write_bw -q 8 leaves only on the path set's ports (others: ${bad:-none captured})"
else
	cap_stop 2 slots-at2
	sed 's/^/# /' "$RUN_DIR/bw.out"
	ksft_fail "under the flood, ib_write_bw -q 8 ran"
fi

kill "$FLOOD_PID" 2>/dev/null
wait "$FLOOD_PID" 2>/dev/null
sed 's/^/# flood: /' "$RUN_DIR/flood.out"
log "probe-missed $(stat probe-missed) hook-missed $(stat hook-missed) verdicts-inferred $(stat verdicts-inferred)"
[ "$(stat hook-missed)" = 0 ] &&
	ksft_pass "the entry hook saw every modify and destroy (hook-missed 0)" ||
	ksft_fail "the entry hook saw every modify and destroy (hook-missed $(stat hook-missed))"
[ "$(stat verdicts-inferred)" -gt 0 ] &&
	ksft_pass "records no return probe settled were settled from the QP state" ||
	ksft_fail "records no return probe settled were settled from the QP state (verdicts-inferred 0)"

ksft_exit
