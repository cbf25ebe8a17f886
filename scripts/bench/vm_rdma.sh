#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA over soft-RoCE between two TCG guests on the 6.12 test kernel:
# ib_write_bw throughput (4 KiB writes x 200) and ibv_rc_pingpong latency
# (4 KiB x 100), median of RUNS (default 3), without and with rocepath.ko
# loaded on both guests. TCG emulation dominates: the figures compare the
# two columns, they say nothing about hardware.
# Usage: scripts/bench/vm_rdma.sh [-k KERNEL]

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
kernel=6.12
[ "${1:-}" = -k ] && kernel=$2

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
RUNS=${RUNS:-3} "$TOP/scripts/vm/run.sh" -k "$kernel" -t 600 \
	"$TOP/scripts/bench/guest/vm_rdma.sh" >"$tmp" 2>"$tmp.err"
rc=$?
boot=$(sed -n 's/.*ready after \([0-9.]*\)s wall.*/\1/p' "$tmp.err")
rm -f "$tmp.err"
if [ "$rc" != 0 ]; then
	cat "$tmp"
	echo "vm_rdma: the guest run failed (exit $rc)"
	exit 1
fi

median() { # MODE METRIC
	awk -v m="$1" -v k="$2" '$1 == "RESULT" && $2 == m && $3 == k && $4 != "fail" { v[n++] = $4 }
		END { if (!n) { print "n/a"; exit }
		      for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		      print v[int((n - 1) / 2)] }' "$tmp"
}
mbit() { awk -v x="$1" 'BEGIN { if (x == "n/a") print "n/a"; else printf "%.2f", x * 8 * 1.048576 }'; }

p_bw=$(median plain write_bw_MBps) m_bw=$(median module write_bw_MBps)
p_lat=$(median plain pingpong_usec) m_lat=$(median module pingpong_usec)
note=
grep -q '^RESULT module unavailable' "$tmp" && note=" (rocepath.ko not built or not loadable)"

echo "kernel $kernel under TCG, 2 guests, median of ${RUNS:-3} runs; guests ready after ${boot:-?} s$note"
printf '%-40s %16s %16s\n' "metric" "without module" "with rocepath.ko"
printf '%-40s %16s %16s\n' "ib_write_bw 4 KiB x 200 (Mbit/s)" "$(mbit "$p_bw")" "$(mbit "$m_bw")"
printf '%-40s %16s %16s\n' "ibv_rc_pingpong 4 KiB x 100 (us/iter)" "$p_lat" "$m_lat"
