#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: two soft-RoCE hosts in QEMU run rocepathd on the bundled
# two-host example (examples/two-host: h1 192.0.2.1 on leaf0, h2 192.0.2.2 on
# leaf1, four spines, a switch hash model under which the default ports
# collide), drive RDMA traffic with several QPs, and show the plan, the pinned
# QPs and the per-flow ECN/CNP counters from each host.
#
# Then, part 2, the same idea on a fabric that really forwards
# (examples/fabric: 2 leaves, 4 spines, 4 host guests and a fabric guest,
# Documentation/fabric.rst): every host sends at once, first on the ports
# the RDMA core derives from the QP numbers, then with rocepathd's plan,
# then with a link down; the busiest spine link is counted on the fabric's
# links, not taken from the planner's model.
#
# Usage: scripts/demo.sh [-k 6.1|6.12] [--no-fabric]
#        (as root; a few minutes under TCG, about three more for part 2)
# The guest part runs as `scripts/demo.sh --guest` under scripts/vm/run.sh.

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)

# Part 2: selftests/fabric_balance.sh on the fabric, its findings shown
# in the demo's words. Every figure comes from the fabric guest's
# per-link packet captures and counters (selftests/fabric_check.py).
demo_fabric() { # KERNEL-RELEASE
	local out rc unpinned planned failed
	out=$(mktemp) || return 1
	printf '\n\033[1m%s\033[0m\n' "=== part 2: the plan on a leaf-spine fabric that forwards ==="
	echo "  examples/fabric: leaf0 and leaf1, 4 spines, h1 h2 on leaf0, h3 h4 on leaf1; every"
	echo "  switch a network namespace in a fabric guest, ECMP routes that hash the UDP"
	echo "  source port; every host runs ib_write_bw -q 4 to the other leaf's hosts at once."
	echo "demo: booting 4 host guests and the fabric guest (TCG: about three minutes)..."
	"$TOP/scripts/vm/run.sh" -k "$1" -t 900 "$TOP/selftests/fabric_balance.sh" >"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" != 0 ]; then
		tail -n 30 "$out" "$out.err"
		echo "demo: the fabric run failed (exit $rc)"
		rm -f "$out" "$out.err"
		return 1
	fi
	# The uplinks (leaf -> spine) of each phase's byte table; the reverse
	# direction carries the same flows' replies.
	sed -n 's/^.*# bytes per spine link, \(.*\)$/  bytes per uplink (leaf -> spine), \1/p
		s/^.*# \(observed .*\|plan.*\)$/  \1/p
		s/^.*#   # \(leaf[^ ]* *spine[0-9].*\)$/      \1/p' "$out" |
		cut -c1-160
	unpinned=$(sed -n 's/.*observed without pinning: .*busiest spine link \([0-9]*\) flows.*/\1/p' "$out" | head -n1)
	planned=$(sed -n 's/.*observed with the plan: .*busiest spine link \([0-9]*\) flows.*/\1/p' "$out" | head -n1)
	failed=$(sed -n 's/.*observed with the plan: .*busiest spine link \([0-9]*\) flows.*/\1/p' "$out" | sed -n 2p)
	rm -f "$out" "$out.err"
	if [ -z "$unpinned" ] || [ -z "$planned" ]; then
		echo "demo: no observed link loads in the fabric run"
		return 1
	fi
	printf '\n\033[1m  => busiest spine link: %s flows with the plan, %s with default ports%s\033[0m\n' \
		"$planned" "$unpinned" "${failed:+ ($failed with a link down, re-planned)}"
	echo "     (counted on the fabric's links while the traffic ran)"
}

