#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: run every executable scripts/bench/*.sh in name order and
# print their tables. A failing benchmark is reported and the others still
# run; the exit code is non-zero iff one failed.
# Usage: scripts/bench.sh [NAME...]   (NAME: a benchmark, e.g. vm_rdma)

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1

sel=("$@")
failed=()
ran=0
for b in scripts/bench/*.sh; do
	[ -x "$b" ] || continue
	name=$(basename "$b" .sh)
	if [ ${#sel[@]} -gt 0 ] && ! printf '%s\n' "${sel[@]}" | grep -qxE "$name|$name\.sh"; then
		continue
	fi
	ran=$((ran + 1))
	echo "== $name =="
	t0=$(date +%s)
	if "$b" </dev/null; then
		echo "($name: $(($(date +%s) - t0)) s)"
	else
		rc=$?
		echo "bench: $name FAILED (exit $rc)"
		failed+=("$name")
	fi
	echo
done
[ "$ran" -gt 0 ] || { echo "bench: no benchmark matched${sel[*]:+: ${sel[*]}}" >&2; exit 1; }
if [ ${#failed[@]} -gt 0 ]; then
	echo "bench: failed: ${failed[*]}"
	exit 1
fi
echo "bench: $ran benchmark(s) done"
