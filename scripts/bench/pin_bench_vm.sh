#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of pin_bench.sh (runs on h1 of scripts/vm/run.sh).
. "$ROCEPATH_TOP/selftests/lib.sh"

n=${PIN_BENCH_RULES:-100000}
cycles=${PIN_BENCH_CYCLES:-1000}
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

rtr_us >/dev/null	# warm-up: first QPs, page faults, caches
base_rtr=$(rtr_us)
insmod "$ROCEPATH_KO"
sync; echo 3 >/proc/sys/vm/drop_caches
s0=$(slab_kb)
t_replace=$(secs replace "$n")
sync; echo 3 >/proc/sys/vm/drop_caches
s1=$(slab_kb)
t_dump=$(secs dump)
dumped=$("$bin/pin_load" dump | awk '{ print $2 }')
miss_rtr=$(rtr_us)
t_flush=$(secs flush)
t_add=$(secs add "$n")
"$bin/pin_load" flush >/dev/null
python3 "$ROCEPATH_TOP/.cache/linux-src/tools/net/ynl/cli.py" --no-schema \
	--spec "$ROCEPATH_TOP/Documentation/netlink/specs/rocepath.yaml" --do pin-add \
	--json "{\"pin\": {\"remote\": \"$(python3 -c "import ipaddress; print(ipaddress.ip_address('$PEER_IP4').packed.hex())")\", \"sport\": [50000, 50001, 50002, 50003]}}" >/dev/null
hit_rtr=$(rtr_us)
rmmod rocepath
base_rtr2=$(rtr_us)

per_rule=$(( (s1 - s0) * 1024 / n ))
printf '%-48s %12s\n' "pin rules ($(uname -r), TCG)" "value"
printf '%-48s %12s\n' "replace transaction, $n rules (s)" "$t_replace"
printf '%-48s %12s\n' "single pin-add x $n (s)" "$t_add"
printf '%-48s %12s\n' "dump of $dumped rules (s)" "$t_dump"
printf '%-48s %12s\n' "flush of $n rules (s)" "$t_flush"
printf '%-48s %12s\n' "memory per rule, slab delta (B)" "$per_rule"
printf '%-48s %12s\n' "ibv_modify_qp INIT->RTR, no module (us)" "$base_rtr / $base_rtr2"
printf '%-48s %12s\n' "  ... module, $n rules, no match (us)" "$miss_rtr"
printf '%-48s %12s\n' "  ... module, 4-port path set matches (us)" "$hit_rtr"
