#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rocepathd's event loop during a probe round (Documentation/daemon.rst,
# "Probing runs beside the event loop"). A dry-run daemon on loopback
# addresses (127.0.8.0/24: two hosts, and switch addresses nothing
# answers for) has a good plan; then the leaves become measured and the
# next plan probes host b, whose port 4791 takes the probes and never
# answers: a round of 16 ports x 1 try x 1 s. Two seconds into the round
# it gets SIGHUP, and two seconds into the next SIGTERM. Printed, per run:
#   hup_ms   SIGHUP sent -> "SIGHUP: reloading" logged (the loop's latency)
#   end_ms   SIGHUP sent -> the round ended ("plan cancelled" or, when
#            the loop waits for the round, "plan failed")
#   term_ms  SIGTERM sent -> the process exited
#
# Usage: scripts/bench/probe_loop.sh [ROCEPATHD [RUNS]]
#        (default: this tree's daemon/rocepathd/rocepathd, 3 runs)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$TOP/daemon/rocepathd/rocepathd}
RUNS=${2:-3}
if [ -z "${1:-}" ]; then
	make -s -C "$TOP/daemon" rocepathd/rocepathd >/dev/null ||
		{ echo "probe_loop: make -C daemon failed" >&2; exit 1; }
fi
dir=$(mktemp -d /tmp/rocepath-probeloop.XXXXXX)
trap 'kill $sink 2>/dev/null; rm -rf "$dir"' EXIT

topo() {
	python3 - "$1" >"$dir/topology.json" <<'PY'
import json, sys
h = {"algorithm": "measured"} if sys.argv[1] == "measured" else \
    {"algorithm": "crc16-ccitt", "seed": 0, "fields": ["src_port"]}
sw = [{"name": "l%d" % i, "tier": "leaf", "hash": h,
       "addresses": ["127.0.8.%d" % (11 + i)]} for i in range(2)]
sw += [{"name": "s%d" % i, "tier": "spine",
        "hash": {"algorithm": "crc32", "seed": 0, "fields": ["src_port"]},
        "addresses": ["127.0.8.%d" % (21 + i)]} for i in range(2)]
links = [{"a": "l%d" % l, "a_port": s + 1, "b": "s%d" % s, "b_port": l + 1,
          "up": True} for l in range(2) for s in range(2)]
hosts = [{"name": n, "nics": [{"rail": 0, "ip": "127.0.8.%d" % (i + 1),
                               "leaf": "l%d" % i}]}
         for i, n in enumerate("ab")]
json.dump({"switches": sw, "links": links, "hosts": hosts}, sys.stdout)
PY
}

# host b's RoCE port: takes every probe, answers none
python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.8.2", 4791))
time.sleep(3600)' &
sink=$!
sleep 0.3
kill -0 $sink 2>/dev/null || { echo "probe_loop: cannot take 127.0.8.2 port 4791" >&2; exit 1; }

echo '{"jobs": [{"id": "j", "pattern": "ring", "qps_per_connection": 2, "rails": [0], "hosts": ["a", "b"]}]}' \
	>"$dir/placement.json"
cat >"$dir/rocepathd.conf" <<CONF
{"topology": "topology.json", "placement": "placement.json", "host": "a",
 "log_level": "info", "debounce_ms": 0, "metrics": {"path": null},
 "status_file": null, "poll_interval_ms": 0, "state_dir": "$dir/state",
 "probe_tries": 1, "probe_timeout_ms": 1000}
CONF

ms() { date +%s%3N; }
# the log line's time (ms since the epoch), waiting up to 30 s for it
logged() {
	local l
	for _ in $(seq 300); do
		l=$(grep -m1 -- "$1" "$dir/log")
		[ -n "$l" ] && { date -d "${l%% *}" +%s%3N; return; }
		sleep 0.1
	done
	echo -1
}

printf '%-4s %8s %8s %8s\n' run hup_ms end_ms term_ms
for ((r = 1; r <= RUNS; r++)); do
	rm -rf "$dir/state"
	topo crc16
	"$BIN" -n -c "$dir/rocepathd.conf" 2>"$dir/log" &
	pid=$!
	[ "$(logged 'ready: ')" != -1 ] || { echo "probe_loop: no first plan" >&2; kill $pid; exit 1; }
	topo measured
	[ "$(logged 'probing from a')" != -1 ] || { echo "probe_loop: no probe round" >&2; kill $pid; exit 1; }
	sleep 2
	t_hup=$(ms)
	kill -HUP $pid
	hup=$(logged 'SIGHUP: reloading')
	endl=$(logged 'plan cancelled\|plan failed')
	sleep 2
	t_term=$(ms)
	kill -TERM $pid
	wait $pid
	t_exit=$(ms)
	printf '%-4s %8s %8s %8s\n' "$r" $((hup - t_hup)) $((endl - t_hup)) $((t_exit - t_term))
done
