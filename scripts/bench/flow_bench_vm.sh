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
	on_host_bg 2 bw "ib_write_bw -d $IBDEV -x $rgid -s 4096 -n 1000 -F"
	out=$(retry 30 1 ib_write_bw -d "$IBDEV" -x "$lgid" -s 4096 -n 1000 -F "$PEER_IP4" 2>&1)
	wait_bg 2 bw 300 >/dev/null 2>&1
	echo "$out" | awk '$1 == 4096 && NF >= 4 { printf "%.3f\n", $4 * 8 * 1.048576 }'
}

echo "# flow_bench on $(uname -r), $rounds rounds"
printf '%-6s %-14s %-14s %-8s\n' round "off(Mbit/s)" "on(Mbit/s)" ratio
soff=0 son=0
for r in $(seq "$rounds"); do
	# alternate which configuration goes first
	if [ $((r % 2)) = 1 ]; then
		off=$(bw); load; on=$(bw); unload
	else
		load; on=$(bw); unload; off=$(bw)
	fi
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

# hook cost per packet: function_graph durations of the hooks (depth 1,
# so callees are included but not traced) during an RC ping-pong
t=/sys/kernel/tracing
[ -e $t/current_tracer ] || mount -t tracefs nodev $t 2>/dev/null
load
echo 1 >$t/max_graph_depth
echo flow_out4 >$t/set_graph_function
echo flow_in4 >>$t/set_graph_function
echo funcgraph-duration >$t/trace_options 2>/dev/null
echo >$t/trace
echo function_graph >$t/current_tracer
echo 1 >$t/tracing_on
flow_pingpong -n 200 >/dev/null 2>&1
# read before switching tracer: a switch empties the buffer
echo 0 >$t/tracing_on
cp $t/trace "$RUN_DIR/flow_bench.trace" 2>/dev/null
echo nop >$t/current_tracer 2>/dev/null
echo
echo "# hook cost (function_graph, includes tracer overhead)"
printf '%-10s %-8s %-10s %-10s\n' hook calls "avg(us)" "median(us)"
[ -s "$RUN_DIR/flow_bench.trace" ] && t2=$RUN_DIR/flow_bench.trace
for h in flow_out4 flow_in4; do
	grep -E "[0-9.]+ us +\| +$h( \[rocepath\])?\(\);" "${t2:-$t/trace}" | sed -E 's/.* ([0-9.]+) us +\|.*/\1/' |
		sort -n | awk -v h=$h '{ v[NR] = $1; s += $1 } END {
			if (NR) printf "%-10s %-8d %-10.2f %-10.2f\n", h, NR, s / NR, v[int((NR + 1) / 2)] }'
done
echo >$t/set_graph_function
unload
exit 0
