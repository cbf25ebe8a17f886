#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fleet simulation (Documentation/daemon.rst, "Auditing the fleet"): one
# `rocepathd -n` (dry-run backend) per host of a HOSTS-host x 8-rail zone
# (examples/ai-zone/gen.py, four ring jobs), all on this machine, all
# planning from one topology and one placement file. The placement goes
# through the jobs starting one by one, then ending one by one, each
# written as the Slurm prolog writes it (temporary file renamed over).
# Per change (scripts/bench/fleet_sim.py):
#   digests   distinct plan digests once every daemon re-planned (1: agree)
#   first_ms  write -> the first daemon's plan logged
#   conv_ms   write -> the last daemon's plan logged (every digest agrees)
#   cpu_ms    CPU (user + system) per daemon for the change: mean, median,
#             max; includes the debounce and the dry-run push, not only
#             the plan
#   rss_MiB   resident size per daemon after the change: mean, max
# All daemons share this machine's cores, so conv_ms is about HOSTS x
# cpu_ms / cores here; on a real fleet every host plans on its own CPU and
# a change converges in debounce_ms + one plan (+ poll_interval_ms on NFS).
# The extrapolation line plans one host of a 16,384-host x 8-rail zone
# (131,072 GPUs) with `rocepathd --check`, the daemon's own path.
#
# Usage: scripts/bench/fleet.sh [HOSTS]   (default 256; "quick": 32)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HOSTS=${1:-256}
[ "$HOSTS" = quick ] && HOSTS=32
RPD=$TOP/daemon/rocepathd/rocepathd
make -s -C "$TOP/daemon" rocepathd/rocepathd >/dev/null ||
	{ echo "fleet: make -C daemon failed" >&2; exit 1; }
dir=$(mktemp -d /tmp/rocepath-fleet.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ulimit -n 4096 2>/dev/null
# one inotify instance per daemon: the default of 128 per user is too few
inst=$(cat /proc/sys/fs/inotify/max_user_instances)
if [ "$inst" -lt $((HOSTS + 64)) ]; then
	echo $((HOSTS + 64)) >/proc/sys/fs/inotify/max_user_instances ||
		{ echo "fleet: needs fs.inotify.max_user_instances >= $((HOSTS + 64))" >&2; exit 1; }
	trap 'echo "$inst" >/proc/sys/fs/inotify/max_user_instances; rm -rf "$dir"' EXIT
fi

python3 "$TOP/examples/ai-zone/gen.py" --hosts "$HOSTS" --rails 8 \
	--order random -o "$dir" >/dev/null ||
	{ echo "fleet: gen.py failed" >&2; exit 1; }
python3 "$TOP/scripts/bench/fleet_sim.py" --daemon "$RPD" --dir "$dir" || exit 1

big=$dir/big
python3 "$TOP/examples/ai-zone/gen.py" --hosts 16384 --rails 8 \
	--order random -o "$big" >/dev/null ||
	{ echo "fleet: gen.py (131k) failed" >&2; exit 1; }
printf '{"topology": "topology.json", "placement": "placement.json", "host": "%s"}\n' \
	"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hosts"][0]["name"])' "$big/topology.json")" \
	>"$big/rocepathd.conf"
# one host's plan as the daemon computes it: CPU seconds and peak RSS
python3 - "$RPD" "$big/rocepathd.conf" <<'PY' || exit 1
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "-c", sys.argv[2], "--check"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
if r.returncode:
    sys.exit("fleet: rocepathd --check on 131,072 GPUs failed: "
             + r.stderr.decode())
u = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = u.ru_utime + u.ru_stime
print("Extrapolation to 16,384 hosts x 8 rails (131,072 GPUs): one host's plan"
      " (rocepathd --check) took %.2f s of CPU, peak RSS %d MiB. Each host"
      " plans on its own CPU, so a change converges in about debounce_ms"
      " (0.2 s) + %.2f s (+ poll_interval_ms, 5 s, where inotify cannot see"
      " the write); the fleet spends 16,384 x %.2f s = %.1f CPU-hours per"
      " change." % (cpu, u.ru_maxrss // 1024, cpu, cpu, 16384 * cpu / 3600))
PY
