#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Planner benchmark on a Meta-like AI zone (examples/ai-zone/gen.py): a
# rail-optimised two-tier Clos, 16 hosts per leaf, 16 spines per rail plane,
# 16 uplinks per leaf, 8 rails; four ring jobs (1/2, 1/4, 1/8, 1/8 of the
# hosts) placed in fragments, 4 QPs per connection.
#
# Table 1 (32,768 GPUs = 4096 hosts x 8 rails): plan time and peak RSS of
# one planner run (CPU time, one thread; parse = both JSON files), max
# directed link load of the plan / its lower bound, of ECMP on the default
# QPN-derived ports and of destination-slice pinning, and the collective's
# completion time under a max-min fair flow model (400 Gb/s links, 1 GiB
# per connection). Table 2: plan time from 1k to 32k GPUs.
#
# Usage: scripts/bench/planner.sh [quick]   ("quick": 2k GPUs only)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=$TOP/daemon/bench/planbench
GEN=$TOP/examples/ai-zone/gen.py
make -s -C "$TOP/daemon" bench >/dev/null ||
	{ echo "planner: make -C daemon bench failed" >&2; exit 1; }
dir=$(mktemp -d /tmp/rocepath-planner.XXXXXX)
trap 'rm -rf "$dir"' EXIT

HOSTS=4096
[ "${1:-}" = quick ] && HOSTS=256

# name|generator options
scenarios=(
	"scheduler order|--order host"
	"random ring order|--order random"
	"random order, 2% links down|--order random --down 0.02"
	"random order, 75% of hosts busy|--order random --fill 0.75"
)

kv() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

echo "Planner, $((HOSTS * 8)) GPUs ($HOSTS hosts x 8 rails), ring, 4 QPs/connection"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 1 }'; }
fmt='%-32s %7s %7s %7s %7s %4s %9s %8s %8s %9s %9s %10s\n'
# shellcheck disable=SC2059
printf "$fmt" scenario flows parse_s plan_s rss_MiB lb plan/lb ecmp/lb slice/lb \
	t_plan_ms t_ecmp_ms t_slice_ms
for s in "${scenarios[@]}"; do
	name=${s%%|*}
	opts=${s#*|}
	# shellcheck disable=SC2086
	python3 "$GEN" --hosts "$HOSTS" --rails 8 $opts -o "$dir/z" >/dev/null ||
		{ echo "planner: generator failed" >&2; exit 1; }
	out=$("$BENCH" "$dir/z/topology.json" "$dir/z/placement.json") ||
		{ echo "planner: planbench failed" >&2; exit 1; }
	lb=$(kv lb "$out")
	# shellcheck disable=SC2059
	printf "$fmt" "$name" \
		"$(kv flows "$out")" "$(kv parse_s "$out")" "$(kv plan_s "$out")" \
		"$(kv maxrss_mib "$out")" "$lb" \
		"$(kv max "$out") $(ratio "$(kv max "$out")" "$lb")" \
		"$(kv ecmp "$out") $(ratio "$(kv ecmp "$out")" "$lb")" \
		"$(kv slice "$out") $(ratio "$(kv slice "$out")" "$lb")" \
		"$(kv t_plan_ms "$out")" "$(kv t_ecmp_ms "$out")" "$(kv t_slice_ms "$out")"
done

echo
echo "Plan time scaling (random ring order)"
printf '%8s %7s %8s %8s %8s %6s %6s\n' GPUs flows parse_s plan_s rss_MiB plan lb
for h in 128 256 512 1024 2048 4096; do
	[ "$h" -gt "$HOSTS" ] && break
	python3 "$GEN" --hosts "$h" --rails 8 --order random -o "$dir/s" >/dev/null ||
		{ echo "planner: generator failed" >&2; exit 1; }
	out=$("$BENCH" "$dir/s/topology.json" "$dir/s/placement.json") ||
		{ echo "planner: planbench failed" >&2; exit 1; }
	printf '%8s %7s %8s %8s %8s %6s %6s\n' $((h * 8)) "$(kv flows "$out")" \
		"$(kv parse_s "$out")" "$(kv plan_s "$out")" "$(kv maxrss_mib "$out")" \
		"$(kv max "$out")" "$(kv lb "$out")"
done
