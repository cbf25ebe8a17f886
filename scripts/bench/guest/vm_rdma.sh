#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/bench/vm_rdma.sh (runs on h1 of scripts/vm/run.sh):
# ib_write_bw throughput and ibv_rc_pingpong latency between h1 and h2 over
# soft-RoCE, RUNS times each, without and then with rocepath.ko on both
# guests. Prints "RESULT <mode> <metric> <value>" lines.

. "$ROCEPATH_TOP/selftests/lib.sh"

RUNS=${RUNS:-3}

measure() { # MODE
	local mode=$1 i out v
	for ((i = 1; i <= RUNS; i++)); do
		out=$(rdma_write_bw -n 200 2>&1)
		v=$(awk '$1 == 4096 && NF >= 5 { print $4; exit }' <<<"$out")
		echo "RESULT $mode write_bw_MBps ${v:-fail}"
		out=$(rdma_pingpong -n 100 2>&1)
		v=$(sed -n 's/.* iters in .* = \([0-9.]*\) usec\/iter.*/\1/p' <<<"$out" | head -n1)
		echo "RESULT $mode pingpong_usec ${v:-fail}"
	done
}

measure plain
if [ -f "$ROCEPATH_KO" ] && on_host 1 "insmod $ROCEPATH_KO" && on_host 2 "insmod $ROCEPATH_KO"; then
	defer 'on_host 1 rmmod rocepath; on_host 2 rmmod rocepath'
	measure module
else
	echo "RESULT module unavailable 1"
fi
exit 0
