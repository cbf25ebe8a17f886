#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Placement advisor benchmark: `rocepath place` (policy advise) against first
# fit and random choices (5 seeds) for a new job on fragmented placements:
#
#   - the example zone (examples/ai-zone, 512 GPUs) with job2 and job3 ended,
#     so 16 hosts are free in fragments of four racks;
#   - generated Meta-like zones (examples/ai-zone/gen.py, random ring order,
#     75% of hosts busy in fragments), 2k and 32k GPUs, with 16 uplinks per
#     leaf and with 4 (4:1 oversubscribed: 16 hosts, 4 spines per plane).
#
# Columns: racks the job spans; the plan's max link load (flows) before ->
# after and its lower bound after; the job's flows crossing the fabric;
# the job's bottleneck (most loaded link, NIC links included, on any of
# its flows' paths); t_ms, the simulated collective time; wall seconds of
# the command. Random: mean over the seeds, [best-worst seed] in brackets.
#
# Simulated time (bottleneck share model): every connection of the job
# moves 1 GiB (about a ring AllReduce of 512 MiB: 2 (N-1)/N of the buffer
# per connection) split evenly over its QPs, every link is 400 Gb/s, and a
# flow gets an equal share of its most loaded link; a ring proceeds in
# lock-step, so the slowest flow sets the time:
#   t = (1 GiB / qps) * 8 * job_max_link_flows / 400 Gb/s
# (21.5 ms x job_max_link_flows / qps). For all-to-all jobs the same model
# is reported (1 GiB per connection). Static: no congestion control, no rate
# increase when other flows finish; it ranks placements, it does not
# predict NCCL's wall time.
#
# Usage: scripts/bench/place_advisor.sh [quick]   ("quick": no 32k zone)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CLI=$TOP/daemon/rocepath
GEN=$TOP/examples/ai-zone/gen.py
make -s -C "$TOP/daemon" rocepath >/dev/null ||
	{ echo "place_advisor: make -C daemon rocepath failed" >&2; exit 1; }
dir=$(mktemp -d /tmp/rocepath-place.XXXXXX)
trap 'rm -rf "$dir"' EXIT
SEEDS="1 2 3 4 5"

# the example zone with job2 and job3 ended
mkdir -p "$dir/ex"
cp "$TOP/examples/ai-zone/topology.json" "$dir/ex/topology.json"
python3 - "$TOP/examples/ai-zone/placement.json" "$dir/ex/placement.json" <<'PY' ||
import json, sys
p = json.load(open(sys.argv[1]))
p["jobs"] = [j for j in p["jobs"] if j["id"] not in ("job2", "job3")]
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
	{ echo "place_advisor: cannot derive the example placement" >&2; exit 1; }

gen() { # NAME HOSTS [gen.py options]
	local name=$1 hosts=$2
	shift 2
	python3 "$GEN" --hosts "$hosts" --rails 8 --order random --fill 0.75 \
		"$@" -o "$dir/$name" >/dev/null ||
		{ echo "place_advisor: generator failed" >&2; exit 1; }
}
gen z2k 256
gen z2k4 256 --uplinks 4 --spines 4
if [ "${1:-}" != quick ]; then
	gen z32k 4096
	gen z32k4 4096 --uplinks 4 --spines 4
fi

# One policy run: prints "racks before after lb fabric jobmax t_ms wall_s".
one() { # DIR N PATTERN QPS POLICY...
	local d=$1 n=$2 pat=$3 qps=$4 t0 t1 out
	shift 4
	t0=$(date +%s.%N)
	out=$("$CLI" -j place topology "$d/topology.json" placement \
		"$d/placement.json" job bench hosts "$n" pattern "$pat" qps "$qps" \
		policy "$@") || return 1
	t1=$(date +%s.%N)
	python3 -c '
import json, sys
a = json.loads(sys.argv[1]); qps = int(sys.argv[2])
b, f = a["before"], a["after"]
t = (2**30 / qps) * 8 * f["job_max_link_flows"] / 400e9 * 1e3
print(len(a["racks"]), b["max_link_flows"], f["max_link_flows"],
      f["lower_bound"], f["job_fabric_flows"], f["job_max_link_flows"],
      "%.1f" % t, "%.2f" % (float(sys.argv[4]) - float(sys.argv[3])))
' "$out" "$qps" "$t0" "$t1"
}

fmt='%-44s %-9s %5s %15s %5s %6s %12s %18s %6s\n'
# shellcheck disable=SC2059
printf "$fmt" scenario policy racks max_link lb fabric job_max t_ms wall_s
row() { # LABEL POLICY "racks before after lb fabric jobmax t wall"
	local r
	read -ra r <<<"$3"
	# shellcheck disable=SC2059
	printf "$fmt" "$1" "$2" "${r[0]}" "${r[1]} -> ${r[2]}" "${r[3]}" \
		"${r[4]}" "${r[5]}" "${r[6]}" "${r[7]}"
}

scenario() { # LABEL DIR N PATTERN QPS
	local label=$1 d=$2 n=$3 pat=$4 qps=$5 res all=""
	res=$(one "$d" "$n" "$pat" "$qps" advise) ||
		{ echo "place_advisor: rocepath place failed" >&2; exit 1; }
	row "$label" advise "$res"
	res=$(one "$d" "$n" "$pat" "$qps" first-fit) ||
		{ echo "place_advisor: rocepath place failed" >&2; exit 1; }
	row "" first-fit "$res"
	for s in $SEEDS; do
		res=$(one "$d" "$n" "$pat" "$qps" random seed "$s") ||
			{ echo "place_advisor: rocepath place failed" >&2; exit 1; }
		all+="$res"$'\n'
	done
	# random: mean over the seeds, the best and worst seed in brackets
	res=$(awk 'NF { for (i = 1; i <= NF; i++) {
			s[i] += $i
			if (!n || $i > w[i]) w[i] = $i
			if (!n || $i < b[i]) b[i] = $i }
		n++ }
		END { printf "%.1f %d %.1f[%d-%d] %.1f %.0f %.1f[%d-%d] %.1f[%.1f-%.1f] %.2f\n",
			s[1]/n, s[2]/n, s[3]/n, b[3], w[3], s[4]/n, s[5]/n,
			s[6]/n, b[6], w[6], s[7]/n, b[7], w[7], s[8]/n }' <<<"$all")
	row "" random "$res"
}

scenario "example zone, job2+3 ended: ring 8 hosts" "$dir/ex" 8 ring 4
scenario "example zone, job2+3 ended: alltoall 8" "$dir/ex" 8 alltoall 1
scenario "2k GPUs, 75% busy: ring 32 hosts" "$dir/z2k" 32 ring 4
scenario "2k GPUs, 75% busy: alltoall 16 hosts" "$dir/z2k" 16 alltoall 1
scenario "2k GPUs 4:1 oversub., 75% busy: ring 32" "$dir/z2k4" 32 ring 4
scenario "2k GPUs 4:1 oversub., 75% busy: alltoall 16" "$dir/z2k4" 16 alltoall 1
if [ "${1:-}" != quick ]; then
	scenario "32k GPUs, 75% busy: ring 256 hosts" "$dir/z32k" 256 ring 4
	scenario "32k GPUs, 75% busy: alltoall 32 hosts" "$dir/z32k" 32 alltoall 1
	scenario "32k GPUs 4:1 oversub., 75% busy: ring 256" "$dir/z32k4" 256 ring 4
	scenario "32k GPUs 4:1 oversub., 75% busy: alltoall 32" "$dir/z32k4" 32 alltoall 1
fi
