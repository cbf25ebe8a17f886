#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the pin rule table and the modify-QP hook (issue 3), in
# QEMU guests (TCG: absolute times are far slower than real hardware):
#  - 100,000 rules installed by one pin-replace transaction, and by single
#    pin-add requests; dumping them; memory per rule (slab delta);
#  - cost added to ibv_modify_qp INIT->RTR: without the module, with it and
#    a matching rule, with it and 100,000 non-matching rules.
# Usage: scripts/bench/pin_bench.sh [-k 6.1|6.12] [RULES]
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
k=6.12
if [ "${1:-}" = -k ]; then k=$2; shift 2; fi
export PIN_BENCH_RULES=${1:-100000}
exec "$TOP/scripts/vm/run.sh" -k "$k" -t 1500 "$TOP/scripts/bench/pin_bench_vm.sh"