if [ "${1:-}" != --guest ]; then
	kern=6.12 fabric=1
	while [ $# -gt 0 ]; do
		case $1 in
		-k) kern=${2:?-k needs 6.1 or 6.12}; shift 2 ;;
		--no-fabric) fabric=0; shift ;;
		*) echo "usage: scripts/demo.sh [-k 6.1|6.12] [--no-fabric]" >&2; exit 2 ;;
		esac
	done
	# shellcheck disable=SC1091
	. "$TOP/.cache/kernels.env" 2>/dev/null || { "$TOP/scripts/deps.sh" && . "$TOP/.cache/kernels.env"; }
	case $kern in
	6.1) rel=$KREL_61 ;;
	6.12) rel=$KREL_612 ;;
	*) rel=$kern ;;
	esac
	start=$(date +%s)
	ko=$TOP/build/$rel/rocepath.ko
	if [ ! -f "$ko" ] || [ -n "$(find "$TOP/kmod" "$TOP/include" "$TOP/Kbuild" -newer "$ko" -print -quit)" ]; then
		echo "demo: building rocepath.ko for $rel..."
		"$TOP/scripts/kbuild.sh" "$rel" >/dev/null || { echo "demo: module build failed" >&2; exit 1; }
	fi
	echo "demo: building the userspace tools..."
	make -s -C "$TOP/daemon" >/dev/null || { echo "demo: make -C daemon failed" >&2; exit 1; }
	echo "demo: booting two QEMU guests (TCG: slow, about a minute)..."
	"$TOP/scripts/vm/run.sh" -k "$rel" -t 600 scripts/demo.sh --guest
	rc=$?
	if [ "$rc" = 0 ] && [ "$fabric" = 1 ]; then
		demo_fabric "$rel"
		rc=$?
	fi
	echo "demo: finished in $(($(date +%s) - start)) s (exit $rc)"
	exit $rc
fi

# ---- Inside guest h1 (the driver); h2 is reached with on_host. ----
cd "$ROCEPATH_TOP" || exit 1
# shellcheck disable=SC1091
source selftests/lib.sh
# shellcheck disable=SC1091
source selftests/daemon_lib.sh
RP=$RP_CLI
TOPO=$RPD_EXAMPLE/topology.json
PLACE=$RPD_EXAMPLE/placement.json
QPS=4

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }
note() { printf '  %s\n' "$*"; }
indent() { sed 's/^/    /'; }

cleanup_demo() {
	for n in 1 2; do rpd_stop $n >/dev/null 2>&1; done
	rpd_save_logs
}
defer cleanup_demo

say "=== rocepath demo: two soft-RoCE hosts in QEMU, rocepathd on each ==="
note "Cluster (examples/two-host): h1 192.0.2.1 on leaf0, h2 192.0.2.2 on leaf1,"
note "4 spines; job 'demo' is a ring h1 -> h2 -> h1 with $QPS QPs per connection."

for n in 1 2; do
	rpd_setup $n >/dev/null || { echo "cannot load $ROCEPATH_KO on h$n"; exit 1; }
	on_host $n "sed -i 's/\"debug\"/\"info\"/' $RPD_DIR/rocepathd.conf"
	rpd_start $n
done
for n in 1 2; do
	rpd_wait_log $n 'ready: ' || exit 1
done

say "1. The plan: \`rocepath plan topology $TOPO placement $PLACE\`"
note "Each flow gets a UDP source port chosen so that the switches' hash puts the"
note "flows on different spines (path = switches crossed). max_link_flows is the"
note "busiest fabric link with the planned ports; ecmp_max_link_flows is the same"
note "flows with the ports the RDMA core derives from the QP numbers"
note "(default_sport: what you get without rocepath)."
if plan_text=$("$RP" plan topology "$TOPO" placement "$PLACE" 2>/dev/null); then
	echo "$plan_text" | indent
	"$RP" -j plan topology "$TOPO" placement "$PLACE" | python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
print("  => busiest fabric link: %d flow(s) with the plan vs %d with default ports (lower bound %d)"
      % (s["max_link_flows"], s["ecmp_max_link_flows"], s["lower_bound"]))'
