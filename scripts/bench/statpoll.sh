#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cost of rocepathd's stat poll (Documentation/daemon.rst, statpoll.c)
# on the files of a 131,072-GPU zone (examples/ai-zone/gen.py: 16,384
# hosts x 8 rails, four ring jobs). daemon/bench/pollbench polls the
# topology and placement files as the daemon does every poll_interval_ms:
#   steady  the files' mtimes an hour old: one open and fstat per file
#   recent  mtimes now (just after a change): each poll also reads and
#           hashes both files (FNV-1a 64)
# CPU and wall microseconds per poll of both files, MiB hashed per poll,
# and the share of one core the poll takes at the default 5 s interval.
# The files are on /tmp (page cache); scripts/bench/statpoll_nfs.sh
# measures them on an NFS mount.
#
# Usage: scripts/bench/statpoll.sh [quick]   ("quick": 2,048 GPUs)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HOSTS=16384
[ "${1:-}" = quick ] && HOSTS=256
make -s -C "$TOP/daemon" bench/pollbench >/dev/null ||
	{ echo "statpoll: make -C daemon bench/pollbench failed" >&2; exit 1; }
dir=$(mktemp -d /tmp/rocepath-statpoll.XXXXXX)
trap 'rm -rf "$dir"' EXIT

python3 "$TOP/examples/ai-zone/gen.py" --hosts "$HOSTS" --rails 8 \
	--order random -o "$dir" >/dev/null ||
	{ echo "statpoll: gen.py failed" >&2; exit 1; }
mib() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }
echo "Stat poll of topology + placement, $((HOSTS * 8)) GPUs" \
	"(topology $(mib "$dir/topology.json") MiB, placement $(mib "$dir/placement.json") MiB)"
"$TOP/daemon/bench/pollbench" 2000 "$dir/topology.json" "$dir/placement.json"
