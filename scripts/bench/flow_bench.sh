#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the flow accounting (issue 4), in two QEMU guests:
#  - ib_write_bw h1 -> h2 with rocepath.ko loaded (accounting on) versus not
#    loaded, interleaved, in one run; ratio = loaded / not loaded;
#  - memory per flow (slab + per-CPU), from 2000 flows;
#  - cost of the hooks per packet: function_graph durations of the
#    netfilter hooks, and of __ip_local_out / ip_local_deliver with the
#    module loaded and not, during an RC ping-pong.
# Usage: scripts/bench/flow_bench.sh [-k 6.1|6.12] [-r ROUNDS] [-n ITERS]
#                                    [-i ICOUNT]
#        (default 3 interleaved rounds of 1000 writes, icount shift=0:
#        one nanosecond of guest time per instruction.
#        -i none boots without icount, where the ratio swings by tens of
#        percent with the host's load)
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
k=6.12 rounds=3 iters=1000 icount=shift=0
while getopts "k:r:n:i:" opt; do
	case $opt in
	k) k=$OPTARG ;;
	r) rounds=$OPTARG ;;
	n) iters=$OPTARG ;;
	i) icount=$OPTARG ;;
	*) sed -n 's/^# Usage: //p' "$0" >&2; exit 2 ;;
	esac
done
[ "$icount" = none ] && icount=
ROCEPATH_VM_ICOUNT=$icount exec "$TOP/scripts/vm/run.sh" -k "$k" \
	-t $((900 + rounds * iters / 4)) \
	"$TOP/scripts/bench/flow_bench_vm.sh" "$rounds" "$iters" "${icount:-none}"
