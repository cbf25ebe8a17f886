#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rocepath netlink family survives a fuzzer derived from its YNL spec
# (nl_fuzz.py: valid and mutated requests of every operation, as root and
# unprivileged) while RDMA traffic runs both ways and a monitor listens on
# each guest: every request answered, EPERM for every unprivileged change,
# state still dumps as JSON, the module unloads, and no kernel complaint
# (nor kmemleak report, where kmemleak runs) on either guest.
#
# NL_FUZZ_COUNT (messages per phase, default 10000), NL_FUZZ_SEED
# (default 1) and NL_FUZZ_START (index of the first message, default 0: a
# long run done in parts) reproduce a run; set them on the host
# (scripts/vm/run.sh passes them into the guests, see settings). Both
# guests fuzz, each its half of the index range (h1 the first), so the two
# host cores TCG has both do fuzzing and a run covers exactly the messages
# START .. START+COUNT-1 of each phase: a message depends on the seed, the
# phase and its index only, never on the guest that sent it.

source "$(dirname "$0")/lib.sh"

: "${NL_FUZZ_COUNT:=10000}"
: "${NL_FUZZ_SEED:=1}"
: "${NL_FUZZ_START:=0}"

require_module
require_cmd python3 ib_write_bw
python3 -c 'import yaml' 2>/dev/null || ksft_skip_all "python3-yaml is not installed"
require_cli

LGID=$(gid_index "$IBDEV" "$HOST_IP4") || ksft_skip_all "no RoCEv2 GID for $HOST_IP4"
RGID=$(on_gid_index 2 "$PEER_IP4") ||
	ksft_skip_all "no RoCEv2 GID for $PEER_IP4 on h2"

rp_load_both || ksft_skip_all "cannot load $ROCEPATH_KO on both guests"

