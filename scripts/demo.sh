#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: two soft-RoCE hosts in QEMU run rocepathd on the bundled
# two-host example (examples/two-host: h1 192.0.2.1 on leaf0, h2 192.0.2.2 on
# leaf1, four spines, a switch hash model under which the default ports
# collide), drive RDMA traffic with several QPs, and show the plan, the pinned
# QPs and the per-flow ECN/CNP counters from each host.
#
# Usage: scripts/demo.sh [-k 6.1|6.12]   (as root; a few minutes under TCG)
# The guest part runs as `scripts/demo.sh --guest` under scripts/vm/run.sh.

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" != --guest ]; then
	kern=6.12
	[ "${1:-}" = -k ] && kern=${2:?-k needs 6.1 or 6.12}
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
