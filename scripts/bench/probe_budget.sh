#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Probe budget simulation (Documentation/fabric.rst, "A fabric-wide probe
# budget"): the probe rounds of 16,384 hosts x 8 rails after a spine
# change, every host at once and in the slot schedule for per-switch
# budgets of 5000, 1000 and 500 answers per second; the peak answers per
# second one spine is asked for and the time until every host has its
# answers (scripts/bench/probe_budget.py). Computed, nothing is sent.
#
# Usage: scripts/bench/probe_budget.sh [quick]   ("quick": 1,024 hosts)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HOSTS=16384
[ "${1:-}" = quick ] && HOSTS=1024
exec python3 "$TOP/scripts/bench/probe_budget.py" --hosts "$HOSTS"
