#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Congestion from a real queue on the QEMU leaf-spine fabric
# (Documentation/fabric.rst): selftests/fabric_congestion.sh with longer
# phases (FABRIC_CONG_SECS, default 20) and an ECN-only phase between
# DCQCN off and on (FABRIC_CONG_PHASES, default "off ecn on"). h1 and h2
# write to h3 at once through leaf1's port to h3, shaped by tbf to
# FABRIC_CONG_RATE_KBIT (default 4000) behind a RED queue that marks ECN.
# Prints per phase, from the red qdisc's own statistics (tc -s, sampled
# every 0.2 s): backlog peak and mean, drops, CE marks; CE marks and CNPs
# counted by rocepath on h3; ib_write_bw's goodput per sender, their total
# and Jain's fairness index. TCG: rates are emulated, compare the phases.
# Usage: scripts/bench/fabric_congestion.sh [-k KERNEL]

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
kernel=6.12
[ "${1:-}" = -k ] && kernel=$2

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.err"' EXIT
t0=$(date +%s)
FABRIC_CONG_SECS=${FABRIC_CONG_SECS:-20} \
	FABRIC_CONG_PHASES=${FABRIC_CONG_PHASES:-off ecn on} \
	"$TOP/scripts/vm/run.sh" -k "$kernel" -t 1200 \
	"$TOP/selftests/fabric_congestion.sh" >"$tmp" 2>"$tmp.err"
rc=$?
boot=$(sed -n 's/.*ready after \([0-9.]*\)s wall.*/\1/p' "$tmp.err")
# The test's own verdicts stay visible: a failed assertion is a finding.
grep -E '^(not )?ok ' "$tmp" | sed 's/^/  /'
if [ "$rc" != 0 ] && ! grep -q '^# | ' "$tmp"; then
	cat "$tmp" "$tmp.err"
	echo "fabric_congestion: the run failed (exit $rc)"
	exit 1
fi
echo "kernel $kernel: 5 guests ready after ${boot:-?} s wall, whole run $(($(date +%s) - t0)) s"
sed -n 's/^# \(incast: .*\)/\1/p; s/^# \(bottleneck .*\)/\1/p; s/^# | //p; s/^# \(fabric guest: .*\)/\1/p' "$tmp"
[ "$rc" = 0 ] || echo "fabric_congestion: the selftest reported failures (exit $rc), figures above"
exit "$rc"
