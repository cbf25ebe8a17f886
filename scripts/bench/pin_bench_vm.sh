#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of pin_bench.sh (runs on h1 of scripts/vm/run.sh).
. "$ROCEPATH_TOP/selftests/lib.sh"

n=${1:-100000}
cycles=${2:-1000}
icount=${3:-none}
[ -f "$ROCEPATH_KO" ] || { echo "rocepath.ko not built for $(uname -r)"; exit 4; }
bin=$RUN_DIR/bin
mkdir -p "$bin"
gcc -O2 -I "$ROCEPATH_TOP/include/uapi" -o "$bin/pin_load" \
	"$ROCEPATH_TOP/scripts/bench/pin_load.c" -lmnl || exit 4
gcc -O2 -o "$bin/churn" "$ROCEPATH_TOP/selftests/pin_qp_churn.c" -libverbs || exit 4
gidx=$(gid_index "$IBDEV" "$HOST_IP4")
rmmod rocepath 2>/dev/null
slab_kb() { awk '$1 == "Slab:" { print $2 }' /proc/meminfo; }
secs() { "$bin/pin_load" "$@" | awk '{ print $3 }'; }
rtr_us() { "$bin/churn" -d "$IBDEV" -g "$gidx" -a "$PEER_IP4" -n "$cycles" | awk '{ print $8 }'; }

# graph DIR FUNC: run the churn loop with function_graph on FUNC alone
# (set_ftrace_filter: no other function is instrumented, so callees run
# at full speed) and write the durations of the INIT->RTR calls, in us, to
# DIR/FUNC.us. The loop is the only caller and modifies each QP twice
# (INIT, then RTR), so every second call is an RTR.
t=/sys/kernel/tracing
[ -e $t/current_tracer ] || mount -t tracefs nodev $t 2>/dev/null
graph() {
	echo "$2" >$t/set_ftrace_filter || return 1
	echo funcgraph-duration >$t/trace_options 2>/dev/null
	echo 2048 >$t/buffer_size_kb
	echo >$t/trace
	echo function_graph >$t/current_tracer
	echo 1 >$t/tracing_on
	"$bin/churn" -d "$IBDEV" -g "$gidx" -a "$PEER_IP4" -n "$cycles" >/dev/null
	echo 0 >$t/tracing_on
	grep -E "[0-9.]+ us +\| +$2( \[[a-z_]+\])?\(\);" $t/trace |
		sed -E 's/.* ([0-9.]+) us +\|.*/\1/' >"$1/$2.all"
	echo nop >$t/current_tracer
	echo >$t/set_ftrace_filter
	awk 'NR % 2 == 0' "$1/$2.all" | sort -g >"$1/$2.us"
}
# median of a sorted file of numbers
median() { awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else printf "n/a" }' "$1"; }
count() { wc -l <"$1" | tr -d ' '; }
mkdir -p "$RUN_DIR/graph/off" "$RUN_DIR/graph/miss" "$RUN_DIR/graph/hit"

rtr_us >/dev/null	# warm-up: first QPs, page faults, caches
base_rtr=$(rtr_us)
graph "$RUN_DIR/graph/off" ib_modify_qp_with_udata
insmod "$ROCEPATH_KO"
sync; echo 3 >/proc/sys/vm/drop_caches
s0=$(slab_kb)
t_replace=$(secs replace "$n")
sync; echo 3 >/proc/sys/vm/drop_caches
s1=$(slab_kb)
t_dump=$(secs dump)
dumped=$("$bin/pin_load" dump | awk '{ print $2 }')
miss_rtr=$(rtr_us)
graph "$RUN_DIR/graph/miss" ib_modify_qp_with_udata
t_flush=$(secs flush)
t_add=$(secs add "$n")
"$bin/pin_load" flush >/dev/null
python3 "$ROCEPATH_TOP/.cache/linux-src/tools/net/ynl/cli.py" --no-schema \
	--spec "$ROCEPATH_TOP/Documentation/netlink/specs/rocepath.yaml" --do pin-add \
	--json "{\"pin\": {\"remote\": \"$(python3 -c "import ipaddress; print(ipaddress.ip_address('$PEER_IP4').packed.hex())")\", \"sport\": [50000, 50001, 50002, 50003]}}" >/dev/null
hit_rtr=$(rtr_us)
graph "$RUN_DIR/graph/hit" ib_modify_qp_with_udata
graph "$RUN_DIR/graph/hit" modify_entry
graph "$RUN_DIR/graph/hit" modify_ret
rmmod rocepath
base_rtr2=$(rtr_us)

per_rule=$(( (s1 - s0) * 1024 / n ))
printf '%-48s %12s\n' "pin rules ($(uname -r), TCG, icount $icount)" "value"
printf '%-48s %12s\n' "replace transaction, $n rules (s)" "$t_replace"
printf '%-48s %12s\n' "single pin-add x $n (s)" "$t_add"
printf '%-48s %12s\n' "dump of $dumped rules (s)" "$t_dump"
printf '%-48s %12s\n' "flush of $n rules (s)" "$t_flush"
printf '%-48s %12s\n' "memory per rule, slab delta (B)" "$per_rule"
printf '%-48s %12s\n' "ibv_modify_qp INIT->RTR, no module (us)" "$base_rtr / $base_rtr2"
printf '%-48s %12s\n' "  ... module, $n rules, no match (us)" "$miss_rtr"
printf '%-48s %12s\n' "  ... module, 4-port path set matches (us)" "$hit_rtr"
g=$RUN_DIR/graph
printf '%-48s %12s\n' "in-kernel INIT->RTR, ib_modify_qp_with_udata," ""
printf '%-48s %12s\n' "  median of $(count $g/off/ib_modify_qp_with_udata.us) calls (function_graph):" ""
printf '%-48s %12s\n' "  no module (us)" "$(median $g/off/ib_modify_qp_with_udata.us)"
printf '%-48s %12s\n' "  module, $n rules, no match (us)" "$(median $g/miss/ib_modify_qp_with_udata.us)"
printf '%-48s %12s\n' "  module, path set matches (us)" "$(median $g/hit/ib_modify_qp_with_udata.us)"
printf '%-48s %12s\n' "return probe's entry handler, median of $(count $g/hit/modify_entry.us) (us)" "$(median $g/hit/modify_entry.us)"
printf '%-48s %12s\n' "return probe's return handler, median of $(count $g/hit/modify_ret.us) (us)" "$(median $g/hit/modify_ret.us)"
