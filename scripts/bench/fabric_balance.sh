#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The plan's balance on the QEMU leaf-spine fabric (Documentation/fabric.rst):
# selftests/fabric_balance.sh with more traffic (FABRIC_ITERS writes of
# FABRIC_MSG_SIZE bytes per QP, default 200 x 4096), then its figures: per
# directed spine link, flows and bytes without pinning (QPN-derived ports,
# the leaves' real hash), with rocepathd's plan, and with one link down
# after the re-plan; boot time and the fabric guest's memory. TCG: bytes
# and flow counts mean something, rates do not.
# Usage: scripts/bench/fabric_balance.sh [-k KERNEL]

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
kernel=6.12
[ "${1:-}" = -k ] && kernel=$2

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.err"' EXIT
t0=$(date +%s)
FABRIC_ITERS=${FABRIC_ITERS:-200} FABRIC_MSG_SIZE=${FABRIC_MSG_SIZE:-4096} \
	"$TOP/scripts/vm/run.sh" -k "$kernel" -t 900 \
	"$TOP/selftests/fabric_balance.sh" >"$tmp" 2>"$tmp.err"
rc=$?
boot=$(sed -n 's/.*ready after \([0-9.]*\)s wall.*/\1/p' "$tmp.err")
if [ "$rc" != 0 ]; then
	cat "$tmp" "$tmp.err"
	echo "fabric_balance: the run failed (exit $rc)"
	exit 1
fi
echo "kernel $kernel: 5 guests ready after ${boot:-?} s wall, whole run $(($(date +%s) - t0)) s"
sed -n 's/^# \(fabric guest: .*\)/\1/p' "$tmp"
# The test's report: per phase (unpinned, planned, failed = one link down
# and re-planned) the bytes per spine link, then the flows per link.
sed -n 's/^#   # //p; s/^# \(plan.*\)/\1/p' "$tmp" | cut -c1-200
