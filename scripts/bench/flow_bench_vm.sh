#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of flow_bench.sh (runs on h1 of scripts/vm/run.sh).
. "$ROCEPATH_TOP/selftests/lib.sh"
. "$ROCEPATH_TOP/selftests/flow_lib.sh"

rounds=${1:-3}
iters=${2:-1000}
icount=${3:-none}
[ -f "$ROCEPATH_KO" ] || { echo "rocepath.ko not built for $(uname -r)"; exit 4; }

load() { rp_load 1 "$@" && rp_load 2 "$@"; }
unload() { rp_unload 1; rp_unload 2; }
unload

# busy: CPU time (USER_HZ ticks) this guest spent outside idle and iowait
busy='awk "/^cpu / { print \$2 + \$3 + \$4 + \$7 + \$8 + \$9 }" /proc/stat'

# bw: one ib_write_bw h1 -> h2; prints "Mbit/s ticks", ticks being the CPU
# time both guests spent while it ran. ib_write_bw polls its completion
# queue, so the ticks are mostly the run's length in guest time: a
# cross-check of the throughput, not a separate measure of work.
bw() {
	local lgid rgid out b1 b2 e1 e2
	lgid=$(gid_index "$IBDEV" "$HOST_IP4")
	rgid=$(on_gid_index 2 "$PEER_IP4")
	b2=$(on_host 2 "$busy")
	b1=$(eval "$busy")
	on_host_bg 2 bw "ib_write_bw -d $IBDEV -x $rgid -s 4096 -n $iters -F"
	out=$(retry 30 1 ib_write_bw -d "$IBDEV" -x "$lgid" -s 4096 -n "$iters" -F "$PEER_IP4" 2>&1)
	wait_bg 2 bw 300 >/dev/null 2>&1
	e1=$(eval "$busy")
	e2=$(on_host 2 "$busy")
	echo "$out" | awk -v t=$((e1 - b1 + e2 - b2)) \
		'$1 == 4096 && NF >= 4 { printf "%.3f %d\n", $4 * 8 * 1.048576, t }'
}

# median of numbers on stdin, with min and max
med() { sort -g | awk '{ v[NR] = $1 } END {
	printf "%.3f (min %.3f, max %.3f)", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR] }'; }

echo "# flow_bench on $(uname -r), $rounds rounds of $iters x 4 KiB writes, icount $icount"
printf '%-6s %-12s %-12s %-8s %-10s %-10s %-8s\n' round "off(Mbit/s)" "on(Mbit/s)" ratio \
	"off(ticks)" "on(ticks)" "busy"
