#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the flow accounting (issue 4), in two QEMU guests:
#  - ib_write_bw h1 -> h2 with rocepath.ko loaded (accounting on) versus not
#    loaded, interleaved, in one run; ratio = loaded / not loaded;
#  - memory per flow (slab + per-CPU), from 2000 flows;
#  - cost of the hooks per packet: function_graph durations of the
#    netfilter hooks during an RC ping-pong.
# Usage: scripts/bench/flow_bench.sh [-k 6.1|6.12]   (3 interleaved rounds)
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
k=6.12
if [ "${1:-}" = -k ]; then k=$2; shift 2; fi
exec "$TOP/scripts/vm/run.sh" -k "$k" -t 1500 "$TOP/scripts/bench/flow_bench_vm.sh"
