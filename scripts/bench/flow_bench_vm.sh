#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of flow_bench.sh (runs on h1 of scripts/vm/run.sh).
. "$ROCEPATH_TOP/selftests/lib.sh"
. "$ROCEPATH_TOP/selftests/flow_lib.sh"

rounds=${FLOW_BENCH_ROUNDS:-3}
[ -f "$FLOW_KO" ] || { echo "rocepath.ko not built for $(uname -r)"; exit 4; }

load() { on_host 1 "insmod $FLOW_KO $*" && on_host 2 "insmod $FLOW_KO $*"; }
unload() { on_host 1 "rmmod rocepath 2>/dev/null"; on_host 2 "rmmod rocepath 2>/dev/null"; true; }
unload

bw() {
	local lgid rgid out
	lgid=$(gid_index "$IBDEV" "$HOST_IP4")
	rgid=$(on_host 2 "source selftests/lib.sh; gid_index $IBDEV $PEER_IP4")
	on_host_bg 2 bw "ib_write_bw -d $IBDEV -x $rgid -s 4096 -n 200 -F"
	out=$(retry 30 1 ib_write_bw -d "$IBDEV" -x "$lgid" -s 4096 -n 200 -F "$PEER_IP4" 2>&1)
	wait_bg 2 bw 300 >/dev/null 2>&1
	echo "$out" | awk '$1 == 4096 && NF >= 4 { printf "%.3f\n", $4 * 8 * 1.048576 }'
}

# seconds to send N UDP datagrams to PEER:4791 from one socket
udp_time() {
	python3 - "$PEER_IP4" "$1" <<-'PYEOF'
	import socket, struct, sys, time
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	bth = struct.pack(">BBHII", 0x04, 0, 0xffff, 0x77, 0) + bytes(4)
	dst = (sys.argv[1], 4791)
	n = int(sys.argv[2])
	t = time.perf_counter()
	for _ in range(n):
	    s.sendto(bth, dst)
	print("%.6f" % (time.perf_counter() - t))
	PYEOF
}

echo "# flow_bench on $(uname -r), $rounds rounds"
printf '%-6s %-14s %-14s %-8s\n' round "off(Mbit/s)" "on(Mbit/s)" ratio
soff=0 son=0
for r in $(seq "$rounds"); do
	off=$(bw)
	load
	on=$(bw)
	unload
	soff=$(echo "$soff + $off" | bc -l) son=$(echo "$son + $on" | bc -l)
	printf '%-6s %-14s %-14s %-8.3f\n' "$r" "$off" "$on" "$(echo "$on / $off" | bc -l)"
done
printf '%-6s %-14.3f %-14.3f %-8.3f\n' all "$(echo "$soff / $rounds" | bc -l)" \
	"$(echo "$son / $rounds" | bc -l)" "$(echo "$son / $soff" | bc -l)"

# memory per flow: 2000 flows from 2000 source ports
n=2000
on_host 1 "insmod $FLOW_KO max_flows=4096"
m0=$(awk '/^Slab:|^Percpu:/ {s += $2} END {print s}' /proc/meminfo)
python3 - "$PEER_IP4" "$n" <<-'PYEOF'
import socket, struct, sys
for i in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("", 20000 + i))
    s.sendto(struct.pack(">BBHII", 4, 0, 0xffff, i, 0) + bytes(4), (sys.argv[1], 4791))
    s.close()
PYEOF
sleep 1
m1=$(awk '/^Slab:|^Percpu:/ {s += $2} END {print s}' /proc/meminfo)
nf=$(flows_json 1 | jq length)
on_host 1 "rmmod rocepath"
echo
echo "# memory: $nf flows, Slab+Percpu grew by $((m1 - m0)) KiB"
printf 'bytes/flow (measured, incl. noise): %d\n' $(((m1 - m0) * 1024 / (nf > 0 ? nf : 1)))
printf 'bytes/flow (by construction): %d slab (kmalloc-128) + %d per-CPU x %d CPUs = %d\n' \
	128 64 "$(nproc)" $((128 + 64 * $(nproc)))

# hook cost per packet
pk=20000
echo
printf '%-6s %-14s %-14s %-10s\n' round "off(us/pkt)" "on(us/pkt)" "hook(ns/pkt)"
for r in $(seq "$rounds"); do
	t0=$(udp_time $pk)
	on_host 1 "insmod $FLOW_KO"
	udp_time 10 >/dev/null
	t1=$(udp_time $pk)
	on_host 1 "rmmod rocepath"
	printf '%-6s %-14.3f %-14.3f %-10.0f\n' "$r" "$(echo "$t0 * 1000000 / $pk" | bc -l)" \
		"$(echo "$t1 * 1000000 / $pk" | bc -l)" "$(echo "($t1 - $t0) * 1000000000 / $pk" | bc -l)"
done
exit 0
