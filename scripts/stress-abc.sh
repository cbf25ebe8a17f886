#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The unload stress A/B/C: selftests/debug/unload_stress.sh with
#   A  rp_stub_empty.ko      (a module that does nothing)
#   B  rp_stub_kretprobe.ko  (only a return probe on _ib_modify_qp)
#   C  rocepath.ko           (the module)
# on one kernel, ROUNDS times each, and a table of how each run ended. A
# crash in A or B is the kernel's own; in C alone, ours.
#
# Usage: scripts/stress-abc.sh [-k 6.1|6.12|debug|REL] [-c CYCLES] [-r ROUNDS]

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${ROCEPATH_CACHE:-$TOP/.cache}
cd "$TOP" || exit 1

kernel=debug cycles=200 rounds=1
while getopts "k:c:r:" o; do
	case $o in
	k) kernel=$OPTARG ;;
	c) cycles=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) sed -n 's/^# Usage: //p' "$0" >&2; exit 2 ;;
	esac
done

. <(grep -E '^KREL_(61|612)=' "$CACHE/kernels.env")
case $kernel in
6.1) rel=$KREL_61 ;;
6.12) rel=$KREL_612 ;;
debug)
	rel=$(scripts/debug-kernel.sh | tail -n1) || exit 1
	export ROCEPATH_VM_MEM=${ROCEPATH_VM_MEM:-1536}
	export ROCEPATH_VM_TIMEOUT_FACTOR=${ROCEPATH_VM_TIMEOUT_FACTOR:-4}
	export ROCEPATH_VM_CMDLINE=${ROCEPATH_VM_CMDLINE:-acpi=noirq}
	;;
*) rel=$kernel ;;
esac
kdir=/lib/modules/$rel/build
[ -d "$kdir" ] || kdir=$CACHE/kernels/$rel/build
scripts/kbuild.sh "$rel" >/dev/null || exit 1
make -C daemon -s >/dev/null || exit 1
stubs=$TOP/build/$rel/stubs
mkdir -p "$stubs"
cp -p selftests/debug/stubs/Kbuild selftests/debug/stubs/*.c "$stubs/"
make -s -C "$kdir" M="$stubs" modules >/dev/null || exit 1

declare -A result
for r in $(seq 1 "$rounds"); do
	for v in A B C; do
		case $v in
		A) ko=$stubs/rp_stub_empty.ko ;;
		B) ko=$stubs/rp_stub_kretprobe.ko ;;
		C) ko=$TOP/build/$rel/rocepath.ko ;;
		esac
		t0=$(date +%s)
		out=$(scripts/vm/run.sh -k "$rel" -t $((cycles * 6 + 120)) \
			selftests/debug/unload_stress.sh -c "$cycles" -m "$ko" 2>&1)
		rc=$?
		why=$(grep -m1 -oE 'FAIL: .*|not ok .*' <<<"$out")
		result[$v]+="round $r: rc $rc in $(($(date +%s) - t0)) s ${why:+($why)}; "
		printf '%s\n' "$out" | grep -E '^(ok|not ok|# )' | sed "s/^/# $v: /" | tail -n 12
	done
done
echo "# stress A/B/C on $rel, $cycles cycles per run"
for v in A B C; do
	echo "$v: ${result[$v]}"
done
