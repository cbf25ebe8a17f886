#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the module follows an RDMA device rename everywhere it names the
# device: dev show, dcqcn show and set (the new name works, the old one is
# refused), a live QP's record, a flow's record and a device-scoped pin
# rule all say the new name; and back again. Hardware counters, which dev
# show reads from the core's sysfs copies, follow the rename too.

source "$(dirname "$0")/lib.sh"

require_module
require_cmd rdma python3 jq
require_cli
churn_prog
GIDX=$(gid_index "$IBDEV" "$HOST_IP4") || ksft_skip_all "no RoCEv2 GID for $HOST_IP4"
NEW=rprename0
FIFO=$(mktemp -u /tmp/dev_rename.XXXXXX)	# a FIFO cannot live on the 9p share

rp_load 1 || ksft_skip_all "cannot load $ROCEPATH_KO"
defer rp_unload 1
defer "rdma dev set $NEW name $IBDEV 2>/dev/null"

"$RP_CLI" pin add remote "$PEER_IP4" sport 50010 dev "$IBDEV" >/dev/null ||
	ksft_fail "device-scoped pin add"
rdma_pingpong >/dev/null 2>&1 || log "rc_pingpong failed: no flow record to check"
mkfifo "$FIFO"
"$CHURN" -d "$IBDEV" -g "$GIDX" -a "$PEER_IP4" -n 1 -k <"$FIFO" >"$RUN_DIR/keep.out" 2>&1 &
keep=$!
exec 7>"$FIFO"
retry 60 0.5 grep -q "^qp 0 " "$RUN_DIR/keep.out" || log "the kept QP did not come up"
defer "echo >&7; exec 7>&-; wait $keep"

# names KIND: the device names in 'rocepath -j KIND show', sorted, unique.
names() {
	"$RP_CLI" -j $1 show | py -c '
import json, sys
print(" ".join(sorted({o.get("dev") or "-" for o in json.load(sys.stdin)})))'
}

renamed() { # FROM TO
	rdma dev set "$1" name "$2" || return 1
	local k got ok=0
	for k in dev dcqcn qp flow pin; do
		got=$(names $k)
		log "$k show: $got"
		grep -qw -- "$2" <<<"$got" && ! grep -qw -- "$1" <<<"$got" || ok=1
	done
	return $ok
}
# Hardware counters come from the core's cached copies in sysfs, under the
# device's current name; the module no longer calls the driver for them.
hw_counters() {
	local out
	[ -e "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts" ] ||
		{ echo "no sent_pkts in $1's sysfs hw_counters"; return 4; }
	out=$("$RP_CLI" -j dev show dev "$1") || return 1
	jq -e '.[0].hw_counters | has("sent_pkts")' <<<"$out" >/dev/null ||
		{ echo "$out"; return 1; }
	out=$(ynl --dump dev-get --output-json) || return 1
	! grep -q hw-counter <<<"$out" || { echo "dev-get still carries hw-counter"; return 1; }
}
ksft_test "dev show: hw_counters from sysfs, none in dev-get" hw_counters "$IBDEV"
ksft_test "rename $IBDEV -> $NEW: dev, dcqcn, qp, flow and pin show say $NEW" renamed "$IBDEV" "$NEW"
ksft_test "dev show after the rename: hw_counters under $NEW" hw_counters "$NEW"
ksft_test "dcqcn set takes the new name" "$RP_CLI" dcqcn set dev "$NEW" np_enable 1
set_old() {
	local out
	out=$("$RP_CLI" dcqcn set dev "$IBDEV" np_enable 1 2>&1) && return 1
	log "$out"
	grep -q "no such rdma device" <<<"$out"
}
ksft_test "dcqcn set refuses the old name: no such rdma device" set_old
ksft_test "dcqcn show of $NEW has the value set" \
	bash -c "'$RP_CLI' -j dcqcn show dev '$NEW' | $PY -c 'import json,sys; sys.exit(json.load(sys.stdin)[0][\"np_enable\"] != 1)'"
ksft_test "rename back $NEW -> $IBDEV: every show says $IBDEV" renamed "$NEW" "$IBDEV"
ksft_exit