# RDMA traffic both ways for the whole run: ib_write_bw servers in a loop,
# clients in a loop (each direction on its own TCP port), counting runs.
# perftest polls its completion queue without sleeping; at nice 19 it takes
# the CPU the fuzzer leaves (grace periods, replies) instead of half of it,
# and the packets still flow through the hooks while messages are handled.
T=$RUN_DIR/nl_fuzz
mkdir -p "$T"
rm -f "$T"/*.runs
bw="nice -n 19 ib_write_bw -d $IBDEV -s 4096 -n 50 -F -u $RC_TIMEOUT"
on_host_bg 2 srv1 "while :; do $bw -x $RGID -p 18515 >/dev/null 2>&1; done"
on_host_bg 1 srv2 "while :; do $bw -x $LGID -p 18516 >/dev/null 2>&1; done"
on_host_bg 1 cli1 "while :; do $bw -x $LGID -p 18515 $PEER_IP4 >/dev/null 2>&1 &&
	echo >>$T/h1-h2.runs || sleep 1; done"
on_host_bg 2 cli2 "while :; do $bw -x $RGID -p 18516 $HOST_IP4 >/dev/null 2>&1 &&
	echo >>$T/h2-h1.runs || sleep 1; done"
stop_traffic() {
	kill_bg 1 cli1
	kill_bg 2 cli2
	kill_bg 1 srv2
	kill_bg 2 srv1
}
defer stop_traffic

# A monitor listener on each guest takes every notification the fuzzing
# causes there.
on_host_bg 1 monitor "exec $RP_CLI monitor >$T/monitor-h1.out 2>&1"
on_host_bg 2 monitor "exec $RP_CLI monitor >$T/monitor-h2.out 2>&1"

# Kernels with kmemleak (the debug lane): forget what was suspected before.
KMEMLEAK=/sys/kernel/debug/kmemleak
for n in 1 2; do
	on_host $n "[ -w $KMEMLEAK ] && echo clear >$KMEMLEAK; dmesg | wc -l >$T/kmsg-mark-h$n"
done

# fuzz_cmd START COUNT ADDR4 ADDR6: the fuzzer over messages START ..
# START+COUNT-1 of each phase, the peer's addresses as pin remotes.
fuzz_cmd() {
	echo "python3 selftests/nl_fuzz.py --seed $NL_FUZZ_SEED --count $2 --start $1" \
		"--ibdev $IBDEV --ibdev nosuchdev0 --addr $3 --addr $4"
}
half=$(((NL_FUZZ_COUNT + 1) / 2))
log "nl_fuzz.py --seed $NL_FUZZ_SEED: messages $NL_FUZZ_START..$((NL_FUZZ_START + half - 1)) on h1," \
	"$((NL_FUZZ_START + half))..$((NL_FUZZ_START + NL_FUZZ_COUNT - 1)) on h2"
on_host_bg 1 fuzz "$(fuzz_cmd "$NL_FUZZ_START" "$half" "$PEER_IP4" "$PEER_IP6") >$T/fuzz-h1.out 2>&1"
on_host_bg 2 fuzz "$(fuzz_cmd $((NL_FUZZ_START + half)) $((NL_FUZZ_COUNT - half)) \
	"$HOST_IP4" "$HOST_IP6") >$T/fuzz-h2.out 2>&1"
for n in 1 2; do
	wait_bg $n fuzz >/dev/null
	rc=$?
	out=$T/fuzz-h$n.out
	grep -v '^#   msg ' "$out" | head -n 60 | sed "s/^\([^#]\)/# \1/; s/^/# h$n: /"
	grep -q '^#   msg ' "$out" && grep '^#   msg ' "$out" | head -n 5 | sed "s/^/# h$n: /"
	[ $n = 1 ] && first=$NL_FUZZ_START count=$half ||
		first=$((NL_FUZZ_START + half)) count=$((NL_FUZZ_COUNT - half))
	what="$count messages per phase from index $first, seed $NL_FUZZ_SEED"
	[ $rc = 0 ] && ksft_pass "h$n: nl_fuzz.py: $what" || ksft_fail "h$n: nl_fuzz.py: $what (rc $rc)"
done

# State afterwards: every dump still parses, on both guests.
for n in 1 2; do
	for what in "pin show" "qp show" "flow show" "dcqcn show" "stats"; do
		ksft_test "h$n: rocepath -j $what parses as JSON after the fuzzing" \
			on_host $n "timeout 60 $RP_CLI -j $what | $PY -c 'import json, sys; json.load(sys.stdin)'"
	done
done

for n in 1 2; do
	[ ! -e "$(__bg_dir)/$n.monitor.rc" ] &&
		ksft_pass "h$n: rocepath monitor still listening ($(wc -l <"$T/monitor-h$n.out") lines)" ||
		{ tail -n 5 "$T/monitor-h$n.out" | sed 's/^/# /'; ksft_fail "h$n: rocepath monitor still listening"; }
	kill_bg $n monitor
done
stop_traffic
log "RDMA traffic during the run: $(cat "$T"/h1-h2.runs 2>/dev/null | wc -l) ib_write_bw runs h1->h2," \
	"$(cat "$T"/h2-h1.runs 2>/dev/null | wc -l) h2->h1"

# Unload first: a leaked object of the module's caches shows up now.
for n in 1 2; do
	ksft_test "h$n: rmmod rocepath after the fuzzing" on_host $n "rmmod rocepath"
done

# kmemleak reports objects older than 5 s; each guest greps the kernel log
# written since the run started.
for n in 1 2; do
	bugs=$(on_host $n "if [ -w $KMEMLEAK ]; then sleep 6; echo scan >$KMEMLEAK;
		grep -q '^unreferenced object' $KMEMLEAK && head -n 60 $KMEMLEAK | sed 's/^/kmemleak: /'; fi
		dmesg | tail -n +\$((\$(cat $T/kmsg-mark-h$n) + 1)) | grep -E '$KMSG_BUG_RE'")
	[ -z "$bugs" ] &&
		ksft_pass "h$n: no BUG, WARN, KASAN, lockdep or leak line in dmesg" ||
		{ echo "$bugs" | head -n 40 | sed 's/^/# /'; ksft_fail "h$n: no BUG, WARN, KASAN, lockdep or leak line in dmesg"; }
done

ksft_exit
