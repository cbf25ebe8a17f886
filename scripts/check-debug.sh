#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug lane (`make check-debug`): every VM selftest on a 6.12 kernel
# built with KASAN, KFENCE, lockdep, PROVE_RCU, kmemleak and friends
# (scripts/debug-kernel.sh, selftests/debug/config), the netlink fuzzer
# among them with a longer run, then the 200-cycle unload stress. After each test the guests scan for
# leaks and any KASAN, lockdep, RCU, kmemleak or WARN report fails it with
# the report shown (scripts/vm/guest-init.sh). Ends with the same
# "N passed, N failed, N skipped" line as make check.
#
# Usage: scripts/check-debug.sh [check.sh options, e.g. --only pin_churn]
# Environment: NL_FUZZ_COUNT (messages per phase, default 50000 here;
# `make fuzz` runs 500,000, 10^6 in all) and NL_FUZZ_SEED for the fuzzing run;
# FABRIC_CONG_RATE_KBIT (fabric_congestion's bottleneck, default 1000 here).

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1

t0=$(date +%s)
rel=$(scripts/debug-kernel.sh | tail -n1) || { echo "check-debug: building the debug kernel failed" >&2; exit 1; }
[ -n "$rel" ] || { echo "check-debug: no debug kernel release" >&2; exit 1; }
echo "# check-debug: kernel $rel ready after $(($(date +%s) - t0)) s"

# KASAN's shadow and slub_debug want memory; everything runs ~3x slower.
export ROCEPATH_VM_MEM=${ROCEPATH_VM_MEM:-1536}
# ACPI's AML interpreter under KASAN and TCG runs past its loop timeout on
# the PCI routing table (_PRT), 30 s per try; the guests need no ACPI IRQs.
# SLUB's own debugging (red zones, poison, checks at every free) is off:
# KASAN finds the out-of-bounds accesses, uses after free and double frees
# it would, at the access itself, and slub_debug sent every allocation
# down SLUB's slow path. Zeroing on free stays: without it a stale copy of
# a pointer in freed memory hid rp_stub_leak.ko's leak from kmemleak.
export ROCEPATH_VM_CMDLINE=${ROCEPATH_VM_CMDLINE:-acpi=noirq slub_debug=-}
export ROCEPATH_VM_TIMEOUT_FACTOR=${ROCEPATH_VM_TIMEOUT_FACTOR:-4}
export NL_FUZZ_COUNT=${NL_FUZZ_COUNT:-50000}
# Two debug-kernel rxe senders move well under 1 Mbit/s between them: at the
# production 4,000 kbit/s the bottleneck never queued, so nothing was marked.
export FABRIC_CONG_RATE_KBIT=${FABRIC_CONG_RATE_KBIT:-1000}

# The whole lane unless the caller picks tests: --only takes the union of
# its arguments, so adding "--only vm" to the caller's would run everything.
lane=(--only vm --extra debug/unload_stress.sh)
for a in "$@"; do
	case $a in --only | --only=*) lane=() ;; esac
done
exec scripts/check.sh --kernel "$rel" "${lane[@]}" "$@"
