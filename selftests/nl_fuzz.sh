#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rocepath netlink family survives a fuzzer derived from its YNL spec
# (nl_fuzz.py: valid and mutated requests of every operation, as root and
# unprivileged) while RDMA traffic runs both ways and a monitor listens:
# every request answered, EPERM for every unprivileged change, state still
# dumps as JSON, the module unloads, and no kernel complaint (nor kmemleak
# report, where kmemleak runs).
#
# NL_FUZZ_COUNT (messages per phase, default 10000), NL_FUZZ_SEED
# (default 1) and NL_FUZZ_START (index of the first message, default 0: a
# long run done in parts) reproduce a run; set them on the host
# (scripts/vm/run.sh passes them into the guests, see settings).

source "$(dirname "$0")/lib.sh"

: "${NL_FUZZ_COUNT:=10000}"
: "${NL_FUZZ_SEED:=1}"
: "${NL_FUZZ_START:=0}"
RP=${RP_CLI:-$ROCEPATH_TOP/daemon/rocepath}

require_module
require_cmd python3 ib_write_bw
python3 -c 'import yaml' 2>/dev/null || ksft_skip_all "python3-yaml is not installed"
[ -x "$RP" ] || ksft_skip_all "rocepath not built ($RP): make -C daemon"

LGID=$(gid_index "$IBDEV" "$HOST_IP4") || ksft_skip_all "no RoCEv2 GID for $HOST_IP4"
RGID=$(on_host 2 "source selftests/lib.sh; gid_index $IBDEV $PEER_IP4") ||
	ksft_skip_all "no RoCEv2 GID for $PEER_IP4 on h2"

rmmod rocepath 2>/dev/null
insmod "$ROCEPATH_KO" || ksft_skip_all "cannot load $ROCEPATH_KO"
defer "rmmod rocepath 2>/dev/null"

# RDMA traffic both ways for the whole run: ib_write_bw servers in a loop,
# clients in a loop (each direction on its own TCP port), counting runs.
T=$RUN_DIR/nl_fuzz
mkdir -p "$T"
rm -f "$T"/*.runs
bw="ib_write_bw -d $IBDEV -s 4096 -n 50 -F"
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

# A monitor listener takes every notification the fuzzing causes.
on_host_bg 1 monitor "exec $RP monitor >$T/monitor.out 2>&1"

# Kernels with kmemleak (the debug lane): forget what was suspected before.
KMEMLEAK=/sys/kernel/debug/kmemleak
[ -w $KMEMLEAK ] && echo clear >$KMEMLEAK

kmsg_mark
log "nl_fuzz.py --seed $NL_FUZZ_SEED --count $NL_FUZZ_COUNT --start $NL_FUZZ_START"
python3 selftests/nl_fuzz.py --seed "$NL_FUZZ_SEED" --count "$NL_FUZZ_COUNT" \
	--start "$NL_FUZZ_START" \
	--ibdev "$IBDEV" --ibdev nosuchdev0 --addr "$PEER_IP4" --addr "$PEER_IP6" \
	>"$T/fuzz.out" 2>&1
rc=$?
grep -v '^#   msg ' "$T/fuzz.out" | head -n 60 | sed 's/^\([^#]\)/# \1/'
grep -q '^#   msg ' "$T/fuzz.out" && grep '^#   msg ' "$T/fuzz.out" | head -n 5
what="$NL_FUZZ_COUNT messages per phase from index $NL_FUZZ_START, seed $NL_FUZZ_SEED"
[ $rc = 0 ] && ksft_pass "nl_fuzz.py: $what" || ksft_fail "nl_fuzz.py: $what (rc $rc)"

# State afterwards: every dump still parses.
for what in "pin show" "qp show" "flow show" "dcqcn show" "stats"; do
	ksft_test "rocepath -j $what parses as JSON after the fuzzing" \
		bash -c "timeout 60 $RP -j $what | python3 -c 'import json, sys; json.load(sys.stdin)'"
done

[ ! -e "$(__bg_dir)/1.monitor.rc" ] &&
	ksft_pass "rocepath monitor still listening ($(wc -l <"$T/monitor.out") lines)" ||
	{ tail -n 5 "$T/monitor.out" | sed 's/^/# /'; ksft_fail "rocepath monitor still listening"; }
kill_bg 1 monitor
stop_traffic
log "RDMA traffic during the run: $(cat "$T"/h1-h2.runs 2>/dev/null | wc -l) ib_write_bw runs h1->h2," \
	"$(cat "$T"/h2-h1.runs 2>/dev/null | wc -l) h2->h1"

# Unload first: a leaked object of the module's caches shows up now.
ksft_test "rmmod rocepath after the fuzzing" rmmod rocepath

if [ -w $KMEMLEAK ]; then
	sleep 6		# kmemleak reports objects older than 5 s
	echo scan >$KMEMLEAK
	leaks=$(grep -c '^unreferenced object' $KMEMLEAK)
	[ "$leaks" -gt 0 ] && head -n 60 $KMEMLEAK | sed 's/^/# kmemleak: /'
fi
bugs=$(kmsg_bugs)
[ -z "$bugs" ] && [ "${leaks:-0}" = 0 ] &&
	ksft_pass "no BUG, WARN, KASAN, lockdep or leak line in dmesg" ||
	{ echo "$bugs" | head -n 40 | sed 's/^/# /'; ksft_fail "no BUG, WARN, KASAN, lockdep or leak line in dmesg"; }

ksft_exit
