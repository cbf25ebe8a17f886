#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves RDMA traffic flows between the two guests over soft-RoCE (RC
# ping-pong over IPv4 and IPv6 GIDs, RDMA WRITE bandwidth), first without,
# then with rocepath.ko loaded on both guests: the module must not break
# ordinary RoCEv2 traffic.

. "$(dirname "$0")/lib.sh"

require_cmd ibv_rc_pingpong ib_write_bw rdma python3

ksft_test "ibv_rc_pingpong over rxe (IPv4 GID)" rdma_pingpong
ksft_test "ibv_rc_pingpong over rxe (IPv6 GID)" rdma_pingpong -6
ksft_test "ib_write_bw over rxe" rdma_write_bw

if [ ! -f "$ROCEPATH_KO" ]; then
	why="rocepath.ko not built for $(uname -r) ($ROCEPATH_KO)"
	ksft_skip "ibv_rc_pingpong with rocepath.ko: $why"
	ksft_skip "ib_write_bw with rocepath.ko: $why"
	ksft_exit
fi

if rp_load_both; then
	ksft_pass "rocepath.ko loaded on h1 and h2"
	ksft_test "ibv_rc_pingpong with rocepath.ko" rdma_pingpong
	ksft_test "ibv_rc_pingpong with rocepath.ko (IPv6 GID)" rdma_pingpong -6
	ksft_test "ib_write_bw with rocepath.ko" rdma_write_bw
else
	ksft_fail "rocepath.ko loaded on h1 and h2"
fi
ksft_exit
