#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rocepathd memory on a 32,768-GPU cluster (examples/ai-zone/gen.py: 4096
# hosts x 8 rails, rail-optimised two-tier Clos, ring jobs with 4 QPs per
# connection): the daemon runs in dry-run mode (-n, plans but touches no
# kernel) on the host, and we read its VmRSS (steady, after the plan) and
# VmHWM (peak, while planning) from /proc, plus the time to the first plan,
# to a re-plan of the same placement, and to a stable re-plan when the
# last job ends (the previous placement planned first, then the new one).
#
# Usage: scripts/bench/daemon_rss.sh [HOSTS [RAILS]]

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HOSTS=${1:-4096}
RAILS=${2:-8}
RPD=$TOP/daemon/rocepathd/rocepathd
make -s -C "$TOP/daemon" >/dev/null || { echo "daemon_rss: make -C daemon failed" >&2; exit 1; }
dir=$(mktemp -d /tmp/rocepathd-rss.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

python3 "$TOP/examples/ai-zone/gen.py" --hosts "$HOSTS" --rails "$RAILS" -o "$dir" >/dev/null ||
	{ echo "daemon_rss: generator failed" >&2; exit 1; }
host=$(python3 -c "import json; print(json.load(open('$dir/topology.json'))['hosts'][0]['name'])")
printf '{"topology": "topology.json", "placement": "placement.json", "host": "%s", "debounce_ms": 0, "state_dir": "state"}\n' \
	"$host" >"$dir/rocepathd.conf"

status() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$pid/status"; }
wait_log() {
	local pat=$1 min=$2 i
	for ((i = 0; i < 1200; i++)); do
		[ "$(grep -c "$pat" "$dir/log")" -ge "$min" ] && return 0
		sleep 0.1
	done
	echo "daemon_rss: timed out waiting for '$pat'" >&2
	tail -n 5 "$dir/log" >&2
	return 1
}

t0=$(date +%s%N)
"$RPD" -n -c "$dir/rocepathd.conf" 2>"$dir/log" &
pid=$!
wait_log 'ready: ' 1 || exit 1
t1=$(date +%s%N)
sleep 0.5
rss1=$(status VmRSS)
hwm1=$(status VmHWM)
# A placement change: same content, new inode (rename over) -> full re-plan.
cp "$dir/placement.json" "$dir/p.tmp" && mv "$dir/p.tmp" "$dir/placement.json"
wait_log 'file change' 1 || exit 1
sleep 0.5
rss2=$(status VmRSS)
hwm2=$(status VmHWM)
# The last job ends: a stable re-plan with the placement before as previous.
python3 -c "
import json
p = json.load(open('$dir/placement.json'))
p['jobs'] = p['jobs'][:-1]
json.dump(p, open('$dir/p.tmp', 'w'))" && mv "$dir/p.tmp" "$dir/placement.json"
wait_log 'file change' 2 || exit 1
sleep 0.5
rss3=$(status VmRSS)
hwm3=$(status VmHWM)
plan=$(grep -m1 'plan for host' "$dir/log" | sed 's/.*(fabric: \([^)]*\)).*/\1/')
latency() { grep 'file change' "$dir/log" | sed -n "${1}p" |
	sed 's/.*(\([0-9]*\) ms).*/\1/; s/.*installed \([0-9]*\) ms.*/\1/'; }
lat=$(latency 1)
lat3=$(latency 2)
grep -q 'stable re-plan from' "$dir/log" ||
	{ echo "daemon_rss: the job end was not planned as a stable re-plan" >&2; exit 1; }

echo "rocepathd memory, $((HOSTS * RAILS))-GPU cluster ($HOSTS hosts x $RAILS rails), dry run"
echo "plan: $plan"
printf '%-40s %12s\n' "metric" "value"
printf '%-40s %12s\n' "start to first plan installed (ms)" "$(((t1 - t0) / 1000000))"
printf '%-40s %12s\n' "VmRSS after first plan (KiB)" "$rss1"
printf '%-40s %12s\n' "VmHWM during first plan (KiB)" "$hwm1"
printf '%-40s %12s\n' "re-plan on file change, debounce 0 (ms)" "$lat"
printf '%-40s %12s\n' "VmRSS after re-plan (KiB)" "$rss2"
printf '%-40s %12s\n' "VmHWM after re-plan (KiB)" "$hwm2"
printf '%-40s %12s\n' "stable re-plan, a job ends (ms)" "$lat3"
printf '%-40s %12s\n' "VmRSS after stable re-plan (KiB)" "$rss3"
printf '%-40s %12s\n' "VmHWM after stable re-plan (KiB)" "$hwm3"
