#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The slowest steps of the VM tests of one or more run directories
# (results/vm/*, kept with ROCEPATH_VM_KEEP=1): the time from each result
# of a test to the next, in guest uptime, from the marks selftests/lib.sh
# writes. A test's first step runs from the job's start (its set-up), the
# last ends at its teardown. Where make check's timing table says which
# test is slow, this says which step of it; run.sh prints a job's steps
# of 5 s or more ("# vm: step:") and make check the slowest of them all.
#
# Usage: scripts/vm/profile.sh [-n N] [-m SECS] [-k K] RUN_DIR...
#   -n  the N slowest steps (default 20; 0: all)
#   -m  only steps of at least SECS seconds
#   -k  only job K of each run directory
# Prints "SECS TEST RESULT DESC", slowest first.

set -u
n=20 min=0 only=
while getopts n:m:k: o; do
	case $o in
	n) n=$OPTARG ;;
	m) min=$OPTARG ;;
	k) only=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-n N] [-m SECS] [-k K] RUN_DIR..." >&2; exit 2; }

steps() { # RUN_DIR K TEST
	[ -r "$1/timing-h1.$2" ] || return 0
	# timing-h1.K: "job U" and "teardown U" bound the test;
	# timing-h1.K.checks: "U N DESC" for result N.
	awk -v t="$3" -v min="$min" '
		function step(d, r, desc) { if (d >= min) printf "%.1f %s %s %s\n", d, t, r, desc }
		FNR == NR { m[$1] = $2; next }
		FNR == 1 { last = m["job"] }
		{ u = $1; r = $2; $1 = $2 = ""; sub(/^ +/, ""); step(u - last, r, $0); last = u }
		END { if (("teardown" in m) && last != "") step(m["teardown"] - last, "end", "(teardown)") }
	' "$1/timing-h1.$2" "$1/timing-h1.$2.checks" 2>/dev/null
}

for dir in "$@"; do
	[ -r "$dir/job" ] || { echo "$dir: no job file (not a run directory)" >&2; exit 1; }
	k=0
	while read -r _ name _; do
		k=$((k + 1))
		[ -z "$only" ] || [ "$k" = "$only" ] || continue
		steps "$dir" "$k" "$name"
	done <"$dir/job"
done | sort -rn -k1,1 | if [ "$n" = 0 ]; then cat; else head -n "$n"; fi
