#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves that users of one host cannot read each other's connections nor
# crowd each other out of the QP table. With a QP of root and one of uid
# 65534 alive side by side: 65534's qp show and flow show hold its own QP
# only (root's hold both), its pin show and monitor are refused and the CLI
# says they need CAP_NET_ADMIN. Loaded with max_qps_per_uid=2, 65534's
# ib_write_bw -q 4 gets at most two records and the refusals are counted,
# while root's QPs after it are all recorded.

. "$(dirname "$0")/lib.sh"

require_cmd jq ibv_rc_pingpong ib_write_bw setpriv
require_cli

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"
# uid 65534 may not read the checkout (a clone below /root): a copy of the CLI.
CLI=/tmp/rocepath-cli-unpriv
cp "$RP_CLI" "$CLI" && chmod a+rx "$CLI" || ksft_skip_all "cannot stage the CLI for uid 65534"

rp_load_both || ksft_skip_all "cannot load $ROCEPATH_KO"

LGID=$(gid_index "$IBDEV" "$HOST_IP4") || ksft_skip_all "no RoCEv2 GID for $HOST_IP4"
RGID=$(on_gid_index 2 "$PEER_IP4") ||
	ksft_skip_all "no RoCEv2 GID for $PEER_IP4 on h2"

# pingpong NAME PORT [PREFIX]: a long ibv_rc_pingpong, server on h2, client
# on h1 run through PREFIX (the user), both in the background.
pingpong() {
	local name=$1 port=$2 as=${3:-}
	on_host_bg 2 "pp-$name" "ibv_rc_pingpong -d $IBDEV -g $RGID -p $port -n 1000000"
	sleep 2
	on_host_bg 1 "pp-$name" "$as ibv_rc_pingpong -d $IBDEV -g $LGID -p $port -n 1000000 $PEER_IP4"
}

qps() {
	"$RP_CLI" -j qp show | jq -c '[.[] | .lqpn]'
}

pingpong root 18600
pingpong nobody 18601 "$NOBODY"
defer kill_bg 1 pp-root
defer kill_bg 2 pp-root
defer kill_bg 1 pp-nobody
defer kill_bg 2 pp-nobody

two_qps() {
	[ "$(qps | jq length)" -ge 2 ]
}
if ! retry 30 1 two_qps; then
	log "root sees $(qps)"
	cat "$(__bg_dir)"/1.pp-*.out 2>/dev/null | sed 's/^/# /'
	ksft_skip_all "the two ping-pongs did not both start"
fi
ALL=$(qps)
log "root sees QPs $ALL"

# The checks below are about what each user sees: the QPs and their flows,
# not traffic. So once root's flow show holds both QPs the two clients on
# h1 are stopped, their QPs alive and quiet. At full speed the two
# ping-pongs left a debug-kernel guest under TCG (make check-debug) no
# time for anything else: a CLI call beside them took 15 to 105 s, and
# 1.6 s without them.
two_flows() {
	[ "$("$RP_CLI" -j flow show | jq '[.[] | .lqpn // empty] | unique | length')" -ge 2 ]
}
retry 30 1 two_flows || log "root's flow show: fewer than two QPs' flows: $("$RP_CLI" -j flow show)"
pkill -STOP -x ibv_rc_pingpong || log "no ibv_rc_pingpong on h1 to stop"

own_qps() {
	local out err
	err=$(mktemp)
	out=$($NOBODY "$CLI" -j qp show 2>"$err") || { cat "$err"; return 1; }
	echo "uid 65534 sees $out"
	grep -q "without CAP_NET_ADMIN" "$err" || { echo "no note on stderr"; return 1; }
	jq -e 'length == 1' <<<"$out" >/dev/null
}
ksft_test "qp show as uid 65534: its own QP only, with a note" own_qps

own_flows() {
	local mine all out
	mine=$($NOBODY "$CLI" -j qp show 2>/dev/null | jq -c '[.[] | .lqpn]')
	out=$($NOBODY "$CLI" -j flow show 2>/dev/null) || return 1
	all=$("$RP_CLI" -j flow show)
	echo "uid 65534 QPs $mine; its flows $(jq -c '[.[] | .lqpn]' <<<"$out"); root's $(jq -c '[.[] | .lqpn]' <<<"$all")"
	jq -e --argjson m "$mine" 'length >= 1 and all(.[]; .lqpn as $l | $m | index($l))' \
		<<<"$out" >/dev/null &&
	jq -e --argjson m "$mine" '[.[] | select(.lqpn != null) | select(.lqpn as $l | $m | index($l) | not)] | length >= 1' \
		<<<"$all" >/dev/null
}
ksft_test "flow show as uid 65534: flows of its own QP only (root sees others)" retry 10 1 own_flows

# The timeout ends a monitor that was not refused; a refusal takes a
# second or two, on the debug kernel too.
refused() {
	local what=$1 out
	shift
	if out=$(timeout 60 $NOBODY "$CLI" "$@" 2>&1); then
		echo "$what succeeded: $out"
		return 1
	fi
	echo "$out"
	grep -q "needs CAP_NET_ADMIN" <<<"$out"
}
ksft_test "pin show as uid 65534: refused, needs CAP_NET_ADMIN" refused "pin show" pin show
ksft_test "monitor as uid 65534: refused, needs CAP_NET_ADMIN" refused monitor monitor
ksft_test "pin show as root still works" "$RP_CLI" pin show

kill_bg 1 pp-root
kill_bg 2 pp-root
kill_bg 1 pp-nobody
kill_bg 2 pp-nobody

# ---- item: the QP table is charged per uid ----
rp_load 1 max_qps_per_uid=2 || { ksft_fail "load with max_qps_per_uid=2"; ksft_exit; }

stat() {
	"$RP_CLI" -j stats | jq ".$1"
}

# write_bw PREFIX QPS: ib_write_bw with QPS QPs, client on h1 as PREFIX.
write_bw() {
	local as=$1 q=$2 rc
	on_host_bg 2 wbw "ib_write_bw -d $IBDEV -x $RGID -s 4096 -n 50 -F -u $RC_TIMEOUT -q $q"
	sleep 2
	retry 10 1 $as ib_write_bw -d "$IBDEV" -x "$LGID" -s 4096 -n 50 -F -u "$RC_TIMEOUT" -q "$q" "$PEER_IP4" \
		>"$RUN_DIR/tenant_bw.out" 2>&1
	rc=$?
	[ "$rc" = 0 ] || { tail -n 5 "$RUN_DIR/tenant_bw.out"; kill_bg 2 wbw; return "$rc"; }
	wait_bg 2 wbw 60 >/dev/null
}

capped() {
	local before after
	[ "$(stat qps_per_uid_max)" = 2 ] || { echo "stats: qps_per_uid_max $(stat qps_per_uid_max)"; return 1; }
	before=$(stat qps_owner_refused)
	write_bw "$NOBODY" 4 || return 1
	after=$(stat qps_owner_refused)
	echo "qps_owner_refused $before -> $after"
	[ $((after - before)) -ge 2 ]
}
ksft_test "max_qps_per_uid=2: uid 65534's -q 4 gets <= 2 records, refusals counted" capped

others_free() {
	local before after
	before=$(stat qps_owner_refused)
	write_bw "" 2 || return 1
	after=$(stat qps_owner_refused)
	echo "qps_owner_refused $before -> $after"
	[ "$after" = "$before" ]
}
ksft_test "root's -q 2 after it: no refusal" others_free
ksft_exit
