#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the pin rule table and the modify-QP hook (issue 3), in
# QEMU guests (TCG: absolute times are far slower than real hardware):
#  - 100,000 rules installed by one pin-replace transaction, and by single
#    pin-add requests; dumping them; memory per rule (slab delta);
#  - cost added to a modify-QP call INIT->RTR: without the module, with it
#    and a matching rule, with it and 100,000 non-matching rules; seen from
#    user space (ibv_modify_qp, syscall included) and in the kernel
#    (function_graph durations of ib_modify_qp_with_udata and of the
#    hook's pre-handler).
# Usage: scripts/bench/pin_bench.sh [-k 6.1|6.12] [-i ICOUNT] [RULES [CYCLES]]
#        -i: QEMU icount option, default shift=0: the guest's clock counts
#        one nanosecond per instruction, so times are instruction counts
#        and do not depend on the host's load; -i none for wall time.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
k=6.12 icount=shift=0
while getopts "k:i:" opt; do
	case $opt in
	k) k=$OPTARG ;;
	i) icount=$OPTARG ;;
	*) sed -n 's/^# Usage: //p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "$icount" = none ] && icount=
ROCEPATH_VM_ICOUNT=$icount exec "$TOP/scripts/vm/run.sh" -k "$k" -t 3000 \
	"$TOP/scripts/bench/pin_bench_vm.sh" "${1:-100000}" "${2:-1000}" "${icount:-none}"