else
	note "(rocepath plan unavailable; the same planner via rocepathd --check:)"
	for h in h1 h2; do
		printf '{"topology": "%s", "placement": "%s", "host": "%s"}' \
			"$TOPO" "$PLACE" "$h" >"$RUN_DIR/check-$h.conf"
		"$RPD_BIN" -c "$RUN_DIR/check-$h.conf" --check | indent
	done
fi

say "2. What rocepathd did on each host (its log) and \`rocepath pin show\`"
note "Each daemon computed the same plan, took its own host's flows and installed"
note "them as one path set per remote (atomic pin-replace), plus the DCQCN profile."
for n in 1 2; do
	echo "  h$n:"
	on_host $n "grep -E 'plan for host|pins installed|dcqcn: |ready' $RPD_DIR/rocepathd.log |
		sed 's/^[^ ]* rocepathd [a-z]*: //'" | indent
	on_host $n "'$RP' pin show" | indent
done

say "3. RDMA traffic: ib_write_bw with $QPS QPs, h1 (client) -> h2 (server)"
note "Every new QP to a pinned remote takes the path-set port with the fewest live"
note "QPs, so the $QPS QPs spread over the $QPS planned paths."
gs=$(rpd_gid 2) && gc=$(rpd_gid 1) || { echo "no IPv4 RoCEv2 GID"; exit 1; }
on_host_bg 2 bw_srv "timeout 150 ib_write_bw -d '$IBDEV' -x $gs -q $QPS -s 4096 -D 30 -F"
sleep 1
on_host_bg 1 bw_cli "for i in \$(seq 20); do timeout 150 ib_write_bw -d '$IBDEV' -x $gc -q $QPS \
	-s 4096 -D 30 -F 192.0.2.2 && exit 0; sleep 1; done; exit 1"
# Take the QP tables as soon as all QPs are up (they go away with the traffic).
qp1= qp2=
for i in $(seq 90); do
	qp1=$(on_host 1 "'$RP' qp show" 2>/dev/null)
	if [ "$(grep -c pinned <<<"$qp1")" -ge $QPS ]; then
		qp2=$(on_host 2 "'$RP' qp show" 2>/dev/null)
		break
	fi
	sleep 1
done

say "4. \`rocepath qp show\` on each host, while the traffic runs"
note "sport = the UDP source port the QP uses on the wire (its ECMP path);"
note "pinned = chosen by rocepathd's plan instead of derived from the QP numbers"
note "(default_sport = the port the RDMA core would have used)."
echo "  h1:"
echo "$qp1" | indent
echo "  h2:"
echo "$qp2" | indent

wait_bg 1 bw_cli 120 >"$RUN_DIR/bw_client.out" 2>&1 || { echo "ib_write_bw client failed:"; tail -n 5 "$RUN_DIR/bw_client.out"; }
wait_bg 2 bw_srv 120 >"$RUN_DIR/bw_server.out" 2>&1

say "5. \`rocepath flow show\` on each host: per-flow counters"
note "tx/rx packets and bytes per RoCEv2 flow (local, remote, sport, dest QP);"
note "rx_ect/rx_ce = ECN-capable / congestion-marked packets received, cnp_tx/cnp_rx"
note "= congestion notifications; with rp_enable 1 the module sends rxe data as"
note "ECT(0), so rx_ect counts up on the receiver (no switch marks CE here)."
for n in 1 2; do
	echo "  h$n:"
	on_host $n "'$RP' flow show" | indent
done
on_host 1 "'$RP' -j flow show" | python3 -c '
import json, sys
f = [x for x in json.load(sys.stdin) if x["remote"] == "192.0.2.2"]
print("  => h1 sent %d packets to h2 on %d flows (ports %s)" % (sum(x["tx_packets"] for x in f),
      len(f), ",".join(str(p) for p in sorted(x["sport"] for x in f))))' 2>/dev/null

say "Done. Daemon logs: $RUN_DIR/h1-rocepathd.log, h2-rocepathd.log (kept with ROCEPATH_VM_KEEP=1)"
exit 0