soff=0 son=0 ratios='' works=''
for r in $(seq "$rounds"); do
	# alternate which configuration goes first
	if [ $((r % 2)) = 1 ]; then
		off=$(bw); load; on=$(bw); unload
	else
		load; on=$(bw); unload; off=$(bw)
	fi
	set -- $off $on
	[ $# = 4 ] || { echo "round $r: ib_write_bw failed ('$off' / '$on')"; exit 1; }
	soff=$(echo "$soff + $1" | bc -l) son=$(echo "$son + $3" | bc -l)
	ratio=$(echo "$3 / $1" | bc -l)
	# busy ratio: off ticks / on ticks, to compare with the throughput ratio
	work=$(echo "$2 / $4" | bc -l)
	ratios="$ratios $ratio" works="$works $work"
	printf '%-6s %-12s %-12s %-8.3f %-10s %-10s %-8.3f\n' "$r" "$1" "$3" "$ratio" "$2" "$4" "$work"
done
printf '%-6s %-12.3f %-12.3f %-8.3f\n' all "$(echo "$soff / $rounds" | bc -l)" \
	"$(echo "$son / $rounds" | bc -l)" "$(echo "$son / $soff" | bc -l)"
# medians resist one round disturbed by the host
echo "throughput ratio on/off, median of rounds: $(printf '%s\n' $ratios | med)"
echo "busy ratio off/on (CPU ticks), median:     $(printf '%s\n' $works | med)"

# memory per flow: 2000 flows from 2000 source ports, sent by h2 (h1
# keeps no record of what its own processes send to 4791; h2's datagrams
# become rx-only records, the same size, while the table has room)
n=2000
on_host 1 "insmod $ROCEPATH_KO max_flows=4096"
m0=$(awk '/^Slab:|^Percpu:/ {s += $2} END {print s}' /proc/meminfo)
on_host 2 "python3 selftests/flow_forge.py $PEER_IP4 $HOST_IP4 20000 $n 0 --vary-sport --gap 0" >/dev/null
sleep 1
m1=$(awk '/^Slab:|^Percpu:/ {s += $2} END {print s}' /proc/meminfo)
nf=$(flows_json 1 | jq length)
on_host 1 "rmmod rocepath"
echo
echo "# memory: $nf flows, Slab+Percpu grew by $((m1 - m0)) KiB"
printf 'bytes/flow (measured, incl. noise): %d\n' $(((m1 - m0) * 1024 / (nf > 0 ? nf : 1)))
printf 'bytes/flow (by construction): %d slab (kmalloc-128) + %d per-CPU x %d CPUs = %d\n' \
	128 64 "$(nproc)" $((128 + 64 * $(nproc)))

# Hook cost per packet, from function_graph durations during an RC
# ping-pong (set_ftrace_filter: only the named functions are instrumented,
# callees run untraced):
#  - the hooks themselves (includes the tracer's own entry and exit);
#  - __ip_local_out (where LOCAL_OUT runs; without hooks it only fixes the
#    header) and ip_local_deliver (LOCAL_IN, then delivery to rxe), with
#    the module loaded and not: the difference of the medians is what the
#    hooks add, netfilter's dispatch included and the tracer's cost
#    cancelled out. Under icount shift=0 a nanosecond is an instruction.
t=/sys/kernel/tracing
[ -e $t/current_tracer ] || mount -t tracefs nodev $t 2>/dev/null
mkdir -p "$RUN_DIR/graph"
traced() { # LABEL FUNC...
	local label=$1 f
	shift
	printf '%s\n' "$@" >$t/set_ftrace_filter || return 1
	echo funcgraph-duration >$t/trace_options 2>/dev/null
	echo 4096 >$t/buffer_size_kb
	echo >$t/trace
	echo function_graph >$t/current_tracer
	echo 1 >$t/tracing_on
	rdma_pingpong -n 200 >/dev/null 2>&1 || echo "# rdma_pingpong failed ($label)"
	# read before switching tracer: a switch empties the buffer
	echo 0 >$t/tracing_on
	cp $t/trace "$RUN_DIR/graph/$label.trace"
	echo nop >$t/current_tracer
	echo >$t/set_ftrace_filter
	for f in "$@"; do
		grep -E "[0-9.]+ us +\| +$f( \[rocepath\])?\(\);" "$RUN_DIR/graph/$label.trace" |
			sed -E 's/.* ([0-9.]+) us +\|.*/\1/' | sort -g >"$RUN_DIR/graph/$label.$f"
	done
}
stats() { # FILE -> "calls median"
	awk '{ v[NR] = $1 } END { if (NR) printf "%d %.3f", NR, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else printf "0 n/a" }' "$1"
}
traced off __ip_local_out ip_local_deliver
load
traced on __ip_local_out ip_local_deliver
traced hooks flow_out4 flow_in4
unload
echo
echo "# hook cost per packet (function_graph, us; icount $icount)"
printf '%-18s %-8s %-10s %-8s %-10s %-8s\n' function calls "off" calls "on" "on-off"
for f in __ip_local_out ip_local_deliver; do
	set -- $(stats "$RUN_DIR/graph/off.$f") $(stats "$RUN_DIR/graph/on.$f")
	printf '%-18s %-8s %-10s %-8s %-10s %-8.3f\n' "$f" "$1" "$2" "$3" "$4" \
		"$(echo "$4 - $2" | bc -l 2>/dev/null || echo 0)"
done
for f in flow_out4 flow_in4; do
	set -- $(stats "$RUN_DIR/graph/hooks.$f")
	printf '%-18s %-8s %-10s %-8s %-10s\n' "$f" - - "$1" "$2"
done
exit 0
