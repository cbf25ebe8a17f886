#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Probe budget simulation (Documentation/fabric.rst, "A fabric-wide probe
# budget"): the probe rounds of 16,384 hosts x 8 rails after a spine
# change, every host at once and in rocepathd's slot schedule for
# per-switch budgets from 5000 down to 20 answers per second; the peak
# answers per second one spine is asked for and the time until every host
# has its answers (scripts/bench/probe_budget.py). The schedule is the
# daemon's own, from `rocepath probe schedule` on a gen.py zone of that
# size. Computed, nothing is sent.
#
# Usage: scripts/bench/probe_budget.sh [quick]   ("quick": 1,024 hosts)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HOSTS=16384
[ "${1:-}" = quick ] && HOSTS=1024
nice -n 19 make -s -C "$TOP/daemon" rocepath || exit 1
TMP=$(mktemp -d /tmp/probe-budget.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
python3 "$TOP/examples/ai-zone/gen.py" --hosts "$HOSTS" --rails 8 \
	--spines 16 --uplinks 16 --hosts-per-leaf 16 -o "$TMP" >/dev/null || exit 1
python3 "$TOP/scripts/bench/probe_budget.py" --hosts "$HOSTS" \
	--rocepath "$TOP/daemon/rocepath" --topology "$TMP/topology.json"
