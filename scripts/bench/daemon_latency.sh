#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rocepathd reaction time: from a placement change (scheduler style: temp
# file renamed over) to the new pins installed in the module, in a QEMU
# guest (TCG, so absolute numbers are pessimistic). The daemon logs
# "file change applied: pins installed N ms after the first file event";
# we also measure from outside: write -> new generation seen by
# `rocepath -j stats` (includes the CLI's start-up under TCG).
#
# Usage: scripts/bench/daemon_latency.sh [-k 6.1|6.12] [CHANGES]

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" != --guest ]; then
	kern=6.12
	[ "${1:-}" = -k ] && { kern=$2; shift 2; }
	n=${1:-10}
	. "$TOP/.cache/kernels.env"
	case $kern in 6.1) rel=$KREL_61 ;; 6.12) rel=$KREL_612 ;; *) rel=$kern ;; esac
	[ -f "$TOP/build/$rel/rocepath.ko" ] || "$TOP/scripts/kbuild.sh" "$rel" >/dev/null || exit 1
	make -s -C "$TOP/daemon" >/dev/null || exit 1
	exec "$TOP/scripts/vm/run.sh" -k "$rel" -n 1 -t 600 scripts/bench/daemon_latency.sh --guest "$n"
fi

cd "$ROCEPATH_TOP" || exit 1
source selftests/lib.sh
source selftests/daemon_lib.sh
NHOSTS=1
N=${2:-10}

for q in 3 4; do
	rpd_placement_qps "$q" "$RUN_DIR/q$q.json"
done

results=()
for deb in 0 200; do
	rpd_setup 1 >/dev/null || { echo "cannot load the module"; exit 1; }
	on_host 1 "sed -i 's/\"debounce_ms\": [0-9]*/\"debounce_ms\": $deb/; s/\"debug\"/\"info\"/' $RPD_DIR/rocepathd.conf; : >$RPD_DIR/rocepathd.log"
	rpd_start 1
	rpd_wait_log 1 'ready: ' >/dev/null || { echo "daemon not ready"; on_host 1 "cat $RPD_DIR/rocepathd.log"; exit 1; }
	ext=()
	for ((i = 0; i < N; i++)); do
		q=$((3 + i % 2))
		g0=$(rpd_generation 1)
		t0=$(date +%s%N)
		cp "$RUN_DIR/q$q.json" $RPD_DIR/.p.tmp && mv $RPD_DIR/.p.tmp $RPD_DIR/placement.json
		for ((k = 0; k < 200; k++)); do
			[ "$(rpd_generation 1)" != "$g0" ] && break
		done
		t1=$(date +%s%N)
		ext+=($(((t1 - t0) / 1000000)))
		sleep 0.3
	done
	rpd_stop 1 >/dev/null
	mapfile -t int < <(grep 'file change applied' $RPD_DIR/rocepathd.log |
		sed 's/.*installed \([0-9]*\) ms after.*/\1/')
	stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR) printf "%d %d %d %d", NR, a[1], a[int((NR+1)/2)], a[NR]; else printf "0 - - -"}'; }
	read -r c1 mn1 md1 mx1 <<<"$(stats "${int[@]}")"
	read -r c2 mn2 md2 mx2 <<<"$(stats "${ext[@]}")"
	results+=("$(printf '%-8s %-34s %5s %7s %7s %7s' "$deb" "event -> pins installed (daemon log)" "$c1" "$mn1" "$md1" "$mx1")")
	results+=("$(printf '%-8s %-34s %5s %7s %7s %7s' "$deb" "write -> generation seen (CLI poll)" "$c2" "$mn2" "$md2" "$mx2")")
	on_host 1 "rmmod rocepath" >/dev/null 2>&1
done

echo "rocepathd: placement change -> pins installed, $(uname -r) guest under TCG, $N changes"
printf '%-8s %-34s %5s %7s %7s %7s\n' "debounce" "measure (ms)" "n" "min" "median" "max"
printf '%s\n' "${results[@]}"
