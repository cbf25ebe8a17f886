#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rocepathd's stat poll (statpoll.c) on a real NFS mount: the files of a
# 131,072-GPU zone (examples/ai-zone/gen.py: 16,384 hosts x 8 rails) on
# h2's NFS server (Debian's nfs-kernel-server, NFSv4.2, selftests/nfs_lib.sh),
# polled by daemon/bench/pollbench on h1 through its mount. Per poll of
# both files: CPU and wall time (QEMU TCG guests: pessimistic), and the
# NFS calls the client sent (/proc/net/rpc/nfs), which is what a fleet's
# polls cost the server: HOSTS x calls / poll interval.
#   steady  mtimes an hour old: one open and fstat per file
#   recent  mtimes now (just after a change): also read and hashed
# each with the server granting read delegations (knfsd's default: the
# client then opens and reads from its cache, and the server recalls the
# delegation when another client writes) and without (fs.leases-enable=0
# on the server, as when a server is configured so or other clients hold
# the file open for writing).
#
# Usage: scripts/bench/statpoll_nfs.sh [quick]   ("quick": 2,048 GPUs)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" != --guest ]; then
	hosts=16384
	[ "${1:-}" = quick ] && hosts=256
	make -s -C "$TOP/daemon" bench/pollbench >/dev/null ||
		{ echo "statpoll_nfs: make -C daemon bench/pollbench failed" >&2; exit 1; }
	mkdir -p "$TOP/results"
	dir=$(mktemp -d "$TOP/results/statpoll-nfs.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	python3 "$TOP/examples/ai-zone/gen.py" --hosts "$hosts" --rails 8 \
		--order random -o "$dir" >/dev/null ||
		{ echo "statpoll_nfs: gen.py failed" >&2; exit 1; }
	"$TOP/scripts/vm/run.sh" -k 6.12 -n 2 -t 900 \
		scripts/bench/statpoll_nfs.sh --guest "$dir" "$hosts"
	exit
fi

cd "$ROCEPATH_TOP" || exit 1
source selftests/lib.sh
source selftests/nfs_lib.sh
src=$2 hosts=$3
STEADY=500 RECENT=20

nfs_require 1 2
defer nfs_stop 1 2
nfs_server_start 96m || { echo "statpoll_nfs: the NFS server did not start"; exit 1; }
on_host 2 "cp '$src/topology.json' '$src/placement.json' $NFS_EXPORT/" >/dev/null &&
	nfs_mount 1 || { echo "statpoll_nfs: no NFS mount"; exit 1; }
files=("$NFS_MNT/topology.json" "$NFS_MNT/placement.json")

calls() { # NFSv4 calls this client has sent
	awk '$1 == "proc4" { s = 0; for (i = 3; i <= NF; i++) s += $i; print s }' /proc/net/rpc/nfs
}
mib() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }

# Each case runs once for 1 poll and once for N+1: the difference in
# calls is N polls', without the set-up's (utimensat, the first open).
# The times are the N+1 run's means.
rows=()
for deleg in on off; do
	if [ $deleg = off ]; then
		on_host 2 "sysctl -q fs.leases-enable=0" &&
			on_host 1 "umount $NFS_MNT" && nfs_mount 1 ||
			{ echo "statpoll_nfs: cannot turn delegations off"; exit 1; }
	fi
	for c in steady:$STEADY recent:$RECENT; do
		name=${c%:*} n=${c#*:}
		c0=$(calls)
		daemon/bench/pollbench "$name" 1 "${files[@]}" >/dev/null || exit 1
		c1=$(calls)
		t1=$(daemon/bench/pollbench "$name" $((n + 1)) "${files[@]}" | tail -n1) || exit 1
		c2=$(calls)
		rows+=("$(awk -v d=$deleg -v n="$n" -v a=$((c1 - c0)) -v b=$((c2 - c1)) \
			-v r="$t1" 'BEGIN {
			split(r, x, " +"); per = (b - a) / n
			if (per < 0.005 && per > -0.005) per = 0	# no "-0.00"
			printf "%-7s %-10s %6d %12s %13s %16s %14.2f", x[1], d, n, x[3], x[4], x[5], per }')")
	done
done
on_host 2 "sysctl -q fs.leases-enable=1"

echo "Stat poll over NFSv4.2 (h2's knfsd, $(uname -r) guests under TCG), $((hosts * 8)) GPUs" \
	"(topology $(mib "${files[0]}") MiB, placement $(mib "${files[1]}") MiB)"
printf '%-7s %-10s %6s %12s %13s %16s %14s\n' case delegation polls cpu_us/poll \
	wall_us/poll hashed_MiB/poll nfs_calls/poll
printf '%s\n' "${rows[@]}"
